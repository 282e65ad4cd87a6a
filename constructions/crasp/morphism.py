"""Lemma 42 as a program transformation: inverse images of length-uniform morphisms.

Huang et al. Lemma 42 (reference section 3.8): C-RASP[periodic, local] is closed under inverse images
of length-uniform morphisms ``h: Sigma -> Gamma^k``.  :func:`inverse_image` builds, from a program ``P``
over ``Gamma``, a program ``P'`` over ``Sigma`` with ``P'`` accepts ``w`` iff ``P`` accepts ``h(w)``.

Position ``p = (i - 1) k + r`` of ``h(w)`` (block ``i``, offset ``r in 1..k``) is simulated at position
``i`` of ``w``: every operation ``X`` of ``P`` becomes ``k`` operations ``X_r`` with ``X_r(i) = X((i-1)k+r)``.

* ``Q_g``: ``OR`` of ``Q_s`` over the ``s`` with ``h(s)[r] = g``.
* ``phi`` of period ``D``: ``i -> phi((i-1)k + r)`` is periodic in ``i`` with period ``D``.
* ``#[j <= p] P(j) = sum_{r'} #[j <= i] P_{r'}(j) - sum_{r' > r} [P_{r'}(i)]`` where ``[B] = B ? 1 : 0``
  (a Conditional; no positional relation is introduced).
* ``#[j <= p, p - j in C] P(j) = sum_{c in C} P(p - c)``; ``p - c`` lies in block ``i + q`` at offset
  ``r''`` (``q <= 0``); the block offset ``-q`` is a local relation of the new program (or the current
  block when ``q = 0``).

The transformation keeps plain C-RASP plain (no relation is introduced for non-local counts), and maps
period ``D`` to period ``D`` and locality ``tau`` to at most ``ceil(tau / k)``.
"""

from __future__ import annotations

from constructions.crasp.ast import (
    FALSE,
    OR,
    Add,
    And,
    BoolConst,
    Comparison,
    Conditional,
    Count,
    CountConst,
    Initial,
    LocalRelation,
    Node,
    Not,
    PeriodicRelation,
    Positional,
    Program,
    Sub,
)
from constructions.crasp.errors import CraspError

__all__ = ["inverse_image", "apply_morphism"]


def apply_morphism(h: dict[str, str], w: str) -> str:
    return "".join(h[c] for c in w)


def _indicator(p: Node) -> Node:
    return Conditional(p, CountConst(1), CountConst(0))


def _sum(terms: list[Node]) -> Node:
    if not terms:
        return CountConst(0)
    out = terms[0]
    for t in terms[1:]:
        out = Add(out, t)
    return out


def inverse_image(prog: Program, h: dict[str, str]) -> Program:
    """The program over ``sorted(h)`` (in insertion order) accepting ``w`` iff ``prog`` accepts ``h(w)``."""
    sigma = tuple(h)
    if not sigma:
        raise CraspError("inverse_image: empty morphism")
    ks = {len(v) for v in h.values()}
    if len(ks) != 1 or 0 in ks:
        raise CraspError(f"inverse_image: h must be length-uniform with k >= 1, got image lengths {sorted(ks)}")
    (k,) = ks
    for s, img in h.items():
        bad = [g for g in img if g not in prog.alphabet]
        if bad:
            raise CraspError(f"inverse_image: h({s!r}) = {img!r} uses {bad[0]!r} outside the alphabet of the program")
    table: dict[tuple[Node, int], Node] = {}

    def get(x: Node, r: int) -> Node:
        return table[x, r]

    for op in prog.operations(all_defs=True):
        for r in range(1, k + 1):
            if isinstance(op, Initial):
                node = OR(*(Initial(s) for s in sigma if h[s][r - 1] == op.symbol)) if any(
                    h[s][r - 1] == op.symbol for s in sigma) else FALSE
            elif isinstance(op, (BoolConst, CountConst)):
                node = op
            elif isinstance(op, Positional):
                D, R = op.phi.period, op.phi.residues
                res = frozenset(i % D for i in range(1, D + 1) if ((i - 1) * k + r) % D in R)
                node = Positional(PeriodicRelation(D, res))
            elif isinstance(op, Not):
                node = Not(get(op.arg, r))
            elif isinstance(op, (And, Comparison, Add, Sub)):
                node = type(op)(get(op.left, r), get(op.right, r))
            elif isinstance(op, Conditional):
                node = Conditional(get(op.cond, r), get(op.then, r), get(op.orelse, r))
            elif isinstance(op, Count):
                if op.psi is None:
                    total = _sum([Count(get(op.arg, rr)) for rr in range(1, k + 1)])
                    later = [_indicator(get(op.arg, rr)) for rr in range(r + 1, k + 1)]
                    node = Sub(total, _sum(later)) if later else total
                else:
                    terms = []
                    for c in sorted(op.psi.offsets):
                        q, r2 = divmod(r - c - 1, k)  # r - c = q k + (r2 + 1), r2 in 0..k-1
                        src = get(op.arg, r2 + 1)
                        terms.append(_indicator(src) if q == 0 else Count(src, LocalRelation(frozenset({-q}))))
                    node = _sum(terms)
            else:  # pragma: no cover
                raise CraspError(f"inverse_image: unknown node {type(op).__name__}")
            table[op, r] = node
    defs = []
    for name, d in prog.defs:
        for r in range(1, k + 1):
            defs.append((f"{name}_{r}", get(d, r)))
    defs.append(("Accept", get(prog.output, k)))
    return Program(sigma, tuple(defs), (prog.name + "_inv") if prog.name else "", f"inverse image of {prog.name} under {h}")
