"""Certified gamma and norms of a one-layer model in interval mode (:mod:`bounds.float_enclosures`).

Same definitions as :mod:`bounds.margin` (completed / printed logit sets, see its docstring); here every logit
is an enclosure.  The logit of query class (s, i) and key class (t, r) splits exactly as

    (Q(E_s + p_i)) . (K(E_t + p_r)) = QE_s.KE_t + QE_s.KP_r + QP_i.KE_t + QP_i.KP_r,

four small products ((|Sigma|+1)^2, (|Sigma|+1) Delta, Delta^2 entries) instead of one of size
(|Sigma| Delta)^2 x r.  For each query class the values are sorted by midpoint; with r the largest radius of the
row, every two values whose midpoints differ by m differ by at least m - 2r, so ``min(m) - 2r`` is a certified
lower bound of the row's smallest positive gap, unless two values are within 2r of each other.  Such near-ties
are decided exactly: a maximal run of consecutive near-tied values (a *cluster*) is recomputed in exact
arithmetic (``Fraction`` from the exact model when at hand and small enough, else exact integer arithmetic on the
doubles of a file-read model whose parameters are exact), sorted, and its smallest positive exact gap taken; two
values in different clusters are separated by a certified step, so their gap is at least that step's bound.
(Deciding only adjacent near-tied pairs, as an earlier version did, is not enough: three values within 2r can be
ordered differently by their midpoints and by their exact values.)  When near-ties cannot be decided the margin
is reported as *unresolved* (lower bound 0: no hardmax threshold can be certified).  Duplicates that are equal by
construction (a window key with phi = 0 is the same logit as the far key) are removed before sorting.  The
result is a lower bound gamma_lo <= gamma (exact rational endpoint), which can only raise the hardmax threshold:
sound for the estimate.

Speed (d = 512, |Sigma| = 100, Delta = 64: 6400 rows of 6700 logits): a first pass computes for every row a lower
bound m of the smallest gap of its midpoints (the same doubles as the detailed pass), from sorted 32-bit keys of the
midpoints (those of the far logits written straight from the scaled A and B: :func:`_key_gaps`) or, for rows of
near-ties, from the sorted midpoints, and an upper bound R of the row's radii that needs no per-logit radius:
every far logit is ``fl(A_t + B_r)`` with radius ``fl(fl(fl(rad A_t + rad B_r) + fl(|fl(A_t + B_r)| u)) (1 + 4u)) + TINY`` (:func:`bounds.float_enclosures.add`),
non-decreasing in ``rad A_t + rad B_r`` and in the magnitude, and ``|fl(A_t + B_r)| <= fl(|A_t| + |B_r|)``, so the
same expression at ``fl(max rad A + max rad B)`` and ``fl(max |A| + max |B|)`` bounds them all.  ``m - 2R`` is then
a certified bound of the whole row (when positive).  Rows are then taken in increasing order of that bound and
recomputed with every logit's own radius, near-ties decided as above, until the next row's bound is no smaller
than the best gap found: every row left out has a bound at least that gap, so the result is the minimum over
all rows of the detailed lower bounds.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

import numpy as np

from bounds.float_enclosures import TINY, Ball, U, add, matmul, sq_norm_upper
from constructions.blas import one_blas_thread

_EXACT_TIE_BUDGET = 40_000  # d * r above which near-ties are not decided exactly
_MAX_EXACT_TIES = 200
_CHUNK_VALUES = 2**19  # logits per first-pass block (query classes x logits per class; about 4 MB of doubles)
_BATCH = 32  # rows per detailed block
_MAX_THREADS = 8  # first-pass threads at most (one per available core)


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


def _phi_zero(head) -> np.ndarray:
    """Which window offsets have phi exactly 0 (their logits are the far keys'): decided on the exact values where
    known, else only where the enclosure is the point 0 -- never by a double, which reads a legal phi of 10^-400
    (or any value below the smallest subnormal) as 0."""
    if head.phi_exact is not None:
        return np.array([v == 0 for v in head.phi_exact], dtype=bool)
    return (head.phi.mid == 0) & (head.phi.rad == 0)


def _row_parts(im, blocks, head, s, i, definition, offset, sources=True):
    """The logit set of query classes (s[j], i[j]) (arrays), in parts: the far logits are ``A[:, t] + B[:, r]``
    (Balls C x |Sigma| and C x Delta, keys (t, r) in that order), the other logits are listed as (mid, rad,
    sources) blocks of C rows (window keys and $; sources None unless asked for)."""
    a, b, c, e = blocks
    S, delta = len(im.alphabet), im.period
    tau = len(head.phi.mid) - 1
    A = add(Ball(a.mid[s, 1:], a.rad[s, 1:]), Ball(c.mid[i, 1:], c.rad[i, 1:]))  # C x S (key tokens 1..S)
    B = add(b[s], e[i])  # C x Delta
    rows = np.arange(len(s))
    phi_zero = _phi_zero(head)
    parts = []
    bos = offset % delta
    if definition == "completed":
        dollar = add(add(Ball(a.mid[s, 0], a.rad[s, 0]), Ball(c.mid[i, 0], c.rad[i, 0])),
                     add(Ball(b.mid[s, bos], b.rad[s, bos]), Ball(e.mid[i, bos], e.rad[i, bos])))
        parts.append((dollar.mid[:, None], dollar.rad[:, None], [(0, bos, None)] if sources else None))
    for k in range(tau + 1):
        if definition == "completed" and phi_zero[k]:
            continue  # the same logits as the far keys
        col = (i - k) % delta
        w = add(add(A, Ball(B.mid[rows, col][:, None], B.rad[rows, col][:, None])), head.phi[k])
        parts.append((w.mid, w.rad, [(t, "w", k) for t in range(1, S + 1)] if sources else None))
    if definition == "completed":
        for k in range(tau + 1):
            hit = (i - k - bos) % delta == 0
            if not hit.any() or phi_zero[k]:
                continue
            db = add(dollar, head.phi[k])
            parts.append((np.where(hit, db.mid, np.inf)[:, None], np.where(hit, db.rad, 0.0)[:, None],
                          [(0, bos, k)] if sources else None))
    return A, B, parts


def _row_values(im, blocks, head, s, i, definition, offset):
    """Midpoints, radii and sources (t, r, k) of the logit set of query classes (s[j], i[j]) (arrays)."""
    A, B, parts = _row_parts(im, blocks, head, s, i, definition, offset)
    mids, rads, srcs = [], [], []
    if definition == "completed":
        far = add(Ball(A.mid[:, :, None], A.rad[:, :, None]), Ball(B.mid[:, None, :], B.rad[:, None, :]))
        mids.append(far.mid.reshape(len(s), -1))
        rads.append(far.rad.reshape(len(s), -1))
        srcs += [(t, r, None) for t in range(1, len(im.alphabet) + 1) for r in range(im.period)]
    for mid, rad, src in parts:
        mids.append(mid)
        rads.append(rad)
        srcs += src
    return np.concatenate(mids, axis=1), np.concatenate(rads, axis=1), srcs


def _row_bounds(im, blocks, head, s, i, definition, offset):
    """Certified lower bound of each row's smallest positive gap, or <= 0 where near-ties are possible (+inf for
    a row with fewer than two finite logits); the first pass of the module docstring.  Each bound is at most
    :func:`_sorted_gap_bounds`' of the same row (what the detailed pass needs of it), computed from sorted 32-bit
    keys where they suffice (:func:`_key_gaps`) and by that function elsewhere."""
    A, B, parts = _row_parts(im, blocks, head, s, i, definition, offset, sources=False)
    C = len(s)
    far = (A.mid, B.mid) if definition == "completed" else None
    other = np.concatenate([m for m, _, _ in parts], axis=1) if parts else np.zeros((C, 0))
    radius = np.zeros(C)
    lo, hi = np.full(C, np.inf), np.full(C, -np.inf)  # the smallest and largest finite value of each row
    if far:
        rad_sum = np.max(A.rad, axis=1) + np.max(B.rad, axis=1)
        mag = np.max(np.abs(A.mid), axis=1) + np.max(np.abs(B.mid), axis=1)
        radius = (rad_sum + mag * U) * (1 + 4 * U) + TINY  # bounds every far radius (module docstring)
        lo = np.min(A.mid, axis=1) + np.min(B.mid, axis=1)  # rounding is monotone: the extreme far values
        hi = np.max(A.mid, axis=1) + np.max(B.mid, axis=1)
    col, inf_cols = 0, []
    for mid, rad, _ in parts:
        finite = np.isfinite(mid)
        radius = np.maximum(radius, np.max(np.where(finite, rad, 0), axis=1))
        lo = np.minimum(lo, np.min(mid, axis=1))
        hi = np.maximum(hi, np.max(np.where(finite, mid, -np.inf), axis=1))
        if not finite.all():
            inf_cols += range(col, col + mid.shape[1])
        col += mid.shape[1]
    gap, exact = _key_gaps(other, lo, hi, inf_cols, far)
    out = np.where(np.isfinite(gap), (gap - 2 * radius) * (1 - 2**-50) - 2.0**-1000, np.inf)
    if exact.any():
        rows = np.flatnonzero(exact)
        vals = [other[rows]]
        if far:
            vals.insert(0, (A.mid[rows, :, None] + B.mid[rows, None, :]).reshape(len(rows), -1))
        out[rows] = _sorted_gap_bounds(np.concatenate(vals, axis=1), radius[rows])
    return out


def _sorted_gap_bounds(vals: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """The first-pass bound of rows of midpoints (+inf for a missing logit) whose radii are at most ``radius``:
    with m the smallest difference of two sorted neighbours, ``m - 2 radius`` rounded down (+inf for a row with
    fewer than two finite values)."""
    vals = np.sort(vals, axis=1)
    with np.errstate(invalid="ignore"):
        gap = np.fmin.reduce(np.diff(vals, axis=1), axis=1, initial=np.inf)  # NaN (inf - inf) ignored
    return np.where(np.isfinite(gap), (gap - 2 * radius) * (1 - 2**-50) - 2.0**-1000, np.inf)


_KEY_SPAN = 2.0**31  # finite values are keyed in [0, 2^31 + 1]; missing ones (+inf) above, 2^31 / (count + 1) apart
_KEY_SLACK = 1 + 2.0**-5  # key units lost to the truncation and the roundings of a key (see _key_gaps)
_MAX_OFFSET = 2.0**-8  # at most u max(|lo|, |hi|) sc, in key units, else the row is sorted as doubles


def _key_gaps(other: np.ndarray, lo, hi, inf_cols: list, far=None) -> tuple[np.ndarray, np.ndarray]:
    """(g, exact): g a lower bound of the smallest difference of two finite values of each row, no larger than the
    difference of any two of its doubles, and ``exact`` the rows it cannot bound (g is then NaN).  A row's values
    are the columns of ``other`` and, with ``far = (A, B)``, the doubles ``fl(A_t + B_r)`` for every t, r;
    ``lo <= v <= hi`` for each finite value v.

    Keys, with ``sc = 2^31 / (hi - lo)``: ``trunc(fl(fl(v - lo) sc))`` for a column of ``other``; for (t, r)
    ``trunc(fl(a_t + b_r))`` with ``b_r = fl(fl(B_r - min B) sc)``, ``a_t = fl(fl(fl(A_t - min A) sc) + c)`` and
    ``c = fl(fl(fl(min A + min B) - lo) sc)`` -- one pass over the |A| |B| values, writing the uint32 keys, instead
    of building, shifting, scaling and converting their doubles.  Every term is >= 0 and each rounding has
    relative error at most u = 2^-53, so with ``x = (w - lo) sc`` for the exact value w (``A_t + B_r``, or v)
    every key K satisfies ``x (1 - u)^4 - e - 1 < K <= x (1 + u)^4 + e``, where ``e = (1 + u)^4 u M sc``
    (M = max(|lo|, |hi|)) covers ``min A + min B - fl(min A + min B)``.  With ``e <= 2^-8`` (rows beyond are left
    to the exact sort) and ``|x| <= 2^31 + 1``, two values with keys K < K' have ``(w' - w) sc > K' - K - 1 -
    2^-6``, and their doubles, each within ``u M`` of w, differ by more than ``(K' - K - 1 - 2^-5) / sc``.  Sorted
    as uint32, the smallest difference D of neighbouring keys is at most every |K' - K|, so
    ``g = (D - 1 - 2^-5) / sc`` rounded down bounds every difference when ``D >= 2``.  Rows with D < 2 (equal or
    nearly equal values, the rows near-ties can come from), with ``hi <= lo``, an infinite ``sc`` or ``e > 2^-8``
    are left to the exact sort.  The (at most a few) columns of ``other`` that may hold +inf get keys
    2^31 (1 + j / (m + 1)), j = 1..m: apart from each other and from every finite key (at most 2^31 + 1) by more
    than 2, they can only lower g, never hide a gap."""
    C, m = other.shape
    n_far = 0 if far is None else far[0].shape[1] * far[1].shape[1]
    n = n_far + m
    keys = np.empty((C, n), np.uint32)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        sc = _KEY_SPAN / (hi - lo)
        ok = np.isfinite(sc) & (hi > lo) & (n >= 2) & (U * np.maximum(np.abs(lo), np.abs(hi)) * sc <= _MAX_OFFSET)
        scale = np.where(ok, sc, 0.0)[:, None]
        if n_far:
            A, B = far
            low_a, low_b = np.min(A, axis=1)[:, None], np.min(B, axis=1)[:, None]
            a = (A - low_a) * scale
            a += ((low_a + low_b) - lo[:, None]) * scale  # c
            b = (B - low_b) * scale
            np.add(a[:, :, None], b[:, None, :], out=keys[:, :n_far].reshape(C, A.shape[1], B.shape[1]),
                   casting="unsafe")  # each sum truncated to uint32 as it is written
        if m:
            y = (other - lo[:, None]) * scale
            for j, c in enumerate(inf_cols, 1):
                y[:, c] = np.where(np.isinf(other[:, c]), _KEY_SPAN * (1 + j / (len(inf_cols) + 1)), y[:, c])
            y[~ok] = 0.0
            keys[:, n_far:] = y  # truncation: the floor of a value >= 0
    keys.sort(axis=1)
    least = np.min(np.diff(keys, axis=1), axis=1) if n >= 2 else np.zeros(C, np.uint32)
    exact = ~ok | (least < 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = (least.astype(np.float64) - _KEY_SLACK) / sc * (1 - 2**-50)
    return np.where(exact, np.nan, g), exact


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


def _digit_width(d: int) -> int:
    """w with d 2^(2w) <= 2^53: a length-d dot product of base-2^w digits is exact in float64."""
    return (53 - int(np.ceil(np.log2(d + 1)))) // 2


def _dyadic_digits(X: np.ndarray, w: int):
    """X = (sum_j D_j 2^(w j)) 2^e exactly, as ([D_0, D_1, ...], e) with D_j float64 integer matrices, |D_j| < 2^w
    (signed like X); None when X's entries span more exponents than a scaled double holds."""
    nz = X[X != 0]
    if nz.size == 0:
        return [np.zeros_like(X)], 0
    e = int(np.frexp(nz)[1].min()) - 53  # every entry is an integer multiple of 2^e
    with np.errstate(over="ignore"):
        scaled = np.ldexp(np.abs(X), -e)  # exact integers
    if not np.all(np.isfinite(scaled)):
        return None
    digits, rest, sign = [], scaled, np.sign(X)
    for _ in range(int(np.frexp(scaled.max())[1]) // w + 1):
        high = np.floor(rest * 2.0**-w)  # exact: a power-of-two scaling, then an integer part
        digits.append(sign * (rest - high * 2.0**w))  # exact (Sterbenz): an integer in [0, 2^w)
        rest = high
    return digits, e


def _exact_products(dm, dv, w: int) -> np.ndarray:
    """M @ V in Python ints from the digits of M and V (:func:`_dyadic_digits`; the exponents add): every product
    of two digit matrices is a float64 matrix product whose partial sums are integers below 2^53, hence exact in
    any summation order; they are summed per power of 2^w in int64 and assembled in Python ints."""
    total = 0
    for shift in range(len(dm) + len(dv) - 1):
        part = sum((dm[j] @ dv[shift - j]).astype(np.int64) for j in range(len(dm)) if 0 <= shift - j < len(dv))
        total = total + part.astype(object) * (1 << (w * shift))
    return total


class _DyadicLogits:
    """Exact logits of a file-read model whose parameters are all exact doubles (radius 0), many at once:
    (Q y_q) . (K y_k) with y = E_t + p_r, the matrix-vector products exact (:func:`_exact_products`; Fractions
    when the exponents of a factor are too far apart for its digits)."""

    def __init__(self, im, h):
        self.im, self.head = im, im.heads[h]
        self.w = _digit_width(im.d)
        self.digits = {}
        self.cache = {}

    def _vectors(self, name: str, classes: list) -> dict:
        """Exact M (E_t + p_r) for classes (t, r), M the head's query or key matrix, as {class: (values, e)}."""
        M = getattr(self.head, name).mid
        E = self.im.embedding.mid
        P = self.im.positions.mid if self.im.positions is not None else np.zeros((1, self.im.d))
        V = np.concatenate([E[[t for t, _ in classes]], P[[r % len(P) for _, r in classes]]]).T
        if name not in self.digits:
            self.digits[name] = _dyadic_digits(M, self.w)
        dm, dv = self.digits[name], _dyadic_digits(V, self.w)
        if dm is None or dv is None:
            exact = [np.array([Fraction(float(x)) for x in X.flat], dtype=object).reshape(X.shape) for X in (M, V)]
            values, e = exact[0].dot(exact[1]), 0
        else:
            values, e = _exact_products(dm[0], dv[0], self.w), dm[1] + dv[1]
        n = len(classes)
        return {c: (values[:, j] + values[:, n + j], e) for j, c in enumerate(classes)}

    def logits(self, requests) -> dict:
        """{(s, i, src): exact logit} for requests (s, i, src), src = (t, r, k) as in the row sources."""
        todo = [q for q in dict.fromkeys(requests) if q not in self.cache]
        if todo:
            delta = self.im.period
            keys = [(t, (i - k) % delta if r == "w" else r) for s, i, (t, r, k) in todo]
            qv = self._vectors("query", sorted({(s, i) for s, i, _ in todo}))
            kv = self._vectors("key", sorted(set(keys)))
            for q, key in zip(todo, keys, strict=True):
                (u, eu), (v, ev) = qv[q[:2]], kv[key]
                val = Fraction(u.dot(v)) * Fraction(2) ** (eu + ev)
                k = q[2][2]
                self.cache[q] = val + (Fraction(float(self.head.phi.mid[k])) if k is not None else 0)
        return {q: self.cache[q] for q in requests}


def _exact_source(im, exact_model, h):
    """A callable [(s, i, src)] -> {(s, i, src): exact logit}, or None when near-ties cannot be decided exactly."""
    if exact_model is not None:
        head = exact_model.layers[0].heads[h]
        if exact_model.d * max(1, head.query.shape[0]) > _EXACT_TIE_BUDGET:
            return None
        return lambda requests: {q: _exact_logit(exact_model, h, *q, 0) for q in requests}
    head = im.heads[h]
    parts = [im.embedding, head.query, head.key, head.phi] + ([im.positions] if im.positions is not None else [])
    if all(not np.any(p.rad) for p in parts):
        return _DyadicLogits(im, h).logits
    return None


@dataclass
class _Search:
    """The running minimum over detailed rows and the exact-tie bookkeeping of :func:`interval_margin`."""

    best: tuple | None = None  # (gap_lower, head, s, i, top, below)
    unresolved: bool = False
    ties: int = 0

    def offer(self, g, h, s, i, top, below):
        if np.isfinite(g) and (self.best is None or g < self.best[0]):
            self.best = (g, h, s, i, top, below)


def _detail_rows(search, im, blocks, h, qs, definition, offset, exact):
    """Detailed lower bounds of rows qs (query classes (s, i)), near-tied clusters decided exactly."""
    head = im.heads[h]
    s, i = qs[:, 0], qs[:, 1]
    mid, rad, srcs = _row_values(im, blocks, head, s, i, definition, offset)
    order = np.argsort(mid, axis=1, kind="stable")
    sm = np.take_along_axis(mid, order, axis=1)
    r2 = 2 * np.max(np.where(np.isfinite(mid), rad, 0), axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        diff = np.diff(sm, axis=1)
    lower = (diff - r2) * (1 - 2**-50) - 2.0**-1000  # rounding of diff and of the subtraction
    lower = np.where(np.isfinite(diff), lower, np.inf)
    near = np.isfinite(diff) & (lower <= 0)
    clusters = []  # (row, members): maximal runs of consecutive near-tied steps j, j+1, ..., members j .. last + 1
    for row in range(len(qs)):
        js = np.flatnonzero(near[row])
        lower[row, js] = np.inf
        for run in np.split(js, np.flatnonzero(np.diff(js) > 1) + 1) if js.size else []:
            if exact is None or search.ties + len(run) > _MAX_EXACT_TIES:
                search.unresolved = True
                continue
            search.ties += len(run)
            clusters.append((row, order[row, run[0]:run[-1] + 2]))
    values = exact([(int(s[row]), int(i[row]), srcs[m]) for row, members in clusters for m in members]) \
        if clusters else {}
    for row, members in clusters:
        q = (int(s[row]), int(i[row]))
        ranked = sorted(members, key=lambda m: values[(*q, srcs[m])])
        gaps = [(values[(*q, srcs[hi])] - values[(*q, srcs[lo])], hi, lo) for lo, hi in pairwise(ranked)]
        positive = [g for g in gaps if g[0] > 0]
        if positive:  # an exact positive gap, possibly tiny
            g, hi, lo = min(positive)
            search.offer(float(g) * (1 - 2**-50), h, q[0], q[1], float(mid[row, hi]), float(mid[row, lo]))
    if lower.shape[1]:
        for row, j in enumerate(np.argmin(lower, axis=1)):
            search.offer(lower[row, j], h, int(s[row]), int(i[row]), float(sm[row, j + 1]), float(sm[row, j]))


def interval_margin(im, definition: str = "completed", offset: int = 0, exact_model=None) -> IntervalMargin:
    """Certified lower bound of gamma (see the module docstring)."""
    with one_blas_thread():
        return _interval_margin(im, definition, offset, exact_model)


def _interval_margin(im, definition, offset, exact_model) -> IntervalMargin:
    S, delta = len(im.alphabet), im.period
    qs = np.array([(s, i) for s in range(1, S + 1) for i in range(delta)])
    blocks = [_blocks(im, head) for head in im.heads]
    per_row = S * ((delta if definition == "completed" else 0) + im.tau + 1) + im.tau + 2  # at most
    rows = max(1, _CHUNK_VALUES // per_row)  # 64 query classes for the completed sets at d = 512

    def first_pass(job):
        h, start = job
        chunk = qs[start:start + rows]
        return np.stack([_row_bounds(im, blocks[h], im.heads[h], chunk[:, 0], chunk[:, 1], definition, offset),
                         np.full(len(chunk), h), np.arange(start, start + len(chunk))], axis=1)

    jobs = [(h, start) for h in range(len(im.heads)) for start in range(0, len(qs), rows)]
    workers = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
                  _MAX_THREADS, len(jobs))
    if workers > 1:  # numpy's sort and arithmetic release the GIL: blocks of rows run on every core
        with ThreadPoolExecutor(workers) as pool:
            bounds = list(pool.map(first_pass, jobs))
    else:
        bounds = list(map(first_pass, jobs))
    search = _Search()
    table = np.concatenate(bounds) if bounds else np.zeros((0, 3))
    table = table[np.argsort(table[:, 0], kind="stable")]
    exact = {}
    pos = 0
    while pos < len(table) and np.isfinite(table[pos, 0]) and not search.unresolved and \
            (search.best is None or table[pos, 0] <= 0 or table[pos, 0] < search.best[0]):
        batch = table[pos:pos + _BATCH]
        pos += len(batch)
        for h in np.unique(batch[:, 1]).astype(int):
            if h not in exact:
                exact[h] = _exact_source(im, exact_model, h)
            rows = qs[batch[batch[:, 1] == h, 2].astype(int)]
            _detail_rows(search, im, blocks[h], h, rows, definition, offset, exact[h])
    if search.unresolved:
        return IntervalMargin(Fraction(0), True, exact_ties=search.ties)
    if search.best is None:
        return IntervalMargin(None, False, exact_ties=search.ties)
    g, h, s, i, top, below = search.best
    return IntervalMargin(Fraction(max(g, 0.0)), False, h, im.alphabet[s - 1], i, top, below, search.ties)


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
    """Certified upper bounds of the squared norms of :class:`IntervalNorms`."""
    with one_blas_thread():
        return _interval_norms(im, definition)


def _interval_norms(im, definition) -> IntervalNorms:
    vmax = []
    for head in im.heads:
        VE = matmul(im.embedding, head.value.T)
        if definition == "printed" or im.positions is None:
            rows = VE[1:] if definition == "printed" else VE
            vmax.append(float(np.max(sq_norm_upper(rows, axis=1))))
            continue
        VP = matmul(im.positions, head.value.T)
        step = max(1, 2**18 // VP.mid.size)  # classes (t, r) in blocks that stay in cache
        vmax.append(max(float(np.max(sq_norm_upper(add(Ball(VE.mid[t:t + step, None, :], VE.rad[t:t + step, None, :]),
                                                           Ball(VP.mid[None], VP.rad[None])), axis=2)))
                        for t in range(0, VE.mid.shape[0], step)))
    a2 = float(sq_norm_upper(im.mlp_A)) if im.mlp_A is not None else 0.0
    b2 = float(sq_norm_upper(im.mlp_B)) if im.mlp_B is not None else 0.0
    return IntervalNorms(a2, b2, float(sq_norm_upper(im.unembedding)), tuple(vmax))
