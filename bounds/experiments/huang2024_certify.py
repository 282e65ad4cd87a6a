"""Huang et al. Figure 1's one-layer cells, certified: every trained seed against its task (NoPE: at every length;
APE: on every input its position table defines).

``python -m bounds.experiments.huang2024_certify [--preset onelayer] [--margins 1/2,1/4,1/8,1/16] [--letters 3]
[--time-budget 20] [--runs DIR] [--results-dir docs/results]``

The models are the seeds of a preset that keeps its weights (:data:`bounds.experiments.huang2024.ONELAYER`, trained by
``python -m bounds.experiments.reproduce huang2024 --figure 1 --preset onelayer``), exported as Hugging Face
directories (:func:`bounds.experiments.huang2024.export_models`, ``<runs>/models/<task>-nope-seed<s>``).  Each seed
is read as a user's checkpoint is (:func:`bounds.certify.gpt2.load`, with the import check against the torch
forward) and certified against its task (:func:`bounds.certify.gpt2_task.certify_task`, the statement of
``python -m bounds.certify --model DIR --task NAME --margin MU``) at each margin of ``--margins``: on every input of
every length with task margin >= MU, the argmax at ``#`` is the answer (exact-match read-out of the answer token).
A seed with an absolute position table (APE, ``<task>-ape-seed<s>``) is defined on inputs of at most R positions (its
table's rows) only: it is certified on those, every input ``$ x_1 .. x_n #`` starting at position 0 (as the test
inputs) with n + 2 <= R, its words enumerated in increasing length within the time budget and
:data:`bounds.certify.gpt2_task_table.MAX_WORDS` (:func:`bounds.certify.gpt2_task_table.certify_table_task`): the
row says "certified on model length <= R", "H = .. of R" (every input of model length <= H certified, the longer
ones not decided) or the shortest failing word; nothing is claimed beyond R.
Majority over 26 letters is certified on inputs over its first ``--letters`` letters (the certificate encloses at
most :data:`bounds.certify.gpt2_targets.MAX_LETTERS`).  Each (seed, margin) is one run of the sweep executor
(:mod:`lengthgen_cli.sweep`, resumable); the summary puts each seed's verdicts beside its exact-match accuracy on
the harness's bins (Huang et al.'s test measure: lengths [51, 100] and [101, 150], 1-3x the training maximum 50)
and, where the verdict is not ``certified``, the certified horizon (:func:`bounds.certify.gpt2_task.task_horizon`):
H, up to which model length every input of the statement is right, and X, the shortest failing input found.
"""

from __future__ import annotations

import os
from fractions import Fraction

from lengthgen_cli import command

MARGINS = ("1/2", "1/4", "1/8", "1/16")
LETTERS = 3  # majority_letters: inputs over its first LETTERS letters
TIME_BUDGET = 60.0  # seconds per (seed, margin), loading excluded (bounds.certify's --time-budget for one margin)
MAX_LENGTH = 16  # lengths enumerated exactly before the branch-and-bound (bounds.certify --max-length)
WITNESS_SYMBOLS = 80  # a failing input is written out as symbols up to this length, as counts beyond


class UsageError(ValueError):
    """A bad command line (one line, exit 2)."""


def _target(task: str, letters: int):
    from bounds.certify.gpt2_targets import target

    tgt = target(task)
    return tgt.restricted(tgt.letters[:letters]) if len(tgt.letters) > letters else tgt


