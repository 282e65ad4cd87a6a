"""Hypothesis strategies: random well-typed C-RASP programs and words."""

from __future__ import annotations

from hypothesis import strategies as st

from constructions.crasp.ast import (
    Add,
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
    Program,
    Sub,
)

BOOL_OPS = ("not", "and", "cmp", "leaf")
COUNT_OPS = ("count", "cond", "add", "sub", "const")


@st.composite
def programs(draw, alphabet: str = "ab", max_defs: int = 8, periodic: bool = True, local: bool = True,
             max_const: int = 3, big_consts: bool = False) -> Program:
    """A random well-typed program; every operation kind of Definition 8 can occur."""
    bools: list = []
    counts: list = []

    def leaf_bool():
        kinds = ["q", "q", "const"] + (["pos"] if periodic else [])
        k = draw(st.sampled_from(kinds))
        if k == "q":
            return Initial(draw(st.sampled_from(alphabet)))
        if k == "const":
            return BoolConst(draw(st.booleans()))
        period = draw(st.integers(1, 4))
        res = draw(st.frozensets(st.integers(0, period - 1), max_size=period))
        return Positional(PeriodicRelation(period, res))

    def pick_bool():
        if bools and draw(st.booleans()):
            return draw(st.sampled_from(bools))
        return leaf_bool()

    def pick_count():
        if counts and draw(st.integers(0, 2)) > 0:
            return draw(st.sampled_from(counts))
        if draw(st.booleans()):
            return count_op()
        hi = 2**70 if big_consts else max_const
        return CountConst(draw(st.integers(-hi, hi)))

    def count_op():
        psi = None
        if local and draw(st.integers(0, 2)) == 0:
            psi = LocalRelation(draw(st.frozensets(st.integers(0, 3), min_size=1, max_size=3)))
        return Count(pick_bool(), psi)

    defs = []
    n = draw(st.integers(1, max_defs))
    for k in range(n):
        sort = draw(st.sampled_from(["bool", "count"]))
        if sort == "bool":
            op = draw(st.sampled_from(BOOL_OPS))
            if op == "not":
                node = Not(pick_bool())
            elif op == "and":
                node = And(pick_bool(), pick_bool())
            elif op == "cmp":
                node = Comparison(pick_count(), pick_count())
            else:
                node = leaf_bool()
            bools.append(node)
        else:
            op = draw(st.sampled_from(COUNT_OPS))
            if op == "count":
                node = count_op()
            elif op == "cond":
                node = Conditional(pick_bool(), pick_count(), pick_count())
            elif op == "add":
                node = Add(pick_count(), pick_count())
            elif op == "sub":
                node = Sub(pick_count(), pick_count())
            else:
                node = CountConst(draw(st.integers(-max_const, max_const)))
            counts.append(node)
        defs.append((f"D{k}", node))
    if defs[-1][1].sort != "bool":
        defs.append(("Out", Comparison(pick_count(), pick_count())))
    return Program(tuple(alphabet), tuple(defs))


def words(alphabet: str, min_size: int = 1, max_size: int = 12):
    return st.text(alphabet=st.sampled_from(alphabet), min_size=min_size, max_size=max_size)
