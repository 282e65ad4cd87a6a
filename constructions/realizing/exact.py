"""Exact rational linear algebra for the realizing networks: vectors and matrices are tuples of Fractions."""

from __future__ import annotations

from fractions import Fraction

from constructions.realizing.errors import RealizingError

Vec = tuple  # tuple of Fractions


def to_fraction(x) -> Fraction:
    """x as a Fraction (ints, strings, Fractions; bools are refused)."""
    if isinstance(x, bool):
        raise RealizingError(f"expected a number, got {x!r}")
    return x if isinstance(x, Fraction) else Fraction(x)


def to_matrix(m) -> tuple:
    """A rectangular tuple-of-tuples of Fractions."""
    rows = tuple(tuple(to_fraction(v) for v in row) for row in m)
    if rows and len({len(r) for r in rows}) != 1:
        raise RealizingError("ragged matrix")
    return rows


def to_vector(v) -> Vec:
    """A tuple of Fractions."""
    return tuple(to_fraction(x) for x in v)


def matvec(m: tuple, v: Vec) -> Vec:
    """m v, exactly."""
    if m and len(m[0]) != len(v):
        raise RealizingError(f"shape mismatch: matrix with {len(m[0])} columns times vector of length {len(v)}")
    return tuple(sum((a * b for a, b in zip(row, v, strict=True)), Fraction(0)) for row in m)


def vadd(a: Vec, b: Vec) -> Vec:
    """a + b, entrywise."""
    return tuple(x + y for x, y in zip(a, b, strict=True))


def relu(x):
    """max(x, 0), keeping x's exact type."""
    return x if x > 0 else x * 0


def hard_sigmoid(x: Fraction) -> Fraction:
    """clip(x/4 + 1/2, 0, 1): piecewise linear, exact on rationals, hard_sigmoid(0) = 1/2 like the sigmoid."""
    return min(Fraction(1), max(Fraction(0), x / 4 + Fraction(1, 2)))


def identity(n: int) -> tuple:
    """The n x n identity matrix of Fractions."""
    return tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))

