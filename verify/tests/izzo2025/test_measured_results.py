"""The committed quick-preset results (docs/results/izzo2025-{modp,simple}-quick.json, written by
``python -m bounds.experiments.measure --preset quick``) against Izzo et al. Figures 1-3.  These tests read data, they do
not train.  They re-derive every threshold from the per-seed plateaus stored in the file and the prediction from
``bounds.estimate``, then check what the figures claim, so they fail if the data do not show it."""

import json
import statistics
from pathlib import Path

import pytest

from bounds.experiments.training.report import predicted
from bounds.experiments.training.summary import fit_line
from verify.claims import checks

RESULTS = Path(__file__).resolve().parents[3] / "docs" / "results"


def _load(kind, preset="quick"):
    return json.loads((RESULTS / f"izzo2025-{kind}-{preset}.json").read_text())


def _per_seed_n_min(task, eps):
    rows = task["summary"]["rows"]
    seeds = sorted({s for r in rows for s in r["plateau_per_seed"]}, key=int)
    return {s: next((r["N"] for r in rows if r["plateau_per_seed"].get(s, 1.0) < eps), None) for s in seeds}


def _n_min(task, eps):
    return next((r["N"] for r in task["summary"]["rows"]
                 if statistics.fmean(r["plateau_per_seed"].values()) < eps), None)


@pytest.mark.parametrize("preset", ["quick", "cpu"])
@pytest.mark.parametrize("kind", ["modp", "simple"])
def test_results_are_consistent_with_their_own_runs(kind, preset):
    """Thresholds re-derived from the stored per-seed plateaus; 8 seeds per N; prediction = bounds.estimate now;
    deviations from App. B recorded."""
    data = _load(kind, preset)
    eps = data["eps"]
    assert data["tasks"] and not data.get("missing_runs"), "the sweep is incomplete"
    for t in data["tasks"]:
        assert all(r["seeds"] == 8 and len(r["plateau_per_seed"]) == 8 for r in t["summary"]["rows"]), t["task"]
        assert [r["N"] for r in t["summary"]["rows"]] == sorted(t["grid"]) == t["grid"]
        assert t["n_min"] == _n_min(t, eps) == t["summary"]["n_min"]
        assert t["summary"]["n_min_per_seed"] == _per_seed_n_min(t, eps)
        assert t["predicted"] == predicted(t["task_kind"], t["params"], eps)
        ratio = t["ratio_predicted_over_measured"]
        assert ratio == (None if t["n_min"] is None else t["predicted"]["N"] / t["n_min"])
        assert any("batch" in d for d in t["deviations"]) and any("seeds" not in d for d in t["deviations"])


def _plateau_falls(t):
    rows = t["summary"]["rows"]
    return rows[-1]["plateau_mean"] < rows[0]["plateau_mean"] / 10


def _slope(data, eps):
    xs, ys = [], []
    for t in data["tasks"]:
        x = float(t["params"].get("period", t["params"].get("omega")))
        for v in _per_seed_n_min(t, eps).values():
            if v is not None:
                xs.append(x)
                ys.append(v)
    return fit_line(xs, ys)


def _check_plateau_falls(tasks, eps):
    """Left/middle panes: at the shortest training length the plateau is above eps (so the measurement can
    fail), and it falls at least tenfold by the longest one."""
    for t in tasks:
        rows = t["summary"]["rows"]
        assert rows[0]["plateau_mean"] >= eps, t["task"]
        assert rows[-1]["plateau_mean"] < rows[0]["plateau_mean"] / 10, t["task"]


def _check_threshold_grows(tasks, key, eps):
    """Right pane: N_min is found for every task and grows with the task parameter; the least-squares slope of
    the per-seed N_min has a 95% confidence interval above 0."""
    found = sorted((float(t["params"][key]), t["n_min"]) for t in tasks)
    assert all(n is not None for _, n in found), found
    ns = [n for _, n in found]
    assert ns == sorted(ns) and ns[0] < ns[-1], found
    fit = _slope({"tasks": tasks}, eps)
    assert fit is not None and fit["slope_ci"][0] > 0, fit
    return found


@checks("izzo2025:fig2")
def test_modp_plateau_falls_with_training_length():
    data = _load("modp")
    for t in data["tasks"]:  # what the stored summary must satisfy: each row is the statistics of its seeds
        for r in t["summary"]["rows"]:
            per_seed = list(r["plateau_per_seed"].values())
            assert r["plateau_mean"] == pytest.approx(statistics.fmean(per_seed), rel=1e-12), (t["task"], r["N"])
            assert (r["plateau_min"], r["plateau_max"]) == (min(per_seed), max(per_seed)), (t["task"], r["N"])
        assert t["n_min"] == _n_min(t, data["eps"]), t["task"]
    _check_plateau_falls(data["tasks"], data["eps"])


