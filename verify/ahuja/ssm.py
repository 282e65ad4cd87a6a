"""Theorem 8 of ahuja2024 (state space model with a linear recurrence and a diffeomorphic head), eqs. (21)-(27).

Statement.  A8 (h = omega(sum_{j<i} Lambda^j B x_{i-j}), omega a C^1-diffeomorphism, B, Lambda square
invertible), f in H, A2 and A9 (supp(X_1) = R^n; for some 2 <= i <= T, ni training sequences of length i
stacked as columns have rank ni), T >= 2.  Then h = f at every length and h~_t = C h_t.

Chain (:func:`proof`):
  (21) i = 1: c(B x) = B~ x for all x in R^n; substitute x = B^{-1} z: c(z) = C z with C = B~ B^{-1}
       (generic 2x2, as the polynomial identity B~ adj(B) B x = det(B) B~ x);
  (23) R X+ = 0 with X+ the stacked data => R = 0: the map R -> R X+ is injective exactly when rank X+ = ni
       (exact ranks on rational data for n = 2, i = 2; a repeated sequence makes it non-injective);
  (24) from the first two equalities C B = B~, C Lambda B = Lambda~ B~: Lambda~ = C Lambda C^{-1}
       (generic 2x2, via adjugates);
  (25) Lambda~^i B~ = C Lambda^i B: the induction step with the hypothesis substituted (generic), and ground
       instances i = 2..4 on rational matrices;
  (26)-(27) at length 5 the learned state is C times the true state (exact, symbolic tokens), and
       omega = rho o C^{-1} gives h = f.
Assumption 9's rank clause is checked on data; it is implied by A2 (an open set contains ni affinely
independent points: the centre and the centre + e_j).

Findings (:func:`findings`): the first clause of A9 (supp X_1 = R^n) is load-bearing.  With n = 1, B = 1,
Lambda = 1/2, tokens in [0,1] and T = 2, the training states lie in [0, 3/2]; the C^1 diffeomorphism
c(z) = z (z <= 3/2), z + (z - 3/2)^3 beyond, with B~ = B, Lambda~ = Lambda, omega = rho o c^{-1}, fits every
training length and is wrong at t = 3 on x = (1, 1, 1) (state 7/4).  The paper's experiments use uniform
tokens on [0,1], outside A9.
"""

from __future__ import annotations

import sympy
import z3

from verify.ahuja._common import enum_step, key, linalg_step, rank_is, rat_matrix, sympy_step, z3_step
from verify.kernel import CitedLemma, Proof

CLAIM = "thm8"


def _gen(name: str) -> sympy.Matrix:
    return sympy.Matrix(2, 2, sympy.symbols(f"{name}00 {name}01 {name}10 {name}11"))


def _expand(m: sympy.Matrix) -> sympy.Matrix:
    return m.applyfunc(sympy.expand)


# A concrete rational instance (n = 2).
LAM = rat_matrix([["1/2", "1/3"], ["-1/4", "2/5"]])
B = rat_matrix([[1, 2], [0, 1]])
C = rat_matrix([[2, 1], [1, 1]])


def stacked_data(sequences: list[list[tuple]]) -> sympy.Matrix:
    """Columns [x_i; x_{i-1}; ...; x_1] of the given sequences (each a list of n-tuples, x_1 first)."""
    cols = [sympy.Matrix([c for tok in reversed(seq) for c in tok]) for seq in sequences]
    return sympy.Matrix.hstack(*cols)


GOOD_DATA = [[(1, 0), (0, 0)], [(0, 1), (0, 0)], [(0, 0), (1, 0)], [(0, 0), (0, 1)]]
REPEATED_DATA = [[(1, 0), (0, 0)], [(0, 1), (0, 0)], [(0, 0), (1, 0)], [(1, 0), (0, 0)]]


def _interior_data(center=("1/2", "1/2"), r="1/4") -> list:
    """ni = 4 sequences of length 2 around an interior point of [0,1]^4: centre, centre + r e_j (j = 1..3)."""
    c = [sympy.Rational(v) for v in center] * 2
    pts = [list(c)]
    for j in range(3):
        p = list(c)
        p[j] += sympy.Rational(r)
        pts.append(p)
    return [[tuple(p[0:2]), tuple(p[2:4])] for p in pts]


def _injectivity_nullity(X: sympy.Matrix) -> int:
    """Dimension of {R (2 x 4) : R X = 0}."""
    rs = sympy.symbols("r0:8")
    R = sympy.Matrix(2, 4, rs)
    eqs = list(R * X)
    M = sympy.Matrix([[sympy.diff(e, r) for r in rs] for e in eqs])
    return len(rs) - M.rank()


