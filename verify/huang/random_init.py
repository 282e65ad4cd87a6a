"""Huang et al. Proposition 54 and Lemma 56 (App. G.3), numerically, under our reading of their UNCERTAIN
statements (docs/huang_theta.md).

* Proposition 54: with the entries of p_i, K and Q i.i.d. N(0, s^2), s^2 = 1/d, and M = K^T Q, the positional
  term (8), sum_j (p_1^T M p_j)^2, has expectation N/d + 2/d^2: each of the N - 1 pairs with j != 1 contributes
  s^4 E||M||_F^2 = s^8 d^3 = 1/d, the term j = 1 contributes s^4 (2 E||M_sym||_F^2 + E (tr M)^2) =
  s^8 (d^3 + 2 d^2) = 1/d + 2/d^2 (Gaussian moments, derived by hand).  It is O(1) when d = Omega(N).
  :func:`eq8_mean` estimates it by Monte Carlo (numpy, seeded) with its standard error.
* Lemma 56: ||V^T A V||_* <= ||V||^2 ||A||_* with ||V|| the spectral norm (:func:`lemma56_ratio` returns the ratio
  of the two sides, <= 1 up to float64 rounding, checked with a stated tolerance).
"""

from __future__ import annotations

import numpy as np


def eq8_mean(N: int, d: int, samples: int, seed: int = 0, var: float | None = None) -> tuple[float, float]:
    """Monte Carlo mean and standard error of (8) for one head with N positions; entries N(0, var), var = 1/d."""
    rng = np.random.default_rng(seed)
    s = np.sqrt(1 / d if var is None else var)
    vals = []
    for _ in range(0, samples, 500):
        B = min(500, samples - len(vals))
        P = rng.normal(0, s, (B, N, d))
        K = rng.normal(0, s, (B, d, d))
        Q = rng.normal(0, s, (B, d, d))
        M = np.einsum("bca,bcd->bad", K, Q)  # K^T Q
        logits = np.einsum("ba,bad,bnd->bn", P[:, 0], M, P)
        vals.extend((logits**2).sum(axis=1))
    v = np.array(vals)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v)))


def eq8_expected(N: int, d: int) -> float:
    """The closed form N/d + 2/d^2 of the module docstring (entries of variance 1/d)."""
    return N / d + 2 / d**2


def nuclear(M: np.ndarray) -> float:
    return float(np.linalg.svd(M, compute_uv=False).sum())


def lemma56_ratio(V: np.ndarray, A: np.ndarray) -> float:
    """||V^T A V||_* / (||V||_2^2 ||A||_*) (0 when A = 0)."""
    den = np.linalg.norm(V, 2) ** 2 * nuclear(A)
    return 0.0 if den == 0 else nuclear(V.T @ A @ V) / den
