"""huang2024 Proposition 54 and Lemma 56 (App. G.3), numerically (verify/huang/random_init.py)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from verify.claims import checks
from verify.huang import random_init as R


@checks("huang2024:prop54")
def test_eq8_is_order_one_when_d_grows_with_N():
    """E[(8)] = N/d + 2/d^2: within 4 standard errors of the closed form at (N, d) = (8, 8), (32, 32), (16, 32);
    bounded by 1 + 2/d^2 along d = N."""
    for N, d in ((8, 8), (32, 32), (16, 32)):
        mean, se = R.eq8_mean(N, d, 4000, seed=N + d)
        assert abs(mean - R.eq8_expected(N, d)) <= 4 * se + 1e-12, (N, d, mean, se)
    # negative control: unit-variance entries (no 1/d scaling) make (8) grow like N d^2, not O(1)
    big, _ = R.eq8_mean(8, 8, 500, var=1.0)
    assert big > 100 * R.eq8_expected(8, 8)


@checks("huang2024:lem56")
@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 5), st.integers(1, 5), st.data())
def test_nuclear_norm_bound(n, m, data):
    """||V^T A V||_* <= ||V||_2^2 ||A||_* (relative tolerance 1e-9 for float64 SVDs)."""
    A = data.draw(arrays(np.float64, (n, n), elements=st.integers(-4, 4)))
    V = data.draw(arrays(np.float64, (n, m), elements=st.integers(-4, 4)))
    assert R.lemma56_ratio(V, A) <= 1 + 1e-9


@checks("huang2024:lem56")
def test_nuclear_norm_bound_is_tight_and_the_square_is_needed():
    V = 2 * np.eye(3)
    A = np.diag([1.0, -2.0, 3.0])
    assert abs(R.lemma56_ratio(V, A) - 1) < 1e-12  # attained by V = 2I
    # negative control: ||V||_2 to the first power is not enough
    assert R.nuclear(V.T @ A @ V) > np.linalg.norm(V, 2) * R.nuclear(A)
