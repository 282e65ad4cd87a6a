"""Exact rational arrays: parsing numbers to ``Fraction`` and building numpy object arrays of them."""

from __future__ import annotations

from fractions import Fraction
from numbers import Rational

import numpy as np

from constructions.limit_transformer.errors import ModelFormatError


def to_fraction(x) -> Fraction:
    """Exact conversion of int / Fraction / sympy Rational / finite float / 'a/b' or decimal string."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool):
        raise ModelFormatError(f"expected a number, got the boolean {x!r}")
    if isinstance(x, int | Rational):
        return Fraction(int(x.numerator), int(x.denominator))
    if isinstance(x, float | np.floating):
        if not np.isfinite(x):
            raise ModelFormatError(f"parameters must be finite, got {x!r}")
        return Fraction(float(x))
    if isinstance(x, np.integer):
        return Fraction(int(x))
    if isinstance(x, str):
        try:
            return Fraction(x.strip())
        except (ValueError, ZeroDivisionError) as e:
            raise ModelFormatError(f"cannot read {x!r} as a rational number ('3/4', '0.25' or '-2')") from e
    try:  # sympy numbers
        import sympy

        if isinstance(x, sympy.Basic) and x.is_Rational:
            return Fraction(int(x.p), int(x.q))
    except ImportError:  # pragma: no cover
        pass
    raise ModelFormatError(f"cannot read {x!r} (type {type(x).__name__}) as an exact rational number")


def frac_array(data, ndim: int | None = None, name: str = "array") -> np.ndarray:
    """A numpy object array of Fractions from nested sequences (or an array); checks ``ndim``."""
    arr = np.asarray(data, dtype=object)
    if ndim is not None and arr.ndim != ndim:
        raise ModelFormatError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    out = np.empty(arr.shape, dtype=object)
    for idx, v in np.ndenumerate(arr):
        out[idx] = to_fraction(v)
    return out


def zeros(shape) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    out.fill(Fraction(0))
    return out


def to_float(arr: np.ndarray) -> np.ndarray:
    """float64 view of an exact array (a fresh array; exact values rounded to nearest double)."""
    return np.asarray(arr, dtype=object).astype(np.float64)


def fraction_str(x: Fraction) -> str:
    """Canonical text of a rational: '3', '-1/2'."""
    return str(x)


def exact_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-D exact (object) arrays, summing only products of nonzero entries.

    Cost is ``sum_k nnz(a[:, k]) * nnz(b[k, :])`` rational operations, so sparse operands (one-hot positions,
    compiled C-RASP streams, banded Toeplitz blocks) are cheap; the result equals ``a.dot(b)`` exactly.
    """
    out = zeros((a.shape[0], b.shape[1]))
    if a.size == 0 or b.size == 0:
        return out
    nza, nzb = a.astype(bool), b.astype(bool)  # bool(Fraction) is cheaper than Fraction == 0
    for k in np.nonzero(nza.any(axis=0) & nzb.any(axis=1))[0]:
        r, c = np.nonzero(nza[:, k])[0], np.nonzero(nzb[k])[0]
        out[np.ix_(r, c)] += np.multiply.outer(a[r, k], b[k, c])
    return out
