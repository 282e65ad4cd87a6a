"""Figures of a measured-threshold sweep (matplotlib, PNG + SVG), drawn from its summary files only.

    python -m bounds.experiments.training.plots docs/results/izzo2025-modp-quick.json docs/results/izzo2025-simple-quick.json \\
        --out docs/results/figures --name quick

Per task kind (``modp``: Figure 2, ``simple``: Figure 1 of Izzo et al.):

* ``<kind>-test-loss``: test MSE against test length, one curve per training length N (seed mean), one panel
  per p or omega (left panes);
* ``<kind>-plateau``: the plateau against N (seed mean, min-max band over seeds), eps dashed (middle panes);
  for ModP also against N / p (right pane of Figure 2: the curves should overlap);
* ``<kind>-nmin``: N_min(eps) against p or omega, every seed's own N_min, the seed-mean N_min, the fitted line
  with its 95% confidence band (left); beside it (log scale) the Theorem 4.1 bracket lower <= N* <= upper of
  ``bounds.estimate`` for the class and the measured N_min (right);
* ``modp-attention``: Figure 3, per training length the attention weight per key on positions = k (mod p) and
  elsewhere (mean +- std over the batch, per seed), 1/(class size) dashed.

The summary files are the input (not the raw runs), so the committed figures can be redrawn from committed data
(``python -m bounds.experiments.figures`` redraws every figure under ``docs/results``).
"""

from __future__ import annotations

import json
import os

from lengthgen_cli import Parser, UsageError, command, require_regular_file, usage_errors


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _pname(t: dict) -> str:
    return f"p = {t['params']['period']}" if t["task_kind"] == "modp" else f"omega = {t['params']['omega']}"


def _x(t: dict) -> float:
    from bounds.experiments.training.report import task_param

    return task_param(t)


def test_loss_figure(summary: dict, kind: str, name: str):
    plt = _plt()
    tasks = [t for t in summary["tasks"] if t["task_kind"] == kind]
    fig, axes = plt.subplots(1, len(tasks), figsize=(3.6 * len(tasks), 3.2), squeeze=False)
    for ax, t in zip(axes[0], tasks, strict=True):
        cmap = plt.get_cmap("viridis")
        ns = sorted(int(n) for n in t["test_curves"])
        for i, n in enumerate(ns):
            curve = t["test_curves"][str(n)]
            ax.plot(range(1, len(curve) + 1), curve, color=cmap(i / max(1, len(ns) - 1)), lw=1, label=f"N = {n}")
        ax.set_yscale("log")
        ax.set_xscale("log")
        ax.axhline(summary["eps"], color="k", ls="--", lw=0.8)
        ax.set_title(_pname(t))
        ax.set_xlabel("test length T'")
    axes[0][0].set_ylabel("test MSE (seed mean)")
    axes[0][-1].legend(fontsize=6, loc="lower left")
    fig.suptitle(f"{kind}: test loss against test length per training length ({name} preset)", fontsize=9)
    return fig


def plateau_figure(summary: dict, kind: str, name: str):
    plt = _plt()
    tasks = [t for t in summary["tasks"] if t["task_kind"] == kind]
    panels = 2 if kind == "modp" else 1
    fig, axes = plt.subplots(1, panels, figsize=(4.6 * panels, 3.4), squeeze=False)
    for t in tasks:
        rows = t["summary"]["rows"]
        ns = [r["N"] for r in rows]
        for ax, scale in zip(axes[0], (1, _x(t)), strict=False):
            xs = [n / scale for n in ns]
            line, = ax.plot(xs, [r["plateau_mean"] for r in rows], marker="o", ms=3, label=_pname(t))
            ax.fill_between(xs, [r["plateau_min"] for r in rows], [r["plateau_max"] for r in rows],
                            color=line.get_color(), alpha=0.15)
    for ax, xl in zip(axes[0], ("training length N", "N / p"), strict=False):
        ax.set_yscale("log")
        ax.axhline(summary["eps"], color="k", ls="--", lw=0.8)
        ax.set_xlabel(xl)
        ax.set_ylabel("plateau MSE (seed mean; band: min-max)")
        ax.legend(fontsize=7)
    fig.suptitle(f"{kind}: limiting test loss against training length ({name} preset)", fontsize=9)
    return fig


