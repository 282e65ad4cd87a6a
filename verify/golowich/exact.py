"""Exact (Fraction) machinery for golowich2025: Definition 3.2 ensembles, Definition 3.3 hypotheses, risks.

Scores are handled through their exponentials: a key function is a *weight* ``w(S, x_S) = exp(g0(S, x_S))``,
a nonnegative rational, with ``w = 0`` standing for ``g0 = -inf``.  This keeps every quantity rational.
Labels are scalars in [0, 1] and the loss is ``|Y - Y'|`` (the paper's norm loss with d = 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

INF = float("inf")


def sets_k(ell: int, k: int):
    """Sets_k([ell]) as sorted tuples of 1-based positions."""
    return itertools.combinations(range(1, ell + 1), k)


def span(S) -> int:
    return max(S) - min(S)


@cache
def local_sets(ell: int, k: int, local: int) -> tuple:
    """The sets of Sets_k([ell]) with span <= local."""
    out = []
    for lo in range(1, ell + 1):
        hi = min(ell, lo + local)
        for rest in itertools.combinations(range(lo + 1, hi + 1), k - 1):
            out.append((lo, *rest))
    return tuple(out)


def attention(w: Callable, g1: Callable, x: tuple, k: int, local: int | None = None) -> Fraction:
    """h_{g0,g1}(x) of Definition 3.3 with weights w = exp(g0), and the footnote-6 fallback.

    ``local``: if given, only sets of span <= local are scored (the others have w = 0 by locality),
    which is only a speed-up and is checked against the full sum in the tests.
    """
    ell = len(x)
    num = den = Fraction(0)
    if local is None:
        cands = sets_k(ell, k)
    else:
        cands = local_sets(ell, k, local)
    for S in cands:
        xs = tuple(x[i - 1] for i in S)
        ws = w(S, xs)
        if ws:
            num += ws * g1(xs)
            den += ws
    if den:
        return num / den
    allS = list(sets_k(ell, k))  # footnote 6: all scores -inf -> uniform average of g1
    return sum((Fraction(g1(tuple(x[i - 1] for i in S))) for S in allS), Fraction(0)) / len(allS)


@dataclass(frozen=True)
class Planted:
    """A k-sparse planted-correlations ensemble (Definition 3.2), exactly enumerable.

    mu: token -> prob; Q(ell) -> {S: prob} over Sets_k([ell]); Qvoc: {Z: prob}; gstar: Z -> label.
    """

    k: int
    mu: dict
    Q: Callable
    Qvoc: dict
    gstar: Callable

    def joint(self, ell: int):
        """Yield (X, S*, prob) with P(X, S*) = Q(S*) Qvoc(X_S*) prod_{i not in S*} mu(X_i)."""
        bg = [(t, p) for t, p in self.mu.items() if p]
        for S, qs in self.Q(ell).items():
            if not qs:
                continue
            rest = [i for i in range(1, ell + 1) if i not in S]
            for Z, qz in self.Qvoc.items():
                if not qz:
                    continue
                for fill in itertools.product(bg, repeat=len(rest)):
                    x = [None] * ell
                    for i, z in zip(S, Z, strict=True):
                        x[i - 1] = z
                    p = qs * qz
                    for i, (t, pt) in zip(rest, fill, strict=True):
                        x[i - 1] = t
                        p *= pt
                    yield tuple(x), S, p

    def risk(self, h: Callable, ell: int) -> Fraction:
        """E_{P_ell} |h(X) - g*(X_S*)| exactly."""
        hc = lru_cache(maxsize=None)(h)
        return sum((p * abs(hc(x) - self.gstar(tuple(x[i - 1] for i in S))) for x, S, p in self.joint(ell)),
                   Fraction(0))


def random_shift_Q(base: dict, Lloc: int):
    """Q_ell = law of S + Delta, S ~ base (on Sets_k([Lloc])), Delta ~ Unif{0..ell-Lloc} (paper, after A4.2)."""
    @cache
    def Q(ell: int) -> dict:
        if ell < Lloc:
            return {}
        out: dict = {}
        n = ell - Lloc + 1
        for S, p in base.items():
            for d in range(n):
                T = tuple(i + d for i in S)
                out[T] = out.get(T, Fraction(0)) + Fraction(p) / n
        return out
    return Q


def coverage_eta(Q: Callable, k: int, Lloc: int, ell: int) -> Fraction | float:
    """Smallest eta_ell meeting both inequalities of Assumption 4.2 at ell (inf if none; 0/0 ignored)."""
    best = Fraction(0)
    Ql = Q(ell)
    for lp in range(Lloc, ell + 1):
        Qp = Q(lp)
        for S in sets_k(ell, k):
            num = Ql.get(S, 0)
            if num:
                for d in range(0, min(S)):
                    T = tuple(i - d for i in S)
                    if max(T) <= lp:
                        den = Qp.get(T, 0)
                        if not den:
                            return INF
                        best = max(best, Fraction(num) / den)
            if max(S) <= lp and Qp.get(S, 0):
                if not num:
                    return INF
                best = max(best, Fraction(Qp[S]) / num)
    return best
