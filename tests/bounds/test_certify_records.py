"""The committed certificates of the quick sweep (docs/results/izzo2025-certify-quick.jsonl): soundness against the
measured errors, and the summary's counts re-derived from the records."""

import json
import os

from bounds.certify_runs import soundness, summarize

RECORDS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "results", "izzo2025-certify-quick.jsonl")
SUMMARY = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "results", "izzo2025-certify-quick.json")


def _records():
    with open(RECORDS, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_certified_sup_is_at_least_every_measured_error():
    """For every committed record and test length m N: certified sup |f - f*| >= measured RMSE (float32 tolerance
    1e-4); every verdict comes with its gap; "fails" has a realized input above delta + eps."""
    recs = _records()
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


def test_lowered_bound_is_caught():
    """Negative control: the same check rejects every record whose certified sup is lowered below its largest
    measured RMSE."""
    caught = 0
    for r in _records():
        worst = max(m for _, m, _, _ in soundness(r))
        r["construction"]["upper"] = worst - 0.01 - r["construction_error"]
        if r.get("target"):
            r["target"]["upper"] = worst - 0.01
        caught += not all(ok for *_, ok in soundness(r))
    assert caught == len(_records())


def test_summary_matches_records():
    with open(SUMMARY, encoding="utf-8") as fh:
        s = json.load(fh)
    again = summarize(_records(), s["eps"])
    assert again["verdicts"] == s["verdicts"] and again["soundness"] == s["soundness"]
    assert s["soundness"]["holding"] == s["soundness"]["checks"]
