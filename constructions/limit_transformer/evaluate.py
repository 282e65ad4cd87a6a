"""Vectorized float64 evaluation of a Limit Transformer over a batch of equal-length strings (eqs. (1)-(4), (6)).

Numeric mode: float64 arithmetic; the precision model's flush / rounding decisions are taken in float64
(see :func:`constructions.limit_transformer.precision.float_terms` for the tolerances).

Activations are kept feature-first, shape (d, B, n), so that a head or MLP that reads or writes a few
coordinates of the residual stream touches only those (compiled C-RASP models are wide and sparse).
Heads whose logit is ``phi(j, i)`` alone (``K^T Q = 0``, phi Local or absent; every C-RASP counting head)
are evaluated in O(n) by prefix sums: all keys farther than tau share the logit 0, so the head output is
``(s_far * sum_far + sum_off s_off v_{i-off}) / (s_far * count_far + sum_off s_off)``.  Other heads use the
O(n^2) logit matrix.  :func:`stream_forward` runs models made only of such heads block by block, so a
single string of length 10^6 and more needs memory proportional to the block, not to the string.
"""

from __future__ import annotations

import numpy as np

from constructions.blas import one_blas_thread
from constructions.limit_transformer.errors import InputError
from constructions.limit_transformer.model import FloatMLP, LimitTransformer, LocalPhi
from constructions.limit_transformer.precision import float_terms, float_weights, warn_boundary

# Numeric mode: a Heaviside pre-activation within this distance below 0 counts as 0 (exact constructions
# often compare equal quantities, whose float difference is a rounding error of either sign).
HEAVISIDE_ATOL = 1e-9
_CHUNK_ELEMENTS = 2**23  # floats per chunk in the largest tensor (~64 MB)
_CHUNK_POSITIONS = 4096  # positions per chunk (B * n): one residual-stream row stays in cache
_CHUNK_LOGITS = 2**19  # logits per block of queries of a content head (4 MB: the block's passes stay in cache)


def _position_vectors(model: LimitTransformer, positions: np.ndarray) -> np.ndarray:
    """Encodings of 1-based (offset-included) positions, float64, shape (len(positions), d)."""
    if model.positions is None:
        return np.zeros((len(positions), model.d))
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


