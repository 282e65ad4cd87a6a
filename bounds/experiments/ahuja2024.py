"""``python -m bounds.experiments.reproduce ahuja2024 --table 1|2|3 --preset quick|paper [--json]`` (Ahuja & Mansouri sec. 4.5,
App. B): Tables 1-3 and Figures 2-4, printed beside the paper's numbers.

Protocols, data and measurements are in :mod:`bounds.experiments.ahuja2024_networks`; runs go through the shared engine
(:mod:`bounds.experiments.training`): one run per (architecture, class), all seeds batched, one JSON record per run written
atomically into the run folder ``--out`` the moment it finishes, so an interrupted command (even SIGKILL) resumes where it
stopped when rerun with the same arguments and ``--resume`` (a run folder with records is refused without it);
a progress bar shows runs and steps.  The summary (one record per
architecture with its test loss at every length, R^2, the settings and the machine's load) goes to
``--results`` (default ``docs/results/ahuja2024-table<k>-<preset>.json``) and the plot of test loss against
length per architecture to the same stem with ``.png`` and ``.svg``.

Tables 1 and 2 run two learner classes: ``paper`` (App. B: 2-hidden-layer sigmoid MLP heads, deep-set phi
too) and ``theorem`` (a single sigmoid layer, the perceptron heads of Assumptions 1, 5 and the RNN of eq. (28):
the classes the identification theorems are about).
"""

from __future__ import annotations

import json
import os
import sys
import time

from lengthgen_cli import Parser, UsageError, bounded_int, command, usage_errors
from lengthgen_cli.sweep import add_executor_options

PROG = "python -m bounds.experiments.reproduce ahuja2024"

PAPER_NUMBERS = {
    1: {"deepset": {"r2_20": "0.97 ± 0.01", "r2_100": "0.97 ± 0.01"},
        "transformer": {"r2_20": "0.99 ± 0.01", "r2_100": "0.99 ± 0.01"},
        "ssm": {"r2_20": "0.99 ± 0.01", "r2_100": "0.99 ± 0.01"},
        "rnn": {"r2_20": "0.99 ± 0.01", "r2_100": "0.99 ± 0.01"},
        "fig2": "test loss 1e-4 .. 1e-7 at every length up to 100"},
    2: {"deepset": {"loss_x1e6": "0.08 ± 0.02", "r2": "0.96 ± 0.01"},
        "transformer": {"loss_x1e6": "3.06 ± 1.11", "r2": "1.00 ± 0.00"},
        "ssm": {"loss_x1e6": "5.92 ± 2.47", "r2": "1.00 ± 0.00"},
        "rnn": {"loss_x1e6": "0.35 ± 0.17", "r2": "0.96 ± 0.01"}},
    3: {"deepset": {"long": {"lt": "0.001 ± 1e-4", "ge": "0.002 ± 3e-4"},
                    "short": {"lt": "0.0007 ± 1e-4", "ge": "0.007 ± 0.001"}},
        "transformer": {"long": {"lt": "0.0006 ± 1e-4", "ge": "0.006 ± 3e-3"},
                        "short": {"lt": "1e-5 ± 1e-6", "ge": "0.01 ± 0.003"}}},
}
CLASSES = {"paper": 2, "theorem": 0}  # hidden layers of rho (and of the deep set's phi)
# Theorem 9's permutation counts as recovered in a seed iff the assignment from the weights equals the one read
# off the hidden states and the learned (A, B, Lambda) lie within this relative distance of the permuted teacher
PERMUTATION_DISTANCE = 0.1
# a seed fits its training distribution iff its loss on fresh training sequences, divided by the label variance and
# averaged over the training lengths, is at most this (the student explains >= 99% of the label variance)
FIT_NORMALISED = 0.01
EXPOSED = 1e-3  # a readout direction counts as exposed if its eigenvalue of M = E[J^T J] is >= this x the largest


