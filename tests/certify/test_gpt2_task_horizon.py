"""The certified horizon of a one-layer NoPE GPT-2 against its task (:func:`bounds.certify.gpt2_task.task_horizon`):
H and X against a brute force through the torch forward, with the controls that a horizon ignoring the margin or
naming the smallest-gap input instead of the shortest is rejected by the same check; every_length for a certified
model; monotonicity over margins; the time budget (a clock that counts enclosure evaluations, never the wall
clock)."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from bounds.certify import gpt2, horizon, search  # noqa: E402
from bounds.certify.gpt2_targets import Target  # noqa: E402
from bounds.certify.gpt2_task import GapEnclosure, certify_task, monotone_horizons  # noqa: E402
from tests.certify.gpt2_checks import work_clock  # noqa: E402
from tests.certify.test_gpt2_task import ALPHABET, MAJ, majority_model  # noqa: E402

CFG = {"model_type": "gpt2", "n_layer": 1, "n_embd": 8, "n_head": 1, "bos_token_id": 0}
MU = Fraction(1, 10)
SLACK = 4  # evaluations one phase may finish after the deadline (one branch-and-bound step: boxes and centres)
BRUTE = 12  # letters up to which the brute force runs every input


def _form(**kw):
    return gpt2.from_state_dict(majority_model(**kw).state_dict(), CFG, alphabet=ALPHABET)


def _bos_model():
    """The majority model with BOS writing half a letter's value: the smallest gap at a fixed margin shrinks with
    the length (the constant BOS term weighs 1/(n + 2)), so the first failure and the smallest gap differ."""
    sd = majority_model().state_dict()
    sd["transformer.h.0.attn.c_attn.weight"][0, 2 * CFG["n_embd"]] = -1.0
    return gpt2.from_state_dict(sd, CFG, alphabet=ALPHABET)


def _torch_gap(f, ids):
    """The argmax read-out's gap of the torch forward (float64) on ``BOS ids #``."""
    logits = f.torch_logits([*ids, 3])
    c0, c1 = ids.count(1), ids.count(2)
    right = 1 if c0 > c1 else 2
    return float(logits[right] - max(logits[j] for j in range(len(logits)) if j != right))


def brute_min_gap(f, mu, lengths):
    """Per n: the smallest torch gap over every input of n letters with margin >= mu (inf: none), one string per
    letter-count vector (a NoPE model reads the counts: checked on every string of up to 6 letters)."""
    out = {}
    for n in lengths:
        gaps = [_torch_gap(f, [1] * c0 + [2] * (n - c0)) for c0 in range(n + 1)
                if MAJ.decide(np.array([[c0, n - c0]]), mu)[1][0]]
        out[n] = min(gaps, default=np.inf)
    for n in range(1, 7):
        for s in itertools.product([1, 2], repeat=n):
            if MAJ.decide(np.array([[s.count(1), s.count(2)]]), mu)[1][0]:
                assert _torch_gap(f, list(s)) >= out[n] - 1e-9
    return out


def first_failure(f, mu, D):
    """The fewest letters of an input of margin >= mu whose torch gap is below D, up to BRUTE (None: none)."""
    m = brute_min_gap(f, mu, range(1, BRUTE + 1))
    return next((n for n in range(1, BRUTE + 1) if m[n] < D), None)


@pytest.fixture(scope="module")
def known():
    """The BOS model at MU = 1/10, and D put between the smallest torch gap over inputs of fewer than n* letters
    and the smallest at n* letters (n* the first length >= 4 where the smallest gap drops to a new low by 1e-3):
    the first failing input of the statement has n* letters."""
    f = _bos_model()
    m = brute_min_gap(f, MU, range(1, BRUTE + 1))
    n_star = next(n for n in range(4, BRUTE + 1) if m[n] < min(m[j] for j in range(1, n)) - 1e-3)
    D = (min(m[j] for j in range(1, n_star)) + m[n_star]) / 2
    assert all(m[j] > D + 1e-4 for j in range(1, n_star)) and m[n_star] < D - 1e-4
    return f, n_star, D


def check(h: dict, f, n_fail: int | None, D: float, mu=MU) -> None:
    """The horizon agrees with the brute force: first failure at n letters -> H = n + 1, X = n + 2 (model
    lengths), exact, and the witness has n letters, margin >= mu and a torch gap below D; none up to BRUTE ->
    H >= BRUTE + 2 and no failure before."""
    if n_fail is None:
        assert h["every_length"] or h["H"] >= BRUTE + 2, h
        assert h["X"] is None or h["X"] > BRUTE + 2, h
        return
    assert (h["H"], h["X"], h["exact"], h["every_length"]) == (n_fail + 1, n_fail + 2, True, False), h
    w = h["witness"]
    assert w["length"] == n_fail + 2 and w["letters"] == n_fail and Fraction(w["margin"]) >= mu
    assert w["ids"][-1] == 3 and len(w["ids"]) == n_fail + 1 and _torch_gap(f, w["ids"][:-1]) < D
    assert h["gap_upper"] < D


