"""Theorem 12 of ahuja2024 (constrained learner over an eta-cover, Sec. 5.2) and Assumption 11.

Statement.  A11 (||h(x;theta) - h(x;theta')|| <= L ||theta - theta'|| for every length), f in H, Theta_c an
eta-cover with eta <= epsilon / L.  There is T_0 such that for T > T_0 every theta in
Theta_c^T = {theta in Theta_c : R~(theta, t) <= epsilon, t <= T} has R~(theta, t) <= epsilon for all t.

Chain (:func:`proof`):
  non-emptiness: the cover point next to theta* is within L eta <= epsilon of f at every length;
  Theta_c^{T+1} subset Theta_c^T (non-increasing -- the paper says "non-decreasing");
  stabilisation (Lemma 11, registered elsewhere) and the contradiction step, on an exact instance:
  h(x; theta) = theta (1 - r^t) mean(x_{<=t}), tokens U[0,1], theta* = 0, r = 1/2, epsilon = 1/100, a grid
  cover with eta = 1/100 (L = 1): R~(theta, t) = theta^2 (1 - r^t)^2 (1/4 + 1/(12 t)) computed in exact
  rationals, T_0 found by scan, and every member of Theta_c^{T_0} has R~ <= epsilon up to t = 60 (R~ decreases
  for t >= 9, cited).
Lemma 11 (:func:`lemma11_proof`), for every finite A and every chain: the invariant |X_k| + c_k <= |A|, where c_k
  counts the strict shrinks up to k, holds at k = 0 and is kept by every step (a strict subset of a finite set
  is smaller), so there are at most |A| strict shrinks and the chain is constant after the last one.
Findings (:func:`findings`): with the squared loss the non-emptiness step needs epsilon <= 1: ||h - f|| <=
  L eta <= epsilon gives R~ <= epsilon^2, which exceeds epsilon for epsilon = 2 (witness); for epsilon <= 1 it
  holds.
"""

from __future__ import annotations

import functools
from fractions import Fraction as F

import z3

from verify.ahuja._common import enum_step, key, z3_step
from verify.kernel import CitedLemma, Proof

CLAIM = "thm12"
R_RATE, EPS, HORIZON = F(1, 2), F(1, 100), 60
COVER = [F(k, 50) for k in range(-50, 51)]       # spacing 1/50: every theta in [-1,1] within eta = 1/100


def risk(theta: F, t: int) -> F:
    """R~(theta, t) = (theta - theta*)^2 (1 - r^t)^2 E[mean^2], E[mean^2] = 1/4 + 1/(12 t) for U[0,1] tokens."""
    return theta * theta * (1 - R_RATE**t) ** 2 * (F(1, 4) + F(1, 12 * t))


def lemma11_proof() -> Proof:
    """Lemma 11 (a non-increasing chain of subsets of a finite set is eventually constant) for every |A|."""
    s0, c0, nA, s, c, s1, c1, strict = z3.Ints("s0 c0 nA s c s1 c1 strict")
    step_h = [s + c <= nA, s1 <= s - strict, strict >= 0, strict <= 1, c1 == c + strict]
    return Proof(key("lem11"), "Lemma 11 for every finite set", (
        CitedLemma(key("lem11"), "strict subsets are smaller", statement=(
            "for finite sets X' subset X: |X'| <= |X|, and |X'| <= |X| - 1 when X' != X"), source="elementary"),
        z3_step("lem11", "base: X_0 subset A, no shrink yet: |X_0| + c_0 <= |A|", [s0 <= nA, c0 == 0],
                s0 + c0 <= nA, neg_hypotheses=[c0 == 0]),
        z3_step("lem11", "step: |X_(k+1)| <= |X_k| - [strict], c_(k+1) = c_k + [strict] keep |X| + c <= |A|",
                step_h, s1 + c1 <= nA, neg_hypotheses=[s + c <= nA, s1 <= s, strict >= 0, strict <= 1,
                                                        c1 == c + strict]),
        z3_step("lem11", "conclusion: |X_k| >= 0 bounds the number of strict shrinks by |A| at every k, so the "
                "chain is constant after the last one", [s + c <= nA, s >= 0], c <= nA, neg_hypotheses=[s + c <= nA]),
    ))