def specs(table: int, preset: str, seeds: int | None = None, steps: int | None = None,
          archs: tuple | None = None, schedule: str | None = None) -> list:
    """The runs of one table (``RunSpec`` per architecture and class / regime), only ``archs`` if given."""
    import hashlib

    from bounds.experiments.ahuja2024_networks import ARCHS, CAPACITY_ARCHS, PRESETS, preset_config
    from lengthgen_cli.sweep import RunSpec

    S = seeds or PRESETS[preset]["seeds"]
    out = []
    if table in (1, 2):
        experiment = "length" if table == 1 else "compositional"
        cells = [(a, c, None, None) for c in CLASSES for a in ARCHS]
        if table == 1:  # Fig. 3: the softmax-attention transformer with the paper's 2-hidden-layer head
            cells.append(("transformer", "paper", None, "softmax"))
    else:
        experiment = "capacity"
        cells = [(a, None, r, None) for a in CAPACITY_ARCHS for r in ("short", "long")]
    for arch, cls, regime, score in cells:
        if archs and arch not in archs:
            continue
        cfg = preset_config(preset, experiment, arch, regime)
        if cls is not None:
            cfg["layers"], cfg["learner_class"] = CLASSES[cls], cls
        if score:
            cfg["score"] = score
        if steps:
            cfg["steps"] = steps
        if schedule:
            cfg["schedule"] = schedule
        digest = hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:10]
        name = "/".join(x for x in (experiment, arch, cls, regime, score) if x)
        out.append(RunSpec(f"ahuja2024/{name}/seeds={S}/cfg={digest}", "bounds.experiments.ahuja2024_networks:run_one",
                           {"experiment": experiment, "arch": arch, "seeds": list(range(S)), "config": cfg}))
    return out


# ---------------------------------------------------------------------------------------------- summary
def _ms(xs):
    from bounds.experiments.ahuja2024_networks import mean_sd

    m, s = mean_sd(xs)
    return {"mean": m, "sd": s, "per_seed": [float(x) for x in xs]}


