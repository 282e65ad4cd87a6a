"""golowich2025 Definition 4.1, Assumption D.1, Proposition 4.4 / D.2 (verify.golowich.coupling), exact."""

from fractions import Fraction

import pytest

from constructions.golowich import model as E
from verify.claims import checks
from verify.golowich import coupling as C
from verify.kernel import EnumerationStep, Proof, assert_proof, assert_universal_proof, negated


def _adjacent_marker_ensemble(mu=None):
    mu = mu or {0: Fraction(1, 2), 1: Fraction(1, 2)}

    def Qadj(ell):
        return {(s, s + 1): Fraction(1, ell - 1) for s in range(1, ell)}

    ens = E.Planted(2, mu, Qadj, {(2, 0): Fraction(1, 2), (2, 1): Fraction(1, 2)}, lambda z: Fraction(z[1]))

    def idc(ell):
        for S, p in Qadj(ell).items():
            yield S, {i: i for i in range(1, ell + 1)}, p

    return ens, idc




def _w(xs):
    return 1 if xs[0] == 2 else 0


def _g1(xs):
    return Fraction(xs[1])


@checks("golowich2025:def4.1", "golowich2025:fn8")
def test_def41_checker_accepts_reversal_and_rejects_identity():
    step = EnumerationStep("golowich2025:def4.1", "reversal coupling satisfies items 1-3 (l = 3..12, L_local = 0)",
                           instances=lambda: [C.reversal_coupling], predicate=lambda c: C.check_def41(c, range(3, 13), 0) == "")
    step = EnumerationStep(**{**step.__dict__, "negative": negated(step, instances=lambda: [C.identity_coupling])})
    assert_proof(Proof("golowich2025:def4.1", "Def 4.1 checker", (step,)))
    assert "item 1" in C.check_def41(C.identity_coupling, range(3, 13), 1)
    # k' = 1 for the reversal coupling while the class is 2-sparse: the sparsity type mismatch of D.2
    assert {len({psi[a] for a in S}) for S, psi, _ in C.reversal_coupling(8)} == {1}


@checks("golowich2025:def4.1")
def test_def41_item1_at_the_locality_boundary():
    """Item 1 at its boundary: span psi(S*) = L_local is accepted, span L_local + 1 rejected."""
    step = EnumerationStep("golowich2025:def4.1", "gap-d identity coupling satisfies items 1-3 with L_local = d",
                           instances=lambda: range(1, 4),
                           predicate=lambda d: C.check_def41(C.gap_coupling(d), range(d + 1, 10), d) == "")
    step = EnumerationStep(**{**step.__dict__, "negative": negated(
        step, predicate=lambda d: C.check_def41(C.gap_coupling(d + 1), range(d + 2, 10), d) == "")})
    assert_proof(Proof("golowich2025:def4.1", "Def 4.1 item 1 boundary", (step,)))
    assert C.check_def41(C.gap_coupling(2), range(3, 10), 1) == \
        "item 1 fails at l = 3, S* = (1, 3): span psi(S*) = 2"


@checks("golowich2025:prop-d2", "golowich2025:prop4.4")
def test_pc_background_law_depends_on_length():
    ens, idc = _adjacent_marker_ensemble()
    law4 = C.background_token_law(ens, idc, 4, 4)
    law5 = C.background_token_law(ens, idc, 4 + 1, 5)
    assert law4 != law5 and max(t for ((t, _),) in law5) == 5 > 2  # depends on l; tags outside [k]
    assert law4[((1, 0),)] == Fraction(1, 8) and law5[((1, 0),)] == Fraction(1, 10)


@checks("golowich2025:prop-d2", "golowich2025:asm-d1")
def test_random_tags_create_spurious_sets_for_span_restricted_keys():
    """The transfer step of D.2's proof fails with random tags (span-restricted key; D.2 itself assumes
    position-independent keys, under which this P is not strongly realizable -- see the gaps doc)."""
    ens, idc = _adjacent_marker_ensemble()
    w_loc = lambda S, xs: 1 if (E.span(S) == 1 and xs[0] == 2) else 0  # noqa: E731
    assert C.strong_event_probability(ens, 4, w_loc, _g1) == 1  # 0-strongly realizable with the span-1 key
    w_pi = lambda S, xs: _w(xs)  # noqa: E731 - position-independent version: not strongly realizable
    assert C.strong_event_probability(ens, 4, w_pi, _g1) < 1
    spur = C.spurious_probability(ens, idc, 4, _w, 2, 1)
    risk = C.pc_risk(ens, idc, 4, _w, _g1, 2, 1)
    assert (spur, risk) == (Fraction(1, 2), Fraction(1, 8))  # yet PC[h*] errs on PC[P_4]
    # negative control / repair: background tag fixed to 1 -> no spurious set, zero risk
    assert C.spurious_probability(ens, idc, 4, _w, 2, 1, "fixed") == 0
    assert C.pc_risk(ens, idc, 4, _w, _g1, 2, 1, "fixed") == 0


@checks("golowich2025:asm-d1")
def test_strong_implies_approximate_realizability():
    mu = {0: Fraction(9, 20), 1: Fraction(9, 20), 2: Fraction(1, 10)}
    ens, _ = _adjacent_marker_ensemble(mu)
    w_loc = lambda S, xs: 1 if (E.span(S) == 1 and xs[0] == 2) else 0  # noqa: E731
    for ell in (3, 4, 5):
        good = C.strong_event_probability(ens, ell, w_loc, _g1)
        risk = ens.risk(lambda x: E.attention(w_loc, _g1, x, 2, local=1), ell)
        assert 0 < 1 - good and risk <= 1 - good  # delta-strong => delta-approximate, same delta
        assert not risk <= (1 - good) / 100  # negative control: a 100x smaller delta is rejected


@checks("golowich2025:asm-d1")
def test_strong_implies_approximate_realizability_for_every_ensemble():
    """D.1 => 4.1 with the same delta for every ensemble, class, length, d and norm (z3): the attention sum keeps only
    S*, the loss vanishes on the good event and is <= 1 off it; controls: a second set keeps weight, w* = 0,
    L(Y, Y) = 0 dropped, diam(Y) <= 1 dropped, P(good) >= 1 - delta dropped."""
    assert_universal_proof(C.strong_realizability_universal(), 6)


@pytest.mark.slow
@checks("golowich2025:prop-d2")
def test_random_tag_leak_grows_slow():
    ens, idc = _adjacent_marker_ensemble()
    assert C.spurious_probability(ens, idc, 5, _w, 2, 1) == Fraction(3, 5)
    assert C.pc_risk(ens, idc, 5, _w, _g1, 2, 1) == Fraction(3, 20)
