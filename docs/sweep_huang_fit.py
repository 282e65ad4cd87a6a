"""Which small settings fit the hard cells of Huang et al. Figure 1 in distribution?  A parallel sweep.

    python docs/sweep_huang_fit.py --out FILE.jsonl [--device cuda] [--procs 12] [--budget 240]

The cells that a 2-core CPU has not fitted with the cpu preset's settings (Parity, Tomita 5, and (aa)* with NoPE)
are trained with :func:`bounds.reproduce.huang2024.run_cell` under the cpu preset's training configuration
(batch 32, 2 seeds, AdamW with weight decay 0.01, cosine schedule, loss target 1e-3, 200 test samples per bin)
and a grid of model sizes, learning rates and step budgets that a CPU could afford if the sweep finds one that
fits.  A seed *fits* as the reproduction says: in-distribution exact-match accuracy (bin [1, 50]) >= 0.99.

This is a search for settings, not a result: a setting it finds goes into the cpu preset only after the preset
itself is rerun on the CPU.  Runs go to a process pool (a small model's step is bound by kernel launches, so
several processes share one GPU well); each finished run is appended to the JSON-lines file at once, and runs
not started within ``--budget`` seconds are skipped.
"""

import argparse
import json
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CELLS = [("parity", "ape"), ("parity", "nope"), ("tomita5", "ape"), ("tomita5", "nope"), ("aa_star", "nope")]
# (n_layer, n_head, d_model, lr, steps, warmup)
ARCHS = [(2, 2, 64, 1e-3, 6000, 100), (4, 2, 64, 1e-3, 6000, 100), (2, 2, 128, 1e-3, 6000, 100),
         (1, 2, 128, 1e-3, 6000, 100), (3, 4, 128, 1e-3, 6000, 100), (4, 4, 128, 3e-4, 6000, 200)]
CONFIG = {"batch": 32, "max_steps": 6000, "loss_target": 1e-3, "test_samples": 200, "weight_decay": 0.01}
FIT = 0.99


def _one(job):
    task, positions, (n_layer, n_head, d_model, lr, steps, warmup), device = job
    from bounds.reproduce.huang2024 import run_cell

    arch = {"n_layer": n_layer, "n_head": n_head, "d_model": d_model, "lr": lr,
            "activation": "gelu_pytorch_tanh", "steps": steps, "warmup": warmup}
    try:
        r = run_cell(task, positions, arch, [0, 1], CONFIG, device=device, threads=1)
    except Exception as e:  # a failed run is a finding of the sweep, recorded beside the others
        return {"task": task, "positions": positions, "arch": arch, "error": f"{type(e).__name__}: {e}"}
    in_dist = [acc[0] for acc in r["accuracy"]]
    return {"task": task, "positions": positions, "arch": arch, "device": r["device"], "steps": r["steps"],
            "final_loss": r["final_loss"], "accuracy": r["accuracy"], "fitted": [a >= FIT for a in in_dist],
            "train_seconds": r["train_seconds"], "history": r["history"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSON-lines file, one line per finished run (appended)")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--procs", type=int, default=12)
    ap.add_argument("--budget", type=float, default=240.0)
    ap.add_argument("--steps", type=int, default=None, help="override every run's step budget (smoke tests)")
    a = ap.parse_args()
    archs = [(L, H, d, lr, a.steps or s, min(w, (a.steps or s) // 2)) for L, H, d, lr, s, w in ARCHS]
    jobs = [(t, p, arch, a.device) for arch in archs for t, p in CELLS]
    t0 = time.perf_counter()
    ctx = mp.get_context("spawn")
    with ctx.Pool(a.procs) as pool, open(a.out, "a") as fh:
        results = pool.imap_unordered(_one, jobs)
        for _ in jobs:
            try:
                row = results.next(timeout=max(a.budget - (time.perf_counter() - t0), 0.1))
            except mp.TimeoutError:
                break
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            fit = row.get("fitted", row.get("error"))
            print(f"{row['task']}/{row['positions']} {row['arch']['n_layer']}L d{row['arch']['d_model']} "
                  f"lr{row['arch']['lr']}: fitted {fit}, acc {row.get('accuracy')}", flush=True)
        pool.terminate()


if __name__ == "__main__":
    main()
