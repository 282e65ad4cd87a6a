"""Benchmark: Lemma 47 compile + Theta_n check + exact offset check for every compiled C-RASP benchmark model.

    python scripts/bench_huang.py [--n 64] [--words 2]

For each of the 27 benchmark programs: compile to a Limit Transformer (C-RASP compiler, izzo), compile T_n
(Lemma 47), check every positional product function exactly (Definition 4), and compare T_n(x, o) with T(x, 0)
exactly on ``--words`` random words of length n - 1 (offset 0) and of length n // 2 (offsets 0 and n // 2).
Baseline in the same run: the exact evaluation of the Limit Transformer alone on the same words.
Prints one row per model and the totals; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from constructions.crasp.compiler import compile_program
from constructions.crasp.programs import BENCHMARKS
from constructions.huang.lemma47 import compile_theta, lemma47_mismatch
from constructions.huang.products import require_theta
from constructions.huang.regularizer import regularizer
from constructions.limit_transformer import exact_forward


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench_huang")
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--words", type=int, default=2)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    total = base_total = 0.0
    bad = 0
    print(f"{'model':28s} {'d':>4s} {'d_n':>5s} {'L_n':>4s} {'R':>8s} {'compile+check s':>16s} {'LT exact s':>11s}")
    for name, b in BENCHMARKS.items():
        T = compile_program(b.program())
        a = list(T.alphabet)
        long = ["".join(rng.choice(a, size=args.n - 1)) for _ in range(args.words)]
        half = ["".join(rng.choice(a, size=args.n // 2)) for _ in range(args.words)]
        t0 = time.perf_counter()
        for w in long + half:
            exact_forward(T, w)
        base = time.perf_counter() - t0
        t0 = time.perf_counter()
        Tn = compile_theta(T, args.n)
        require_theta(Tn)
        mm = lemma47_mismatch(T, Tn, long, [0]) or lemma47_mismatch(T, Tn, half, [0, args.n // 2])
        el = time.perf_counter() - t0
        total += el
        base_total += base
        R = regularizer(Tn).total
        bad += mm is not None
        print(f"{name:28s} {T.d:4d} {Tn.d:5d} {Tn.model.depth:4d} {str(R):>8s} {el:16.2f} {base:11.2f}"
              + ("" if mm is None else f"  MISMATCH {mm}"), flush=True)
    print(f"total compile + Theta_n check + exact offset check: {total:.1f} s; baseline (LT exact alone, same words): "
          f"{base_total:.1f} s; ratio {total / max(base_total, 1e-9):.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
