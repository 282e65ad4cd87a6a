"""Huang et al. Proposition 39 as kernel steps (verify/kernel.py): ``#[j <= i - c] P(j)`` is definable with local
relations, for every c >= 0, every predicate P, every word and every position i.

The definition (constructions.crasp.ast.count_upto_minus): ``#[j <= i] P(j) - #[j <= i, i - j in {0..c-1}] P(j)``
(plain ``#[j <= i] P(j)`` for c = 0).  Write ``A(m) = #[j <= m] P(j)`` (``A(m) = 0`` for m <= 0, ``A(m) = A(m - 1) +
P(m)`` for m >= 1) and ``L_c(i) = #[j <= i, i - j in {0..c-1}] P(j) = sum_{k < c, i - k >= 1} P(i - k)``.  Claim
``A(i) - L_c(i) = A(i - c)``, by induction on c: the base c = 0 (``L_0 = 0``) and the step c -> c + 1
(``L_(c+1)(i) = L_c(i) + [i - c >= 1] P(i - c)`` and the recurrence of A at ``i - c``), z3 over the integers.

Negative control: the step with the local count taking ``P(i - c)`` also at a position before the word
(``i - c <= 0``), which the same z3 call rejects.
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_with_control

CLAIM = "huang2024:prop39"


def proof() -> Proof:
    i, c, Ai, Lc, Am, Am1, p = z3.Ints("i c A_i L_c A_i_minus_c A_i_minus_c_minus_1 P_i_minus_c")
    rec = z3.If(i - c >= 1, Am == Am1 + p, z3.And(Am == 0, Am1 == 0))  # A's recurrence at m = i - c (A = 0 below 1)
    hyps = [i >= 1, c >= 0, z3.Or(p == 0, p == 1), Ai - Lc == Am, rec]
    step = z3_with_control(CLAIM, "induction step c -> c + 1: A(i) - L_c(i) = A(i - c) gives A(i) - L_(c+1)(i) = "
                           "A(i - c - 1), L_(c+1)(i) = L_c(i) + [i - c >= 1] P(i - c)", hyps,
                           Ai - (Lc + z3.If(i - c >= 1, p, 0)) == Am1,
                           neg_goal=Ai - (Lc + p) == Am1)
    base = z3_with_control(CLAIM, "base c = 0: L_0 = 0 (no offsets) and A(i) - 0 = A(i - 0)", [i >= 1], Ai - 0 == Ai,
                           neg_goal=Ai - 1 == Ai)
    return Proof(CLAIM, "Proposition 39: #[j <= i - c] P(j) = #[j <= i] P(j) - #[j <= i, i - j < c] P(j)",
                 (base, step))
