"""Certified gamma and norms of a one-layer model in interval mode (:mod:`bounds.certified`).

Same definitions as :mod:`bounds.margin` (completed / printed logit sets, see its docstring); here every logit
is an enclosure.  The logit of query class (s, i) and key class (t, r) splits exactly as

    (Q(E_s + p_i)) . (K(E_t + p_r)) = QE_s.KE_t + QE_s.KP_r + QP_i.KE_t + QP_i.KP_r,

four small products ((|Sigma|+1)^2, (|Sigma|+1) Delta, Delta^2 entries) instead of one of size
(|Sigma| Delta)^2 x r.  For each query class the values are sorted by midpoint; with r the largest radius of the
row, every two values whose midpoints differ by m differ by at least m - 2r, so ``min(m) - 2r`` is a certified
lower bound of the row's smallest positive gap, unless two values are within 2r of each other.  Such a near-tie
is decided exactly (the two logits recomputed in ``Fraction``) when the exact model is at hand and small enough;
otherwise the margin is reported as *unresolved* (lower bound 0: no hardmax threshold can be certified).
Duplicates that are equal by construction (a window key with phi = 0 is the same logit as the far key) are
removed before sorting.  The result is a lower bound gamma_lo <= gamma (exact rational endpoint), which can only
raise the hardmax threshold: sound for the estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from bounds.certified import Ball, add, matmul, sq_norm_upper

_EXACT_TIE_BUDGET = 40_000  # d * r above which near-ties are not decided exactly
_MAX_EXACT_TIES = 200
_CHUNK = 256


@dataclass(frozen=True)
class IntervalMargin:
    gamma_lower: Fraction | None  # None: +inf (no two distinct logits anywhere)
    unresolved: bool  # a near-tie could not be decided: gamma_lower is 0
    head: int | None = None
    query_token: str | None = None
    query_residue: int | None = None
    top: float | None = None
    below: float | None = None
    exact_ties: int = 0


def _blocks(im, head):
    E, P = im.embedding, im.positions
    QE, KE = matmul(E, head.query.T), matmul(E, head.key.T)
    a = matmul(QE, KE.T)
    if P is None:
        z = np.zeros((E.mid.shape[0], 1))
        return a, Ball(z, z), Ball(z.T, z.T), Ball(np.zeros((1, 1)), np.zeros((1, 1)))
    QP, KP = matmul(P, head.query.T), matmul(P, head.key.T)
    return a, matmul(QE, KP.T), matmul(QP, KE.T), matmul(QP, KP.T)


def _row_values(im, blocks, head, s, i, definition, offset):
    """Midpoints, radii and sources (t, r, k) of the logit set of query classes (s[j], i[j]) (arrays)."""
    a, b, c, e = blocks
    S, delta = len(im.alphabet), im.period
    tau = len(head.phi.mid) - 1
    toks = np.arange(1, S + 1)
    A = add(Ball(a.mid[s][:, toks], a.rad[s][:, toks]), Ball(c.mid[i][:, toks], c.rad[i][:, toks]))  # C x S
    B = add(b[s], e[i])  # C x Delta
    far = add(Ball(A.mid[:, :, None], A.rad[:, :, None]), Ball(B.mid[:, None, :], B.rad[:, None, :]))  # C x S x D
    C = len(s)
    mids, rads, srcs = [], [], []
    rows = np.arange(C)
    phi_zero = head.phi.mid == 0
    if definition == "completed":
        mids.append(far.mid.reshape(C, -1))
        rads.append(far.rad.reshape(C, -1))
        srcs += [(t, r, None) for t in toks for r in range(delta)]
        bos = offset % delta
        db = add(add(a[s][:, 0], c[i][:, 0]), add(b[s][:, bos], e[i][:, bos]))
        mids.append(db.mid[:, None])
        rads.append(db.rad[:, None])
        srcs.append((0, bos, None))
    for k in range(tau + 1):
        if definition == "completed" and phi_zero[k]:
            continue  # the same logits as the far keys
        col = (i - k) % delta
        w = add(Ball(far.mid[rows, :, col], far.rad[rows, :, col]), head.phi[k])
        mids.append(w.mid)
        rads.append(w.rad)
        srcs += [(t, "w", k) for t in toks]
    if definition == "completed":
        bos = offset % delta
        for k in range(tau + 1):
            hit = (i - k - bos) % delta == 0
            if not hit.any() or phi_zero[k]:
                continue
            db = add(add(add(a[s][:, 0], c[i][:, 0]), add(b[s][:, bos], e[i][:, bos])), head.phi[k])
            mids.append(np.where(hit, db.mid, np.inf)[:, None])
            rads.append(np.where(hit, db.rad, 0.0)[:, None])
            srcs.append((0, bos, k))
    return np.concatenate(mids, axis=1), np.concatenate(rads, axis=1), srcs


def _exact_logit(model, h, s, i, src, offset):
    head = model.layers[0].heads[h]
    delta = model.period
    t, r, k = src
    table = model.positions.table if model.positions is not None else None
    yq = model.embedding[s] + (table[i] if table is not None else 0)
    kr = r if r != "w" else None
    if kr is None:
        kr = (i - k) % delta
    yk = model.embedding[t] + (table[kr] if table is not None else 0)
    val = Fraction(head.key.dot(yk).dot(head.query.dot(yq)))
    if k is not None:
        vals = head.phi.values if head.phi is not None else ()
        val += vals[k] if k < len(vals) else 0
    return val


def _dyadic_ints(x: np.ndarray):
    """Exact doubles as Python ints times 2^e (object array, e): x = ints * 2^e."""
    m, e = np.frexp(x)
    mant = (m * 2.0**53).astype(np.int64)
    nz = mant != 0
    e0 = int(e[nz].min()) if nz.any() else 0
    shift = (e - e0).astype(np.int64)
    ints = np.array([int(a) << int(b) for a, b in zip(mant.flat, shift.flat, strict=True)], dtype=object)
    return ints.reshape(x.shape), e0 - 53


class _DyadicLogits:
    """Exact logits of a file-read model whose parameters are all exact doubles (radius 0)."""

    def __init__(self, im, h):
        head = im.heads[h]
        self.im, self.head = im, head
        self.Q, self.eQ = _dyadic_ints(head.query.mid)
        self.K, self.eK = _dyadic_ints(head.key.mid)

    def _vec(self, t, r):
        pos = self.im.positions.mid[r] if self.im.positions is not None else np.zeros(self.im.d)
        return [Fraction(a) + Fraction(b) for a, b in zip(self.im.embedding.mid[t], pos, strict=True)]

    def logit(self, s, i, src):
        t, r, k = src
        if r == "w":
            r = (i - k) % self.im.period
        yq, yk = self._vec(s, i), self._vec(t, r)
        den = 1
        for v in yq + yk:
            den = max(den, v.denominator)
        q = self.Q.dot(np.array([int(v * den) for v in yq], dtype=object))
        kk = self.K.dot(np.array([int(v * den) for v in yk], dtype=object))
        val = Fraction(int(q.dot(kk))) * Fraction(2) ** (self.eQ + self.eK) / (den * den)
        if k is not None:
            val += Fraction(float(self.head.phi.mid[k]))
        return val


def _exact_source(im, exact_model, h):
    """A callable (s, i, src) -> exact logit, or None when near-ties cannot be decided exactly."""
    if exact_model is not None:
        head = exact_model.layers[0].heads[h]
        if exact_model.d * max(1, head.query.shape[0]) > _EXACT_TIE_BUDGET:
            return None
        return lambda s, i, src: _exact_logit(exact_model, h, s, i, src, 0)
    head = im.heads[h]
    parts = [im.embedding, head.query, head.key, head.phi] + ([im.positions] if im.positions is not None else [])
    if all(not np.any(p.rad) for p in parts):
        return _DyadicLogits(im, h).logit
    return None


def interval_margin(im, definition: str = "completed", offset: int = 0, exact_model=None) -> IntervalMargin:
    """Certified lower bound of gamma (see the module docstring)."""
    best = None  # (gap_lower, head, s, i, top, below)
    unresolved, ties = False, 0
    S, delta = len(im.alphabet), im.period
    qs = np.array([(s, i) for s in range(1, S + 1) for i in range(delta)])
    for h, head in enumerate(im.heads):
        blocks = _blocks(im, head)
        exact, tried = None, False
        for start in range(0, len(qs), _CHUNK):
            s, i = qs[start:start + _CHUNK, 0], qs[start:start + _CHUNK, 1]
            mid, rad, srcs = _row_values(im, blocks, head, s, i, definition, offset)
            sm = np.sort(mid, axis=1)
            r2 = 2 * np.max(np.where(np.isfinite(mid), rad, 0), axis=1, keepdims=True)
            with np.errstate(invalid="ignore"):
                diff = np.diff(sm, axis=1)
            lower = (diff - r2) * (1 - 2**-50) - 2.0**-1000  # rounding of diff and of the subtraction
            lower = np.where(np.isfinite(diff), lower, np.inf)
            near = np.isfinite(diff) & (lower <= 0)
            order = {}
            for row, j in zip(*np.nonzero(near), strict=True):
                if row not in order:
                    order[row] = np.argsort(mid[row], kind="stable")
                if exact is None and not tried:
                    exact, tried = _exact_source(im, exact_model, h), True
                if exact is None or ties >= _MAX_EXACT_TIES:
                    unresolved = True
                    lower[row, j] = np.inf
                    continue
                ties += 1
                q = (int(s[row]), int(i[row]))
                hi_src, lo_src = srcs[order[row][j + 1]], srcs[order[row][j]]
                gap = exact(*q, hi_src) - exact(*q, lo_src)
                if gap == 0:
                    lower[row, j] = np.inf  # an exact tie is not a gap
                else:  # decided: an exact positive gap, possibly tiny
                    lower[row, j] = float(abs(gap)) * (1 - 2**-50)
            if lower.size == 0:
                continue
            row, j = np.unravel_index(np.argmin(lower), lower.shape)
            g = lower[row, j]
            if np.isfinite(g) and (best is None or g < best[0]):
                best = (g, h, int(s[row]), int(i[row]), float(sm[row, j + 1]), float(sm[row, j]))
    if unresolved:
        return IntervalMargin(Fraction(0), True, exact_ties=ties)
    if best is None:
        return IntervalMargin(None, False, exact_ties=ties)
    g, h, s, i, top, below = best
    return IntervalMargin(Fraction(max(g, 0.0)), False, h, im.alphabet[s - 1], i, top, below, ties)


@dataclass(frozen=True)
class IntervalNorms:
    """Upper bounds of the squared norms the bounds use (floats, certified upward)."""

    A_f2: float
    B_f2: float
    U_f2: float
    value_max2: tuple  # per head: max over classes of ||V y||^2

    @property
    def value_max2_total(self) -> float:
        return max(self.value_max2) if self.value_max2 else 0.0


def interval_norms(im, definition: str = "completed") -> IntervalNorms:
    vmax = []
    for head in im.heads:
        VE = matmul(im.embedding, head.value.T)
        if definition == "printed" or im.positions is None:
            rows = VE[1:] if definition == "printed" else VE
            vmax.append(float(np.max(sq_norm_upper(rows, axis=1))))
            continue
        VP = matmul(im.positions, head.value.T)
        allv = add(Ball(VE.mid[:, None, :], VE.rad[:, None, :]), Ball(VP.mid[None], VP.rad[None]))
        vmax.append(float(np.max(sq_norm_upper(allv, axis=2))))
    a2 = float(sq_norm_upper(im.mlp_A)) if im.mlp_A is not None else 0.0
    b2 = float(sq_norm_upper(im.mlp_B)) if im.mlp_B is not None else 0.0
    return IntervalNorms(a2, b2, float(sq_norm_upper(im.unembedding)), tuple(vmax))
