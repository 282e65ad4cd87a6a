"""The enumeration's fast path (``Problem(fast=True)``: :func:`bounds.certify.class_softmax._upper_thin` and
:func:`~bounds.certify.class_softmax._thin_dot`) against the earlier path (``fast=False``) and exact arithmetic.

Both paths are certified enclosures of the same numbers, so on every length their intervals must intersect, be
thin, and contain the exact |f - g| at the realized witness; the certificates' verdicts, H and X must agree.
Negative controls: the same comparison rejects the rows of a different pair, and a lowered bound is caught."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bounds.certify.class_softmax import _thin_dot, _thin_weights
from bounds.certify.search import Problem, certify, enumerate_length, task_target
from constructions.limit_transformer import exact_forward
from constructions.strategies import limit_transformers
from constructions.tasks import ModPTask, SimpleTask
from counterexamples.izzo.estimate_breaks import residual_pair
from counterexamples.izzo.witnesses import bump_pair

CAP_S = 600.0  # never reached: the certificates below are fixed by max_length and max_boxes
WIDTH = 1e-9  # both paths enclose each length's max to within this


def rows_agree(a: list, b: list) -> bool:
    """Two enumerations of the same pair: per length, thin intervals that intersect."""
    return len(a) == len(b) and all(
        x.length == y.length and x.configurations == y.configurations and x.upper - x.lower <= WIDTH
        and y.upper - y.lower <= WIDTH and max(x.lower, y.lower) <= min(x.upper, y.upper)
        for x, y in zip(a, b, strict=True))


def _exact_abs(f, g, string: str) -> Fraction:
    return abs(exact_forward(f, string, positions="last")[0] - exact_forward(g, string, positions="last")[0])


PAIRS = {
    "bump": lambda: (*bump_pair(2), ("izzo", "izzo")),
    "residual": lambda: (*residual_pair(), ("izzo", "izzo")),
    "residual-softmax": lambda: (*residual_pair(), ("softmax", "izzo")),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_fast_and_earlier_enumeration_agree_and_enclose_the_exact_value(name):
    f, g, sem = PAIRS[name]()
    fast, old = Problem(f, g, sem, fast=True), Problem(f, g, sem, fast=False)
    a = [enumerate_length(fast, n) for n in range(2, 10)]
    b = [enumerate_length(old, n) for n in range(2, 10)]
    assert rows_agree(a, b)
    if sem == ("izzo", "izzo"):  # exact_forward evaluates the izzo precision model
        for row in a:
            exact = float(_exact_abs(f, g, row.witness))
            assert row.lower - 1e-12 <= exact <= row.upper + 1e-12


def test_rows_of_another_pair_are_rejected():
    """Negative control: the bump pairs of N = 2 and 3 differ at model length 5 (|f - g| >= 1/2 against 0)."""
    f2, g2 = bump_pair(2)
    f3, g3 = bump_pair(3)
    a = [enumerate_length(Problem(f2, g2, ("izzo", "izzo")), n) for n in range(2, 8)]
    b = [enumerate_length(Problem(f3, g3, ("izzo", "izzo"), fast=False), n) for n in range(2, 8)]
    assert not rows_agree(a, b)


def test_trained_like_task_targets_agree():
    """A target function (ModP p = 2, SimpleTask omega = 1) against its construction, both paths."""
    for model, kind, params in ((ModPTask(2, 0).limit_transformer(), "modp", {"period": 2, "index": 0}),
                                (SimpleTask("1").limit_transformer(), "simple", {"omega": "1"})):
        t = task_target(kind, params)
        fast = Problem(model, None, ("softmax", "softmax"), t, fast=True)
        old = Problem(model, None, ("softmax", "softmax"), t, fast=False)
        assert rows_agree([enumerate_length(fast, n) for n in range(2, 12)],
                          [enumerate_length(old, n) for n in range(2, 12)])


@pytest.mark.parametrize("name", ["bump", "residual"])
def test_certificates_have_the_same_verdict_horizon_and_failure(name):
    f, g, sem = PAIRS[name]()
    out = []
    for fast in (True, False):
        cert = certify(Problem(f, g, sem, fast=fast), 0.1, delta=0.0, budget_s=CAP_S, max_length=8, max_boxes=48)
        out.append((cert.verdict, cert.horizon.H, cert.horizon.X, cert.N0))
    assert out[0] == out[1]
    assert out[0][0] == "fails"


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f=limit_transformers(depth=(1, 1), heads=(1, 1), activations=("relu",), precision="izzo", max_tau=0,
                            max_period=2, qk_scale=(1, 1)),
       g=limit_transformers(depth=(1, 1), heads=(1, 1), activations=("relu",), precision="izzo", max_tau=0,
                            max_period=2, qk_scale=(1, 1)))
def test_random_pairs_agree(f, g):
    a = [enumerate_length(Problem(f, g, ("softmax", "izzo"), fast=True), n) for n in range(2, 8)]
    b = [enumerate_length(Problem(f, g, ("softmax", "izzo"), fast=False), n) for n in range(2, 8)]
    assert rows_agree(a, b)


def _exact_max(P, mid, rad):
    """max of lambda . P_j over lambda_e in [mid_e - rad_e, mid_e + rad_e], exactly (Fractions)."""
    def one(p, m, r):
        return sum((Fraction(m[e]) + (Fraction(r[e]) if p[e] >= 0 else -Fraction(r[e]))) * Fraction(p[e])
                   for e in range(len(p)))
    return [[one(P[j], mid[b], rad[b]) for j in range(P.shape[0])] for b in range(len(mid))]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_thin_dot_bounds_the_exact_max_with_subnormal_and_tiny_entries(seed):
    """_thin_dot moves weights and values below SMALL into its error term: its bound is still >= the exact max over
    the weights' intervals (the interval [mid - rad, mid + rad] it was given; the flushed weights were <= SMALL).
    Negative control: the exact max lowered by one part in 10^12 is not a bound (the same comparison fails)."""
    rng = np.random.default_rng(seed)
    B, E, J = 3, 5, 4
    scale = np.array([1.0, 1e-160, 2.0**-1030, 0.0, 1e-3])  # a normal, a tiny, a subnormal weight, none
    lam = rng.random((B, E)) * scale
    lam = lam / max(lam.sum(axis=1).max(), 1e-300)
    lo, hi = lam * (1 - 1e-15), lam * (1 + 1e-15)
    mid, rad = _thin_weights([(lo, hi)], fast=True)
    mid0, rad0 = _thin_weights([(lo, hi)], fast=False)  # the interval the flushed weights come from
    P = rng.normal(size=(J, E)) * np.array([1.0, 3.0, 1e-200, 2.0**-1040, 1e3])
    got = _thin_dot(P, (mid, rad))
    exact = np.array(_exact_max(P, mid0, rad0), dtype=object)
    assert is_bound(np.ravel(got), np.ravel(exact))
    assert not is_bound([y - abs(y) / 10**12 - Fraction(1, 10**300) for y in np.ravel(exact)], np.ravel(exact))


def is_bound(values, exact) -> bool:
    return all(Fraction(x) >= y for x, y in zip(values, exact, strict=True))