def certify_seed(model: str, task: str, margin: str, letters: int, budget_s: float, max_length: int) -> dict:
    """Sweep run function: the model in ``model`` (a ``save_pretrained`` directory) against ``task`` at ``margin``;
    returns the certificate's record with the import check and the failing input written as symbols."""
    from transformers.utils import logging as hf_logging

    from bounds.certify.gpt2 import import_check, load
    from bounds.certify.gpt2_task import certify_task
    from bounds.certify.gpt2_task_table import certify_table_task

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    tgt = _target(task, letters)
    ids = tgt.token_ids(None)
    form = load(model, bos=ids[tgt.bos], alphabet=[ids[c] for c in tgt.letters] + [ids[tgt.sep]], absolute=True)
    check = import_check(form, samples=16)
    if form.defined_up_to is not None:  # APE: on the inputs its table defines (every word up to the table's rows)
        cert = certify_table_task(form, tgt, Fraction(margin), 0.0, "argmax", budget_s=budget_s)
    else:
        cert = certify_task(form, tgt, Fraction(margin), 0.0, "argmax", max_length=max_length, budget_s=budget_s)
    rec = cert.record()
    rec.pop("lengths")
    w = rec["witness"]
    if w.get("ids") is not None:
        symbol = {v: k for k, v in ids.items()}
        w["symbols"] = "".join(symbol[i] for i in w["ids"]) if len(w["ids"]) <= WITNESS_SYMBOLS else None
        if w["symbols"] is None or len(w["ids"]) > WITNESS_SYMBOLS:
            w["ids"] = None  # long inputs are given by their counts (every order has the same output)
    hw = (rec.get("horizon") or {}).get("witness") or {}
    if hw.get("ids") is not None and len(hw["ids"]) > WITNESS_SYMBOLS:
        hw.update(ids=None, string=None, symbols=None)  # the shortest failure, likewise by its counts
    return {"model": model, "task": task, "letters": list(tgt.letters), "import_check": check, **rec}


# ------------------------------------------------------------------------------------------------ specs
def training(preset, runs_dir: str) -> list[dict]:
    """The preset's training records with weights found in ``runs_dir`` (whatever ``--seeds`` / ``--steps`` they were
    trained with; cells not trained yet are left out), in the preset's task order."""
    from lengthgen_cli.sweep import load_records

    found = [r["record"] for r in load_records(runs_dir) if r["key"].startswith(f"huang2024-fig1/{preset.name}/")
             and "weights" in r["record"]]
    order = list(preset.tasks)
    return sorted(found, key=lambda r: (order.index(r["task"]) if r["task"] in order else len(order), r["positions"]))


def cert_specs(records: list[dict], runs_dir: str, margins, letters: int, budget_s: float, max_length: int):
    """One :class:`~lengthgen_cli.sweep.RunSpec` per (trained seed, margin)."""
    import hashlib

    from bounds.experiments.huang2024 import export_models
    from lengthgen_cli.sweep import RunSpec

    out = []
    for rec in records:
        digests = [hashlib.sha256("".join(w[k]["float32_base64"] for k in sorted(w)).encode()).hexdigest()[:12]
                   for w in rec["weights"]]
        dirs = [os.path.join(runs_dir, "models", f"{rec['task']}-{rec['positions']}-seed{s}") for s in rec["seeds"]]
        if not all(os.path.isfile(os.path.join(d, "config.json")) for d in dirs):
            dirs = export_models(rec, os.path.join(runs_dir, "models"))
        for seed, d, digest in zip(rec["seeds"], dirs, digests, strict=True):
            for mu in margins:
                key = (f"huang2024-onelayer-certify/{rec['task']}/{rec['positions']}/seed={seed}/margin={mu}/"
                       f"letters={letters}/budget={budget_s}/N0<={max_length}/weights={digest}")
                out.append(RunSpec(key, "bounds.experiments.huang2024_certify:certify_seed",
                                   {"model": d, "task": rec["task"], "margin": mu, "letters": letters,
                                    "budget_s": budget_s, "max_length": max_length}))
    return out


