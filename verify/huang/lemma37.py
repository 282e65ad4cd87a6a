"""Huang et al. Lemma 37 and Lemma 38 as kernel steps (verify/kernel.py), for every C-RASP program.

Lemma 37: over a unary alphabet every C-RASP program eventually accepts all ``a^n`` or eventually rejects all.
Proof by structural induction over the program (a straight-line program: every operand is defined before its
use).  On the word ``a a a ...`` the value of an operation at position i depends only on positions 1..i, so its
value on ``a^n`` at the last position n is its value at position n on the infinite word.  Invariant:

* a Boolean operation B is *eventually constant*: integers ``T >= 1`` and a truth value beta with ``B(i) = beta``
  for every ``i >= T``;
* a Count operation C is *eventually affine*: integers ``T >= 1``, a, b with ``C(i) = a i + b`` for every
  ``i >= T``.

One step per operation of Definition 8 (:data:`constructions.crasp.ast.BOOL_NODES`, ``COUNT_NODES``), each with the
threshold and form it gives, proved for every position i by z3 over the integers from the invariant of its operands:
Initial (constant on ``a^n``), Constant, Not, And, Constant count, Addition, Subtraction, Conditional, Counting
(``#[j <= i] P(j)``: base at i = T and the step i -> i + 1; with a local relation psi of offsets in [0, tau], by
induction over the offsets, eventually constant from T + tau) and Comparison (three cases of the slopes; the
thresholds are the code's own, constructions.crasp.unary.rising_from and falling_from evaluated on z3 integers, proved
least; they use that slopes and intercepts are integers).  Positional (a periodic relation, C-RASP[periodic]) has no
step: ``[i = 0 mod 2]`` is not eventually constant (the control).  The output Boolean is then eventually constant,
which is the lemma.  :data:`CASES` names the operation of every step; the test checks that they are exactly
Definition 8's operations other than Positional, so a new operation without a step fails the check.

Lemma 38: for m >= 2 no C-RASP program recognises ``{a^n : n = 0 mod m}`` ((aa)* for m = 2): by Lemma 37 the
program's answer is some beta for every n >= T, but ``a^(mT)`` is in the language and ``a^(mT + 1)`` is not (control:
m = 1, the language of every word, gives no contradiction).
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_max, z3_min, z3_with_control


class _Floor:
    """A z3 integer term with Python's ``//`` (z3's integer division, which is floor division for the positive
    divisors :func:`constructions.crasp.unary.rising_from` and ``falling_from`` use), unary minus and ``+``: so
    the proof evaluates the code's thresholds on symbols instead of restating them."""

    def __init__(self, e):
        self.e = e

    @staticmethod
    def _z(x):
        return x.e if isinstance(x, _Floor) else x

    def __floordiv__(self, other):
        return _Floor(self.e / self._z(other))

    def __neg__(self):
        return _Floor(-self.e)

    def __add__(self, other):
        return _Floor(self.e + self._z(other))

    __radd__ = __add__


def code_threshold(name: str, d, k):
    """The code's threshold ``constructions.crasp.unary.<name>(d, k)`` on z3 integer terms."""
    from constructions.crasp import unary

    return getattr(unary, name)(_Floor(d), _Floor(k)).e

CLAIM37 = "huang2024:lem37"
CLAIM38 = "huang2024:lem38"

#: the Definition 8 operation (class name in constructions.crasp.ast) each step of Lemma 37 handles
CASES = ("Initial", "BoolConst", "Not", "And", "CountConst", "Add", "Sub", "Conditional", "Count", "Count",
         "Count", "Count", "Comparison", "Comparison", "Comparison")


def _step(name, hyps, goal, **control):
    return z3_with_control(CLAIM37, name, hyps, goal, **control)


