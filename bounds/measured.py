"""``python -m bounds.estimate --task modp --measured RESULTS``: the bracket for the task's class beside measured N_min.

RESULTS is a summary written by ``python -m bounds.experiments.measure --preset ...`` (``docs/results/izzo2025-<kind>-
<preset>.json``).  For every task of the requested kind in it, this prints the prediction of ``bounds.estimate``
for the App. A.2 construction (recomputed now, at the error scale the results file used: sqrt of its MSE eps),
the certified lower bound of the same class (:mod:`bounds.lower`), the measured ``n_min`` with its spread over
seeds, and the ratio predicted / measured; and, where the results hold them, the ingredients of a trained model itself
(its own gamma, L and N, from :mod:`bounds.certify.trained`).  The bracket is about the worst pair of the class; a
trained model is one member, so its measured threshold may lie below the class's lower bound without contradiction.
"""

from __future__ import annotations

import json
import math

from bounds.lengths import Length
from bounds.margin import BoundsError
from lengthgen_cli.inputs import require_regular_file

READING = ("what each number is about: lower <= N* <= upper is for the worst pair of the class of the App. A.2 "
           "construction (every pair of models with its quantities or less, agreement at every length); measured "
           "N_min is the smallest training length at which models trained on the task (seed mean) reach a test-loss "
           "plateau below eps at the tested lengths (multiples of N, 2-8 N in the presets) -- one trained model per "
           "seed, at finitely many lengths, so N_min < lower does not contradict the bracket")


class MeasuredResultsError(BoundsError):
    """The results file is missing, not JSON, or not a bounds.experiments.measure summary."""


def _is_count(v) -> bool:
    return v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 1)


def _is_number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _task_shape_ok(t) -> bool:
    """A task entry of a summary: the fields :func:`compare` and :func:`text` read, each of its type."""
    if not (isinstance(t, dict) and isinstance(t.get("task"), str) and t.get("task_kind") in ("modp", "simple")
            and isinstance(t.get("params"), dict) and _is_count(t.get("n_min"))):
        return False
    if ("period" if t["task_kind"] == "modp" else "omega") not in t["params"]:
        return False
    spread = t.get("n_min_spread")
    if not (isinstance(spread, dict) and all(spread.get(k) is None or _is_number(spread.get(k))
                                             for k in ("min", "median", "max"))):
        return False
    tm = t.get("trained_model")
    return not tm or (isinstance(tm, dict) and all(_is_number(tm.get(k)) for k in ("gamma", "L", "log10_N_p8", "N",
                                                                                    "seed")))


def load(path: str) -> dict:
    """The summary at ``path``, its shape checked (every field this module reads, of its type), else
    :class:`MeasuredResultsError` with one line."""
    what = f"--measured {path!r} is not a bounds.experiments.measure summary (izzo2025-<kind>-<preset>.json)"
    try:
        require_regular_file(path, "--measured", MeasuredResultsError, missing_ok=True)
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as e:
        raise MeasuredResultsError(f"cannot read --measured {path!r}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise MeasuredResultsError(f"--measured {path!r} is not JSON (line {e.lineno}: {e.msg})") from None
    except (UnicodeDecodeError, ValueError):
        raise MeasuredResultsError(f"--measured {path!r} is not JSON text") from None
    except RecursionError:
        raise MeasuredResultsError(f"--measured {path!r} is nested too deeply; {what}") from None
    if not isinstance(data, dict) or data.get("experiment") != "izzo2025" or "tasks" not in data:
        raise MeasuredResultsError(what)
    eps = data.get("eps")
    if not (_is_number(eps) and eps > 0):
        raise MeasuredResultsError(f"{what}: its eps must be a positive mean squared error, got {eps!r}")
    if not (isinstance(data["tasks"], list) and all(_task_shape_ok(t) for t in data["tasks"])):
        raise MeasuredResultsError(f"{what}: a task entry lacks task, task_kind, params, n_min or n_min_spread")
    return data


def compare(path: str, kind: str, predicted) -> dict:
    """Per task of ``kind`` in the results: predicted N, measured n_min (spread), their ratio, trained-model N.

    ``predicted(task_kind, params, eps_mse)`` is the prediction (``bounds.estimate`` passes its own, so that
    this module needs nothing of the estimate and the estimate nothing of the training code)."""
    data = load(path)
    rows = []
    for t in data["tasks"]:
        if t["task_kind"] != kind:
            continue
        pred = predicted(t["task_kind"], t["params"], data["eps"])
        n_min = t["n_min"]
        upper = Length.from_json(pred["N"])
        rows.append({"task": t["task"], "params": t["params"], "predicted_N": pred["N"],
                     "lower_N": pred.get("lower_N"), "predicted": pred, "measured_n_min": n_min,
                     "n_min_spread": t["n_min_spread"],
                     "ratio_predicted_over_measured": None if not n_min else upper.exact / n_min
                     if upper.exact is not None else 2 ** (upper.log2 - math.log2(n_min)),
                     "trained_model": t.get("trained_model")})
    if not rows:
        raise MeasuredResultsError(f"--measured {path!r} has no {kind} task; use --task "
                                   f"{data['tasks'][0]['task_kind'] if data['tasks'] else 'modp'}")
    return {"measured": path, "kind": kind, "eps_mse": data["eps"], "preset": data.get("preset"), "rows": rows,
            "reading": READING}


def text(r: dict) -> str:
    lines = [f"Bracket lower <= N* <= upper for the class of the App. A.2 construction (eps = sqrt({r['eps_mse']})) "
             f"beside the measured N_min (seed-mean plateau < {r['eps_mse']}) of {r['measured']}",
             "  task                 lower  upper (proved)  measured N_min  per-seed min/median/max  upper/measured  "
             "trained model: gamma, L, N (p = 8)"]
    for row in r["rows"]:
        sp = row["n_min_spread"]
        ratio = row["ratio_predicted_over_measured"]
        tm = row["trained_model"]
        tm_text = "-" if not tm else (f"{tm['gamma']:.3g}, {tm['L']:.4g}, 10^{tm['log10_N_p8']:.3g} "
                                      f"(run N={tm['N']}, seed {tm['seed']})")
        lower = "-" if row.get("lower_N") is None else str(Length.from_json(row["lower_N"]))
        n_min = "never" if row["measured_n_min"] is None else str(row["measured_n_min"])  # seed mean never < eps
        spread = "/".join("-" if sp[k] is None else str(sp[k]) for k in ("min", "median", "max"))
        lines.append(f"  {row['task']:<20} {lower:<6} {str(Length.from_json(row['predicted_N'])):<15} "
                     f"{n_min:<15} {spread:<24} "
                     f"{'-' if ratio is None else f'{ratio:.3g}':<15} {tm_text}")
    lines.append(f"  ({r['reading']})")
    return "\n".join(lines)
