"""Definition 3.1 and Proposition 3.1 of golowich2025, executable over finite classes of lookup tables.

Hypotheses are dicts sequence -> label (labels in [0, 1], loss |y - y'|), distributions are dicts
ell -> {(X, Y): prob} (exact Fractions).  ``minimisers`` returns *every* minimiser of (3): the paper's
"the hypothesis h_hat" is read as "every minimiser" (the reading under which Prop C.3 exhibits a bad one).

Proposition 3.1's construction (no proof in the paper): P_Lbar := point mass at (Xbar, h*(Xbar)) for an
Xbar in V^Lbar with |h*(Xbar) - h_hat(Xbar)| > eps.  It needs the sup over V^Lbar; the printed sup over
V^L does not suffice (:func:`typo_witness`).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction


def train_lengths(L: int):
    return range(math.ceil(L / 2), L + 1)


def risk(h: dict, Pl: dict) -> Fraction:
    return sum((p * abs(Fraction(h[x]) - Fraction(y)) for (x, y), p in Pl.items()), Fraction(0))


def minimisers(H: dict, P: dict, L: int) -> list:
    """Names of all minimisers of E_{l ~ Unif[L/2, L]} E_{P_l} loss (eq. (3))."""
    obj = {name: sum(risk(h, P[ell]) for ell in train_lengths(L)) for name, h in H.items()}
    m = min(obj.values())
    return sorted(n for n, v in obj.items() if v == m)


def length_generalizes(H: dict, P: dict, L: int, Lbar: int, eps) -> bool:
    """Definition 3.1 with 'every minimiser': all minimisers have risk <= eps on P_Lbar."""
    return all(risk(H[n], P[Lbar]) <= eps for n in minimisers(H, P, L))


def realizes(h: dict, P: dict) -> bool:
    return all(risk(h, Pl) == 0 for Pl in P.values())


def construct_extension(hstar: dict, hhat: dict, P: dict, Lbar: int, eps, vocab=(0, 1)):
    """Prop 3.1's extension: P_Lbar = delta_(Xbar, h*(Xbar)), Xbar in V^Lbar maximising |h* - h_hat| (> eps)."""
    best = max(itertools.product(vocab, repeat=Lbar), key=lambda x: abs(Fraction(hstar[x]) - Fraction(hhat[x])))
    if abs(Fraction(hstar[best]) - Fraction(hhat[best])) <= eps:
        return None
    Q = dict(P)
    Q[Lbar] = {(best, hstar[best]): Fraction(1)}
    return Q


def all_seqs(maxlen, vocab=(0, 1)):
    for ell in range(1, maxlen + 1):
        yield from itertools.product(vocab, repeat=ell)


def base_instance():
    """V = {0,1}, L = 2, Lbar = 3, h* = fraction of ones; P_1, P_2 realizable by h* (P_2 misses (1, 1))."""
    hstar = {x: Fraction(sum(x), len(x)) for x in all_seqs(3)}
    P = {1: {((0,), hstar[(0,)]): Fraction(1, 2), ((1,), hstar[(1,)]): Fraction(1, 2)},
         2: {((0, 0), hstar[(0, 0)]): Fraction(1, 2), ((0, 1), hstar[(0, 1)]): Fraction(1, 4),
             ((1, 0), hstar[(1, 0)]): Fraction(1, 4)}}
    return hstar, P


def family(eps=Fraction(1, 3)):
    """Instances (H = {h*, h_hat}, P, eps): h_hat = h* flipped (y -> 1 - y) on a subset of V^3 and possibly
    on (1, 1) (outside supp P_2).  Yields (hstar, hhat, P, eps)."""
    hstar, P = base_instance()
    long = list(itertools.product((0, 1), repeat=3))
    for mask in range(1 << len(long)):
        for flip11 in (False, True):
            hhat = dict(hstar)
            for j, x in enumerate(long):
                if mask >> j & 1:
                    hhat[x] = 1 - hstar[x]
            if flip11:
                hhat[(1, 1)] = 1 - hstar[(1, 1)]
            yield hstar, hhat, P, eps


def construction_works(inst, sup_over: int = 3) -> bool:
    """Prop 3.1 with the sup over V^{sup_over}: hypothesis => an h*-realizable extension defeats LG."""
    hstar, hhat, P, eps = inst
    L, Lbar = 2, 3
    H = {"hstar": hstar, "hhat": hhat}
    if "hhat" not in minimisers(H, P, L):
        return True  # the proposition is about the minimiser h_hat
    sup = max(abs(Fraction(hstar[x]) - Fraction(hhat[x])) for x in itertools.product((0, 1), repeat=sup_over))
    if sup <= eps:
        return True  # hypothesis not met
    for Q in _extensions(hstar, hhat, P, Lbar, eps):
        if realizes(hstar, Q) and all(Q[ell] == P[ell] for ell in P) and not length_generalizes(H, Q, L, Lbar, eps):
            return True
    return False


def _extensions(hstar, hhat, P, Lbar, eps):
    Q = construct_extension(hstar, hhat, P, Lbar, eps)
    if Q is not None:
        yield Q
    # and every h*-realizable point-mass extension (so a failure is not an artefact of our choice)
    for x in itertools.product((0, 1), repeat=Lbar):
        Q = dict(P)
        Q[Lbar] = {(x, hstar[x]): Fraction(1)}
        yield Q


def typo_witness():
    """h_hat = h* on V^1, V^3, differs on (1, 1) (outside supp P_2): sup over V^L is 1 > eps, yet every
    h*-realizable extension is learned (h_hat = h* on V^3)."""
    hstar, P = base_instance()
    hhat = dict(hstar)
    hhat[(1, 1)] = 1 - hstar[(1, 1)]
    return hstar, hhat, P, Fraction(1, 3)
