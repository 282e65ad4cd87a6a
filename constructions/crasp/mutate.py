"""Program mutants: small wrong edits, used as negative controls for the oracle comparison.

Each mutant changes one operation (everywhere it is shared): a comparison off by one, another symbol in
an Initial, a constant +1, a dropped conjunct, a dropped negation, a Counting restricted to the current
position, a shifted periodic residue set.  A check that cannot tell most mutants from the program is not
a check.
"""

from __future__ import annotations

from collections.abc import Iterator

from constructions.crasp.ast import (
    Add,
    And,
    Comparison,
    Count,
    CountConst,
    Initial,
    LocalRelation,
    Node,
    Not,
    PeriodicRelation,
    Positional,
    Program,
)

__all__ = ["mutants", "substitute"]


def substitute(prog: Program, old: Node, new: Node) -> Program:
    """``prog`` with every occurrence of ``old`` replaced by ``new`` (sorts must agree)."""
    memo: dict[Node, Node] = {old: new}

    def rw(node: Node) -> Node:
        if node not in memo:
            vals = node.field_values()
            if any(isinstance(v, Node) for v in vals):
                memo[node] = type(node)(*(rw(v) if isinstance(v, Node) else v for v in vals))
            else:
                memo[node] = node
        return memo[node]

    return Program(prog.alphabet, tuple((n, rw(d)) for n, d in prog.defs), prog.name + "~mutant", prog.description)


def _edits(node: Node, alphabet: tuple[str, ...]) -> Iterator[tuple[str, Node]]:
    if isinstance(node, Comparison):
        yield "comparison off by one", Comparison(node.left, Add(node.right, CountConst(1)))
    elif isinstance(node, Initial):
        for a in alphabet:
            if a != node.symbol:
                yield f"Q_{node.symbol} -> Q_{a}", Initial(a)
                break
    elif isinstance(node, CountConst):
        yield "constant + 1", CountConst(node.value + 1)
    elif isinstance(node, And):
        yield "drop right conjunct", node.left
    elif isinstance(node, Not):
        yield "drop negation", node.arg
    elif isinstance(node, Count):
        if node.psi is None:
            yield "count only the current position", Count(node.arg, LocalRelation(frozenset({0})))
        else:
            yield "shift local offsets", Count(node.arg, LocalRelation(frozenset(c + 1 for c in node.psi.offsets)))
    elif isinstance(node, Positional):
        p = node.phi
        yield "shift residues", Positional(PeriodicRelation(p.period, frozenset((r + 1) % p.period for r in p.residues)))


def mutants(prog: Program) -> Iterator[tuple[str, Program]]:
    """Every single-operation mutant of ``prog`` (operations reachable from the output)."""
    for op in prog.operations():
        for desc, new in _edits(op, prog.alphabet):
            if new != op:
                yield desc, substitute(prog, op, new)
