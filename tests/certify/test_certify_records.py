"""The committed certificates of the Izzo et al. sweeps (docs/results/izzo2025-certify-*.jsonl): soundness
against the measured errors, the summary's counts re-derived from the records, (cpu preset) a record for every
trained seed of the committed sweep summaries, and every record's certified horizon H and first failure X."""

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


HORIZON_SETS = ("quick", "cpu", "horizon", "horizon-past", "witness")


def _horizon_problems(r: dict) -> list[str]:
    """What is wrong with the certified horizon of each certificate of record ``r`` (empty: none): H and X are
    present, H < X, the witness has length X and is written out whenever it is short, and the failing input's
    certified value exceeds delta + eps."""
    from bounds.certify.horizon import WITNESS_STRING_LIMIT

    bad = []
    for c in ("construction", "target"):
        cert, h = r.get(c), (r.get(c) or {}).get("horizon")
        if cert is None:
            continue
        if not h or "H" not in h or "X" not in h:
            bad.append(f"{c}: no H and X")
            continue
        if (h["H"] is None) != bool(h["every_length"]) or (h["every_length"] and h["X"] is not None):
            bad.append(f"{c}: every_length inconsistent with H and X")
        if h["H"] is not None and h["H"] < h["first_length"] - 1:
            bad.append(f"{c}: H below the first length")
        if h["X"] is not None:
            w = h["witness"]
            if h["H"] is None or not h["H"] < h["X"] or w["length"] != h["X"]:
                bad.append(f"{c}: H < X = witness length fails")
            if not h["x_value"] > cert["delta"][1] + cert["eps"]:
                bad.append(f"{c}: the failing value is not above delta + eps")
            if (w["string"] is None) != (h["X"] - 1 > WITNESS_STRING_LIMIT) or \
                    (w["string"] is not None and len(w["string"]) != h["X"] - 1):
                bad.append(f"{c}: the short witness is not written out (or has the wrong length)")
        if cert["verdict"] == "fails" and h["X"] is None:
            bad.append(f"{c}: fails without a first failure X")
    return bad


@pytest.mark.parametrize("name", HORIZON_SETS)
def test_every_record_carries_its_certified_horizon(name):
    """Every committed record of these sweeps has H and X for both certificates, consistent with its verdict
    and its witness (Izzo et al. sec. 5 read on every input: the length up to which a trained seed is right)."""
    recs = [r for r in _records(name) if "refused" not in r]
    assert recs and all(not _horizon_problems(r) for r in recs), next(
        (r["run_key"], r["seed"], _horizon_problems(r)) for r in recs if _horizon_problems(r))


def test_a_horizon_past_its_failure_is_caught():
    """Negative control: the same checker rejects a record whose H reaches its own first failure, and one whose
    short witness was dropped."""
    import copy

    r = next(r for r in _records("quick") if r["target"]["horizon"]["X"] is not None
             and r["target"]["horizon"]["witness"]["string"] is not None)
    assert not _horizon_problems(r)
    late = copy.deepcopy(r)
    late["target"]["horizon"]["H"] = late["target"]["horizon"]["X"]
    dropped = copy.deepcopy(r)
    dropped["target"]["horizon"]["witness"]["string"] = None
    assert _horizon_problems(late) and _horizon_problems(dropped)
