"""``python -m bounds.experiments.measure``: measured length-generalization thresholds next to the Theorem 4.1 estimate.

Izzo et al. sec. 5 (Figures 1-3) train one-layer transformers (App. B) on SimpleTask / ModPTask with training
length N and report the test loss at lengths T' >= N: it plateaus, and the plateau falls with N.  This command
runs such sweeps (:mod:`bounds.experiments.training`: batched seeds, one JSON record per (task, N) run, resumable) and
reports per task the measured threshold ``n_min`` (smallest N whose seed-mean plateau is below ``--eps``, with
its spread over seeds; :mod:`bounds.experiments.training.summary`) next to the prediction of ``python -m bounds.estimate``
for the App. A.2 construction of the same task at the error scale ``sqrt(eps)`` (``--eps`` is a mean
*squared* error, Theorem 4.1's eps an error size).

    python -m bounds.experiments.measure --preset quick --workers 2           # the README command (2 CPU cores)
    python -m bounds.experiments.measure --preset quick --workers 2 --resume  # continue it after an interruption
    python -m bounds.experiments.measure --preset paper --executor ray        # App. B settings, GPU-sized
    python -m bounds.experiments.measure --task modp --period 3 --train-lengths 8,16,32 --seeds 8 --out runs/mine
    python -m bounds.experiments.measure --preset quick --refresh-predictions  # stored predictions from bounds.estimate now

Runs go to the folder ``--out`` (default ``runs/izzo2025-<preset>``), one file per run written atomically; a
folder that already has records is refused unless ``--resume`` is given, which skips every recorded run (a
SIGKILL loses only the runs in flight).  A preset also writes its summaries,
``<results-dir>/izzo2025-{modp,simple}-<preset>.json``, and, with ``--plots DIR``, the figures
(``python -m bounds.experiments.figures`` redraws every committed figure from the results files).  When the estimate
changes, ``--refresh-predictions`` recomputes the predictions stored in a preset's results files (and their
ratios to the measured N_min) with the code that wrote them, training nothing.  Device:
``--device auto`` (default) uses CUDA when torch sees it.  Progress (runs done/left, ETA, steps) is on
stderr and starts before torch is imported.  Usage errors exit 2 with one line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from fractions import Fraction

from lengthgen_cli import (
    Parser,
    add_json_option,
    add_period_option,
    bounded_int,
    command,
    finite_real,
    int_list,
    rational,
)
from lengthgen_cli.sweep import add_executor_options


class UsageError(ValueError):
    """A command-line argument is invalid or the environment cannot run it (message says which)."""


MAX_TRAIN_LENGTH = 4096
MAX_SEEDS = 256
MAX_STEPS = 10**7
MAX_BATCH = 1 << 16
MAX_WORKERS = 256
MAX_MULTIPLE = 64


def _parser() -> argparse.ArgumentParser:
    ap = Parser(module="bounds.experiments.measure",
                description="Measured length-generalization thresholds (Izzo et al. sec. 5) next to the "
                            "Theorem 4.1 estimate of bounds.estimate.")
    pos = finite_real(positive=True)
    ap.add_argument("--preset", choices=("quick", "cpu", "horizon", "paper"),
                    help="a whole sweep (bounds.experiments.training.presets): quick, cpu (trained until it fits), "
                         "horizon (N up to 4x the class lower bound, for bounds.certify --runs) or paper")
    ap.add_argument("--task", help="modp or simple (a custom sweep, with --train-lengths)")
    add_period_option(ap, default=5, help="ModPTask period p")
    ap.add_argument("--index", type=bounded_int(0, MAX_TRAIN_LENGTH, "MAX_TRAIN_LENGTH"), default=0,
                    help="ModPTask index k (default 0)")
    ap.add_argument("--omega", type=rational(positive=True), default=Fraction(1), help="SimpleTask frequency (default 1)")
    ap.add_argument("--train-lengths", type=int_list(1, MAX_TRAIN_LENGTH, "MAX_TRAIN_LENGTH"),
                    help="training lengths N, e.g. 8,16,32 (duplicates ignored)")
    ap.add_argument("--seeds", type=bounded_int(1, MAX_SEEDS, "MAX_SEEDS"), default=8,
                    help="seeds 0..S-1 per N, trained as one batched model (default 8)")
    ap.add_argument("--eps", type=pos, default=0.01, help="plateau (test MSE) threshold (default 0.01)")
    ap.add_argument("--out", help="run folder, one JSON record per run (default runs/izzo2025-<preset or custom>)")
    ap.add_argument("--resume", action="store_true", help="continue a run folder that already has records")
    ap.add_argument("--results-dir", default="docs/results", help="where a preset writes its summaries")
    ap.add_argument("--plots", metavar="DIR", help="write the figures (PNG + SVG) to DIR")
    add_executor_options(ap, MAX_WORKERS)
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                    help="auto (default: CUDA when torch sees it), cpu or cuda")
    ap.add_argument("--threads", type=bounded_int(1, MAX_WORKERS, "MAX_WORKERS"), default=1,
                    help="torch CPU threads per run (default 1)")
    ap.add_argument("--steps", type=bounded_int(1, MAX_STEPS, "MAX_STEPS"), default=1500,
                    help="step budget per run (default 1500)")
    ap.add_argument("--batch", type=bounded_int(1, MAX_BATCH, "MAX_BATCH"), default=64,
                    help="online batch size per seed (default 64; App. B: 1024)")
    ap.add_argument("--lr", type=pos, default=1e-2, help="embedding lr; hidden layers use lr/d (App. B)")
    ap.add_argument("--qk-lr-scale", type=pos, default=0.1, help="query/key lr = scale * lr/d (App. B: 1)")
    ap.add_argument("--schedule", choices=("cosine", "constant"), default="cosine",
                    help="cosine decay to 0 over --steps (default) or constant (App. B)")
    ap.add_argument("--train-loss-target", type=pos, default=1e-4, help="stop below this (App. B: 1e-5)")
    ap.add_argument("--positions", choices=("periodic", "absolute"), default="periodic",
                    help="learned periodic table of period --pos-period (default) or absolute (a control)")
    ap.add_argument("--pos-period", type=bounded_int(1, MAX_TRAIN_LENGTH, "MAX_TRAIN_LENGTH"), default=None,
                    help="periodic table size (default: the task's Delta)")
    ap.add_argument("--test-multiples", type=int_list(1, MAX_MULTIPLE, "MAX_MULTIPLE"), default=[2, 4, 8],
                    help="test at m*N (default 2,4,8)")
    ap.add_argument("--plateau-from", type=bounded_int(1, MAX_MULTIPLE, "MAX_MULTIPLE"), default=4,
                    help="plateau = mean MSE over [a*N, max*N] (a=4)")
    ap.add_argument("--test-batch", type=bounded_int(1, MAX_BATCH, "MAX_BATCH"), default=256,
                    help="test sequences per seed (default 256)")
    ap.add_argument("--summarize-only", action="store_true",
                    help="train nothing: summarize the runs already in the run folder (the summary lists what is missing)")
    ap.add_argument("--refresh-predictions", action="store_true",
                    help="train nothing: recompute the predictions stored in the preset's results files "
                         "(<results-dir>/izzo2025-{modp,simple}-<preset>.json) with bounds.estimate as it is now")
    add_json_option(ap)
    return ap


#: the options of a custom sweep (``--task``); a preset fixes all of them
SWEEP_OPTIONS = ("--period", "--index", "--omega", "--train-lengths", "--seeds", "--steps", "--batch", "--lr",
                 "--qk-lr-scale", "--schedule", "--train-loss-target", "--positions", "--pos-period",
                 "--test-multiples", "--plateau-from", "--test-batch")
#: the options only training uses
TRAINING_OPTIONS = ("--executor", "--workers", "--ray-address")


def _check(args, given: set) -> None:
    """Every option given is used by the mode asked for (refused in one line otherwise); paths checked."""
    from lengthgen_cli import refuse_unused
    from lengthgen_cli.output import check_output_folder

    if (args.preset is None) == (args.task is None):
        raise UsageError("give either --preset NAME or --task TASK with --train-lengths")
    if args.refresh_predictions:
        refuse_unused(given, (*SWEEP_OPTIONS, *TRAINING_OPTIONS, "--eps", "--out", "--resume", "--plots", "--device",
                              "--threads", "--summarize-only"),
                      "--refresh-predictions rewrites the preset's results files and trains nothing")
    if args.preset is not None:
        refuse_unused(given, SWEEP_OPTIONS, f"--preset {args.preset} fixes the sweep")
    else:
        refuse_unused(given, ("--results-dir",), "--results-dir holds a preset's summaries; a --task sweep writes none")
        kind = args.task.lower()
        refuse_unused(given, ("--omega",) if kind == "modp" else ("--period", "--index") if kind == "simple" else (),
                      f"--task {kind} does not use it")
    if args.summarize_only:
        refuse_unused(given, TRAINING_OPTIONS, "--summarize-only trains nothing")
    if args.executor != "ray":
        refuse_unused(given, ("--ray-address",), "--ray-address is the Ray cluster of --executor ray")
    if args.plots is not None:
        check_output_folder(args.plots, "--plots")
        from bounds.experiments.training.plots import STEMS
        from lengthgen_cli.output import check_target

        for stem in STEMS:
            for ext in (".png", ".svg"):
                check_target(os.path.join(args.plots, stem + ext), what="figure", within=args.plots, make_folder=True)
    if args.preset is not None:
        check_output_folder(args.results_dir, "--results-dir")
    if not (args.summarize_only or args.refresh_predictions):
        from bounds.experiments.options import check_device
        from lengthgen_cli.sweep import check_executor

        check_device(args.device)
        check_executor(args.executor, args.workers)
    if args.task is not None:
        if args.task.lower() not in ("modp", "simple"):
            raise UsageError(f"unknown task {args.task!r}; use --task modp or --task simple")
        if not args.train_lengths:
            raise UsageError("--train-lengths is empty; give e.g. --train-lengths 8,16,32")
    if not args.test_multiples:
        raise UsageError("--test-multiples is empty; give e.g. --test-multiples 2,4,8")
    if not 1 <= args.plateau_from <= max(args.test_multiples):
        raise UsageError(f"--plateau-from must be in 1..{max(args.test_multiples)}, got {args.plateau_from}")


def _preset(args):
    """The sweep as a Preset (a named one, or the custom grid of the command line)."""
    from bounds.experiments.training.presets import IZZO_PRESETS, Grid, Preset

    if args.preset:
        return IZZO_PRESETS[args.preset]
    task = args.task.lower()
    params = {"period": args.period, "index": args.index} if task == "modp" else {"omega": str(args.omega)}
    config = {"max_steps": args.steps, "batch": args.batch, "lr": args.lr, "qk_lr_scale": args.qk_lr_scale,
              "schedule": args.schedule, "train_loss_target": args.train_loss_target, "positions": args.positions,
              "pos_period": args.pos_period, "test_multiples": list(args.test_multiples),
              "plateau_from": args.plateau_from, "test_batch": args.test_batch, "attn_length": 80, "d": 16,
              "width": 256}
    return Preset("custom", "command-line sweep", "bounds.experiments.training.train:train_group", config, args.seeds,
                  (Grid(task, params, tuple(args.train_lengths)),))


def _torch_check(args) -> None:
    try:
        import torch
    except ImportError:
        raise UsageError("training needs torch; install the CPU build with `pip install torch==2.13.0`") from None
    if args.device == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda, but this torch has no CUDA device; use --device auto or cpu")


def run(argv=None, show_progress: bool | None = None) -> dict:
    """Parse, run what is missing from the run folder, summarize (the CLI's work without printing)."""
    from bounds.experiments.training.progress import SweepProgress
    from lengthgen_cli import given_options
    from lengthgen_cli.sweep import SweepError, load_records, recorded, run_specs

    ap = _parser()
    args = ap.parse_args(argv)
    _check(args, given_options(ap, argv))
    if args.refresh_predictions:
        return refresh(args)
    preset = _preset(args)
    runs_dir = args.out or os.path.join("runs", f"izzo2025-{preset.name}")
    _check_out(runs_dir, args.resume or args.summarize_only)
    if args.preset:
        from lengthgen_cli.output import check_target, json_object_with

        for path in _results_paths(args.results_dir, preset.name):
            check_target(path, what="results file", within=args.results_dir, make_folder=True,
                         recognise=json_object_with(preset=preset.name))
    specs = preset.specs(device=args.device, threads=args.threads)
    for s in specs:  # the task parameters are checked before anything trains
        _task_or_usage(s.kwargs["task"], s.kwargs["params"])
    todo = [s for s in specs if not recorded(runs_dir, s)]
    if args.summarize_only:
        specs = [s for s in specs if s not in todo]
        missing, todo = [s.key for s in todo], []
    prog = SweepProgress(len(specs), len(specs) - len(todo), desc=f"{preset.name} sweep", enabled=show_progress)
    try:
        if todo:
            prog.note(f"{len(todo)} run(s) to train into {runs_dir} ({args.executor} executor); importing torch ...")
            if args.executor == "local" and args.workers == 1:
                _torch_check(args)
            elif args.device == "cuda":
                _torch_check(args)
        result = run_specs(specs, runs_dir, executor=args.executor, workers=args.workers,
                           ray_address=args.ray_address, on_record=prog.record_done, on_steps=prog.steps)
    except SweepError as e:
        raise UsageError(str(e)) from None
    finally:
        prog.close()
    records = load_records(runs_dir, specs)
    from bounds.experiments.training.report import summaries

    out = summaries(records, args.eps, preset)
    out.update(preset=preset.name, runs=runs_dir, trained=result["ran"], eps=args.eps,
               missing_runs=missing if args.summarize_only else [])
    if args.preset:
        out["written"] = write_results(out, args.results_dir, preset.name)
    if args.plots:
        from bounds.experiments.training.plots import plot_summary

        out["plots"] = plot_summary(out, args.plots, preset.name)
    out["_json"] = args.json
    return out


def refresh(args) -> dict:
    """``--refresh-predictions``: rewrite the preset's stored predictions (:func:`bounds.experiments.training.report.refresh_predictions`)."""
    from bounds.experiments.training.report import refresh_predictions
    from lengthgen_cli.output import write_atomic

    if args.preset is None:
        raise UsageError("--refresh-predictions needs --preset NAME (the results files it rewrites)")
    written, tasks = [], []
    for kind in ("modp", "simple"):
        path = os.path.join(args.results_dir, f"izzo2025-{kind}-{args.preset}.json")
        if not os.path.exists(path):
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                summary = refresh_predictions(json.load(fh))
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
            raise UsageError(f"cannot read the results file {path!r}: {e}") from None
        write_atomic(path, summary, within=args.results_dir)
        written.append(path)
        tasks += summary["tasks"]
    if not written:
        raise UsageError(f"no results files izzo2025-{{modp,simple}}-{args.preset}.json in {args.results_dir!r}")
    return {"preset": args.preset, "runs": "-", "trained": 0, "eps": summary["eps"], "tasks": tasks, "slopes": {},
            "written": written, "_json": args.json}


def _check_out(runs_dir: str, resume: bool) -> None:
    """The run folder: not a file; an existing folder with records needs --resume (nothing is written here)."""
    if os.path.exists(runs_dir) and not os.path.isdir(runs_dir):
        raise UsageError(f"--out {runs_dir!r} is a file, not a run folder")
    if os.path.isdir(runs_dir) and not resume and any(f.endswith(".json") for f in os.listdir(runs_dir)):
        raise UsageError(f"the run folder {runs_dir!r} already has records; add --resume to continue it")
    parent = os.path.dirname(os.path.abspath(runs_dir))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise UsageError(f"cannot create the run folder {runs_dir!r} (--out)")


def _task_or_usage(task: str, params: dict) -> None:
    from bounds.certify.trained import TaskSpecError, make_task

    try:
        make_task(task, params)
    except TaskSpecError as e:
        raise UsageError(str(e)) from None


def _results_paths(results_dir: str, name: str) -> list[str]:
    """The results files of the preset ``name``: ``izzo2025-modp-<name>.json``, ``izzo2025-simple-<name>.json``."""
    return [os.path.join(results_dir, f"izzo2025-{kind}-{name}.json") for kind in ("modp", "simple")]


def write_results(summary: dict, results_dir: str, name: str) -> list[str]:
    """``izzo2025-modp-<name>.json`` and ``izzo2025-simple-<name>.json`` (atomic, inside ``results_dir``)."""
    from lengthgen_cli.output import write_atomic

    written = []
    for kind, path in zip(("modp", "simple"), _results_paths(results_dir, name), strict=True):
        part = {k: v for k, v in summary.items() if k not in ("tasks", "_json")}
        part["tasks"] = [t for t in summary["tasks"] if t["task_kind"] == kind]
        part["slope"] = summary["slopes"].get(kind)
        part.pop("slopes", None)
        if part["tasks"]:
            write_atomic(path, part, within=results_dir, make_folder=True)
            written.append(path)
    return written


def _text(r: dict) -> str:
    lines = [f"{r['preset']} sweep: {r['trained']} new run(s), records in {r['runs']}; eps = {r['eps']} (test MSE)",
             "  task                n_min  per-seed min/median/max (none)  median  stable  converged  predicted N  "
             "pred/meas"]
    for t in r["tasks"]:
        s = t["summary"]
        sp = s["n_min_spread"]
        ratio = t["ratio_predicted_over_measured"]
        lines.append(f"  {t['task']:<19} {s['n_min']!s:<6} {sp['min']!s}/{sp['median']!s}/{sp['max']!s} "
                     f"({sp['seeds_without']}){'':<14} {s['n_min_median']!s:<7} {s['n_min_stable']!s:<7} "
                     f"{s['n_min_converged']!s:<10} "
                     f"{t['predicted']['N']:<12} {'-' if ratio is None else f'{ratio:.3g}'}")
    for kind, fit in r["slopes"].items():
        if fit:
            lines.append(f"  slope of per-seed N_min against {'p' if kind == 'modp' else 'omega'}: {fit['slope']:.3g} "
                         f"(95% CI {fit['slope_ci'][0]:.3g} .. {fit['slope_ci'][1]:.3g}, {fit['points']} points, "
                         f"{fit['seeds_left_out']} seeds never below eps)")
    if r.get("missing_runs"):
        lines.append(f"  {len(r['missing_runs'])} run(s) of the sweep are not in {r['runs']} yet (--summarize-only)")
    for p in r.get("written", []):
        lines.append(f"  wrote {p}")
    return "\n".join(lines)


@command
def main(argv=None) -> int:
    from lengthgen_cli import UsageError as CommandLineError

    try:
        r = run(argv)
    except (ValueError, CommandLineError) as e:  # UsageError, TaskError, SweepError, bounds.estimate's UsageError
        msg = " ".join(str(e).split()) if str(e) else type(e).__name__
        print(f"bounds.experiments.measure: error: {msg}", file=sys.stderr)
        return 2
    as_json = r.pop("_json")
    print(json.dumps(r) if as_json else _text(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
