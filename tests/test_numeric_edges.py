"""The core's numeric edges: each gives the exact answer or a clear warning."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp.compiler import CompileError, compile_program
from constructions.crasp.programs import BENCHMARKS
from constructions.limit_transformer import (
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    NotExactError,
    NotPeriodicError,
    PeriodicPositions,
    counting_forward,
)
from constructions.limit_transformer.precision import (
    BoundaryWarning,
    exact_weights,
    float_weights,
    flushes,
    iroot,
    rounded_power,
)

ONE = np.ones((1, 2), bool)


def _reference_rounded_power(n, a, p):
    """round_p(n^a) by the definition: the integer m nearest 2^p n^a, from (2m +- 1)^v vs 2^v Z (small sizes)."""
    u, v = a.numerator, a.denominator
    num, den = (2 ** (p * v) * n**u, 1) if u >= 0 else (2 ** (p * v), n ** (-u))
    lo, hi = 0, num // den + 1  # bisection for m = floor(2^p n^a): lo^v den <= num < hi^v den
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if mid**v * den <= num else (lo, mid)
    m = lo
    twice_v, rhs = num * 2**v, den * (2 * m + 1) ** v
    return Fraction(m + (twice_v > rhs or (twice_v == rhs and m % 2 == 1)), 2**p)


def test_huang_float_near_tie_warns_and_exact_is_exact():
    """Logit 15/16 - 2^-50 at p = 3 is 7.5 - 2^-47 eighths: not a tie (rounds to 7/8), exact weight 15/23."""
    with pytest.warns(BoundaryWarning, match="rounding decisions"):
        w = float_weights(np.array([[0.0, 15 / 16 - 2**-50]]), ONE, 2, 3, "huang")
    assert w[0, 1] == pytest.approx(2 / 3)  # decided as the tie: the warning says it may be wrong
    assert exact_weights([Fraction(0), Fraction(15, 16) - Fraction(1, 2**50)], 2, 3, "huang")[1] == Fraction(15, 23)
    with warnings.catch_warnings():  # control: far from any tie no warning
        warnings.simplefilter("error", BoundaryWarning)
        float_weights(np.array([[0.0, 0.8]]), ONE, 2, 3, "huang")


def test_izzo_float_near_flush_boundary_warns_and_exact_decides():
    """gap 1 - 2^-41, n = 2, p = 1: n^gap < 2^p, the term survives (the exact path says the weight is irrational)."""
    gap = 1 - Fraction(1, 2**41)
    with pytest.warns(BoundaryWarning, match="flush decisions"):
        float_weights(np.array([[0.0, -float(gap)]]), ONE, 2, 1, "izzo")
    assert not flushes(gap, 2, 1) and flushes(Fraction(1), 2, 1)
    with pytest.raises(NotExactError, match="survives"):
        exact_weights([Fraction(0), -gap], 2, 1, "izzo")


def test_flushes_is_polynomial_in_the_bit_size_of_the_gap():
    for k in (28, 41, 200):
        gap = 1 - Fraction(1, 2**k)
        assert not flushes(gap, 2, 1) and flushes(gap, 3, 1) and not flushes(gap, 3, 2)
    assert flushes(Fraction(1, 3), 8, 1) and not flushes(Fraction(1, 3) - Fraction(1, 10**40), 8, 1)
    import mpmath

    mpmath.mp.dps = 120
    boundary = mpmath.log(2) / mpmath.log(3)  # 3^gap >= 2 iff gap >= log_3 2 (irrational)
    for den in (10**12, 10**25, 10**40):  # rational gaps within 1/den of the boundary, on both sides
        below = Fraction(int(mpmath.floor(boundary * den)), den)
        assert not flushes(below, 3, 1) and flushes(below + Fraction(1, den), 3, 1)


@settings(max_examples=60)
@given(st.integers(1, 40), st.integers(1, 9), st.integers(-12, 12), st.integers(1, 6))
def test_flushes_matches_the_definition(n, v, u, p):
    gap = Fraction(abs(u), v)
    assert flushes(gap, n, p) == (gap > 0 and n > 1 and n ** gap.numerator >= 2 ** (p * gap.denominator))


@settings(max_examples=80)
@given(st.integers(1, 30), st.integers(-8, 8), st.integers(1, 6), st.integers(0, 4))
def test_rounded_power_matches_the_definition(n, u, v, p):
    a = Fraction(u, v)
    assert rounded_power(n, a, p) == _reference_rounded_power(n, a, p)


@settings(max_examples=80)
@given(st.integers(0, 10**60), st.integers(1, 70))
def test_iroot_is_the_integer_root(a, k):
    r = iroot(a, k)
    assert r**k <= a < (r + 1) ** k


def test_iroot_and_rounded_power_at_large_denominators():
    assert iroot(2**(16 * 2**16) * 7, 2**16) == 2**16 + 1  # (1 + 2^-16)^(2^16) ~ e <= 7 < e^2; was O(2^p) steps
    assert iroot(3**300, 5) == 3**60 and iroot(3**300 - 1, 5) == 3**60 - 1
    a = Fraction(12345677, 2**24)  # a p = 24 rounded logit
    x = rounded_power(7, a, 24)
    assert abs(float(x) - 7 ** float(a)) < 2**-23
    w = exact_weights([Fraction(k, 3) for k in range(-5, 6)], 1000, 24, "huang")
    assert sum(w) == 1 and w == sorted(w)


def _tie_model():
    """Query 'a' ties the far key '$' (logit 3/10) with its previous key (1/10 + phi_1 = 1/10 + 1/5)."""
    E = [[1, 0, 1], [0, 1, 1]]
    head = Head(query=[[0, 0, 1]], key=[[Fraction(3, 10), Fraction(1, 10), 0]],
                value=[[1, 0, 0], [0, 0, 0], [0, 0, 0]], phi=LocalPhi((0, Fraction(1, 5))))
    return LimitTransformer(("a",), E, [Layer([head])], [[1, 0, 0]], precision_bits=1, precision="izzo")


def test_counting_forward_float_decides_ties_exactly():
    model, s = _tie_model(), "a" * 40  # n = 41 >= 2^(p / gap) = 32: hardmax
    exact = counting_forward(model, s, positions="all", exact=True)
    fast = counting_forward(model, s, positions="all", exact=False)
    assert exact[-1, 0] == Fraction(1, 2)  # the tie: average of $ (1) and a (0)
    assert np.allclose(fast.astype(float), np.array(exact, dtype=float))


def test_declared_period_is_kept_or_refused():
    two_periodic = [[0], [1]] * 5
    assert PeriodicPositions.from_sequence(two_periodic).period == 2
    assert PeriodicPositions.from_sequence(two_periodic, period=4).period == 4
    with pytest.raises(NotPeriodicError, match="needs at least 5"):
        PeriodicPositions.from_sequence([[0], [1]], period=5)
    with pytest.raises(NotPeriodicError, match="not 3-periodic"):
        PeriodicPositions.from_sequence(two_periodic, period=3)


def test_compiler_refuses_local_logit_below_one():
    prog = BENCHMARKS["tomita4"].program()
    for lam in (Fraction(1, 2), Fraction(3, 4), 0):
        with pytest.raises(CompileError, match="must be >= 1"):
            compile_program(prog, local_logit=lam)
    assert compile_program(prog, local_logit=1).metadata["local_logit"] == "1"


def _positional_model(phi1):
    """One positional-only head (K^T Q = 0) reading the token: offset 1 has logit phi1, far keys 0."""
    head = Head(query=[[0, 0]], key=[[0, 0]], value=[[1, 0], [0, 0]], phi=LocalPhi((0, phi1)))
    return LimitTransformer(("a", "b"), [[0, 0], [1, 0], [0, 1]], [Layer([head])], [[1, 0]], precision_bits=1,
                            precision="izzo")


def _decisions(record) -> int:
    return sum(int(str(w.message).split(": ")[1].split()[0]) for w in record if w.category is BoundaryWarning)


@pytest.mark.parametrize("block", [64, 1000])
def test_stream_blocks_count_boundary_decisions_as_forward(block):
    """stream_forward answers blocks of steady queries from one remembered row of softmax terms only when that
    row took no boundary decision: at the flush boundary (offset logit -1/10, n = 2^10: n^(-1/10) = 2^-p) every
    block still reports its decisions, and the total equals forward's over the same positions."""
    from constructions.limit_transformer import forward, stream_forward

    s = "ab" * 511 + "a"  # n = 1024 positions with $
    model = _positional_model(Fraction(-1, 10))
    with warnings.catch_warnings(record=True) as ref:
        warnings.simplefilter("always")
        full = forward(model, s, positions="all")[0]
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        streamed = stream_forward(model, s, positions="all", block=block)
    assert _decisions(ref) > 0 and _decisions(got) == _decisions(ref)
    assert np.allclose(streamed, full)
    # control: away from the boundary nothing is reported, and the remembered row gives forward's outputs
    far = _positional_model(Fraction(-3, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("error", BoundaryWarning)
        assert np.allclose(stream_forward(far, s, positions="all", block=block), forward(far, s, positions="all")[0])
