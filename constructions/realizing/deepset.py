"""Deep sets ``y_t = rho(sum_{j <= t} phi(x_j))`` (Ahuja & Mansouri, sec. 4.1).

Parameters: ``phi`` and ``rho`` are :class:`~constructions.realizing.mlp.MLP` (exact rationals).
"""

from __future__ import annotations

from dataclasses import dataclass

from constructions.realizing.exact import vadd
from constructions.realizing.mlp import MLP
from constructions.realizing.sequence import SequenceModel


@dataclass(frozen=True)
class DeepSet(SequenceModel):
    """``y_t = rho(sum_{j <= t} phi(x_j))`` (sec. 4.1)."""

    phi: MLP
    rho: MLP
    name: str = "deep set"

    def initial(self):
        return None

    def advance(self, acc, x):
        e = self.phi(x)
        acc = e if acc is None else vadd(acc, e)
        return acc, self.rho(acc)
