"""Log-ratio enclosures of softmax attention weights over boxes of long inputs (difference-bound matrices).

Setting (:mod:`bounds.certify.class_softmax`, Izzo et al. App. A.1).  On an input of model length n a head weighs entry e by
``u_e = pi_e n^(-G_e)``; the ``$`` and each window slot have mass ``pi_e = rho = 1/n``, a prefix class ``(t, r)``
has mass ``count / n``.  Writing ``s = ln n`` and moving the rho of the first kind into the exponent,

    ln u_e = x_e - Gamma_e s,     x_e = ln pi_e (prefix classes), x_e = 0 and Gamma_e = G_e + 1 ($ and slots),

and the head output is a function of the ratios of the u only.  Over a box of long inputs (``s in [s_lo, s_hi]``,
``s_hi = inf`` where the box reaches rho = 0; ``x_e in [xlo_e, xhi_e]``) an enclosure of the absolute weights
(:func:`bounds.certify.class_softmax.weight_box`) degenerates as rho -> 0: every ``u_e`` has lower end 0, so the normalized
weights range over the whole simplex whatever the class shares, and no split of (rho, shares) removes it.  This
module bounds the ratios instead, as a matrix H of *multiplicative* constraints

    u_b <= exp(H_ab) u_a          (for every input of the box; u >= 0, so absent classes, u = 0, are included).

An entry is *live* on the box when every input has it (``$``, the window slots, a class known to occur: count
>= 1, or of positive share).

**Lemma 1 (pairwise bounds).**  With ``c_ab = Gamma_b - Gamma_a >= cl_ab``, every input of the box with ``u_a > 0``
has ``ln u_b - ln u_a <= sup_{s in [s_lo, s_hi]} phi_ab(s)``, ``phi_ab(s) = xhi_b - xlo_a - cl_ab s``, and, when a
is a prefix class known to occur (so ``x_a >= ln(1/n) = -s``),
``phi_ab(s) = min(xhi_b - xlo_a - cl_ab s, xhi_b + (1 - cl_ab) s)``; where a may be absent, ``xlo_a = -inf`` and
the bound is +inf.  So ``u_b <= exp(H_ab) u_a`` holds on the whole box.
*Proof.* ``ln u_b - ln u_a = x_b - x_a - c_ab s`` with ``x_b <= xhi_b``, ``x_a >= xlo_a`` (and ``x_a >= -s``),
``c_ab s >= cl_ab s`` (s >= 0).  phi is the minimum of affine functions of s, hence concave; its supremum over an
interval is at an endpoint or at the crossing ``s* = -xlo_a`` of the two pieces (whose value, the global maximum,
bounds it in every case), and at ``s_hi = inf`` it is the limit of the smaller piece (+inf, the intercept, or -inf
as the slope is positive, zero or negative).  []

**Lemma 2 (branched constraints and closure).**  Branch-and-bound splits a box along ``u_b <= e^t u_a`` /
``u_a <= e^-t u_b`` (every input satisfies one of them, absent classes included), adding ``H_ab <= t`` or
``H_ba <= -t``.  The constraints compose: ``u_c <= e^(H_ac) u_a`` and ``u_b <= e^(H_cb) u_c`` give ``u_b <=
exp(H_ac + H_cb) u_a``, so the Floyd-Warshall closure of H is valid.  If ``H_aa < 0`` then ``u_a <= e^(H_aa) u_a``
forces ``u_a = 0``: a box where this happens to a live entry holds no input (dropped); otherwise a is absent on
the whole box.  Rounding: every sum is rounded up by a relative ``4u`` plus the smallest subnormal (u = 2^-53), so
H stays a matrix of upper bounds and a detected negative cycle is real.

**Lemma 3 (the ratio box).**  For a live reference a, every input of the box has ``u / u_a`` in the box
``[exp(-H_ea), exp(H_ae)]`` (``exp(-inf) = 0``, ``exp(inf) = inf``; absent entries 0).  The head output is the
linear-fractional ``sum u P / sum u``, invariant under scaling u, so the bounds of :mod:`bounds.certify.class_softmax`
(threshold vertices, CROWN; an infinite upper end is a weight that may take all the mass) computed on this box
bound the head over the box.  The reference is the live entry with the fewest infinite ``H_ae``, then the smallest
``logsumexp_e H_ae`` (the largest guaranteed share of the weight); ``$`` is always live, so there is one.

**Lemma 4 (several heads).**  Heads h and h' (and the task's target, a "head" whose weights are the masses
themselves: every logit 0) see the same input: ``ln u^h'_b - ln u^h'_a = (ln u^h_b - ln u^h_a) + (c^h_ab - c^h'_ab)
s`` where both occur, so a branched bound ``u^h_b <= e^t u^h_a`` gives ``u^h'_b <= exp(t + sup_s (c^h_ab -
c^h'_ab) s) u^h'_a`` over the box's s (:func:`transfer`).  Absent classes keep it valid: the pre-flush weights of
every head vanish exactly where the mass does, so b absent makes the left side 0, and a absent with b present is
excluded by the bound for h itself.  A constraint that fixes the ratio of two rare classes for one head thus
fixes it for every other head as rho -> 0.
An izzo head's kept weights are its softmax weights with the flushed ones set to 0; relative to a reference that
is surely present and kept (:func:`bounds.certify.class_softmax.weight_box` gives it a positive lower end) the ratio box
stays valid with the lower end of every possibly flushed or absent entry lowered to 0.

**Convergence (why this removes the degeneracy).**  Near rho = 0 a ratio ``u_b / u_a`` with ``Gamma_b > Gamma_a``
and ``xlo_a > -inf`` is at most ``exp(xhi_b - xlo_a - cl s_lo) -> 0`` as ``s_lo -> inf``; with ``Gamma_b =
Gamma_a`` it is ``pi_b / pi_a``, fixed by the class shares; with ``Gamma_b < Gamma_a`` (a class with a higher logit
whose share may vanish) every ratio is reachable at long lengths (shares ``n^(-sigma)``), and the box on that
ratio is exactly what a split along it narrows (:func:`split_candidates`).  Presence (``x_a >= -s`` for a class
that occurs) makes a class whose logit exceeds the reference's by more than one dominate whenever it occurs,
which separates "absent" from "rare but present" at long lengths; the caller branches on it.
"""

