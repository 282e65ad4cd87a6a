"""golowich2025 Lemmas C.1 and C.2 (Appendix C.1): kernel steps, exact instances, and the C.1 counterexample."""

from fractions import Fraction

import pytest
import sympy
import z3

from verify.claims import checks
from verify.golowich import lemmas as L
from verify.kernel import EnumerationStep, Proof, SympyStep, Z3Step, assert_proof, negated

K2 = "golowich2025:lem-c2"
K1 = "golowich2025:lem-c1"


def _with_neg(step, **changes):
    return type(step)(**{**step.__dict__, "negative": negated(step, **changes)})


def _z3_abs(x):
    return z3.If(x >= 0, x, -x)


def c2_proof() -> Proof:
    a, b, q, p = sympy.symbols("a b q p")
    ident = SympyStep(K2, "a/b - (q+a)/(p+b) = (p a - b q)/(b (p+b))", lhs=a / b - (q + a) / (p + b),
                      rhs=(p * a - b * q) / (b * (p + b)))
    ident = _with_neg(ident, rhs=(q * a - b * p) / (b * (p + b)))
    e1, e2, e3, p1, p2, p3 = z3.Reals("e1 e2 e3 p1 p2 p3")
    nonneg = (e1 >= 0, e2 >= 0, e3 >= 0, p1 >= 0, p2 >= 0, p3 >= 0)
    key = Z3Step(K2, "sum eps_i p_i <= (sum eps_i)(sum p_i) (L = 3)", hypotheses=nonneg,
                 goal=e1 * p1 + e2 * p2 + e3 * p3 <= (e1 + e2 + e3) * (p1 + p2 + p3))
    key = _with_neg(key, hypotheses=(e1 >= 0, e2 >= 0, e3 >= 0))  # drop p_i >= 0
    A, B, Q1, Q2, P1, P2, E1, E2 = z3.Reals("A B Q1 Q2 P1 P2 E1 E2")
    hyp = (B > 0, P1 >= 0, P2 >= 0, E1 == _z3_abs(A / B - (A + Q1) / (B + P1)),
           E2 == _z3_abs(A / B - (A + Q2) / (B + P2)))
    whole = Z3Step(K2, "Lemma C.2, d = 1, L = 2, p_i >= 0 (z3, nonlinear reals)", hypotheses=hyp,
                   goal=_z3_abs(A / B - (A + Q1 + Q2) / (B + P1 + P2)) <= E1 + E2)
    whole = _with_neg(whole, hypotheses=(B > 0, B + P1 > 0, B + P2 > 0, B + P1 + P2 > 0, *hyp[3:]))
    enum = EnumerationStep(K2, "exact random instances d <= 3, L <= 5, l1 / l_inf",
                           instances=lambda: L.c2_instances(300),
                           predicate=lambda inst: (lambda s: s[0] <= s[1])(L.c2_sides(*inst)))
    enum = _with_neg(enum, instances=lambda: L.c2_instances(300, negative_p=True))
    return Proof(K2, "Lemma C.2", (ident, key, whole, enum))


@checks(K2)
def test_lemma_c2_proof_and_controls():
    res = assert_proof(c2_proof())
    assert all(r.negative_outcome is not None and not r.negative_outcome.holds for r in res)


@checks(K2)
def test_lemma_c2_needs_positivity_witness():
    lhs, tot = L.c2_sides(*L.c2_negative_witness())
    assert (lhs, tot) == (Fraction(1), Fraction(1, 10))


def c1_refutation_step(M):
    """EnumerationStep asserting (u_M) satisfies C.1's hypotheses with positive weights and violates 3 i eps."""
    def violates(M):
        q = L.c1_quantities(*L.c1_witness(M), 3)
        return q["eps"] > 0 and q["eps1"] <= q["eps"] and q["eps2"] <= q["eps"] and q["lhs"] > 9 * q["eps"]
    return EnumerationStep(K1, "witness violates E|r0 - r0123| <= 9 eps", instances=lambda: [M], predicate=violates)


