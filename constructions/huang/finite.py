"""Finite APE transformers: the members of Huang et al.'s hypothesis class Theta_n (Definitions 4 / 46).

A transformer ``T`` of section 2 of the paper (eqs. (1)-(4)) with context width ``N(T) = n``: learned absolute
positional encodings ``p_1 .. p_n``, no phi term, every parameter a p-bit dyadic rational.  Definition 4 adds
that every *product function* involving positional encodings is translation-invariant; that condition is
checked by :func:`constructions.huang.products.check_translation_invariance` (membership in Theta_n is the
conjunction of the structural checks here and that one, :func:`constructions.huang.products.require_theta`).

Semantics coincide with the Limit Transformer's when phi is absent, so a :class:`FiniteTransformer` *is* a
:class:`~constructions.limit_transformer.LimitTransformer` whose positional encodings are the explicit
table ``p_1 .. p_n`` (an :class:`~constructions.limit_transformer.ArbitraryPositions` that refuses positions
beyond ``n``), and it is evaluated by the package's one exact evaluator
(:func:`constructions.limit_transformer.exact_forward`); nothing here re-implements eqs. (1)-(4).
An input ``x`` (``$`` included) at offset ``o`` is admissible iff ``o >= 0`` and ``|x| + o <= n`` (section 1.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from constructions.huang.errors import ContextError, NotInThetaError
from constructions.limit_transformer import ArbitraryPositions, LimitTransformer, exact_forward
from constructions.limit_transformer.rationals import frac_array


def fractional_bits(x: Fraction) -> int:
    """Number of fractional bits of a dyadic rational; raises :class:`NotInThetaError` if not dyadic."""
    den = x.denominator
    if den & (den - 1):
        raise NotInThetaError(f"parameter {x} is not a dyadic rational, so it has no finite bit precision")
    return den.bit_length() - 1


def parameter_arrays(model: LimitTransformer, table: np.ndarray | None = None):
    """Every parameter array of ``model`` (name, exact array), positional table included when given."""
    out = [("E", model.embedding), ("U", model.unembedding)]
    if table is not None:
        out.append(("P", table))
    for l, layer in enumerate(model.layers, 1):
        for h, head in enumerate(layer.heads, 1):
            out += [(f"K{l},{h}", head.key), (f"Q{l},{h}", head.query), (f"V{l},{h}", head.value)]
        if layer.mlp is not None:
            out += [(f"A{l}", layer.mlp.A), (f"b{l}", layer.mlp.b), (f"B{l}", layer.mlp.B)]
    return out


@dataclass(frozen=True, eq=False)
class FiniteTransformer:
    """A transformer with APE over ``n`` positions (Definition 4 item 1) wrapping its Limit-Transformer view."""

    model: LimitTransformer
    table: np.ndarray  # n x d exact positional encodings p_1 .. p_n

    @property
    def n(self) -> int:
        return self.table.shape[0]

    @property
    def d(self) -> int:
        return self.model.d

    @property
    def parameter_bits(self) -> int:
        """Largest number of fractional bits over all parameters (Definition 4 item 2)."""
        return max((fractional_bits(v) for _, arr in parameter_arrays(self.model, self.table) for v in arr.flat),
                   default=0)

    def forward(self, string, *, offset: int = 0, positions: str = "all") -> np.ndarray:
        """Exact outputs ``T(x, o)`` (Fractions) for one string, via the package's exact evaluator."""
        length = len(string) + 1
        if offset < 0 or length + offset > self.n:
            raise ContextError(f"input of length |x| = {length} at offset {offset} does not fit N(T) = {self.n}")
        return exact_forward(self.model, string, offset=offset, positions=positions)


def finite_transformer(model_parts: dict, table, *, name: str = "") -> FiniteTransformer:
    """Build a member candidate of Theta_n from Limit-Transformer parts and an explicit table p_1 .. p_n.

    ``model_parts`` holds the :class:`LimitTransformer` fields except ``positions`` (alphabet, embedding,
    layers, unembedding, precision_bits, precision, metadata).  Heads must not carry phi (finite transformers
    have no phi term) and every parameter must be dyadic with at most ``precision_bits`` fractional bits.
    """
    arr = frac_array(table, 2, "positional table")
    n, d = arr.shape
    if n < 1:
        raise NotInThetaError("a finite transformer needs at least one position (N(T) >= 1)")

    def p(i: int):
        if not 1 <= i <= n:
            raise ContextError(f"position {i} is outside the context window 1..{n}")
        return arr[i - 1]

    model = LimitTransformer(positions=ArbitraryPositions(p, d), name=name, **model_parts)
    for l, layer in enumerate(model.layers, 1):
        for h, head in enumerate(layer.heads, 1):
            if head.phi is not None:
                raise NotInThetaError(f"layer {l} head {h} has a phi term; members of Theta_n have none (eq. (2))")
    T = FiniteTransformer(model, arr)
    if T.parameter_bits > model.precision_bits:
        raise NotInThetaError(f"a parameter needs {T.parameter_bits} fractional bits > p = {model.precision_bits}")
    return T
