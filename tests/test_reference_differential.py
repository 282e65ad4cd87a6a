"""Every evaluator of the package against the independent reference (tests/reference_limit_transformer.py),
on models from the public strategies with integer, dyadic and non-dyadic parameters, both precision models."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.limit_transformer import (
    NotExactError,
    NotHardmaxError,
    NotLocalError,
    counting_forward,
    exact_forward,
    forward,
    stream_forward,
)
from constructions.limit_transformer.precision import BoundaryWarning, exact_weights, float_weights
from constructions.strategies import boundary_logits, limit_transformers, strings
from tests.reference_limit_transformer import IrrationalWeight, _weights, reference_forward


def _reference(model, s):
    try:
        return np.array(reference_forward(model, s), dtype=object)
    except IrrationalWeight:
        return None


def _float_agrees(model, s, ref):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BoundaryWarning)
        got = forward(model, s)[0]
    if any(issubclass(w.category, BoundaryWarning) for w in caught):
        return  # the float path said it cannot certify this input
    assert np.allclose(got, ref.astype(float), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("params", ["integer", "dyadic", "non-dyadic"])
@pytest.mark.parametrize("precision, depth", [("izzo", (1, 2)), ("huang", (1, 1))])
def test_exact_and_float_paths_equal_the_reference(params, precision, depth):
    @settings(max_examples=25)
    @given(limit_transformers(params=params, precision=precision, depth=depth, qk_scale=(1, 2)),
           strings(max_size=8))
    def check(model, s):
        ref = _reference(model, s)
        if ref is None:  # izzo outside the hardmax regime: the exact path must say so too
            with pytest.raises(NotExactError):
                exact_forward(model, s)
            return
        assert (exact_forward(model, s) == ref).all()
        _float_agrees(model, s, ref)

    check()


@settings(max_examples=40)
@given(limit_transformers(params="any", precision="izzo", depth=(1, 1), local=True), strings(max_size=40))
def test_counting_evaluator_equals_the_reference(model, s):
    ref = _reference(model, s)
    try:
        got = counting_forward(model, s, positions="all", exact=True)
    except (NotHardmaxError, NotLocalError):  # outside its scope it refuses, naming why
        return
    assert ref is not None and (got == ref).all()
    fast = counting_forward(model, s, positions="all", exact=False)
    assert np.allclose(fast, ref.astype(float), rtol=1e-9, atol=1e-9)


@settings(max_examples=30)
@given(limit_transformers(params="any", positional_only=True, local=True), strings(max_size=16))
def test_stream_forward_equals_the_reference(model, s):
    ref = _reference(model, s)
    if ref is None:
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BoundaryWarning)
        got = stream_forward(model, s, positions="all")
    if not any(issubclass(w.category, BoundaryWarning) for w in caught):
        assert np.allclose(got, ref.astype(float), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("precision", ["izzo", "huang"])
@settings(max_examples=60)
@given(data=st.data())
def test_weights_at_precision_boundaries(precision, data):
    """On a boundary and one ulp beside it: the exact weights equal the reference's; the float path either
    agrees with them or says (BoundaryWarning) that it cannot certify the decision."""
    logits, n, p, exact = data.draw(boundary_logits(precision))
    try:
        ref = _weights(exact, n, p, precision)
    except IrrationalWeight:
        with pytest.raises(NotExactError):
            exact_weights(exact, n, p, precision)
        return
    assert exact_weights(exact, n, p, precision) == ref
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BoundaryWarning)
        got = float_weights(logits[None, :], np.ones((1, 2), bool), n, p, precision)[0]
    if not any(issubclass(w.category, BoundaryWarning) for w in caught):
        assert np.allclose(got, [float(x) for x in ref], rtol=1e-9)


def test_reference_rounding_is_ties_to_even_control():
    """Negative control of the reference itself: its tie rule is observable (and matches the package's)."""
    assert _weights([Fraction(0), Fraction(5, 16)], 1, 3, "huang") == [Fraction(1, 2), Fraction(1, 2)]
    assert _weights([Fraction(0), Fraction(1, 2)], 4, 0, "huang") == [Fraction(1, 2), Fraction(1, 2)]  # up: 1/5, 4/5
