"""Causal dot-product attention heads ``omega((1/i) sum_{j <= i} s(q_i . k_j + b_{i-j}) V x_j)`` (Ahuja & Mansouri,
sec. 4.2, Assumptions 5, 6, 12, 13; the transformers of sec. 4.5).

The paper's attention with a perceptron-style score: head ``h`` has matrices ``Q_h, K_h, V_h`` and pools
``psi_h(x_i, x_j) = s(x_i^T Q_h^T K_h x_j + b_h[i - j]) V_h x_j`` over ``j <= i`` with weight ``1/i``
(Assumption 5: the ``1/i`` mean; ``b_h`` is the relative-position score of Assumptions 12-13, ``b_h[k] = 0``
for lags ``k >= len(b_h)``); the heads' pooled vectors are concatenated and read by ``rho`` (the head
omega, an :class:`~constructions.realizing.mlp.MLP`).  This is the class ``psi(x_i, x_j)`` of
:class:`~constructions.realizing.transformer.AttentionTransformer` restricted to a bilinear score, which is
how the paper's experiments instantiate it.

Exact on rationals for the scores ``'linear'`` (``s(z) = z``), ``'relu'`` and ``'hard_sigmoid'``; the
``'sigmoid'`` and ``'softmax'`` scores of the experiments (softmax replaces ``s(.)/i`` by
``exp(.)/sum_j exp(.)``) are irrational and live only in the torch twin
(:mod:`constructions.realizing.torch_nets`), which is tested against this class on the exact scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from constructions.realizing.errors import RealizingError
from constructions.realizing.exact import Vec, hard_sigmoid, matvec, relu, to_matrix, to_vector
from constructions.realizing.mlp import MLP
from constructions.realizing.sequence import SequenceModel

EXACT_SCORES = ("linear", "relu", "hard_sigmoid")
_SCORE = {"linear": lambda z: z, "relu": relu, "hard_sigmoid": hard_sigmoid}


@dataclass(frozen=True)
class AttentionHead:
    """One head: ``Q, K`` (d_k x n), ``V`` (d_v x n) rational matrices, ``rel`` the lag scores b[0], b[1], ..."""

    Q: tuple
    K: tuple
    V: tuple
    rel: tuple = ()

    def __post_init__(self):
        for name in ("Q", "K", "V"):
            object.__setattr__(self, name, to_matrix(getattr(self, name)))
        object.__setattr__(self, "rel", to_vector(self.rel))
        if len(self.Q) != len(self.K):
            raise RealizingError(f"Q has {len(self.Q)} rows but K has {len(self.K)}")

    def lag_score(self, lag: int) -> Fraction:
        return self.rel[lag] if lag < len(self.rel) else Fraction(0)


@dataclass(frozen=True)
class HeadsTransformer(SequenceModel):
    """``y_i = rho(concat_h (1/i) sum_{j <= i} s(q_i . k_j + b_h[i - j]) V_h x_j)`` (Assumptions 5, 12)."""

    heads: tuple
    rho: MLP
    score: str = "relu"
    name: str = "heads transformer"

    def __post_init__(self):
        if self.score not in EXACT_SCORES:
            raise RealizingError(f"exact score must be one of {EXACT_SCORES}, got {self.score!r} "
                                 "(sigmoid and softmax scores exist only in the torch twin)")
        if not self.heads:
            raise RealizingError("a transformer needs at least one head")
        object.__setattr__(self, "heads", tuple(self.heads))

    def pooled_at(self, xs: tuple) -> Vec:
        """The concatenated pooled head outputs at the last position of the prefix ``xs`` (the hidden state)."""
        i = len(xs)
        s = _SCORE[self.score]
        out: list = []
        for h in self.heads:
            q = matvec(h.Q, xs[-1])
            acc = [Fraction(0)] * len(h.V)
            for j, xj in enumerate(xs):
                w = s(sum((a * b for a, b in zip(q, matvec(h.K, xj), strict=True)), Fraction(0))
                      + h.lag_score(i - 1 - j))
                acc = [a + w * v for a, v in zip(acc, matvec(h.V, xj), strict=True)]
            out.extend(a / i for a in acc)
        return tuple(out)

    def pooled(self, xs) -> list:
        xs = tuple(to_vector(x) for x in xs)
        return [self.pooled_at(xs[: i + 1]) for i in range(len(xs))]

    def initial(self):
        return ()

    def advance(self, prefix, x):
        prefix = prefix + (x,)
        return prefix, self.rho(self.pooled_at(prefix))
