"""``izzo2025:sec5.certified-threshold``: the threshold measured by certificate on the committed horizon sweep
(``docs/results/izzo2025-threshold-horizon.json``), recomputed from the certificate and measurement summaries it
was joined from, and Izzo et al. sec. 5's conclusion (i) judged on it; controls: a sweep whose seeds are all
certified from some N on passes, one whose last N has no certified majority is reported."""

import copy

import pytest

from verify.claims import checks
from verify.izzo import threshold


@checks("izzo2025:sec5.certified-threshold")
def test_committed_record_is_recomputed_from_its_sources():
    stored, recomputed = threshold.committed()
    assert stored == recomputed
    assert {t["task"] for t in stored["tasks"]} == {"modp(p=2,k=0)", "modp(p=3,k=0)", "simple(omega=1)",
                                                    "simple(omega=2)"}
    for t in stored["tasks"]:  # the grid reaches 4x the class's certified lower bound (certified or refused)
        assert max(r["N"] for r in t["rows"] + t["refused"]) >= 4 * t["lower"]


@checks("izzo2025:sec5.certified-threshold")
def test_violations_control():
    stored, _ = threshold.committed()
    every = copy.deepcopy(stored)
    for t in every["tasks"]:
        t["threshold"]["target"]["every_length"] = t["rows"][-1]["N"]
    assert threshold.violations(every) == []
    none = copy.deepcopy(stored)
    none["tasks"][0]["threshold"]["target"]["every_length"] = None
    assert len(threshold.violations(none)) >= 1 and none["tasks"][0]["task"] in threshold.violations(none)[0]


@checks("izzo2025:sec5.certified-threshold")
def test_conclusion_i_on_every_input():
    stored, _ = threshold.committed()
    bad = threshold.violations(stored)
    if bad:
        pytest.xfail("not reproduced on every input at CPU scale: " + "; ".join(bad))
