"""Checkers for Assumptions 3.3 (locality, relative), 4.1 (delta-realizability) and 4.2 (coverage).

Each checker returns a :class:`Verdict`: ``holds`` and, when it does not, ``witness`` naming the
offending set / shift / length.  All checks are exact and *bounded*: the paper quantifies over all of N;
we quantify over positions <= ``lmax`` / the lengths given, and say so in the verdict's ``scope``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from constructions.golowich.model import (
    NEG_INF,
    AttentionClass,
    Ensemble,
    KeyFunction,
    ModelError,
    risk,
    sets_k,
    span,
)

INF = math.inf


@dataclass(frozen=True)
class Verdict:
    """Outcome of one assumption check."""

    assumption: str
    holds: bool
    witness: object = None
    scope: str = ""
    value: object = None  # e.g. the best delta, or the eta table

    def __bool__(self) -> bool:
        return self.holds


def _tuples(vocab, k):
    import itertools

    return list(itertools.product(vocab, repeat=k))


def check_local(keys: Iterable[KeyFunction], vocab, k: int, L_local: int, lmax: int) -> Verdict:
    """Assumption 3.3.1: g0(S, x) = -inf whenever span(S) > L_local (checked for S in Sets_k([lmax]))."""
    xs = _tuples(vocab, k)
    for g0 in keys:
        for S in sets_k(lmax, k):
            if span(S) <= L_local:
                continue
            for x in xs:
                if g0(S, x) != NEG_INF:
                    return Verdict("asm3.3.1-local", False, {"key": g0.name, "S": S, "x": x, "span": span(S)},
                                   f"S in Sets_{k}([{lmax}])")
    return Verdict("asm3.3.1-local", True, None, f"S in Sets_{k}([{lmax}])")


def check_relative(keys: Iterable[KeyFunction], vocab, k: int, lmax: int) -> Verdict:
    """Assumption 3.3.2: g0(S + i, x) = g0(S, x) (checked for S, S + i in Sets_k([lmax]))."""
    xs = _tuples(vocab, k)
    for g0 in keys:
        for S in sets_k(lmax, k):
            if S[0] != 1:
                continue  # compare every set with its left-most translate
            base = {x: g0(S, x) for x in xs}
            for i in range(1, lmax - S[-1] + 1):
                T = tuple(j + i for j in S)
                for x in xs:
                    if g0(T, x) != base[x]:
                        return Verdict("asm3.3.2-relative", False,
                                       {"key": g0.name, "S": S, "shift": i, "x": x,
                                        "g0(S,x)": str(base[x]), "g0(S+i,x)": str(g0(T, x))},
                                       f"S, S+i in Sets_{k}([{lmax}])")
    return Verdict("asm3.3.2-relative", True, None, f"S, S+i in Sets_{k}([{lmax}])")


def realizability_delta(H: AttentionClass, ens: Ensemble, lengths: Iterable[int]):
    """min over h in H of max over the given lengths of E_{P_l}|h - Y|, with the best h and all risks."""
    lengths = list(lengths)
    table = {}
    for g0, g1 in H.hypotheses():
        table[(g0.name, g1.name)] = {l: risk(g0, g1, ens, l) for l in lengths}
    worst = {h: max(r.values()) for h, r in table.items()}
    best_h = min(worst, key=lambda h: worst[h])
    return worst[best_h], best_h, table


def check_realizable(H: AttentionClass, ens: Ensemble, lengths: Iterable[int], delta=Fraction(0)) -> Verdict:
    """Assumption 4.1: some h in H has E_{P_l}|h - Y| <= delta at every given length.

    Violation witness: for every hypothesis, a length where its risk exceeds delta.
    """
    lengths = list(lengths)
    best, best_h, table = realizability_delta(H, ens, lengths)
    scope = f"lengths {lengths[0]}..{lengths[-1]}"
    if best <= delta:
        return Verdict("asm4.1-realizable", True, {"realizer": best_h}, scope, best)
    bad = {f"{h[0]},{h[1]}": next((l, str(r)) for l, r in t.items() if r > delta) for h, t in table.items()}
    return Verdict("asm4.1-realizable", False, bad, scope, best)


def coverage_eta(ens: Ensemble, L_local: int, length: int):
    """Smallest eta_l satisfying both inequalities of Assumption 4.2 at l = ``length`` (exact).

    Returns (eta, witness) where witness = (inequality, l', Delta, S*) attains the max; eta = math.inf
    when a required denominator is 0 while its numerator is positive.
    """
    return coverage_eta_of(ens.qpos, ens.k, L_local, length)


def coverage_eta_of(qpos: Callable[[int], dict], k: int, L_local: int, length: int):
    """:func:`coverage_eta` for a bare position law ``qpos(l) -> {S: prob}`` (e.g. :class:`Planted`'s Q)."""
    ql = qpos(length)
    eta, wit = Fraction(0), None
    for lp in range(max(L_local, k), length + 1):
        qlp = qpos(lp)
        # (i) Q_l(S)/Q_l'(S - Delta) for S - Delta in Sets_k([l'])
        for S, p in ql.items():
            if p == 0:
                continue
            for d in range(0, S[0]):
                T = tuple(i - d for i in S)
                if T[-1] > lp:
                    continue
                den = qlp.get(T, Fraction(0))
                r = INF if den == 0 else p / den
                if r > eta:
                    eta, wit = r, ("i", lp, d, S)
                    if r == INF:
                        return eta, wit
        # (ii) Q_l'(S)/Q_l(S) for S in Sets_k([l'])
        for S, p in qlp.items():
            if p == 0:
                continue
            den = ql.get(S, Fraction(0))
            r = INF if den == 0 else p / den
            if r > eta:
                eta, wit = r, ("ii", lp, 0, S)
                if r == INF:
                    return eta, wit
    return eta, wit


def check_coverage(ens: Ensemble, L_local: int, lengths: Iterable[int],
                   eta: Callable[[int], Fraction] = lambda l: Fraction(l)) -> Verdict:
    """Assumption 4.2 with the given eta_l (default eta_l = l) at every given length l >= L_local.

    ``value`` is {l: needed eta_l}; the violation witness is the first offending (l, needed, inequality, l',
    Delta, S*).
    """
    if L_local < 1:
        raise ModelError("L_local must be >= 1")
    needed = {}
    for l in lengths:
        if l < max(L_local, ens.k):
            continue
        e, w = coverage_eta(ens, L_local, l)
        needed[l] = e
        if e > eta(l):
            return Verdict("asm4.2-coverage", False,
                           {"l": l, "needed_eta": str(e), "allowed_eta": str(eta(l)), "ineq": w[0], "l'": w[1],
                            "Delta": w[2], "S*": w[3]}, f"lengths up to {l}", needed)
    ls = sorted(needed)
    return Verdict("asm4.2-coverage", True, None, f"lengths {ls[0]}..{ls[-1]}" if ls else "no lengths", needed)


def check_planted_local(ens: Ensemble, L_local: int, lengths: Iterable[int]) -> Verdict:
    """span(S*) <= L_local a.s. under every Q_l^pos (NOT an assumption of the paper: the proof of
    Theorem 4.3 uses it at the test length without stating it, see docs/gaps.md)."""
    for l in lengths:
        for S, p in ens.qpos(l).items():
            if p > 0 and span(S) > L_local:
                return Verdict("planted-local", False, {"l": l, "S*": S, "mass": str(p)}, f"up to length {l}")
    return Verdict("planted-local", True, None, "given lengths")