def lemma37() -> Proof:
    i, T, T1, T2, Tc = z3.Ints("i T T1 T2 Tc")
    a1, b1, a2, b2, c, v1, v2, w = z3.Ints("a1 b1 a2 b2 c v1 v2 w")
    B1, B2, beta1, beta2, sym_is_a = z3.Bools("B1 B2 beta1 beta2 sym_is_a")
    ev1 = z3.Implies(i >= T1, B1 == beta1)  # operand 1 (Boolean) eventually constant
    ev2 = z3.Implies(i >= T2, B2 == beta2)
    aff1 = z3.Implies(i >= T1, v1 == a1 * i + b1)  # operand 1 (Count) eventually affine
    aff2 = z3.Implies(i >= T2, v2 == a2 * i + b2)
    pos = [T1 >= 1, T2 >= 1, i >= 1]
    Tm = z3_max(T1, T2)

    # Counting #[j <= i] P(j): C(i) = C(i - 1) + [P(i)], with P(j) = beta for j >= T.
    Cprev, Ci, p = z3.Ints("C_prev C_i P_i")
    beta = z3.Bool("beta")
    pv = z3.If(beta, 1, 0)
    cnt = [T >= 1, i >= T, z3.Implies(i >= T, (p == 1) == beta), z3.Or(p == 0, p == 1), Ci == Cprev + p]
    CT1 = z3.Int("C_T_minus_1")
    base_b = CT1 - pv * (T - 1)  # b of the affine form: C(T - 1) - beta (T - 1)
    # local psi: offsets s_1..s_k in [0, tau]; partial sum of [P(i - s)] over the offsets seen so far
    tau, s, k, part = z3.Ints("tau s k partial")
    loc = [T >= 1, tau >= 0, s >= 0, s <= tau, i >= T + tau, k >= 0, part == pv * k,
           z3.Implies(i - s >= T, (p == 1) == beta), z3.Or(p == 0, p == 1)]

    # Comparison a1 i + b1 <= a2 i + b2 from max(T1, T2) and a threshold of the slopes
    cmp = pos + [aff1, aff2]
    le = v1 <= v2
    d, kk = a2 - a1, b2 - b1      # v1 <= v2 iff d i + kk >= 0 from max(T1, T2)
    rise, fall = code_threshold("rising_from", d, kk), code_threshold("falling_from", d, kk)
    return Proof(CLAIM37, "Lemma 37: every C-RASP operation is eventually constant / affine on a^n", (
        _step("Initial: Q_s(i) on a^n is [s = a] at every position (T = 1)", [i >= 1, B1 == sym_is_a],
              z3.Implies(i >= 1, B1 == sym_is_a), neg_goal=z3.Implies(i >= 1, B1 == z3.Not(sym_is_a))),
        _step("Constant: P(i) := beta for every i (T = 1)", [i >= 1, B1 == beta1], B1 == beta1,
              neg_goal=B1 == z3.Not(beta1)),
        _step("Not: eventually not beta from the operand's T", pos + [ev1], z3.Implies(i >= T1, z3.Not(B1) == z3.Not(beta1)),
              neg_goal=z3.Implies(i >= T1, z3.Not(B1) == beta1)),
        _step("And: eventually beta1 and beta2 from max(T1, T2)", pos + [ev1, ev2],
              z3.Implies(i >= Tm, z3.And(B1, B2) == z3.And(beta1, beta2)),
              neg_goal=z3.Implies(i >= z3_min(T1, T2), z3.And(B1, B2) == z3.And(beta1, beta2))),
        _step("Constant count: c = 0 i + c (T = 1)", [i >= 1, v1 == c], v1 == 0 * i + c, neg_goal=v1 == i + c),
        _step("Addition: (a1 + a2) i + (b1 + b2) from max(T1, T2)", pos + [aff1, aff2],
              z3.Implies(i >= Tm, v1 + v2 == (a1 + a2) * i + b1 + b2),
              neg_goal=z3.Implies(i >= Tm, v1 + v2 == (a1 - a2) * i + b1 + b2)),
        _step("Subtraction: (a1 - a2) i + (b1 - b2) from max(T1, T2)", pos + [aff1, aff2],
              z3.Implies(i >= Tm, v1 - v2 == (a1 - a2) * i + b1 - b2),
              neg_goal=z3.Implies(i >= T1, v1 - v2 == (a1 - a2) * i + b1 - b2)),
        _step("Conditional: the branch beta picks, from max(T_cond, T1, T2)",
              pos + [Tc >= 1, z3.Implies(i >= Tc, B1 == beta1), aff1, aff2, w == z3.If(B1, v1, v2)],
              z3.Implies(i >= z3_max(Tc, Tm), w == z3.If(beta1, a1 * i + b1, a2 * i + b2)),
              neg_goal=z3.Implies(i >= Tm, w == z3.If(beta1, a1 * i + b1, a2 * i + b2))),
        _step("Counting (base i = T): C(T) = C(T - 1) + [beta] = beta T + (C(T - 1) - beta (T - 1))",
              [T >= 1, i == T, z3.Or(p == 0, p == 1), (p == 1) == beta, Cprev == CT1, Ci == Cprev + p],
              Ci == pv * i + (CT1 - pv * (T - 1)),
              neg_goal=Ci == pv * i + CT1),
        _step("Counting (step i - 1 -> i, i > T): C(i - 1) = beta (i - 1) + b gives C(i) = beta i + b",
              cnt + [i > T, Cprev == pv * (i - 1) + base_b],
              Ci == pv * i + base_b,
              neg_hypotheses=[h for h in cnt if not z3.eq(h, cnt[2])] + [i > T,
                              Cprev == pv * (i - 1) + base_b]),
        _step("Counting with a local psi (offsets in [0, tau], induction over them): from T + tau every counted "
              "position is >= T, so the count is beta |psi| (eventually constant)", loc,
              part + p == pv * (k + 1), neg_hypotheses=[h for h in loc if not z3.eq(h, loc[4])] + [i >= T]),
        _step("Counting with a local psi (base: no offset counted yet)", [k == 0, part == 0], part == pv * k,
              neg_goal=part == pv * (k + 1)),
        _step("Comparison, a1 < a2: true from max(T1, T2, R), R = the code's rising_from(a2 - a1, b2 - b1), and "
              "false at R - 1 (R is the least such position)",
              cmp + [a1 < a2, i >= z3_max(Tm, rise)], z3.And(le, d * (rise - 1) + kk < 0),
              neg_hypotheses=cmp + [a1 < a2, i >= Tm]),
        _step("Comparison, a1 > a2: false from max(T1, T2, F), F = the code's falling_from(a2 - a1, b2 - b1), and "
              "true at F - 1 (F is the least such position)",
              cmp + [a1 > a2, i >= z3_max(Tm, fall)], z3.And(z3.Not(le), d * (fall - 1) + kk >= 0),
              neg_hypotheses=cmp + [a1 > a2, i >= Tm]),
        _step("Comparison, a1 = a2: the constant [b1 <= b2] from max(T1, T2)",
              cmp + [a1 == a2, i >= Tm], le == (b1 <= b2), neg_goal=le == (b1 < b2)),
    ))


