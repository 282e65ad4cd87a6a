"""Elman RNNs ``h_t = sigma(Lambda h_{t-1} + B x_t)``, ``y_t = rho(h_t)`` (Ahuja & Mansouri, sec. 4.4, eq. (28)).

Parameters: ``Lam``, ``B`` rational matrices, ``rho`` an :class:`~constructions.realizing.mlp.MLP`, ``act`` in
{'relu', 'hard_sigmoid', 'sigmoid'} (the sigmoid is evaluated by interval arithmetic only).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from constructions.realizing.errors import RealizingError
from constructions.realizing.exact import hard_sigmoid, matvec, relu, to_matrix, to_vector, vadd
from constructions.realizing.mlp import MLP
from constructions.realizing.sequence import SequenceModel


@dataclass(frozen=True)
class RNN(SequenceModel):
    """``h_t = sigma(Lambda h_{t-1} + B x_t)``, ``h_0 = 0``, ``y_t = rho(h_t)`` (sec. 4.4, eq. (28)).

    ``act`` is 'relu' or 'hard_sigmoid' (exact) or 'sigmoid' (evaluated with :mod:`mpmath` interval
    arithmetic; outputs are intervals, see :func:`interval_outputs`).
    """

    Lam: tuple
    B: tuple
    rho: MLP
    act: str = "hard_sigmoid"
    name: str = "rnn"

    def __post_init__(self):
        object.__setattr__(self, "Lam", to_matrix(self.Lam))
        object.__setattr__(self, "B", to_matrix(self.B))
        if self.act not in ("relu", "hard_sigmoid", "sigmoid"):
            raise RealizingError(f"RNN activation must be relu, hard_sigmoid or sigmoid, got {self.act!r}")

    def initial(self):
        if self.act == "sigmoid":
            raise RealizingError("the sigmoid RNN has irrational states; use interval_outputs()")
        return (Fraction(0),) * len(self.Lam)

    def advance(self, h, x):
        sig = relu if self.act == "relu" else hard_sigmoid
        h = tuple(sig(z) for z in vadd(matvec(self.Lam, h), matvec(self.B, x)))
        return h, self.rho(h)

    def interval_outputs(self, xs, dps: int = 50) -> list:
        """Outputs as :class:`mpmath.iv.mpf` intervals (rigorous enclosures), any activation."""
        from mpmath import iv

        iv.dps = dps

        def sig(z):
            if self.act == "sigmoid":
                return 1 / (1 + iv.exp(-z))
            if self.act == "relu":
                return iv.mpf([max(0, z.a), max(0, z.b)])
            return iv.mpf([min(1, max(0, z.a / 4 + iv.mpf(0.5).a)), min(1, max(0, z.b / 4 + iv.mpf(0.5).b))])

        def ivec(v):
            return [iv.mpf(x.numerator) / x.denominator for x in v]

        def imv(m, v):
            return [sum((iv.mpf(a.numerator) / a.denominator * b for a, b in zip(row, v, strict=True)),
                        iv.mpf(0)) for row in m]

        def imlp(v):
            for w, b, act in self.rho.layers:
                v = [z + iv.mpf(bb.numerator) / bb.denominator for z, bb in zip(imv(w, v), b, strict=True)]
                if act == "relu":
                    v = [iv.mpf([max(0, z.a), max(0, z.b)]) for z in v]
            return v

        h = [iv.mpf(0)] * len(self.Lam)
        out = []
        for x in xs:
            pre = [a + b for a, b in zip(imv(self.Lam, h), imv(self.B, ivec(to_vector(x))), strict=True)]
            h = [sig(z) for z in pre]
            out.append(imlp(h))
        return out

