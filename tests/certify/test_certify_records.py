"""The committed certificates of the Izzo et al. sweeps (docs/results/izzo2025-certify-{quick,cpu}.jsonl): soundness
against the measured errors, the summary's counts re-derived from the records, and (cpu preset) a record for every
trained seed of the committed sweep summaries."""

import json
import os

import pytest

from bounds.certify.runs import soundness, summarize

RESULTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "results")
SETS = ("quick", "cpu")


def _records(name):
    with open(os.path.join(RESULTS, f"izzo2025-certify-{name}.jsonl"), encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.mark.parametrize("name", SETS)
def test_certified_sup_is_at_least_every_measured_error(name):
    """For every committed record and test length m N: certified sup |f - f*| >= measured RMSE (float32 tolerance
    1e-4); every verdict comes with its gap; "fails" has a realized input above delta + eps."""
    recs = _records(name)
    assert len(recs) >= 40
    for r in recs:
        checks = soundness(r)
        assert checks and all(ok for *_, ok in checks), (r["run_key"], r["seed"], checks)
        c = r["construction"]
        assert c["lower"] <= c["upper"] and c["gap"] == c["upper"] - c["lower"]
        if c["verdict"] == "fails":
            assert c["lower"] > c["delta"][1] + c["eps"]
        if c["verdict"] == "certified":
            assert c["upper"] <= c["delta"][0] + c["eps"]


@pytest.mark.parametrize("name", SETS)
def test_lowered_bound_is_caught(name):
    """Negative control: the same check rejects every record whose certified sup is lowered below its largest
    measured RMSE."""
    recs = _records(name)
    caught = 0
    for r in recs:
        worst = max(m for _, m, _, _ in soundness(r))
        r["construction"]["upper"] = worst - 0.01 - r["construction_error"]
        if r.get("target"):
            r["target"]["upper"] = worst - 0.01
        caught += not all(ok for *_, ok in soundness(r))
    assert caught == len(recs)


@pytest.mark.parametrize("name", SETS)
def test_summary_matches_records(name):
    with open(os.path.join(RESULTS, f"izzo2025-certify-{name}.json"), encoding="utf-8") as fh:
        s = json.load(fh)
    again = summarize(_records(name), s["eps"])
    assert again["verdicts"] == s["verdicts"] and again["soundness"] == s["soundness"]
    assert s["soundness"]["holding"] == s["soundness"]["checks"]


def _sweep_seeds(preset: str) -> set:
    """(task, N, seed) of every trained seed of the committed sweep summaries of one preset."""
    out = set()
    for kind in ("modp", "simple"):
        with open(os.path.join(RESULTS, f"izzo2025-{kind}-{preset}.json"), encoding="utf-8") as fh:
            for t in json.load(fh)["tasks"]:
                out |= {(t["task"], N, s) for N in t["grid"] for s in t["seeds"]}
    return out


def test_every_seed_of_the_cpu_sweep_has_a_verdict():
    """Each of the 368 trained seeds of the cpu preset has exactly one record with a verdict and its gap; a missing
    or duplicated seed is caught (negative control)."""
    want = _sweep_seeds("cpu")
    recs = _records("cpu")
    got = [(r["task"], r["N"], r["seed"]) for r in recs]
    assert len(want) == 368 and sorted(got) == sorted(want)
    assert all(r["construction"]["verdict"] in ("certified", "fails", "undetermined") for r in recs)
    assert sorted(got[1:]) != sorted(want) and sorted(got + got[:1]) != sorted(want)
