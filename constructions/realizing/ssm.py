"""Linear state-space models ``h_t = Lambda h_{t-1} + B x_t``, ``y_t = rho(h_t)`` (Ahuja & Mansouri, sec. 4.3).

Parameters: ``Lam`` (state x state), ``B`` (state x input) rational matrices; ``rho`` an
:class:`~constructions.realizing.mlp.MLP`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from constructions.realizing.exact import matvec, to_matrix, vadd
from constructions.realizing.mlp import MLP
from constructions.realizing.sequence import SequenceModel


@dataclass(frozen=True)
class LinearSSM(SequenceModel):
    """``h_t = Lambda h_{t-1} + B x_t``, ``h_0 = 0``, ``y_t = rho(h_t)`` (sec. 4.3, eq. before Thm 8)."""

    Lam: tuple
    B: tuple
    rho: MLP
    name: str = "ssm"

    def __post_init__(self):
        object.__setattr__(self, "Lam", to_matrix(self.Lam))
        object.__setattr__(self, "B", to_matrix(self.B))

    def initial(self):
        return (Fraction(0),) * len(self.Lam)

    def advance(self, h, x):
        h = vadd(matvec(self.Lam, h), matvec(self.B, x))
        return h, self.rho(h)