@checks(K1)
def test_lemma_c1_counterexample_is_a_witness():
    q = L.c1_quantities(*L.c1_witness(100), 3)
    assert q == {"eps1": 0, "eps2": Fraction(1, 408), "lhs": Fraction(115, 3296),
                 "hybrid": Fraction(35, 816), "eps": Fraction(1, 408)}
    assert q["lhs"] > 9 * q["eps"] and q["hybrid"] > 3 * q["eps"]  # conclusion and the proof's hybrid step fail
    law0, law, f0, g0, f, g = L.c1_witness(100)
    assert all(g(a, b) > 0 for a in "xyz" for b in "xyz") and g0("x", "z") > 0  # positive weights
    step = c1_refutation_step(100)
    step = EnumerationStep(**{**step.__dict__, "negative": negated(step, instances=lambda: [1])})  # M = 1: holds
    res = assert_proof(Proof(K1, "Lemma C.1 refutation", (step,)))
    assert not res[0].negative_outcome.holds


@checks(K1)
def test_lemma_c1_ratio_unbounded_in_M():
    ratios = [(lambda q: q["lhs"] / q["eps"])(L.c1_quantities(*L.c1_witness(M), 3)) for M in (10, 100, 1000)]
    assert ratios[0] < ratios[1] < ratios[2] and ratios[2] > 100  # no constant C with lhs <= C i eps


@checks(K1)
def test_lemma_c1_small_cases_hold():
    """Positive part: i <= 2 follows from the triangle inequality (checked on random instances)."""
    for inst in L.c1_random_instances(25, seed=3):
        q = L.c1_quantities(*inst, 2)
        assert q["lhs"] <= q["eps1"] + q["eps2"] <= 6 * q["eps"]


@pytest.mark.slow
@checks(K1)
def test_lemma_c1_random_search_slow():
    """Bounded random search (1000 instances, |Omega| = 3, i = 3, 4): records the worst ratio (see docs)."""
    for i in (3, 4):
        worst, _ = L.c1_search(1000, seed=7, i=i)
        assert worst < 1  # random instances do not find it; the structured witness does


@checks(K1)
def test_lemma_c1_repair_when_blocks_do_not_look_back():
    """Repair: if A_i = f(Z_i), B_i = g(Z_i) (no dependence on Z_{i-1}), (Z_0, Z_1, Z_i) has the law of
    (Z_0, Z_1, Z_2), the hybrid step is exact and Lemma C.2 gives E|r_0 - r_{0..i}| <= i eps.  Checked
    exactly on random instances; the witness needs the look-back (g(y, z) = M)."""
    import random

    rng = random.Random(5)
    for _ in range(15):
        probs = [rng.randint(1, 4) for _ in range(3)]
        law = {z: Fraction(p, sum(probs)) for z, p in enumerate(probs)}
        F = {z: rng.choice((0, 1)) for z in range(3)}
        G = {z: rng.choice((1, 2, 5, 20)) for z in range(3)}
        a0 = rng.choice((0, 1))
        inst = ({0: Fraction(1)}, law, lambda z1, z0, a0=a0: a0, lambda z1, z0: 1,
                lambda c, p, F=F, G=G: F[c] * G[c], lambda c, p, G=G: G[c])
        for i in (3, 4):
            q = L.c1_quantities(*inst, i)
            assert q["lhs"] <= i * q["eps"]
    q = L.c1_quantities(*L.c1_witness(100), 3)
    assert q["lhs"] > 3 * q["eps"]  # negative control: the look-back witness violates even i * eps


@checks(K2)
def test_lemma_c2_for_every_dimension_norm_and_number_of_terms():
    res = assert_proof(L.c2_universal())
    assert all(not r.negative_outcome.holds for r in res)
