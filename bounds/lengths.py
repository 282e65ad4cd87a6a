"""Training lengths in the log domain: ``ceil(2^k) + a`` with an exact rational exponent k, never materialized when
astronomically large.

The hardmax threshold ``ceil(2^{p/gamma})`` of a float-weight model can have an exponent in the millions; the
estimate adds a sample term to it.  :class:`Length` keeps ``k`` exact and the integer ``a`` separately, prints
``ceil(2^k) + a`` with k in decimal when ``k > MATERIALIZE_BITS``, and the exact integer otherwise.

An integer beyond 64 bits that is known exactly (the compression length of the corrected bound with many heads, the
agreement length of a lower-bound pair) is kept as a bound in the same form: :meth:`Length.at_most` rounds its
exponent up (``n <= ceil(2^k)``), :meth:`Length.at_least` rounds it down (``n >= floor(2^k)``, ``rounding="down"``),
both with rational exponents within 2^-40 of log2 n, so that a printed upper bound is never below the exact one and a
printed lower bound never above it.  No integer of more than 64 bits reaches text or JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from constructions.limit_transformer.hardmax import ceil_pow2

MATERIALIZE_BITS = 64


TEXT_DIGITS = 30


def log2_bounds(n: int) -> tuple[Fraction, Fraction]:
    """Rationals lo <= log2(n) <= hi with hi - lo < 2^-38, for an integer n >= 1 of any size.

    With ``top = n >> s`` the leading 64 bits, ``top 2^s <= n < (top + 1) 2^s`` and
    ``log2(top + 1) - log2(top) < 2^-62``; the float log2 of ``top`` is within 2^-45 of the truth (conversion to
    double: relative 2^-53, log2 at most 64: an absolute ulp of 2^-46), so a pad of 2^-40 on each side is safe."""
    if n < 1:
        raise ValueError(f"log2 of {n}")
    shift = max(0, n.bit_length() - 64)
    mid = Fraction(math.log2(n >> shift)) + shift
    pad = Fraction(1, 1 << 40)
    return max(Fraction(0), mid - pad), mid + 2 * pad


def integer_text(n: int) -> str:
    """``n`` in decimal, or ``d.dddddde+k (k+1 digits; exact in --json)`` beyond TEXT_DIGITS digits (never a float)."""
    if n.bit_length() > 8000:  # str() of such an integer is refused by Python; its digits via log10
        lo, _ = log2_bounds(abs(n))
        e = float(lo) * math.log10(2)
        sign = "-" if n < 0 else ""
        return f"{sign}{10 ** (e - math.floor(e)):.6f}e+{math.floor(e)} (about {math.floor(e) + 1} digits)"
    digits = str(abs(n))
    if len(digits) <= TEXT_DIGITS:
        return str(n)
    sign = "-" if n < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:7]}e+{len(digits) - 1} ({len(digits)} digits; exact in --json)"


@dataclass(frozen=True)
class Length:
    """``ceil(2^exponent) + add`` (``add`` alone when exponent is None); ``floor`` instead of ``ceil`` when
    ``rounding == "down"`` (a lower bound made by :meth:`at_least`)."""

    exponent: Fraction | None
    add: int
    rounding: str = "up"

    @classmethod
    def of(cls, n: int) -> Length:
        return cls(None, int(n))

    @classmethod
    def at_most(cls, n: int) -> Length:
        """``n`` itself when it has at most MATERIALIZE_BITS bits, else ``ceil(2^k)`` with k >= log2 n."""
        n = int(n)
        if n.bit_length() <= MATERIALIZE_BITS:
            return cls.of(n)
        return cls(log2_bounds(n)[1], 0)

    @classmethod
    def at_least(cls, n: int) -> Length:
        """``n`` itself when it has at most MATERIALIZE_BITS bits, else ``floor(2^k)`` with k <= log2 n."""
        n = int(n)
        if n.bit_length() <= MATERIALIZE_BITS:
            return cls.of(n)
        return cls(log2_bounds(n)[0], 0, "down")

    @classmethod
    def pow2(cls, k: Fraction, add: int = 0) -> Length:
        k = Fraction(k)
        if k <= MATERIALIZE_BITS:
            return cls(None, ceil_pow2(k) + add)
        return cls(compact_exponent(k, up=True), add)

    @property
    def exact(self) -> int | None:
        """The integer, or None when it is not materialized."""
        return self.add if self.exponent is None else None

    @property
    def log2(self) -> float:
        if self.exponent is None:
            return math.log2(self.add) if self.add > 0 else -math.inf
        e = _float(self.exponent)  # add is negligible at this size (add < 2^exponent)
        return math.inf if e is None else e

    @property
    def log2_upper(self) -> float:
        """A float at least log2 of the length."""
        if self.exponent is None:
            return float(log2_bounds(max(self.add, 1))[1])
        k = _float(self.exponent)
        if k is None:
            return math.inf
        # ceil(2^k) + a <= 2^k (1 + (a + 1) 2^-k) and log2(1 + x) <= 1.5 x
        return k + 1.5 * (abs(self.add) + 1) * 2.0 ** (-min(k, 1000.0)) + 1e-12

    @property
    def log2_lower(self) -> float:
        """A float at most log2 of the length (floor(2^k) + a >= 2^k (1 - 2^-k) for a >= 0)."""
        if self.exponent is None:
            return float(log2_bounds(max(self.add, 1))[0]) if self.add >= 1 else -math.inf
        k = _float(self.exponent)
        if k is None:
            return math.inf
        return k - 1.5 * 2.0 ** (-min(k, 1000.0)) - 1e-12

    def plus(self, n: int) -> Length:
        return Length(self.exponent, self.add + int(n), self.rounding)

    def __str__(self) -> str:
        if self.exponent is None:
            return integer_text(self.add)
        tail = f" + {self.add}" if self.add > 0 else f" - {-self.add}" if self.add < 0 else ""
        op = "floor" if self.rounding == "down" else "ceil"
        e = _float(self.exponent)
        if e is None:
            digits = len(str(self.exponent.numerator // self.exponent.denominator))
            return f"{op}(2^k){tail} with k an integer of {digits} digits (exact in --json)"
        return f"{op}(2^{e:.10g}){tail} (~ 2^{e:.6g})"

    def to_json(self):
        """An int when materialized, else {"pow2_exponent": "p/q", "pow2_exponent_float": k, "plus": a} (with
        ``"rounding": "down"`` for a lower bound)."""
        if self.exponent is None:
            return self.add
        out = {"pow2_exponent": str(self.exponent), "pow2_exponent_float": _float(self.exponent), "plus": self.add}
        if self.rounding == "down":
            out["rounding"] = "down"
        return out

    @classmethod
    def from_json(cls, v) -> Length:
        if isinstance(v, int):
            return cls.of(v)
        return cls(Fraction(v["pow2_exponent"]), int(v["plus"]), v.get("rounding", "up"))


def compact_exponent(k: Fraction, up: bool) -> Fraction:
    """k itself when its numerator and denominator are short, else a dyadic rational with 64 significant bits rounded
    up (``up``) or down: an exponent of 10^400 digits would not fit a JSON string or a float."""
    k = Fraction(k)
    if k.numerator.bit_length() + k.denominator.bit_length() <= 4096:
        return k
    shift = k.numerator.bit_length() - k.denominator.bit_length() - 64
    scaled = (k / Fraction(2) ** shift) if shift >= 0 else k * Fraction(2) ** (-shift)
    m = -(-scaled.numerator // scaled.denominator) if up else scaled.numerator // scaled.denominator
    return Fraction(m) * Fraction(2) ** shift


def _float(x: Fraction) -> float | None:
    try:
        return float(x)
    except OverflowError:
        return None


def approx_float(x) -> float | None:
    """``float(x)`` for a JSON field beside an exact value: None when |x| is beyond the double range (a legal file
    holds any exact rational; the exact value is the one that counts).  A nonzero value below the smallest double
    reads 0.0 here: never decide anything on it."""
    if x is None or isinstance(x, float):
        return x if x is None or math.isfinite(x) else None
    return _float(Fraction(x))


def log10_bounds(x: Fraction) -> tuple[float, float] | None:
    """Floats lo <= log10|x| <= hi (within 10^-9) for a nonzero rational of any size; None for 0."""
    x = abs(Fraction(x))
    if x == 0:
        return None
    nl, nh = log2_bounds(x.numerator)
    dl, dh = log2_bounds(x.denominator)
    c = math.log10(2)
    return float(nl - dh) * c - 1e-9, float(nh - dl) * c + 1e-9


def approx_text(x, digits: int = 6) -> str:
    """A rational for a reader: ``%.{digits}g`` within the double range (nonzero values above 10^-300), else
    ``~ 10^k`` from the exact value (the exact rational is in --json)."""
    x = Fraction(x)
    f = _float(x)
    if x == 0 or (f is not None and abs(f) >= 1e-300):
        return f"{f:.{digits}g}"
    lo, hi = log10_bounds(x)
    e = (lo + hi) / 2
    return f"{'-' if x < 0 else ''}~ 10^{e:.6g} (exact in --json)"


def upper_max(a: Length, b: Length) -> Length:
    """A Length at least max(a, b) for two upper-rounded lengths (exact when both are materialized)."""
    if a.exponent is None and b.exponent is None:
        return Length.of(max(a.add, b.add))
    if a.exponent is None and a.add.bit_length() <= math.floor(b.exponent):  # a <= 2^floor(e_b) <= b
        return b
    if b.exponent is None and b.add.bit_length() <= math.floor(a.exponent):
        return a
    ea = a.exponent if a.exponent is not None else log2_bounds(max(a.add, 1))[1]
    eb = b.exponent if b.exponent is not None else log2_bounds(max(b.add, 1))[1]
    return Length(max(ea, eb), max(a.add if a.exponent is not None else 0, b.add if b.exponent is not None else 0))


def _log2_range(L: Length) -> tuple[Fraction, Fraction]:
    """Rationals lo <= log2(L) <= hi (exact exponents, so the difference of two huge lengths stays precise)."""
    if L.exponent is None:
        return log2_bounds(max(L.add, 1))
    k = L.exponent
    # |add| + 1 <= 2^(k - 40) (k > 64 here; adds are small constants): ceil/floor(2^k) + add within 2^-39 of 2^k
    slack = Fraction(1, 1 << 38) if (abs(L.add) + 1).bit_length() <= k - 40 else Fraction(1)
    return k - slack, k + slack


def log10_ratio_upper(upper: Length, lower: Length) -> float:
    """An upper bound (rounded up by 10^-9) of log10(upper / lower) for an upper-rounded and a lower-rounded length
    (+inf when it is beyond the double range: exponents of 10^400 digits are legal)."""
    diff = _log2_range(upper)[1] - _log2_range(lower)[0]
    f = _float(diff)
    return math.inf if f is None else f * math.log10(2) + 1e-9
