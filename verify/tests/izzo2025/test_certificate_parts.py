"""``izzo2025:sec5.certified-threshold``: the parts of ``python -m bounds.certify`` whose numbers the threshold
measured by certificate is made of, each checked on fixed inputs against an independent exact reference, with a
negative control that the same check rejects.

* the certified horizon (:func:`bounds.certify.horizon.find_horizon`): H is the last length of the run of lengths,
  from the first, whose certified upper end is within delta + eps (none: H = first - 1), and X the first whose
  certified lower end EXCEEDS delta + eps (a lower end equal to it is no failure);
* the verdict of :func:`bounds.certify.search.certify`: 'certified' only when the certified upper end is within
  delta + eps, and branch-and-bound bounds every length > N0 from N0 + 1 on (the bump pair of
  :mod:`counterexamples.izzo.witnesses` fails first at N0 + 1);
* the enclosures of the softmax weights (:mod:`bounds.certify.class_softmax`): exp and log against mpmath at 60
  digits (the lower end of each is below the exact value), the interval weights of a concrete input used with
  their radius, the ReLU relaxation of the difference network against the exact value on the box, and the
  linear-fractional maximum against the exact maximum over the box's vertices;
* the outward-rounding helpers and sums of the class-level evaluator on differences and sums that round inward;
* the closure of the weight-ratio bounds (:mod:`bounds.certify.weight_ratios`): a box whose bounds are consistent
  keeps every live entry and stays feasible; a negative cycle marks it empty.
"""

from __future__ import annotations

from dataclasses import dataclass

from verify.claims import checks

CLAIM = "izzo2025:sec5.certified-threshold"


@dataclass
class _Row:
    length: int
    lower: float
    upper: float
    witness: str = ""


def _horizon(rows, t_cert, t_fail, first=2):
    from bounds.certify.horizon import find_horizon

    def row_witness(r):
        return {"length": r.length, "string": r.witness}

    return find_horizon(None, rows, None, t_cert, t_fail, 1.0, first, None, 10**6, row_witness=row_witness)


@checks(CLAIM)
def test_horizon_counts_only_lengths_within_from_the_first():
    """H = the last length of the run from the first length whose certified upper end is within t_cert; no
    length within at the first: H = first - 1.  Control: the same rows with the first length within give H = 2."""
    rows = [_Row(2, 0.0, 0.5), _Row(3, 0.0, 0.01), _Row(4, 0.0, 0.01)]
    h = _horizon(rows, t_cert=0.1, t_fail=0.1)
    assert h.H == 1 and h.X is None  # the first length is not certified within: no horizon
    ok = [_Row(2, 0.0, 0.01)] + rows[1:]
    assert _horizon(ok, 0.1, 0.1).H == 4
    gap = [_Row(2, 0.0, 0.01), _Row(3, 0.0, 0.2), _Row(4, 0.0, 0.01)]
    assert _horizon(gap, 0.1, 0.1).H == 2  # a length not within ends the run


@checks(CLAIM)
def test_horizon_failure_needs_a_lower_end_above_the_threshold():
    """A length whose certified lower end only reaches delta + eps is no failure (|f - g| may equal it); the first
    whose lower end exceeds it is X.  Control: the lower end one ulp above is a failure."""
    import math

    t = 0.125
    rows = [_Row(2, 0.0, 0.01), _Row(3, t, 0.2), _Row(4, 0.0, 0.01)]
    h = _horizon(rows, t, t)
    assert h.X is None and h.H == 2
    above = [_Row(2, 0.0, 0.01), _Row(3, math.nextafter(t, 1.0), 0.2), _Row(4, 0.0, 0.01)]
    h = _horizon(above, t, t)
    assert (h.H, h.X, h.exact) == (2, 3, True)


def _bump_problem():
    from bounds.certify.search import Problem
    from counterexamples.izzo.witnesses import bump_pair

    f, g = bump_pair(2)  # agree exactly on model lengths 2..4, differ by 0.8 at length 5 (and agree at 6)
    return Problem(f, g, ("izzo", "izzo"))


@checks(CLAIM)
def test_verdict_certified_only_within_delta_plus_eps():
    """'certified' needs the certified upper end of |f - g| within delta + eps: with eps between half the upper end
    and the upper end, and above the realized lower end (nothing fails), the verdict is 'undetermined'.  Control:
    with eps at the upper end the same pair is certified within it."""
    from bounds.certify.search import certify

    prob = _bump_problem()
    first = certify(prob, 0.1, delta=0.0, budget_s=600.0, max_length=6, max_boxes=1)  # work-limited, not timed
    U = first.upper
    eps = U * 0.6
    cert = certify(prob, eps, delta=0.0, budget_s=600.0, max_length=6, max_boxes=1)
    assert eps < cert.upper <= 2 * eps and cert.lower <= eps  # the band where only the threshold decides
    assert cert.verdict == "undetermined"
    wide = certify(prob, cert.upper, delta=0.0, budget_s=600.0, max_length=6, max_boxes=1)
    assert wide.upper <= wide.eps and wide.verdict == "certified"