def summarize_run(full: dict) -> dict:
    """One table row (per architecture and class / regime) from an executor record."""
    import numpy as np

    r = full["record"]
    loss = np.array(r["test_loss"])  # (S, test_len)
    var = np.array(r["label_var"])
    model = r["arch"] + ("-softmax" if r["arch"] == "transformer" and r["config"].get("score") == "softmax" else "")
    row = {"key": full["key"], "arch": r["arch"], "model": model, "experiment": r["experiment"],
           "learner_class": r["config"].get("learner_class"), "regime": r["config"].get("capacity_regime"),
           "seeds": len(r["seeds"]), "train_len": r["train_len"], "test_len": r["test_len"],
           "train_seconds": r["train_seconds"], "wall_seconds": full["wall_seconds"],
           "final_train_loss": _ms(r["final_train_loss"]), "lr_factor": r["lr_factor"],
           "test_loss_by_length": loss.mean(axis=0).tolist(), "test_loss_per_seed": r["test_loss"],
           "label_var_by_length": var.mean(axis=0).tolist(), "settings": r["config"],
           "deviations": r.get("deviations")}
    fitted = None
    if "train_normalised_loss" in r:
        fitted = [bool(v <= FIT_NORMALISED) for v in r["train_normalised_loss"]]
        row["fit"] = {"normalised_loss": _ms(r["train_normalised_loss"]), "fitted": fitted,
                      "fitted_seeds": sum(fitted),
                      "criterion": "loss on fresh training sequences / label variance, averaged over the training "
                                   f"lengths, <= {FIT_NORMALISED}"}
        row["learning_curves"] = r.get("history")
    if "identification" in r:
        row["identification"] = {t: {k: _ms(v) for k, v in d.items() if k != "readout_spectrum"}
                                 for t, d in r["identification"].items()}
        if fitted is not None:
            for t, d in r["identification"].items():
                kept = [x for x, f in zip(d["r2"], fitted, strict=True) if f]
                row["identification"][t]["r2_fitted"] = _ms(kept) if kept else None
        for t, d in r["identification"].items():
            if "readout_spectrum" in d:
                spectra = np.array(d["readout_spectrum"])
                row["identification"][t]["readout_spectrum_mean"] = spectra.mean(axis=0).tolist()
                row["identification"][t]["exposed_directions"] = [int((sp >= EXPOSED).sum()) for sp in spectra]
        row["normalised_loss"] = {str(t): _ms(loss[:, t - 1] / var[:, t - 1]) for t in map(int, r["identification"])}
        last = r["test_len"]
        row["normalised_loss"].setdefault(str(last), _ms(loss[:, last - 1] / var[:, last - 1]))
    if "permutation" in r:
        recovered = [bool(p["weights_and_states_agree"] and p["distance"] <= PERMUTATION_DISTANCE)
                     for p in r["permutation"]]
        row["permutation"] = {"distance": _ms([p["distance"] for p in r["permutation"]]),
                              "distance_identity": _ms([p["distance_identity"] for p in r["permutation"]]),
                              "weights_and_states_agree": sum(p["weights_and_states_agree"] for p in r["permutation"]),
                              "recovered": recovered, "recovered_seeds": sum(recovered),
                              "criterion": "the assignment from the weights equals the one from the hidden states "
                                           f"and the relative weight distance to the permuted teacher is <= "
                                           f"{PERMUTATION_DISTANCE}",
                              "per_seed": r["permutation"]}
    if "exemplar" in r:
        row["exemplar"] = r["exemplar"]
    if "threshold" in r:
        row["threshold"] = r["threshold"][0]
        row["loss_le_T0"], row["loss_gt_T0"] = _ms(r["loss_le_T0"]), _ms(r["loss_gt_T0"])
        if fitted and any(fitted):
            row["loss_gt_T0_fitted"] = _ms([x for x, f in zip(r["loss_gt_T0"], fitted, strict=True) if f])
        row["reference_c2"] = r["reference_c2"]
    return row


def _f(d, fmt=".3f"):
    return f"{d['mean']:{fmt}} ± {d['sd']:{fmt}}"


def _fitted(r) -> str:
    f = r.get("fit")
    return "-" if f is None else f"{f['fitted_seeds']}/{len(f['fitted'])}"


