"""Linear-time evaluation of one-layer Limit Transformers in the hardmax regime (Izzo et al. sec. 3.2, App. A.1).

With Periodic and Local, the logit of key j for query i depends only on the query's class, the key's class
``(token, position mod Delta)`` and, inside the tau-window, the offset i - j.  Under the ``izzo`` precision
model in the hardmax regime, head output = average of ``V(E_t + p_r)`` over the argmax keys, so class
counts of the prefix plus the tau-window suffice: O(n) for all positions, O(n) (one bincount) for the last.
Every query's hardmax condition (``n^gap >= 2^p`` for the best strictly smaller logit) is checked; a
query that fails raises :class:`NotHardmaxError`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from constructions.limit_transformer.errors import InputError, NotHardmaxError
from constructions.limit_transformer.evaluate import float_mlp
from constructions.limit_transformer.exact import exact_mlp
from constructions.limit_transformer.model import LimitTransformer
from constructions.limit_transformer.precision import flushes
from constructions.limit_transformer.rationals import to_float


class _Classes:
    """Exact per-class quantities: class c = token * Delta + residue, residue = (pos - 1) mod Delta."""

    def __init__(self, model: LimitTransformer):
        self.delta, self.tau = model.require_periodic_and_local("the counting evaluator")
        if model.depth != 1:
            raise InputError(f"the counting evaluator handles one-layer models; this one has {model.depth} layers")
        if model.precision != "izzo":
            raise NotHardmaxError("the counting evaluator needs the 'izzo' precision model (flush to a hardmax); "
                                  "the 'huang' model keeps sub-maximal terms: use exact_forward or forward")
        V = len(model.alphabet) + 1
        self.n_classes = V * self.delta
        table = model.positions.table if model.positions is not None else None
        vecs = []
        for t in range(V):
            for r in range(self.delta):
                v = model.embedding[t].copy()
                if table is not None:
                    v = v + table[r]
                vecs.append(v)
        self.x = np.array(vecs, dtype=object)  # class input vectors y^(0)
        self.heads = []
        for head in model.layers[0].heads:
            keys = self.x.dot(head.key.T)
            qrs = self.x.dot(head.query.T)
            logit = qrs.dot(keys.T)  # [query class, key class]
            phi = head.phi.values if head.phi is not None else (Fraction(0),)
            self.heads.append((logit, self.x.dot(head.value.T), phi, to_float(logit), to_float(self.x.dot(head.value.T)),
                               np.array([float(v) for v in phi])))
        self.layer = model.layers[0]


def _class_ids(ids: np.ndarray, delta: int, offset: int) -> np.ndarray:
    pos = np.arange(1, len(ids) + 1) + offset
    return ids * delta + (pos - 1) % delta


def _query_exact(model, C: _Classes, cls: np.ndarray, counts: np.ndarray, i: int, n: int) -> np.ndarray:
    """Exact output at 0-based query index i; ``counts`` are class counts of keys 0..i-tau-1."""
    qc = cls[i]
    Y = C.x[qc].copy()
    for h, (logit, values, phi, *_) in enumerate(C.heads, 1):
        entries = [(logit[qc, c], c, int(k)) for c, k in enumerate(counts) if k]
        for j in range(max(0, i - C.tau), i + 1):
            off = i - j
            entries.append((logit[qc, cls[j]] + (phi[off] if off < len(phi) else 0), cls[j], 1))
        top = max(e[0] for e in entries)
        below = [top - e[0] for e in entries if e[0] != top]
        if below and not flushes(min(below), n, model.precision_bits):
            raise NotHardmaxError(
                f"head {h} query {i + 1}: logit gap {min(below)} survives the 2^-{model.precision_bits} flush at "
                f"length n={n}; the counting evaluator needs n^gap >= 2^p (use exact_forward or forward)")
        total = sum(k for a, _, k in entries if a == top)
        acc = sum((values[c] * k for a, c, k in entries if a == top), np.zeros(model.d, dtype=object) + Fraction(0))
        Y = Y + acc / total
    return exact_mlp(Y, model.layers[0].mlp).dot(model.unembedding.T)


def counting_forward(model: LimitTransformer, string, *, offset: int = 0, positions: str = "last",
                     exact: bool = True) -> np.ndarray:
    """Outputs of a one-layer Periodic+Local model under the izzo model in the hardmax regime, in O(n).

    ``exact=True`` returns Fractions ((m,) for ``positions="last"``, (n+1, m) for ``"all"``); ``exact=False``
    returns float64 and, for ``positions="all"``, is fully vectorized.
    """
    if positions not in ("all", "last"):
        raise InputError(f"positions must be 'all' or 'last', got {positions!r}")
    C = _Classes(model)
    ids = model.encode(string)
    if ids.shape[0] != 1:
        raise InputError("counting_forward evaluates one string at a time")
    ids = ids[0]
    n = len(ids)
    cls = _class_ids(ids, C.delta, offset)
    if positions == "last" or exact:
        queries = [n - 1] if positions == "last" else range(n)
        if positions == "last":
            prefix = np.bincount(cls[: max(0, n - 1 - C.tau)], minlength=C.n_classes)
            out = [_query_exact(model, C, cls, prefix, n - 1, n)]
        else:
            out, prefix = [], np.zeros(C.n_classes, dtype=np.int64)
            for i in queries:
                if i - C.tau - 1 >= 0:
                    prefix[cls[i - C.tau - 1]] += 1
                out.append(_query_exact(model, C, cls, prefix, i, n))
        out = np.array(out, dtype=object)
        if not exact:
            out = to_float(out)
        return out[0] if positions == "last" else out
    return _all_positions_float(model, C, cls, n)


def _all_positions_float(model, C: _Classes, cls: np.ndarray, n: int) -> np.ndarray:
    """Vectorized float64 outputs at every position (prefix class counts by cumulative sums)."""
    onehot = np.zeros((n, C.n_classes), dtype=np.int64)
    onehot[np.arange(n), cls] = 1
    cum = np.cumsum(onehot, axis=0)
    idx = np.arange(n)
    far = np.where((idx - C.tau - 1)[:, None] >= 0, cum[np.clip(idx - C.tau - 1, 0, None)], 0)  # (n, classes)
    X = to_float(C.x)
    Y = X[cls].copy()
    for h, (logit, _, phi, _, values, _) in enumerate(C.heads, 1):
        # ties and gaps are decided on exact ranks of the finitely many logit values (never float equality)
        shifts = [phi[off] if off < len(phi) else Fraction(0) for off in range(C.tau + 1)]
        vals = sorted({x + s for x in logit.flat for s in (Fraction(0), *shifts)})
        rank = {v: r for r, v in enumerate(vals)}
        far_rank = np.vectorize(rank.__getitem__, otypes=[np.int64])(logit)
        win_rank = [np.vectorize(lambda x, s=s, rank=rank: rank[x + s], otypes=[np.int64])(logit) for s in shifts]
        Lfar = np.where(far > 0, far_rank[cls], -1)  # (n, classes): far-key logit ranks per query
        win = np.full((n, C.tau + 1), -1, dtype=np.int64)
        for off in range(C.tau + 1):
            ok = idx - off >= 0
            win[ok, off] = win_rank[off][cls[ok], cls[idx[ok] - off]]
        allv = np.concatenate([Lfar, win], axis=1)
        top = allv.max(axis=1, keepdims=True)
        below = np.where(allv < top, allv, -1).max(axis=1)
        for t, b in {(int(t), int(b)) for t, b in zip(top[:, 0], below, strict=True) if b >= 0}:
            if not flushes(vals[t] - vals[b], n, model.precision_bits):
                i = int(np.nonzero((top[:, 0] == t) & (below == b))[0][0])
                raise NotHardmaxError(f"head {h} query {i + 1}: logit gap {vals[t] - vals[b]} survives the flush "
                                      f"at length n={n}")
        w_far = np.where(Lfar == top, far, 0)
        w_win = (win == top).astype(np.float64)
        total = w_far.sum(axis=1) + w_win.sum(axis=1)
        acc = w_far @ values
        for off in range(C.tau + 1):
            ok = idx - off >= 0
            acc[ok] += w_win[ok, off, None] * values[cls[idx[ok] - off]]
        Y = Y + acc / total[:, None]
    fp = model.float_params
    return float_mlp(Y.T.copy(), fp["layers"][0][1]).T @ fp["U"].T  # float_mlp is feature-first
