"""Benchmark: the same small sweep through the local-process executor and through Ray (local instance).

    python scripts/bench_executors.py [--workers 2] [--steps 100] [--lengths 2,3,4,5,6,8] [--seeds 8]

Each executor writes into its own fresh temporary folder; the wall time includes starting the pool or the Ray
instance.  The records' numbers are compared (the same seeds must give the same plateaus whichever executor
ran them).  The load average is printed (the machine may be shared).
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    from bounds.experiments.training.presets import Grid, Preset
    from lengthgen_cli.sweep import run_specs

    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--lengths", default="2,3,4,5,6,8")
    args = ap.parse_args()
    config = {"max_steps": args.steps, "batch": 64, "test_batch": 64, "train_loss_target": 1e-4}
    grid = Grid("modp", {"period": 2, "index": 0}, tuple(int(x) for x in args.lengths.split(",")))
    specs = Preset("bench", "executor benchmark", "bounds.experiments.training.train:train_group", config, args.seeds,
                   (grid,)).specs(device="cpu", threads=1)
    load0 = os.getloadavg()
    out = {}
    for name, kw in (("local", {"executor": "local", "workers": args.workers}), ("ray", {"executor": "ray"})):
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            res = run_specs(specs, d, **kw)
            out[name] = (time.perf_counter() - t, {r["key"]: [x["plateau"] for x in r["record"]["runs"]]
                                                   for r in res["records"]})
    load1 = os.getloadavg()
    same = out["local"][1] == out["ray"][1]
    print(f"{len(specs)} runs (ModP p=2, N in {args.lengths}, {args.seeds} seeds batched, {args.steps} steps max)")
    print(f"local processes ({args.workers} workers): {out['local'][0]:.1f} s   ray (local instance, num_cpus=1 "
          f"per run): {out['ray'][0]:.1f} s   ratio ray/local {out['ray'][0] / out['local'][0]:.2f}")
    print(f"identical plateaus from both executors: {same}")
    print(f"load average before {load0[0]:.2f}, after {load1[0]:.2f}, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
