"""The two finite-precision models of the attention softmax, in exact and float64 form.

``izzo`` (Izzo et al. sec. 3.2): shift the largest logit to 0, compute ``s_j = exp(log n * (a_j - a*))``
and flush every term with ``s_j <= 2^-p`` to 0; logits and everything else stay exact.  The paper's
general phrase "all quantities of absolute value <= 2^-p are rounded to 0" is applied only where the
paper spells it out (the post-exponential softmax terms): applied to the normalized weights it would
flush the uniform weight 1/n for every n > 2^p and make long inputs meaningless.

``huang`` (Huang et al. App. D.2): round each logit to p fractional bits, then round
``exp(log n * a) = n^a`` to p fractional bits, and normalize.  If every term rounds to 0 the head
outputs the zero vector (documented convention; the paper does not say).

Rounding is to nearest with ties to even, in both the exact and the float path.  ``n`` is the model
input length |x| (including ``$``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from constructions.limit_transformer.errors import NotExactError


# ------------------------------------------------------------------------------------ exact helpers
def iroot(a: int, k: int) -> int:
    """floor(a^(1/k)) for integers a >= 0, k >= 1 (exact, Newton's method)."""
    if a < 0 or k < 1:
        raise ValueError("iroot needs a >= 0 and k >= 1")
    if a < 2 or k == 1:
        return a
    x = 1 << -(-a.bit_length() // k)  # an upper bound
    while True:
        y = ((k - 1) * x + a // x ** (k - 1)) // k
        if y >= x:
            break
        x = y
    while x**k > a:
        x -= 1
    while (x + 1) ** k <= a:
        x += 1
    return x


def flushes(gap: Fraction, n: int, p: int) -> bool:
    """Exactly decide ``exp(-log n * gap) <= 2^-p``, i.e. ``n^gap >= 2^p``, for a rational gap >= 0."""
    if gap <= 0 or n <= 1:
        return False
    approx = float(gap) * math.log(n) - p * math.log(2)
    if approx > 1e-6 * max(1.0, abs(p)):
        return True
    if approx < -1e-6 * max(1.0, abs(p)):
        return False
    u, v = gap.numerator, gap.denominator
    return n**u >= 2 ** (p * v)


def round_bits(x: Fraction, p: int) -> Fraction:
    """x rounded to p fractional bits (nearest, ties to even), exactly."""
    return Fraction(round(x * 2**p), 2**p)


@lru_cache(maxsize=65536)
def rounded_power(n: int, a: Fraction, p: int) -> Fraction:
    """``round_p(n^a)`` exactly for a rational ``a`` (nearest multiple of 2^-p, ties to even)."""
    u, v = a.numerator, a.denominator
    # X = 2^p n^(u/v); X^v = Z = num/den
    num, den = (2 ** (p * v)) * n**u, 1
    if u < 0:
        num, den = 2 ** (p * v), n ** (-u)
    m = iroot(num // den, v)  # floor(X)
    lhs, rhs = num * 2**v, den * (2 * m + 1) ** v  # compare X with m + 1/2
    if lhs > rhs or (lhs == rhs and m % 2 == 1):
        m += 1
    return Fraction(m, 2**p)


def exact_weights(logits: list[Fraction], n: int, p: int, model: str, where: str = "") -> list[Fraction]:
    """Exact attention weights of one query over its keys under precision model ``model``.

    Raises :class:`NotExactError` for ``izzo`` when a strictly sub-maximal term survives the flush
    (its weight would be irrational): the input is too short for the hardmax regime.
    """
    if model == "izzo":
        top = max(logits)
        keep = []
        for j, a in enumerate(logits):
            if a == top:
                keep.append(True)
            elif flushes(top - a, n, p):
                keep.append(False)
            else:
                raise NotExactError(
                    f"{where}key {j + 1}: logit gap {top - a} survives the 2^-{p} flush at length n={n} "
                    f"(n^gap < 2^p), so its weight is irrational; use the float path or inputs with "
                    f"n^gap >= 2^p (the hardmax regime)")
        k = sum(keep)
        return [Fraction(1, k) if kp else Fraction(0) for kp in keep]
    if model == "huang":
        terms = [rounded_power(n, round_bits(a, p), p) for a in logits]
        total = sum(terms)
        if total == 0:
            return [Fraction(0)] * len(logits)
        return [t / total for t in terms]
    raise ValueError(f"unknown precision model {model!r}")


# ------------------------------------------------------------------------------------- float path
# Exact boundary cases are common with small rationals (n = 8, gap = 1/3, p = 1 gives n^gap = 2^p exactly);
# float64 decides values within this relative distance of a flush boundary or rounding tie as the exact
# rule does at the boundary itself (flush; ties to even).
BOUNDARY_RTOL = 1e-12


def round_half_even_float(v: np.ndarray) -> np.ndarray:
    """Round to nearest integer, ties to even, treating values within rtol 1e-12 of a half-integer as ties."""
    lower = np.floor(v)
    frac = v - lower
    tie = np.abs(frac - 0.5) <= BOUNDARY_RTOL * np.maximum(1.0, np.abs(v))
    even = np.where(np.mod(lower, 2) == 0, lower, lower + 1)
    return np.where(tie, even, np.rint(v))


def float_terms(logits: np.ndarray, mask: np.ndarray, n: int, p: int, model: str) -> np.ndarray:
    """Unnormalized float64 softmax terms along the last axis (0 where ``mask`` is False).

    ``izzo``: ``exp(log n (a - a*))`` with terms <= 2^-p flushed; ``huang``: ``round_p(n^round_p(a))``
    (shifted by the largest term where n^a would overflow float64; the p-bit rounding is then far below
    float resolution).  Decisions within ``BOUNDARY_RTOL`` of a flush boundary or rounding tie follow the
    exact rule at the boundary.
    """
    logn = math.log(n) if n > 1 else 0.0
    if model == "izzo":
        a = np.where(mask, logits, -np.inf)
        top = a.max(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore"):
            expo = logn * (a - top)
        return np.where(mask & (expo > -p * math.log(2) * (1 - BOUNDARY_RTOL)), np.exp(expo), 0.0)
    if model == "huang":
        a = round_half_even_float(logits * 2.0**p) / 2.0**p
        expo = np.where(mask, logn * a, -np.inf)
        top = expo.max(axis=-1, keepdims=True)
        with np.errstate(over="ignore", invalid="ignore"):
            rounded = round_half_even_float(np.exp(expo) * 2.0**p) / 2.0**p
            shifted = np.where(expo >= -(p + 1) * math.log(2), np.exp(expo - top), 0.0)
        return np.where(mask, np.where(top > 700, shifted, rounded), 0.0)
    raise ValueError(f"unknown precision model {model!r}")


def float_weights(logits: np.ndarray, mask: np.ndarray, n: int, p: int, model: str) -> np.ndarray:
    """float64 attention weights along the last axis; ``mask`` marks admissible (causal) keys.

    A query whose terms all vanish gets weight 0 everywhere (the head outputs 0).
    """
    s = float_terms(logits, mask, n, p, model)
    total = s.sum(axis=-1, keepdims=True)
    return np.divide(s, total, out=np.zeros_like(s), where=total > 0)
