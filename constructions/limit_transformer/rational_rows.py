"""Exact rational vectors as integer numerator / denominator arrays (the exact evaluator's number type).

A :class:`RationalRow` holds one residual coordinate (or one value / pre-activation row) at every position:
``num[i] / den[i]`` with ``den > 0`` and ``gcd(num, den) = 1``.  Arithmetic is vectorized in numpy ``int64``
while every operand's magnitude bound proves that the result fits (``|result| < 2^62``); otherwise the row
switches to numpy object arrays of Python integers (unbounded), and switches back once reduced values fit
again.  Nothing is ever rounded: the results are exactly those of ``fractions.Fraction`` arithmetic.

Why not ``Fraction`` (or gmpy2 ``mpq``) object arrays: one ``Fraction`` operation costs microseconds, and a
compiled C-RASP model at length 10^4 needs millions of them; the ``int64`` path costs nanoseconds per entry
(measured in ``scripts/bench_exact.py``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

_LIMIT = 1 << 62  # int64 results are used only when a bound proves |result| < 2^62


def _maxabs(a: np.ndarray) -> int:
    return int(np.abs(a).max()) if a.size else 0


def _common(*arrays: np.ndarray) -> tuple:
    """The arrays in one dtype: int64 if all are, else object (Python integers)."""
    if all(a.dtype == np.int64 for a in arrays):
        return arrays
    return tuple(a if a.dtype == object else a.astype(object) for a in arrays)


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype == np.int64 and b.dtype == np.int64 and _maxabs(a) * _maxabs(b) < _LIMIT:
        return a * b
    a, b = _common(a.astype(object), b.astype(object))
    return a * b


def _lin2(a: np.ndarray, x: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``a*x + b*y`` exactly."""
    if all(v.dtype == np.int64 for v in (a, x, b, y)) and \
            _maxabs(a) * _maxabs(x) + _maxabs(b) * _maxabs(y) < _LIMIT:
        return a * x + b * y
    a, x, b, y = (v.astype(object) for v in (a, x, b, y))
    return a * x + b * y


