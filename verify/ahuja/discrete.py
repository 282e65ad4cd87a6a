"""Theorem 17 of ahuja2024 (vanilla RNN with discrete tokens, App. A.4.1, eqs. (76)-(91)) and Assumption 15.

Statement.  A10, f in H and (the text says "Assumption 2"; Assumption 15 is meant) S = {B x : x in supp X}
satisfying A15: (a) for each coordinate i, S contains two pairs ((y_i, y_-i), (y_i + delta, y_-i)) and
((y'_i, y'_-i), (y'_i + delta, y'_-i)); (b) for each i != j, a point with its three "upper" rectangle
neighbours and a point with three "lower" ones.  Claimed: sigma(V y) = U sigma(y) on S forces U = V = Pi.

Chain (:func:`proof`): the algebra (84) (the clearing (83) is the scalar step of :mod:`verify.ahuja.rnn`),
and v = 1 from (84) = (85) when y_i != y'_i.

Findings (:func:`findings`):
  * A15 as literally stated allows the two pairs of (a) to share y_i (they may differ only in y_-i).  The
    square S = {1,2}^2 satisfies A15 (checked exactly), and U = diag(u*, u*), V = diag(v*, v*) with
    u* = (1 + e^{-1})^2 / 2, v* = log((1 + e^{-1})/(1 - e^{-1})) satisfy sigma(V y) = U sigma(y) on all of
    S, are invertible and are not permutations (u* != 1, v* != 1).  The permutation step of Theorem 17 fails.
    The same closed form works on every {a, 2a}^n, a > 0 (an identity in E = e^{-a}).
  * The mean-value step after (82) assumes s_1 > s_2 > s_4, i.e. positive v-entries: with v = (1, -1),
    y = (0, 0), y' = (1, 1) (v^T y = 0 >= 0, the case treated) the quantity (82) is exactly 0, so the claimed
    contradiction does not arise.
"""

from __future__ import annotations

import itertools

import sympy
import z3

from verify.ahuja._common import enum_step, ground, key, linalg_step, sigmoid, sympy_step, z3_step
from verify.kernel import CitedLemma, Proof

CLAIM = "thm17"

E = sympy.exp(-1)
U_STAR = (1 + E) ** 2 / 2
V_STAR = sympy.log((1 + E) / (1 - E))
SQUARE = [(1, 1), (1, 2), (2, 1), (2, 2)]
EA = sympy.Symbol("E", positive=True)            # e^{-a} for the family {a, 2a}^n
W_FAM = (1 - EA) / (1 + EA)                      # e^{-v a}
U_FAM = (1 + EA) ** 2 / 2
GRID3 = list(itertools.product(range(3), repeat=2))


def satisfies_a15(S, n: int = 2, distinct_yi: bool = False) -> bool:
    """Assumption 15 checked literally on a finite S subset Q^n (``distinct_yi`` adds y_i != y'_i to (a))."""
    pts = set(S)

    def shifted(p, i, d):
        q = list(p)
        q[i] += d
        return tuple(q)

    for i in range(n):
        pairs = [(p, q) for p in pts for q in pts if q == shifted(p, i, q[i] - p[i]) and q[i] > p[i]]
        ok = any(p1 != p2 and q1[i] - p1[i] == q2[i] - p2[i] and (not distinct_yi or p1[i] != p2[i])
                 for (p1, q1), (p2, q2) in itertools.combinations(pairs, 2))
        if not ok:
            return False
    for i, j in itertools.permutations(range(n), 2):
        def rect(sign, i=i, j=j):
            for p in pts:
                for a in {abs(q[i] - p[i]) for q in pts} - {0}:
                    for b in {abs(q[j] - p[j]) for q in pts} - {0}:
                        corners = [shifted(p, i, sign * a), shifted(p, j, sign * b),
                                   shifted(shifted(p, i, sign * a), j, sign * b)]
                        if all(c in pts for c in corners):
                            return True
            return False
        if not (rect(1) and rect(-1)):
            return False
    return True


