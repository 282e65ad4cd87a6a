"""Short slices of every ``paper`` preset on CUDA: does each run there unchanged, and at what throughput?

    python scripts/gpu_slices.py --out DIR [--runs DIR] [--steps 100] [--budget 300] [--only NAME,...]
    python scripts/gpu_slices.py --merge A/slices.json B/slices.json [--bench LOG] --to RESULT.json   # + RESULT.md

Each slice is the preset's own command line (``python -m bounds.experiments.reproduce ...`` / ``python -m bounds.experiments.measure``)
with the step budget, seeds and test samples cut down, run in a subprocess on the visible GPU; nothing else
is changed, so a CUDA-only failure of the preset shows up as a failed slice (its return code and the last
lines of its stderr are recorded).  Per run record the throughput is ``steps / train_seconds`` (all seeds of a
record train as one batched model, so the sequences per second are that times seeds x batch).  The first steps
include CUDA's start-up (kernel loading, allocator warm-up); at 100 steps that is part of what is measured.

Everything is written to ``DIR/slices.json`` after each slice (a cut-off run keeps what finished).  The
slices run one after another, so no two share the GPU.
"""

import argparse
import json
import os
import subprocess
import sys
import time


def slices(steps: int, runs: str) -> list[tuple[str, list[str]]]:
    """(name, argv) of each slice; ``runs`` is the folder under which each slice keeps its records."""
    py = [sys.executable, "-m"]
    huang_tasks = "binary_majority,majority_letters,aa_star,tomita4,d2,tomita5,parity"  # Figure 1's seven
    return [
        ("huang2024-fig1-paper", py + ["bounds.experiments.reproduce", "huang2024", "--figure", "1", "--preset", "paper",
                                       "--tasks", huang_tasks, "--steps", str(steps), "--test-samples", "200",
                                       "--device", "cuda", "--no-plot", "--runs", f"{runs}/huang",
                                       "--results-dir", f"{runs}/huang-results"]),
        ("golowich2025-sparse-parity-paper", py + ["bounds.experiments.reproduce", "golowich2025", "--experiment",
                                                   "sparse-parity", "--preset", "paper", "--cells", "4",
                                                   "--seeds", "1", "--steps", str(steps), "--test-samples", "64",
                                                   "--device", "cuda", "--no-plot", "--runs", f"{runs}/gsp",
                                                   "--results-dir", f"{runs}/gsp-results"]),
        ("golowich2025-scratchpad-paper", py + ["bounds.experiments.reproduce", "golowich2025", "--experiment", "scratchpad",
                                                "--preset", "paper", "--cells", "1:coupled,1:shifted-ape",
                                                "--seeds", "1", "--steps", str(steps), "--test-samples", "64",
                                                "--device", "cuda", "--no-plot", "--runs", f"{runs}/gsc",
                                                "--results-dir", f"{runs}/gsc-results"]),
        # Ahuja & Mansouri's engine has no --device: bounds.experiments.training.loop.default_device picks CUDA when visible
        ("ahuja2024-table1-paper", py + ["bounds.experiments.reproduce", "ahuja2024", "--table", "1", "--preset", "paper",
                                         "--seeds", "1", "--steps", str(steps), "--out", f"{runs}/ahuja",
                                         "--results", f"{runs}/ahuja-results/table1.json"]),
        # Izzo et al. App. B's configuration (the paper preset's) on one ModP cell pair
        ("izzo2025-modp-paper-config", py + ["bounds.experiments.measure", "--task", "modp", "--period", "7", "--train-lengths",
                                             "14,28", "--seeds", "8", "--steps", str(steps), "--batch", "1024",
                                             "--schedule", "constant", "--train-loss-target", "1e-5",
                                             "--test-multiples", "2,4,8,16", "--plateau-from", "8",
                                             "--test-batch", "512", "--device", "cuda", "--out", f"{runs}/izzo",
                                             "--results-dir", f"{runs}/izzo-results"]),
    ]


def _steps(rec: dict) -> int | None:
    s = rec.get("steps")
    if isinstance(s, list) and s:
        return max(s)
    if isinstance(s, int):
        return s
    runs = rec.get("runs")
    if isinstance(runs, list) and runs and "steps" in runs[0]:
        return max(r["steps"] for r in runs)
    cfg = rec.get("config")
    if isinstance(cfg, dict):
        return cfg.get("steps") or cfg.get("max_steps")
    return None


def records(folder: str) -> list[dict]:
    """One row per run record under ``folder``: key, device, seeds, steps, train seconds, steps per second."""
    rows = []
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            try:
                with open(os.path.join(root, f)) as fh:
                    doc = json.load(fh)
            except (OSError, ValueError):
                continue
            rec = doc.get("record") if isinstance(doc, dict) else None
            if not isinstance(rec, dict) or "train_seconds" not in rec:
                continue
            kw = doc.get("kwargs", {})
            steps, secs = _steps(rec), rec["train_seconds"]
            rows.append({"key": doc.get("key"), "device": rec.get("device", kw.get("device")),
                         "seeds": len(rec.get("seeds", [])) or None, "steps": steps, "train_seconds": secs,
                         "steps_per_second": round(steps / secs, 2) if steps and secs else None,
                         "wall_seconds": doc.get("wall_seconds")})
    return rows


