"""The stored quick-preset results of Ahuja & Mansouri's experiments satisfy what their registered statuses say.

docs/results/ahuja2024-table{1,2,3}-quick.json are written by ``python -m bounds.experiments.reproduce ahuja2024 --table k
--preset quick``.  Each ``*_facts`` function lists the statements the registry (verify/registry/ahuja2024.py) and
docs/gaps.md make about those runs and returns the ones the data contradict; the tests require none, and the
negative controls feed each checker a tampered copy (a failure that did not happen, a success that did not
happen) and require it to object.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from verify.claims import checks

RESULTS = Path(__file__).resolve().parents[3] / "docs" / "results"
QUICK = {"lr": 0.01, "steps": 2000, "batch": 64, "weight_decay": 0.01, "betas": [0.9, 0.95], "n": 20}


def _load(k: int) -> dict:
    return json.loads((RESULTS / f"ahuja2024-table{k}-quick.json").read_text())


def _rows(summary: dict) -> dict:
    return {(r["learner_class"] or r["regime"], r["model"]): r for r in summary["records"]}


def _consistency(summary: dict, lengths: int) -> list:
    bad = []
    for r in summary["records"]:
        per_seed = np.array(r["test_loss_per_seed"])
        if per_seed.shape != (3, lengths) or not np.isfinite(per_seed).all():
            bad.append(f"{r['key']}: test losses of shape {per_seed.shape}")
        elif not np.allclose(per_seed.mean(axis=0), r["test_loss_by_length"]):
            bad.append(f"{r['key']}: the per-length mean is not the mean of the seeds")
        if any(r["settings"][k] != v for k, v in QUICK.items()):
            bad.append(f"{r['key']}: settings differ from the quick preset")
        if r["settings"]["plateau"]["factor"] != 0.8 or r["settings"]["schedule"] != "plateau":
            bad.append(f"{r['key']}: not App. B's ReduceLROnPlateau(0.8)")
    return bad


def _r2(row, t, key="r2"):
    return row["identification"][str(t)][key]["per_seed"]


def table1_facts(s: dict) -> list:
    bad = _consistency(s, 100)
    rows = _rows(s)
    if len(rows) != 9:
        bad.append(f"expected 9 records (4 models x 2 classes + softmax), got {len(rows)}")
    for m in ("transformer", "ssm"):  # reproduced: perceptron heads identify, R^2 >= 0.95 every seed, t = 20, 100
        r = rows[("theorem", m)]
        if min(_r2(r, 20) + _r2(r, 100)) < 0.95:
            bad.append(f"theorem {m}: some seed has R^2 < 0.95")
        if max(r["normalised_loss"]["100"]["per_seed"]) > 0.05:
            bad.append(f"theorem {m}: loss / Var(y_100) > 0.05")
    for m in ("deepset", "transformer", "ssm", "rnn"):  # training moves R^2 above its value at initialisation
        r = rows[("theorem", m)]
        if not all(a > b for a, b in zip(_r2(r, 100), _r2(r, 100, "r2_at_init"), strict=True)):
            bad.append(f"theorem {m}: R^2 not above the untrained student's")
    r = rows[("theorem", "rnn")]
    if not (0.9 < np.mean(_r2(r, 100)) < 0.97 and max(r["normalised_loss"]["100"]["per_seed"]) < 0.05):
        bad.append("theorem rnn: expected R^2 in (0.9, 0.97) and loss / Var < 0.05")
    # the shortfalls of docs/gaps.md
    if max(_r2(rows[("theorem", "deepset")], 100) + _r2(rows[("paper", "deepset")], 100)) >= 0.95:
        bad.append("deep sets: some seed reached R^2 >= 0.95 (gaps.md says none does)")
    if min(rows[("paper", "deepset")]["normalised_loss"]["100"]["per_seed"]) <= 1:
        bad.append("paper deep set: loss / Var(y_100) <= 1 for some seed (gaps.md: worse than the mean predictor)")
    pr = rows[("paper", "rnn")]
    if np.mean(_r2(pr, 100)) >= np.mean(_r2(pr, 100, "r2_at_init")):
        bad.append("paper rnn: mean R^2 not below its value at initialisation")
    for cls in ("paper", "theorem"):
        perm = rows[(cls, "rnn")]["permutation"]
        if min(perm["distance"]["per_seed"]) < 0.5 or perm["weights_and_states_agree"] != 0:
            bad.append(f"{cls} rnn: Theorem 9's permutation recovered (gaps.md says it is not at this budget)")
    return bad


def fig3_facts(s: dict) -> list:
    r = _rows(s)[("paper", "transformer-softmax")]
    bad = []
    if min(_r2(r, 100)) < 0.99 or max(r["normalised_loss"]["100"]["per_seed"]) > 0.1:
        bad.append("softmax transformer: R^2 < 0.99 or loss / Var(y_100) > 0.1")
    e = r["exemplar"]
    true, pred = np.array(e["true"]), np.array(e["pred"])
    beyond = slice(r["train_len"], None)
    if np.abs(true[beyond] - pred[beyond]).mean() > 0.25 * true[beyond].std():
        bad.append("softmax transformer: the exemplar is not tracked beyond the training length")
    return bad


def table2_facts(s: dict) -> list:
    bad = _consistency(s, 10)
    rows = _rows(s)
    for m in ("transformer", "ssm"):
        r = rows[("theorem", m)]
        if min(_r2(r, 10)) < 0.99 or max(x[-1] for x in r["test_loss_per_seed"]) > 1e-4:
            bad.append(f"theorem {m}: corner R^2 < 0.99 or loss > 1e-4")
    if not 0.93 < np.mean(_r2(rows[("theorem", "rnn")], 10)) < 0.98:
        bad.append("theorem rnn: corner R^2 outside (0.93, 0.98)")
    if max(_r2(rows[("theorem", "deepset")], 10) + _r2(rows[("paper", "deepset")], 10)) >= 0.95:
        bad.append("deep sets: corner R^2 >= 0.95 for some seed (gaps.md says none)")
    pr = rows[("paper", "rnn")]
    if np.mean(_r2(pr, 10)) >= np.mean(_r2(pr, 10, "r2_at_init")):
        bad.append("paper rnn: corner R^2 not below its value at initialisation")
    return bad


def table3_facts(s: dict) -> list:
    bad = []
    rows = _rows(s)
    for m, T0 in (("deepset", 5), ("transformer", 10)):
        short, long = rows[("short", m)], rows[("long", m)]
        c2 = short["reference_c2"]
        if not (short["threshold"]["paper_T0"] == T0 and short["threshold"]["theorem_holds"]):
            bad.append(f"{m}: Theorem 10's threshold is not T0 = {T0}")
        if short["train_len"] != T0 or long["train_len"] != 2 * T0:
            bad.append(f"{m}: training lengths are not T0 and 2 T0")
        for le, gt in zip(short["loss_le_T0"]["per_seed"], short["loss_gt_T0"]["per_seed"], strict=True):
            if not (gt >= c2 and gt >= 20 * le):  # fails beyond T0: at least the offset's c^2, 20x in-range
                bad.append(f"{m} trained short: loss beyond T0 {gt:.3g} not >= c^2 and 20x in-range {le:.3g}")
        if not long["loss_gt_T0"]["mean"] < short["loss_gt_T0"]["mean"] / 4:
            bad.append(f"{m}: training beyond T0 does not cut the loss beyond T0 by 4x")
    if not rows[("long", "deepset")]["loss_gt_T0"]["mean"] < 0.05 * rows[("long", "deepset")]["reference_c2"]:
        bad.append("deep set trained long: loss beyond T0 not below c^2 / 20")
    if not rows[("long", "transformer")]["loss_gt_T0"]["mean"] > 0.25 * rows[("long", "transformer")]["reference_c2"]:
        bad.append("transformer trained long: loss beyond T0 below c^2 / 4 (gaps.md says partial)")
    return bad


@checks("ahuja2024:table1", "ahuja2024:fig2")
def test_table1_quick_results():
    assert table1_facts(_load(1)) == []


@checks("ahuja2024:table1")
def test_budget_check_four_times_the_steps_moves_r2_by_less_than_001():
    """docs/gaps.md: under App. B's plateau rule 4x the steps change R^2 by < 0.01 (the rate is at its floor)."""
    quick = _rows(_load(1))
    long = _rows(json.loads((RESULTS / "ahuja2024-table1-quick-steps8000.json").read_text()))
    assert len(long) == 4
    for key, r in long.items():
        assert r["settings"]["steps"] == 8000 and max(r["lr_factor"]) < 1e-3
        assert abs(np.mean(_r2(r, 100)) - np.mean(_r2(quick[key], 100))) < 0.01, key
    lr = [f for (cls, m), r in quick.items() if (cls, m) != ("paper", "ssm") for f in r["lr_factor"]]
    assert 0.02 < min(lr) and max(lr) < 0.27


