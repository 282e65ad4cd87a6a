"""Bounded searches for ahuja2024: try to break steps on many small exact instances.

All are marked slow; run with ``pytest -m slow verify/tests/ahuja2024/test_search.py -q -s`` (each prints its
outcome line; the outcomes are recorded in docs/verify_ahuja.md).
"""

import itertools
import math
from fractions import Fraction as F

import pytest
import sympy
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.ahuja import covers, discrete, rademacher, ssm
from verify.claims import checks

pytestmark = pytest.mark.slow

small = st.fractions(min_value=-3, max_value=3, max_denominator=4)


def _mat(n):
    return st.lists(small, min_size=n * n, max_size=n * n).map(lambda v: sympy.Matrix(n, n, [sympy.Rational(x) for x in v]))


@checks("ahuja2024:thm8", "ahuja2024:eq25")
@settings(max_examples=150, deadline=None)
@given(n=st.sampled_from([2, 3]), data=st.data())
def test_search_thm8_random_rational_instances(n, data):
    """(24)-(25): for random invertible (Lambda, B, C), Lambda~ = C Lambda C^{-1}, B~ = C B satisfy
    Lambda~^i B~ = C Lambda^i B (i <= 6) and h~_t = C h_t; no counterexample expected."""
    Lam, B, C = data.draw(_mat(n)), data.draw(_mat(n)), data.draw(_mat(n))
    if 0 in (Lam.det(), B.det(), C.det()):
        return
    Lt, Bt = C * Lam * C.inv(), C * B
    for i in range(7):
        assert Lt**i * Bt == C * Lam**i * B


@checks("ahuja2024:thm8", "ahuja2024:asm9")
@settings(max_examples=150, deadline=None)
@given(cols=st.lists(st.lists(st.integers(-2, 2), min_size=4, max_size=4), min_size=1, max_size=6))
def test_search_thm8_rank_iff_injective(cols):
    """(23): R X = 0 forces R = 0 exactly when rank X = n i (random integer data, n = i = 2)."""
    X = sympy.Matrix(cols).T
    assert (ssm._injectivity_nullity(X) == 0) == (X.rank() == 4)


@checks("ahuja2024:thm5")
def test_search_bounded_support_never_pins_additivity():
    """z3 over 200 random finite support-pair sets D in [0,1]^2 (grid 1/4): H(alpha, beta) at a target pair is
    entailed only when D's closure reaches it; outside [0,1]^2 never.  Prints the counts."""
    import random

    rnd = random.Random(0)
    grid = [F(k, 4) for k in range(5)]
    a = z3.Function("a", z3.RealSort(), z3.RealSort())
    val = lambda q: z3.RealVal(str(q))  # noqa: E731
    outside_entailed = 0
    for _ in range(200):
        D = rnd.sample(list(itertools.product(grid, grid)), 8)
        s = z3.Solver()
        s.add(a(0) == 0)
        for u, v in D:
            s.add(a(val(u + v)) == a(val(u)) + a(val(v)))
        s.add(a(val(3)) != a(val(2)) + a(val(1)))     # target (2, 1): outside the support pairs
        outside_entailed += s.check() == z3.unsat
    print(f"\n[thm5 search] target (2,1) entailed by bounded support pairs in 0/200 expected: {outside_entailed}")
    assert outside_entailed == 0


@checks("ahuja2024:asm15", "ahuja2024:thm17")
def test_search_literal_a15_supports():
    """All S subset {1,2,3,4}^2 with 4..6 points: how many meet A15 literally, how many only with pairs that
    share y_i (the scalar step (84)-(85) is then vacuous), and how many of those have both coordinate value
    sets of the form {a, 2a} (the exact non-permutation witness of discrete.findings applies)."""
    pts = list(itertools.product(range(1, 5), repeat=2))
    literal = shared = doubling = 0
    for k in range(4, 7):
        for S in itertools.combinations(pts, k):
            if not discrete.satisfies_a15(S):
                continue
            literal += 1
            if discrete.satisfies_a15(S, distinct_yi=True):
                continue
            shared += 1
            vals = [sorted({p[i] for p in S}) for i in range(2)]
            doubling += all(len(v) == 2 and v[1] == 2 * v[0] for v in vals)
    print(f"\n[A15 search] literal A15: {literal}; only shared-y_i pairs: {shared}; of those {{a,2a}}^2: {doubling}")
    assert literal > 0 and shared > 0 and doubling > 0


@checks("ahuja2024:thm12")
@settings(max_examples=40, deadline=None)
@given(r=st.sampled_from([F(1, 2), F(2, 3), F(3, 4)]), eps=st.sampled_from([F(1, 100), F(1, 50), F(1, 20)]))
def test_search_thm12_random_instances(r, eps):
    """Theorem 12 on the exact family for several (r, eps): from T_0 on, every member stays eps-good up to t = 60."""
    old = (covers.R_RATE, covers.EPS)
    covers.R_RATE, covers.EPS = r, eps
    covers.constrained_sets.cache_clear()
    try:
        sets = covers.constrained_sets()
        T0 = covers.threshold()
        assert all(covers.risk(th, t) <= eps for th in sets[T0] for t in range(1, covers.HORIZON + 1))
        assert all(sets[T + 1] <= sets[T] for T in range(1, covers.HORIZON))
    finally:
        covers.R_RATE, covers.EPS = old
        covers.constrained_sets.cache_clear()


@checks("ahuja2024:eq94")
def test_search_rademacher_small_classes():
    """Exhaustive over classes of N = 2 loss tables with values in {0, 1} on m <= 2 sequences, T <= 4 (c = 1):
    count violations of (94) (eps = 0) under the paper's shared signs; log via math.log (float, margin 1e-9)."""
    viol = total = 0
    for m, T in itertools.product((1, 2), (1, 2, 3, 4)):
        cells = m * T
        tables = list(itertools.product((0, 1), repeat=cells))
        for g1, g2 in itertools.combinations(tables, 2):
            cls = [[[F(g[i * T + t]) for t in range(T)] for i in range(m)] for g in (g1, g2)]
            R = rademacher.rademacher_shared(cls, m, T)
            bound = 2 * math.sqrt(math.log(2) / (m * T))
            total += 1
            viol += float(R) > bound + 1e-9
    print(f"\n[eq94 search] shared-sign violations of (94): {viol}/{total}")
    assert total > 0
