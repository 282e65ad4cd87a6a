"""Slow per-position reference interpreter, written directly from the table of Definition 8.

It shares nothing with :mod:`constructions.crasp.interpreter` except the AST: each operation is a
function of the 1-based position ``i``, Counting literally sums over ``j = 1..i``, and all arithmetic
is on Python integers.  It exists to test the vectorized interpreter (reference section 3.10).
"""

from __future__ import annotations

from constructions.crasp.ast import (
    Add,
    And,
    BoolConst,
    Comparison,
    Conditional,
    Count,
    CountConst,
    Initial,
    Node,
    Not,
    Positional,
    Program,
    Sub,
)
from constructions.crasp.errors import CraspError, InputError


def value(node: Node, w: str, i: int, memo: dict | None = None):
    """The value of ``node`` at position ``i`` (1 <= i <= len(w)) of ``w``."""
    if memo is None:
        memo = {}
    key = (node, i)
    if key in memo:
        return memo[key]
    if isinstance(node, Initial):
        r = w[i - 1] == node.symbol
    elif isinstance(node, Not):
        r = not value(node.arg, w, i, memo)
    elif isinstance(node, And):
        r = value(node.left, w, i, memo) and value(node.right, w, i, memo)
    elif isinstance(node, BoolConst):
        r = node.value
    elif isinstance(node, Positional):
        r = node.phi(i)
    elif isinstance(node, Comparison):
        r = value(node.left, w, i, memo) <= value(node.right, w, i, memo)
    elif isinstance(node, Count):
        r = sum(1 for j in range(1, i + 1) if (node.psi is None or node.psi(i, j)) and value(node.arg, w, j, memo))
    elif isinstance(node, Conditional):
        r = value(node.then, w, i, memo) if value(node.cond, w, i, memo) else value(node.orelse, w, i, memo)
    elif isinstance(node, Add):
        r = value(node.left, w, i, memo) + value(node.right, w, i, memo)
    elif isinstance(node, Sub):
        r = value(node.left, w, i, memo) - value(node.right, w, i, memo)
    elif isinstance(node, CountConst):
        r = node.value
    else:  # pragma: no cover
        raise CraspError(f"reference: unknown node {type(node).__name__}")
    memo[key] = r
    return r


def accepts(prog: Program, w: str) -> bool:
    """Does ``prog`` accept the nonempty word ``w``?"""
    if not w:
        raise InputError("the empty word is outside Definition 8")
    bad = [c for c in w if c not in prog.alphabet]
    if bad:
        raise InputError(f"symbol {bad[0]!r} is not in the alphabet")
    memo: dict = {}
    # evaluate bottom-up in position order to keep recursion shallow
    for op in prog.operations():
        for i in range(1, len(w) + 1):
            value(op, w, i, memo)
    return bool(value(prog.output, w, len(w), memo))


def values(prog: Program, w: str) -> dict[str, list]:
    """Per-position values of every definition."""
    memo: dict = {}
    for op in prog.operations(all_defs=True):
        for i in range(1, len(w) + 1):
            value(op, w, i, memo)
    return {n: [value(d, w, i, memo) for i in range(1, len(w) + 1)] for n, d in prog.defs}
