"""The hardmax threshold of Izzo et al. sec. 3.2 (``izzo2025:sec3.2-hardmax``) under the ``izzo`` precision model.

The model shifts the maximal logit to 0 and flushes post-exp terms ``<= 2^-p``; at model length N a sub-maximal
softmax term is ``N^{-gap}``, flushed iff ``N^{gap} >= 2^p``.  With logit margin gamma (every gap >= gamma),
attention is an exact hardmax from the smallest integer N with ``N^gamma >= 2^p`` on: :func:`hardmax_threshold`
computes it exactly for rational gamma, as ``ceil(2^k)`` with the exact exponent ``k = p/gamma``
(:func:`hardmax_exponent`), never through the integer ``2^{p v}`` (a float-derived gamma has a denominator of
100+ bits, and ``2^{p v}`` could not be built): small integer cases by integer roots, the rest by certified
interval arithmetic (``mpmath.iv``, outward rounding) at increasing precision, which decides ``ceil(2^k)``
because ``2^k`` is irrational for non-integer k.  Thresholds above ``2^MAX_EXPONENT`` are not materialized
(:class:`HardmaxError`); callers in the log domain use the exponent.  1 for gamma = +inf.  The ``huang``
precision model never flushes, so the threshold does not apply to it.
"""

from __future__ import annotations

import math
from fractions import Fraction

from constructions.limit_transformer.errors import LimitTransformerError
from constructions.limit_transformer.precision import iroot

INF = math.inf
MAX_EXPONENT = 1 << 16  # thresholds up to 2^65536 are materialized as integers
_SMALL_ROOT_BITS = 4096  # integer-root path when 2^{p v} has at most this many bits


class HardmaxError(LimitTransformerError):
    """The logit margin is not positive or the precision is negative: no hardmax threshold is defined."""


def hardmax_exponent(gamma, precision_bits: int) -> Fraction:
    """k = p / gamma exactly (0 for gamma = +inf): the threshold is ``ceil(2^k)``."""
    if gamma == INF:
        return Fraction(0)
    g = Fraction(gamma)
    if g <= 0:
        raise HardmaxError(f"the logit margin must be positive, got {g}")
    if precision_bits < 0:
        raise HardmaxError(f"precision bits must be >= 0, got {precision_bits}")
    return Fraction(precision_bits) / g


def ceil_pow2(k: Fraction) -> int:
    """ceil(2^k) for a rational k with 0 <= k <= MAX_EXPONENT, exactly (never builds 2^{numerator})."""
    k = Fraction(k)
    if k < 0 or k > MAX_EXPONENT:
        raise HardmaxError(f"2^{float(k):.6g} is outside [1, 2^{MAX_EXPONENT}]; use the exponent")
    u, v = k.numerator, k.denominator
    if v == 1:
        return 1 << u
    if u * v <= _SMALL_ROOT_BITS:  # N^v >= 2^u by integer roots
        target = 1 << u
        r = iroot(target, v)
        return r if r**v >= target else r + 1
    from mpmath import iv

    prec = 64 + 2 * int(k) + 2
    while True:  # 2^k is irrational (v > 1), so its enclosure eventually avoids the integers
        iv.prec = prec
        x = iv.mpf(2) ** (iv.mpf(u) / iv.mpf(v))
        lo, hi = math.ceil(x.a), math.ceil(x.b)
        if lo == hi:
            return int(lo)
        prec *= 2


def hardmax_threshold(gamma, precision_bits: int) -> int:
    """Smallest integer N >= 1 with N^gamma >= 2^p (exact for rational gamma; 1 for gamma = +inf).

    For N >= this value every strictly sub-maximal softmax term N^{-gap} (gap >= gamma) is <= 2^-p and is flushed
    by the izzo precision model.  ``2^{p/gamma}`` itself is in general irrational; this is its ceiling.  Raises
    :class:`HardmaxError` when it exceeds ``2^MAX_EXPONENT`` (use :func:`hardmax_exponent`).
    """
    k = hardmax_exponent(gamma, precision_bits)
    return max(ceil_pow2(k), 1)


def hardmax_float(gamma, precision_bits: int) -> float:
    """2^{p/gamma} as a float (1.0 for gamma = +inf; inf on overflow)."""
    if gamma == INF:
        return 1.0
    g = Fraction(gamma)
    if g <= 0:
        raise HardmaxError(f"the logit margin must be positive, got {g}")
    e = Fraction(precision_bits) / g  # exact: float(gamma) underflows to 0 for a margin below 2^-1074
    return 2.0 ** float(e) if e < 1024 else INF