@functools.cache
def constrained_sets() -> dict[int, frozenset]:
    """Theta_c^T for T = 1..HORIZON."""
    out, alive = {}, set(COVER)
    for T in range(1, HORIZON + 1):
        alive = {th for th in alive if risk(th, T) <= EPS}
        out[T] = frozenset(alive)
    return out


def threshold() -> int:
    """T_0: the first T after which Theta_c^T no longer changes (within the horizon)."""
    sets = constrained_sets()
    return min(T for T in sets if all(sets[u] == sets[T] for u in range(T, HORIZON + 1)))


def proof() -> Proof:
    d, eta, eps, L, dh = z3.Reals("d eta eps L dh")
    th, th2, m = z3.Reals("theta theta2 m")
    sets = constrained_sets()
    T0 = threshold()
    return Proof(key(CLAIM), "Theorem 12: the constrained learner over a cover", (
        z3_step("asm11", "A11 instance: h = theta mean(x), |mean| <= 1: |h(theta) - h(theta')| <= |theta - theta'|",
                [0 <= m, m <= 1], z3.Abs(th * m - th2 * m) <= z3.Abs(th - th2),
                neg_hypotheses=[0 <= m, m <= 2]),
        z3_step(CLAIM, "non-emptiness: |theta_c - theta*| <= eta <= eps/L and A11 => ||h(theta_c) - f|| <= eps",
                [L > 0, z3.Abs(d) <= eta, eta * L <= eps, z3.Abs(dh) <= L * z3.Abs(d)], z3.Abs(dh) <= eps,
                neg_hypotheses=[L > 0, z3.Abs(d) <= eta, eta * L <= 2 * eps, z3.Abs(dh) <= L * z3.Abs(d)]),
        enum_step(CLAIM, "Theta_c^{T+1} is a subset of Theta_c^T (non-increasing), T = 1..59",
                  lambda: range(1, HORIZON), lambda T: sets[T + 1] <= sets[T],
                  neg_predicate=lambda T: sets[T] <= sets[T + 1]),        # the paper's "non-decreasing"
        CitedLemma(key(CLAIM), "Lemma 11", statement="a non-increasing sequence of subsets of a finite set is "
                   "eventually constant", source="ahuja2024 Lemma 11 (ahuja2024:lem11)"),
        enum_step(CLAIM, f"exact instance: Theta_c^T is constant from T_0 = {T0} on, and each member has "
                  f"R~ <= eps for t = 1..{HORIZON}", lambda: sorted(sets[T0]),
                  lambda th_: all(risk(th_, t) <= EPS for t in range(1, HORIZON + 1)),
                  neg_instances=lambda: sorted(sets[1])),
        CitedLemma(key(CLAIM), "tail", statement="for t >= 9, (1 - 2^{-t})^2 (1/4 + 1/(12 t)) decreases to 1/4, "
                   "so R~ beyond the horizon stays below its value at t = 60", source="calculus"),
        CitedLemma(key(CLAIM), "cover size", statement="a bounded Theta in R^p has a finite eta-cover",
                   source="Shalev-Shwartz & Ben-David 2014"),
    ))


def findings() -> Proof:
    eps, dh = z3.Reals("eps dh")
    label = "thm12.squared-loss"
    return Proof(key(label), "Theorem 12 with the squared loss needs epsilon <= 1", (
        z3_step(label, "eps = 2, ||h(theta_c) - f|| = L eta = 2 <= eps, yet the squared loss 4 > eps",
                [eps == 2, dh == 2], z3.And(dh <= eps, dh * dh > eps), neg_goal=dh * dh <= eps),
        z3_step(label, "repair: eps <= 1 and 0 <= ||h - f|| <= eps give ||h - f||^2 <= eps",
                [eps <= 1, 0 <= dh, dh <= eps], dh * dh <= eps, neg_hypotheses=[eps <= 2, 0 <= dh, dh <= eps]),
    ))
