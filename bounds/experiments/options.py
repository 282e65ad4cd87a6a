"""The run-control options shared by the trained reproductions (``python -m bounds.experiments.reproduce huang2024 |
golowich2025``): seeds, budgets, where runs and results go, executor and device, in one place."""

from __future__ import annotations

from lengthgen_cli import bounded_int

MAX_SEEDS, MAX_STEPS, MAX_TEST_SAMPLES, MAX_WORKERS = 64, 1_000_000, 100_000, 256


def add_budget_options(ap, unit: str) -> None:
    """``--seeds``, ``--steps`` and ``--test-samples`` (``unit``: what one test sample set covers, e.g. "bin")."""
    ap.add_argument("--seeds", type=bounded_int(1, MAX_SEEDS, "MAX_SEEDS"), help="seeds per cell (default: the preset's)")
    ap.add_argument("--steps", type=bounded_int(1, MAX_STEPS, "MAX_STEPS"), help="step budget per run (default: the preset's)")
    ap.add_argument("--test-samples", type=bounded_int(1, MAX_TEST_SAMPLES, "MAX_TEST_SAMPLES"),
                    help=f"test examples per {unit} (default: the preset's)")


def add_run_options(ap, default_runs: str) -> None:
    """``--runs``, ``--results-dir``, ``--executor``, ``--workers``, ``--device``, ``--threads``, ``--no-plot``
    and ``--summarize-only``."""
    ap.add_argument("--runs", help=f"run folder (one JSON per run; reruns resume); default {default_runs}")
    ap.add_argument("--results-dir", default="docs/results", help="where the summary JSON, table and plots go")
    from lengthgen_cli.sweep import add_executor_options

    add_executor_options(ap, MAX_WORKERS, ray_address=False)
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                    help="torch device (auto: cuda if visible, else cpu)")
    ap.add_argument("--threads", type=bounded_int(1, MAX_WORKERS, "MAX_WORKERS"), default=1,
                    help="torch CPU threads per run (default 1)")
    ap.add_argument("--no-plot", action="store_true", help="skip the PNG/SVG figure")
    ap.add_argument("--summarize-only", action="store_true",
                    help="train nothing: summarize the runs already recorded (cells without a record are listed as missing)")


def check_summary_paths(results_dir: str, name: str, preset: str) -> None:
    """Before any training: ``<results_dir>/<name>.json``, ``.md`` and the figure ``.png``/``.svg`` can be
    written by :func:`write_summary`
    (inside ``results_dir``, not over a file of another kind; an existing JSON file is this preset's results)."""
    import os

    from lengthgen_cli.output import check_target, json_object_with

    check_target(os.path.join(results_dir, f"{name}.json"), what="results file", within=results_dir,
                 make_folder=True, recognise=json_object_with(preset=preset))
    check_target(os.path.join(results_dir, f"{name}.md"), what="results table", within=results_dir, make_folder=True)
    for ext in (".png", ".svg"):  # the figure plot() saves beside the JSON, same stem
        check_target(os.path.join(results_dir, f"{name}{ext}"), what="figure", within=results_dir, make_folder=True)


def write_summary(summary: dict, results_dir: str, name: str, text: str, plot, no_plot: bool) -> int:
    """Write a trained reproduction's results: ``<results_dir>/<name>.json`` (atomic), the Markdown table ``text`` as
    ``<name>.md``, and unless ``no_plot`` the figures ``plot(summary, json_path)`` draws; print the table and every
    path written."""
    import os

    from lengthgen_cli.output import write_atomic, write_text

    path = os.path.join(results_dir, f"{name}.json")
    write_atomic(path, summary, within=results_dir, make_folder=True)
    write_text(os.path.join(results_dir, f"{name}.md"), text + "\n", within=results_dir)
    print(text)
    if not no_plot:
        for p in plot(summary, path):
            print(f"wrote {p}")
    print(f"wrote {path}")
    return 0


def check_device(device: str) -> None:
    """``--device cuda`` refused up front (one line) where this torch sees no CUDA device; ``auto`` and ``cpu``
    always run."""
    from lengthgen_cli import UsageError

    if device != "cuda":
        return
    try:
        import torch
    except ImportError:
        raise UsageError("--device cuda needs torch (pip install torch)") from None
    if not torch.cuda.is_available():
        raise UsageError("--device cuda, but this torch sees no CUDA device; use --device auto or cpu")


def check_run_options(args, runs_dir: str) -> None:
    """Everything :func:`add_run_options` names, checked before any run starts (one line, exit 2): the run folder
    and ``--results-dir`` can be written, the device and executor exist, and ``--summarize-only`` is not given
    options that only training uses."""
    from lengthgen_cli import UsageError
    from lengthgen_cli.output import check_output_folder

    check_output_folder(runs_dir, "--runs")
    check_output_folder(args.results_dir, "--results-dir")
    if args.summarize_only:
        unused = [o for o, used in (("--executor", args.executor != "local"), ("--workers", args.workers != 1))
                  if used]
        if unused:
            raise UsageError(f"--summarize-only trains nothing; drop {' and '.join(unused)}")
        return
    from lengthgen_cli.sweep import check_executor

    check_device(args.device)
    check_executor(args.executor, args.workers)
