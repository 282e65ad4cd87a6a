"""Which settings fit the unfitted cells of Huang et al. Figure 1 in distribution?  A parallel settings search.

    python scripts/sweep_huang_fit.py --out FILE.jsonl [--device cuda] [--procs 16] [--budget SECONDS] [--steps N]

The 16 settings of the search reported in docs/reproduce_trained.md ("What was tried for the cells that never
fit"): (aa)* NoPE, Parity APE and NoPE, Tomita 5 APE and NoPE, each at App. E.3's size where it has one and at
smaller sizes a CPU could afford.  Every run is :func:`bounds.experiments.huang2024.run_cell` with the cpu preset's
training (2 seeds, AdamW with weight decay 0.01, cosine schedule over the run's step budget, GPT-2's tanh GELU)
and App. E.3's stop: exact match on fixed in-distribution validation words every 250 steps, each seed stopping
at 100% (``Arch.stop_accuracy``); the best validation accuracy per seed is in the record's ``evaluations``.

The table in docs/reproduce_trained.md came from an earlier script of the same protocol, run on one H200 with
the 16 settings side by side and each cut off after 420 s (so at 3250-5000 steps, not these budgets).
This is a search for settings, not a result: a setting goes into the cpu preset only after the preset itself
is rerun on the CPU.  Runs go to a process pool (a small model's step is bound by kernel launches, so several
processes share one GPU); each finished run is appended to the JSON-lines file at once; with ``--budget``,
runs that have not finished by then are not waited for.
"""

import argparse
import json
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _arch(n_layer, n_head, d_model, lr, steps, warmup=None):
    return {"n_layer": n_layer, "n_head": n_head, "d_model": d_model, "lr": lr, "steps": steps, "warmup": warmup}


# (task, positions, arch, batch): App. E.3's configurations are marked; the rest are CPU-sized
SETTINGS = [
    ("aa_star", "nope", _arch(2, 2, 64, 3e-3, 5000, 100), 32),
    ("aa_star", "nope", _arch(4, 4, 128, 1e-4, 5000), 32),  # App. E.3's size for (aa)*
    ("aa_star", "nope", _arch(4, 4, 128, 3e-4, 5000, 100), 32),
    ("aa_star", "nope", _arch(1, 4, 128, 1e-3, 5000, 100), 32),
    ("aa_star", "nope", _arch(6, 4, 128, 1e-3, 5000, 100), 32),
    ("aa_star", "nope", _arch(2, 4, 256, 3e-4, 5000, 100), 32),
    ("parity", "ape", _arch(4, 2, 256, 1e-4, 30000), 64),  # App. E.3
    ("parity", "ape", _arch(2, 2, 64, 1e-3, 5000, 100), 32),
    ("parity", "ape", _arch(4, 2, 128, 3e-4, 5000, 100), 32),
    ("parity", "ape", _arch(1, 2, 256, 1e-3, 5000, 100), 32),
    ("parity", "nope", _arch(4, 4, 128, 1e-4, 5000), 32),  # App. E.3's NoPE row that lists Parity
    ("parity", "nope", _arch(2, 2, 64, 1e-3, 5000, 100), 32),
    ("tomita5", "ape", _arch(6, 4, 256, 1e-4, 60000), 64),  # App. E.3
    ("tomita5", "ape", _arch(2, 2, 128, 1e-3, 5000, 100), 32),
    ("tomita5", "nope", _arch(6, 4, 128, 1e-3, 5000, 100), 32),  # App. E.3's size (with warm-up)
    ("tomita5", "nope", _arch(4, 2, 64, 3e-3, 5000, 100), 32),
]
CONFIG = {"max_steps": 5000, "loss_target": None, "test_samples": 200, "weight_decay": 0.01}
FIT = 0.99


def _one(job):
    task, positions, arch, batch, device, steps = job
    from bounds.experiments.huang2024 import run_cell

    arch = {**arch, "activation": "gelu_pytorch_tanh", "stop_accuracy": 1.0}
    if steps:
        arch["steps"] = steps
        arch["warmup"] = min(arch["warmup"] or 0, steps // 2) or None
    try:
        r = run_cell(task, positions, arch, [0, 1], {**CONFIG, "batch": batch}, device=device, threads=1)
    except Exception as e:  # a failed run is a finding of the search, recorded beside the others
        return {"task": task, "positions": positions, "arch": arch, "batch": batch,
                "error": f"{type(e).__name__}: {e}"}
    best = [max((score for _, score in per_seed), default=None) for per_seed in r["evaluations"]]
    return {"task": task, "positions": positions, "arch": arch, "batch": batch, "device": r["device"],
            "steps": r["steps"], "final_loss": r["final_loss"], "accuracy": r["accuracy"],
            "fitted": [acc[0] >= FIT for acc in r["accuracy"]], "best_validation": best,
            "evaluations": r["evaluations"], "train_seconds": r["train_seconds"], "history": r["history"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSON-lines file, one line per finished run (appended)")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--procs", type=int, default=16)
    ap.add_argument("--budget", type=float, default=None, help="seconds to wait for runs (default: all of them)")
    ap.add_argument("--steps", type=int, default=None, help="every run's step budget (smoke tests)")
    a = ap.parse_args()
    jobs = [(t, p, arch, batch, a.device, a.steps) for t, p, arch, batch in SETTINGS]
    t0 = time.perf_counter()
    with mp.get_context("spawn").Pool(a.procs) as pool, open(a.out, "a") as fh:
        results = pool.imap_unordered(_one, jobs)
        for _ in jobs:
            wait = None if a.budget is None else max(a.budget - (time.perf_counter() - t0), 0.1)
            try:
                row = results.next(timeout=wait)
            except mp.TimeoutError:
                break
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            arch = row["arch"]
            print(f"{row['task']}/{row['positions']} {arch['n_layer']}L {arch['n_head']}H d{arch['d_model']} "
                  f"lr {arch['lr']}: steps {row.get('steps')}, best validation {row.get('best_validation')}, "
                  f"fitted {row.get('fitted', row.get('error'))}", flush=True)
        pool.terminate()


if __name__ == "__main__":
    main()