@checks("izzo2025:fig2")
@pytest.mark.parametrize("preset", ["quick", "cpu"])
def test_modp_threshold_grows_with_period_and_curves_overlap_in_n_over_p(preset):
    """Figure 2 right: N_min grows with p and N_min / p is about constant (max/min of the ratio <= 1.5); at the
    cpu preset (longer budget) 215 of 216 ModP models reach the training-loss target."""
    data = _load("modp", preset)
    found = _check_threshold_grows(data["tasks"], "period", data["eps"])
    ratios = [n / p for p, n in found]
    assert max(ratios) / min(ratios) <= 1.5, ratios
    assert _slope(data, data["eps"])["slope"] == pytest.approx(data["slope"]["slope"], rel=1e-12)


@checks("izzo2025:fig1")
def test_simple_plateau_falls_and_threshold_grows_for_omega_up_to_4():
    data = _load("simple")
    small = [t for t in data["tasks"] if float(t["params"]["omega"]) <= 4]
    assert len(small) == 3
    _check_plateau_falls(small, data["eps"])
    _check_threshold_grows(small, "omega", data["eps"])


@checks("izzo2025:fig1")
def test_simple_omega_8_does_not_fit_its_training_lengths_at_the_quick_budget():
    """Why izzo2025:fig1 stays unchecked: at omega = 8 no run reaches the training-loss target (Theorem 4.1's
    hypothesis) within the quick budget, the seed-mean plateau does not fall tenfold and N_min is not reached
    on the grid.  When a longer run fits omega = 8, this test fails and the claim's status must be revisited."""
    data = _load("simple")
    t = next(t for t in data["tasks"] if float(t["params"]["omega"]) == 8)
    assert all(r["reached_target"] == 0 for r in t["summary"]["rows"])
    assert t["n_min"] is None
    with pytest.raises(AssertionError):
        _check_plateau_falls([t], data["eps"])


@checks("izzo2025:fig3")
def test_trained_modp_attention_is_uniform_on_the_residue_class():
    """p = 5, length 80 (16 class keys): every run that fit its training lengths at N >= 3p puts 1/16 +- 10% on
    each key at positions = k (mod p) and < 5% of 1/16 on every other key; over those runs the median weight per
    other key is < 1% of 1/16.  Control: at N = p the attention is spread (class keys > 10% off 1/16).  Every
    stored record (every task, every N) must also be a distribution over the length + 1 keys: class mass =
    (length // p) x per-key class weight, and the class mass plus the other keys' weight is 1 (to 1e-6), so a
    corrupted record is caught even where the thresholds above are loose."""
    tasks = _load("modp")["tasks"]
    for task in tasks:  # what every stored attention record must satisfy (softmax weights over length + 1 keys)
        period = int(task["params"]["period"])
        for a in task["attention"].values():
            n_class = a["length"] // period
            n_other = a["length"] + 1 - n_class
            assert a["uniform_class"] == pytest.approx(1 / n_class, rel=1e-12)
            for s in a["per_seed"]:
                assert s["mass_class"] == pytest.approx(n_class * s["per_key_class"], rel=1e-9), s
                assert s["mass_class"] + n_other * s["per_key_other"] == pytest.approx(1, abs=1e-6), s
    t = next(t for t in tasks if int(t["params"]["period"]) == 5)
    att = t["attention"]
    fitted = [(s, a["uniform_class"]) for n, a in att.items() if int(n) >= 15 for s in a["per_seed"]
              if s["reached_target"]]
    assert len(fitted) >= 16
    for s, u in fitted:
        assert u == pytest.approx(1 / 16)
        assert abs(s["per_key_class"] - u) < 0.1 * u and s["per_key_other"] < 0.05 * u, s
    assert statistics.median(s["per_key_other"] for s, _ in fitted) < 0.01 / 16
    short = att["5"]["per_seed"]
    assert all(abs(s["per_key_class"] - 1 / 16) > 0.1 / 16 for s in short)


@checks("izzo2025:fig1")
def test_cpu_preset_fits_every_omega_and_the_threshold_grows_sublinearly():
    """The cpu preset (docs/measured_thresholds.md): every SimpleTask run fits its training lengths (at least 7 of
    8 seeds reach the training-loss target at every N, omega = 8 included), the plateau falls tenfold with N for
    every omega and N_min grows with omega (slope CI above 0).  The finding that keeps izzo2025:fig1 a gap:
    N_min is not proportional to omega (N_min / omega spans more than a factor 1.5, as it does not for ModP):
    when a rerun makes it proportional, this test fails and the status must be revisited."""
    data = _load("simple", "cpu")
    assert sorted(float(t["params"]["omega"]) for t in data["tasks"]) == [1, 2, 4, 8]
    for t in data["tasks"]:
        assert all(r["reached_target"] >= 7 and r["seeds"] == 8 for r in t["summary"]["rows"]), t["task"]
    _check_plateau_falls(data["tasks"], data["eps"])
    found = _check_threshold_grows(data["tasks"], "omega", data["eps"])
    ratios = [n / w for w, n in found]
    assert max(ratios) / min(ratios) > 1.5, ratios
    assert _slope(data, data["eps"])["slope"] == pytest.approx(data["slope"]["slope"], rel=1e-12)
