"""Huang et al. eq. (10) and App. C.2.1-C.2.2 as kernel steps (verify/kernel.py): the induction-head predicates NEXT_a
(``f(x)_a > 0``, and ``a`` in argmax f) are decided by the C-RASP[local] programs of constructions.crasp.programs,
for every alphabet, word and symbol.

``f(x)_a = n_a / d`` with ``n_a = #{k < N : x_k = x_N, x_(k+1) = a}`` and ``d = #{k < N : x_k = x_N}`` (N = |x|);
``f_a > 0`` is ``n_a > 0``, and ``a`` is in argmax f iff ``n_a >= n_t`` for every t (the same denominator; ties,
0/0 included, accept every maximiser).  The programs: ``Pre_s := E[j <= i, i - j = 1] Q_s`` (``prev``),
``B_st := #[j <= i] (Pre_s and Q_t)``, ``NEXT_a := OR_s (Q_s and 1 <= B_sa)`` (support) or ``OR_s (Q_s and AND_(t
!= a) B_st <= B_sa)`` (argmax).  Steps (z3, for every position and count):

1. ``Pre_s(j)`` holds iff ``j >= 2`` and ``x_(j-1) = s`` (the local count over the one offset 1 is 1 or 0);
2. ``B_st(i) = #{k < i : x_k = s, x_(k+1) = t}`` by induction over i (base i = 1: both 0; the step adds the bigram
   ending at i, i.e. k = i - 1);
3. over the alphabet (induction over its symbols, exactly one of which is x_N): ``OR_s (Q_s(N) and phi_s)`` is
   ``phi_(x_N)``;
4. support: ``1 <= B_(x_N) a`` is ``n_a > 0``; argmax: ``AND_(t != a) B_st <= B_sa`` is ``n_t <= n_a`` for every t
   (induction over t; t = a holds trivially).

Negative controls: Pre read at offset 0 (``x_j`` itself), the bigram step without the new bigram, the OR step with
Q_s true for a symbol other than x_N, and the support with ``2 <= B``.
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_with_control

CLAIM = "huang2024:eq10"


def _step(name, hyps, goal, **control):
    return z3_with_control(CLAIM, name, hyps, goal, **control)


def proof() -> Proof:
    j, off_cnt = z3.Ints("j count_offset_1")
    prev_is_s, cur_is_s = z3.Bools("x_j_minus_1_is_s x_j_is_s")
    pre = [j >= 1, off_cnt == z3.If(z3.And(j >= 2, prev_is_s), 1, 0)]  # #[j' <= j, j - j' = 1] Q_s(j')
    b0, b1, n0, n1 = z3.Ints("B_prev B n_prev n")
    is_s_prev, is_t = z3.Bools("x_i_minus_1_is_s x_i_is_t")
    # B_st gains [Pre_s(i) and Q_t(i)]; the bigram count gains [x_(i-1) = s and x_i = t] (the bigram k = i - 1)
    big = [j >= 2, b0 == n0, b1 == b0 + z3.If(z3.And(j >= 2, is_s_prev, is_t), 1, 0),
           n1 == n0 + z3.If(z3.And(is_s_prev, is_t), 1, 0)]
    acc0, acc1, seen0, seen1, q_s, phi_s, phi_last = z3.Bools("OR_prev OR x_N_seen_prev x_N_seen Q_s phi_s phi_x_N")
    # Q_s(N) holds only for s = x_N, where phi_s is phi_(x_N)
    orr = [acc0 == z3.And(seen0, phi_last), z3.Implies(q_s, phi_s == phi_last),
           acc1 == z3.Or(acc0, z3.And(q_s, phi_s)), seen1 == z3.Or(seen0, q_s)]
    na, nt = z3.Ints("n_a n_t")
    all0, all1 = z3.Bools("all_prev all")
    t_is_a = z3.Bool("t_is_a")
    argm = [z3.Implies(t_is_a, nt == na), all1 == z3.And(all0, z3.Or(t_is_a, nt <= na))]
    return Proof(CLAIM, "eq. (10): NEXT_a by bigram counts with the predecessor relation, every word", (
        _step("Pre_s(j) := 1 <= #[j' <= j, j - j' = 1] Q_s(j') holds iff j >= 2 and x_(j-1) = s", pre,
              (1 <= off_cnt) == z3.And(j >= 2, prev_is_s),
              neg_goal=(1 <= off_cnt) == z3.And(j >= 2, cur_is_s)),
        _step("B_st (base i = 1): no bigram yet, and Pre_s(1) is false", [j == 1, b0 == 0, n0 == 0],
              z3.And(b0 == n0, z3.Not(z3.And(j >= 2, is_s_prev))), neg_goal=b0 == n0 + 1),
        _step("B_st (step i - 1 -> i): the count of bigrams st ending at or before i is #{k < i: x_k = s, x_(k+1) = t}",
              big, b1 == n1, neg_hypotheses=[big[0], big[1], b1 == b0, big[3]]),
        _step("OR over the alphabet (induction over its symbols, exactly one is x_N): OR_s (Q_s(N) and phi_s) = "
              "phi_(x_N) on the symbols seen", orr, acc1 == z3.And(seen1, phi_last),
              neg_hypotheses=[orr[0], orr[2], orr[3]]),
        _step("support: 1 <= B_(x_N) a iff n_a > 0 (f(x)_a > 0)", [na >= 0, b1 == na], (1 <= b1) == (na > 0),
              neg_goal=(2 <= b1) == (na > 0)),
        _step("argmax (induction over t): AND_(t != a) B_(x_N) t <= B_(x_N) a is n_t <= n_a for every t", argm,
              all1 == z3.And(all0, nt <= na), neg_hypotheses=[argm[1]]),
    ))
