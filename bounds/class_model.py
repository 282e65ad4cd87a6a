"""A one-layer model on (token, residue) classes: the exact per-class inputs, logits and values every class-level
argument uses (Izzo et al. App. A.1, "Including positional embedding vectors": each (token, position mod Delta) is a
token; ``$`` is token 0 at residue 0).  Light on purpose (numpy only), so that the estimate can read moduli and
signatures without the evaluators.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from constructions.limit_transformer.model import LimitTransformer


@dataclass(frozen=True)
class ClassModel:
    """Exact per-class quantities of a one-layer model on classes (token id, residue mod Delta), per head."""

    model: LimitTransformer
    delta: int  # the pair's period (a multiple of the model's)
    inputs: np.ndarray  # [class] -> y_c
    heads: tuple  # per head: (logits [query class, key class], values [key class] -> V y_c, phi values)

    @classmethod
    def of(cls, model: LimitTransformer, delta: int) -> ClassModel:
        V = len(model.alphabet) + 1
        rows = []
        for t in range(V):
            for r in range(delta):
                v = model.embedding[t].copy()
                if model.positions is not None:
                    v = v + model.positions.table[r % model.period]
                rows.append(v)
        x = np.array(rows, dtype=object)
        heads = []
        for head in model.layers[0].heads:
            keys, queries = x.dot(head.key.T), x.dot(head.query.T)
            phi = head.phi.values if head.phi is not None else (Fraction(0),)
            heads.append((queries.dot(keys.T), x.dot(head.value.T), tuple(phi)))
        return cls(model, delta, x, tuple(heads))
