"""The committed training results (docs/results/*.jsonl, produced by ``python -m bounds.measure``) against
the qualitative claims of Izzo et al. Figures 2 and 3.  These tests read data, they do not train: they fail
if the recorded runs do not show what the claim status says they show."""

import json
from pathlib import Path

import pytest

from bounds.training.summary import summarize
from verify.claims import checks

RESULTS = Path(__file__).resolve().parents[3] / "docs" / "results"
EPS = 0.01


def _summary(name):
    recs = [json.loads(line) for line in (RESULTS / name).read_text().splitlines() if line.strip()]
    s = summarize([{"record": {"N": r["N"], "runs": [r]}} for r in recs], EPS)
    return recs, {**s, "measured_threshold": s["n_min"]}


@checks("izzo2025:fig2")
def test_modp_plateau_falls_with_training_length_and_threshold_grows_with_period():
    thresholds = []
    for p in (2, 3, 5):
        _, s = _summary(f"modp_p{p}.jsonl")
        rows = s["rows"]
        assert rows[-1]["plateau_mean"] < rows[0]["plateau_mean"] / 10, p  # the plateau falls with N
        assert s["measured_threshold"] is not None, p
        thresholds.append(s["measured_threshold"])
    assert thresholds == sorted(thresholds) and thresholds[0] < thresholds[-1]  # grows with Delta = p
    # control: absolute positional embeddings fit the training lengths but never reach the plateau eps
    _, ctrl = _summary("control_modp_p3_absolute.jsonl")
    assert ctrl["measured_threshold"] is None


@checks("izzo2025:fig3")
def test_trained_modp_attention_is_uniform_on_the_residue_class():
    recs, _ = _summary("modp_p5.jsonl")
    fitted = [r for r in recs if r["N"] >= 10 and r["reached_target"]]
    assert len(fitted) >= 5
    for r in fitted:
        att = r["attention"]
        assert att["uniform_class"] == pytest.approx(1 / 16)
        assert abs(att["per_key_class"] - 1 / 16) < 1e-3 and att["per_key_other"] < 1e-4, r["key"]
    # negative control: short-trained runs (N = 4) spread attention over every position
    short = [r for r in recs if r["N"] == 4]
    assert short and all(abs(r["attention"]["per_key_class"] - 1 / 16) > 1e-2 for r in short)
