"""The typed AST of Definition 8: sorts, relations, sugar, program validation."""

import pytest

from constructions.crasp import (
    AND,
    OR,
    CraspTypeError,
    NotLocalError,
    NotPeriodicError,
    ProgramError,
    Q,
    count,
    eq,
    exists,
    ite,
    phi,
    prev,
    program,
)
from constructions.crasp.ast import (
    And,
    BoolConst,
    Comparison,
    Conditional,
    Count,
    CountConst,
    Initial,
    LocalRelation,
    Not,
    PeriodicRelation,
    Positional,
    Sub,
)
from constructions.crasp.interpreter import accepts
from verify.claims import checks


@checks("huang2024:def8")
def test_sort_errors_name_the_operation():
    c = count(Q("a"))
    with pytest.raises(CraspTypeError, match="^And: expected a Boolean"):
        And(c, Q("a"))
    with pytest.raises(CraspTypeError, match="^Not:"):
        Not(c)
    with pytest.raises(CraspTypeError, match="^Comparison: expected a Count"):
        Comparison(Q("a"), c)
    with pytest.raises(CraspTypeError, match="^Counting: expected a Boolean"):
        Count(c)
    with pytest.raises(CraspTypeError, match="^Conditional: expected a Boolean"):
        Conditional(c, c, c)
    with pytest.raises(CraspTypeError, match="^Conditional: expected a Count"):
        Conditional(Q("a"), Q("a"), c)
    with pytest.raises(CraspTypeError, match="^Addition"):
        c + Q("a")
    with pytest.raises(CraspTypeError, match="^Subtraction"):
        Sub(c, Q("b"))
    with pytest.raises(CraspTypeError, match="^Constant count"):
        CountConst(1.5)
    with pytest.raises(CraspTypeError, match="^Initial"):
        Initial("ab")
    with pytest.raises(CraspTypeError, match="no Python truth value"):
        bool(Q("a") & Q("b"))
    with pytest.raises(CraspTypeError):
        Q("a") and Q("b")  # noqa: B018


@checks("huang2024:def8")
def test_non_periodic_phi_and_non_local_psi_rejected():
    with pytest.raises(NotPeriodicError, match="^Positional"):
        Positional(lambda i: i == 1)
    with pytest.raises(NotPeriodicError, match=r"phi\(4\) != phi\(6\)"):
        PeriodicRelation.from_function(lambda i: i < 6, 2)
    with pytest.raises(NotPeriodicError, match="residue 3"):
        PeriodicRelation(3, frozenset({3}))
    with pytest.raises(NotLocalError, match="^Counting"):
        Count(Q("a"), lambda i, j: True)
    with pytest.raises(NotLocalError, match="not 2-local"):
        LocalRelation.from_function(lambda i, j: True, 2)
    with pytest.raises(NotLocalError, match="translation-invariant"):
        LocalRelation.from_function(lambda i, j: j == 1, 5)
    with pytest.raises(NotLocalError, match="negative"):
        LocalRelation(frozenset({-1}))
    # positive controls: the same constructors accept periodic / local relations
    assert PeriodicRelation.from_function(lambda i: i % 3 == 1, 3) == PeriodicRelation(3, frozenset({1}))
    assert LocalRelation.from_function(lambda i, j: i - j in (1, 2), 2) == LocalRelation(frozenset({1, 2}))


def test_structural_equality_and_hash():
    a = count(Q("a")) <= count(Q("b")) + 1
    b = count(Q("a")) <= count(Q("b")) + 1
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != (count(Q("a")) <= count(Q("b")) + 2)
    assert phi(2, {0}) == phi(2, [0])
    with pytest.raises(AttributeError):
        a.left = CountConst(0)


def test_sugar_semantics():
    ca, cb = count(Q("a")), count(Q("b"))
    p = program("ab", [("L", AND(OR(Q("a"), Q("b")), eq(ca, cb), exists(Q("a")), ~prev(Q("a"))))])
    got = accepts(p, ["ab", "ba", "aabb", "abab", "a"]).tolist()
    assert got == [False, True, True, False, False]
    p2 = program("ab", [("L", ite(Q("a"), ca, 0 - cb) <= -1)])
    assert accepts(p2, ["ab", "ba"]).tolist() == [True, False]


def test_program_validation():
    with pytest.raises(ProgramError, match="must be Boolean"):
        program("ab", [("C", count(Q("a")))])
    with pytest.raises(ProgramError, match="outside the alphabet"):
        program("ab", [("L", Q("c"))])
    with pytest.raises(ProgramError, match="defined twice"):
        program("ab", [("L", Q("a")), ("L", Q("b"))])
    with pytest.raises(ProgramError, match="reserved"):
        program("ab", [("phi", Q("a"))])
    with pytest.raises(ProgramError, match="Q_"):
        program("ab", [("Q_x", Q("a"))])
    with pytest.raises(ProgramError, match="repeats"):
        program("aa", [("L", Q("a"))])
    with pytest.raises(ProgramError, match="no definitions"):
        program("ab", [])


def test_operations_order_fragment_period_locality():
    p = program("ab", [("X", prev(Q("a"), 3) & phi(4, {1}) & phi(6, {0})), ("L", BoolConst(True) & Q("b"))])
    ops = p.operations(all_defs=True)
    for k, op in enumerate(ops):
        assert all(ops.index(c) < k for c in op.children())
    assert len(ops) == len(set(ops))
    assert p.fragment == "C-RASP[periodic,local]" and p.period == 12 and p.locality == 3
    assert p.operations() == [BoolConst(True), Q("b"), BoolConst(True) & Q("b")]
