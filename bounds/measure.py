"""``python -m bounds.measure``: measured length-generalization thresholds next to the Theorem 4.1 estimate.

Izzo et al. sec. 5 (Figures 1-2) train one-layer transformers (App. B) on SimpleTask / ModPTask with
training length N and report the test loss at lengths T' >= N: it plateaus, and the plateau falls with N.
This command does the same on a grid of N and seeds (:mod:`bounds.training.train` for the protocol) and
reports, per N, the plateau (mean over seeds, and the worst seed) and the **measured threshold**: the
smallest N of the grid whose mean plateau is below ``--eps`` (``null`` if none is).  Next to it, the
prediction of ``python -m bounds.estimate`` (``hardmax_length``, ``sample_length``, ``N``) for the App. A.2
construction of the same task, at the error scale ``--pred-eps`` (default ``sqrt(eps)``: ``--eps`` is a mean
*squared* error, Theorem 4.1's eps an error size).

    python -m bounds.measure --task modp --period 3 --train-lengths 8,16,32 --seeds 2 --eps 0.01 \\
        --out docs/results/modp_p3.jsonl [--device cpu|cuda] [--json]

Results are appended to ``--out`` one JSONL line per finished (task, N, seed) run, flushed at once; a rerun
skips every run whose (task, N, seed, config) is already in the file, so an interrupt loses only the run in
progress.  Seeded: the same arguments (and ``--threads``) give the same numbers.  Usage errors exit 2 with
one line.  torch is imported only when a run actually trains (``bounds.estimate`` stays torch-free).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
from fractions import Fraction

from bounds.cli import OneLineParser, fraction_arg
from bounds.training.train import RunConfig


class UsageError(ValueError):
    """A command-line argument is invalid or the environment cannot run it (message says which)."""


# --------------------------------------------------------------------------------------------- tasks
def make_task(args):
    """The task object of :mod:`constructions.tasks` and a stable label for it."""
    from constructions.tasks import ModPTask, SimpleTask, TaskError

    name = args.task.lower()
    try:
        if name == "modp":
            return ModPTask(args.period, args.index), f"modp(p={args.period},k={args.index})"
        if name == "simple":
            return SimpleTask(args.omega), f"simple(omega={args.omega})"
    except TaskError as e:
        raise UsageError(str(e)) from None
    raise UsageError(f"unknown task {args.task!r}; use --task modp or --task simple")


def prediction(args) -> dict:
    """``bounds.estimate`` for the App. A.2 construction of the same task at eps = ``--pred-eps``."""
    from bounds.estimate import run as estimate_run

    argv = ["--task", args.task.lower(), "--eps", str(pred_eps(args)), "--json"]
    if args.task.lower() == "modp":
        argv += ["--period", str(args.period), "--index", str(args.index)]
    else:
        argv += ["--omega", str(args.omega), "--mlp-error", str(args.mlp_error)]
    r = estimate_run(argv)
    out = {k: r[k] for k in ("hardmax_length", "sample_length", "N", "L", "gamma", "period", "tau", "eps")}
    out["proof_count_N"] = r["proof_count"]["N"]  # the earlier (refuted) estimate, for comparison
    return out


def pred_eps(args) -> Fraction:
    if args.pred_eps is not None:
        return args.pred_eps
    return Fraction(math.sqrt(args.eps)).limit_denominator(10**6)


# ------------------------------------------------------------------------------------------- config
def run_config(args) -> RunConfig:
    return RunConfig(max_steps=args.steps, batch=args.batch, lr=args.lr, schedule=args.schedule,
                     train_loss_target=args.train_loss_target, positions=args.positions,
                     pos_period=args.pos_period, test_multiples=tuple(args.test_multiples),
                     plateau_from=args.plateau_from, test_batch=args.test_batch)


def config_id(cfg: RunConfig) -> str:
    return hashlib.sha256(json.dumps(cfg.as_dict(), sort_keys=True).encode()).hexdigest()[:12]


# -------------------------------------------------------------------------------------------- jsonl
def read_records(path: str) -> list[dict]:
    """Every complete JSON line of ``path`` (a torn last line from an interrupt is ignored)."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def open_out(path: str):
    """Open ``path`` for appending (creating its folder); a torn last line gets its newline first."""
    try:
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        fh = open(path, "a+", encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write --out {path!r}: {e.strerror or e}") from None
    fh.seek(0, os.SEEK_END)
    if fh.tell():
        fh.seek(fh.tell() - 1)
        last = fh.read(1)
        fh.seek(0, os.SEEK_END)
        if last != "\n":
            fh.write("\n")
    return fh


def run_key(label: str, n: int, seed: int, cid: str) -> str:
    return f"{label}|N={n}|seed={seed}|cfg={cid}"


# ---------------------------------------------------------------------------------------- summary
def summarize(records: list[dict], lengths: list[int], eps: float) -> dict:
    """Per N: mean and worst plateau over seeds; measured threshold = smallest N with mean plateau < eps.

    Also: the smallest N whose every seed is below eps, and the smallest N from which the mean stays below
    eps for every larger N of the grid (differs when a run at a larger N fails to optimize), and the smallest N
    whose mean over the runs that reached the training-loss target (Theorem 4.1's hypothesis: the model fits
    the task up to length N) is below eps."""
    rows = []
    for n in lengths:
        rs = [r for r in records if r["N"] == n]
        if not rs:
            continue
        plateaus = [r["plateau"] for r in rs]
        conv = [r["plateau"] for r in rs if r["reached_target"]]
        rows.append({
            "N": n, "seeds": len(rs), "plateau_mean": sum(plateaus) / len(rs), "plateau_max": max(plateaus),
            "train_loss_mean": sum(r["train_loss"] for r in rs) / len(rs),
            "test_loss_mean": {m: sum(r["test_loss"][m] for r in rs) / len(rs) for m in rs[0]["test_loss"]},
            "reached_target": len(conv),
            "plateau_mean_converged": sum(conv) / len(conv) if conv else None,
        })
    below = [row["N"] for row in rows if row["plateau_mean"] < eps]
    stable = None  # smallest N of the grid from which EVERY larger grid N is below eps too
    for row in reversed(rows):
        if row["plateau_mean"] >= eps:
            break
        stable = row["N"]
    return {"rows": rows, "measured_threshold": min(below) if below else None,
            "measured_threshold_all_seeds": min((row["N"] for row in rows if row["plateau_max"] < eps), default=None),
            "measured_threshold_stable": stable,
            "measured_threshold_converged": min((row["N"] for row in rows if row["plateau_mean_converged"] is not None
                                                 and row["plateau_mean_converged"] < eps), default=None)}


# -------------------------------------------------------------------------------------------- CLI
def _int_list(text: str) -> list[int]:
    try:
        vals = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None
    return vals


def _parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m bounds.measure",
                 description="Measured length-generalization thresholds (Izzo et al. sec. 5) next to the "
                             "Theorem 4.1 estimate of bounds.estimate.")
    ap.add_argument("--task", default="modp", help="modp or simple (default modp)")
    ap.add_argument("--period", type=int, default=5, help="ModPTask period p (default 5)")
    ap.add_argument("--index", type=int, default=0, help="ModPTask index k (default 0)")
    ap.add_argument("--omega", type=fraction_arg, default=Fraction(1), help="SimpleTask frequency (default 1)")
    ap.add_argument("--train-lengths", type=_int_list, required=True, help="training lengths N, e.g. 8,16,32")
    ap.add_argument("--seeds", type=int, default=2, help="seeds 0..S-1 per N (default 2)")
    ap.add_argument("--eps", type=float, default=0.01, help="plateau (test MSE) threshold (default 0.01)")
    ap.add_argument("--pred-eps", type=fraction_arg, default=None,
                    help="eps passed to bounds.estimate (default sqrt(--eps): an error size, not an MSE)")
    ap.add_argument("--mlp-error", type=float, default=1e-2, help="SimpleTask construction's sine-MLP error")
    ap.add_argument("--out", required=True, help="JSONL file (appended; reruns resume)")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--steps", type=int, default=1500, help="step budget per run (default 1500)")
    ap.add_argument("--batch", type=int, default=64, help="online batch size (default 64; App. B: 1024)")
    ap.add_argument("--lr", type=float, default=1e-2, help="embedding lr; hidden layers use lr/d (App. B)")
    ap.add_argument("--schedule", choices=("cosine", "constant"), default="cosine")
    ap.add_argument("--train-loss-target", type=float, default=1e-4, help="stop below this (App. B: 1e-5)")
    ap.add_argument("--positions", choices=("periodic", "absolute"), default="periodic")
    ap.add_argument("--pos-period", type=int, default=None, help="periodic table size (default: task's Delta)")
    ap.add_argument("--test-multiples", type=_int_list, default=[2, 4, 8], help="test at m*N (default 2,4,8)")
    ap.add_argument("--plateau-from", type=int, default=4, help="plateau = mean MSE over [a*N, max*N] (a=4)")
    ap.add_argument("--test-batch", type=int, default=256)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def _check(args) -> None:
    if not math.isfinite(args.eps) or args.eps <= 0:
        raise UsageError(f"--eps must be positive, got {args.eps}")
    if args.pred_eps is not None and args.pred_eps <= 0:
        raise UsageError(f"--pred-eps must be positive, got {args.pred_eps}")
    if not args.train_lengths:
        raise UsageError("--train-lengths is empty; give e.g. --train-lengths 8,16,32")
    if min(args.train_lengths) < 1:
        raise UsageError(f"training lengths must be >= 1, got {args.train_lengths}")
    if not args.test_multiples or min(args.test_multiples) < 1:
        raise UsageError(f"--test-multiples must be positive integers, got {args.test_multiples}")
    if not 1 <= args.plateau_from <= max(args.test_multiples):
        raise UsageError(f"--plateau-from must be in 1..{max(args.test_multiples)}, got {args.plateau_from}")
    for name in ("seeds", "steps", "batch", "threads", "test_batch"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.pos_period is not None and args.pos_period < 1:
        raise UsageError(f"--pos-period must be >= 1, got {args.pos_period}")
    if args.lr <= 0 or args.train_loss_target <= 0:
        raise UsageError("--lr and --train-loss-target must be positive")


def _torch(args):
    try:
        import torch
    except ImportError:
        raise UsageError("training needs torch; install the CPU build with `pip install torch==2.13.0`") from None
    if args.device == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda, but this torch has no CUDA device; use --device cpu")
    torch.set_num_threads(args.threads)
    return torch


def run(argv=None, log=None) -> dict:
    """Parse, train what is missing from --out, and summarize (the CLI's work without printing)."""
    from bounds.training.train import train_run

    args = _parser().parse_args(argv)
    _check(args)
    task, label = make_task(args)
    cfg = run_config(args)
    cid = config_id(cfg)
    if args.device == "cuda":
        _torch(args)
    fh = open_out(args.out)
    with fh:
        done = {r.get("key") for r in read_records(args.out)}
        todo = [(n, s) for n in args.train_lengths for s in range(args.seeds)
                if run_key(label, n, s, cid) not in done]
        if todo:
            _torch(args)
        for n, s in todo:
            rec = train_run(task, label, n, s, cfg, args.device)
            rec = {"key": run_key(label, n, s, cid), "task": label, "N": n, "seed": s, "config_id": cid,
                   "config": cfg.as_dict(), "device": args.device, "threads": args.threads, **rec}
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
            if log:
                log(f"{label} N={n} seed={s}: plateau {rec['plateau']:.3g}, train {rec['train_loss']:.3g}, "
                    f"{rec['steps']} steps, {rec['train_seconds']} s")
    mine = [r for r in read_records(args.out) if r.get("task") == label and r.get("config_id") == cid
            and r["N"] in args.train_lengths and r["seed"] < args.seeds]
    out = {"task": label, "eps": args.eps, "config_id": cid, "config": cfg.as_dict(), "trained": len(todo),
           "out": args.out, **summarize(mine, args.train_lengths, args.eps)}
    out["prediction"] = prediction(args)
    out["_json"] = args.json
    return out


def _text(r: dict) -> str:
    p = r["prediction"]
    lines = [f"{r['task']}: test-MSE plateau per training length N (eps = {r['eps']}), config {r['config_id']}, "
             f"{r['trained']} new run(s), results in {r['out']}",
             "  N      seeds  plateau(mean)  plateau(max)  train loss  test loss at m*N (mean)"]
    for row in r["rows"]:
        tl = "  ".join(f"{m}N:{v:.3g}" for m, v in row["test_loss_mean"].items())
        lines.append(f"  {row['N']:<6} {row['seeds']:<6} {row['plateau_mean']:<14.3g} {row['plateau_max']:<13.3g} "
                     f"{row['train_loss_mean']:<11.3g} {tl}")
    lines += [f"  measured threshold (smallest N with mean plateau < eps): {r['measured_threshold']}   "
              f"(every seed below eps: {r['measured_threshold_all_seeds']}; below eps for every larger N: "
              f"{r['measured_threshold_stable']}; over runs that reached the train-loss target: "
              f"{r['measured_threshold_converged']})",
              f"  bounds.estimate at eps = {p['eps']}: hardmax_length = {p['hardmax_length']}, "
              f"sample_length = {p['sample_length']}, N = {p['N']}   (L = {p['L']:.4g}, Delta = {p['period']}, "
              f"tau = {p['tau']})"]
    return "\n".join(lines)


def main(argv=None) -> int:
    try:
        r = run(argv, log=lambda m: print(m, file=sys.stderr, flush=True))
    except ValueError as e:  # UsageError, TaskError, bounds.estimate's UsageError
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"bounds.measure: error: {msg}", file=sys.stderr)
        return 2
    as_json = r.pop("_json")
    print(json.dumps(r) if as_json else _text(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
