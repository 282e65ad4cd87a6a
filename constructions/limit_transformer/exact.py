"""Exact (``Fraction``) evaluation of a Limit Transformer on one string (eqs. (1)-(4), (6)).

Under the ``huang`` precision model every quantity is rational, so the result is always exact.  Under
``izzo`` it is exact whenever every head is in the hardmax regime at this length (every strictly
sub-maximal term is flushed); otherwise :class:`NotExactError` says which query/key broke it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from constructions.limit_transformer.errors import InputError
from constructions.limit_transformer.model import LimitTransformer, _support
from constructions.limit_transformer.precision import exact_weights
from constructions.limit_transformer.rationals import exact_dot, zeros


def exact_mlp(Y: np.ndarray, mlp) -> np.ndarray:
    """``Y + B psi(A Y + b)`` exactly (rows of Y are positions); Heaviside is ``[z >= 0]``."""
    if mlp is None:
        return Y
    cols, rows = _support(mlp.A, 0), _support(mlp.B, 1)  # only the coordinates the MLP reads / writes
    Y2 = Y.reshape(-1, Y.shape[-1])
    pre = exact_dot(Y2[:, cols], mlp.A[:, cols].T) + mlp.b
    act = np.empty(pre.shape, dtype=object)
    for idx, z in np.ndenumerate(pre):
        if mlp.heaviside_mask[idx[-1]]:
            act[idx] = Fraction(1) if z >= 0 else Fraction(0)
        else:
            act[idx] = z if z > 0 else Fraction(0)
    out = Y2.copy()
    if len(rows):
        out[:, rows] = out[:, rows] + exact_dot(act, mlp.B[rows].T)
    return out.reshape(Y.shape)


def exact_forward(model: LimitTransformer, string, *, offset: int = 0, positions: str = "all") -> np.ndarray:
    """Exact outputs for one string: an object array of Fractions, (n+1, m) or (m,) for ``positions="last"``."""
    if positions not in ("all", "last"):
        raise InputError(f"positions must be 'all' or 'last', got {positions!r}")
    if offset < 0:
        raise InputError(f"offset must be >= 0, got {offset}")
    ids = model.encode(string)
    if ids.shape[0] != 1:
        raise InputError("exact_forward evaluates one string at a time")
    ids = ids[0]
    n = len(ids)
    y = model.embedding[ids].copy()
    if model.positions is not None:
        y = y + model.positions.vectors(np.arange(1, n + 1) + offset)
    for l, layer in enumerate(model.layers, 1):
        last = l == model.depth
        queries = range(n) if (not last or positions == "all") else [n - 1]
        Y = y[list(queries)].copy()
        for h, head in enumerate(layer.heads, 1):
            # sparse-aware: only the coordinates K, Q and V read (and V writes) are touched
            qc, kc = _support(head.query, 0), _support(head.key, 0)
            vr, vc = _support(head.value, 1), _support(head.value, 0)
            if len(vr) == 0:
                continue
            content = len(qc) > 0 and len(kc) > 0
            if content:  # logit matrix [key j, query i] = (K y_j) . (Q y_i)
                qv = exact_dot(y[:, qc], head.query[:, qc].T)
                kv = exact_dot(y[:, kc], head.key[:, kc].T)
                lm = exact_dot(kv, qv[list(queries)].T)
            vv = exact_dot(y[:, vc], head.value[np.ix_(vr, vc)].T)
            cum = np.cumsum(vv, axis=0)  # cum[i] = sum_{j <= i} V y_j
            for row, i in enumerate(queries):
                if content or head.phi is not None:
                    logits = [(Fraction(lm[j, row]) if content else Fraction(0))
                              + (head.phi.value(j + 1, i + 1) if head.phi is not None else 0) for j in range(i + 1)]
                else:
                    logits = [Fraction(0)] * (i + 1)
                w = exact_weights(logits, n, model.precision_bits, model.precision,
                                  where=f"layer {l} head {h} query {i + 1}: ")
                # sum_j w_j v_j = w_0 * cum[i] + sum_{j: w_j != w_0} (w_j - w_0) v_j: O(|V| * #exceptions)
                acc = w[0] * cum[i] if w[0] else zeros(len(vr))
                for j, wj in enumerate(w):
                    if wj != w[0]:
                        acc = acc + (wj - w[0]) * vv[j]
                Y[row, vr] = Y[row, vr] + acc
        y = exact_mlp(Y, layer.mlp)
    if model.depth == 0 and positions == "last":
        y = y[-1:]
    out = y.dot(model.unembedding.T)
    return out if positions == "all" else out[0]