# ------------------------------------------------------------------------------------------------ summary
def summarize(records: list[dict], certs: dict, preset, margins, letters: int, budget_s: float) -> dict:
    """One row per trained seed: its accuracy per bin (the harness) and its verdict per margin."""
    from bounds.certify.gpt2_task import monotone_horizons
    from bounds.experiments.huang2024 import REPORTED_ACCURACY

    rows = []
    for rec in records:
        for i, seed in enumerate(rec["seeds"]):
            acc = rec["accuracy"][i]
            verdicts = []
            for mu in margins:
                c = certs.get((rec["task"], rec["positions"], seed, mu))
                if c is None:
                    verdicts.append({"margin": mu, "verdict": "missing"})
                    continue
                w = c["witness"]
                verdicts.append({"margin": mu, "verdict": c["verdict"], "horizon": _horizon(c.get("horizon")),
                                 "gap_lower": c["gap_lower"],
                                 "gap_upper": c["gap_upper"], "N0": c["N0"], "seconds": round(c["seconds"], 2),
                                 "boxes_split": c.get("boxes_split"), "boxes_open": c.get("boxes_open"),
                                 "defined_up_to": c.get("defined_up_to"),
                                 "witness": None if c["verdict"] != "fails" else
                                 {k: w.get(k) for k in ("symbols", "length", "counts", "margin", "answer",
                                                        "torch_gap", "torch_prediction")},
                                 "import_max_abs_difference": c["import_check"]["max_abs_difference"]})
            monotone_horizons(verdicts)  # a smaller margin's certified lengths hold for a larger margin too
            certified = [Fraction(v["margin"]) for v in verdicts if v["verdict"] == "certified"]
            rows.append({"task": rec["task"], "positions": rec["positions"], "seed": seed,
                         "arch": rec["arch"], "steps": rec["steps"][i], "final_loss": rec["final_loss"][i],
                         "bins": rec["bins"], "accuracy": acc, "fit": acc[0] >= preset.fit,
                         "reported_accuracy": REPORTED_ACCURACY.get((rec["task"], rec["positions"])),
                         "letters": c["letters"] if (c := certs.get((rec["task"], rec["positions"], seed,
                                                                      margins[0]))) else None,
                         "verdicts": verdicts,
                         "smallest_certified_margin": str(min(certified)) if certified else None})
    return {"experiment": "huang2024:onelayer-certify", "preset": preset.name, "description": preset.description,
            "statement": "every input of every length (APE seeds: of model length <= R, the rows of the position "
                         "table, starting at position 0; nothing claimed beyond) over the letters with margin "
                         "(largest count - second) / length >= MU (ties excluded): the argmax of the logits at '#' "
                         "is the answer (bounds.certify --task NAME --margin MU)",
            "margins": list(margins), "letters": letters, "time_budget_s": budget_s, "rows": rows}


def _horizon(h: dict | None) -> dict | None:
    """The certified horizon of a (seed, margin) certificate (:func:`bounds.certify.gpt2_task.task_horizon`, model
    lengths: letters + ``#`` + BOS) as the summary keeps it; None for a certificate recorded before the horizon."""
    if h is None:
        return None
    w = h.get("witness") or {}
    symbols = w.get("symbols") or (w["string"] if isinstance(w.get("string"), str) else None)  # APE: "string"
    return {"H": h["H"], "every_length": h["every_length"], "X": h["X"], "exact": h["exact"],
            "X_minus_H": h["X_minus_H"], "H_from_margin": h.get("H_from_margin"),
            "witness": None if h["X"] is None else
            {"symbols": symbols, "letters": h["X"] - 2, **{k: w.get(k) for k in ("counts", "margin", "answer",
                                                                                  "gap_upper", "torch_gap")}}}


def _horizon_text(h: dict | None) -> str:
    """``H = .., X = ..`` (model lengths) of a summary's horizon; '' when certified at every length or not recorded."""
    if h is None or h["every_length"]:
        return ""
    return f"H = {h['H']}" + ("" if h["X"] is None else f", X = {h['X']}")


