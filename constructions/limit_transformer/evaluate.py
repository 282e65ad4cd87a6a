"""Vectorized float64 evaluation of a Limit Transformer over a batch of equal-length strings (eqs. (1)-(4), (6)).

Numeric mode: float64 arithmetic; the precision model's flush / rounding decisions are taken in float64
(see :func:`constructions.limit_transformer.precision.float_weights` for the tolerance).
"""

from __future__ import annotations

import numpy as np

from constructions.limit_transformer.errors import InputError
from constructions.limit_transformer.model import LimitTransformer, LocalPhi
from constructions.limit_transformer.precision import float_weights

# Numeric mode: a Heaviside pre-activation within this distance below 0 counts as 0 (exact constructions
# often compare equal quantities, whose float difference is a rounding error of either sign).
HEAVISIDE_ATOL = 1e-9
_CHUNK_ELEMENTS = 2**23  # floats per chunk in the largest tensor (~64 MB)


def _position_vectors(model: LimitTransformer, n: int, offset: int) -> np.ndarray:
    positions = np.arange(1, n + 1) + offset
    if model.positions is None:
        return np.zeros((n, model.d))
    return model.positions.float_vectors(positions)


def _phi_matrix(phi, n: int) -> np.ndarray | None:
    """Float n x n matrix M[i, j] = phi(j+1, i+1) (query row, key column), or None."""
    if phi is None:
        return None
    if isinstance(phi, LocalPhi):
        m = np.zeros((n, n))
        idx = np.arange(n)
        for off, v in enumerate(phi.float_offsets()):
            if v != 0 and off < n:
                m[idx[off:], idx[off:] - off] = v
        return m
    return phi.matrix(n).astype(np.float64)


def _project(M: np.ndarray, y, factored) -> np.ndarray:
    """``y @ M.T``; for the first layer, ``(E M^T)[ids] + (P M^T)`` without materializing y."""
    if factored is None:
        return y @ M.T
    ids, E, P = factored
    return (E @ M.T)[ids] + (P @ M.T)[None, :, :]


def _layer(model, layer_params, phis, y, queries, n, factored=None):
    """One layer: attention for the given query rows, then the MLP.

    y: (B, n, d) activations, or None with ``factored = (ids, E, P)`` for the first layer.
    Returns (B, len(queries), d).
    """
    heads, mlp = layer_params
    if factored is None:
        yq = y[:, queries, :]
    else:
        ids, E, P = factored
        yq = E[ids[:, queries]] + P[queries][None, :, :]
    Y = yq.copy()
    keys_idx = np.arange(n)
    mask = keys_idx[None, :] <= queries[:, None]  # causal: key j <= query i
    for (Q, K, V, _), phi_m in zip(heads, phis, strict=True):
        logits = np.einsum("bqr,bkr->bqk", yq @ Q.T, _project(K, y, factored))
        if phi_m is not None:
            logits = logits + phi_m[queries][None, :, :]
        w = float_weights(logits, mask[None, :, :], n, model.precision_bits, model.precision)
        Y = Y + w @ _project(V, y, factored)
    return float_mlp(Y, mlp)


def float_mlp(Y: np.ndarray, mlp) -> np.ndarray:
    """``Y + B psi(A Y + b)`` in float64; a Heaviside unit fires for ``z >= -HEAVISIDE_ATOL``."""
    if mlp is None:
        return Y
    A, b, B, heaviside = mlp
    h = Y @ A.T + b
    act = np.where(heaviside, (h >= -HEAVISIDE_ATOL).astype(np.float64), np.maximum(h, 0.0))
    return Y + act @ B.T


def forward(model: LimitTransformer, strings, *, offset: int = 0, positions: str = "all") -> np.ndarray:
    """Outputs ``U y_i^(L)`` for a batch of equal-length strings (``$`` is prepended).

    ``strings``: a string, a list of equal-length strings/symbol lists, or an int array of token ids that
    already starts with the ``$`` id 0.  Returns (B, n+1, m) for ``positions="all"`` (position 1 is ``$``)
    or (B, m) for ``positions="last"`` (only the last query of the last layer is computed).
    """
    if positions not in ("all", "last"):
        raise InputError(f"positions must be 'all' or 'last', got {positions!r}")
    if offset < 0:
        raise InputError(f"offset must be >= 0, got {offset}")
    ids = model.encode(strings)
    B, n = ids.shape
    fp = model.float_params
    phis = [[_phi_matrix(h.phi, n) for h in layer.heads] for layer in model.layers]
    pos = _position_vectors(model, n, offset)
    out_rows = n if positions == "all" else 1
    # chunk the batch so that the largest tensor (logits or activations) stays bounded
    width = max(model.d, 1)
    per_seq = n * max(width, n if (model.depth > 1 or positions == "all") else 1)
    chunk = max(1, _CHUNK_ELEMENTS // per_seq)
    out = np.empty((B, out_rows, model.output_dim))
    all_q = np.arange(n)
    for s in range(0, B, chunk):
        ids_c = ids[s : s + chunk]
        y, factored = None, (ids_c, fp["E"], pos)
        for l, lp in enumerate(fp["layers"]):
            last = l == model.depth - 1
            queries = all_q if (not last or positions == "all") else all_q[-1:]
            y = _layer(model, lp, phis[l], y, queries, n, factored)
            factored = None
        if model.depth == 0:
            y = fp["E"][ids_c] + pos[None, :, :]
            if positions == "last":
                y = y[:, -1:, :]
        out[s : s + chunk] = y @ fp["U"].T
    return out if positions == "all" else out[:, 0, :]
