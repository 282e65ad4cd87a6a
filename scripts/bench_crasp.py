"""Time the exhaustive verification of the whole C-RASP benchmark (target: < 2 minutes).

    python scripts/bench_crasp.py            # every program vs its oracle on all words up to its length
    python scripts/bench_crasp.py --json

Also times the vectorized interpreter on 10^4 random strings of length 500 per program.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np

from constructions.crasp.interpreter import accepts_array
from constructions.crasp.programs import BENCHMARKS
from constructions.crasp.verify import check_exhaustive


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--skip-random", action="store_true", help="skip the 10^4 x 500 interpreter timing")
    args = ap.parse_args(argv)
    rows = []
    t0 = time.perf_counter()
    for name, b in BENCHMARKS.items():
        res = check_exhaustive(b.program(), b.oracle, b.exhaustive_len, name)
        rows.append({"name": name, "max_len": res.max_len, "strings": res.n_strings, "accepted": res.n_accepted,
                     "ok": res.ok, "seconds": round(res.seconds, 3)})
        if not args.json:
            print(res.line(), flush=True)
    total = time.perf_counter() - t0
    rnd = {}
    if not args.skip_random:
        rng = np.random.default_rng(0)
        for name, b in BENCHMARKS.items():
            p = b.program()
            X = rng.integers(0, len(p.alphabet), size=(10_000, 500))
            t = time.perf_counter()
            accepts_array(p, X)
            rnd[name] = round(time.perf_counter() - t, 3)
    summary = {"total_seconds": round(total, 2), "all_ok": all(r["ok"] for r in rows),
               "strings": sum(r["strings"] for r in rows), "python": sys.version.split()[0],
               "machine": platform.machine(), "interpreter_1e4_x_500_seconds": rnd}
    if args.json:
        print(json.dumps({"rows": rows, **summary}, indent=2))
    else:
        print(f"\nexhaustive sweep: {summary['strings']} words, {total:.1f} s, all agree: {summary['all_ok']}")
        if rnd:
            print(f"interpreter, 10^4 strings x length 500: max {max(rnd.values()):.2f} s per program "
                  f"(total {sum(rnd.values()):.1f} s)")
    return 0 if summary["all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
