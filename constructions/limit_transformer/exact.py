"""Exact (rational) evaluation of a Limit Transformer on one string (eqs. (1)-(4), (6)).

Under the ``huang`` precision model every quantity is rational, so the result is always exact.  Under
``izzo`` it is exact whenever every head is in the hardmax regime at this length (every strictly
sub-maximal term is flushed); otherwise :class:`NotExactError` says which query/key broke it.

The evaluator has the same structure as the float path (:mod:`constructions.limit_transformer.evaluate`):

* residual coordinates are :class:`~constructions.limit_transformer.rational_rows.RationalRow` s (integer
  numerators and denominators over all positions, vectorized), and only the nonzero entries of ``V``,
  ``A``, ``B`` and ``U`` cost work;
* a *positional-only* head (``K^T Q = 0``, Local or no phi; every C-RASP counting head) is evaluated in
  O(n): its logits are ``phi(j, i)`` alone, so the exact softmax terms depend on the query only through
  which of the ``tau + 2`` slots (the far keys ``j < i - tau``, all of logit 0, and the window offsets
  ``0..tau``) exist.  :func:`~constructions.limit_transformer.precision.exact_weights` is called once per
  slot pattern (at most ``tau + 2`` times), and the output is
  ``(s_far * sum_far + sum_off s_off v_{i-off}) / (s_far * #far + sum_off s_off)`` with exact prefix sums;
* every other head is evaluated by the definition, query by query over all keys, with ``Fraction`` s
  (O(n^2)); ``reference=True`` evaluates *every* head this way (the reference the linear path is tested
  against).
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np

from constructions.limit_transformer.errors import InputError
from constructions.limit_transformer.model import Head, LimitTransformer, _support, _supports
from constructions.limit_transformer.precision import exact_weights
from constructions.limit_transformer.rational_rows import RationalRow, int_array, linear_rows
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


def _fraction_matrix(rows: list) -> np.ndarray:
    """Rows (one per coordinate) -> an object matrix of Fractions, positions x coordinates."""
    return np.stack([r.fractions() for r in rows], axis=1) if rows else np.empty((0, 0), dtype=object)


def _initial_rows(model: LimitTransformer, ids: np.ndarray, offset: int) -> list:
    """``y^(0) = E_{x_i} + p_{i+o}`` as one exact row per coordinate."""
    n = len(ids)
    pos = np.arange(1, n + 1) + offset
    if model.positions is None:
        table, index = None, None
    elif model.period is not None:
        table, index = model.positions.table, (pos - 1) % model.period
    else:
        table, index = model.positions.vectors(pos), np.arange(n)
    rows = []
    for c in range(model.d):
        row = RationalRow.from_fractions(model.embedding[:, c])[ids]
        if table is not None and any(v != 0 for v in table[:, c]):
            row = row + RationalRow.from_fractions(table[:, c])[index]
        rows.append(row)
    return rows


def _quadratic_head(model: LimitTransformer, head: Head, Yf: np.ndarray, queries: np.ndarray, where: str):
    """A head by the definition: exact logits and weights of every query over every key (O(n^2) logits).

    Products sum only nonzero entries (``exact_dot``) and the attention sum of query i is
    ``w_0 * sum_{j <= i} v_j + sum_{j: w_j != w_0} (w_j - w_0) v_j``.
    Returns ({row: RationalRow over the queries}, weights (len(queries), n) of Fractions)."""
    n = Yf.shape[0]
    qc, kc = _support(head.query, 0), _support(head.key, 0)
    vr, vc = _supports(head.value)
    content = len(qc) > 0 and len(kc) > 0
    if content:  # logit matrix [key j, query i] = (K y_j) . (Q y_i)
        qv = exact_dot(Yf[:, qc], head.query[:, qc].T)
        kv = exact_dot(Yf[:, kc], head.key[:, kc].T)
        lm = exact_dot(kv, qv[list(queries)].T)
    vv = exact_dot(Yf[:, vc], head.value[np.ix_(vr, vc)].T) if len(vr) else zeros((n, 0))
    cum = np.cumsum(vv, axis=0)  # cum[i] = sum_{j <= i} V y_j
    weights = zeros((len(queries), n))
    acc = zeros((len(queries), len(vr)))
    for row, i in enumerate(queries):
        logits = [(Fraction(lm[j, row]) if content else Fraction(0))
                  + (head.phi.value(j + 1, i + 1) if head.phi is not None else 0) for j in range(i + 1)]
        w = exact_weights(logits, n, model.precision_bits, model.precision, where=f"{where}query {i + 1}: ")
        weights[row, : i + 1] = w
        a = w[0] * cum[i] if w[0] else zeros(len(vr))
        for j, wj in enumerate(w):
            if wj != w[0]:
                a = a + (wj - w[0]) * vv[j]
        acc[row] = a
    return {r: RationalRow.from_fractions(acc[:, k]) for k, r in enumerate(vr)}, weights


def _positional_head(model: LimitTransformer, head: Head, y: list, queries: np.ndarray, where: str,
                     want_weights: bool):
    """A positional-only head in O(n) exact operations per value row (see the module docstring).

    Returns ({row: RationalRow over the queries}, weights (len(queries), n) of Fractions or None)."""
    n = len(y[0])
    phi = head.phi.values if head.phi is not None else (Fraction(0),)
    tau = len(phi) - 1
    q = np.asarray(queries)
    kinds = np.minimum(q, tau + 1)  # queries of one kind have the same slots: kind tau+1 = "far keys exist"
    s_far = [0] * len(q)
    s_off = [[0] * len(q) for _ in range(tau + 1)]
    for k in sorted(set(kinds.tolist())):
        first = int(q[kinds == k][0])
        logits = ([Fraction(0)] if k == tau + 1 else []) + [phi[off] for off in range(min(k, tau), -1, -1)]
        note = f" (keys 1..{first - tau} share logit 0: the list's key 1 stands for them)" if k == tau + 1 else ""
        w = exact_weights(logits, n, model.precision_bits, model.precision, where=f"{where}query {first + 1}{note}: ")
        scale = lcm(*(f.denominator for f in w))
        ints = [int(f * scale) for f in w]
        far, window = (ints[0], ints[1:]) if k == tau + 1 else (0, ints)
        for idx in np.nonzero(kinds == k)[0]:
            s_far[idx] = far
            for off in range(min(k, tau) + 1):
                s_off[off][idx] = window[min(k, tau) - off]
    count_far = np.maximum(q - tau, 0)
    den = int_array([s_far[i] * int(count_far[i]) + sum(s_off[off][i] for off in range(tau + 1))
                     for i in range(len(q))])
    s_far_a = int_array(s_far)
    s_off_a = [int_array(s) for s in s_off]
    rows = _support(head.value, 1)
    vals = linear_rows(head.value[rows], y, n)
    out = {}
    for r, v in zip(rows, vals, strict=True):
        acc = RationalRow.zeros(len(q))
        if np.any(s_far_a != 0) and not v.is_zero():
            acc = v.cumsum()[np.maximum(q - tau - 1, 0)].times(s_far_a)
        for off in range(tau + 1):
            if np.any(s_off_a[off] != 0):
                acc = acc + v[np.maximum(q - off, 0)].times(s_off_a[off])
        out[r] = acc.divided(den)
    weights = None
    if want_weights:
        weights = zeros((len(q), n))
        for row, i in enumerate(q):
            if den[row] == 0:
                continue
            weights[row, : max(0, i - tau)] = Fraction(s_far[row], int(den[row]))
            for off in range(min(i, tau) + 1):
                weights[row, i - off] = Fraction(s_off[off][row], int(den[row]))
    return out, weights


def exact_forward(model: LimitTransformer, string, *, offset: int = 0, positions: str = "all",
                  reference: bool = False, cache=None) -> np.ndarray:
    """Exact outputs for one string: an object array of Fractions, (n+1, m) or (m,) for ``positions="last"``.

    ``reference=True`` evaluates every head by the O(n^2) definition instead of the O(n) positional path.
    ``cache``: an :class:`~constructions.limit_transformer.cache.ActivationCache` to fill with every
    intermediate (use :func:`~constructions.limit_transformer.cache.run_with_cache`).
    """
    if positions not in ("all", "last"):
        raise InputError(f"positions must be 'all' or 'last', got {positions!r}")
    if offset < 0:
        raise InputError(f"offset must be >= 0, got {offset}")
    ids = model.encode(string)
    if ids.shape[0] != 1:
        raise InputError("exact_forward evaluates one string at a time")
    ids = ids[0]
    n = len(ids)
    y = _initial_rows(model, ids, offset)
    if cache is not None:
        cache.residual.append(_fraction_matrix(y))
    for l, layer in enumerate(model.layers, 1):
        last = l == model.depth
        queries = np.arange(n) if (not last or positions == "all") else np.array([n - 1])
        Yf = None
        updates, weights = [], []
        for h, head in enumerate(layer.heads, 1):
            where = f"layer {l} head {h} "
            if cache is None and not np.any(head.value != 0):
                continue  # writes nothing (as the float path); with a cache its weights are still computed
            if head.positional_only and not reference:
                upd, w = _positional_head(model, head, y, queries, where, cache is not None)
            else:
                if Yf is None:
                    Yf = _fraction_matrix(y)
                upd, w = _quadratic_head(model, head, Yf, queries, where)
            updates.append(upd)
            weights.append(w)
        Y = y if len(queries) == n else [row[queries] for row in y]
        for upd in updates:  # every head has read y; now add their outputs
            Y = [Y[r] + upd[r] if r in upd else Y[r] for r in range(model.d)]
        if cache is not None:
            cache.attention.append(weights)
            cache.attention_residual.append(_fraction_matrix(Y))
        y = _exact_mlp_rows(Y, layer.mlp, cache)
        if cache is not None:
            cache.residual.append(_fraction_matrix(y))
    if model.depth == 0 and positions == "last":
        y = [row[np.array([n - 1])] for row in y]
    out = _fraction_matrix(linear_rows(model.unembedding, y, len(y[0]))) if model.output_dim else \
        np.empty((len(y[0]), 0), dtype=object)
    return out if positions == "all" else out[0]


def _exact_mlp_rows(Y: list, mlp, cache) -> list:
    """``Y + B psi(A Y + b)`` on exact rows (only the rows ``B`` writes change)."""
    if mlp is None:
        if cache is not None:
            cache.mlp_pre.append(None)
            cache.mlp_post.append(None)
        return Y
    m = len(Y[0])
    pre = linear_rows(mlp.A, Y, m, bias=mlp.b)
    act = [p.heaviside() if hv else p.relu() for p, hv in zip(pre, mlp.heaviside_mask, strict=True)]
    if cache is not None:
        cache.mlp_pre.append(_fraction_matrix(pre))
        cache.mlp_post.append(_fraction_matrix(act))
    written = _support(mlp.B, 1)
    upd = dict(zip(written, linear_rows(mlp.B[written], act, m), strict=True))
    return [Y[r] + upd[r] if r in upd else Y[r] for r in range(len(Y))]
