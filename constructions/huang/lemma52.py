"""Lemmas 48-53 as a translator: T in Theta_n -> a Limit Transformer (Huang et al. App. F.3), on a stated subclass.

Lemma 52: for ``T`` in Theta_n there is a Limit Transformer ``T^`` with ``T^(x, 0) = T(x, o)`` at lengths
``<= n``, ``R_infinity(T^) <= F(R(T))`` and ``phi_{l,h}(j, i) = p_j^T K_{l,h}^T Q_{l,h} p_i`` (eqs. (40), (41), (51)).
The paper's construction re-encodes every product function in bounded-width "to-do list" coordinates; we
implement the translation for the subclass where that re-encoding is unnecessary, and refuse the rest with
:class:`NotTranslatableError`:

* the *phi-coordinates* ``S``: coordinates written only by positional encodings and read only by attention
  logits against themselves (no token embedding, value matrix, MLP or unembedding touches them, and every
  ``K^T Q`` vanishes on ``S x rest``).  Their logit contribution ``p_j[S]^T (K^T Q)_{SS} p_i[S]`` must be
  Toeplitz (checked exactly); it becomes ``phi_{l,h}(j, i) = g(i - j)`` on offsets ``0 .. n-1`` (eq. (41)).
* the remaining positional part ``p_i[rest]`` must repeat with a period ``P`` on the window (Lemma 48's
  period, found by :func:`period_of`); it becomes ``T^``'s periodic table (Periodic).

Every Lemma 47 output is in this subclass (S = region II), so ``lemma52(lemma47(T, n))`` is a round trip.
Lemma 53 (correctness) is checked, not assumed: :func:`translation_mismatch` compares ``T^(x, 0)`` with
``T(x, o)`` exactly.  ``R_infinity`` ingredients are computed by
:func:`constructions.huang.regularizer.limit_complexity`; for this translator ``p``, the norm term and the
positional mass are bounded by ``R(T)``'s (``mass = (8)`` exactly), but the locality radius ``tau`` is not
(docs/gaps.md, huang2024:lem52.tau).
"""

from __future__ import annotations

import numpy as np

from constructions.huang.errors import NotTranslatableError
from constructions.huang.finite import FiniteTransformer
from constructions.limit_transformer import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
    exact_forward,
)


def period_of(seq) -> int:
    """Smallest ``P >= 1`` with ``seq[k] == seq[k + P]`` for all valid k (``len(seq)`` if none smaller): the period
    search of Lemma 48 on a finite window.  Elements are compared with ``==`` (numbers or tuples)."""
    n = len(seq)
    for P in range(1, n + 1):
        if all(seq[k] == seq[k + P] for k in range(n - P)):
            return P
    return max(n, 1)


def _untouched(T: FiniteTransformer) -> set:
    """Coordinates no token embedding, value matrix, MLP or unembedding reads or writes."""
    m = T.model
    used = np.any(m.embedding != 0, axis=0) | np.any(m.unembedding != 0, axis=0)
    for layer in m.layers:
        for h in layer.heads:
            used |= np.any(h.value != 0, axis=0) | np.any(h.value != 0, axis=1)
        if layer.mlp is not None:
            used |= np.any(layer.mlp.A != 0, axis=0) | np.any(layer.mlp.B != 0, axis=1)
    return {int(c) for c in np.nonzero(~used)[0]}


def phi_coordinates(T: FiniteTransformer) -> list[int]:
    """The largest set S of untouched coordinates with every ``K^T Q`` zero on ``S x rest`` and ``rest x S``."""
    S = _untouched(T)
    changed = True
    while changed:
        changed = False
        rest = [c for c in range(T.d) if c not in S]
        for layer in T.model.layers:
            for h in layer.heads:
                M = h.bilinear
                for c in sorted(S):
                    if np.any(M[c, rest] != 0) or np.any(M[rest, c] != 0):
                        S.discard(c)
                        changed = True
    return sorted(S)


def translate(T: FiniteTransformer) -> LimitTransformer:
    """The Limit Transformer ``T^`` of the module docstring (raises :class:`NotTranslatableError` outside it)."""
    S = phi_coordinates(T)
    rest = [c for c in range(T.d) if c not in S]
    P = T.table
    layers = []
    for l, layer in enumerate(T.model.layers, 1):
        heads = []
        for hi, h in enumerate(layer.heads, 1):
            M = h.bilinear[np.ix_(S, S)] if S else None
            phi = None
            if M is not None and np.any(M != 0):
                G = P[:, S].dot(M).dot(P[:, S].T)  # G[j, i]: key j, query i
                bad = np.argwhere(G[1:, 1:] != G[:-1, :-1])
                if len(bad):
                    j, i = bad[0]
                    raise NotTranslatableError(f"layer {l} head {hi}: the phi-coordinate logits are not Toeplitz "
                                               f"(G[{j + 1},{i + 1}] != G[{j + 2},{i + 2}])")
                g = [G[0, k] for k in range(T.n)]
                last = max((k for k, v in enumerate(g) if v != 0), default=0)
                phi = LocalPhi(tuple(g[: last + 1]))
            heads.append(Head(h.query[:, rest], h.key[:, rest], h.value[np.ix_(rest, rest)], phi))
        mlp = None if layer.mlp is None else MLP(layer.mlp.A[:, rest], layer.mlp.b, layer.mlp.B[rest],
                                                 layer.mlp.activations)
        layers.append(Layer(tuple(heads), mlp))
    vectors = [tuple(r) for r in P[:, rest]]
    period = period_of(vectors)
    positions = None if not any(any(v) for v in vectors) else PeriodicPositions(P[:period, rest])
    m = T.model
    return LimitTransformer(m.alphabet, m.embedding[:, rest], tuple(layers), m.unembedding[:, rest], positions,
                            m.precision_bits, m.precision, name=f"lemma52({m.name or 'T'})",
                            metadata={"lemma52": {"phi_coordinates": len(S), "period": period, "n": T.n}})


def translation_mismatch(T: FiniteTransformer, That: LimitTransformer, strings, offsets=None):
    """First ``(string, offset, position)`` with ``That(x, 0) != T(x, o)`` exactly, else None (Lemma 53)."""
    for s in strings:
        want = exact_forward(That, s)
        length = len(s) + 1
        for o in (range(T.n - length + 1) if offsets is None else [o for o in offsets if o + length <= T.n]):
            bad = np.nonzero(np.any(T.forward(s, offset=o) != want, axis=1))[0]
            if len(bad):
                return s, o, int(bad[0]) + 1
    return None