def positional_control() -> Proof:
    """The step Positional would need fails: ``[i = 0 mod 2]`` takes both values beyond every threshold."""
    T = z3.Int("T")
    beta = z3.Bool("beta")
    even = lambda n: n % 2 == 0  # noqa: E731
    hyps = [T >= 1]
    return Proof(CLAIM37, "Lemma 37 does not extend to Positional relations", (
        z3_with_control(CLAIM37, "Positional [i = 0 mod 2]: the positions 2T and 2T + 1 (both >= T) differ, so no "
                        "(T, beta) holds it constant", hyps,
                        z3.Not(z3.And(even(2 * T) == beta, even(2 * T + 1) == beta)),
                        neg_goal=z3.Not(z3.And(even(2 * T) == beta, even(2 * T + 2) == beta))),
    ))


def lemma38() -> Proof:
    m, T = z3.Ints("m T")
    beta = z3.Bool("beta")
    member = lambda n: n % m == 0  # noqa: E731
    both = z3.And(member(m * T) == beta, member(m * T + 1) == beta)  # Lemma 37's answer beta at n = mT, mT + 1
    return Proof(CLAIM38, "Lemma 38: {a^n : n = 0 mod m} (m >= 2) is not in C-RASP", (
        z3_with_control(CLAIM38, "no answer beta from T on (Lemma 37) fits both a^(mT) (in the language) and "
                        "a^(mT + 1) (out of it), m >= 2", [m >= 2, T >= 1], z3.Not(both),
                        neg_hypotheses=[m >= 1, T >= 1]),
        z3_with_control(CLAIM38, "both witnesses lie beyond the threshold: mT >= T and mT + 1 >= T", [m >= 2, T >= 1],
                        z3.And(m * T >= T, m * T + 1 >= T), neg_goal=m * T >= 2 * T + 1),
    ))


def mod_star_reading(k: int):
    """The program ``C_b := #[j <= i] Q_b(j); L := C_b <= 0 and (i mod k) in {0}`` as a C-RASP AST (the test checks
    that constructions.crasp.programs.mod_star(k) builds exactly this program)."""
    from constructions.crasp.ast import Q, count, leq, phi, program

    cb = count(Q("b"))
    return program("ab", [("C_b", cb), ("L", leq(cb, 0) & phi(k, {0}))])


def mod_star_program(k: int = 2) -> Proof:
    """Lemma 11 (2), positive half: the program of :func:`mod_star_reading` accepts a nonempty word w over {a, b}
    iff w is in (a^k)*: at the last position n = |w| the count C_b is the number of b's, and ``(n mod k) in {0}``; the
    control reads the residue 1 instead of 0 (k >= 2)."""
    n, nb = z3.Ints("n n_b")
    hyps = [n >= 1, nb >= 0, nb <= n]
    member = z3.And(nb == 0, n % k == 0)
    step = z3_with_control("huang2024:lem11.aa-star", f"(a^{k})* is in C-RASP[periodic]: (C_b(n) <= 0 and n mod {k} "
                           "= 0) iff no b and |w| = 0 mod k, for every length n >= 1 and number of b's",
                           hyps, z3.And(nb <= 0, n % k == 0) == member,
                           neg_goal=z3.And(nb <= 0, n % k == 1) == member)
    return Proof("huang2024:lem11.aa-star", f"(a^{k})* has a C-RASP[periodic] program", (step,))
