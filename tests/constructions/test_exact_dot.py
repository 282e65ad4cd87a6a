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


def test_supports_of_both_axes_in_one_pass():
    """``_supports`` (each entry tested once) gives ``_support``'s rows and columns; negative control: the
    transpose of a non-symmetric support pattern gives other rows."""
    from fractions import Fraction

    import numpy as np

    from constructions.limit_transformer.model import _support, _supports

    rng = np.random.default_rng(0)
    for _ in range(20):
        m = np.array([[Fraction(int(v), 3) if rng.random() < 0.2 else Fraction(0) for v in row]
                      for row in rng.integers(-5, 6, (7, 9))], dtype=object)
        rows, cols = _supports(m)
        assert np.array_equal(rows, _support(m, 1)) and np.array_equal(cols, _support(m, 0))
    m = np.zeros((3, 4), dtype=object)
    m[0, 3] = Fraction(1, 2)
    assert not np.array_equal(_supports(m.T)[0], _supports(m)[0])