def nmin_figure(summary: dict, kind: str, name: str):
    import numpy as np

    plt = _plt()
    tasks = [t for t in summary["tasks"] if t["task_kind"] == kind]
    fit = summary.get("slope")
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.6))
    ax = axes[0]
    xs_all = [_x(t) for t in tasks]
    for t in tasks:
        per = [v for v in t["summary"]["n_min_per_seed"].values() if v is not None]
        x = _x(t)
        ax.scatter([x + 0.04 * (i - len(per) / 2) for i in range(len(per))], per, s=10, color="C0", alpha=0.6)
        if t["n_min"] is not None:
            ax.scatter([x], [t["n_min"]], marker="D", color="C3", s=30, zorder=3)
    ax.scatter([], [], s=10, color="C0", label="per-seed N_min")
    ax.scatter([], [], marker="D", color="C3", label="N_min of the seed mean")
    if fit:
        grid = np.linspace(min(xs_all), max(xs_all), 50)
        ax.plot(grid, fit["intercept"] + fit["slope"] * grid, color="k", lw=1,
                label=f"fit: slope {fit['slope']:.2f} [{fit['slope_ci'][0]:.2f}, {fit['slope_ci'][1]:.2f}]")
    ax.set_xlabel("p" if kind == "modp" else "omega")
    ax.set_ylabel(f"N_min (plateau < {summary['eps']})")
    ax.legend(fontsize=7)
    ax = axes[1]
    upper = [t["predicted"]["N"] for t in tasks]
    ax.plot(xs_all, upper, marker="s", color="C0", label="upper: proved N* <= (bounds.estimate)")
    bracket = [(x, t["predicted"]["lower_N"], t["predicted"]["N"]) for x, t in zip(xs_all, tasks, strict=True)
               if t["predicted"].get("lower_N") is not None]
    if bracket:
        bx, lo, hi = zip(*bracket, strict=True)
        ax.plot(bx, lo, marker="^", color="C2", label="lower: certified N* >= (worst pair of the class)")
        ax.fill_between(bx, lo, hi, color="C0", alpha=0.12, label="bracket lower <= N* <= upper")
    meas = [(x, t["n_min"]) for x, t in zip(xs_all, tasks, strict=True) if t["n_min"] is not None]
    ax.plot([m[0] for m in meas], [m[1] for m in meas], marker="D", color="C3", label="measured N_min (test loss of the trained seeds)")
    ax.set_yscale("log")
    ax.set_xlabel("p" if kind == "modp" else "omega")
    ax.set_ylabel("training length")
    ax.legend(fontsize=7)
    fig.suptitle(f"{kind}: measured N_min against the Theorem 4.1 bracket ({name} preset)", fontsize=9)
    return fig


