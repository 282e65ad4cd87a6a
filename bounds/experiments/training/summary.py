"""Measured thresholds from sweep records: N_min(eps) per task with its spread over seeds, and fitted slopes.

Definitions (used by ``python -m bounds.experiments.measure``, the committed results and the plots):

* ``plateau`` of a run: its test MSE averaged over test lengths [plateau_from * N, max * N]
  (:mod:`bounds.experiments.training.train`).
* ``n_min`` of a task: the smallest training length N of the grid whose seed-mean plateau is < eps
  (``None`` if none is) -- the quantity of Figure 1 (right) and Figure 2 (right).
* ``n_min_per_seed``: the same for seed index s alone (runs of seed index s at every N); its min / median / max
  is the spread over seeds.  ``None`` entries (seed s never below eps) are kept and counted.
* ``n_min_median``: smallest N whose seed-median plateau is < eps (robust to one diverged seed);
* ``n_min_stable``: the smallest N from which the seed-mean plateau stays < eps at every larger N of the grid;
  ``n_min_all_seeds``: smallest N where every seed is < eps; ``n_min_converged``: smallest N whose mean over
  the runs that reached the training-loss target is < eps (Theorem 4.1's hypothesis: the model fits the task).

Rows are keyed by N (duplicates in a grid collapse; the order of the grid does not matter) and a seed counts
once per N however many records repeat it.
"""

from __future__ import annotations

import math
import statistics


def runs_by_length(records: list[dict]) -> dict[int, dict[int, dict]]:
    """{N: {seed: run}} from sweep records (``record["record"]`` of :func:`run_specs`, or the bare records)."""
    out: dict[int, dict[int, dict]] = {}
    for r in records:
        rec = r.get("record", r)
        for run in rec["runs"]:
            out.setdefault(rec["N"], {}).setdefault(run["seed"], run)
    return out


def summarize(records: list[dict], eps: float) -> dict:
    """Per-N rows (sorted by N) and the thresholds defined in the module docstring."""
    by_n = runs_by_length(records)
    rows = []
    for n in sorted(by_n):
        runs = [by_n[n][s] for s in sorted(by_n[n])]
        plateaus = [r["plateau"] for r in runs]
        conv = [r["plateau"] for r in runs if r["reached_target"]]
        rows.append({
            "N": n, "seeds": len(runs), "plateau_mean": statistics.fmean(plateaus), "plateau_max": max(plateaus),
            "plateau_median": statistics.median(plateaus),
            "plateau_min": min(plateaus), "plateau_per_seed": {str(r["seed"]): r["plateau"] for r in runs},
            "train_loss_mean": statistics.fmean(r["train_loss"] for r in runs),
            "test_loss_mean": {m: statistics.fmean(r["test_loss"][m] for r in runs) for m in runs[0]["test_loss"]},
            "reached_target": len(conv), "plateau_mean_converged": statistics.fmean(conv) if conv else None,
            "steps_max": max(r["steps"] for r in runs),
        })
    seeds = sorted({s for n in by_n for s in by_n[n]})
    per_seed = {}
    for s in seeds:
        below = [n for n in sorted(by_n) if s in by_n[n] and by_n[n][s]["plateau"] < eps]
        per_seed[str(s)] = below[0] if below else None
    stable = None
    for row in reversed(rows):
        if row["plateau_mean"] >= eps:
            break
        stable = row["N"]
    found = [v for v in per_seed.values() if v is not None]
    return {
        "eps": eps, "rows": rows,
        "n_min": next((row["N"] for row in rows if row["plateau_mean"] < eps), None),
        "n_min_per_seed": per_seed,
        "n_min_spread": {"min": min(found) if found else None, "median": statistics.median(found) if found else None,
                         "max": max(found) if found else None, "seeds_without": len(per_seed) - len(found)},
        "n_min_stable": stable,
        "n_min_median": next((row["N"] for row in rows if row["plateau_median"] < eps), None),
        "n_min_all_seeds": next((row["N"] for row in rows if row["plateau_max"] < eps), None),
        "n_min_converged": next((row["N"] for row in rows if row["plateau_mean_converged"] is not None
                                 and row["plateau_mean_converged"] < eps), None),
    }


def fit_line(xs: list[float], ys: list[float], level: float = 0.95) -> dict | None:
    """Least-squares line y = a + b x with a ``level`` two-sided t confidence interval on the slope b.

    Needs >= 3 points and >= 2 distinct x (else ``None``).  The interval assumes independent errors with equal
    variance around the line; with few points it is wide, and it is reported, not hidden."""
    from scipy import stats

    if len(xs) < 3 or len(set(xs)) < 2:
        return None
    r = stats.linregress(xs, ys)
    t = stats.t.ppf(0.5 + level / 2, len(xs) - 2)
    half = t * r.stderr
    return {"slope": r.slope, "intercept": r.intercept, "slope_ci": [r.slope - half, r.slope + half],
            "level": level, "points": len(xs), "r2": r.rvalue ** 2 if math.isfinite(r.rvalue) else None}


def slope_over_seeds(per_param: dict[float, dict]) -> dict | None:
    """Fit N_min against the task parameter (p or omega) over every seed's own N_min (seeds that never
    reached eps are left out and counted)."""
    xs, ys, missing = [], [], 0
    for x, summ in per_param.items():
        for v in summ["n_min_per_seed"].values():
            if v is None:
                missing += 1
            else:
                xs.append(float(x))
                ys.append(float(v))
    fit = fit_line(xs, ys)
    if fit is not None:
        fit["seeds_left_out"] = missing
    return fit
