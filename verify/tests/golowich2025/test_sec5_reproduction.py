"""golowich2025:fig1 / fig2 reproduced by training (bounds.experiments.golowich2025): the Theorem 4.3 threshold,
the committed quick-preset results, and tiny end-to-end runs of the harness."""

import json
import os

import pytest

from bounds.experiments.golowich2025 import PRESETS, main, theorem43_max_k
from verify.claims import checks

RESULTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "results")


@checks("golowich2025:fig1")
def test_theorem43_threshold():
    """L >= 4 (2k - 1): k = 6 at L = 50 (7 would need L >= 52); none below L = 4."""
    assert theorem43_max_k(50) == 6 and theorem43_max_k(52) == 7 and theorem43_max_k(51) == 6
    assert theorem43_max_k(3) == 0 and theorem43_max_k(4) == 1
    for L in range(4, 200):
        k = theorem43_max_k(L)
        assert L >= 4 * (2 * k - 1) and L < 4 * (2 * k + 1)


def _stored(name, preset="quick"):
    with open(os.path.join(RESULTS, f"golowich2025-{name}-{preset}.json"), encoding="utf-8") as fh:
        return json.load(fh)


def _resummarized(name, s):
    """The stored summary recomputed from its own per-seed accuracies by the harness's summarize()."""
    from bounds.experiments.golowich2025 import summarize

    records = []
    for r in s["rows"]:
        rec = {"accuracy": r["per_seed"], "seeds": list(range(len(r["fitted"]))), "seconds": r["seconds"],
               "steps": r["steps"], "final_loss": r["final_loss"], "arch": s["config"]["arch"]}
        rec.update({k: r[k] for k in ("K_train", "jump", "scheme") if k in r})
        records.append(rec)
    return summarize(name, records, PRESETS[name][s["preset"]])


@checks("golowich2025:fig1")
def test_stored_sparse_parity_results():
    s = _stored("sparse-parity")
    preset = PRESETS["sparse-parity"]["quick"]
    assert sorted([r["K_train"] for r in s["rows"]] + [int(c) for c in s["missing"]]) == sorted(preset.cells)
    assert s["theory"]["thm43_max_k"] == theorem43_max_k(preset.train_range[1])
    for r in s["rows"]:
        for key, per_seed in r["per_seed"].items():
            k, two_ell = map(int, key.split(","))
            assert k < two_ell // 2 and len(per_seed) == preset.seeds
            assert abs(r["accuracy_mean"][key] - sum(per_seed) / len(per_seed)) < 1e-4


@checks("golowich2025:fig2")
def test_stored_scratchpad_results():
    s = _stored("scratchpad")
    preset = PRESETS["scratchpad"]["quick"]
    assert len(s["rows"]) + len(s["missing"]) == len(preset.cells)
    assert {(r["jump"], r["scheme"]) for r in s["rows"]} <= set(preset.cells)
    for r in s["rows"]:
        assert all(int(ell) % r["jump"] == 0 for ell in r["per_seed"])
        for key, per_seed in r["per_seed"].items():
            assert abs(r["accuracy_mean"][key] - sum(per_seed) / len(per_seed)) < 1e-4


@pytest.mark.parametrize("experiment,cells", [("sparse-parity", "2"), ("scratchpad", "2:coupled,2:shifted-ape")])
def test_tiny_runs_end_to_end(experiment, cells, tmp_path):
    """Two steps, one seed, two test examples per point: records, summary and table are written."""
    pytest.importorskip("transformers")
    argv = ["--experiment", experiment, "--cells", cells, "--seeds", "1", "--steps", "2", "--test-samples", "2",
            "--runs", str(tmp_path / "runs"), "--results-dir", str(tmp_path), "--no-plot"]
    assert main(argv) == 0
    s = json.loads((tmp_path / f"golowich2025-{experiment}-quick.json").read_text())
    assert len(s["rows"]) == len(cells.split(","))
    assert (tmp_path / f"golowich2025-{experiment}-quick.md").read_text().startswith(
        "Theorem 4.3" if experiment == "sparse-parity" else "| scheme")