from __future__ import annotations

import numpy as np

from bounds.float_enclosures import TINY, U, ball

PAD = 4 * U
SPLIT_FLOOR = -40.0  # a log-ratio below this is negligible (e^-40 ~ 4e-18): not worth a split


def _up(x, mag):
    """x rounded up by a relative bound of the computation with magnitude ``mag``."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(x), x + PAD * mag + TINY, x)


def rho_mass(win) -> np.ndarray:
    """Entries whose mass is rho (the ``$`` in the prefix and the window slots): x = 0, Gamma = G + 1."""
    return (win.slot >= 0) | ((win.classes == 0) & (win.slot < 0))


def slope_lower(head, win) -> np.ndarray:
    """Lower bounds (E, E) of ``c_ab = Gamma_b - Gamma_a`` (exact zeros kept, so that ``0 * inf`` never occurs)."""
    rm = rho_mass(win).astype(float)
    shift = rm[None, :] - rm[:, None]
    g_lo = np.where(head.gap.mid == 0, 0.0, head.gap.lower)  # G_b - G_a = a_a - a_b = gap[a, b]
    exact_zero = (head.gap.mid == 0) & (shift == 0)
    c = g_lo + shift
    return np.where(exact_zero, 0.0, c - (np.abs(c) * PAD + TINY))


def slope_difference_upper(head, other) -> np.ndarray:
    """Upper bounds (E, E) of ``c_ab(head) - c_ab(other)`` (the rho-mass shifts cancel), exactly 0 where the exact
    logit differences agree: ``(a_a - a_b) - (a'_a - a'_b)`` from the heads' exact logits."""
    la, lb = head.logits, other.logits
    E = len(la)
    exact = np.array([[(la[a] - la[b]) - (lb[a] - lb[b]) for b in range(E)] for a in range(E)], dtype=object)
    zero = exact == 0
    up = ball(exact).upper
    return np.where(zero, 0.0, up)


def transfer(d_hi: np.ndarray, s_lo: float, s_hi: float) -> np.ndarray:
    """``sup_{s in [s_lo, s_hi]} d s`` for every upper bound d of ``d_hi`` (Lemma 4), rounded up."""
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.where(d_hi > 0, d_hi * s_hi, d_hi * s_lo)
        v = np.where(d_hi == 0, 0.0, v)
    return _up(v, np.abs(v))