def proof() -> Proof:
    Bs, Bt, Lam, Cs, M = _gen("b"), _gen("bt"), _gen("l"), _gen("c"), _gen("m")
    x = sympy.Matrix(sympy.symbols("x0 x1"))
    Lt = C * LAM * C.inv()
    Btil = C * B
    toks = [sympy.Matrix(sympy.symbols(f"u{j} v{j}")) for j in range(5)]   # x_1..x_5
    state = lambda L, Bm: sum((L**j * Bm * toks[4 - j] for j in range(5)), sympy.zeros(2, 1))  # noqa: E731
    # Negative controls evaluate the mutated formula at rational matrices (a nonzero generic polynomial
    # residual would cost seconds in simplify): wrong product order, C dropped, C^{-1} replaced by C.
    Bt_q, M_q, x_q = rat_matrix([[1, -1], [2, 3]]), rat_matrix([[1, 0], [2, -1]]), rat_matrix([[1], [2]])
    steps = [
        CitedLemma(key(CLAIM), "lemma3", statement="h = f on supp(X_{<=i}) for i <= T (Lemma 3, first part)",
                   source="ahuja2024 eq. (21)"),
        linalg_step(CLAIM, "(21) i = 1: substitute x = B^{-1} z: c(z) = B~ B^{-1} z reproduces c(B x) = B~ x",
                    lambda: _expand(Bt * Bs.adjugate() * Bs * x - Bs.det() * Bt * x),
                    lambda: B.inv() * Bt_q * B * x_q - Bt_q * x_q),
        enum_step("asm9", "A9 rank clause on data: n i = 4 sequences of length 2 stack to rank 4 "
                  "(unit tokens; and the centre + r e_j points of an open box, so A2 implies it)",
                  lambda: [stacked_data(GOOD_DATA), stacked_data(_interior_data())], rank_is(4),
                  neg_instances=lambda: [stacked_data(REPEATED_DATA)]),
        enum_step(CLAIM, "(23) R X+ = 0 => R = 0: {R : R X+ = 0} is {0} for full-rank data",
                  lambda: [stacked_data(GOOD_DATA)], lambda X: _injectivity_nullity(X) == 0,
                  neg_instances=lambda: [stacked_data(REPEATED_DATA)]),
        linalg_step(CLAIM, "(24) Lambda~ = C Lambda C^{-1} solves C Lambda B = Lambda~ B~ with B~ = C B "
                    "(C Lambda adj(C) C B = det(C) C Lambda B)",
                    lambda: _expand(Cs * Lam * Cs.adjugate() * Cs * Bs - Cs.det() * Cs * Lam * Bs),
                    lambda: LAM * C * B - C * LAM * B),
        linalg_step(CLAIM, "(25) induction step: Lambda~ (Lambda~^i B~) with Lambda~^i B~ = C Lambda^i B substituted "
                    "is C Lambda^{i+1} B (M stands for Lambda^i B)",
                    lambda: _expand(Cs * Lam * Cs.adjugate() * (Cs * M) - Cs.det() * Cs * Lam * M),
                    lambda: C * LAM * C * (C * M_q) - C * LAM * M_q),
        linalg_step(CLAIM, "(25) ground instances i = 1..4 on a rational (Lambda, B, C)",
                    lambda: sympy.Matrix.hstack(*[Lt**i * Btil - C * LAM**i * B for i in range(1, 5)]),
                    lambda: sympy.Matrix.hstack(*[(C.inv() * LAM * C) ** i * Btil - C * LAM**i * B
                                                  for i in range(1, 5)])),
        linalg_step(CLAIM, "(26)-(27) length 5, symbolic tokens: h~_5 = C h_5, so omega = rho o C^{-1} gives h = f",
                    lambda: _expand(state(Lt, Btil) - C * state(LAM, B)),
                    lambda: _expand(state(Lt, B) - C * state(LAM, B))),
    ]
    return Proof(key(CLAIM), "Theorem 8: SSM linear identification h~ = C h", tuple(steps))


def eq25_general() -> Proof:
    """(25) for every size and every i: with Lambda~ = C Lambda C^{-1} and B~ = C B (eq. (24), C invertible),
    Lambda~^i B~ = C Lambda^i B by induction on i (non-commuting symbols, symbolic i)."""
    Cn, Ci, Ln, Bn = sympy.symbols("C C_inv Lambda B", commutative=False)
    i = sympy.Symbol("i", integer=True, nonnegative=True)
    Lt = Cn * Ln * Ci
    return Proof(key("eq25"), "(25) for every size and i", (
        sympy_step("eq25", "(25) base i = 0: Lambda~^0 B~ = B~ = C B (the first equality)", Cn * Bn, Cn * Ln**0 * Bn,
                   neg_rhs=Bn),
        sympy_step("eq25", "(25) step: Lambda~ (C Lambda^i B) = C Lambda^(i+1) B after C^{-1} C = I",
                   sympy.expand(Lt * (Cn * Ln**i * Bn)).subs(Ci * Cn, 1), Cn * Ln ** (i + 1) * Bn,
                   neg_lhs=sympy.expand(Ln * (Cn * Ln**i * Bn))),
    ))


def findings() -> Proof:
    t = sympy.Rational(3, 2)
    x1, x2, y = z3.Reals("x1 x2 y")
    lam = z3.RealVal("1/2")
    c = lambda z: z3.If(z <= 3 / z3.RealVal(2), z, z + (z - 3 / z3.RealVal(2)) ** 3)  # noqa: E731
    box = [0 <= x1, x1 <= 1, 0 <= x2, x2 <= 1]
    steps = [
        z3_step(CLAIM, "bounded tokens: c = id on every training state (t <= 2: x1, lam x1 + x2 <= 3/2)",
                box, z3.And(c(x1) == x1, c(lam * x1 + x2) == lam * x1 + x2),
                neg_goal=c(lam * lam * x1 + lam * x2 + 1) == lam * lam * x1 + lam * x2 + 1),
        z3_step(CLAIM, f"bounded tokens: at t = 3, x = (1,1,1) the state is 7/4 > {t} and omega(h~) = rho(c^{{-1}}(7/4)) "
                "!= rho(7/4)", [c(y) == z3.RealVal("7/4")], y != z3.RealVal("7/4"), neg_goal=y == z3.RealVal("7/4")),
    ]
    return Proof(key(CLAIM), "Theorem 8 needs supp(X_1) = R^n (first clause of A9)", tuple(steps))


def asm8_instance():
    """A8 is satisfiable: the rational Lambda, B above are invertible (and C for the learner)."""
    return enum_step("asm8", "A8 instance: det Lambda, det B, det C != 0 (rational 2x2)", lambda: [LAM, B, C],
                     lambda m: m.det() != 0, neg_instances=lambda: [LAM, rat_matrix([[1, 2], [2, 4]])])