def _apply(M: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``M`` (r x c) applied to feature-first ``X`` (c, ...): (r, ...), as one matrix product."""
    rest = X.shape[1:]
    return (M @ X.reshape(X.shape[0], int(np.prod(rest)))).reshape((M.shape[0],) + rest)


def _add_rows(Y: np.ndarray, rows: np.ndarray, upd: np.ndarray) -> None:
    """``Y[rows] += upd`` in place, one row view at a time (no gather/scatter copies of Y)."""
    for k, r in enumerate(rows):
        Y[r] += upd[k]


def float_mlp(Y: np.ndarray, mlp: FloatMLP | None, cache=None, zero_rows=frozenset()) -> np.ndarray:
    """``Y + B psi(A Y + b)`` for feature-first ``Y`` (d, ...), updated in place (only the rows B writes)
    and returned; a Heaviside unit fires for ``z >= -HEAVISIDE_ATOL``.  ``cache`` (an ActivationCache)
    receives the pre-activations ``A Y + b`` and the activations, position-first.  ``zero_rows``: rows of ``Y``
    known to be 0 (their terms are skipped)."""
    if mlp is None or (len(mlp.B_rows) == 0 and cache is None):
        if cache is not None:
            cache.mlp_pre.append(None)
            cache.mlp_post.append(None)
        return Y
    if mlp.A_terms is not None:  # sparse A (compiled programs): term by term, straight from the stream's rows
        h = np.empty((len(mlp.A_terms),) + Y.shape[1:])
        for k, terms in enumerate(mlp.A_terms):
            _term_sum(Y, _nonzero_terms(terms, zero_rows), h[k])
    else:
        h = _apply(mlp.A_sub, Y[mlp.A_cols])
    if mlp.b.any():
        h += mlp.b.reshape((-1,) + (1,) * (h.ndim - 1))
    if cache is not None:
        cache.mlp_pre.append(np.moveaxis(h, 0, -1).copy())
    if mlp.heaviside.all():
        h = (h >= -HEAVISIDE_ATOL).astype(np.float64)
    elif mlp.heaviside.any():
        fired = h[mlp.heaviside] >= -HEAVISIDE_ATOL
        np.maximum(h, 0.0, out=h)
        h[mlp.heaviside] = fired
    else:
        np.maximum(h, 0.0, out=h)
    if cache is not None:
        cache.mlp_post.append(np.moveaxis(h, 0, -1).copy())
    if mlp.B_terms is None:
        _add_rows(Y, mlp.B_rows, _apply(mlp.B_sub, h))
        return Y
    for r, terms in zip(mlp.B_rows, mlp.B_terms, strict=True):
        if len(terms) == 1 and terms[0][1] == 1.0:
            Y[r] += h[terms[0][0]]
        elif terms:
            Y[r] += _term_sum(h, terms, np.empty(Y.shape[1:]))
    return Y


def _nonzero_terms(terms: tuple, zero_rows) -> tuple:
    """The terms ``((j, c), ...)`` whose row j is not known to be 0 (a term c * 0 adds nothing)."""
    return tuple(t for t in terms if t[0] not in zero_rows) if zero_rows else terms


def _term_sum(X: np.ndarray, terms: tuple, out: np.ndarray) -> np.ndarray:
    """``out = sum c X[j]`` over the terms ``((j, c), ...)`` (:func:`~constructions.limit_transformer.model.sparse_terms`),
    one numpy pass a term (no product for a coefficient of +-1; a term with another coefficient, if any, first:
    its product is written straight to ``out``); zero when there are none."""
    if not terms:
        out[...] = 0.0
        return out
    lead = next((k for k, (_, c) in enumerate(terms) if abs(c) != 1.0), 0)
    (j, c), rest = terms[lead], terms[:lead] + terms[lead + 1:]
    if c == 1.0:
        out[...] = X[j]
    else:
        np.multiply(X[j], c, out=out)
    tmp = None
    for j, c in rest:
        if c == 1.0:
            out += X[j]
        elif c == -1.0:
            out -= X[j]
        else:
            if tmp is None:
                tmp = np.empty_like(out)
            out += np.multiply(X[j], c, out=tmp)
    return out


def _window(arr: np.ndarray, lo: int, hi: int, fill) -> np.ndarray:
    """``arr[..., lo:hi]`` along the last axis, with the columns of negative index replaced by ``fill``."""
    if lo >= 0:
        return arr[..., lo:hi]
    out = np.empty(arr.shape[:-1] + (hi - lo,))
    out[..., : min(-lo, hi - lo)] = fill
    if hi > 0:
        out[..., -lo:] = arr[..., :hi]
    return out


def positional_terms(phi: np.ndarray | None, q0: int, q1: int, n: int, model: LimitTransformer,
                     memo: dict | None = None):
    """Softmax terms (Q, tau+2) of a positional-only head for 0-based queries q0..q1-1 (column 0: each far
    key, all of logit 0; column 1 + off: the key at offset off) and the number of far keys per query.

    Every query i > tau has the same logits and keys (some far keys, the whole window), hence the same terms:
    they are computed once for all of them (a read-only broadcast row; the boundary decisions are counted once
    per query, as if each row were computed).  ``memo`` (a dict kept by a caller that asks for many blocks of
    queries of one head and one length ``n``) keeps that row once it was computed without a boundary decision,
    and answers later blocks of only such queries from it (they would take no boundary decision either)."""
    offsets = np.zeros(1) if phi is None else phi
    tau = len(offsets) - 1
    q = np.arange(q0, q1)
    count_far = np.maximum(q - tau, 0)  # keys 0 .. i-tau-1 share logit 0
    early = np.arange(q0, min(q1, tau + 1))  # queries without far keys or without a whole window
    steady = q1 - max(q0, tau + 1)  # queries i > tau, all alike
    if memo is not None and "steady" in memo and steady == len(q):
        return np.broadcast_to(memo["steady"], (len(q), tau + 2)), count_far
    distinct = np.concatenate([early, [tau + 1]]) if steady > 0 else early
    queries = np.concatenate([np.ones(len(early), dtype=np.int64), [steady]]) if steady > 0 else None
    logits = np.concatenate([np.zeros((len(distinct), 1)), np.broadcast_to(offsets, (len(distinct), tau + 1))],
                            axis=1)
    mask = np.concatenate([(distinct > tau)[:, None], (distinct[:, None] - np.arange(tau + 1)[None, :]) >= 0],
                          axis=1)
    tally = []
    s = float_terms(logits, mask, n, model.precision_bits, model.precision, rows=queries, tally=tally)
    what = "flush decisions" if model.precision == "izzo" else "rounding decisions"
    warn_boundary(sum(tally), what, model.precision, model.precision_bits, stacklevel=2)
    if memo is not None and steady == len(q) and not sum(tally):
        memo["steady"] = s[0]
    if steady == len(q):
        return np.broadcast_to(s[0], (len(q), tau + 2)), count_far
    if steady > 0:
        s = np.concatenate([s[:-1], np.broadcast_to(s[-1], (steady, tau + 2))])
    return s, count_far


def positional_weight_matrix(phi: np.ndarray | None, queries: np.ndarray, n: int,
                             model: LimitTransformer) -> np.ndarray:
    """Dense attention weights (len(queries), n) of a positional-only head (for introspection only)."""
    s, count_far = positional_terms(phi, int(queries[0]), int(queries[-1]) + 1, n, model)
    den = s[:, 0] * count_far + s[:, 1:].sum(axis=1)
    w = np.divide(s, den[:, None], out=np.zeros_like(s), where=den[:, None] > 0)
    out = np.zeros((len(queries), n))
    for row, i in enumerate(queries):
        out[row, : count_far[row]] = w[row, 0]
        for off in range(min(i, s.shape[1] - 2) + 1):
            out[row, i - off] = w[row, off + 1]
    return out


def positional_head(vals: np.ndarray, base: np.ndarray, start: int, q0: int, q1: int, n: int,
                    phi: np.ndarray | None, model: LimitTransformer, memo: dict | None = None) -> np.ndarray:
    """Output (r, B, q1-q0) of a positional-only head for the 0-based global query positions q0 .. q1-1.

    ``vals`` (r, B, m) are the values ``V y_j`` of key positions ``start .. start+m-1`` and ``base`` (r, B) the
    sum of the values of positions ``< start``.  Every query i must have its tau-window inside ``vals``
    (``i - tau >= start``) unless ``start == 0``.  ``n`` is the input length (for ``log n``); ``memo`` as for
    :func:`positional_terms`.
    """
    s, count_far = positional_terms(phi, q0, q1, n, model, memo)
    tau = s.shape[1] - 2
    lo = q0 - tau - 1 - start  # index in vals of the last far key of query q0
    num = None  # sum of the terms' products; a term whose softmax weight is 0 for every query adds nothing
    if s[:, 0].any():
        if q1 - q0 == 1:  # one query: a plain sum instead of a cumulative sum
            far_sum = (base + vals[:, :, : lo + 1].sum(axis=2))[:, :, None] if lo >= 0 else base[:, :, None].copy()
        else:
            cum = np.empty(vals.shape[:2] + (vals.shape[2] + 1,))  # cum[..., k] = sum over positions < start + k
            cum[:, :, 0] = base
            np.cumsum(vals, axis=2, out=cum[:, :, 1:])
            cum[:, :, 1:] += base[:, :, None]
            far_sum = _window(cum, lo + 1, lo + 1 + q1 - q0, base[:, :, None])  # a view unless lo < -1
        num = far_sum if np.all(s[:, 0] == 1) else s[:, 0] * far_sum  # far_sum is a fresh array
    den = s[:, 0] * count_far
    for off in range(tau + 1):
        w = s[:, off + 1]
        den += w
        if not w.any():
            continue
        x = _window(vals, q0 - off - start, q1 - off - start, 0.0)
        one = np.all(w == 1)  # a product by 1 is skipped (the same double)
        if num is None:
            num = x.copy() if one else w * x
        elif one:
            num += x
        else:
            num += w * x
    if num is None:
        num = np.zeros(vals.shape[:2] + (q1 - q0,))
    if np.all(den > 0):
        return np.divide(num, den, out=num)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def _add_phi(logits: np.ndarray, phi, queries: np.ndarray) -> None:
    """Add phi(j, i) to the logits (B, len(queries), keys) of the given queries, in place: a tau-local phi
    (its float offsets) as tau + 1 diagonals, any other phi as its dense n x n matrix (:func:`_phi_matrix`)."""
    if phi is None:
        return
    keys = logits.shape[-1]
    if phi.ndim == 1:  # offsets 0..tau of a LocalPhi
        rows = np.arange(len(queries))
        for off, v in enumerate(phi):
            ok = queries >= off
            if v != 0 and ok.any():
                logits[:, rows[ok], queries[ok] - off] += v
        return
    logits += phi[queries][:, :keys][None]


def _content_head(model, h, phi, Qy, Ky, vals, queries, n, keep_weights=False):
    """Output (r, B, len(queries)) of a head with content-dependent logits (and its weights (B, q, n) when
    ``keep_weights``).  Queries are taken in blocks whose logits stay cache-sized, each block against the keys
    up to its last query only (causal), with plain matrix products; the boundary decisions of all blocks are
    reported in one :class:`~constructions.limit_transformer.precision.BoundaryWarning`."""
    B = Qy.shape[1]
    Qt, Kt, Vt = Qy.transpose(1, 2, 0), Ky.transpose(1, 0, 2), vals.transpose(1, 0, 2)  # (B,q,r) (B,r,n) (B,v,n)
    out = np.empty((vals.shape[0], B, len(queries)))
    kept = np.zeros((B, len(queries), n)) if keep_weights else None
    step = len(queries) if keep_weights else max(1, _CHUNK_LOGITS // (B * n))
    tally = []
    for c0 in range(0, len(queries), step):
        qs = queries[c0:c0 + step]
        keys = int(qs.max()) + 1
        logits = np.matmul(Qt[:, c0:c0 + step], Kt[:, :, :keys])
        _add_phi(logits, phi, qs)
        mask = np.arange(keys)[None, :] <= qs[:, None]  # causal: key j <= query i
        w = float_weights(logits, mask[None, :, :], n, model.precision_bits, model.precision, tally=tally)
        out[:, :, c0:c0 + step] = np.matmul(Vt[:, :, :keys], w.transpose(0, 2, 1)).transpose(1, 0, 2)
        if keep_weights:
            kept[:, c0:c0 + step, :keys] = w
    what = "flush decisions" if model.precision == "izzo" else "rounding decisions"
    warn_boundary(sum(tally), what, model.precision, model.precision_bits, stacklevel=4)
    return out, kept


def _layer(model, layer_params, phis, y, queries, n, factored=None, cache=None):
    """One layer on feature-first activations: attention for the given query columns, then the MLP.

    y: (d, B, n) activations (updated in place when every position is a query), or None with
    ``factored = (ids, E, P)`` for the first layer (y = E[ids] + P is never materialized).
    Returns (d, B, len(queries)).
    """
    heads, mlp = layer_params

    def values(M, cols):  # M applied to y[cols], (r, B, n)
        if factored is None:
            return _apply(M, y[cols])
        ids, E, P = factored
        return (E[:, cols] @ M.T).T[:, ids] + (P[:, cols] @ M.T).T[:, None, :]

    if factored is not None:
        ids, E, P = factored
        Y = np.zeros((E.shape[1], ids.shape[0], len(queries)))
        for r in np.nonzero(np.any(E != 0, axis=0) | np.any(P != 0, axis=0))[0]:  # rows the input writes
            Y[r] = E[ids[:, queries], r] + P[queries, r]
    else:
        Y = y if len(queries) == y.shape[2] else y[:, :, queries]  # fancy indexing copies
    updates, weights = [], []
    for h, phi_m in zip(heads, phis, strict=True):
        if len(h.rows) == 0 and cache is None:
            continue
        vals = values(h.V_sub, h.cols)
        if h.positional:
            updates.append((h.rows, positional_head(vals, np.zeros(vals.shape[:2]), 0, queries[0], queries[-1] + 1, n,
                                                    h.phi, model)))
            if cache is not None:
                weights.append(np.broadcast_to(positional_weight_matrix(h.phi, queries, n, model),
                                               (vals.shape[1], len(queries), n)).copy())
            continue
        out, w = _content_head(model, h, phi_m, _apply(h.Q, Y), values(h.K, np.arange(model.d)), vals, queries, n,
                               keep_weights=cache is not None)
        updates.append((h.rows, out))
        weights.append(w)
    if cache is not None:
        Y = Y.copy()  # keep the recorded stream intact
    # every head read its input above, so Y (which may be y itself) can now be updated in place
    for rows, upd in updates:
        _add_rows(Y, rows, upd)
    if cache is not None:
        cache.attention.append(weights)
        cache.attention_residual.append(np.moveaxis(Y, 0, -1).copy())
    return float_mlp(Y, mlp, cache)


def forward(model: LimitTransformer, strings, *, offset: int = 0, positions: str = "all",
            cache=None) -> np.ndarray:
    """Outputs ``U y_i^(L)`` for a batch of equal-length strings (``$`` is prepended).

    ``strings``: a string, a list of equal-length strings/symbol lists, or an int array of token ids that
    already starts with the ``$`` id 0.  Returns (B, n+1, m) for ``positions="all"`` (position 1 is ``$``)
    or (B, m) for ``positions="last"`` (only the last query of the last layer is computed).
    ``cache``: an :class:`~constructions.limit_transformer.cache.ActivationCache` to fill with every
    intermediate (use :func:`~constructions.limit_transformer.cache.run_with_cache`).
    """
    if positions not in ("all", "last"):
        raise InputError(f"positions must be 'all' or 'last', got {positions!r}")
    if offset < 0:
        raise InputError(f"offset must be >= 0, got {offset}")
    ids = model.encode(strings)
    B, n = ids.shape
    fp = model.float_params
    phis = [[None if fh.positional else fh.phi if isinstance(h.phi, LocalPhi) else _phi_matrix(h.phi, n)
             for h, fh in zip(layer.heads, lp[0], strict=True)]
            for layer, lp in zip(model.layers, fp["layers"], strict=True)]
    pos = _position_vectors(model, np.arange(1, n + 1) + offset)
    out_rows = n if positions == "all" else 1
    # chunk the batch so that the largest tensor (logits or activations) stays bounded
    quadratic = any(not h.positional for heads, _ in fp["layers"] for h in heads)
    chunk = max(1, min(_CHUNK_ELEMENTS // (n * max(model.d, n if quadratic else 1)), _CHUNK_POSITIONS // n))
    if cache is not None:
        chunk = B  # one chunk: the cache holds whole-batch arrays
    out = np.empty((B, out_rows, model.output_dim))
    all_q = np.arange(n)
    for s in range(0, B, chunk):
        ids_c = ids[s : s + chunk]
        y, factored = None, (ids_c, fp["E"], pos)
        if cache is not None:
            y, factored = (fp["E"].T[:, ids_c] + pos.T[:, None, :]), None
            cache.residual.append(np.moveaxis(y, 0, -1).copy())
        for l, lp in enumerate(fp["layers"]):
            last = l == model.depth - 1
            queries = all_q if (not last or positions == "all") else all_q[-1:]
            y = _layer(model, lp, phis[l], y, queries, n, factored, cache)
            factored = None
            if cache is not None:
                cache.residual.append(np.moveaxis(y, 0, -1).copy())
        if model.depth == 0:
            y = fp["E"].T[:, ids_c] + pos.T[:, None, :]
            if positions == "last":
                y = y[:, :, -1:]
        out[s : s + chunk] = _apply(fp["U"], y).transpose(1, 2, 0)
    return out if positions == "all" else out[:, 0, :]


def stream_forward(model: LimitTransformer, string, *, offset: int = 0, positions: str = "last",
                   block: int = 1 << 14) -> np.ndarray:
    """float64 outputs of a model whose heads are all positional-only, in blocks of ``block`` positions.

    Memory is O(block * d + depth * tau * r) whatever the length; the result equals :func:`forward`'s (same
    float64 operations up to summation order).  Returns (m,) for ``positions="last"`` or (n+1, m).

    Linear time with a small constant for wide, deep and sparse models (compiled C-RASP programs: d up to
    ~120, 15 layers, each layer reading and writing a few coordinates): the residual stream of a block is one
    feature-first buffer updated in place, and a layer touches only the coordinates its heads and MLP read or
    write; what a head carries from one block to the next is its values at the last tau positions and the sum
    of its values before them (:func:`positional_head`), never a slice of the stream.
    """
    if positions not in ("all", "last"):
        raise InputError(f"positions must be 'all' or 'last', got {positions!r}")
    if block < 1:
        raise InputError(f"block must be >= 1, got {block}")
    fp = model.float_params
    if not all(h.positional for heads, _ in fp["layers"] for h in heads):
        raise InputError("stream_forward needs every head to be positional-only (K^T Q = 0, Local phi); "
                         "use forward for this model")
    ids = model.encode(string)
    if ids.shape[0] != 1:
        raise InputError("stream_forward evaluates one string at a time")
    with one_blas_thread():
        return _stream(model, fp, ids[0], offset, positions, block)


def _stream(model, fp, ids, offset, positions, block):
    n = len(ids)
    E, U = fp["E"], fp["U"]
    table = getattr(model.positions, "float_table", None)  # periodic encodings; None: none, or a function
    written_by_input = np.any(E != 0, axis=0)
    if table is not None:
        written_by_input |= np.any(table != 0, axis=0)
    elif model.positions is not None:
        written_by_input[:] = True
    in_rows = np.flatnonzero(written_by_input)
    E_in = E[:, in_rows]
    P_in = None if table is None else table[:, in_rows]
    heads = [[h for h in layer_heads if len(h.rows)] for layer_heads, _ in fp["layers"]]
    updated = set().union(*(h.rows for hs in heads for h in hs),
                          *(mlp.B_rows for _, mlp in fp["layers"] if mlp is not None))
    constant_in = np.array(sorted(set(in_rows.tolist()) - updated), dtype=np.intp)  # input rows no layer writes
    reset = updated - set(in_rows)  # rows only layers write: zeroed in every block before the first layer using them
    zero_at = []  # (right before its first use, while the row is about to be read or written: it stays in cache)
    for hs, (_, mlp) in zip(heads, fp["layers"], strict=True):
        used = set().union(*(set(h.rows) | set(h.cols) for h in hs),
                           set() if mlp is None else set(mlp.A_cols) | set(mlp.B_rows))
        zero_at.append(np.array(sorted(reset & used), dtype=np.intp))
        reset -= used
    taus = [[0 if h.phi is None else len(h.phi) - 1 for h in hs] for hs in heads]
    recent = [[np.zeros((len(h.rows), 0)) for h in hs] for hs in heads]  # values of the last tau positions
    bases = [[np.zeros((len(h.rows), 1)) for h in hs] for hs in heads]  # sum of the values before them
    memos = [[{} for _ in hs] for hs in heads]  # each head's softmax terms of a block of steady queries
    u_cols = np.flatnonzero(np.any(U != 0, axis=0))
    buffer = np.zeros((model.d, min(block, n)))
    outs = []
    for s in range(0, n, block):
        e = min(n, s + block)
        y = buffer[:, : e - s]
        where = np.arange(s + 1, e + 1) + offset
        if P_in is not None:
            y[in_rows] = (E_in[ids[s:e]] + P_in[(where - 1) % len(P_in)]).T
        elif model.positions is not None:
            y[in_rows] = (E_in[ids[s:e]] + _position_vectors(model, where)[:, in_rows]).T
        else:
            y[in_rows] = E_in[ids[s:e]].T
        # input rows that no layer writes and that are 0 in this whole block (the $ coordinate after the first
        # block, a token's indicator where it does not occur): terms reading them are skipped
        zero = frozenset(constant_in[~np.any(y[constant_in] != 0, axis=1)].tolist())
        for l, (_, mlp) in enumerate(fp["layers"]):
            y[zero_at[l]] = 0.0
            updates = []
            for h, fh in enumerate(heads[l]):
                kept = recent[l][h].shape[1]
                vals = np.empty((len(fh.rows), kept + e - s))  # values of positions start .. e-1
                vals[:, :kept] = recent[l][h]
                if fh.V_terms is not None:  # sparse V (compiled programs): row by row from the stream
                    for k, terms in enumerate(fh.V_terms):
                        _term_sum(y, _nonzero_terms(terms, zero), vals[k, kept:])
                else:
                    np.matmul(fh.V_sub, y[fh.cols], out=vals[:, kept:])
                start = s - kept
                out = positional_head(vals[:, None, :], bases[l][h], start, s, e, n, fh.phi, model, memos[l][h])
                leave = max(0, vals.shape[1] - taus[l][h])  # positions that leave the window join the base sum
                bases[l][h] = bases[l][h] + vals[:, None, :leave].sum(axis=2)
                recent[l][h] = vals[:, leave:]
                updates.append((fh.rows, out[:, 0, :]))
            for rows, upd in updates:  # every head read the stream before any writes it
                _add_rows(y, rows, upd)
            float_mlp(y, mlp, zero_rows=zero)
        last = y[u_cols, -1:] if positions == "last" else y[u_cols]
        outs.append(U[:, u_cols] @ last)
    out = np.concatenate(outs, axis=1).T
    return out[-1] if positions == "last" else out
