"""Transformer theorems of ahuja2024: Theorem 6 (sigmoid-type attention, perceptron head), Theorem 13
(relative positions, App. A.2.1, eqs. (54)-(59)) and Theorem 14 (relative positions, diffeomorphic head,
App. A.2.3, eqs. (68)-(73)).

Theorem 6.  A5 (h = sigma(A (1/i) sum_{j<=i} psi(x_i, x_j))), f in H, supp(X_i, X_j) = [0,1]^{2n}, A2, T >= 2.
  After sigma's injectivity (as in Theorem 4) each output coordinate is linear in the values
  D(x, y) = A psi(x, y) - B phi(x, y); the chain works on these values as z3 reals:
  i = 1 gives D(x, x) = 0; i = 2 gives (D(x2, x2) + D(x2, x1))/2 = 0, hence D(x2, x1) = 0 on [0,1]^{2n};
  at any length the average of D(x_t, x_j) vanishes.  Break: with T = 1 the learner psi = phi + (x - y) v
  fits and is wrong at t = 2 (T >= 2 is needed).

Theorem 13.  A12 (psi_k = 0 for k >= T_max), T >= T_max >= 2.  Lags are peeled one at a time:
  i = 1: D_0(x, x) = 0; i = 2 minus i = 1: D_1 = 0; i = 3 minus the two: D_2 = 0 (eq. 57, T = T_max = 3);
  lags >= T vanish by A12 (eq. 58); at length 5 the sum over lags 0..4 vanishes (eq. 59).
  Finding: under the main-text convention (Sec. 4.2: phi_{i-j} = 0 only for i - j > T_max) T >= T_max is
  not enough: with T = T_max = 2, phi_2 = v != 0 and the learner psi_2 = 0 fit every length <= 2 and are
  off by B v / 3 at length 3.  The text's "impossible to learn phi_{i-j} for i - j >= T - 1" is off by one:
  lag T - 1 is identified by the peel at i = T.

Theorem 14.  Findings only (the proof is not checkable as written, catalog A-T14): step (70) infers
  psi_2 = a(phi_2) from (1/2) psi_2 = a(phi_2 / 2), which needs homogeneity not yet proved; the witness
  a(z) = z^3, phi_2 = 2 satisfies the hypothesis of the step and violates its conclusion.
"""

from __future__ import annotations

import sympy
import z3

from verify.ahuja._common import key, sympy_step, z3_step
from verify.kernel import CitedLemma, Proof


def thm6_proof() -> Proof:
    c = "thm6"
    d22, d21 = z3.Reals("D22 D21")           # D(x2, x2), D(x2, x1) for one output coordinate
    s, r, i = z3.Reals("s r i")
    L = 4
    ds = z3.Reals(" ".join(f"D4_{j}" for j in range(1, L + 1)))   # D(x4, x_j), j = 1..4
    steps = [
        CitedLemma(key(c), "lemma3", statement="h = f on supp(X_{<=i}) for i <= T (Lemma 3, first part)",
                   source="ahuja2024 Thm 6 (proof as for Thm 4)"),
        z3_step(c, "sigma injective, then multiply by i >= 1: (1/i) A sum psi = (1/i) B sum phi => A sum psi = B sum phi",
                [i >= 1, s / i == r / i], s == r, neg_hypotheses=[i >= 0, s * i == r * i]),
        z3_step(c, "i = 1 at x1 = x2 and i = 2: D(x2,x2) = 0, (D(x2,x2) + D(x2,x1))/2 = 0 => D(x2,x1) = 0",
                [d22 == 0, (d22 + d21) / 2 == 0], d21 == 0, neg_hypotheses=[(d22 + d21) / 2 == 0]),
        z3_step(c, "length 4: D(x4, x_j) = 0 for every key (pairs from i = 2, diagonal from i = 1) => mean 0",
                [d == 0 for d in ds], z3.Sum(ds) / L == 0, neg_hypotheses=[d == 0 for d in ds[:-1]]),
    ]
    return Proof(key(c), "Theorem 6: attention with a perceptron head identifies A psi = B phi", tuple(steps))