def proof() -> Proof:
    y, d, u, v = sympy.symbols("y delta u v")
    vv, yy, ypp = z3.Reals("v y yp")
    steps = [
        sympy_step(CLAIM, "(84) subtracting the cleared equations at y and y + delta: "
                   "(1 - e^{-delta})/(1 - e^{-v delta}) = u e^{-(v-1) y} (both sides times u e^{-v y}(1 - e^{-v delta}))",
                   (u * sympy.exp(-v * y) - sympy.exp(-y)) - (u * sympy.exp(-v * (y + d)) - sympy.exp(-(y + d))),
                   u * sympy.exp(-v * y) * (1 - sympy.exp(-v * d)) - sympy.exp(-y) * (1 - sympy.exp(-d)),
                   neg_lhs=ground((u * sympy.exp(-v * y) - sympy.exp(-y)) - (u * sympy.exp(-v * (y + d)))),
                   neg_rhs=ground(u * sympy.exp(-v * y) * (1 - sympy.exp(-v * d)) - sympy.exp(-y) * (1 - sympy.exp(-d)))),
        CitedLemma(key(CLAIM), "(84)=(85) exp injective", statement=(
            "u e^{-(v-1) y} = u e^{-(v-1) y'} with u != 0 gives (v - 1)(y - y') = 0"), source="ahuja2024 eq. (85)"),
        z3_step(CLAIM, "(85) (v - 1)(y - y') = 0 and y != y' => v = 1 (needs the two pairs at different y_i)",
                [(vv - 1) * (yy - ypp) == 0, yy != ypp], vv == 1, neg_hypotheses=[(vv - 1) * (yy - ypp) == 0]),
        enum_step("asm15", "A15 is satisfiable: the grid {0,1,2}^2 meets (a) (even with y_i != y'_i) and (b)",
                  lambda: [GRID3], lambda S: satisfies_a15(S, distinct_yi=True),
                  neg_instances=lambda: [[(0, 0), (1, 0), (0, 1)]]),
    ]
    return Proof(key(CLAIM), "Theorem 17: the discrete scalar step", tuple(steps))


def findings() -> Proof:
    e, Ez = z3.Reals("e E")
    e_lower = [e >= z3.RealVal(8) / 3, Ez * e == 1, Ez > 0]     # e >= 1 + 1 + 1/2 + 1/6 (series), E = 1/e
    steps = [
        enum_step("asm15", "the square {1,2}^2 satisfies A15 as literally stated", lambda: [SQUARE],
                  lambda S: satisfies_a15(S), neg_predicate=lambda S: satisfies_a15(S, distinct_yi=True)),
        sympy_step(CLAIM, "witness: sigma(v* . 1) = u* sigma(1)", sigmoid(V_STAR), U_STAR * sigmoid(1),
                   neg_rhs=sigmoid(1)),
        sympy_step(CLAIM, "witness: sigma(v* . 2) = u* sigma(2)", sigmoid(2 * V_STAR), U_STAR * sigmoid(2),
                   neg_rhs=sigmoid(2)),
        linalg_step(CLAIM, "family: on {a, 2a}^n (any a > 0, E = e^{-a}) w = e^{-v a} = (1 - E)/(1 + E), "
                    "u = (1 + E)^2/2 solve sigma(v y) = u sigma(y) at y = a and y = 2a (identity in E)",
                    lambda: sympy.Matrix([1 / (1 + W_FAM) - U_FAM / (1 + EA), 1 / (1 + W_FAM**2) - U_FAM / (1 + EA**2)]),
                    lambda: sympy.Matrix([1 / (1 + W_FAM) - 1 / (1 + EA)])),
        CitedLemma(key(CLAIM), "e >= 8/3", statement="e = sum 1/k! >= 1 + 1 + 1/2 + 1/6 = 8/3", source="series of e"),
        z3_step(CLAIM, "witness: u* = (1 + 1/e)^2 / 2 != 1 (so U = diag(u*, u*) is not a permutation)",
                e_lower, (1 + Ez) * (1 + Ez) / 2 != 1, neg_goal=(1 + Ez) * (1 + Ez) / 2 == 1),
        z3_step(CLAIM, "witness: v* != 1, i.e. (1 + 1/e)/(1 - 1/e) != e", e_lower, 1 + Ez != e * (1 - Ez),
                neg_goal=1 + Ez == e * (1 - Ez)),
        sympy_step("thm17.mvt", "(82) with v = (1, -1), y = (0,0), y' = (1,1): (sigma(s1) - sigma(s2)) - "
                   "(sigma(s3) - sigma(s4)) = 0 exactly (s1 = s4 = 0, s2 = -1, s3 = 1)",
                   (sigmoid(0) - sigmoid(-1)) - (sigmoid(1) - sigmoid(0)), 0,
                   neg_lhs=(sigmoid(2) - sigmoid(1)) - (sigmoid(1) - sigmoid(0))),
    ]
    return Proof(key(CLAIM), "Theorem 17: A15 as stated does not force permutations", tuple(steps))
