"""Theorem 12 of ahuja2024 (constrained learner over an eta-cover, Sec. 5.2), Assumption 11, and the finite-class
threshold argument that Theorems 10 and 12 share.

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
For every finite class (:func:`threshold_steps`, :func:`thm10_universal`, :func:`thm12_universal`): members are
  indexed 0..N-1 with N symbolic, ``bad(theta, t)`` says that member theta fails at length t (R~ > eps for Theorem
  12, positive loss for Theorem 10) and ``first(theta)`` is its least failing length (least-number principle, cited
  as elementary).  The threshold F(n) of the first n members, F(0) = 0 and F(n + 1) = max(F(n), first(n)), bounds
  the first failing length of each of them (induction on n, z3 with uninterpreted bad, first, F); with T0 = F(N) a
  member that passes every length t <= T for some T > T0 passes every length.  Theorem 10 adds that a minimiser of
  R(., T) = sum_{t <= T} R~(., t) has R~ = 0 at every t <= T (partial sums of non-negative terms bound each term,
  induction on T; f in H has risk 0).  The controls include an infinite class (theta < N dropped): z3 finds a
  member failing beyond every threshold, which is why the cover of Theorem 12 must be finite (Sec. 5.2: "a finite
  cover").
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


def _threshold_symbols(claim: str):
    """The uninterpreted data of a finite class: failing predicate, least failing length, running threshold."""
    bad = z3.Function(f"bad_{claim}", z3.IntSort(), z3.IntSort(), z3.BoolSort())
    first = z3.Function(f"first_{claim}", z3.IntSort(), z3.IntSort())
    F = z3.Function(f"F_{claim}", z3.IntSort(), z3.IntSort())
    return bad, first, F


def threshold_steps(claim: str, bad=None) -> tuple:
    """For every finite class of N members (N symbolic): T0 = F(N) exists such that a member passing every length
    t <= T for some T > T0 passes every length t >= 1.

    ``bad(theta, t)``: member theta fails at length t (an uninterpreted predicate unless given).  Steps, z3 with the
    induction hypothesis instantiated at the same (theta, t):
      least failing length: bad(theta, t), t >= 1 => 1 <= first(theta) <= t, bad(theta, first(theta)) (cited);
      base n = 0: no member, Inv(0) holds;
      step: Inv(n) and F(n + 1) = max(F(n), first(n)) give Inv(n + 1), where Inv(n, theta, t) reads
            0 <= theta < n, t >= 1, bad(theta, t) => first(theta) <= F(n);
      conclusion: Inv(N), theta < N, T > F(N) and 'theta passes every length <= T' (instantiated at first(theta))
            give not bad(theta, t) for every t >= 1.
    """
    bad_f, first, F = _threshold_symbols(claim)
    bad = bad_f if bad is None else bad
    n, th, t, N, T = z3.Ints("n theta t N T")

    def inv(m):
        return z3.Implies(z3.And(0 <= th, th < m, t >= 1, bad(th, t)), first(th) <= F(m))

    least = z3.Implies(z3.And(t >= 1, bad(th, t)), z3.And(1 <= first(th), first(th) <= t, bad(th, first(th))))
    F_next = F(n + 1) == z3.If(F(n) >= first(n), F(n), first(n))
    passes = z3.Implies(z3.And(1 <= first(th), first(th) <= T), z3.Not(bad(th, first(th))))
    return (
        CitedLemma(key(claim), "least failing length", statement="a non-empty set of positive integers has a least "
                   "element: if member theta fails at some length, first(theta) is the least such length",
                   source="elementary (well-ordering of the positive integers)"),
        z3_step(claim, "base: with no member (n = 0) the invariant holds", [F(0) == 0], inv(0),
                neg_goal=inv(1)),
        z3_step(claim, "step: F(n + 1) = max(F(n), first(n)) bounds the first failing length of members 0..n",
                [n >= 0, inv(n), F_next], inv(n + 1), neg_hypotheses=[n >= 0, F_next]),
        z3_step(claim, "conclusion: with T0 = F(N), a member passing every length t <= T for some T > T0 passes "
                "every length", [inv(N), 0 <= th, th < N, t >= 1, T > F(N), least, passes], z3.Not(bad(th, t)),
                neg_hypotheses=[inv(N), 0 <= th, t >= 1, T > F(N), least, passes]),  # infinite class: theta >= N
    )


def thm12_universal() -> Proof:
    """Theorem 12's conclusion for every finite cover Theta_c (N points, N symbolic), every eps and every risk
    table R~(theta, t): Theta_c^T for T > T0 = F(N) holds only parameters with R~ <= eps at every length.

    Non-emptiness of Theta_c^T (the proof's first paragraph) is not part of the conclusion; it is proved in
    :func:`proof` and needs eps <= 1 with the squared loss (:func:`findings`).
    """
    Rt = z3.Function("Rtilde", z3.IntSort(), z3.IntSort(), z3.RealSort())
    eps = z3.Real("eps")
    return Proof(key(CLAIM), "Theorem 12 for every finite cover", threshold_steps(
        CLAIM, lambda th, t: Rt(th, t) > eps))


def thm10_universal() -> Proof:
    """Theorem 10 for every finite class H (N members, N symbolic) and every law: the risk R(h, T) = sum_{t <= T}
    R~(h, t) with R~ >= 0 (the l2 loss), f in H, and T > T0 = F(N) make every minimiser of R(., T) have R~(h, t) = 0
    at every length t (Definition 1).

    Steps (z3, R and R~ uninterpreted): partial sums of non-negative terms bound each term (induction on T: base
    R(h, 0) = 0, step R(h, T + 1) = R(h, T) + R~(h, T + 1)); f's risk is 0 (its terms are 0, same induction); a
    minimiser has R(h, T) <= R(f, T) = 0, hence R~(h, t) = 0 for t <= T; then :func:`threshold_steps` with
    bad(h, t) = R~(h, t) > 0.
    """
    label = "thm10"
    Rt = z3.Function("Rtilde_h", z3.IntSort(), z3.IntSort(), z3.RealSort())
    R = z3.Function("R_h", z3.IntSort(), z3.IntSort(), z3.RealSort())
    h, f, t, T = z3.Ints("h f t T")
    bound = z3.And(R(h, T) >= 0, z3.Implies(z3.And(1 <= t, t <= T), Rt(h, t) <= R(h, T)))
    bound1 = z3.And(R(h, T + 1) >= 0, z3.Implies(z3.And(1 <= t, t <= T + 1), Rt(h, t) <= R(h, T + 1)))
    step_h = [T >= 0, bound, R(h, T + 1) == R(h, T) + Rt(h, T + 1), Rt(h, T + 1) >= 0]
    zero = z3.Implies(z3.And(1 <= t, t <= T), Rt(h, t) == 0)
    return Proof(key(label), "Theorem 10 for every finite class", (
        z3_step(label, "partial sums, base: R(h, 0) = 0 bounds every term of the empty sum",
                [R(h, 0) == 0, T == 0], bound, neg_hypotheses=[R(h, 0) == -1, T == 0]),
        z3_step(label, "partial sums, step: R(h, T + 1) = R(h, T) + R~(h, T + 1) with R~ >= 0 keeps "
                "0 <= R~(h, t) <= R(h, T + 1) for t <= T + 1", step_h, bound1,
                neg_hypotheses=step_h[:3]),          # the l2 loss's R~ >= 0 dropped
        z3_step(label, "realizability: f's terms are 0, so R(f, T) = 0 at every T (same induction)",
                [R(f, T) == 0, Rt(f, T + 1) == 0, R(f, T + 1) == R(f, T) + Rt(f, T + 1)], R(f, T + 1) == 0,
                neg_hypotheses=[R(f, T) == 0, R(f, T + 1) == R(f, T) + Rt(f, T + 1)]),
        z3_step(label, "a minimiser of R(., T) has R(h, T) <= R(f, T) = 0, hence R~(h, t) = 0 for every t <= T",
                [bound, R(h, T) <= R(f, T), R(f, T) == 0, z3.Implies(z3.And(1 <= t, t <= T), Rt(h, t) >= 0)],
                zero, neg_hypotheses=[bound, R(h, T) <= R(f, T), z3.Implies(z3.And(1 <= t, t <= T), Rt(h, t) >= 0)]),
        *threshold_steps(label, lambda th, t_: Rt(th, t_) > 0),
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
