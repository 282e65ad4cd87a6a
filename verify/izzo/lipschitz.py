"""Izzo et al. App. A.1, ``Lip(MLP_f) <= ||B_f||_F ||A_f||_F``, as kernel steps (verify/kernel.py), in every dimension.

Statement: for a ReLU MLP ``m(z) = B psi(A z + b)`` (A: k x d, B: d' x k, any k, d, d'),
``||m(z) - m(z')|| <= ||B||_F ||A||_F ||z - z'||`` for all z, z' (Euclidean norms).  Squared norms are sums, so
every step about a vector or matrix of any size is an induction over its entries (the base, an empty sum, and the
step adding one entry, row or column, both z3 obligations):

1. Cauchy-Schwarz: ``(sum_i a_i b_i)^2 <= (sum_i a_i^2)(sum_i b_i^2)`` (induction over i);
2. ``||M v||^2 = sum_rows (m_r . v)^2 <= ||M||_F^2 ||v||^2`` (induction over the rows, each row by 1);
3. ReLU is 1-Lipschitz per coordinate, so ``||psi(u) - psi(u')||^2 <= ||u - u'||^2`` (induction over the
   coordinates); the bias cancels: ``(A z + b) - (A z' + b) = A (z - z')`` (linearity of the matrix product,
   an identity in non-commuting symbols);
4. the chain of 2, 3, 2 and square roots (as z3 variables ``r >= 0, r^2 = x``; the root is increasing).

Negative controls: Cauchy-Schwarz's step without the square bound of the partial sums, a row's bound with the
Frobenius norm of the row left out, the Heaviside unit (jumps by 1 across 0: not Lipschitz), the bias cancelling
with a doubled bias, and the chain without ReLU's contraction.
"""

from __future__ import annotations

import sympy
import z3

from verify.kernel import Proof, sympy_with_control, z3_with_control

CLAIM = "izzo2025:app-a1.lip"


def _relu(u):
    return z3.If(u > 0, u, 0)


def _heaviside(u):
    return z3.If(u > 0, z3.RealVal(1), z3.RealVal(0))


def proof() -> Proof:
    S, P, Q, a, b = z3.Reals("S P Q a b")
    cs_hyps = [S * S <= P * Q, P >= 0, Q >= 0]
    cs_goal = (S + a * b) * (S + a * b) <= (P + a * a) * (Q + b * b)
    zero = z3.RealVal(0)
    cs_base = z3_with_control(CLAIM, "Cauchy-Schwarz (base, no entries): 0^2 <= 0 * 0", [], zero * zero <= zero * zero,
                              neg_goal=z3.RealVal(1) <= zero * zero)
    cs_step = z3_with_control(CLAIM, "Cauchy-Schwarz (induction step): adding an entry (a, b) keeps S^2 <= P Q",
                              cs_hyps, cs_goal, neg_hypotheses=cs_hyps[1:])

    R, F, V, m, F_row = z3.Reals("R F V m F_row")
    row_hyps = [R <= F * V, V >= 0, m * m <= F_row * V, F_row >= 0, F >= 0]
    row_base = z3_with_control(CLAIM, "||M v||^2 <= ||M||_F^2 ||v||^2 (base, no rows): 0 <= 0 * V", [V >= 0],
                               zero <= zero * V, neg_goal=z3.RealVal(1) <= zero * V)
    row_step = z3_with_control(CLAIM, "||M v||^2 <= ||M||_F^2 ||v||^2 (induction step): a row m_r with "
                               "(m_r . v)^2 <= |m_r|^2 ||v||^2 (Cauchy-Schwarz)", row_hyps,
                               R + m * m <= (F + F_row) * V, neg_goal=R + m * m <= F * V)

    u, u2, D, E = z3.Reals("u u2 D E")
    relu_coord = z3_with_control(CLAIM, "ReLU is 1-Lipschitz per coordinate: (psi(u) - psi(u'))^2 <= (u - u')^2", [],
                                 (_relu(u) - _relu(u2)) ** 2 <= (u - u2) ** 2,
                                 neg_goal=(_heaviside(u) - _heaviside(u2)) ** 2 <= (u - u2) ** 2)
    contr_base = z3_with_control(CLAIM, "||psi(u) - psi(u')||^2 <= ||u - u'||^2 (base, no coordinates)", [],
                                 zero <= zero, neg_goal=z3.RealVal(1) <= zero)
    contr_hyps = [D <= E]
    contr_step = z3_with_control(CLAIM, "||psi(u) - psi(u')||^2 <= ||u - u'||^2 (induction step: one more "
                                 "coordinate)", contr_hyps,
                                 D + (_relu(u) - _relu(u2)) ** 2 <= E + (u - u2) ** 2,
                                 neg_hypotheses=[D <= E + 1])

    A, z, z2, bb = sympy.symbols("A z z2 b", commutative=False)
    bias = sympy_with_control(CLAIM, "the bias cancels: (A z + b) - (A z' + b) = A (z - z') (non-commuting symbols)",
                              sympy.expand((A * z + bb) - (A * z2 + bb)), sympy.expand(A * (z - z2)),
                              neg_lhs=sympy.expand((A * z + 2 * bb) - (A * z2 + bb)))

    Mx, Py, Du, Dz, FA, FB, rx, rA, rB, rz = z3.Reals("Mx Py Du Dz FA FB rx rA rB rz")
    chain_hyps = [Mx <= FB * Py, Py <= Du, Du <= FA * Dz, FA >= 0, FB >= 0, Dz >= 0, Py >= 0, Du >= 0, Mx >= 0,
                  rx >= 0, rx * rx == Mx, rA >= 0, rA * rA == FA, rB >= 0, rB * rB == FB, rz >= 0, rz * rz == Dz]
    chain = z3_with_control(CLAIM, "the chain: ||B dpsi||^2 <= ||B||_F^2 ||dpsi||^2, ||dpsi||^2 <= ||A dz||^2 <= "
                            "||A||_F^2 ||dz||^2, so ||dm|| <= ||B||_F ||A||_F ||dz|| (square roots increasing)",
                            chain_hyps, rx <= rB * rA * rz,
                            neg_hypotheses=[h for h in chain_hyps if not z3.eq(h, chain_hyps[1])])
    return Proof(CLAIM, "App. A.1: Lip(B psi(A z + b)) <= ||B||_F ||A||_F for ReLU psi, every size",
                 (cs_base, cs_step, row_base, row_step, relu_coord, contr_base, contr_step, bias, chain))
