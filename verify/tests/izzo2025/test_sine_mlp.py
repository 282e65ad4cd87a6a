"""The certified ReLU approximation of sin(omega z) on [-1, 1] and how its L grows with omega."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from bounds.margin import norm_L
from constructions.tasks import SimpleTask, SineMLP, TaskError
from constructions.tasks.sine_mlp import grid_size
from verify.claims import checks


def _dense_error(net: SineMLP, points: int = 40_001) -> float:
    z = np.linspace(-1.0, 1.0, points)
    mids = np.array([float(a + net.h / 2) for a in net.nodes[:-1]])
    z = np.concatenate([z, mids])
    return float(np.abs(net.evaluate_float(z) - np.sin(float(net.omega) * z)).max())


def _exact_midpoint_error(net: SineMLP) -> Fraction:
    """max over cell midpoints of |I(mid) - sin(omega mid)|, I exact and sin at 120 bits."""
    worst = 0.0
    with mpmath.workprec(120):
        for a in net.nodes[:-1]:
            mid = a + net.h / 2
            s = mpmath.sin(mpmath.mpf(net.omega.numerator) / net.omega.denominator * mpmath.mpf(mid.numerator)
                           / mid.denominator)
            i = net(mid)
            worst = max(worst, abs(mpmath.mpf(i.numerator) / i.denominator - s))
    return worst


@checks("izzo2025:app-a2.simple")
@pytest.mark.parametrize("omega,cells", [(1, 4), (Fraction(11, 2), 30), (20, 64), (50, 400), (3, 1)])
def test_certified_bound_holds_dense(omega, cells):
    net = SineMLP(Fraction(omega), cells)
    bound = float(net.certified_error)
    assert _dense_error(net) <= bound + 1e-12
    assert _exact_midpoint_error(net) <= bound


@checks("izzo2025:app-a2.simple")
@pytest.mark.parametrize("omega,cells", [(1, 4), (Fraction(11, 2), 30), (20, 64), (50, 400)])
def test_wrong_constant_is_rejected(omega, cells):
    """Negative control: the same dense check rejects omega^2 h^2 / 16 (half the proven constant)."""
    net = SineMLP(Fraction(omega), cells)
    wrong = float(net.omega**2 * net.h**2 / 16)
    assert _dense_error(net) > wrong


def test_for_error_picks_coarsest_grid():
    for omega, e in [(1, 1e-2), (7, 1e-3), (40, 1e-4)]:
        net = SineMLP.for_error(omega, e)
        assert net.certified_error <= Fraction(e)
        coarser = SineMLP(Fraction(omega), net.cells - 1) if net.cells > 1 else None
        assert coarser is None or coarser.certified_error > Fraction(e)
    with pytest.raises(TaskError, match="below the node rounding"):
        grid_size(1, 1e-20)


def test_network_matches_weights_exactly():
    net = SineMLP(Fraction(9, 4), 17)
    a, b, beta = net.weights()
    for z in [Fraction(-1), Fraction(-1, 3), Fraction(0), Fraction(5, 7), Fraction(1)]:
        assert net(z) == sum(bu * max(au * z + bb, Fraction(0)) for au, bb, bu in zip(a, b, beta, strict=True))
    for j, zj in enumerate(net.nodes):  # interpolates the rounded node values exactly
        assert net(zj) == net.values[j]
        assert abs(float(net.values[j]) - math.sin(float(net.omega * zj))) <= 2**-47


@checks("izzo2025:app-a2.simple")
def test_L_grows_like_omega_squared_at_fixed_error():
    """L of the SimpleTask construction (bounds.margin.norm_L) for error 1e-3: log-log slope in omega ~ 2."""
    omegas = [4, 8, 16, 32, 64]
    Ls = [norm_L(SimpleTask(w).limit_transformer(error=1e-3)).L for w in omegas]
    slope = np.polyfit(np.log(omegas), np.log(Ls), 1)[0]
    assert 1.8 < slope < 2.2, (Ls, slope)
    for w, L in zip(omegas, Ls, strict=True):  # consistent with the scalar network's norms (||V E_0|| = 1)
        assert L == pytest.approx(SimpleTask(w).mlp(1e-3).norm_product)


@checks("izzo2025:app-a2.simple")
@pytest.mark.parametrize("omega", [8, 20, 45])
def test_total_variation_lower_bound(omega):
    """||A||_F||B||_F >= sum_u |a_u||b_u| >= TV(I') >= (K-1) 2 (2 - 2e) omega / pi for any e-approximation (K =
    number of intervals between consecutive extrema of sin(omega z) in [-1, 1]); so L >= c omega^2."""
    e = 1e-2
    net = SineMLP.for_error(omega, e)
    _, c = net.coefficients
    tv = float(sum(abs(x) for x in c[1:]))
    ext = [(math.pi / 2 + k * math.pi) / omega for k in range(-100, 100)]
    K = sum(1 for t in ext if -1 <= t <= 1) - 1
    lower = (K - 1) * 2 * (2 - 2 * e) * omega / math.pi
    assert net.norm_product >= tv >= lower > 0.5 * omega**2 * 8 / math.pi**2
    # control: the bound needs the approximation hypothesis; a 2-cell net (error > 1) has far smaller TV
    crude = SineMLP(Fraction(omega), 2)
    assert crude.certified_error > 1
    assert float(sum(abs(x) for x in crude.coefficients[1][1:])) < lower
