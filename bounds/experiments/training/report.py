"""Summaries of an Izzo et al. sweep: per task the measured N_min, the prediction, their ratio, the curves.

:func:`summaries` is what ``python -m bounds.experiments.measure`` prints and what the committed results
(``docs/results/izzo2025-{modp,simple}-<preset>.json``) hold; the plots and the claim tests read those files.
Per task: ``summary`` (:func:`bounds.experiments.training.summary.summarize`), ``predicted`` (``bounds.estimate`` for the
App. A.2 construction at eps' = sqrt(eps): the measured eps is a mean squared error, the theorem's an error
size), ``ratio_predicted_over_measured``, the settings and App. B deviations, the seed-mean test curve per N
(Figures 1-2, left) and, for ModP, the Figure 3 attention numbers per N.
"""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

from bounds.experiments.training.summary import slope_over_seeds, summarize


def predicted(task_kind: str, params: dict, eps: float) -> dict:
    """``bounds.estimate`` for the App. A.2 construction at the error scale sqrt(eps)."""
    from bounds.estimate import construction_prediction

    return construction_prediction(task_kind, params, eps)


def refresh_predictions(summary: dict) -> dict:
    """``summary`` (a stored results file) with every task's ``predicted`` and ``ratio_predicted_over_measured``
    recomputed by :func:`predicted` at the file's ``eps``: what a sweep would store today, without its runs (the
    prediction depends on the task and eps only).  The measurements are left as they are."""
    tasks = []
    for t in summary["tasks"]:
        pred = predicted(t["task_kind"], t["params"], summary["eps"])
        tasks.append({**t, "predicted": pred,
                      "ratio_predicted_over_measured": pred["N"] / t["n_min"] if t["n_min"] else None})
    return {**summary, "tasks": tasks}


def _mean_curves(records: list[dict]) -> dict:
    out = {}
    for r in records:
        rec = r["record"]
        curves = [run["test_curve"] for run in rec["runs"]]
        out[str(rec["N"])] = [float(f"{statistics.fmean(c[i] for c in curves):.4g}") for i in range(len(curves[0]))]
    return out


def _attention(records: list[dict]) -> dict:
    out = {}
    for r in records:
        rec = r["record"]
        atts = [run["attention"] for run in rec["runs"] if "attention" in run]
        if not atts:
            continue
        out[str(rec["N"])] = {
            "length": atts[0]["length"], "uniform_class": atts[0]["uniform_class"],
            "per_seed": [{k: a[k] for k in ("per_key_class", "per_key_class_std", "per_key_other",
                                            "per_key_other_std", "mass_class")} | {"seed": run["seed"],
                                                                                  "reached_target": run["reached_target"],
                                                                                  "plateau": run["plateau"]}
                         for a, run in zip(atts, rec["runs"], strict=True)]}
    return out


def trained_model(records: list[dict], n_min: int | None, eps: float) -> dict:
    """Theorem 4.1 ingredients of a trained model itself: the run at N = n_min (the largest N if none), its
    first seed that reached the training-loss target (else seed 0), converted exactly
    (:mod:`bounds.certify.trained`); gamma (completed), L, and the estimate at eps' = sqrt(eps) for p = 8 and
    p = 53 bits, as log10 (the hardmax terms 2^{p/gamma} are astronomically large)."""
    from bounds.certify.trained import from_record
    from bounds.estimate import sample_length
    from bounds.margin import ingredients
    by_n = {r["record"]["N"]: r["record"] for r in records}
    rec = by_n[n_min] if n_min in by_n else by_n[max(by_n)]
    i = next((k for k, run in enumerate(rec["runs"]) if run["reached_target"]), 0)
    ing = ingredients(from_record(rec, i, precision_bits=8))
    pred_eps = Fraction(math.sqrt(eps)).limit_denominator(10**6)
    sl = sample_length(ing.tau, ing.period, ing.L2, pred_eps)
    h8, h53 = (p / float(ing.gamma) * math.log10(2) for p in (8, 53))
    return {"N": rec["N"], "seed": rec["runs"][i]["seed"], "reached_target": rec["runs"][i]["reached_target"],
            "plateau": rec["runs"][i]["plateau"], "gamma": float(ing.gamma), "L": ing.L, "tau": ing.tau,
            "period": ing.period, "eps": str(pred_eps), "sample_length": sl, "log10_hardmax_p8": h8,
            "log10_hardmax_p53": h53, "log10_N_p8": max(math.log10(sl), h8), "log10_N_p53": max(math.log10(sl), h53)}


def task_param(t: dict) -> float:
    """p for ModP, omega for SimpleTask (the x of Figure 1/2 right)."""
    return float(t["params"]["period"]) if t["task_kind"] == "modp" else float(Fraction(t["params"]["omega"]))


def summaries(records: list[dict], eps: float, preset) -> dict:
    """Group records by task and summarize each (see the module docstring); slopes per task kind."""
    groups: dict[str, list[dict]] = {}
    for r in records:
        groups.setdefault(r["record"]["task"], []).append(r)
    tasks = []
    for label, recs in groups.items():
        first = recs[0]["record"]
        summ = summarize(recs, eps)
        pred = predicted(first["task_kind"], first["task_params"], eps)
        n_min = summ["n_min"]
        tasks.append({
            "task": label, "task_kind": first["task_kind"], "params": first["task_params"],
            "grid": sorted(r["record"]["N"] for r in recs), "seeds": first["seeds"], "settings": first["config"],
            "deviations": first["deviations"], "device": first["device"], "torch": first["torch"],
            "train_seconds": round(sum(r["record"]["train_seconds"] for r in recs), 1),
            "wall_seconds": round(sum(r["wall_seconds"] for r in recs), 1),
            "n_min": n_min, "n_min_spread": summ["n_min_spread"], "predicted": pred,
            "ratio_predicted_over_measured": pred["N"] / n_min if n_min else None,
            "summary": summ, "test_curves": _mean_curves(recs), "attention": _attention(recs),
            "trained_model": trained_model(recs, n_min, eps),
        })
    tasks.sort(key=lambda t: (t["task_kind"], task_param(t)))
    slopes = {}
    for kind in ("modp", "simple"):
        mine = {task_param(t): t["summary"] for t in tasks if t["task_kind"] == kind}
        if mine:
            slopes[kind] = slope_over_seeds(mine)
    return {"experiment": "izzo2025", "preset_description": preset.description, "tasks": tasks, "slopes": slopes}