def thm6_findings() -> Proof:
    x, y, v = sympy.symbols("x y v")
    d = (x - y) * v                         # psi - phi for the learner psi = phi + (x - y) v
    steps = [
        sympy_step("thm6", "T = 1 break: psi = phi + (x - y) v fits length 1 (D(x, x) = 0)", d.subs(y, x), 0,
                   neg_rhs=v),
        sympy_step("thm6", "T = 1 break: at length 2 with x2 = 1, x1 = 0 the pre-activation error is v/2",
                   (d.subs({x: 1, y: 1}) + d.subs({x: 1, y: 0})) / 2, v / 2, neg_rhs=0),
    ]
    return Proof(key("thm6"), "Theorem 6 needs T >= 2", tuple(steps))


def thm13_proof() -> Proof:
    c = "thm13"
    d0_1, d0_2, d0_3, d1_21, d1_32, d2_31 = z3.Reals("D0_11 D0_22 D0_33 D1_21 D1_32 D2_31")
    i1 = [d0_1 == 0, d0_2 == 0, d0_3 == 0]                      # i = 1 at x = x1, x2, x3
    i2 = [d0_2 + d1_21 == 0, d0_3 + d1_32 == 0]                 # i = 2 at (x2, x1) and (x3, x2)
    i3 = [d0_3 + d1_32 + d2_31 == 0]                            # i = 3
    lag = z3.Reals("L0 L1 L2 L3 L4")                            # D_{5-j}(x5, x_j), j = 5..1
    steps = [
        CitedLemma(key(c), "lemma3", statement="h = f on supp(X_{<=i}) for i <= T (Lemma 3, first part)",
                   source="ahuja2024 eq. (54)"),
        z3_step(c, "(57) lag 1: i = 2 minus i = 1 (both at x2)", i1 + i2, z3.And(d1_21 == 0, d1_32 == 0),
                neg_hypotheses=i2),
        z3_step(c, "(57) lag 2 = T - 1: i = 3 minus lags 0 and 1 (T = T_max = 3)", i1 + i2 + i3, d2_31 == 0,
                neg_hypotheses=i1 + i3),
        z3_step(c, "(58)-(59) length 5: lags 0..2 identified, lags 3, 4 >= T_max vanish by A12 => A-sum = B-sum",
                [lag[0] == 0, lag[1] == 0, lag[2] == 0, lag[3] == 0, lag[4] == 0], z3.Sum(lag) == 0,
                neg_hypotheses=[lag[0] == 0, lag[1] == 0, lag[2] == 0]),   # lags >= T_max not assumed zero
    ]
    return Proof(key(c), "Theorem 13: relative positions, lags peeled one at a time", tuple(steps))


def thm13_general() -> Proof:
    """Theorem 13 for every T >= T_max >= 2, every lag and every test length, on the values D_k(x, y) = A psi_k(x, y)
    - B phi_k(x, y) of one output coordinate (after sigma's injectivity and the factor i; Lemma 3 cited).

    Peel, induction on the lag k <= T - 1: the equation at length i = k + 1 <= T is D_0 + ... + D_k = 0 at
    (x_(k+1), x_(k+1-j)); with D_j = 0 for j < k on the pairwise support (the induction hypothesis, summed by
    induction on j) it gives D_k = 0.  Any length t: the sum over lags 0..t-1 vanishes term by term, each lag either
    < T (peeled) or >= T >= T_max (A12: psi_k = phi_k = 0), by induction on the number of lags summed.
    """
    c = "thm13"
    P, P1, Dj, Dk, S, S1, D = z3.Reals("P P1 D_j D_k S S1 D")
    k, T, Tm = z3.Ints("k T T_max")
    ih_h = [P == 0, Dj == 0, P1 == P + Dj]                          # Dj == 0: the hypothesis for a lag j < k
    tail_h = [T >= Tm, Tm >= 2, k >= 0, z3.Implies(k < T, D == 0), z3.Implies(k >= Tm, D == 0), S == 0, S1 == S + D]
    return Proof(key(c), "Theorem 13 for every T >= T_max and every length", (
        CitedLemma(key(c), "sigma injective and Lemma 3", statement="h = f on supp(X_{<=i}) for i <= T (Lemma 3) and "
                   "sigma(a) = sigma(b) => a = b give, coordinate-wise, sum_{j<=i} D_{i-j}(x_i, x_j) = 0 there",
                   source="ahuja2024 eqs. (54)-(56)"),
        z3_step(c, "peel, inner induction: the lags j < k identified so far sum to 0", ih_h, P1 == 0,
                neg_hypotheses=[ih_h[0], ih_h[2]]),
        z3_step(c, "(57) peel step: the length-(k + 1) equation P + D_k = 0 with P = 0 gives D_k = 0 (k <= T - 1)",
                [P == 0, P + Dk == 0], Dk == 0, neg_hypotheses=[P + Dk == 0]),
        z3_step(c, "(58)-(59) any length, induction over the lags: each lag is < T (peeled) or >= T_max (A12), so the "
                "partial sums stay 0", tail_h, S1 == 0, neg_hypotheses=tail_h[1:]),        # T >= T_max dropped
    ))


