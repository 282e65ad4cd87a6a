"""Unit tests of constructions.limit_transformer.rationals.exact_dot (the sparse exact product behind exact_forward)."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.limit_transformer.rationals import exact_dot, frac_array

ENTRY = st.sampled_from([0, 0, 0, 1, -1, Fraction(1, 2), Fraction(-3, 4)])


@st.composite
def pairs(draw):
    r, k, c = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    a = frac_array([[draw(ENTRY) for _ in range(k)] for _ in range(r)], 2)
    b = frac_array([[draw(ENTRY) for _ in range(c)] for _ in range(k)], 2)
    return a, b


@settings(max_examples=80, deadline=None)
@given(pairs())
def test_exact_dot_equals_dense_dot(ab):
    a, b = ab
    assert (exact_dot(a, b) == a.dot(b)).all()


def test_exact_dot_negative_control_and_empty():
    a = frac_array([[1, 0], [0, Fraction(1, 2)]], 2)
    b = frac_array([[0, 2], [4, 0]], 2)
    out = exact_dot(a, b)
    assert out[1, 0] == 2 and out[0, 1] == 2
    wrong = a.copy()
    wrong[1, 1] = Fraction(1, 4)
    assert not (exact_dot(wrong, b) == a.dot(b)).all()  # the same comparison sees a changed entry
    assert exact_dot(frac_array(np.zeros((2, 0)), 2), frac_array(np.zeros((0, 3)), 2)).shape == (2, 3)
