"""Huang et al. Lemma 41 (PARITY is not in C-RASP[periodic, local]) and Table 2's Tomita 5 and 6 rows as kernel steps
(verify/kernel.py), for every program, period, locality and block length.

The consequence of Lemma 40 that Lemma 41 uses, proved here directly by structural induction over the program (one
step per operation of Definition 8, Positional included): on an infinite word ``w = u v v v ...`` whose block length
``L = |v|`` is a multiple of every period of the program,

* every Boolean B is *eventually L-periodic*: ``B(i + L) = B(i)`` for every ``i >= T``;
* every Count C has *eventually L-periodic increments*: ``C(i + L) = C(i) + A(i)`` with ``A(i + L) = A(i)`` for every
  ``i >= T``.

Steps (z3 over the integers, for every position, threshold, L, period and locality): Initial (``w_(i+L) = w_i`` past
u), Positional (``(i + L) mod Delta = i mod Delta`` when Delta divides L), constants, Not, And, Addition, Subtraction,
Conditional, Counting (the increment ``A(i) = C(i + L) - C(i)`` is constant from T: ``A(i + 1) = A(i)``), Counting
with a local psi (offsets in [0, tau]: periodic from T + tau, induction over the offsets) and Comparison: with
``C_k(i0 + m L) = C_k(i0) + m A_k(i0)`` (induction on m) the comparison at ``i0 + m L`` is constant in m from
``m = |C_2(i0) - C_1(i0)| + 1`` for each of the L residues ``i0`` in ``[T, T + L)``, so from ``T + L M`` on, M the
largest of those finitely many thresholds (every ``i >= T + L M`` is ``i0 + m L`` with ``m >= M``).  :data:`CASES`
names each step's operation; the test checks they cover every operation of the grammar.  Then the answer on
``u v^n`` (the output at position ``|u| + n L``) is constant for n beyond a threshold (induction on n).

The languages: for every block length k (a multiple of the program's period), PARITY (an even number of 1's) and
Tomita 5 (even numbers of 0's and of 1's) take both values on ``(0^(k-1) 1)^n`` at n = 2N and 2N + 1, and Tomita 6
(``#0 - #1 = 0 mod 3``) at n = 3N and 3N + 1 on ``(0^(k-1) 1)^n``, or on ``(0^k)^n`` when ``k = 2 mod 3``: beyond every
threshold, so no program decides them.  Controls: the block ``0^k`` for PARITY (no 1: constant), Tomita 6's first
block kept at ``k = 2 mod 3``, and the Positional step with a period that does not divide L.
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_max, z3_with_control

CLAIM41 = "huang2024:lem41"

#: the Definition 8 operation (class name in constructions.crasp.ast) each step of :func:`periodic_words` handles
CASES = ("Initial", "Positional", "BoolConst", "CountConst", "Not", "And", "Add", "Sub", "Conditional", "Count",
         "Count", "Count", "Comparison", "Comparison", "Comparison", "Comparison", "Comparison", "Comparison",
         "Comparison")


def periodic_words() -> Proof:
    i, T, T1, T2, L, D, c, u, q, r = z3.Ints("i T T1 T2 L Delta c len_u q r")
    sym_i, sym_iL = z3.Ints("w_i w_i_plus_L")
    B1, B1L, B2, B2L = z3.Bools("B1 B1_L B2 B2_L")  # operands at i and i + L
    X1, X1L, Y1, Y1L, X2, X2L, Y2, Y2L = z3.Ints("C1 C1_L A1 A1_L C2 C2_L A2 A2_L")
    Tm = z3_max(T1, T2)
    at = lambda t: z3.And(i >= t, L >= 1)  # noqa: E731
    per1 = z3.Implies(i >= T1, B1L == B1)
    per2 = z3.Implies(i >= T2, B2L == B2)
    inc1 = z3.Implies(i >= T1, X1L == X1 + Y1)
    inc2 = z3.Implies(i >= T2, X2L == X2 + Y2)

    # Counting: C(i + 1) = C(i) + [P(i + 1)], C(i + L + 1) = C(i + L) + [P(i + L + 1)], P periodic from T.
    Ci, Ci1, CiL, CiL1, p1, p2 = z3.Ints("C_i C_i1 C_iL C_iL1 P_i1 P_iL1")
    cnt = [i >= T, T >= 1, L >= 1, z3.Or(p1 == 0, p1 == 1), z3.Or(p2 == 0, p2 == 1), Ci1 == Ci + p1, CiL1 == CiL + p2,
           z3.Implies(i + 1 >= T, p2 == p1)]
    # local psi: partial sums over the offsets s of [P(i - s)] at i and at i + L; P periodic from T, i >= T + tau
    tau, s, part, partL, q1, q2 = z3.Ints("tau s partial partial_L P_i_s P_iL_s")
    loc = [T >= 1, tau >= 0, s >= 0, s <= tau, i >= T + tau, L >= 1, part == partL,
           z3.Implies(i - s >= T, q2 == q1)]

    # Comparison: C_k(i0 + m L) = C_k(i0) + m a_k (induction on m), then constancy in m from |d| + 1
    m, x0, xm, xm1, y, ym, yml = z3.Ints("m C_i0 C_m C_m1 A_i0 A_m A_m1")
    itr = [m >= 0, xm == x0 + m * y, ym == y, xm1 == xm + ym]
    d, a1, a2, M, i0 = z3.Ints("d a1 a2 M i0")

    def cmp_at(mm):  # C1(i0) + m a1 <= C2(i0) + m a2, with d = C2(i0) - C1(i0)
        return d + mm * (a2 - a1) >= 0

    big = [m >= z3.If(d >= 0, d, -d) + 1]
    decomp = [L >= 1, T >= 1, M >= 0, i >= T + L * M, i0 == T + (i - T) % L, m == (i - T) / L]
    return Proof(CLAIM41, "Lemma 40's consequence: every C-RASP[periodic, local] operation is eventually L-periodic", (
        z3_with_control(CLAIM41, "Initial: w_(i + L) = w_i past the prefix u, so Q_a(i + L) = Q_a(i) from |u| + 1",
                        [u >= 0, L >= 1, z3.Implies(i > u, sym_iL == sym_i), i >= u + 1],
                        (sym_iL == c) == (sym_i == c), neg_hypotheses=[u >= 0, L >= 1, i >= u + 1]),
        z3_with_control(CLAIM41, "Positional: i and i + L have the same residue mod Delta when Delta divides L: i = q "
                        "Delta + r with 0 <= r < Delta gives i + L = (q + c) Delta + r (every i)",
                        [D >= 1, c >= 1, L == c * D, i == q * D + r, r >= 0, r < D], i + L == (q + c) * D + r,
                        neg_hypotheses=[D >= 1, c >= 1, L == c * D + 1, i == q * D + r, r >= 0, r < D]),
        z3_with_control(CLAIM41, "Constant: beta at i + L and at i", [B1L == B1], B1L == B1, neg_goal=B1L != B1),
        z3_with_control(CLAIM41, "Constant count: increment 0 at every i", [X1L == c, X1 == c], X1L == X1 + 0,
                        neg_goal=X1L == X1 + 1),
        z3_with_control(CLAIM41, "Not: periodic from the operand's T", [at(T1), per1], z3.Not(B1L) == z3.Not(B1),
                        neg_hypotheses=[at(T1)]),
        z3_with_control(CLAIM41, "And: periodic from max(T1, T2)", [at(Tm), per1, per2],
                        z3.And(B1L, B2L) == z3.And(B1, B2), neg_hypotheses=[at(T1), per1, per2]),
        z3_with_control(CLAIM41, "Addition: increments A1 + A2, periodic, from max(T1, T2)",
                        [at(Tm), inc1, inc2, z3.Implies(i >= T1, Y1L == Y1), z3.Implies(i >= T2, Y2L == Y2)],
                        z3.And(X1L + X2L == X1 + X2 + (Y1 + Y2), Y1L + Y2L == Y1 + Y2),
                        neg_goal=X1L + X2L == X1 + X2 + (Y1 - Y2)),
        z3_with_control(CLAIM41, "Subtraction: increments A1 - A2, periodic, from max(T1, T2)",
                        [at(Tm), inc1, inc2, z3.Implies(i >= T1, Y1L == Y1), z3.Implies(i >= T2, Y2L == Y2)],
                        z3.And(X1L - X2L == X1 - X2 + (Y1 - Y2), Y1L - Y2L == Y1 - Y2),
                        neg_hypotheses=[at(T1), inc1, inc2, z3.Implies(i >= T1, Y1L == Y1),
                                        z3.Implies(i >= T2, Y2L == Y2)]),
        z3_with_control(CLAIM41, "Conditional: increment cond ? A1 : A2, periodic (cond periodic), from max(T_cond, T1, "
                        "T2)", [at(Tm), per1, inc1, inc2, z3.Implies(i >= T1, Y1L == Y1), z3.Implies(i >= T2, Y2L == Y2)],
                        z3.And(z3.If(B1L, X1L, X2L) == z3.If(B1, X1, X2) + z3.If(B1, Y1, Y2),
                               z3.If(B1, Y1L, Y2L) == z3.If(B1, Y1, Y2)),
                        neg_hypotheses=[at(Tm), inc1, inc2, z3.Implies(i >= T1, Y1L == Y1),
                                        z3.Implies(i >= T2, Y2L == Y2)]),
        z3_with_control(CLAIM41, "Counting: the increment A(i) = C(i + L) - C(i) is constant from T (A(i + 1) = A(i)), "
                        "so periodic", cnt, CiL1 - Ci1 == CiL - Ci, neg_hypotheses=cnt[:-1]),
        z3_with_control(CLAIM41, "Counting with a local psi (step over the offsets): from T + tau the partial sums at i "
                        "and i + L agree (the count is periodic, increment 0)",
                        loc + [z3.Or(q1 == 0, q1 == 1)], part + q1 == partL + q2,
                        neg_hypotheses=[h for h in loc if not z3.eq(h, loc[4])] + [i >= T, z3.Or(q1 == 0, q1 == 1)]),
        z3_with_control(CLAIM41, "Counting with a local psi (base: no offset yet)", [part == 0, partL == 0],
                        part == partL, neg_goal=part == partL + 1),
        z3_with_control(CLAIM41, "Comparison, iterate the increment (induction on m): A(i0 + m L) = A(i0) and A "
                        "periodic at i0 + m L >= T give A(i0 + (m + 1) L) = A(i0)", [m >= 0, ym == y, yml == ym],
                        yml == y, neg_hypotheses=[m >= 0, ym == y]),
        z3_with_control(CLAIM41, "Comparison, iterate (base m = 0): C(i0 + 0 L) = C(i0) + 0 A(i0)", [xm == x0],
                        xm == x0 + 0 * y, neg_goal=xm == x0 + y),
        z3_with_control(CLAIM41, "Comparison, iterate (step m -> m + 1, A periodic): C(i0 + (m + 1) L) = C(i0) + "
                        "(m + 1) A(i0)", itr, xm1 == x0 + (m + 1) * y,
                        neg_hypotheses=[h for h in itr if not z3.eq(h, itr[2])]),
        z3_with_control(CLAIM41, "Comparison, slopes a2 > a1: true at m and m + 1 from m = |d| + 1",
                        big + [a2 > a1], z3.And(cmp_at(m), cmp_at(m + 1)), neg_hypotheses=[m >= 0, a2 > a1]),
        z3_with_control(CLAIM41, "Comparison, slopes a2 < a1: false at m and m + 1 from m = |d| + 1",
                        big + [a2 < a1], z3.And(z3.Not(cmp_at(m)), z3.Not(cmp_at(m + 1))),
                        neg_hypotheses=[m >= 0, a2 < a1]),
        z3_with_control(CLAIM41, "Comparison, equal slopes: the constant [d >= 0] at every m", [m >= 0, a2 == a1],
                        cmp_at(m) == cmp_at(m + 1), neg_goal=cmp_at(m) == (d > 0)),
        z3_with_control(CLAIM41, "Comparison, the threshold: every i >= T + L M is i0 + m L with i0 in [T, T + L) and m "
                        ">= M (M the largest of the L residues' thresholds)", decomp,
                        z3.And(i == i0 + m * L, T <= i0, i0 < T + L, m >= M),
                        neg_hypotheses=[L >= 1, T >= 1, M >= 0, i >= T, i0 == T + (i - T) % L, m == (i - T) / L]),
    ))


def _language_steps(claim: str):
    k, N = z3.Ints("k N")
    hyp = [k >= 1, N >= 0]
    block = lambda mm: (mm * (k - 1), mm)  # noqa: E731  zeros, ones of (0^(k-1) 1)^m
    zeros_k = lambda mm: (mm * k, z3.IntVal(0))  # noqa: E731  (0^k)^m
    parity = lambda zeros, ones: ones % 2 == 0  # noqa: E731
    tomita5 = lambda zeros, ones: z3.And(zeros % 2 == 0, ones % 2 == 0)  # noqa: E731
    tomita6 = lambda zeros, ones: (zeros - ones) % 3 == 0  # noqa: E731
    if claim == "huang2024:tab2.tomita6":
        return z3_with_control(claim, "Tomita 6 on (0^(k-1) 1)^n, or on (0^k)^n when k = 2 mod 3: both values at 3N "
                               "and 3N + 1", hyp,
                               z3.If(k % 3 == 2, tomita6(*zeros_k(3 * N)) != tomita6(*zeros_k(3 * N + 1)),
                                     tomita6(*block(3 * N)) != tomita6(*block(3 * N + 1))),
                               neg_goal=tomita6(*block(3 * N)) != tomita6(*block(3 * N + 1)))
    lang = tomita5 if claim == "huang2024:tab2.tomita5" else parity
    name = "Tomita 5" if claim == "huang2024:tab2.tomita5" else "PARITY"
    return z3_with_control(claim, f"{name} on (0^(k-1) 1)^n: both values at 2N and 2N + 1", hyp,
                           lang(*block(2 * N)) != lang(*block(2 * N + 1)),
                           neg_goal=lang(*zeros_k(2 * N)) != lang(*zeros_k(2 * N + 1)))


def language(claim: str) -> Proof:
    """For a language ``claim`` (huang2024:lem41 PARITY, huang2024:tab2.tomita5, huang2024:tab2.tomita6): on
    ``v^n`` the answer is the same at n and n + 1 from a threshold on, while the language takes both values at the two
    witnesses beyond every threshold, for every block length k."""
    n, L, Tn, n0 = z3.Ints("n L T n0")
    Bq, Bq1 = z3.Bools("B_n B_n_plus_1")
    return Proof(claim, "not in C-RASP[periodic, local]: the answer on v^n settles, the language does not", (
        z3_with_control(claim, "the answer on v^n, the output at position n L, is the same at n and n + 1 once n L >= T "
                        "(B(i + L) = B(i) from T)", [n >= 0, L >= 1, n * L >= Tn, z3.Implies(n * L >= Tn, Bq1 == Bq)],
                        Bq1 == Bq, neg_hypotheses=[n >= 0, L >= 1]),
        _language_steps(claim),
        z3_with_control(claim, "the witnesses lie beyond any threshold n0: N = n0 gives 2N, 3N >= n0", [n0 >= 0],
                        z3.And(2 * n0 >= n0, 3 * n0 >= n0), neg_goal=2 * n0 >= n0 + 1),
    ))