def format_table(table: int, rows: list) -> str:
    P = PAPER_NUMBERS[table]
    lines = []
    if table == 1:
        lines.append("Table 1 / Fig. 2: R^2 (affine map learned -> true hidden states, pooled over positions <= t), "
                     "test loss and loss / Var(y_t); mean ± sd over seeds")
        lines.append(f"{'class':8} {'model':12} {'fit':>4} {'R2 t=20':>15} {'R2 t=100':>15} {'paper':>13} "
                     f"{'R2 init':>7} {'R2/pos t=100':>12} {'R2_M t=100':>15} {'exposed':>8} {'loss t=20':>10} "
                     f"{'loss t=100':>10} {'Var t=100':>10} {'loss/Var':>9}")
        for r in rows:
            i = r["identification"]
            lo, hi = sorted(i, key=int)[0], sorted(i, key=int)[-1]
            lt, v = r["test_loss_by_length"], r["label_var_by_length"]
            paper = P.get(r["model"], {}).get("r2_20", "(Fig. 3)")
            weighted = _f(i[hi]["r2_label_weighted"]) if "r2_label_weighted" in i[hi] else "-"
            exposed = "/".join(map(str, i[hi].get("exposed_directions", []))) or "-"
            lines.append(f"{r['learner_class']:8} {r['model']:12} {_fitted(r):>4} {_f(i[lo]['r2']):>15} "
                         f"{_f(i[hi]['r2']):>15} {paper:>13} {i[hi]['r2_at_init']['mean']:7.3f} "
                         f"{i[hi]['r2_per_position']['mean']:12.3f} {weighted:>15} {exposed:>8} {lt[int(lo) - 1]:10.2e} "
                         f"{lt[int(hi) - 1]:10.2e} {v[int(hi) - 1]:10.2e} {r['normalised_loss'][hi]['mean']:9.3g}")
        lines.append("R2_M: the same fit scored in the metric M = E[J^T J] of the teacher's readout (label-relevant "
                     f"directions); exposed: directions with eigenvalue >= {EXPOSED} x the largest, per seed; fit: seeds "
                     f"whose loss / label variance on the training lengths is <= {FIT_NORMALISED}")
        for r in rows:
            hi = sorted(r["identification"], key=int)[-1]
            r2f = r["identification"][hi].get("r2_fitted")
            if r2f:
                lines.append(f"{r['learner_class']} {r['model']}: R2 t=100 over the fitted seeds {_f(r2f)}")
        for r in rows:
            if "permutation" in r:
                pm = r["permutation"]
                lines.append(f"{r['learner_class']} {r['model']}: Theorem 9's permutation recovered in "
                             f"{pm['recovered_seeds']} of {len(pm['recovered'])} seeds ({pm['criterion']}); distance "
                             f"{_f(pm['distance'])}, without permutation {_f(pm['distance_identity'])}")
        lines.append(f"paper Fig. 2: {P['fig2']}")
    elif table == 2:
        lines.append("Table 2: compositional generalization at t = 10 (corner test support); mean ± sd over seeds")
        lines.append(f"{'class':8} {'model':12} {'fit':>4} {'loss x1e6':>17} {'paper':>12} {'R2':>15} {'paper':>11} "
                     f"{'R2 init':>7} {'loss/Var':>9}")
        for r in rows:
            t = str(r["test_len"])
            per_seed = [s[-1] * 1e6 for s in r["test_loss_per_seed"]]
            lines.append(f"{r['learner_class']:8} {r['arch']:12} {_fitted(r):>4} {_f(_ms(per_seed), '.2f'):>17} "
                         f"{P[r['arch']]['loss_x1e6']:>12} {_f(r['identification'][t]['r2']):>15} "
                         f"{P[r['arch']]['r2']:>11} {r['identification'][t]['r2_at_init']['mean']:7.3f} "
                         f"{r['normalised_loss'][t]['mean']:9.3g}")
    else:
        lines.append("Table 3 / Fig. 4: high capacity, teacher f + c[t > T0] (exact, in the class); T0 by "
                     "Theorem 10's exact threshold; mean ± sd over seeds")
        lines.append(f"{'model':12} {'fit':>4} {'trained on':>12} {'T0':>3} {'loss t<=T0':>19} {'paper t<T0':>15} "
                     f"{'loss t>T0':>19} {'paper t>=T0':>15} {'c^2':>6}")
        for r in rows:
            reg = r["regime"]
            p = P[r["arch"]][reg]
            lines.append(f"{r['arch']:12} {_fitted(r):>4} {'t <= ' + str(r['train_len']):>12} {r['threshold']['paper_T0']:3d} "
                         f"{_f(r['loss_le_T0'], '.2e'):>19} {p['lt']:>15} {_f(r['loss_gt_T0'], '.2e'):>19} "
                         f"{p['ge']:>15} {r['reference_c2']:6.3f}")
    return "\n".join(lines)


