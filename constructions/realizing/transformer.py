"""The paper's non-softmax attention transformer ``y_i = rho(pool_j psi(x_i, x_j))`` (Ahuja & Mansouri, sec. 4.2).

Parameters: ``psi``, ``rho`` (:class:`~constructions.realizing.mlp.MLP`), ``pooling`` ('mean' | 'sum'),
``relative`` (psi also reads ``[i = j]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from constructions.realizing.errors import RealizingError
from constructions.realizing.exact import Vec, to_vector, vadd
from constructions.realizing.mlp import MLP
from constructions.realizing.sequence import SequenceModel


@dataclass(frozen=True)
class AttentionTransformer(SequenceModel):
    """``y_i = rho(pool_{j <= i} psi(x_i, x_j[, [i = j]]))``, the paper's non-softmax attention (sec. 4.2).

    ``pooling``: 'mean' (the paper, weight 1/i) or 'sum' (the released code).  ``relative``: psi also reads
    the relative-position feature ``[i - j = 0]`` (the A.2 variant ``psi_{i-j}``).
    """

    psi: MLP
    rho: MLP
    pooling: str = "mean"
    relative: bool = False
    name: str = "transformer"

    def __post_init__(self):
        if self.pooling not in ("mean", "sum"):
            raise RealizingError(f"pooling must be 'mean' or 'sum', got {self.pooling!r}")

    def _pool(self, xs: tuple) -> Vec:
        i, xi, acc = len(xs) - 1, xs[-1], None
        for j in range(i + 1):
            e = self.psi(xi + xs[j] + ((Fraction(int(i == j)),) if self.relative else ()))
            acc = e if acc is None else vadd(acc, e)
        return tuple(a / (i + 1) for a in acc) if self.pooling == "mean" else acc

    def pooled(self, xs) -> list:
        """The pooled attention vector at every position."""
        xs = tuple(to_vector(x) for x in xs)
        return [self._pool(xs[: i + 1]) for i in range(len(xs))]

    def initial(self):
        return ()

    def advance(self, prefix, x):
        prefix = prefix + (x,)
        return prefix, self.rho(self._pool(prefix))

