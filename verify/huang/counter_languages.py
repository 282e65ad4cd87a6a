"""Huang et al. Theorem 10 as kernel steps (verify/kernel.py): MAJORITY, DYCK-1, a^n b^n and a^n b^n c^n (both readings
of the third language, UNCERTAIN in the reference) are decided by the programs of constructions.crasp.programs, for
every word.

Count semantics (Definition 8): ``#[j <= i] P(j)`` is the number of positions ``j <= i`` where P holds, so
``C(i) = C(i - 1) + [P(i)]`` and ``C(0) = 0``.  Each program is read at the last position n of the word:

* ``majority``: ``C_b <= C_a`` is ``#b <= #a``, the language (at least as many a's as b's);
* ``dyck1`` (a = '(', b = ')'): ``C_Bad <= 0`` with ``Bad = C_a < C_b`` holds at i iff no prefix up to i has
  negative depth (induction over positions), and ``C_a = C_b`` is depth 0: the two conditions defining DYCK-1;
* ``anbn``: ``C_Bad <= 0`` with ``Bad = Q_a and 1 <= C_b`` holds at i iff ``w_1..w_i`` is in a*b* (no a after a b:
  induction over positions with the recurrence ``x a in a*b*`` iff ``x in a*`` and ``x b in a*b*`` iff ``x in
  a*b*``), and a word ``a^p b^q`` is ``a^m b^m`` iff ``p = q``;
* ``anbncn``: the same with a*b*c* (``Bad = (Q_a and 1 <= C_(b or c)) or (Q_b and 1 <= C_c)``).

Negative controls: ``C_b < C_a`` (ties lost), ``Bad = C_a <= C_b`` (depth 0 counted as bad), ``Bad`` reading the b's
strictly before i (the same here: an a at i is not a b) replaced by ``1 <= C_a`` (a's after a's flagged), and the
a*b*c* recurrence without the b-before-c condition.
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_with_control

CLAIM = "huang2024:thm10"


def _step(name, hyps, goal, **control):
    return z3_with_control(CLAIM, name, hyps, goal, **control)


def proof() -> Proof:
    na, nb, ca, cb = z3.Ints("n_a n_b C_a C_b")
    maj = _step("majority: C_b <= C_a at the last position is #b <= #a", [ca == na, cb == nb, na >= 0, nb >= 0],
                (cb <= ca) == (na >= nb), neg_goal=(cb < ca) == (na >= nb))

    # DYCK-1: ok(i) = ok(i - 1) and depth(i) >= 0; C_Bad(i) = C_Bad(i - 1) + [C_a(i) < C_b(i)]
    bad0, bad1, dep = z3.Ints("C_Bad_prev C_Bad depth")
    ok0, ok1 = z3.Bools("ok_prev ok")
    dy = [bad0 >= 0, (bad0 <= 0) == ok0, bad1 == bad0 + z3.If(dep < 0, 1, 0), ok1 == z3.And(ok0, dep >= 0)]
    dyck_step = _step("DYCK-1 (induction over positions): C_Bad <= 0 iff no prefix so far has negative depth C_a - C_b",
                      dy, z3.And(bad1 >= 0, (bad1 <= 0) == ok1),
                      neg_hypotheses=[bad0 >= 0, (bad0 <= 0) == ok0, bad1 == bad0 + z3.If(dep <= 0, 1, 0),
                                      ok1 == z3.And(ok0, dep >= 0)])
    dyck_base = _step("DYCK-1 (base, position 0): C_Bad = 0 and the empty prefix is fine", [bad0 == 0, ok0],
                      (bad0 <= 0) == ok0, neg_goal=(bad0 < 0) == ok0)
    dyck_end = _step("DYCK-1 at n: C_Bad <= 0 and C_a = C_b iff every prefix depth >= 0 and the final depth is 0",
                     [(bad1 <= 0) == ok1, dep == ca - cb], z3.And(bad1 <= 0, ca == cb) == z3.And(ok1, dep == 0),
                     neg_goal=z3.And(bad1 <= 0, ca <= cb) == z3.And(ok1, dep == 0))

    # a*b*: in_ab(i) = in_ab(i-1) and not (w_i = a and some b in w_1..w_(i-1)); C_b(i) = C_b(i-1) when w_i = a
    is_a, is_b, is_c = z3.Bools("w_i_is_a w_i_is_b w_i_is_c")
    in0, in1 = z3.Bools("in_prev in")
    cb0, cb1 = z3.Ints("C_b_prev C_b_i")
    ab = [bad0 >= 0, (bad0 <= 0) == in0, cb0 >= 0, z3.Xor(is_a, is_b), cb1 == cb0 + z3.If(is_b, 1, 0),
          bad1 == bad0 + z3.If(z3.And(is_a, 1 <= cb1), 1, 0), in1 == z3.And(in0, z3.Not(z3.And(is_a, cb0 >= 1)))]
    ab_step = _step("a^n b^n (induction over positions): C_Bad <= 0 iff w_1..w_i is in a*b* (an a only before every b)",
                    ab, z3.And(bad1 >= 0, (bad1 <= 0) == in1),
                    neg_hypotheses=ab[:5] + [bad1 == bad0 + z3.If(z3.And(is_a, 1 <= cb1 + 1), 1, 0), ab[6]])
    p, q, n = z3.Ints("p q n")
    ab_end = _step("a^n b^n at n: a word a^p b^q is a^m b^m (m = n/2) iff C_a = p equals C_b = q",
                   [p >= 0, q >= 0, n == p + q], (p == q) == z3.And(n % 2 == 0, p == n / 2, q == n / 2),
                   neg_goal=(p <= q) == z3.And(n % 2 == 0, p == n / 2, q == n / 2))

    # a*b*c*: in(i) = in(i-1) and not (w_i = a and some b or c before) and not (w_i = b and some c before)
    cbc0, cbc1, cc0, cc1 = z3.Ints("C_bc_prev C_bc C_c_prev C_c")
    one = z3.And(z3.Or(is_a, is_b, is_c), z3.Not(z3.And(is_a, is_b)), z3.Not(z3.And(is_a, is_c)),
                 z3.Not(z3.And(is_b, is_c)))
    abc = [bad0 >= 0, (bad0 <= 0) == in0, cbc0 >= 0, cc0 >= 0, one,
           cbc1 == cbc0 + z3.If(z3.Or(is_b, is_c), 1, 0), cc1 == cc0 + z3.If(is_c, 1, 0),
           bad1 == bad0 + z3.If(z3.Or(z3.And(is_a, 1 <= cbc1), z3.And(is_b, 1 <= cc1)), 1, 0),
           in1 == z3.And(in0, z3.Not(z3.And(is_a, cbc0 >= 1)), z3.Not(z3.And(is_b, cc0 >= 1)))]
    abc_step = _step("a^n b^n c^n (induction over positions): C_Bad <= 0 iff w_1..w_i is in a*b*c*", abc,
                     z3.And(bad1 >= 0, (bad1 <= 0) == in1),
                     neg_hypotheses=abc[:7] + [bad1 == bad0 + z3.If(z3.And(is_a, 1 <= cbc1), 1, 0), abc[8]])
    r = z3.Int("r")
    abc_end = _step("a^n b^n c^n at n: a word a^p b^q c^r is a^m b^m c^m (m = n/3) iff C_a = C_b and C_b = C_c",
                    [p >= 0, q >= 0, r >= 0, n == p + q + r],
                    z3.And(p == q, q == r) == z3.And(n % 3 == 0, p == n / 3, q == n / 3, r == n / 3),
                    neg_goal=(p == q) == z3.And(n % 3 == 0, p == n / 3, q == n / 3, r == n / 3))
    base = _step("a*b* and a*b*c* (base, position 0): C_Bad = 0 and the empty word is in the language", [bad0 == 0, in0],
                 (bad0 <= 0) == in0, neg_goal=(bad0 < 0) == in0)
    return Proof(CLAIM, "Theorem 10: MAJORITY, DYCK-1, a^n b^n and a^n b^n c^n in C-RASP, every word",
                 (maj, dyck_base, dyck_step, dyck_end, base, ab_step, ab_end, abc_step, abc_end))