@checks("ahuja2024:table1")
def test_schedule_check_cosine_improves_r2_but_not_to_the_papers_values():
    """docs/gaps.md: a cosine schedule with 2x the steps raises R^2 by 0.01-0.05; deep sets stay below 0.95."""
    quick = _rows(_load(1))
    cos = _rows(json.loads((RESULTS / "ahuja2024-table1-quick-cosine4000.json").read_text()))
    assert len(cos) == 4
    for key, r in cos.items():
        assert r["settings"]["schedule"] == "cosine" and r["settings"]["steps"] == 4000
        assert 0.005 < np.mean(_r2(r, 100)) - np.mean(_r2(quick[key], 100)) < 0.06, key
    assert max(_r2(cos[("theorem", "deepset")], 100) + _r2(cos[("paper", "deepset")], 100)) < 0.95
    assert cos[("theorem", "rnn")]["permutation"]["weights_and_states_agree"] == 0


@checks("ahuja2024:fig3")
def test_fig3_quick_results():
    assert fig3_facts(_load(1)) == []


@checks("ahuja2024:table2")
def test_table2_quick_results():
    assert table2_facts(_load(2)) == []


@checks("ahuja2024:table3", "ahuja2024:fig4")
def test_table3_quick_results():
    assert table3_facts(_load(3)) == []