def markdown(doc: dict) -> str:
    """The merged record as a table: one row per run record, and every slice's return code or why it was skipped."""
    env = doc["environment"]
    lines = [f"# Paper presets on CUDA: short slices ({env['gpu']}, torch {env['torch']})", "",
             f"{doc['steps']} steps per run; generated by `python scripts/gpu_slices.py --merge ...` from "
             "the JSON beside this file.", "",
             "| slice | return code | wall s | run | device | seeds | steps | train s | steps/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for sl in doc["slices"]:
        if "skipped" in sl:
            lines.append(f"| {sl['name']} | not run: {sl['skipped']} | | | | | | | |")
            continue
        for i, r in enumerate(sl["records"] or [{}]):
            head = f"| {sl['name']} | {sl['returncode']} | {sl['wall_seconds']} |" if i == 0 else "| | | |"
            lines.append(f"{head} {r.get('key', '-')} | {r.get('device')} | {r.get('seeds')} | {r.get('steps')} "
                         f"| {r.get('train_seconds')} | {r.get('steps_per_second')} |")
    if doc.get("bench_training"):
        lines += ["", "## scripts/bench_training.py on the same machine", "", *doc["bench_training"]]
    return "\n".join(lines) + "\n"


def merge(paths: list[str], bench: str | None, to: str) -> None:
    """One record from several ``slices.json`` of one machine (later files add the slices earlier ones skipped)."""
    docs = []
    for path in paths:
        with open(path) as fh:
            docs.append(json.load(fh))
    if len({json.dumps(d["environment"], sort_keys=True) for d in docs}) != 1:
        raise SystemExit("gpu_slices: the files come from different environments; merge one machine's only")
    ran = {}
    for d in docs:
        for sl in d["slices"]:
            if "skipped" not in sl or sl["name"] not in ran:
                ran[sl["name"]] = sl
    for name, _ in slices(docs[0]["steps"], ""):
        ran.setdefault(name, {"name": name, "skipped": "not reached within the device time"})
    out = {"environment": docs[0]["environment"], "steps": docs[0]["steps"], "slices": list(ran.values())}
    if bench:
        with open(bench) as fh:
            out["bench_training"] = fh.read().strip().splitlines()
    with open(to, "w") as fh:
        json.dump(out, fh, indent=1)
    with open(os.path.splitext(to)[0] + ".md", "w") as fh:
        fh.write(markdown(out))


def _write(out: dict, folder: str) -> None:
    with open(os.path.join(folder, "slices.json"), "w") as fh:
        json.dump(out, fh, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--merge", nargs="+", metavar="SLICES_JSON", help="merge these records instead of running")
    ap.add_argument("--bench", help="with --merge: a scripts/bench_training.py log of the same machine")
    ap.add_argument("--to", help="with --merge: the merged JSON (a .md table is written beside it)")
    ap.add_argument("--out", help="folder for slices.json")
    ap.add_argument("--runs", default=None, help="folder for the slices' run folders (default OUT/runs)")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--budget", type=float, default=300.0, help="seconds; a slice not started by then is skipped")
    ap.add_argument("--only", default="", help="comma-separated slice names (default: all)")
    a = ap.parse_args()
    if a.merge:
        if not a.to:
            ap.error("--merge needs --to")
        return merge(a.merge, a.bench, a.to)
    if not a.out:
        ap.error("give --out (run the slices) or --merge ... --to (merge records)")
    runs = a.runs or os.path.join(a.out, "runs")
    for d in (a.out, os.path.join(runs, "ahuja-results")):
        os.makedirs(d, exist_ok=True)
    import torch

    env = {"torch": torch.__version__, "cuda_available": torch.cuda.is_available(),
           "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    out = {"environment": env, "steps": a.steps, "slices": []}
    t_start = time.perf_counter()
    chosen = [s for s in slices(a.steps, runs)
              if not a.only or s[0] in a.only.split(",")]
    for name, argv in chosen:
        if time.perf_counter() - t_start > a.budget:
            out["slices"].append({"name": name, "skipped": "budget spent"})
            _write(out, a.out)
            continue
        t0 = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True)
        runs_dir = next(argv[i + 1] for i, v in enumerate(argv) if v in ("--runs", "--out"))
        out["slices"].append({"name": name, "argv": argv[2:], "returncode": proc.returncode,
                              "wall_seconds": round(time.perf_counter() - t0, 1),
                              "stderr_tail": proc.stderr.strip().splitlines()[-8:],
                              "stdout_tail": proc.stdout.strip().splitlines()[-12:],
                              "records": records(runs_dir)})
        _write(out, a.out)
        print(f"{name}: rc {proc.returncode}, {out['slices'][-1]['wall_seconds']} s", flush=True)


if __name__ == "__main__":
    main()
