"""``python -m counterexamples.search``: find Golowich et al. Prop C.3-style necessity witnesses by z3 search.

    python -m counterexamples.search --drop locality|relative|realizability|coverage|none --L 4 \\
        [--vocab 2 --k 2 --L-local 2 --Lbar 8 --keys 2 --values 2 --c 1/4 --eta-factor 2] \\
        [--literal] [--no-minimize] [--timeout 60] [--json] [--out results.jsonl [--resume]]

``--json`` prints one object: found, verified (independent exact re-check), witness, train_risk, test_risk,
bound, seconds (and params, searched cells, check details).  With ``--drop none`` the search looks for a
failing minimiser while all four assumptions hold; none is expected, and ``bound`` is Theorem 4.3's
eta_L eta_Lbar L Lbar^2 delta (delta = 0 here) next to ``worst_test_risk``.  ``--out`` writes one JSON
line per searched cell and a final line, as the search goes; an existing file needs ``--resume``, which
skips the cells of an earlier run (same parameters) that were unsat.  Usage errors exit 2 with one line.
See docs/counterexamples.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction

from counterexamples.golowich.search import DROPS, Params, SearchError, _params_json, format_witness, search
from lengthgen_cli import (
    JsonlOutput,
    Parser,
    UsageError,
    add_json_option,
    add_output_options,
    bounded_int,
    check_output,
    command,
    finite_real,
    progress,
    rational,
    usage_errors,
)

# Sizes beyond these are refused before any work (the encodings enumerate vocab^k planted patterns and the
# sequences up to Lbar; L = 8 already takes minutes, docs/counterexamples.md).
MAX_L = 64
MAX_LBAR = 256
MAX_VOCAB = 16
MAX_K = 8
MAX_FUNCTIONS = 16
MAX_PATTERNS = 10**5  # vocab ** k


def _limit(name: str) -> str:
    return f"counterexamples.search.{name} = {globals()[name]}"


def build_parser() -> Parser:
    ap = Parser(module="counterexamples.search", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drop", required=True, choices=DROPS, help="the assumption to drop (none: Thm 4.3 check)")
    ap.add_argument("--L", type=bounded_int(2, MAX_L, _limit("MAX_L")), required=True,
                    help="maximum training length (training lengths [L/2, L])")
    ap.add_argument("--vocab", type=bounded_int(2, MAX_VOCAB, _limit("MAX_VOCAB")), default=2,
                    help="vocabulary size (default 2)")
    ap.add_argument("--k", type=bounded_int(1, MAX_K, _limit("MAX_K")), default=2, help="sparsity (default 2)")
    ap.add_argument("--L-local", dest="L_local", type=bounded_int(1, MAX_L, _limit("MAX_L")), default=None,
                    help="locality radius (default 2 for a drop, max(1, L//4) for none)")
    ap.add_argument("--Lbar", type=bounded_int(2, MAX_LBAR, _limit("MAX_LBAR")), default=None,
                    help="test length (default 2L)")
    functions = bounded_int(1, MAX_FUNCTIONS, _limit("MAX_FUNCTIONS"))
    ap.add_argument("--keys", type=functions, default=2, help="maximum number of key functions (default 2)")
    ap.add_argument("--values", type=functions, default=2, help="maximum number of value functions (default 2)")
    ap.add_argument("--c", type=rational(positive=True, high=1), default=Fraction(1, 4),
                    help="failure threshold on the test risk, exact rational in (0, 1] (default 1/4)")
    ap.add_argument("--eta-factor", dest="eta_factor", type=rational(positive=True), default=Fraction(2),
                    help="coverage is required with eta_l = eta_factor * l (default 2)")
    ap.add_argument("--literal", action="store_true",
                    help="do not require span(S*) <= L_local (Theorem 4.3 as literally stated)")
    ap.add_argument("--no-minimize", dest="minimize", action="store_false", help="do not shrink the witness")
    ap.add_argument("--min-seconds", dest="min_seconds", type=finite_real(nonnegative=True), default=3.0,
                    help="time budget in seconds for shrinking a witness (default 3)")
    ap.add_argument("--timeout", type=finite_real(positive=True), default=60.0,
                    help="overall time limit in seconds (default 60)")
    add_json_option(ap)
    add_output_options(ap, what="one record per searched cell and a final record")
    return ap


def _is_search_record(records: list) -> bool:
    return all("params" in r and ("cell" in r or "final" in r) for r in records)


def _resume_cells(records: list, params: dict) -> set:
    """Cells an earlier run with the same parameters found unsat."""
    return {(r["cell"]["keys"], r["cell"]["values"], tuple(r["cell"]["planted"])) for r in records
            if r.get("params") == params and r.get("cell", {}).get("result") == "unsat"}


@command
def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    with usage_errors(ap, SearchError):
        if args.vocab ** args.k > MAX_PATTERNS:
            raise UsageError(f"--vocab {args.vocab} --k {args.k}: {args.vocab ** args.k} planted patterns exceed "
                             f"the limit {_limit('MAX_PATTERNS')}")
        p = Params(drop=args.drop, L=args.L, vocab=args.vocab, k=args.k, L_local=args.L_local, Lbar=args.Lbar,
                   keys=args.keys, values=args.values, c=args.c, eta_factor=args.eta_factor, literal=args.literal,
                   minimize=args.minimize, timeout_s=args.timeout, min_seconds=args.min_seconds).resolved()
        records = check_output(args.out, kind="jsonl", resume=args.resume, recognise=_is_search_record)
    pj = _params_json(p)
    skip = _resume_cells(records or [], pj)
    with JsonlOutput(args.out) as out, usage_errors(ap), \
            progress(desc=f"drop {p.drop}, L = {p.L}: cells", unit="cell") as bar:
        def log(entry):
            out.write({"params": pj, "cell": entry})
            bar.set_postfix_str(f"{entry['keys']}x{entry['values']} {entry['result']}")
            bar.update()

        res = search(p, log=log, skip=skip)
        out.write({"params": pj, "final": res})
    if args.json:
        print(json.dumps(res))
        return 0
    _print_human(res)
    return 0


def _print_human(res: dict) -> None:
    p = res["params"]
    print(f"drop {p['drop']}: L = {p['L']}, Lbar = {p['Lbar']}, vocab {p['vocab']}, k = {p['k']}, "
          f"L_local = {p['L_local']}, <= {p['keys']} keys x {p['values']} values  ({res['seconds']} s)")
    if res["found"]:
        print(f"FOUND a witness; exact re-check: {'verified' if res['verified'] else 'NOT VERIFIED'}")
        print(format_witness(res["witness"]))
        print(f"  training risk of the failing minimiser: {res['train_risk']}")
        print(f"  its risk at Lbar = {p['Lbar']}: {res['test_risk']}   (threshold/bound: {res['bound']})")
        for a, why in res["check"]["violations"].items():
            print(f"  {a} violated: {why}")
    else:
        done = "complete" if res.get("complete") else "INCOMPLETE (time limit)"
        print(f"no witness within the bounds ({done}; {len(res['searched'])} cells)")
        if p["drop"] == "none":
            print(f"  Theorem 4.3 bound eta_L eta_Lbar L Lbar^2 delta = {res['bound']} (delta = 0); "
                  f"worst test risk of a minimiser found: {res['worst_test_risk']}")
            print(f"  theorem side conditions: {res['theorem_side_conditions']}")


if __name__ == "__main__":
    sys.exit(main())
