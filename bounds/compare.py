"""``python -m bounds.compare f.json g.json --lengths ...``: the largest exact disagreement of two models per length.

For each model length n (``$`` included, so n - 1 symbols) every string over the alphabet is evaluated exactly
(:func:`constructions.limit_transformer.exact_forward`, last position, every output coordinate) and the largest
``|f - g|`` is reported with a string attaining it.  Lengths with more than ``--max-strings`` strings are refused
(the limit is named); lengths where the izzo softmax is not yet a hardmax (irrational weights) are reported as
"not exact" rather than approximated.  Usage errors exit 2 with one line.
"""

from __future__ import annotations

import itertools
import json
import sys
from fractions import Fraction

from bounds.margin import BoundsError
from constructions.limit_transformer import exact_forward
from constructions.limit_transformer.errors import NotExactError
from lengthgen_cli import Parser, add_json_option, bounded_int, command

MAX_LENGTH = 4096  # model lengths beyond this are refused by the command line
# The largest --max-strings accepted, and the most strings of one command (all its lengths together): the exact
# evaluation takes about 4 ms per string for the ModP p = 2 construction at length 15 on a 2-core machine, so 2^16
# strings are minutes, 2^24 would be most of a day.
MAX_STRINGS = 1 << 16


def exhaustive_disagreement(f, g, length: int) -> tuple[Fraction, str | None]:
    """max |f - g| (any output coordinate, last position) over EVERY string of model length ``length``, with a
    maximizing string (exact evaluation; raises NotExactError below the hardmax regime)."""
    if f.alphabet != g.alphabet:
        raise BoundsError(f"the models have different alphabets: {list(f.alphabet)} and {list(g.alphabet)}")
    best, arg = Fraction(-1), None
    for tup in itertools.product(f.alphabet, repeat=length - 1):
        s = "".join(tup)
        df = exact_forward(f, s, positions="last") - exact_forward(g, s, positions="last")
        m = max((abs(Fraction(v)) for v in df), default=Fraction(0))
        if m > best:
            best, arg = m, s
    return best, arg


def check_sizes(alphabet_size: int, lengths, max_strings: int) -> None:
    """Refuse, before anything is evaluated, a length with more than ``max_strings`` strings and lengths with more
    than ``MAX_STRINGS`` strings together (the limits named)."""
    total = 0
    for n in lengths:
        if n < 1:
            raise BoundsError(f"lengths must be >= 1 (the model length counts $), got {n}")
        count = alphabet_size ** (n - 1)  # at most 4096 bits: n <= MAX_LENGTH
        if count > max_strings:
            raise BoundsError(f"length {n} has {alphabet_size}^{n - 1} = {count if count < 10**12 else 'over 10^12'} "
                              f"strings, above --max-strings {max_strings}")
        total += count
        if total > MAX_STRINGS:
            raise BoundsError(f"the lengths asked for have {total} strings or more together, above the limit "
                              f"MAX_STRINGS = {MAX_STRINGS}")


def compare(f, g, lengths, max_strings: int = 1 << 14) -> list[dict]:
    check_sizes(len(f.alphabet), lengths, max_strings)
    rows = []
    for n in lengths:
        count = len(f.alphabet) ** (n - 1)
        try:
            d, s = exhaustive_disagreement(f, g, n)
            rows.append({"length": n, "strings": count, "max_disagreement": str(d), "float": float(d), "string": s})
        except NotExactError as e:
            rows.append({"length": n, "strings": count, "max_disagreement": None, "not_exact": str(e)})
    return rows


def _parser():
    ap = Parser(module="bounds.compare",
                description="Largest exact disagreement |f - g| of two Limit Transformers per input length.")
    ap.add_argument("f", help="model file f.json")
    ap.add_argument("g", help="model file g.json")
    ap.add_argument("--lengths", type=bounded_int(1, MAX_LENGTH, f"MAX_LENGTH = {MAX_LENGTH}"), nargs="+",
                    required=True, help="model lengths ($ included)")
    ap.add_argument("--max-strings", type=bounded_int(1, MAX_STRINGS, f"MAX_STRINGS = {MAX_STRINGS}"),
                    default=1 << 14, help="refuse lengths with more strings (default 16384)")
    add_json_option(ap)
    return ap


@command
def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        from constructions.limit_transformer.serialize import load_model

        f, g = load_model(args.f), load_model(args.g)
        rows = compare(f, g, args.lengths, args.max_strings)
    except (BoundsError, ValueError) as e:
        print(f"bounds.compare: error: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"f": args.f, "g": args.g, "rows": rows}))
        return 0
    print(f"max |f - g| per length (exact, every string), f = {args.f}, g = {args.g}")
    for r in rows:
        val = r["max_disagreement"] if r["max_disagreement"] is not None else "not exact (below the hardmax regime)"
        print(f"  length {r['length']:>4} ({r['strings']} strings): {val}" + (f"  at {r['string']!r}"
                                                                               if r.get("string") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
