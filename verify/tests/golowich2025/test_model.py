"""Exact model of Golowich et al. Sec. 3 and the assumption checkers (each with a negative control)."""

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from constructions.golowich.assumptions import (
    check_coverage,
    check_local,
    check_realizable,
    check_relative,
    coverage_eta,
)
from constructions.golowich.model import (
    NEG_INF,
    AttentionClass,
    Ensemble,
    KeyFunction,
    ModelError,
    ValueFunction,
    h_value,
    point_ensemble,
    risk,
    sets_k,
    span,
    train_risk,
    training_lengths,
    uniform,
)
from verify.claims import checks

F = Fraction
V2 = [(a, b) for a in (1, 2) for b in (1, 2)]
IND22 = ValueFunction("ind22", {x: F(int(x == (2, 2))) for x in V2})


def key(name, rule):
    return KeyFunction(name, lambda S, x: F(0) if rule(S, x) else NEG_INF)


@checks("golowich2025:def3.3")
def test_k1_equals_softmax_attention_with_rational_scores():
    scores = {1: F(1), 2: F(-1, 2), 3: F(0)}
    g0 = KeyFunction("lin", lambda S, x: scores[x[0]])
    g1 = ValueFunction("v", {(1,): F(1), (2,): F(0), (3,): F(1, 3)})
    x = (1, 2, 3, 3)
    got = h_value(g0, g1, x, 1)
    w = [math.exp(scores[t]) for t in x]
    want = sum(wi * float(g1((t,))) for wi, t in zip(w, x, strict=True)) / sum(w)
    assert abs(float(sympy.N(got, 30)) - want) < 1e-12
    # negative control: a different value table gives a different output
    g1b = ValueFunction("v", {(1,): F(0), (2,): F(0), (3,): F(1, 3)})
    assert abs(float(sympy.N(h_value(g0, g1b, x, 1), 30)) - want) > 1e-3


@checks("golowich2025:def3.3")
def test_shift_invariance_of_scores():
    g0 = key("a", lambda S, x: x == (2, 2) or span(S) == 2)
    g0s = KeyFunction("a+7", lambda S, x: g0(S, x) + 7 if g0(S, x) != NEG_INF else NEG_INF)
    for x in [(1, 2, 2, 1, 1), (2, 2, 1, 2, 2), (1, 1, 1, 2, 1)]:
        assert h_value(g0, IND22, x, 2) == h_value(g0s, IND22, x, 2)


@checks("golowich2025:fn6")
def test_footnote6_fallback_is_uniform_average_over_all_sets():
    never = key("never", lambda S, x: False)
    x = (1, 2, 2, 1, 2)
    # pairs (2,2): {2,3}, {2,5}, {3,5} -> 3 of C(5,2) = 10
    assert h_value(never, IND22, x, 2) == F(3, 10)
    # negative control: with one finite score the output is that set's value, not the average
    one = key("one", lambda S, x: S == (1, 2))
    assert h_value(one, IND22, x, 2) == 0 != F(3, 10)


@checks("golowich2025:def3.2")
def test_ensemble_validation_rejects_perturbed_probabilities():
    def q(l):
        return uniform([(i, i + 1) for i in range(1, l)])

    ens = point_ensemble((1, 2), 2, 1, (2, 2), 1, q)
    assert sum(ens.joint(5).values()) == 1
    with pytest.raises(ModelError, match="sums to"):
        Ensemble((1, 2), 2, {1: F(1, 2), 2: F(1, 3)}, {(2, 2): F(1)}, {(2, 2): F(1)}, q)
    bad = point_ensemble((1, 2), 2, 1, (2, 2), 1, lambda l: {**q(l), (1, 2): q(l)[(1, 2)] + F(1, 100)})
    with pytest.raises(ModelError, match="sums to"):
        bad.joint(4)
    with pytest.raises(ModelError, match="l < k|< k"):
        ens.qpos(1)
    with pytest.raises(ModelError, match="not a Fraction"):
        Ensemble((1, 2), 2, {1: 1.0}, {(2, 2): F(1)}, {(2, 2): F(1)}, q)


@checks("golowich2025:def3.2")
@given(st.lists(st.integers(1, 4), min_size=2, max_size=2), st.integers(1, 5), st.integers(3, 5))
def test_joint_matches_product_formula(mu_w, qw, length):
    mu = {1: F(mu_w[0], sum(mu_w)), 2: F(mu_w[1], sum(mu_w))}
    sets = sets_k(length, 2)
    ws = {S: (i % qw) + 1 for i, S in enumerate(sets)}
    tot = sum(ws.values())
    ens = Ensemble((1, 2), 2, mu, {(2, 1): F(1, 3), (1, 1): F(2, 3)}, {(2, 1): F(1), (1, 1): F(0)},
                   lambda l: {S: F(w, tot) for S, w in ws.items()})
    joint = ens.joint(length)
    assert sum(joint.values()) == 1
    # P(X = all ones, Y = 0) by the product formula
    want = sum(F(ws[S], tot) * F(2, 3) * mu[1] ** (length - 2) for S in sets)
    assert joint[((1,) * length, F(0))] == want


