"""Benchmark: exact evaluation of compiled C-RASP benchmark programs.

    python scripts/bench_exact.py [NAME ...] [--length 10000] [--ref-length 200]

For each program: the wall time of ``compiled_accepts(model, [w], exact=True)`` on one random word of
``--length`` letters (target: < 2 s at 10^4 for every program), its verdict checked against the float64
path (``stream_forward``); and, at ``--ref-length``, the time of the O(n^2) reference definition
(``exact_forward(..., reference=True)``, the evaluator before the linear path) against the linear path, with
their outputs checked equal.  Finally the number-type micro-benchmark behind the choice of integer rows:
10^4 rational additions (denominators 1..10^4) as ``Fraction`` object arrays, as gmpy2 ``mpq`` object
arrays (if gmpy2 is installed) and as ``RationalRow`` (int64 numerators/denominators).
"""

import argparse
import time
from fractions import Fraction

import numpy as np

from constructions.crasp.compiler import compile_program, compiled_accepts
from constructions.crasp.programs import BENCHMARKS, get
from constructions.limit_transformer import exact_forward, stream_forward
from constructions.limit_transformer.rational_rows import RationalRow


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def number_types(n: int = 10_000) -> None:
    rng = np.random.default_rng(1)
    a = [Fraction(int(x), t) for x, t in zip(rng.integers(-50, 50, n), range(1, n + 1), strict=True)]
    b = [Fraction(int(x), 2) for x in rng.integers(-50, 50, n)]
    fa, fb = np.array(a, dtype=object), np.array(b, dtype=object)
    _, t_frac = _timed(lambda: fa + fb)
    ra, rb = RationalRow.from_fractions(a), RationalRow.from_fractions(b)
    _, t_rows = _timed(lambda: ra + rb)
    line = f"{n} additions: Fraction {t_frac * 1e3:.2f} ms, RationalRow {t_rows * 1e3:.2f} ms"
    try:
        import gmpy2

        ma = np.array([gmpy2.mpq(x.numerator, x.denominator) for x in a], dtype=object)
        mb = np.array([gmpy2.mpq(x.numerator, x.denominator) for x in b], dtype=object)
        _, t_mpq = _timed(lambda: ma + mb)
        line += f", gmpy2 mpq {t_mpq * 1e3:.2f} ms"
    except ImportError:
        line += ", gmpy2 not installed"
    print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--length", type=int, default=10_000)
    ap.add_argument("--ref-length", type=int, default=200)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'program':<28}{'exact s':>9}  verdict   {'ref s':>8}{'linear s':>9}{'speed-up':>9}  (at n={args.ref_length})")
    worst = 0.0
    for name in args.names or list(BENCHMARKS):
        model = compile_program(get(name).program())
        w = "".join(rng.choice(list(model.alphabet), args.length))
        (verdict,), t_exact = _timed(lambda: compiled_accepts(model, [w], exact=True))  # noqa: B023
        agree = verdict == bool(stream_forward(model, w)[-1] > 0)
        worst = max(worst, t_exact)
        short = w[: args.ref_length]
        ref, t_ref = _timed(lambda: exact_forward(model, short, positions="last", reference=True))  # noqa: B023
        lin, t_lin = _timed(lambda: exact_forward(model, short, positions="last"))  # noqa: B023
        same = list(ref) == list(lin)
        print(f"{name:<28}{t_exact:>9.3f}  {'agrees' if agree else 'DIFFERS':<8}{t_ref:>8.2f}{t_lin:>9.4f}"
              f"{t_ref / t_lin:>8.0f}x  {'equal' if same else 'OUTPUTS DIFFER'}", flush=True)
    print(f"slowest exact evaluation at n={args.length}: {worst:.3f} s")
    number_types()


if __name__ == "__main__":
    main()