def figures(table: int, rows: list) -> dict:
    """Test loss against length per architecture, label variance dashed (the mean predictor), and for Table 1
    Fig. 3: ``{suffix: Figure}`` ("" and "-fig3"), not saved."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted({r["learner_class"] or r["regime"] for r in rows})
    fig, axes = plt.subplots(1, len(groups), figsize=(5.5 * len(groups), 4), squeeze=False)
    for ax, g in zip(axes[0], groups, strict=True):
        for r in rows:
            if (r["learner_class"] or r["regime"]) != g:
                continue
            t = list(range(1, len(r["test_loss_by_length"]) + 1))
            (line,) = ax.semilogy(t, r["test_loss_by_length"], label=f"{r['model']} test loss")
            ax.semilogy(t, r["label_var_by_length"], "--", color=line.get_color(), alpha=0.6,
                        label=f"{r['model']} Var(y_t)")
            if "threshold" in r:
                ax.axvline(r["threshold"]["paper_T0"] + 0.5, color=line.get_color(), ls=":")
        ax.axvline(rows[0]["train_len"] + 0.5, color="grey", lw=0.8)
        ax.set_xlabel("sequence length t")
        ax.set_ylabel("test MSE")
        ax.set_title(f"ahuja2024 table {table}: {g}")
        ax.legend(fontsize=7)
    out = {"": fig}
    ex = [r for r in rows if r.get("model") == "transformer-softmax" and "exemplar" in r]
    if ex:  # Fig. 3: the softmax transformer tracking one test sequence up to the longest length
        e = ex[0]["exemplar"]
        fig, ax = plt.subplots(figsize=(6, 3.5))
        t = list(range(1, len(e["true"]) + 1))
        ax.plot(t, e["true"], label="teacher f (true label)")
        ax.plot(t, e["pred"], "--", label="student h (softmax transformer)")
        ax.axvline(ex[0]["train_len"] + 0.5, color="grey", lw=0.8)
        ax.set_xlabel("position t")
        ax.set_ylabel(f"label coordinate {e['coordinate']}")
        ax.set_title(f"ahuja2024 Fig. 3: one test sequence (trained on t <= {ex[0]['train_len']})")
        ax.legend(fontsize=8)
        out["-fig3"] = fig
    return out


def plot(table: int, rows: list, json_path: str) -> list:
    """Draw :func:`figures` beside the results file (its stem, PNG + SVG, arrays embedded)."""
    from lengthgen_cli.figure_data import save

    stem, source = os.path.splitext(json_path)[0], os.path.basename(json_path)
    return [p for suffix, fig in figures(table, rows).items() for p in save(fig, stem + suffix, source, dpi=100,
                                                                          within=os.path.dirname(stem) or ".")]


# ------------------------------------------------------------------------------------------------- CLI
MAX_SEEDS, MAX_STEPS, MAX_WORKERS = 64, 10**6, 256


def _parser() -> Parser:
    p = Parser(module="bounds.experiments.reproduce ahuja2024", description=__doc__.split("\n\n")[0])
    p.add_argument("--table", type=int, choices=(1, 2, 3), required=True, help="the paper's table (1, 2 or 3)")
    p.add_argument("--preset", choices=("quick", "cpu", "paper", "tiny"), default="quick",
                   help="quick: this CPU (minutes); cpu: trained until the students fit (2-core CPU); paper: App. B settings (hours on a CPU); tiny: seconds (tests)")
    p.add_argument("--seeds", type=bounded_int(1, MAX_SEEDS, "MAX_SEEDS"), help="seeds per run (default: the preset's)")
    p.add_argument("--steps", type=bounded_int(1, MAX_STEPS, "MAX_STEPS"),
                   help="optimizer steps per run (default: the preset's)")
    p.add_argument("--schedule", choices=("plateau", "constant", "cosine"),
                   help="learning-rate schedule (default: the preset's, App. B's ReduceLROnPlateau)")
    p.add_argument("--archs", help="comma-separated subset of the architectures (default: all of the table's)")
    p.add_argument("--out", help="run folder, one JSON record per run (default runs/ahuja2024/<preset>/table<k>)")
    p.add_argument("--resume", action="store_true", help="continue a run folder that already has records")
    p.add_argument("--results", help="summary JSON, replaced (default docs/results/ahuja2024-table<k>-<preset>.json); "
                                     "the plots go beside it")
    add_executor_options(p, MAX_WORKERS, ray_address=False)
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of the table")
    return p


def _check_paths(runs: str, resume: bool, results: str) -> None:
    """Refuse bad paths before any work: the run folder (a file; records without --resume) and --results."""
    if os.path.exists(runs) and not os.path.isdir(runs):
        raise UsageError(f"--out {runs!r} is a file, not a run folder")
    if os.path.isdir(runs) and not resume and any(f.endswith(".json") for f in os.listdir(runs)):
        raise UsageError(f"the run folder {runs!r} already has records; add --resume to continue it")
    from lengthgen_cli.output import check_target, json_object_with

    check_target(results, what="--results", recognise=json_object_with(paper="ahuja2024"))
    stem = os.path.splitext(results)[0]
    for suffix in ("", "-fig3"):  # the figures plot() saves beside the results file
        for ext in (".png", ".svg"):
            check_target(stem + suffix + ext, what="figure")


@command
def main(argv: list[str] | None = None) -> int:
    p = _parser()
    a = p.parse_args(argv)
    from bounds.experiments.ahuja2024_networks import ARCHS, ExperimentError
    from lengthgen_cli.output import check_output_folder
    from lengthgen_cli.sweep import check_executor

    with usage_errors(p, ExperimentError):
        archs = tuple(a.archs.split(",")) if a.archs else None
        if archs and not set(archs) <= set(ARCHS):
            raise UsageError(f"--archs must name architectures among {', '.join(ARCHS)}, got {a.archs!r}")
        runs = a.out or os.path.join("runs", "ahuja2024", a.preset, f"table{a.table}")
        results = a.results or os.path.join("docs", "results", f"ahuja2024-table{a.table}-{a.preset}.json")
        _check_paths(runs, a.resume, results)
        check_output_folder(runs, "--out")
        check_executor(a.executor, a.workers)
        todo = specs(a.table, a.preset, a.seeds, a.steps, archs, a.schedule)
        if not todo:
            raise UsageError(f"table {a.table} has none of the architectures {a.archs!r}")
    from bounds.experiments.training.progress import SweepProgress
    from lengthgen_cli.sweep import SweepError, load_records, recorded, run_specs

    already = sum(recorded(runs, s) for s in todo)
    progress = SweepProgress(len(todo), already, desc=f"ahuja2024 table {a.table} ({a.preset})")
    load0, t0 = os.getloadavg(), time.time()
    try:
        with usage_errors(p, SweepError):
            run_specs(todo, runs, executor=a.executor, workers=a.workers, on_record=progress.record_done,
                      on_steps=progress.steps)
    finally:
        progress.close()
    rows = [summarize_run(r) for r in load_records(runs, todo)]
    order = {s.key: i for i, s in enumerate(todo)}
    rows.sort(key=lambda r: order[r["key"]])
    summary = {"paper": "ahuja2024", "table": a.table, "preset": a.preset, "runs": runs,
               "command": f"{PROG} --table {a.table} --preset {a.preset}",
               "machine": {"cpus": os.cpu_count(), "loadavg_start": load0, "loadavg_end": os.getloadavg()},
               "wall_seconds_this_call": round(time.time() - t0, 1),
               "wall_seconds_runs": round(sum(r["wall_seconds"] for r in rows), 1),
               "paper_numbers": PAPER_NUMBERS[a.table], "records": rows,
               "plots": [os.path.basename(x) for x in plot(a.table, rows, results)]}
    from lengthgen_cli.output import write_atomic

    write_atomic(results, summary)
    if a.json:
        json.dump(summary, sys.stdout)
        print()
    else:
        print(format_table(a.table, rows))
        print(f"wall time of the runs: {summary['wall_seconds_runs']:.0f} s; results: {results}; "
              f"plots: {', '.join(summary['plots'])}")
    return 0
