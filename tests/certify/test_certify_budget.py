"""The time budget of bounds.certify holds for the whole certificate, in every phase, and what was reached is
reported.  No test here reads the wall clock: the certifier's clock (``bounds.certify.search.clock``) is replaced by
one that advances one unit per certified evaluation, so "time" is work done (scripts/bench_certify.py measures
seconds)."""

import pytest

from bounds.certify import search
from bounds.certify.search import CertifyError, Problem, certify
from constructions.tasks import ModPTask

SLACK = 12  # units of work one phase may finish after the deadline (one piece's first bound and its realizations)


class Work:
    """A clock advanced by the work itself: one unit per certified evaluation of a batch of boxes or inputs."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def _counted(prob, work):
    for name in ("point", "bound_abs"):
        orig = getattr(prob, name)

        def wrapped(*a, _orig=orig, **k):
            work.t += 1
            return _orig(*a, **k)

        setattr(prob, name, wrapped)
    return prob


@pytest.fixture
def work(monkeypatch):
    w = Work()
    monkeypatch.setattr(search, "clock", w)
    return w


def _pair():
    return ModPTask(3, 0).limit_transformer(), ModPTask(3, 1).limit_transformer()


@pytest.mark.parametrize("budget", [1, 9, 17, 30, 45, 70])
def test_every_phase_stops_at_the_budget_and_reports_what_it_reached(budget, work):
    """Budgets that end in the enumeration of the short lengths (mandatory: Delta + tau + 2 = 5), in the first pass
    over the pieces, and in the splits: the work never exceeds the budget by more than one unit of a phase; a
    length or piece not reached leaves U = inf (never "certified"), and the report says how far each phase got."""
    f, g = _pair()
    cert = certify(_counted(Problem(f, g, ("softmax", "izzo")), work), 0.1, budget_s=budget, max_boxes=100)
    r = cert.reached
    assert work.t <= budget + SLACK
    assert r["budget_spent"] and r["pieces"] == 6 and r["enumeration_target"] == 5
    if r["enumerated_to"] < 5 or r["pieces_bounded"] < 6:
        assert cert.upper == float("inf") and cert.verdict != "certified"
    if r["enumerated_to"] < 5:
        assert r["pieces_bounded"] == 0
    else:
        assert cert.N0 >= 5


def test_a_phase_that_ignores_the_deadline_is_caught(work, monkeypatch):
    """Negative control: with the deadline checks disabled (every phase runs to its own end, as the enumeration
    and the first pass over the pieces once did), the same budget is overrun by far more than the slack."""
    monkeypatch.setattr(search.Deadline, "expired", lambda self: False)
    f, g = _pair()
    certify(_counted(Problem(f, g, ("softmax", "izzo")), work), 0.1, budget_s=9, max_boxes=100, max_length=5)
    assert work.t > 9 + SLACK


def test_a_complete_certificate_reports_everything_reached(work):
    g = ModPTask(3, 0).limit_transformer()
    cert = certify(_counted(Problem(g, g, ("izzo", "izzo")), work), 0.1, budget_s=10**6, max_length=6)
    assert cert.verdict == "certified" and cert.reached == {"enumerated_to": 6, "enumeration_target": 6,
                                                             "pieces_bounded": 6, "pieces": 6, "budget_spent": False}


def test_an_enumeration_beyond_its_limit_is_refused_before_any_work(work):
    """Delta = 24 (24 free coordinates, inside MAX_FREE) must enumerate every length up to Delta + tau + 2 = 26,
    and length 20 alone has 524288 > MAX_CONFIGS_PER_LENGTH configurations: refused before any evaluation (the
    enumeration once ran 64-140 s before reaching it).  Negative control: Delta = 12 runs."""
    prob = _counted(Problem(ModPTask(24, 0).limit_transformer(), ModPTask(24, 1).limit_transformer(),
                            ("izzo", "izzo")), work)
    with pytest.raises(CertifyError, match="length 20 has 524288 input configurations"):
        certify(prob, 0.1, budget_s=10)
    assert work.t == 0
    prob = _counted(Problem(ModPTask(12, 0).limit_transformer(), ModPTask(12, 1).limit_transformer(),
                            ("izzo", "izzo")), work)
    certify(prob, 0.1, budget_s=3)
    assert 0 < work.t <= 3 + SLACK
