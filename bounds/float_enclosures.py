"""Certified float64 enclosures (midpoint-radius "balls") for the ingredients of the bounds of large models.

A :class:`Ball` ``(mid, rad)`` encloses exact values x with ``|x - mid| <= rad`` elementwise.  Exact rational
parameters enter through :func:`ball` (each ``Fraction`` rounded to the nearest double: ``|x - fl(x)| <= u |fl(x)|``
with ``u = 2^-53``, plus the smallest subnormal for underflow).  Products use the a-priori rounding-error bound of
float dot products (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Lemma 3.1/eq. (3.5):
``|fl(a . b) - a . b| <= gamma_n |a| . |b|``, ``gamma_n = n u / (1 - n u)``) together with the input radii; every
radius computed in floating point is then inflated by ``(1 + gamma_{n+4})`` and padded by ``n`` subnormal quanta,
which covers the rounding errors of the radius computation itself (all its terms are non-negative).  Callers that
need an exact rational endpoint convert the float with ``Fraction(float)`` (exact).

This is the "interval" mode of :mod:`bounds.margin`: used when exact rationals would not stay small (float-weight
models with d in the hundreds), and named as such in every output that relies on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

U = 2.0**-53
TINY = 2.0**-1022  # covers every underflow (subnormal results are exact to within 2^-1074)


def gamma_n(n: int) -> float:
    """Higham's gamma_n = n u / (1 - n u), rounded up generously."""
    return n * U / (1 - n * U) * (1 + 4 * U)


@dataclass(frozen=True)
class Ball:
    """Elementwise enclosure: the exact value lies in [mid - rad, mid + rad]."""

    mid: np.ndarray
    rad: np.ndarray

    @property
    def lower(self) -> np.ndarray:
        return _down(self.mid - self.rad, self.mid, self.rad)

    @property
    def upper(self) -> np.ndarray:
        return _up(self.mid + self.rad, self.mid, self.rad)

    @property
    def magnitude(self) -> np.ndarray:
        """Upper bound of |x|."""
        return _up(np.abs(self.mid) + self.rad, self.mid, self.rad)

    def __getitem__(self, idx) -> Ball:
        return Ball(self.mid[idx], self.rad[idx])

    @property
    def T(self) -> Ball:
        return Ball(self.mid.T, self.rad.T)


def _up(x, mid, rad):
    """x = mid + rad (or |mid| + rad) computed in float, rounded up by one relative ulp-bound."""
    return x + (np.abs(x) * 2 * U + TINY)


def _down(x, mid, rad):
    return x - (np.abs(x) * 2 * U + TINY)


SUBNORMAL_MIN = 2.0**-1074  # the smallest positive double


def ball(exact) -> Ball:
    """Enclosure of an exact array (object array of Fractions, ints, or floats taken as exact).

    A midpoint is 0 exactly when the value is 0: a nonzero value below the double range (it rounds to 0.0) gets
    the midpoint +-2^-1074 of its sign (within the radius TINY), so that ``mid == 0`` decides an exact zero (a tie
    of logits, a missing term) and never a value that merely underflows.  A value beyond the double range raises
    OverflowError (callers refuse such models with their limit named)."""
    arr = np.asarray(exact)
    mid = arr.astype(np.float64) if arr.dtype == object else np.array(arr, dtype=np.float64)
    exact_floats = arr.dtype != object
    if exact_floats:
        return Ball(mid, np.zeros_like(mid))
    if not np.all(np.isfinite(mid)):
        raise OverflowError("a value beyond the double range")
    under = np.flatnonzero(mid == 0)
    if under.size:
        flat, vals = mid.reshape(-1), arr.reshape(-1)
        for i in under:
            if vals[i] != 0:
                flat[i] = SUBNORMAL_MIN if vals[i] > 0 else -SUBNORMAL_MIN
    rad = np.abs(mid) * U + TINY
    return Ball(mid, rad)


def from_floats(mid: np.ndarray, rel: float = 0.0) -> Ball:
    """Enclosure of values known to within relative error ``rel`` of the given doubles."""
    mid = np.asarray(mid, dtype=np.float64)
    if not rel:
        return Ball(mid, np.zeros_like(mid))
    # fl(|mid| rel) may round below the exact product by u; the factor (1 + 4u) rounds it up past it
    return Ball(mid, np.abs(mid) * rel * (1 + 4 * U) + TINY)


def matmul(a: Ball, b: Ball) -> Ball:
    """Enclosure of the exact product of any matrices enclosed by a and b (shapes as for ``@``)."""
    n = a.mid.shape[-1]
    mid = a.mid @ b.mid
    am, bm = np.abs(a.mid), np.abs(b.mid)
    rad = gamma_n(n) * (am @ bm)
    if b.rad.any():
        rad = rad + am @ b.rad
    if a.rad.any():
        rad = rad + a.rad @ (bm + b.rad)
    return Ball(mid, rad * (1 + gamma_n(n + 4)) + (n + 2) * TINY)


def add(a: Ball, b: Ball) -> Ball:
    """Enclosure of a + b (broadcasting)."""
    mid = a.mid + b.mid
    rad = a.rad + b.rad + np.abs(mid) * U
    return Ball(mid, rad * (1 + 4 * U) + TINY)


def sub(a: Ball, b: Ball) -> Ball:
    return add(a, Ball(-b.mid, b.rad))


def sq_norm_upper(a: Ball, axis=None) -> np.ndarray | float:
    """Upper bound of the sum of squares (over ``axis``; all entries if None)."""
    m = a.magnitude
    n = m.size if axis is None else m.shape[axis]
    s = np.sum(m * m, axis=axis)
    return s * (1 + gamma_n(n + 2)) + (n + 1) * TINY
