"""Huang et al. Lemma 11 (4) / App. C.1.5 as kernel steps (verify/kernel.py): every piecewise testable language is in
C-RASP, for every pattern, alphabet, word and position.

A piecewise testable language is a Boolean combination of the languages ``Sigma* a_1 Sigma* ... a_k Sigma*`` (Simon);
C-RASP is closed under And and Not, so it suffices that :func:`constructions.crasp.programs.subsequence_defs` decides
``u = a_1 ... a_k`` being a subsequence.  Write ``s_m(i)`` for "``a_1 .. a_m`` is a subsequence of ``w_1 .. w_i``":
``s_m(0)`` is false, ``s_0(i)`` true, and ``s_m(i) = s_m(i - 1) or (w_i = a_m and s_(m-1)(i - 1))`` (the last letter
of an embedding is at position i or not: the recursive definition of the relation).  The program: ``S_1 := E[j <= i]
Q_(a_1)``, ``Prev_m := 2 <= #[j <= i] S_(m-1)``, ``S_m := E[j <= i] (Q_(a_m) and Prev_m)``, with ``E[j <= i] X :=
1 <= #[j <= i] X``.  Steps (z3 over integers and Booleans, for every position), by induction over positions inside
an induction over m:

1. ``E X`` at i is ``E X`` at i - 1 or X(i) (``#X(i) = #X(i - 1) + [X(i)] >= 0``; base: 0 at position 0);
2. for a non-decreasing S (``S(i - 1) => S(i)``), ``2 <= #S(i)`` iff S(i - 1), with ``1 <= #S(i)`` iff S(i) carried
   along (base i = 1 and the step);
3. so ``S_m(i) = S_m(i - 1) or (w_i = a_m and S_(m-1)(i - 1))``: the recurrence of s_m, from the same value at
   position 0 (false), so ``S_m = s_m`` at every position (m = 1 reads ``s_0 = true``), and S_m is non-decreasing
   (needed by step 2 at the next level).

Negative controls: ``1 <= #S`` in place of ``2 <= #S`` (that reads S(i), not S(i - 1)), the count lemma without
monotonicity, and the level step reading ``S_(m-1)(i)``.
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_with_control

CLAIM = "huang2024:lem11.piecewise"


def proof() -> Proof:
    c0, c1, x1 = z3.Int("count_prev"), z3.Int("count"), z3.Bool("X_i")
    e_rec = [c0 >= 0, c1 == c0 + z3.If(x1, 1, 0)]
    exists_step = z3_with_control(CLAIM, "E X at i = (E X at i - 1) or X(i)", e_rec, (1 <= c1) == z3.Or(1 <= c0, x1),
                                  neg_goal=(1 <= c1) == x1)
    exists_base = z3_with_control(CLAIM, "E X at position 0 is false (the empty count 0)", [c0 == 0], z3.Not(1 <= c0),
                                  neg_goal=1 <= c0)

    S2, S1, S0 = z3.Bools("S_i S_i_minus_1 S_i_minus_2")  # S at i, i - 1, i - 2
    inv = [c0 >= 0, (1 <= c0) == S1, (2 <= c0) == S0, z3.Implies(S0, S1), z3.Implies(S1, S2),
           c1 == c0 + z3.If(S2, 1, 0)]
    prev_goal = z3.And((1 <= c1) == S2, (2 <= c1) == S1)
    prev_step = z3_with_control(CLAIM, "for a non-decreasing S: 1 <= #S(i) iff S(i) and 2 <= #S(i) iff S(i - 1) "
                                "(induction step over i)", inv, prev_goal,
                                neg_hypotheses=[h for h in inv if not z3.eq(h, inv[4])])
    base = [c0 == 0, z3.Not(S1), z3.Not(S0), c1 == c0 + z3.If(S2, 1, 0)]  # position 1: nothing before it
    prev_base = z3_with_control(CLAIM, "the count lemma at i = 1: #S(1) = [S(1)], S(0) false", base, prev_goal,
                                neg_goal=z3.And((1 <= c1) == S2, (1 <= c1) == S1))

    Sm0, Sm1, Sk1, Sk0, letter = z3.Bools("S_m_prev S_m S_k_i S_k_prev w_i_is_a_m")  # S_m at i-1, i; S_(m-1) at i, i-1
    cm0, cm1, ck = z3.Ints("count_m_prev count_m count_k")
    prev_m = 2 <= ck  # Prev_m(i) = 2 <= #S_(m-1)(i)
    level = [cm0 >= 0, (1 <= cm0) == Sm0, cm1 == cm0 + z3.If(z3.And(letter, prev_m), 1, 0), (1 <= cm1) == Sm1,
             (2 <= ck) == Sk0, z3.Implies(Sk0, Sk1)]  # step 2 for S_(m-1) at i
    level_step = z3_with_control(CLAIM, "level step: S_m(i) = S_m(i - 1) or (w_i = a_m and S_(m-1)(i - 1)), the "
                                 "recurrence of s_m, and S_m is non-decreasing", level,
                                 z3.And(Sm1 == z3.Or(Sm0, z3.And(letter, Sk0)), z3.Implies(Sm0, Sm1)),
                                 neg_goal=Sm1 == z3.Or(Sm0, z3.And(letter, Sk1)))
    s0 = z3.BoolVal(True)
    first = [cm0 >= 0, (1 <= cm0) == Sm0, cm1 == cm0 + z3.If(letter, 1, 0), (1 <= cm1) == Sm1]
    first_step = z3_with_control(CLAIM, "m = 1: S_1(i) = S_1(i - 1) or (w_i = a_1 and s_0), s_0 true", first,
                                 z3.And(Sm1 == z3.Or(Sm0, z3.And(letter, s0)), z3.Implies(Sm0, Sm1)),
                                 neg_goal=Sm1 == letter)
    sm0, sm1 = z3.Bools("s_m_prev s_m")
    same = [Sm0 == sm0, Sm1 == z3.Or(Sm0, z3.And(letter, Sk0)), sm1 == z3.Or(sm0, z3.And(letter, Sk0))]
    equal = z3_with_control(CLAIM, "S_m = s_m at every position (induction over i: equal at i - 1, the same "
                            "recurrence with S_(m-1)(i - 1) = s_(m-1)(i - 1); equal at 0, both false)", same, Sm1 == sm1,
                            neg_hypotheses=same[1:])
    return Proof(CLAIM, "Lemma 11 (4): subsequence tests (and their Boolean combinations) are in C-RASP",
                 (exists_base, exists_step, prev_base, prev_step, first_step, level_step, equal))