@checks(CLAIM)
def test_branch_and_bound_covers_the_first_length_beyond_the_enumeration():
    """Branch-and-bound over the lengths N0 + 1 .. N0 + 1 (N0 = 4) of the bump pair, which differ by 0.8 at length
    5 only: its certified upper end bounds that difference and it realizes it at length 5.  Control: over lengths
    4 .. 4 (below the failure) the exact enumeration shows agreement."""
    from bounds.certify.search import branch_and_bound, enumerate_length

    prob = _bump_problem()
    res = branch_and_bound(prob, 4, 1e-12, 600.0, 48, n_max=5)
    row = enumerate_length(prob, 5)
    assert row.lower >= 0.79 and res.upper >= row.lower
    assert res.witness is not None and res.witness[2] == 5 and res.lower >= 0.79
    assert enumerate_length(prob, 4).upper < 1e-9


#: points where the enclosures of exp and log are checked (numpy's log rounds up at some of them)
_POINTS = [0.001, 5e-05, 0.1, 0.125, 0.2, 0.3, 0.375, 0.4, 0.6, 0.7, 0.9, 1.5, 2.5, 3.0, 7.0, 10.0, 123.456,
           -0.5, -3.25, -20.0]


@checks(CLAIM)
def test_exp_and_log_enclosures_against_mpmath():
    """exp_bounds and log_bounds (the softmax weights n^-G = exp(-G ln n) and the masses' logarithms) enclose the
    60-digit values at every point, lower end below and upper end above.  Control: numpy's log itself, taken as
    a lower end without the libm allowance, is above the exact value at some of these points."""
    import mpmath
    import numpy as np

    from bounds.certify.class_softmax import exp_bounds, log_bounds

    mpmath.mp.dps = 60
    x = np.array(_POINTS)
    lo, hi = exp_bounds(x, x)
    for a, b, v in zip(lo, hi, x, strict=True):
        e = mpmath.exp(mpmath.mpf(v))
        assert mpmath.mpf(a) <= e <= mpmath.mpf(b) and b - a <= 1e-10 * float(e)
    pos = x[x > 0]
    llo, lhi = log_bounds(pos, pos)
    rounded_up = 0
    for a, b, v in zip(llo, lhi, pos, strict=True):
        ln = mpmath.log(mpmath.mpf(v))
        assert mpmath.mpf(a) <= ln <= mpmath.mpf(b) and b - a <= 1e-10 * max(1.0, abs(float(ln)))
        rounded_up += mpmath.mpf(float(np.log(v))) > ln
    assert rounded_up >= 3  # the control: an unpadded lower end would be above the exact logarithm there


@checks(CLAIM)
def test_interval_weights_bound_every_weight_in_their_box():
    """The linear bound over the interval weights of a concrete input (lambda in [mid - rad, mid + rad]), both the
    general one and the fast one of the enumeration, is at least lambda . P_j at the box's vertex that maximizes it
    (exact Fractions).  Control: the midpoint's value without the radius term is below that vertex value."""
    import numpy as np

    from bounds.certify.class_softmax import _lin_max_thin, _thin_dot

    mid = np.array([[0.3, 0.5, 0.2], [0.25, 0.25, 0.5]])
    rad = mid * 1e-7
    P = np.array([[1.0, -2.0, 3.0], [0.5, 0.5, -1.0], [-1.0, 0.25, 1e-160]])  # 1e-160: below _thin_dot's SMALL
    for up in (_lin_max_thin(P, (mid, rad)), _thin_dot(P, (mid, rad))):
        _check_vertex_bound(up, mid, rad, P)


def _check_vertex_bound(up, mid, rad, P):
    from fractions import Fraction as F

    for b in range(mid.shape[0]):
        for j in range(P.shape[0]):
            top = sum((F(mid[b, e]) + F(rad[b, e]) * (1 if P[j, e] > 0 else -1)) * F(P[j, e]) for e in range(3))
            assert F(float(up[b, j])) >= top
            assert F(float(up[b, j])) - top <= F(1, 10**12)  # tight
            assert F(float(mid[b] @ P[j])) < top  # control: the midpoint alone misses the vertex