def _set(s, cls, model, path, value):
    row = next(r for r in s["records"] if (r["learner_class"] or r["regime"]) == cls and r["model"] == model)
    d = row
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value


@pytest.mark.parametrize("table, cls, model, path, value", [
    (1, "theorem", "ssm", ["identification", "100", "r2", "per_seed"], [1.0, 0.9, 1.0]),  # a failed seed
    (1, "paper", "deepset", ["identification", "100", "r2", "per_seed"], [0.99, 0.99, 0.99]),  # a success
    (1, "theorem", "rnn", ["permutation", "weights_and_states_agree"], 3),
    (1, "paper", "transformer-softmax", ["exemplar", "pred"], [0.0] * 100),
    (2, "theorem", "transformer", ["identification", "10", "r2", "per_seed"], [1.0, 0.5, 1.0]),
    (3, "short", "deepset", ["loss_gt_T0", "per_seed"], [1e-4, 1e-4, 1e-4]),  # no failure beyond T0
    (3, "long", "transformer", ["loss_gt_T0", "mean"], 1e-4),  # a full success the runs did not show
])
def test_negative_controls_tampered_results_are_rejected(table, cls, model, path, value):
    s = copy.deepcopy(_load(table))
    _set(s, cls, model, path, value)
    check = {1: lambda x: table1_facts(x) + fig3_facts(x), 2: table2_facts, 3: table3_facts}[table]
    assert check(s) != []
