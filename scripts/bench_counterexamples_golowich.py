"""Benchmark of the Golowich et al. necessity search (counterexamples.golowich.search); rerunnable.

    python scripts/bench_counterexamples_golowich.py            # targets (L = 4) + growth in L and class size
    python scripts/bench_counterexamples_golowich.py --quick    # targets only
    python scripts/bench_counterexamples_golowich.py --Ls 4 8 16 --timeout 600 --out bench.jsonl

Reports wall-clock and CPU seconds of the process (z3 runs in-process, so CPU time is the solver's work;
wall time also counts waiting for a loaded machine).  Targets: each --drop finds a verified
witness in < 10 s at L = 4, |V| = 2, k = 2; --drop none completes in < 60 s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from counterexamples.golowich.search import Params, search

DROPS = ("locality", "relative", "realizability", "coverage")


def run(out, tag, **kw):
    r = search(Params(**kw))
    row = {"tag": tag, **{k: str(v) for k, v in kw.items()}, "found": r["found"], "verified": r["verified"],
           "complete": r.get("complete"), "wall_s": r["seconds"], "cpu_s": r["cpu_seconds"],
           "cells": len(r["searched"]), "test_risk": r["test_risk"]}
    print(f"| {tag:<10} | {kw['drop']:<13} | L={kw['L']:<3} keys<={kw.get('keys', 2)} values<={kw.get('values', 2)} "
          f"| found={r['found']!s:<5} verified={r['verified']!s:<5} complete={r.get('complete')!s:<5} "
          f"| wall {r['seconds']:8.2f} s | cpu {r['cpu_seconds']:8.2f} s |", flush=True)
    if out:
        out.write(json.dumps(row) + "\n")
        out.flush()
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the L = 4 targets")
    ap.add_argument("--Ls", type=int, nargs="+", default=[4, 8, 16])
    ap.add_argument("--timeout", type=float, default=600.0, help="per-search time limit (s)")
    ap.add_argument("--out", default=None, help="append JSON lines here")
    args = ap.parse_args(argv)
    out = open(args.out, "a") if args.out else None
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} load average {os.getloadavg()}, {os.cpu_count()} CPUs")
    print("## targets: L = 4, |V| = 2, k = 2 (default CLI settings, witness minimisation budget 3 s)")
    rows = [run(out, "target", drop=d, L=4, timeout_s=args.timeout) for d in DROPS]
    rows.append(run(out, "target", drop="none", L=4, timeout_s=args.timeout))
    ok = all(r["verified"] and r["wall_s"] < 10 for r in rows[:4]) and rows[4]["complete"] and rows[4]["wall_s"] < 60
    print(f"targets met (wall clock): {ok}")
    if args.quick:
        return 0 if ok else 1
    print("## growth with L (no minimisation; none uses L_local = L // 4)")
    for L in args.Ls:
        for d in DROPS + ("none",):
            run(out, "growth-L", drop=d, L=L, minimize=False, timeout_s=args.timeout)
    print("## growth with the class size (L = 4)")
    for keys, values in ((1, 2), (2, 2), (3, 2), (2, 3), (3, 3)):
        run(out, "growth-H", drop="none", L=4, keys=keys, values=values, timeout_s=args.timeout)
        run(out, "growth-H", drop="coverage", L=4, keys=keys, values=values, minimize=False,
            timeout_s=args.timeout)
    print("## Hypothesis randomized search (L = 4, 500 examples)")
    from counterexamples.golowich.random_search import random_witness, thm43_random_check

    for d in DROPS:
        t0, c0 = time.monotonic(), time.process_time()
        w = random_witness(Params(drop=d, L=4), max_examples=500)
        print(f"| hypothesis | {d:<13} | found={w is not None!s:<5} | wall {time.monotonic() - t0:8.2f} s "
              f"| cpu {time.process_time() - c0:8.2f} s |", flush=True)
    t0 = time.monotonic()
    viol, stats = thm43_random_check(Params(drop="none", L=4), max_examples=200)
    print(f"| hypothesis | thm4.3 check  | violation={viol is not None} instances={stats['instances']} "
          f"max_error={stats['max_error']} min_nonvacuous_bound={stats['min_bound']} "
          f"| wall {time.monotonic() - t0:8.2f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