@checks(CLAIM)
def test_weight_ratio_closure_keeps_a_consistent_box():
    """Lemma 2 of bounds.certify.weight_ratios: the closure of bounds H_ab >= ln(u_b / u_a) of actual weights u
    keeps every live entry and the box feasible (a zero cycle, H_ab + H_ba = 0, forces nothing).  Control: a
    negative cycle (u_1 <= e^-1 u_0 and u_0 <= u_1) forces u_0 = u_1 = 0 and the box holding live entries is empty."""
    import numpy as np

    from bounds.certify.weight_ratios import closure

    u = np.array([1.0, 0.5, 2.0])
    H = np.log(u[None, :] / u[:, None])[None] + 1e-12  # valid upper bounds of ln(u_b / u_a)
    live = np.ones((1, 3), dtype=bool)
    _, feasible, absent = closure(H.copy(), np.zeros((1, 3), dtype=bool), live)
    assert feasible.all() and not absent.any()
    bad = H.copy()
    bad[0, 0, 1], bad[0, 1, 0] = -1.0, 0.0
    _, feasible, absent = closure(bad, np.zeros((1, 3), dtype=bool), live)
    assert not feasible.any() and absent[0, 0] and absent[0, 1]


def _lf_exact_max(P, lo, hi):
    """max over the box of sum(u P) / sum(u), exactly: a linear-fractional function attains it at a vertex."""
    import itertools
    from fractions import Fraction as F

    best = None
    for v in itertools.product(*[(F(a), F(b)) for a, b in zip(lo, hi, strict=True)]):
        if sum(v):
            t = sum(x * F(p) for x, p in zip(v, P, strict=True)) / sum(v)
            best = t if best is None or t > best else best
    return best


#: a box where the float cumulative sums of lf_max round the maximum below the exact one (found by a seeded random
#: search over boxes with weights of very different sizes): only the rounding allowance ``pad`` covers it
LF_TIGHT = ([-1280408.7579860399, -1485190.974431635, 1980737.1998012387],
            [72478994.07735336, 5.412268555474342e-09, 2.7689120404537083e-09],
            [37476610949.51018, 6.325080795918003e-07, 1.7291572032477776e-06])


@checks(CLAIM)
def test_linear_fractional_maximum_covers_its_rounding():
    """lf_max (a head's output over a box of weights) is at least the exact maximum over the box's vertices, and
    within a relative 1e-9 of it, on the tight box and on seeded random boxes.  Control: on the tight box the float
    maximum of the vertex values, rounded up by one step only, is below the exact maximum."""
    from fractions import Fraction as F

    import numpy as np

    from bounds.certify.class_softmax import lf_max
    from bounds.float_enclosures import TINY, U

    rng = np.random.default_rng(7)
    boxes = [tuple(np.array(a) for a in LF_TIGHT)]
    for _ in range(20):
        E = int(rng.integers(2, 6))
        lo = rng.random(E) * rng.choice([1e-6, 1.0, 1e6], E)
        boxes.append((rng.choice([-1, 1], E) * 10.0 ** rng.integers(0, 8) * (1 + rng.random(E)), lo,
                      lo * (1 + rng.random(E))))
    for P, lo, hi in boxes:
        v, empty = lf_max(P[None, :], lo[None, :], hi[None, :])
        exact = _lf_exact_max(P, lo, hi)
        assert not empty[0] and exact <= F(float(v[0])) <= exact + abs(exact) * F(1, 10**9) + F(np.abs(P).max()) / 10**9
    P, lo, hi = boxes[0]
    order = np.argsort(-P)
    Ps, ls, hs = P[order], lo[order], hi[order]
    vals = [(np.cumsum(hs * Ps)[k] + (np.sum(ls * Ps) - np.cumsum(ls * Ps)[k]))
            / (np.cumsum(hs)[k] + (np.sum(ls) - np.cumsum(ls)[k])) for k in range(len(P))]
    vals.append(np.sum(ls * Ps) / np.sum(ls))
    best = max(vals)
    assert F(float(best + 2 * U * abs(best) + TINY)) < _lf_exact_max(P, lo, hi)  # control


@checks(CLAIM)
def test_rounding_helpers_and_sums_are_outward():
    """The outward-rounding helpers of the class-level evaluator: a difference computed in floats and rounded down
    by ``_down`` is below the exact difference (and ``_up`` above the exact sum), and ``_sum_up`` bounds the exact
    sum of its terms where the float sum loses them (1 + five terms of 2^-54 each: the float sum is 1).  Control:
    the float results themselves are on the wrong side of the exact values."""
    from fractions import Fraction as F

    import numpy as np

    from bounds.certify.class_softmax import _down, _sum_up, _up

    a, b = np.array([1.0, 3.0, -0.1]), np.array([2.0**-54, 0.1, 2.0**-60])
    for x, y in zip(a, b, strict=True):
        assert F(float(_down(np.array(x - y)))) <= F(x) - F(y) and F(float(_up(np.array(x + y)))) >= F(x) + F(y)
    assert F(float(a[0] - b[0])) > F(a[0]) - F(b[0])  # control: fl(1 - 2^-54) = 1, above the exact difference
    terms = [np.array([1.0])] + [np.array([2.0**-54])] * 5
    exact = 1 + 5 * F(2) ** -54
    assert F(float(_sum_up(terms)[0])) >= exact
    assert F(float(sum(terms[1:], terms[0])[0])) < exact  # control: the float sum lost the small terms
