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
#: a certified decision doubles its working precision up to this many bits before giving up
MAX_CERTIFIED_BITS = 1 << 16


def iroot(a: int, k: int) -> int:
    """floor(a^(1/k)) for integers a >= 0, k >= 1, exactly.

    A float estimate of ``log2(a) / k`` gives the root to ~50 bits; Newton's iteration from an upper bound
    then needs O(log(bits of the root)) steps, so the cost is polynomial in the bit sizes of ``a`` and ``k``
    (the former start ``2^ceil(b/k)`` took O(k) steps: p = 16 ran for minutes).
    """
    if a < 0 or k < 1:
        raise ValueError("iroot needs a >= 0 and k >= 1")
    if a < 2 or k == 1:
        return a
    b = a.bit_length()
    if k >= b:  # 1 <= a^(1/k) < 2
        return 1
    shift = max(0, b - 64)
    e = (math.log2(a >> shift) + shift) / k  # log2 of the root, absolute error ~1e-15 e
    if e < 48:
        x = int(2.0**e)
    else:
        x = int(2.0 ** (e - int(e) + 40)) << (int(e) - 40)
        x += (x >> 30) + 1  # relative error of the estimate << 2^-30: an upper bound
        while x**k <= a:  # (guard: make it one)
            x <<= 1
        while True:  # Newton from above: decreasing, stops at floor
            y = ((k - 1) * x + a // x ** (k - 1)) // k
            if y >= x:
                break
            x = y
    while x**k > a:
        x -= 1
    while (x + 1) ** k <= a:
        x += 1
    return x


def _log2_margin(n: int, u: int, w: int, prec: int) -> tuple:
    """Certified bounds (raw mpf endpoints) of ``u log2(n) - w``, computed with mpmath.iv at ``prec`` bits."""
    from mpmath import iv

    saved, iv.prec = iv.prec, prec
    try:
        return (iv.log(iv.mpf(n)) / iv.log(iv.mpf(2)) * u - w)._mpi_
    finally:
        iv.prec = saved


def flushes(gap: Fraction, n: int, p: int) -> bool:
    """Exactly decide ``exp(-log n * gap) <= 2^-p``, i.e. ``n^gap >= 2^p``, for a rational gap >= 0.

    Equivalent to ``u log2(n) >= p v`` for ``gap = u/v``.  For ``n = 2^k`` this is the integer comparison
    ``k u >= p v``; otherwise log2(n) is irrational, equality is impossible, and certified interval
    arithmetic (mpmath.iv) at doubling precision decides it in time polynomial in the bit sizes (the former
    fallback ``n^u >= 2^(p v)`` was exponential in them: gap 1 - 2^-41 exhausted memory).
    """
    if gap <= 0 or n <= 1:
        return False
    u, v = gap.numerator, gap.denominator
    if n & (n - 1) == 0:
        return (n.bit_length() - 1) * u >= p * v
    if p.bit_length() <= 1000 and gap < 2**1000:  # a float pre-check (beyond the double range: certified only)
        approx = float(gap) * math.log2(n) - p
        if abs(approx) > 1e-9 * max(1.0, abs(p)):
            return approx > 0
    from mpmath.libmp import mpf_sign

    prec = 64 + u.bit_length() + v.bit_length() + p.bit_length()
    while prec <= MAX_CERTIFIED_BITS:
        lo, hi = _log2_margin(n, u, p * v, prec)
        if mpf_sign(lo) > 0:
            return True
        if mpf_sign(hi) < 0:
            return False
        prec *= 2
    raise NotExactError(f"cannot decide n^gap >= 2^p for n={n}, gap={gap}, p={p} within "
                        f"{MAX_CERTIFIED_BITS} bits")  # pragma: no cover - log2(n) irrational: unreachable


def round_bits(x: Fraction, p: int) -> Fraction:
    """x rounded to p fractional bits (nearest, ties to even), exactly."""
    return Fraction(round(x * 2**p), 2**p)


def _perfect_power_root(n: int, v: int) -> int | None:
    """r with r^v = n, or None (n >= 1)."""
    if n == 1:
        return 1
    if v >= n.bit_length():
        return None
    r = iroot(n, v)
    return r if r**v == n else None


@lru_cache(maxsize=65536)
def rounded_power(n: int, a: Fraction, p: int) -> Fraction:
    """``round_p(n^a)`` exactly for a rational ``a`` (nearest multiple of 2^-p, ties to even).

    With ``a = u/v``: when ``n = r^v`` the value ``2^p r^u`` is rational and rounded exactly; otherwise
    ``n^a`` is irrational, so ``2^p n^a`` is never a tie and certified interval arithmetic (mpmath.iv) at
    doubling precision finds its nearest integer.  Cost polynomial in the bit sizes of n, u, v, p (the former
    integer root of ``2^(p v) n^u`` was exponential in p for the denominators ``v = 2^p`` of rounded logits).
    """
    u, v = a.numerator, a.denominator
    r = _perfect_power_root(n, v)
    if r is not None:
        return Fraction(round(Fraction(r) ** u * 2**p), 2**p)
    from mpmath import iv
    from mpmath.libmp import mpf_floor, to_int

    magnitude = abs(float(a)) * math.log2(n) + p  # bits of 2^p n^a (up to sign of the exponent)
    prec = 64 + int(magnitude) + u.bit_length() + v.bit_length()
    while prec <= MAX_CERTIFIED_BITS + int(magnitude):
        saved, iv.prec = iv.prec, prec
        try:
            x = iv.mpf(2) ** p * iv.exp(iv.log(iv.mpf(n)) * u / v) + iv.mpf(0.5)
        finally:
            iv.prec = saved
        lo, hi = (to_int(mpf_floor(end)) for end in x._mpi_)
        if lo == hi:
            return Fraction(lo, 2**p)
        prec *= 2
    raise NotExactError(f"cannot round {n}^{a} to {p} bits within {MAX_CERTIFIED_BITS} bits")  # pragma: no cover


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
# rule does at the boundary itself (flush; ties to even).  Float64 cannot tell such a value from a genuine
# near-miss (logit 15/16 - 2^-50 at p = 3 is not a tie), so every such decision raises a
# :class:`BoundaryWarning` naming the count and the exact alternative.
BOUNDARY_RTOL = 1e-12


class BoundaryWarning(UserWarning):
    """The float path decided a value within BOUNDARY_RTOL of a flush boundary or rounding tie as the
    boundary; the exact answer may differ (``exact_forward`` / ``exact_weights`` decide it exactly)."""


def _near_tie(v: np.ndarray) -> np.ndarray:
    frac = v - np.floor(v)
    return np.abs(frac - 0.5) <= BOUNDARY_RTOL * np.maximum(1.0, np.abs(v))


def round_half_even_float(v: np.ndarray) -> np.ndarray:
    """Round to nearest integer, ties to even, treating values within rtol 1e-12 of a half-integer as ties."""
    lower = np.floor(v)
    even = np.where(np.mod(lower, 2) == 0, lower, lower + 1)
    return np.where(_near_tie(v), even, np.rint(v))


def _count(near: np.ndarray, rows) -> int:
    """Near-boundary decisions, each row's weighted by the number of queries it stands for."""
    if rows is None:
        return int(np.count_nonzero(near))
    return int(np.sum(np.count_nonzero(near, axis=-1) * np.asarray(rows)))


def warn_boundary(count: int, what: str, model: str, p: int, stacklevel: int = 3) -> None:
    """The :class:`BoundaryWarning` for ``count`` decisions (``what``) taken at a boundary; nothing if none."""
    if count:
        import warnings

        warnings.warn(f"{model} precision (p={p}): {count} {what} within relative {BOUNDARY_RTOL:g} of the "
                      f"boundary decided as at the boundary; float64 cannot certify them: use exact_forward "
                      f"for the exact answer", BoundaryWarning, stacklevel=stacklevel)


def float_terms(logits: np.ndarray, mask: np.ndarray, n: int, p: int, model: str, rows=None,
                tally: list | None = None) -> np.ndarray:
    """Unnormalized float64 softmax terms along the last axis (0 where ``mask`` is False).

    ``izzo``: ``exp(log n (a - a*))`` with terms <= 2^-p flushed; ``huang``: ``round_p(n^round_p(a))``
    (shifted by the largest term where n^a would overflow float64; the p-bit rounding is then far below
    float resolution).  Decisions within ``BOUNDARY_RTOL`` of a flush boundary or rounding tie follow the
    exact rule at the boundary and raise a :class:`BoundaryWarning` (they may be wrong for near-misses).
    ``rows`` (broadcastable to ``logits.shape[:-1]``): how many queries each row stands for, when a caller
    computes the terms of identical queries once; the warning counts their decisions as if each were computed.
    ``tally``: a list to which the count of such decisions is appended instead of warning (a caller that
    computes one attention in pieces warns once, with :func:`warn_boundary`, for the whole).
    """
    logn = math.log(n) if n > 1 else 0.0
    if model == "izzo":
        expo = np.where(mask, logits, -np.inf)
        top = expo.max(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore"):
            np.subtract(expo, top, out=expo)
            expo *= logn  # log n (a - a*): 0 at the top, < 0 below it, -inf (or NaN) where masked
        bound = -p * math.log(2)
        lo, hi = bound * (1 + BOUNDARY_RTOL), bound * (1 - BOUNDARY_RTOL)  # |expo - bound| <= rtol |bound|
        near = 0
        if p > 0:  # then hi < 0, so a near decision is strictly below the top (with p = 0 only the top is near)
            with np.errstate(invalid="ignore"):
                inside = expo >= lo
                inside &= expo <= hi
            near = _count(inside, rows)
        _report(near, "flush decisions", model, p, tally)
        with np.errstate(invalid="ignore"):
            keep = expo > hi  # False where masked (-inf or NaN)
        return np.exp(expo, out=np.zeros_like(expo), where=keep)
    if model == "huang":
        scaled = logits * 2.0**p
        a = round_half_even_float(scaled) / 2.0**p
        expo = np.where(mask, logn * a, -np.inf)
        top = expo.max(axis=-1, keepdims=True)
        with np.errstate(over="ignore", invalid="ignore"):
            powers = np.exp(expo) * 2.0**p
            rounded = round_half_even_float(powers) / 2.0**p
            shifted = np.where(expo >= -(p + 1) * math.log(2), np.exp(expo - top), 0.0)
            near = mask & (_near_tie(scaled) | ((top <= 700) & np.isfinite(powers) & _near_tie(powers)))
        _report(_count(near, rows), "rounding decisions", model, p, tally)
        return np.where(mask, np.where(top > 700, shifted, rounded), 0.0)
    raise ValueError(f"unknown precision model {model!r}")


def _report(count: int, what: str, model: str, p: int, tally: list | None) -> None:
    if tally is not None:
        tally.append(count)
    else:
        warn_boundary(count, what, model, p, stacklevel=4)


def float_weights(logits: np.ndarray, mask: np.ndarray, n: int, p: int, model: str,
                  tally: list | None = None) -> np.ndarray:
    """float64 attention weights along the last axis; ``mask`` marks admissible (causal) keys.

    A query whose terms all vanish gets weight 0 everywhere (the head outputs 0).  ``tally``: as for
    :func:`float_terms`.
    """
    s = float_terms(logits, mask, n, p, model, tally=tally)
    total = s.sum(axis=-1, keepdims=True)
    if np.all(total > 0):
        return np.divide(s, total, out=s)
    return np.divide(s, total, out=np.zeros_like(s), where=total > 0)
