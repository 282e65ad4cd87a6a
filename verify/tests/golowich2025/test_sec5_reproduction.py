"""golowich2025:fig1 / fig2 reproduced by training (bounds.reproduce.golowich2025): the Theorem 4.3 threshold,
the committed quick-preset results, and tiny end-to-end runs of the harness."""

import json
import os

import pytest

from bounds.reproduce.golowich2025 import PRESETS, main, theorem43_max_k
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


def _stored(name):
    with open(os.path.join(RESULTS, f"golowich2025-{name}-quick.json"), encoding="utf-8") as fh:
        return json.load(fh)


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
    assert out == "" and msg in err and err.count("\n") == 1 and err.startswith("bounds.reproduce golowich2025: error:")