def test_first_failure_inside_the_enumeration_is_exact(known):
    f, n_star, D = known
    cert = certify_task(f, MAJ, MU, delta=D, max_length=16, budget_s=30)
    assert cert.verdict == "fails"
    check(cert.record()["horizon"], f, n_star, D)
    # control: the verdict's witness (smallest certified upper gap) is not the shortest failure, and a horizon
    # naming it is rejected by the same check
    w = cert.witness
    assert w["length"] != n_star
    broken = {**cert.record()["horizon"], "H": w["length"] + 1, "X": w["length"] + 2}
    with pytest.raises(AssertionError):
        check(broken, f, n_star, D)


def test_a_horizon_that_ignores_the_margin_is_rejected(known, monkeypatch):
    """At MU = 1/4 the inputs of margin 1/5 and 1/7 are out of the statement: the horizon agrees with the brute
    force at 1/4; negative control: with the margin filter dropped (every input but the ties) it names an earlier
    failure of margin < 1/4, and the same check rejects it."""
    f, n_star, D = known
    mu = Fraction(1, 4)
    n_fail = first_failure(f, mu, D)
    check(certify_task(f, MAJ, mu, delta=D, max_length=16, budget_s=30).record()["horizon"], f, n_fail, D, mu)
    orig = Target.decide
    monkeypatch.setattr(Target, "decide", lambda self, counts, m: orig(self, counts, Fraction(0)))
    h = certify_task(f, MAJ, mu, delta=D, max_length=16, budget_s=30).record()["horizon"]
    with pytest.raises(AssertionError):
        check(h, f, n_fail, D, mu)
    assert Fraction(h["witness"]["margin"]) < mu


def test_first_failure_beyond_the_enumeration_is_found_exactly(known, monkeypatch):
    """N0 = 3 < n*: the lengths beyond are enumerated further (find_horizon's extension): H and X exact.  With the
    extension switched off they are bisected by the branch-and-bound restricted to ranges of lengths, which bounds
    the closure of the shares (points of margin 1/10 no input of 4 letters has): X is still found exactly, H is
    sound (at most n* + 1) but need not reach it."""
    f, n_star, D = known
    assert n_star > 3
    cert = certify_task(f, MAJ, MU, delta=D, max_length=3, budget_s=60)
    assert cert.N0 == 3
    check(cert.record()["horizon"], f, n_star, D)
    monkeypatch.setattr(horizon, "EXTEND_FACTOR", 0)
    monkeypatch.setattr(horizon, "EXTEND_MIN", 0)
    h = certify_task(f, MAJ, MU, delta=D, max_length=3, budget_s=60).record()["horizon"]
    assert h["probes"] > 0 and h["X"] == n_star + 2 and cert.N0 + 2 <= h["H"] <= n_star + 1
    assert _torch_gap(f, h["witness"]["ids"][:-1]) < D


def test_a_certified_model_holds_at_every_length():
    f = _form()
    cert = certify_task(f, MAJ, Fraction(1, 10), budget_s=30)
    h = cert.record()["horizon"]
    assert cert.verdict == "certified" and h["every_length"] and h["H"] is None and h["X"] is None
    assert h["probes"] == 0  # nothing searched beyond the verdict
    # control: a logit margin above every gap fails at the first length (one letter: model length 3)
    h = certify_task(f, MAJ, Fraction(1, 10), delta=100.0, budget_s=10).record()["horizon"]
    assert (h["H"], h["X"], h["every_length"]) == (2, 3, False) and h["witness"]["letters"] == 1


# --------------------------------------------------------------------------------------------- margins
def _is_monotone(records: list) -> bool:
    """Over margins, largest first: H and X never grow as the margin shrinks (every_length counts as infinite)."""
    def key(v, every=False):
        return np.inf if every or v is None else v
    hs = [key(r["horizon"]["H"], r["horizon"]["every_length"]) for r in records]
    xs = [key(r["horizon"]["X"]) for r in records]
    return all(a >= b for a, b in itertools.pairwise(hs)) and all(a >= b for a, b in itertools.pairwise(xs))


def test_horizons_over_margins_are_monotone(known):
    """A smaller margin's statement holds the larger's inputs: its H is at most the larger's, its X too (the
    larger margin's failure bounds it; the smaller margin's verdict reuses that witness)."""
    f, n_star, D = known
    margins = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 10), Fraction(1, 20)]
    records, larger = [], None
    for mu in margins:
        larger = certify_task(f, MAJ, mu, delta=D, max_length=16, budget_s=20, larger=larger)
        records.append(larger.record())
    monotone_horizons(records)
    assert _is_monotone(records)
    check(records[2]["horizon"], f, n_star, D)
    check(records[3]["horizon"], f, first_failure(f, Fraction(1, 20), D), D, Fraction(1, 20))


