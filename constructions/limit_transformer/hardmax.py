"""The hardmax threshold of Izzo et al. sec. 3.2 (``izzo2025:sec3.2-hardmax``) under the ``izzo`` precision model.

The model shifts the maximal logit to 0 and flushes post-exp terms ``<= 2^-p``; at model length N a sub-maximal
softmax term is ``N^{-gap}``, flushed iff ``N^{gap} >= 2^p``.  With logit margin gamma (every gap >= gamma),
attention is an exact hardmax from the smallest integer N with ``N^gamma >= 2^p`` on: :func:`hardmax_threshold`
computes it exactly for rational gamma = u/v (``N^u >= 2^{p v}`` by integer roots); 1 for gamma = +inf.  The
``huang`` precision model never flushes, so the threshold does not apply to it.
"""

from __future__ import annotations

import math
from fractions import Fraction

from constructions.limit_transformer.errors import LimitTransformerError
from constructions.limit_transformer.precision import iroot

INF = math.inf


class HardmaxError(LimitTransformerError):
    """The logit margin is not positive or the precision is negative: no hardmax threshold is defined."""


def hardmax_threshold(gamma, precision_bits: int) -> int:
    """Smallest integer N >= 1 with N^gamma >= 2^p (exact for rational gamma; 1 for gamma = +inf).

    For N >= this value every strictly sub-maximal softmax term N^{-gap} (gap >= gamma) is <= 2^-p and is flushed
    by the izzo precision model.  ``2^{p/gamma}`` itself is in general irrational; this is its ceiling.
    """
    if gamma == INF:
        return 1
    g = Fraction(gamma)
    if g <= 0:
        raise HardmaxError(f"the logit margin must be positive, got {g}")
    if precision_bits < 0:
        raise HardmaxError(f"precision bits must be >= 0, got {precision_bits}")
    u, v = g.numerator, g.denominator
    target = 2 ** (precision_bits * v)
    r = iroot(target, u)
    n = r if r**u >= target else r + 1
    return max(n, 1)


def hardmax_float(gamma, precision_bits: int) -> float:
    """2^{p/gamma} as a float (1.0 for gamma = +inf; inf on overflow)."""
    if gamma == INF:
        return 1.0
    e = precision_bits / float(gamma)
    return 2.0**e if e < 1024 else INF
