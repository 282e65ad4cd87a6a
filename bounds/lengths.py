"""Training lengths in the log domain: ``ceil(2^k) + a`` with an exact rational exponent k, never materialized when
astronomically large.

The hardmax threshold ``ceil(2^{p/gamma})`` of a float-weight model can have an exponent in the millions; the
estimate adds a sample term to it.  :class:`Length` keeps ``k`` exact and the integer ``a`` separately, prints
``ceil(2^k) + a`` with k in decimal when ``k > MATERIALIZE_BITS``, and the exact integer otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from constructions.limit_transformer.hardmax import ceil_pow2

MATERIALIZE_BITS = 64


TEXT_DIGITS = 30


def integer_text(n: int) -> str:
    """``n`` in decimal, or ``d.dddddde+k (k+1 digits; exact in --json)`` beyond TEXT_DIGITS digits (never a float)."""
    digits = str(abs(n))
    if len(digits) <= TEXT_DIGITS:
        return str(n)
    sign = "-" if n < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:7]}e+{len(digits) - 1} ({len(digits)} digits; exact in --json)"


@dataclass(frozen=True)
class Length:
    """``ceil(2^exponent) + add`` (``add`` alone when exponent is None)."""

    exponent: Fraction | None
    add: int

    @classmethod
    def of(cls, n: int) -> Length:
        return cls(None, int(n))

    @classmethod
    def pow2(cls, k: Fraction, add: int = 0) -> Length:
        k = Fraction(k)
        if k <= MATERIALIZE_BITS:
            return cls(None, ceil_pow2(k) + add)
        return cls(k, add)

    @property
    def exact(self) -> int | None:
        """The integer, or None when it is not materialized."""
        return self.add if self.exponent is None else None

    @property
    def log2(self) -> float:
        if self.exponent is None:
            return math.log2(self.add) if self.add > 0 else -math.inf
        return float(self.exponent)  # add is negligible at this size (add < 2^exponent)

    def plus(self, n: int) -> Length:
        return Length(self.exponent, self.add + int(n))

    def __str__(self) -> str:
        if self.exponent is None:
            return integer_text(self.add)
        tail = f" + {self.add}" if self.add else ""
        return f"ceil(2^{float(self.exponent):.10g}){tail} (~ 2^{float(self.exponent):.6g})"

    def to_json(self):
        """An int when materialized, else {"pow2_exponent": "p/q", "pow2_exponent_float": k, "plus": a}."""
        if self.exponent is None:
            return self.add
        return {"pow2_exponent": str(self.exponent), "pow2_exponent_float": float(self.exponent), "plus": self.add}