def test_monotone_horizons_raises_a_larger_margin_to_a_smaller_ones_H():
    def rec(mu, H, X, every=False):
        return {"margin": mu, "horizon": {"H": H, "X": X, "every_length": every, "exact": X == (H or 0) + 1,
                                          "X_minus_H": None if X is None else X - H}}

    records = [rec("1/2", 10, None), rec("1/4", 40, 41), rec("1/8", 5, 6)]
    assert not _is_monotone(records)  # control: the check sees the violation
    monotone_horizons(records)
    assert _is_monotone(records) and records[0]["horizon"]["H"] == 40
    assert records[0]["horizon"]["H_from_margin"] == "1/4" and records[2]["horizon"]["H"] == 5
    every = [rec("1/2", 3, None), rec("1/4", None, None, every=True)]
    monotone_horizons(every)
    assert every[0]["horizon"]["every_length"] and every[0]["horizon"]["H"] is None


# --------------------------------------------------------------------------------------------- command line
def test_command_line_leads_with_the_horizon(known, tmp_path, capsys):
    from bounds.certify.cli import main

    f, n_star, D = known
    m = majority_model()
    with torch.no_grad():
        m.transformer.h[0].attn.c_attn.weight[0, 2 * CFG["n_embd"]] = -1.0  # _bos_model
    m.save_pretrained(tmp_path / "bos")
    argv = ["--model", str(tmp_path / "bos"), "--task", "binary_majority", "--margin", "1/10",
            "--logit-margin", repr(D)]
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    h = json.loads(capsys.readouterr().out)["horizon"]
    assert (h["H"], h["X"]) == (n_star + 1, n_star + 2) and h["lengths"].startswith("model lengths")
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("horizon at margin 1/10: gap > D = ") and f"model length 3..{n_star + 1}" in first
    assert f"first failure at length {n_star + 2}: `" in first and "exact: X = H + 1" in first, first


# --------------------------------------------------------------------------------------------- time budget
@pytest.fixture
def work(monkeypatch):
    """The work clock, advanced by GapEnclosure.gaps_and_split (every enclosure evaluation (gaps calls it too))."""
    return work_clock(monkeypatch, GapEnclosure, "gaps_and_split")


@pytest.mark.parametrize("budget", [2, 6, 15, 40])
def test_every_phase_stops_at_the_budget(known, budget, work, monkeypatch):
    """Budgets ending in the enumeration, the branch-and-bound and the horizon's probes (extension off): the work
    never exceeds the budget by more than one step; a length not reached is not claimed."""
    f, n_star, D = known
    monkeypatch.setattr(horizon, "EXTEND_FACTOR", 0)
    monkeypatch.setattr(horizon, "EXTEND_MIN", 0)
    cert = certify_task(f, MAJ, MU, delta=D, max_length=3, budget_s=budget)
    assert work.t <= budget + SLACK
    h = cert.record()["horizon"]
    assert not h["every_length"] and h["H"] <= n_star + 1 and (h["X"] is None or h["X"] >= n_star + 2)


def test_a_phase_that_ignores_the_deadline_is_caught(known, work, monkeypatch):
    """Negative control: with the deadline's checks disabled the same budget is overrun by far more than the
    slack."""
    f, n_star, D = known
    monkeypatch.setattr(search.Deadline, "expired", lambda self: False)
    monkeypatch.setattr(horizon, "EXTEND_FACTOR", 0)
    monkeypatch.setattr(horizon, "EXTEND_MIN", 0)
    certify_task(f, MAJ, MU, delta=D, max_length=3, budget_s=6, max_boxes=64)
    assert work.t > 6 + SLACK


def test_a_branch_and_bound_that_does_not_close_leaves_the_horizon_half_the_budget(work, monkeypatch):
    """At margin 0 the statement reaches the ties, where the gap tends to 0, so the branch-and-bound over every
    length > N0 does not close: it is handed half of the time left after the enumeration (as for pairs) and the
    horizon gets the rest, in which it enumerates lengths beyond N0; control: without the horizon the
    branch-and-bound is handed all of it."""
    from bounds.certify import gpt2_task

    f = _form()
    handed, started = [], []
    orig_bnb, orig_horizon = gpt2_task.branch_and_bound, gpt2_task.task_horizon

    def bnb(*a, **k):
        handed.append((work.t, a[7]))  # (the clock when called, the seconds it is given)
        return orig_bnb(*a, **k)

    def timed(*a, **k):
        started.append(work.t)
        return orig_horizon(*a, **k)

    monkeypatch.setattr(gpt2_task, "branch_and_bound", bnb)
    monkeypatch.setattr(gpt2_task, "task_horizon", timed)
    cert = certify_task(f, MAJ, Fraction(0), max_length=3, budget_s=40)
    t, seconds = handed[0]
    assert seconds == pytest.approx((40 - t) / 2) and started and started[0] <= t + seconds + SLACK
    assert cert.boxes_open > 0 and work.t <= 40 + SLACK
    assert cert.record()["horizon"]["H"] > cert.N0 + 2  # the horizon enumerated further lengths in its half
    handed.clear()
    work.t = 0.0
    certify_task(f, MAJ, Fraction(0), max_length=3, budget_s=40, horizon=False)
    t, seconds = handed[0]
    assert seconds == pytest.approx(40 - t)
