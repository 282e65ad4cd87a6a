"""bounds.float_enclosures (the interval mode of the Theorem 4.1 length for float-weight models) against exact
rational arithmetic.

Soundness: every exact value the inputs admit lies in the enclosure, both in the Ball contract
``|x - mid| <= rad`` (checked with Fractions, no rounding) and between the float endpoints ``lower``/``upper``.
The instances are TIGHT: inputs are taken at the vertices of their balls, signs aligned, so the exact product
attains the radius that each term of the a-priori bound accounts for; dropping a radius term or rounding an
endpoint the wrong way puts the exact value outside.  A width control bounds each enclosure from above by the exact
range plus the float error allowance, so an enclosure cannot pass by being vacuous either.  Negative controls: the
same checker rejects an enclosure with an endpoint rounded inward and one with a radius term dropped.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.float_enclosures import TINY, Ball, U, add, ball, from_floats, gamma_n, matmul, sq_norm_upper, sub
from verify.claims import checks

REL = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False).filter(
    lambda x: x == 0 or abs(x) > 1e-3)


def _fr(a) -> np.ndarray:
    return np.vectorize(F, otypes=[object])(np.asarray(a, dtype=np.float64))


def contains(b: Ball, exact: np.ndarray) -> bool:
    """The exact values lie in the ball (Fraction arithmetic) and between its float endpoints."""
    mid, rad, lo, hi = _fr(b.mid), _fr(b.rad), _fr(b.lower), _fr(b.upper)
    dev = np.vectorize(abs, otypes=[object])(exact - mid)
    return bool(np.all(dev <= rad) and np.all(lo <= exact) and np.all(exact <= hi))


def width_ok(b: Ball, needed: np.ndarray, scale: np.ndarray, n: int, extra=0) -> bool:
    """The radius is at most the exact half-range ``needed`` plus the float allowance ``4 (n + 4) u scale``
    (``scale``: the magnitudes entering the computation), subnormal padding and ``extra`` (for a product of two
    balls, midpoint-radius arithmetic over-estimates by at most ``rad_a . rad_b``: Rump, "Fast and parallel
    interval arithmetic", BIT 39 (1999), Prop. 2.1)."""
    allow = needed + extra + _fr(scale) * F(4 * (n + 4)) * F(U) + F(TINY) * (n + 3)
    return bool(np.all(_fr(b.rad) <= allow))


def _vertex_product(am, ar, bm, br):
    """The largest exact value of a . b over the boxes (entrywise |a - am| <= ar, |b - bm| <= br) and where
    it is attained: per term the vertex whose signs align, (|am| + ar)(|bm| + br) with the sign of am bm."""
    n, m = bm.shape
    rows, cols = am.shape[0], m
    best = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            best[i, j] = sum(max(x * y for x in (am[i, k] - ar[i, k], am[i, k] + ar[i, k])
                                 for y in (bm[k, j] - br[k, j], bm[k, j] + br[k, j])) for k in range(n))
    return best


shapes = st.tuples(st.integers(1, 3), st.integers(1, 5), st.integers(1, 3))


@st.composite
def interval_matrices(draw):
    r, n, c = draw(shapes)
    am = np.array(draw(st.lists(REL, min_size=r * n, max_size=r * n))).reshape(r, n)
    bm = np.array(draw(st.lists(REL, min_size=n * c, max_size=n * c))).reshape(n, c)
    fa = draw(st.sampled_from([0.0, 0.25, 0.5]))
    fb = draw(st.sampled_from([0.0, 0.125, 0.5]))
    return am, np.abs(am) * fa, bm, np.abs(bm) * fb


@checks("izzo2025:thm4.1")
@settings(max_examples=60)
@given(interval_matrices())
def test_matmul_encloses_the_exact_product_at_the_tight_vertex(data):
    am, ar, bm, br = data
    prod = matmul(Ball(am, ar), Ball(bm, br))
    A, Ar, B, Br = _fr(am), _fr(ar), _fr(bm), _fr(br)
    top = _vertex_product(A, Ar, B, Br)
    bottom = -_vertex_product(-A, Ar, B, Br)  # the smallest value: the largest of (-a) . b, negated
    assert contains(prod, top) and contains(prod, bottom) and contains(prod, A @ B)
    half = np.vectorize(lambda t, b, m: max(t - m, m - b), otypes=[object])(top, bottom, A @ B)
    scale = (np.abs(am) + ar) @ (np.abs(bm) + br)
    assert width_ok(prod, half, scale, am.shape[1], extra=Ar @ Br)


@checks("izzo2025:thm4.1")
@settings(max_examples=60)
@given(st.lists(REL, min_size=1, max_size=6), st.lists(REL, min_size=1, max_size=6),
       st.sampled_from([0.0, 0.5]), st.sampled_from([0.0, 0.125, 0.25]))
def test_add_and_sub_enclose_the_exact_sum(xs, ys, frac, yfrac):
    n = min(len(xs), len(ys))
    x, y = np.array(xs[:n]), np.array(ys[:n])
    bx, by = Ball(x, np.abs(x) * frac), Ball(y, np.abs(y) * yfrac)  # both balls, taken at their upper vertex
    X, Y = _fr(x) + _fr(np.abs(x) * frac), _fr(y) + _fr(np.abs(y) * yfrac)
    Ylo = _fr(y) - _fr(np.abs(y) * yfrac)
    assert contains(add(bx, by), X + Y) and contains(sub(bx, by), X - Ylo)
    assert width_ok(add(bx, by), _fr(np.abs(x) * frac) + _fr(np.abs(y) * yfrac), np.abs(x) + np.abs(y), 1)


#: x, y, rad x / |x|, rad y / |y| where the float radius fl(fl(ra + rb) + |mid| u) falls below the exact
#: ra + rb + |x + y - mid|: only the (1 + 4u) inflation of the radius of a sum keeps the vertex inside
TIGHT_SUMS = [(2.9974658653688255, -2.3852774561479473, 0.25, 0.125),
              (-2.994262874643934, 3.3311767693056105, 0.125, 0.25),
              (-3.9828236590265016, 2.0434570037482596, 0.5, 0.125)]


@checks("izzo2025:thm4.1")
@pytest.mark.parametrize(("x", "y", "fx", "fy"), TIGHT_SUMS)
def test_add_radius_covers_its_own_rounding(x, y, fx, fy):
    """A sum of two balls whose radius, computed in floats, rounds below the exact one at the upper vertex: the
    enclosure must still hold it.  Control: the same radius without the inflation for its own rounding misses it."""
    bx, by = Ball(np.array([x]), np.array([abs(x) * fx])), Ball(np.array([y]), np.array([abs(y) * fy]))
    top = _fr(np.array([x])) + _fr(np.array([y])) + _fr(np.array([abs(x) * fx])) + _fr(np.array([abs(y) * fy]))
    got = add(bx, by)
    assert contains(got, top)
    bare = Ball(got.mid, bx.rad + by.rad + np.abs(got.mid) * U + TINY)  # the radius without (1 + 4u)
    assert not contains(bare, top)


@checks("izzo2025:thm4.1")
@settings(max_examples=60)
@given(st.lists(st.fractions(min_value=-1000, max_value=1000, max_denominator=10**9), min_size=1, max_size=6))
def test_ball_of_rationals_and_of_floats(xs):
    exact = np.array(xs, dtype=object)
    assert contains(ball(exact), exact)
    floats = np.array([float(x) for x in xs])
    b = ball(floats)  # floats are taken as exact: radius 0, endpoints only one rounding step out
    assert contains(b, _fr(floats)) and np.all(b.rad == 0)
    assert width_ok(b, np.zeros(len(xs), dtype=object), np.zeros(len(xs)), 0)


@checks("izzo2025:thm4.1")
@settings(max_examples=60)
@given(st.lists(REL, min_size=1, max_size=6), st.sampled_from([0.0, 1e-6, 0.25]))
def test_from_floats_and_sq_norm_upper(xs, rel):
    m = np.array(xs)
    b = from_floats(m, rel)
    vertex = _fr(m) + _fr(np.abs(m)) * F(rel)  # the exact value farthest up
    assert contains(b, vertex) and contains(b, _fr(m) - _fr(np.abs(m)) * F(rel))
    exact_sq = sum((abs(v) + abs(F(x)) * F(rel)) ** 2 for v, x in zip(_fr(m), xs, strict=True))
    s = F(float(sq_norm_upper(b)))
    assert exact_sq <= s <= exact_sq * (1 + F(16 * (len(xs) + 4)) * F(U)) + F(TINY) * (len(xs) + 3)


@checks("izzo2025:thm4.1")
def test_the_checker_rejects_an_inward_endpoint_and_a_dropped_radius_term():
    """Negative controls: enclosures built with the lower end rounded up, or without the input-radius term."""
    x = np.array([0.1, 3.0])
    exact = _fr(x)
    good = ball(x)

    class Inward(Ball):
        @property
        def lower(self):
            return self.mid + (np.abs(self.mid) * 2 * U + TINY)

    assert contains(good, exact) and not contains(Inward(good.mid, good.rad), exact)
    am, ar = np.array([[1.0, -2.0]]), np.array([[0.5, 0.5]])
    bm = np.array([[3.0], [1.0]])
    A, Ar, B = _fr(am), _fr(ar), _fr(bm)
    top = _vertex_product(A, Ar, B, np.zeros_like(B))
    full = matmul(Ball(am, ar), Ball(bm, np.zeros_like(bm)))
    dropped = Ball(full.mid, full.rad - ar @ np.abs(bm))  # without |a - am| . |b|
    assert contains(full, top) and not contains(dropped, top)


#: (mids, radii) whose squares' float sum (numpy's, in its order) falls below the exact sum of squares at the
#: vertex |mid| + rad: the first term's magnitude is rounded up by only about u relative (1 + 2^-53 (3/4) rounds
#: to 1 before the upward step), and each of the following terms, just below half an ulp of the partial sum, is
#: lost in the addition.  Only the (1 + gamma_{n+2}) allowance of sq_norm_upper keeps the bound above the exact sum.
_SMALL = 2.0**-27 * 1.4142  # its square is just below 2^-53, half an ulp of 1
TIGHT_SQUARES = [([1.0] + [_SMALL] * 5, [2.0**-53 * 0.75] + [0.0] * 5),  # a ball with a radius first
                 ([1.0] + [_SMALL] * 6, [0.0] * 7)]  # exact floats (radius 0)


def _sq_exact(mids, rads) -> F:
    return sum((abs(F(m)) + F(r)) ** 2 for m, r in zip(mids, rads, strict=True))


@checks("izzo2025:thm4.1")
@pytest.mark.parametrize(("mids", "rads"), TIGHT_SQUARES)
def test_sq_norm_upper_covers_the_rounding_of_its_sum(mids, rads):
    """A sum of squares whose float computation rounds below the exact value at the vertex: sq_norm_upper must
    still bound it (over all entries and along an axis), and tightly.  Control: the float sum of the squared
    magnitudes without the allowance for its own rounding is below the exact sum, so the instance is one where
    the allowance is needed (it is not vacuous)."""
    n = len(mids)
    b = Ball(np.array(mids), np.array(rads))
    exact = _sq_exact(mids, rads)
    rows = Ball(np.array([mids, [0.0] * n]), np.array([rads, [0.0] * n]))
    for s in (F(float(sq_norm_upper(b))), F(float(sq_norm_upper(rows, axis=1)[0]))):
        assert exact <= s <= exact * (1 + F(16 * (n + 4)) * F(U)) + F(TINY) * (n + 3)
    m = b.magnitude
    bare = F(float(np.sum(m * m))) + F(TINY) * (n + 1)  # the sum without (1 + gamma_{n+2})
    assert bare < exact


#: (am, ar, bm, br) whose product's radius, computed in floats, rounds below the exact deviation at the vertex:
#: |a| . rad_b (or rad_a . |b|) is a sum 1.5 + t with t below half an ulp of 1.5, so fl gives 1.5; the midpoints
#: multiply exactly and their a-priori error term is far below an ulp of the radius.  Only the (1 + gamma_{n+4})
#: inflation of the radius keeps the vertex inside.
_T = 2.0**-54 * 0.75
TIGHT_PRODUCTS = [
    ([[3.0, -1.0]], [[0.0, 0.0]], [[2.0**-20], [0.0]], [[0.5], [_T]]),  # the input radius of b
    ([[2.0**-20, 0.0]], [[0.5, _T]], [[3.0], [-1.0]], [[0.0], [0.0]]),  # the input radius of a
    ([[3.0, -1.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [0.0, -2.0]],
     [[0.5, 0.25], [_T, _T]]),  # a 2 x 2 product, radii in both columns
]


@checks("izzo2025:thm4.1")
@pytest.mark.parametrize(("am", "ar", "bm", "br"), TIGHT_PRODUCTS)
def test_matmul_radius_covers_its_own_rounding(am, ar, bm, br):
    """Products whose float radius rounds below the exact deviation at the vertex: matmul must enclose both
    extreme vertices, with a radius within the float allowance of the exact one.  Control: the same radius
    without the inflation for its own rounding misses the vertex."""
    am, ar, bm, br = (np.array(v) for v in (am, ar, bm, br))
    got = matmul(Ball(am, ar), Ball(bm, br))
    A, Ar, B, Br = _fr(am), _fr(ar), _fr(bm), _fr(br)
    top = _vertex_product(A, Ar, B, Br)
    bottom = -_vertex_product(-A, Ar, B, Br)
    assert contains(got, top) and contains(got, bottom)
    half = np.vectorize(lambda t, b, m: max(t - m, m - b), otypes=[object])(top, bottom, A @ B)
    n = am.shape[1]
    assert width_ok(got, half, (np.abs(am) + ar) @ (np.abs(bm) + br), n, extra=Ar @ Br)
    bare_rad = gamma_n(n) * (np.abs(am) @ np.abs(bm)) + np.abs(am) @ br + ar @ (np.abs(bm) + br)
    bare = Ball(got.mid, bare_rad + (n + 2) * TINY)  # the radius without (1 + gamma_{n+4})
    assert not (contains(bare, top) and contains(bare, bottom))
