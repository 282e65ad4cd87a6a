"""Benchmark of ``python -m verify.identify`` (not a unit test).

Run: ``python scripts/bench_identify.py [--direct]``.  Prints wall-clock seconds per (activation, n) for the
structured solver (per row, per support size, u eliminated) and, with ``--direct``, the unstructured
lex Groebner basis of the whole row system in 2n unknowns at the closing order (cross-check).
"""

from __future__ import annotations

import argparse
import time

from verify.identify import direct_row_solutions, identify


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--direct", action="store_true", help="also time the unstructured Groebner solve")
    ap.add_argument("--nmax", type=int, default=6)
    args = ap.parse_args()
    for act in ("sigmoid", "tanh", "softplus", "exp", "sin", "gelu", "identity", "cube"):
        for n in (2, 4, args.nmax):
            t0 = time.perf_counter()
            r = identify(act, n)
            dt = time.perf_counter() - t0
            line = f"{act:9s} n={n:2d} order={r['order']} identified={r['identified']!s:5s} {dt:7.3f} s  {r['class']}"
            if args.direct and r["order"] is not None and n <= 4:
                t1 = time.perf_counter()
                zero_dim, sols = direct_row_solutions(act, n, r["order"])
                line += f" | direct: zero-dim={zero_dim} {len(sols)} sols {time.perf_counter() - t1:.3f} s"
            print(line, flush=True)


if __name__ == "__main__":
    main()