def attention_figure(summary: dict, name: str, period: int = 5):
    plt = _plt()
    t = next((t for t in summary["tasks"] if t["task_kind"] == "modp" and int(t["params"]["period"]) == period), None)
    if t is None or not t["attention"]:
        return None
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ns = sorted(int(n) for n in t["attention"])
    for j, n in enumerate(ns):
        a = t["attention"][str(n)]
        for i, s in enumerate(a["per_seed"]):
            x = j + 0.08 * (i - len(a["per_seed"]) / 2)
            ax.errorbar([x], [s["per_key_class"]], yerr=[s["per_key_class_std"]], fmt="o", ms=3, color="C0")
            ax.errorbar([x], [s["per_key_other"]], yerr=[s["per_key_other_std"]], fmt="s", ms=3, color="C1")
    ax.axhline(t["attention"][str(ns[0])]["uniform_class"], color="k", ls="--", lw=0.8)
    ax.errorbar([], [], fmt="o", color="C0", label="keys at positions = k (mod p)")
    ax.errorbar([], [], fmt="s", color="C1", label="other keys")
    ax.set_xticks(range(len(ns)), [str(n) for n in ns])
    ax.set_xlabel("training length N (each point one seed)")
    ax.set_ylabel(f"attention weight per key at length {t['attention'][str(ns[0])]['length']}")
    ax.legend(fontsize=7)
    fig.suptitle(f"ModP p = {period}: attention of the last position (Figure 3; {name} preset)", fontsize=9)
    return fig


#: every figure stem :func:`figures` may draw (the files a --plots folder may receive, checked before a sweep)
STEMS = tuple(f"{kind}-{what}" for kind in ("modp", "simple") for what in ("test-loss", "plateau", "nmin")) + (
    "modp-attention",)


def figures(summary: dict, name: str) -> dict:
    """Every figure for the task kinds present in ``summary`` (one results file, or the merged CLI summary):
    ``{(kind, stem): matplotlib Figure}``, not saved."""
    out = {}
    for kind in ("modp", "simple"):
        if not any(t["task_kind"] == kind for t in summary["tasks"]):
            continue
        part = {**summary, "tasks": [t for t in summary["tasks"] if t["task_kind"] == kind],
                "slope": summary.get("slope") if "slopes" not in summary else summary["slopes"].get(kind)}
        out[(kind, f"{kind}-test-loss")] = test_loss_figure(part, kind, name)
        out[(kind, f"{kind}-plateau")] = plateau_figure(part, kind, name)
        out[(kind, f"{kind}-nmin")] = nmin_figure(part, kind, name)
        if kind == "modp":
            att = attention_figure(part, name)
            if att is not None:
                out[(kind, "modp-attention")] = att
    return out


def source_name(kind: str, name: str) -> str:
    """The results file a kind's figures are drawn from (``bounds.experiments.measure`` writes it for a preset)."""
    return f"izzo2025-{kind}-{name}.json"


def plot_summary(summary: dict, out_dir: str, name: str) -> list[str]:
    """Draw :func:`figures` into ``out_dir`` (PNG + SVG, each with its plotted arrays embedded:
    :mod:`lengthgen_cli.figure_data`)."""
    from lengthgen_cli.figure_data import save

    paths = []
    for (kind, stem), fig in figures(summary, name).items():
        paths += save(fig, os.path.join(out_dir, stem), source_name(kind, name), within=out_dir)
    return paths


@command
def main(argv=None) -> int:
    ap = Parser(module="bounds.experiments.training.plots", description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="summary JSON files (izzo2025-<kind>-<preset>.json)")
    ap.add_argument("--out", required=True, metavar="DIR", help="the folder the figures are written to (only there)")
    ap.add_argument("--name", default="", help="the preset name in the figures' file names (default: the summary's)")
    args = ap.parse_args(argv)
    with usage_errors(ap):
        summaries = []
        for path in args.results:
            try:
                summary = json.loads(require_regular_file(path, "results file").read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
                raise UsageError(f"cannot read the results file {path}: {str(e).splitlines()[0] if str(e) else e}") \
                    from None
            if not isinstance(summary, dict) or not isinstance(summary.get("tasks"), list):
                raise UsageError(f"{path} is not a summary of bounds.experiments.measure (no list 'tasks')")
            summaries.append(summary)
        for summary in summaries:
            try:
                paths = plot_summary(summary, args.out, args.name or str(summary.get("preset", "")))
            except (KeyError, TypeError, ValueError) as e:
                raise UsageError(f"a results file is not a summary of bounds.experiments.measure ({e!r})") from None
            for p in paths:
                print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