@checks("golowich2025:def3.1")
def test_training_lengths_and_average():
    assert training_lengths(7, 2) == [4, 5, 6, 7]
    assert training_lengths(8, 2) == [4, 5, 6, 7, 8]
    with pytest.raises(ModelError):
        training_lengths(2, 2)
    ens = point_ensemble((1, 2), 2, 1, (2, 2), 1, lambda l: uniform([(1, l)]))
    g = key("adj", lambda S, x: span(S) == 1 and x == (2, 2))
    # lengths 2, 3, 4; S* = {1, l} is adjacent only for l = 2 (error 0), else the fallback gives 1/C(l,2)
    want = (0 + sum(1 - F(1, math.comb(l, 2)) for l in (3, 4))) / 3
    assert train_risk(g, IND22, ens, 4) == want


@checks("golowich2025:asm3.3")
def test_locality_checker_positive_and_negative():
    local = key("loc", lambda S, x: span(S) <= 2 and x == (2, 2))
    wide = key("wide", lambda S, x: x == (2, 2))
    assert check_local([local], (1, 2), 2, 2, 10).holds
    v = check_local([local, wide], (1, 2), 2, 2, 10)
    assert not v.holds and v.witness["key"] == "wide" and v.witness["span"] == 3


@checks("golowich2025:asm3.3")
def test_relative_checker_positive_and_negative():
    rel = key("rel", lambda S, x: span(S) == 1)
    absolute = key("abs", lambda S, x: span(S) == 1 and S[1] > 4)
    assert check_relative([rel], (1, 2), 2, 9).holds
    v = check_relative([rel, absolute], (1, 2), 2, 9)
    assert not v.holds and v.witness["key"] == "abs" and v.witness["S"] == (1, 2)


@checks("golowich2025:asm4.1")
def test_realizability_checker():
    ens = point_ensemble((1, 2), 2, 1, (2, 2), 1, lambda l: uniform([(i, i + 1) for i in range(1, l)]))
    good = key("good", lambda S, x: x == (2, 2))
    bad = key("bad", lambda S, x: span(S) == 2)
    assert check_realizable(AttentionClass((good, bad), (IND22,), 2), ens, range(2, 8)).holds
    v = check_realizable(AttentionClass((bad,), (IND22,), 2), ens, range(2, 8))
    assert not v.holds and v.value > 0 and "bad,ind22" in v.witness
    # with delta at least the best risk it holds again (delta-approximate)
    assert check_realizable(AttentionClass((bad,), (IND22,), 2), ens, range(2, 8), delta=v.value).holds


def _shift_ensemble(base, Lloc):
    """The paper's random-shift construction: S ~ Q_{L_local}, Delta ~ Unif{0..l - L_local}."""
    def q(l):
        if l < Lloc:
            return uniform([tuple(range(1, 3))])  # unused by the checks (l' >= L_local)
        out = {}
        for S, p in base.items():
            for d in range(l - Lloc + 1):
                T = (S[0] + d, S[1] + d)
                out[T] = out.get(T, F(0)) + p / (l - Lloc + 1)
        return out
    return point_ensemble((1, 2), 2, 1, (2, 2), 1, q)


@checks("golowich2025:asm4.2", "golowich2025:asm4.2.random-shift")
@pytest.mark.parametrize("base,Lloc,expect", [
    ({(1, 2): F(1)}, 2, lambda l: l - 1),
    ({(1, 3): F(1)}, 3, lambda l: l - 2),
    (uniform(sets_k(3, 2)), 3, lambda l: l - 2),
    ({(1, 2): F(1)}, 3, lambda l: math.inf),
    ({(2, 3): F(1)}, 3, lambda l: math.inf),
    ({(1, 2): F(1, 100), (2, 3): F(99, 100)}, 3, lambda l: 100),
])
def test_random_shift_eta(base, Lloc, expect):
    ens = _shift_ensemble(base, Lloc)
    for l in (4, 8, 12):
        assert coverage_eta(ens, Lloc, l)[0] == expect(l)
    holds = check_coverage(ens, Lloc, range(Lloc, 13)).holds  # eta_l = l as the paper claims
    assert holds == (expect(12) <= 12)


@checks("golowich2025:asm4.2")
@pytest.mark.parametrize("base,Lloc,need", [({(1, 2): F(1)}, 2, lambda l: l - 1),
                                            ({(1, 2): F(1, 100), (2, 3): F(99, 100)}, 3, lambda l: F(100))])