def asm12_instance() -> Proof:
    """Assumption 12 is satisfiable: relative-position scores psi_k(x, y) (k = i - j) that are differentiable and
    vanish for every lag k >= T_max = 3, with the perceptron head sigma = sigmoid (a C^1 bijection onto (0, 1))."""
    x, y, s = sympy.symbols("x y s", real=True)
    t_max = 3
    psi = {0: x * y, 1: x + y, 2: y**2}

    def lag(k):
        return psi.get(k, sympy.Integer(0))

    zero_from = lambda tm: sympy.Add(*[lag(k) ** 2 for k in range(tm, tm + 4)])  # noqa: E731
    return Proof(key("asm12"), "Assumption 12 instance", (
        sympy_step("asm12", "psi_k = 0 for every lag k >= T_max = 3 (k = 3..6, and psi_k = 0 beyond the table)",
                   zero_from(t_max), 0, neg_lhs=zero_from(t_max - 1)),
        sympy_step("asm12", "the head sigma = sigmoid has sigma' = sigma (1 - sigma) > 0: C^1 and strictly increasing",
                   sympy.diff(1 / (1 + sympy.exp(-s)), s), sympy.exp(-s) / (1 + sympy.exp(-s)) ** 2,
                   neg_rhs=sympy.exp(-s) / (1 + sympy.exp(-s))),
    ))


def thm13_findings() -> Proof:
    label = "thm13.tmax-main-text"
    B, v = sympy.Integer(1), sympy.Integer(1)
    T = 2                                   # = T_max under the main-text convention phi_k = 0 for k > T_max

    def pre_gap(t):
        """B (1/t) sum_j (phi - psi)_{t-j}: only lag T differs (phi_T = v, psi_T = 0)."""
        return B * sum((v if t - j == T else 0) for j in range(1, t + 1)) / t

    steps = [
        sympy_step(label, "main-text convention, T = T_max = 2: every training length t <= 2 fits (lags <= 1)",
                   pre_gap(1) + pre_gap(2), 0, neg_rhs=1),
        sympy_step(label, "... and at length 3 the pre-activation is off by B v / 3", pre_gap(3), sympy.Rational(1, 3),
                   neg_rhs=0),
    ]
    return Proof(key(label), "Sec. 4.2 T_max convention: T >= T_max is not enough", tuple(steps))


def thm14_findings() -> Proof:
    label = "thm14"
    psi2, phi2 = z3.Reals("psi2 phi2")
    cube = lambda z: z * z * z  # noqa: E731   a(z) = z^3, a C^1 bijection of R (inverse cube root)
    steps = [
        z3_step(label, "(70) with the factor 1/2 kept: (1/2) psi_2 = a(phi_2 / 2) does not give psi_2 = a(phi_2) "
                "(witness a(z) = z^3, phi_2 = 2, psi_2 = 2)", [phi2 == 2, psi2 / 2 == cube(phi2 / 2)],
                psi2 != cube(phi2), neg_goal=psi2 == cube(phi2)),
    ]
    return Proof(key(label), "Theorem 14: step (70) drops a factor 1/2", tuple(steps))