def _affine_at(alpha, beta, s):
    """alpha + beta s for s in [0, inf] (alpha may be +inf), rounded up; the limit at s = inf."""
    with np.errstate(invalid="ignore", over="ignore"):
        at_inf = np.where(beta > 0, np.inf, np.where(beta < 0, -np.inf, alpha))
        finite = alpha + np.where(beta == 0, 0.0, beta * np.where(np.isinf(s), 0.0, s))
        finite = _up(finite, np.abs(alpha) + np.abs(beta * np.where(np.isinf(s), 0.0, s)))
        out = np.where(np.isinf(s), at_inf, finite)
    return np.where(np.isposinf(alpha), np.inf, out)


def pairwise_upper(cl, xlo, xhi, present, s_lo, s_hi) -> np.ndarray:
    """Lemma 1: upper bounds (B, E, E) of ``delta_ab`` from the box alone.

    ``cl`` (E, E) lower bounds of the slopes; ``xlo, xhi`` (B, E) log-masses (-inf allowed below); ``present``
    (B, E) entries known to have count >= 1; ``s_lo, s_hi`` (B,) bounds of ln n (``inf`` allowed above)."""
    xa_lo = xlo[:, :, None]
    xb_hi = xhi[:, None, :]
    beta1 = np.broadcast_to(-cl[None], (xlo.shape[0],) + cl.shape)
    with np.errstate(invalid="ignore"):
        alpha1 = np.where(np.isneginf(xa_lo), np.inf, xb_hi - xa_lo)
    alpha1 = _up(alpha1, np.abs(xb_hi) + np.where(np.isfinite(xa_lo), np.abs(xa_lo), 0.0))
    sl, sh = s_lo[:, None, None], s_hi[:, None, None]
    one = np.maximum(_affine_at(alpha1, beta1, sl), _affine_at(alpha1, beta1, sh))
    # a present: phi = min(piece 1, xhi_b + (1 - cl) s)
    beta2 = _up(1.0 - cl[None], 1.0 + np.abs(beta1))
    alpha2 = np.broadcast_to(xb_hi, alpha1.shape)
    at_lo = np.minimum(_affine_at(alpha1, beta1, sl), _affine_at(alpha2, beta2, sl))
    at_hi = np.minimum(_affine_at(alpha1, beta1, sh), _affine_at(alpha2, beta2, sh))
    star = np.where(np.isneginf(xa_lo), np.inf, -xa_lo)  # s* = -xlo_a
    inside = np.isfinite(star) & (star >= sl * (1 - 1e-9) - 1e-9) & (star <= sh * (1 + 1e-9) + 1e-9)
    at_star = _affine_at(alpha2, beta2, np.where(inside, star, 0.0))
    two = np.maximum(np.maximum(at_lo, at_hi), np.where(inside, at_star, -np.inf))
    return np.where(present[:, :, None], np.minimum(one, two), one)


def closure(H: np.ndarray, absent: np.ndarray, live: np.ndarray):
    """Lemma 2: the closed upper-bound matrix (B, E, E), a feasibility mask (B,) and the entries found absent
    (B, E)."""
    B, E, _ = H.shape
    H = np.where(absent[:, :, None] | absent[:, None, :], np.inf, H)
    idx = np.arange(E)
    H[:, idx, idx] = np.where(absent, np.inf, np.minimum(H[:, idx, idx], 0.0))
    for k in range(E):
        via = H[:, :, k, None] + H[:, None, k, :]
        via = _up(via, np.abs(H[:, :, k, None]) + np.abs(H[:, None, k, :]))
        H = np.minimum(H, via)
    forced = H[:, idx, idx] < 0  # u_a = 0 on the whole box
    feasible = ~np.any(forced & live, axis=1)
    absent = absent | forced
    H = np.where(absent[:, :, None] | absent[:, None, :], np.inf, H)
    H[:, idx, idx] = np.where(absent, np.inf, 0.0)
    return H, feasible, absent


def log_ratio_bounds(head, win, xlo, xhi, present, absent, s_lo, s_hi, K=None):
    """Closed multiplicative bounds H (B, E, E) (``u_b <= exp(H_ab) u_a``) of one softmax head over B boxes, a
    feasibility mask (B,), the absent entries (B, E) (given or found) and the live ones (B, E).

    ``xlo, xhi``: log-masses of the entries (ignored for $ and the window slots: x = 0 exactly); ``present``: prefix
    classes known to occur; ``K`` (B, E, E) or None: branched bounds (Lemma 2)."""
    rm = rho_mass(win)
    xlo = np.where(rm[None, :], 0.0, xlo)
    xhi = np.where(rm[None, :], 0.0, xhi)
    present = present & ~rm[None, :]
    live = (present | rm[None, :] | np.isfinite(xlo)) & ~absent
    H = pairwise_upper(slope_lower(head, win), xlo, xhi, present, s_lo, s_hi)
    if K is not None:
        H = np.minimum(H, K)
    H, feasible, absent = closure(H, absent, live)
    return H, feasible, absent, live & ~absent