def test_coverage_checker_at_its_exact_boundary(base, Lloc, need):
    """Assumption 4.2's checker against its exact boundary: an allowed eta_l equal to the needed one is accepted,
    one just below it (by 1/10^9, and by a factor 2/3 or 1/2, so a checker that tolerated violations up to twice
    the allowed value would accept) is refused, with the offending length named."""
    ens = _shift_ensemble(base, Lloc)
    ls = range(Lloc + 1, 9)
    assert all(coverage_eta(ens, Lloc, l)[0] == need(l) for l in ls)
    assert check_coverage(ens, Lloc, ls, eta=need).holds
    for under in (lambda l: need(l) - F(1, 10**9), lambda l: need(l) * F(2, 3), lambda l: need(l) / 2):
        v = check_coverage(ens, Lloc, ls, eta=under)
        assert not v.holds and v.witness["l"] == Lloc + 1 and F(v.witness["needed_eta"]) == need(Lloc + 1)
    # the first length checked is l = max(L_local, k) itself: a violation there alone is refused (control: the
    # needed eta at that length is accepted)
    first = max(Lloc, ens.k)
    at_first = coverage_eta(ens, Lloc, first)[0]
    assert check_coverage(ens, Lloc, range(first, 9), eta=lambda l: at_first if l == first else need(l)).holds
    v = check_coverage(ens, Lloc, range(first, 9),
                       eta=lambda l: at_first - F(1, 10**9) if l == first else need(l))
    assert not v.holds and v.witness["l"] == first


@checks("golowich2025:asm4.2")
def test_coverage_forces_the_contiguous_set_when_L_local_le_k():
    """Q_k is a point mass on {1..k}; inequality (ii) with l' = k then requires Q_l({1..k}) >= 1/eta_l."""
    ens = point_ensemble((1, 2), 2, 1, (2, 2), 1, lambda l: uniform([(i, i + 1) for i in range(2, l)] or [(1, 2)]))
    e, wit = coverage_eta(ens, 2, 4)
    assert e == math.inf and wit[0] == "ii" and wit[1] == 2 and wit[3] == (1, 2)


@checks("golowich2025:def3.1")
def test_risk_is_exact_fraction_for_hard_attention():
    ens = point_ensemble((1, 2), 2, 1, (2, 2), 1, lambda l: uniform([(i, i + 2) for i in range(1, l - 1)]))
    g = key("adj22", lambda S, x: span(S) == 1 and x == (2, 2))
    r = risk(g, IND22, ens, 6)
    assert isinstance(r, Fraction) and r == 1 - F(1, 15)


def _relative_by_definition(g0, vocab, k, lmax):
    """Assumption 3.3.2 straight from its statement: g0(S + i, x) = g0(S, x) whenever S, S + i in Sets_k([lmax])."""
    import itertools

    for S in sets_k(lmax, k):
        for i in range(1, lmax - S[-1] + 1):
            for x in itertools.product(vocab, repeat=k):
                if g0(tuple(j + i for j in S), x) != g0(S, x):
                    return False
    return True


@checks("golowich2025:asm3.3")
def test_relative_checker_agrees_with_the_definition_at_every_shift():
    """check_relative against Assumption 3.3.2 read literally, for keys that break relativity only at one position
    m (a set starting or ending at m), every m of [lmax]: including the shift that moves a set to end at lmax, and
    keys that are relative on [lmax] (positive controls: a set never ends beyond lmax)."""
    for lmax in (4, 5, 7):
        keys = [key(f"end={m}", lambda S, x, m=m: S[-1] == m) for m in range(2, lmax + 1)]
        keys += [key(f"start={m}", lambda S, x, m=m: S[0] == m) for m in range(1, lmax)]
        keys += [key("inside", lambda S, x, lmax=lmax: S[-1] <= lmax), key("span1", lambda S, x: span(S) == 1)]
        for g0 in keys:
            want = _relative_by_definition(g0, (1, 2), 2, lmax)
            assert check_relative([g0], (1, 2), 2, lmax).holds == want, (lmax, g0.name)
        # the end-at-lmax key: only the largest shift of a set starting at 1 reaches it
        assert not check_relative([keys[lmax - 2]], (1, 2), 2, lmax).holds
        assert check_relative([keys[-2]], (1, 2), 2, lmax).holds


@checks("golowich2025:asm3.3")
def test_local_checker_agrees_with_the_definition_at_every_span():
    """check_local against Assumption 3.3.1 read literally (g0 = -inf whenever span(S) > L_local), for keys active
    exactly at one span s, every s and L_local: a key active at span L_local + 1 is not local (the boundary),
    one active at span L_local is (control)."""
    for lmax in (5, 7):
        for L_local in range(1, lmax - 1):
            for s in range(1, lmax):
                g0 = key(f"span={s}", lambda S, x, s=s: span(S) == s)
                assert check_local([g0], (1, 2), 2, L_local, lmax).holds == (s <= L_local), (lmax, L_local, s)