def _verdict_text(v: dict) -> str:
    h = _horizon_text(v.get("horizon"))
    if v["verdict"] == "fails":
        w = v["witness"]
        s = w["symbols"] if w.get("symbols") else f"counts {w['counts']} (length {w['length']})"
        hw = (v.get("horizon") or {}).get("witness") or {}
        if hw and hw.get("symbols") != w.get("symbols"):  # the shortest failure is another input
            h += f"; shortest: `{hw['symbols']}`" if hw.get("symbols") else f"; shortest: counts {hw['counts']}"
        return f"fails: `{s}`" + (f" ({h})" if h else "")
    R = v.get("defined_up_to")  # APE: nothing is claimed beyond the table's R rows
    if R is not None and v["verdict"] == "certified":
        return f"certified on model length <= {R}"
    if R is not None and v["verdict"] == "undetermined":
        return f"H = {(v.get('horizon') or {}).get('H')} of {R}"
    return v["verdict"] + (f", {h}" if h else "")


def table(summary: dict) -> str:
    """Markdown: per seed, accuracy per bin beside the verdict per margin and the smallest certified margin."""
    margins = summary["margins"]
    head = ["task", "seed", "steps", "accuracy % (bins)", "Figure 1 %"] + [f"MU = {m}" for m in margins] \
        + ["certified down to"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in summary["rows"]:
        acc = " / ".join(f"{100 * a:.1f}" for a in r["accuracy"])
        paper = " / ".join(f"{a:g}" for a in r["reported_accuracy"]) if r.get("reported_accuracy") else "-"
        pe = ", APE" if r["positions"] == "ape" else ""
        lines.append(f"| {r['task']} ({''.join(r['letters'] or [])}{pe}) | {r['seed']} | {r['steps']} | {acc} | {paper} | "
                     + " | ".join(_verdict_text(v) for v in r["verdicts"])
                     + f" | {r['smallest_certified_margin'] or '-'} |")
    bins = summary["rows"][0]["bins"] if summary["rows"] else []
    lines.append(f"\nbins {bins} (Figure 1 %: the accuracy Huang et al. report for the cell, mean over their seeds); "
                 f"statement: {summary['statement']}; time budget {summary['time_budget_s']} s per "
                 "(seed, margin), loading excluded (NoPE: the enumeration, the branch-and-bound with half of what is "
                 "left, the horizon; APE: the enumeration)")
    verdicts = [v for r in summary["rows"] for v in r["verdicts"] if v["verdict"] != "missing"]
    lines.append("H = the certified horizon: every input of the statement of model length <= H (letters + '#' + "
                 "BOS, i.e. at most H - 2 letters) is right; X = the model length of the shortest failing input found "
                 "(exact when X = H + 1); the verdict's witness is the input of smallest certified gap")
    old = sum(1 for v in verdicts if v.get("horizon") is None)
    if old:
        lines.append(f"{old} of {len(verdicts)} certificates were recorded before the horizon was computed: no H, X "
                     "shown for them (rerun the certificates to have them)")
    return "\n".join(lines)


VERDICT_COLORS = {"certified": "#228833", "fails": "#cc3311", "undetermined": "#bbbbbb", "missing": "white"}


def figure(summary: dict):
    """Per cell: each seed's accuracy per bin (bars) and its verdict per margin (squares below, with the certified
    horizon H and the shortest failure X where the verdict is not at every length), not saved."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = list(dict.fromkeys((r["task"], r["positions"]) for r in summary["rows"]))
    margins = summary["margins"]
    fig, axes = plt.subplots(2, max(1, len(cells)), figsize=(4.5 * max(1, len(cells)), 5.5), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 2]})
    for c, (task, pe) in enumerate(cells):
        rows = [r for r in summary["rows"] if (r["task"], r["positions"]) == (task, pe)]
        ax, vx = axes[0][c], axes[1][c]
        for b, color in zip(range(3), ("#999999", "#4477aa", "#cc6677"), strict=True):
            lo, hi = rows[0]["bins"][b]
            ax.bar([i + (b - 1) * 0.27 for i in range(len(rows))], [100 * r["accuracy"][b] for r in rows], 0.27,
                   color=color, label=f"{lo}-{hi}")
        ax.set_ylim(0, 105)
        ax.set_xticks(range(len(rows)), [f"seed {r['seed']}" for r in rows], fontsize=8)
        ax.set_title(f"{task} ({pe.upper()}, {rows[0]['arch']['n_layer']} layer, d = {rows[0]['arch']['d_model']})",
                     fontsize=9)
        for i, r in enumerate(rows):
            for j, v in enumerate(r["verdicts"]):
                vx.scatter([i], [j], s=180, marker="s", color=VERDICT_COLORS[v["verdict"]], edgecolors="black")
                h = v.get("horizon")
                if h and not h.get("every_length") and h.get("H") is not None:  # the certified horizon beside it
                    vx.text(i + 0.12, j, f"H={h['H']}" + ("" if h.get("X") is None else f", X={h['X']}"),
                            va="center", fontsize=7)
        vx.set_xticks(range(len(rows)), [f"seed {r['seed']}" for r in rows], fontsize=8)
        vx.set_yticks(range(len(margins)), [f"MU = {m}" for m in margins], fontsize=8)
        vx.set_xlim(-0.5, len(rows) - 0.5)
        vx.set_ylim(-0.5, len(margins) - 0.5)
        letters = "".join(rows[0]["letters"] or [])
        R = next((v.get("defined_up_to") for r in rows for v in r["verdicts"] if v.get("defined_up_to")), None)
        where = "every length" if R is None else f"model length <= {R} (its table)"
        vx.set_title(f"certificate over letters {letters}: {where}, margin >= MU", fontsize=8)
    axes[0][0].set_ylabel("exact-match accuracy %")
    axes[0][0].legend(fontsize=7, loc="lower left", title="test lengths", title_fontsize=7)
    for name, color in VERDICT_COLORS.items():
        if name != "missing":
            axes[1][0].scatter([], [], marker="s", color=color, edgecolors="black", label=name)
    axes[1][0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(0, -0.15), ncol=3)
    fig.tight_layout()
    return fig


def plot(summary: dict, json_path: str) -> list[str]:
    from lengthgen_cli.figure_data import save

    return save(figure(summary), os.path.splitext(json_path)[0], os.path.basename(json_path),
                within=os.path.dirname(json_path) or ".")


# -------------------------------------------------------------------------------------------------- CLI
MAX_MARGINS = 16


def margin_list(text: str) -> list[str]:
    """argparse type of ``--margins``: comma-separated exact rationals in (0, 1], at most :data:`MAX_MARGINS`,
    returned as their canonical text (``1/8``)."""
    import argparse

    from lengthgen_cli import rational

    one = rational(positive=True, high=1, high_name="1")
    items = [t for t in text.split(",") if t.strip()]
    if not items or len(items) > MAX_MARGINS:
        raise argparse.ArgumentTypeError(f"give 1 to {MAX_MARGINS} margins (MAX_MARGINS), not {len(items)}")
    out = [str(one(t)) for t in items]
    if len(set(out)) != len(out):
        raise argparse.ArgumentTypeError(f"{text!r} repeats a margin")
    return out


PROG = "bounds.experiments.huang2024_certify"


def _parser():
    from bounds.experiments.huang2024 import PRESETS
    from bounds.experiments.options import MAX_WORKERS
    from lengthgen_cli import Parser, bounded_int, finite_real
    from lengthgen_cli.sweep import add_executor_options

    ap = Parser(prog=f"python -m {PROG}", description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", choices=tuple(k for k, p in PRESETS.items() if p.save_weights), default="onelayer",
                    help="the trained preset whose seeds are certified (one that keeps its weights)")
    ap.add_argument("--margins", type=margin_list, default=None,
                    help=f"comma-separated margins MU in (0, 1] (default {','.join(MARGINS)})")
    ap.add_argument("--letters", type=bounded_int(1, 7, "MAX_LETTERS = 7"), default=LETTERS,
                    help=f"majority over many letters: certify inputs over its first K letters (default {LETTERS})")
    ap.add_argument("--time-budget", type=finite_real(positive=True, high=3600, high_name="3600"), default=TIME_BUDGET,
                    help=f"seconds per (seed, margin), loading excluded: NoPE, the enumeration, the branch-and-bound "
                         f"(half of what is left) and the horizon; APE, enumerating its inputs (default {TIME_BUDGET:g})")
    ap.add_argument("--runs", help="the preset's run folder (default runs/huang2024-fig1-<preset>); the models are "
                                   "exported to <runs>/models, the certificates recorded in <runs>/certify (reruns "
                                   "resume)")
    ap.add_argument("--results-dir", default="docs/results", help="where the summary JSON, table and figure go")
    add_executor_options(ap, MAX_WORKERS, ray_address=False)
    ap.add_argument("--no-plot", action="store_true", help="skip the PNG/SVG figure")
    ap.add_argument("--summarize-only", action="store_true",
                    help="certify nothing: summarize the certificates already recorded (others are 'missing')")
    return ap


@command
def main(argv=None) -> int:
    from bounds.certify.gpt2 import FormError
    from bounds.certify.gpt2_targets import TargetError
    from lengthgen_cli import usage_errors

    ap = _parser()
    args = ap.parse_args(argv)
    with usage_errors(ap, UsageError, FormError, TargetError):
        return run(args)


def run(args) -> int:
    from bounds.experiments.huang2024 import PRESETS
    from bounds.experiments.options import check_summary_paths, write_summary
    from bounds.experiments.training.progress import SweepProgress
    from lengthgen_cli.output import check_output_folder
    from lengthgen_cli.sweep import SweepError, check_executor, load_records, recorded, run_specs

    preset = PRESETS[args.preset]
    margins = args.margins or list(MARGINS)
    runs_dir = args.runs or os.path.join("runs", f"huang2024-fig1-{preset.name}")
    check_output_folder(runs_dir, "--runs")
    check_output_folder(args.results_dir, "--results-dir")
    check_executor(args.executor, args.workers)
    name = f"huang2024-certify-{preset.name}"
    check_summary_paths(args.results_dir, name, preset.name)
    records = training(preset, runs_dir)
    if not records:
        raise UsageError(f"no trained seeds of the {preset.name} preset in {runs_dir} (train them first: python -m "
                         f"bounds.experiments.reproduce huang2024 --figure 1 --preset {preset.name})")
    todo = cert_specs(records, runs_dir, margins, args.letters, args.time_budget, MAX_LENGTH)
    cert_dir = os.path.join(runs_dir, "certify")
    if not args.summarize_only:
        left = [s for s in todo if not recorded(cert_dir, s)]
        prog = SweepProgress(len(todo), len(todo) - len(left), desc=f"certify {preset.name}")
        try:
            run_specs(todo, cert_dir, executor=args.executor, workers=args.workers, on_record=prog.record_done,
                      on_steps=prog.steps)
        except SweepError as e:
            raise UsageError(str(e)) from None
        finally:
            prog.close()
    certs = {}
    for spec, found in ((s, load_records(cert_dir, [s])) for s in todo):
        if found:
            kw = spec.kwargs
            seed = int(os.path.basename(kw["model"]).rsplit("seed", 1)[1])
            certs[(kw["task"], os.path.basename(kw["model"]).split("-")[1], seed, kw["margin"])] = found[0]["record"]
    summary = summarize(records, certs, preset, margins, args.letters, args.time_budget)
    return write_summary(summary, args.results_dir, name, table(summary), plot, args.no_plot)


if __name__ == "__main__":
    import sys

    sys.exit(main())