def reference(H: np.ndarray, absent: np.ndarray, live: np.ndarray) -> np.ndarray:
    """The reference entry (B,) of each box (Lemma 3): a live entry with the fewest infinite bounds ``H_ae`` to the
    other entries, then the smallest ``logsumexp_e H_ae`` over the finite ones."""
    others = ~absent[:, None, :]
    inf_count = np.where(live, np.sum(~np.isfinite(H) & others, axis=2), np.inf)
    finite = np.isfinite(H) & others
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # no finite bound: lse = -inf
        M = np.where(finite, H, -np.inf).max(axis=2)
        lse = M + np.log(np.where(finite, np.exp(np.minimum(H - M[:, :, None], 0.0)), 0.0).sum(axis=2))
    best = inf_count == inf_count.min(axis=1, keepdims=True)
    return np.argmin(np.where(best & live, lse, np.inf), axis=1)


def ratio_box(H: np.ndarray, absent: np.ndarray, live: np.ndarray):
    """Lemma 3: weights up to a common factor per box, (lo, hi) (B, E) relative to the reference (B,) of
    :func:`reference`, scaled so that the largest finite ``hi`` is 1; ``hi = inf`` where ``H_ref,e`` is infinite (a
    weight that may take all the mass: :func:`bounds.certify.class_softmax.lf_max` handles it), absent entries 0."""
    B, E, _ = H.shape
    ref = reference(H, absent, live)
    row = H[np.arange(B), ref]  # (B, E): u_e <= exp(row_e) u_ref
    col = H[np.arange(B), :, ref]  # (B, E): u_ref <= exp(col_e) u_e
    unbounded = ~np.isfinite(row) & ~absent
    Mx = np.where(absent | unbounded, -np.inf, row).max(axis=1)
    with np.errstate(invalid="ignore", over="ignore"):
        x_hi = _up(row - Mx[:, None], np.abs(row) + np.abs(Mx[:, None]))
        x_lo = -col - Mx[:, None]
        x_lo = np.where(np.isfinite(x_lo), x_lo - PAD * (np.abs(col) + np.abs(Mx[:, None])) - TINY, x_lo)
    from bounds.certify.class_softmax import exp_bounds

    lo, hi = exp_bounds(np.where(absent | unbounded, -np.inf, x_lo), np.where(absent | unbounded, -np.inf, x_hi))
    return lo, np.where(unbounded, np.inf, hi), ref


def split_candidates(H: np.ndarray, absent: np.ndarray, live: np.ndarray, count: int = 2) -> list:
    """For one box (H (E, E), absent and live (E,)): up to ``count`` ratio splits ``(a, b, t)`` (children
    ``u_b <= e^t u_a`` and ``u_a <= e^-t u_b``) that narrow the ratio box of the reference most: an infinite bound
    first, else the widest interval of a non-negligible weight."""
    E = H.shape[0]
    ref = int(reference(H[None], absent[None], live[None])[0])
    live = ~absent
    out = []
    hi_row, lo_row = H[ref], -H[:, ref]
    scores = []
    for b in range(E):
        if b == ref or not live[b]:
            continue
        lo, hi = lo_row[b], hi_row[b]
        if hi < SPLIT_FLOOR:
            continue
        clipped_hi = min(hi, -SPLIT_FLOOR)
        width = clipped_hi - max(lo, SPLIT_FLOOR)
        if width <= 1e-3:
            continue
        # the weight of b relative to the reference is at most e^hi: a wide interval of a small weight matters less
        scores.append((np.inf if np.isinf(hi) else width * np.exp(min(clipped_hi, 0.0)), b, lo, hi))
    scores.sort(key=lambda t: -t[0])
    for _, b, lo, hi in scores[:count]:
        if np.isinf(lo) and np.isinf(hi):
            t = 0.0
        elif np.isinf(lo):
            t = hi - max(2.0, abs(hi))
        elif np.isinf(hi):
            t = lo + max(2.0, abs(lo))
        else:
            t = (lo + hi) / 2
        out.append((ref, b, float(t)))
    return out