@pytest.mark.parametrize("argv,msg", [
    (["--experiment", "variable-assignment"], "invalid choice"),
    (["--experiment", "scratchpad", "--steps", "0"], "--steps"),
    (["--experiment", "scratchpad", "--seeds", "1000"], "MAX_SEEDS"),
    (["--experiment", "scratchpad", "--cells", "1:rope"], "bad cell"),
    (["--experiment", "sparse-parity", "--cells", "x"], "bad cell"),
])
def test_cli_errors_are_one_line(argv, msg, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and msg in err and err.count("\n") == 1 and err.startswith("bounds.experiments.reproduce golowich2025: error:")


def _all_stored(name):
    """Every stored results file of the experiment (one per preset: quick, cpu, ...)."""
    import glob

    out = []
    for path in sorted(glob.glob(os.path.join(RESULTS, f"golowich2025-{name}-*.json"))):
        with open(path, encoding="utf-8") as fh:
            out.append((os.path.basename(path), json.load(fh)))
    return out


@checks("golowich2025:fig1")
def test_figure1_assertions_on_fitted_seeds():
    """Figures 1 / 7 judged on the seeds that fit in distribution (>= 95% at every k <= K_train and training
    length): k_test <= K_train generalizes (>= 90% at every tested length), k_test > K_train is 10 points worse.
    Skipped while no stored seed fits (the quick preset stays at chance).  Where fitted CPU-scale seeds break
    the figure's pattern the check reports them as an expected failure (the claim stays unconfirmed: these are
    not the paper's models) instead of passing; docs/reproduce_trained.md has the measurements."""
    from verify.golowich import sec5

    # negative control: a seed made to fit at k <= K_train but at chance beyond the training lengths is caught
    row = {"K_train": 2, "per_seed": {"1,20": [1.0], "2,20": [0.99], "1,200": [0.5], "2,200": [0.6], "4,200": [0.5]}}
    fake = {"config": {"train_range": [20, 50]}, "rows": [row]}
    assert sec5.sparse_parity_fitted(fake) == {2: [0]} and sec5.sparse_parity_violations(fake)
    stored = _all_stored("sparse-parity")
    assert stored
    judged, violations = 0, []
    for name, s in stored:
        judged += sum(len(v) for v in sec5.sparse_parity_fitted(s).values())
        violations += [f"{name}: {v}" for v in sec5.sparse_parity_violations(s)]
    if not judged:
        pytest.skip("no stored seed fits its training distribution yet")
    if violations:
        pytest.xfail("fitted seeds do not reproduce Figure 1: " + "; ".join(violations))


@checks("golowich2025:fig2")
def test_figure2_assertions_on_fitted_seeds():
    """Figures 2 / 8 on the fitted coupled seeds (>= 95% whole-scratchpad accuracy at every training length):
    predictive position coupling is at least as good as the shifted-APE ablation beyond the training lengths.
    Skipped while no stored coupled seed fits (the quick preset stays at 0%)."""
    from verify.golowich import sec5

    stored = _all_stored("scratchpad")
    assert stored
    judged = 0
    for name, s in stored:
        judged += sum(len(v) for (j, scheme), v in sec5.scratchpad_fitted(s).items() if scheme == "coupled")
        assert sec5.scratchpad_violations(s) == [], name
    fake = {"config": {"train_range": [5, 20]},
            "rows": [{"jump": 1, "scheme": "coupled", "per_seed": {"12": [1.0], "40": [0.2]}},
                     {"jump": 1, "scheme": "shifted-ape", "per_seed": {"12": [1.0], "40": [0.6]}}]}
    assert sec5.scratchpad_violations(fake)  # negative control: coupling below its ablation is caught
    if not judged:
        pytest.skip("no stored coupled seed fits its training distribution yet")


@pytest.mark.parametrize("name", ["sparse-parity", "scratchpad"])
def test_stored_cpu_results_judge_fitted_seeds_with_the_theory_beside_them(name):
    """The cpu-preset summaries (docs/reproduce_trained.md): fit flags, per-cell predictions (Theorem 4.3's side
    condition; the planted spans under coupled ids or positions), generalization over fitted seeds only and the
    agreement counts all recompute from the stored per-seed accuracies with the code as it is now."""
    path = os.path.join(RESULTS, f"golowich2025-{name}-cpu.json")
    if not os.path.exists(path):
        pytest.skip("cpu preset not run")
    s = _stored(name, "cpu")
    again = _resummarized(name, s)
    for key in ("judged", "agree", "agreement_rate", "criteria"):
        assert again[key] == s[key], key
    by_cell = sorted(s["never_fit"], key=lambda c: c["cell"])
    assert sorted(again["never_fit"], key=lambda c: c["cell"]) == by_cell  # stored in run order
    for a, b in zip(again["rows"], s["rows"], strict=True):
        assert (a["fitted"], a["prediction"], a["judged"]) == (b["fitted"], b["prediction"], b["judged"])