class RationalRow:
    """``num / den`` elementwise over positions (1-D), reduced, ``den > 0``."""

    __slots__ = ("num", "den")

    def __init__(self, num: np.ndarray, den: np.ndarray, *, reduce: bool = True):
        num, den = _common(np.asarray(num), np.asarray(den))
        if reduce:
            g = np.gcd(num, den)
            g[g == 0] = 1
            num, den = num // g, den // g
            if num.dtype == object and max(_maxabs(num), _maxabs(den)) < _LIMIT:
                num, den = num.astype(np.int64), den.astype(np.int64)
        self.num, self.den = num, den

    # ---- construction
    @classmethod
    def zeros(cls, n: int) -> RationalRow:
        return cls(np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64), reduce=False)

    @classmethod
    def constant(cls, q, n: int) -> RationalRow:
        """The rational ``q`` at each of ``n`` positions."""
        q = Fraction(q)
        return cls(int_array([q.numerator] * n), int_array([q.denominator] * n), reduce=False)

    @classmethod
    def from_ints(cls, values: np.ndarray) -> RationalRow:
        values = np.asarray(values)
        return cls(values.astype(np.int64) if values.dtype != object else values,
                   np.ones(values.shape, dtype=np.int64), reduce=False)

    @classmethod
    def from_fractions(cls, values) -> RationalRow:
        """From any array-like of exact rationals (Fraction / int)."""
        vals = [Fraction(v) for v in np.asarray(values, dtype=object).ravel()]
        shape = np.shape(values)
        num = np.array([v.numerator for v in vals], dtype=object).reshape(shape)
        den = np.array([v.denominator for v in vals], dtype=object).reshape(shape)
        return cls(num, den)

    def fractions(self) -> np.ndarray:
        """An object array of ``Fraction`` (for results and for the per-query reference path)."""
        out = np.empty(self.num.shape, dtype=object)
        for idx in np.ndindex(self.num.shape):
            out[idx] = Fraction(int(self.num[idx]), int(self.den[idx]))
        return out

    # ---- structure
    def __len__(self) -> int:
        return len(self.num)

    def __getitem__(self, index) -> RationalRow:
        return RationalRow(self.num[index], self.den[index], reduce=False)

    def is_zero(self) -> bool:
        return not np.any(self.num)

    # ---- arithmetic (exact)
    def __add__(self, other: RationalRow) -> RationalRow:
        if other.is_zero():
            return self
        if self.is_zero():
            return other
        a, b = _common(self.den, other.den)
        g = np.gcd(a, b)
        bg, ag = b // g, a // g
        return RationalRow(_lin2(self.num, bg, other.num, ag), _mul(a, bg))

    def scale(self, q: Fraction) -> RationalRow:
        """``q * self`` for one rational ``q``."""
        q = Fraction(q)
        if q == 0:
            return RationalRow.zeros(len(self))
        if q == 1:
            return self
        return RationalRow(_mul(self.num, np.full(1, q.numerator, dtype=_int_dtype(q.numerator))),
                           _mul(self.den, np.full(1, q.denominator, dtype=_int_dtype(q.denominator))))

    def times(self, w: np.ndarray) -> RationalRow:
        """Elementwise product with an integer array."""
        return RationalRow(_mul(self.num, np.asarray(w)), self.den)

    def divided(self, w: np.ndarray) -> RationalRow:
        """Elementwise quotient by an integer array; entries where ``w == 0`` become 0."""
        w = np.asarray(w)
        zero = w == 0
        safe = np.where(zero, 1, w)
        num = np.where(zero, 0, _mul(self.num, np.where(safe < 0, -1, 1)))
        return RationalRow(num, _mul(self.den, np.abs(safe)))

    def cumsum(self) -> RationalRow:
        """Prefix sums along positions: entry i is the sum of entries 0..i."""
        n = len(self)
        if n == 0:
            return self
        den = self.den
        if np.all(den == den[0]):
            nums = self.num
            common = int(den[0])
        else:
            common = int(np.lcm.reduce(den.astype(object)))
            nums = _mul(self.num, (np.full(n, common, dtype=object) // den.astype(object)))
        if nums.dtype == np.int64 and _maxabs(nums) * n >= _LIMIT:
            nums = nums.astype(object)
        total = np.cumsum(nums)
        return RationalRow(total, np.full(n, common, dtype=_int_dtype(common)))

    def heaviside(self) -> RationalRow:
        """``[x >= 0]`` (Huang et al. App. D.1 with ``H(0) = 1``)."""
        return RationalRow.from_ints((self.num >= 0).astype(np.int64))

    def relu(self) -> RationalRow:
        return RationalRow(np.where(self.num > 0, self.num, 0), self.den, reduce=False)


def _int_dtype(v: int):
    return np.int64 if abs(v) < _LIMIT else object


def int_array(values) -> np.ndarray:
    """Python integers as an int64 array when all fit, else an object array."""
    values = [int(v) for v in values]
    if all(abs(v) < _LIMIT for v in values):
        return np.array(values, dtype=np.int64)
    return np.array(values, dtype=object)


def linear_rows(matrix: np.ndarray, rows: list, n: int, bias=None) -> list:
    """``matrix @ rows (+ bias)`` for an exact (Fraction) matrix r x c and ``c`` rows: ``r`` rows.

    Only the nonzero entries of ``matrix`` cost work (compiled models are wide and sparse)."""
    out = []
    for r in range(matrix.shape[0]):
        acc = RationalRow.constant(bias[r], n) if bias is not None else RationalRow.zeros(n)
        for c in np.nonzero(matrix[r] != 0)[0]:
            acc = acc + rows[c].scale(matrix[r, c])
        out.append(acc)
    return out
