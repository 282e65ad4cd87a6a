"""Certified enclosures of the difference ``f - g`` of two one-layer NoPE GPT-2 forms on boxes of the class shares.

:class:`PairDifference` is what the every-length certificate (:mod:`bounds.certify.gpt2_search`) bounds on each
box of ``(rho, pi)`` (:mod:`bounds.certify.gpt2_enclosure` encloses one form).  Enclosing f and g separately and
subtracting (the *plain* form) leaves a width of ``width(F_f) + width(F_g)`` however close the two models are: on a
box where interval propagation through ``ln_2``, the GELU MLP and ``ln_f`` is loose, no small change is ever
certified.  Three forms, each sound, the tightest that applies used:

1. *Shared body* (f and g differ only in ``ln_f`` and the head): the difference is linear in the shared normalized
   stream z, ``z (diag(gf) Wf^T - diag(gg) Wg^T) + const``, enclosed directly (a model against itself gets 0).
2. *Mean-value form* (same architecture, any parameters differ; :class:`MeanValueDifference`): the layer is a chain
   of maps ``u_{k+1} = phi_k(u_k; theta_k)`` evaluated for f and g at the same input.  Write
   ``delta_k = u_k^f - u_k^g``; then

       delta_{k+1} = [phi_k(u_k^f; theta^f) - phi_k(u_k^g; theta^f)] + [phi_k(u_k^g; theta^f) - phi_k(u_k^g; theta^g)].

   The first bracket is ``integral_0^1 J_phi(u_k^g + tau delta_k; theta^f) dtau  delta_k`` (the fundamental theorem
   of calculus on the segment; every map here is C^1: LayerNorm has eps > 0, GELU and softmax are smooth); the
   segment lies in the box hull of the enclosures of ``u_k^f`` and ``u_k^g`` (both contain their point, a box is
   convex), so the integrand lies in the interval evaluation ``[J delta]`` of ``J_phi(u) d`` over u in that hull and
   d in the enclosure of ``delta_k``, and so does its average.  The second bracket is the parameter term, explicit
   for each map and evaluated at the enclosure of ``u_k^g``.  Per map (``Delta p = p^f - p^g``, rounded outward):

   * affine ``u W + b``: ``delta W^f + u^g Delta W + Delta b`` (exact algebra);
   * LayerNorm ``gamma N(u) + beta``, ``N(u) = C u / sigma``, ``C = I - 11^T/d``, ``sigma = sqrt(|C u|^2/d + eps)``:
     ``J_N d = (C d - z (z . C d)/d) / sigma`` (differentiate; C is symmetric and idempotent), evaluated with the
     enclosures of z = N(u) and sigma over the hull; term ``gamma^f J_N delta + Delta gamma N(u^g) + Delta beta``;
   * GELU (elementwise, no parameters): ``g'(xi) delta`` for some xi between the two points (scalar mean-value
     theorem), with :func:`bounds.certify.gpt2_centred.gelu_slope` over the hull;
   * attention, a head ``a = sum_c w_c v_c``, ``w = softmax(log m_c + s_c)`` at the same masses m: the per-class
     scores and values s, v are evaluated at single points (one per token), so the segment runs from ``(s^g, v^g)``
     to ``(s^f, v^f)`` inside the hulls of their enclosures, and ``da/dv_c = w_c``, ``da/ds_c = w_c (v_c - a)``
     give ``a^f - a^g = integral sum_c w_c [Delta v_c + (v_c - a)(Delta s_c - sigma_h)] dtau`` for any constant
     ``sigma_h`` (``sum_c w_c (v_c - a) = 0``; the mean of the Delta s midpoints is used).  At each tau this is a
     softmax mixture, over masses in the box and scores in the hull, of values in the intervals
     ``I_c = [Delta v_c] + ([v_c] - [a]) ([Delta s_c] - sigma_h)`` (``[a]`` the mixture of the value hulls, which
     holds ``a`` at every tau); the mixture enclosure of item 1 of :mod:`bounds.certify.gpt2_enclosure` bounds it.

   Residual sums add the differences.  The enclosures of the intermediates (whose hulls the Jacobians are
   evaluated over) are the centred ones of :class:`bounds.certify.gpt2_centred.CentredEnclosure`.  All interval
   products round outward (:func:`bounds.certify.gpt2_centred.mul`; matrix products through
   :func:`bounds.float_enclosures.matmul`).  The width is proportional to the parameter change (times the
   interval Jacobians), not to the width of F on the box, so a small change is certified on few boxes.
3. *Plain*: ``[F_f] - [F_g]`` (each the centred enclosure of :mod:`bounds.certify.gpt2_centred`, intersected
   with its affine form's range, :mod:`bounds.certify.gpt2_affine`).
4. *Affine*: the difference of the two models' affine forms on the box (:func:`bounds.certify.gpt2_affine.
   affine_difference`): they share the box's noise symbols, so first-order terms common to f and g cancel.

Forms 2, 3 and 4 are intersected (each contains ``f - g``); inside form 2 each intermediate difference (``a``,
``x1``, ``x2``) is intersected with the difference of the affine forms too (with
``affine=False`` the enclosures are the centred ones alone, as before the affine forms).
"""

from __future__ import annotations

import numpy as np

from bounds.certify.gpt2_affine import AffineEnclosure, affine_difference, smear_split
from bounds.certify.gpt2_centred import (
    CentredEnclosure,
    gelu_slope,
    imul,
    intersect,
    mul,
    normalize_jacobian_times,
)
from bounds.certify.gpt2_enclosure import (
    Enclosure,
    _bounds,
    _dn,
    _to_ball,
    _up,
    affine,
    mixture,
    normalize,
    point,
)
from bounds.float_enclosures import TINY, Ball, U, add, matmul


def _total(*terms) -> Ball | None:
    """Sum of the terms that are not None (None: an exactly zero term); None when all are."""
    out = None
    for t in terms:
        if t is not None:
            out = t if out is None else add(out, t)
    return out


def param_difference(x, y) -> Ball | None:
    """``x - y`` of two double arrays as a Ball (None when they are equal: the term vanishes exactly); the float
    difference is within ``U |x - y| <= 2U |fl(x - y)|`` of the exact one (a subnormal difference is exact)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if np.array_equal(x, y):
        return None
    mid = x - y
    return Ball(mid, 2 * U * np.abs(mid) + TINY)


def _same_class_input(f, g, a: int, r: int) -> bool:
    """Whether class (a, r) has the same residual input ``wte[a] + wpe[r]`` in f and g, decided on the exact
    parameters (two different pairs of doubles may round to the same sum)."""
    if not np.array_equal(f.wte[a], g.wte[a]) or (f.wpe is None) != (g.wpe is None):
        return False
    return f.wpe is None or np.array_equal(f.wpe[r], g.wpe[r])


def _embedding_difference(flo, fhi, glo, ghi) -> Ball | None:
    """``e^f - e^g`` of two class embeddings that differ, given by their enclosures (both exact:
    :func:`param_difference`; else the interval difference, rounded outward)."""
    if np.array_equal(flo, fhi) and np.array_equal(glo, ghi):
        return param_difference(flo, glo)
    return _to_ball(_dn(flo - ghi), _up(fhi - glo))


def _hull(a, b):
    return np.minimum(a[0], b[0]), np.maximum(a[1], b[1])


# --------------------------------------------------------------------------------------------- the forms
def same_architecture(f, g) -> bool:
    """Whether f and g compute the same function of (input, parameters): the mean-value form applies."""
    return (f.n_head, f.ln_eps, f.activation, f.scale_attn, f.bos, f.alphabet, f.period, f.wte.shape, f.fc_w.shape,
            f.head_w.shape) == (g.n_head, g.ln_eps, g.activation, g.scale_attn, g.bos, g.alphabet, g.period,
                                g.wte.shape, g.fc_w.shape, g.head_w.shape)


class MeanValueDifference:
    """Form 2 of the module docstring for two enclosures of forms of the same architecture."""

    def __init__(self, ef: Enclosure, eg: Enclosure):
        self.ef, self.eg = ef, eg
        f, g = ef.form, eg.form
        self.same_to_x1 = False
        (fl, fh), (gl, gh) = f.class_embeddings(), g.class_embeddings()
        same = [_same_class_input(f, g, a, r) for a, r in f.classes()]  # exact parameters, not their enclosures
        self.attention_same = all(same) and all(np.array_equal(x, y) for x, y in (
            (f.ln1[0], g.ln1[0]), (f.ln1[1], g.ln1[1]), (f.attn_w, g.attn_w), (f.attn_b, g.attn_b)))
        self.d_emb = [None if same[c] else _embedding_difference(fl[c], fh[c], gl[c], gh[c])
                      for c in range(1, len(fl))]
        self.s_hull = [_hull((a, b), (c, e)) for a, b, c, e in zip(ef.s_lo, ef.s_hi, eg.s_lo, eg.s_hi, strict=True)]
        self.ds = [(_dn(a - e), _up(b - c)) for a, b, c, e in zip(ef.s_lo, ef.s_hi, eg.s_lo, eg.s_hi, strict=True)]
        self.v_hull = _hull((ef.v_lo, ef.v_hi), (eg.v_lo, eg.v_hi))  # (H, K, dh)
        self.dv = (_dn(ef.v_lo - eg.v_hi), _up(ef.v_hi - eg.v_lo))
        P = param_difference
        self.d = {"proj_w": P(f.proj_w, g.proj_w), "proj_b": P(f.proj_b, g.proj_b),
                  "ln2_g": P(f.ln2[0], g.ln2[0]), "ln2_b": P(f.ln2[1], g.ln2[1]),
                  "fc_w": P(f.fc_w, g.fc_w), "fc_b": P(f.fc_b, g.fc_b),
                  "mproj_w": P(f.mproj_w, g.mproj_w), "mproj_b": P(f.mproj_b, g.mproj_b),
                  "lnf_g": P(f.lnf[0], g.lnf[0]), "lnf_b": P(f.lnf[1], g.lnf[1]),
                  "head_w": P(f.head_w.T, g.head_w.T), "head_b": P(f.head_b, g.head_b)}
        self.same_to_x1 = self.attention_same and f.ln_eps == g.ln_eps and all(
            self.d[k] is None for k in ("proj_w", "proj_b")) and all(x is None for x in self.d_emb)

    def attention(self, t: int, m_lo, m_hi) -> Ball | None:
        """Enclosure (B, d) of ``a^f - a^g`` at masses in the boxes (module docstring, the attention map)."""
        if self.attention_same:
            return None
        masks = self.ef.masks
        s_lo, s_hi = self.s_hull[t]
        vh_lo, vh_hi = self.v_hull
        a_lo, a_hi = mixture(s_lo, s_hi, vh_lo, vh_hi, masks, m_lo, m_hi)  # (B, H, dh)
        ds_lo, ds_hi = self.ds[t]  # (H, K)
        shift = ((ds_lo + ds_hi) / 2).mean(axis=1, keepdims=True)  # any constant per head is exact algebra
        e_lo, e_hi = _dn(ds_lo - shift)[None, :, :, None], _up(ds_hi - shift)[None, :, :, None]
        r_lo = _dn(vh_lo[None] - a_hi[:, :, None, :])  # v_c - a, (B, H, K, dh)
        r_hi = _up(vh_hi[None] - a_lo[:, :, None, :])
        p_lo, p_hi = imul(r_lo, r_hi, e_lo, e_hi)
        i_lo, i_hi = _dn(self.dv[0][None] + p_lo), _up(self.dv[1][None] + p_hi)
        lo, hi = mixture(s_lo, s_hi, i_lo, i_hi, masks, m_lo, m_hi)
        B = m_lo.shape[0]
        return _to_ball(lo.reshape(B, -1), hi.reshape(B, -1))

    def form(self, t: int, r_lo, r_hi, p_lo, p_hi, traces=None):
        """Enclosure (lo, hi), each (B, outputs), of ``f - g`` on the boxes by the mean-value form alone (``traces``:
        the two forms' traces on the boxes, when already computed)."""
        ef, eg, d = self.ef, self.eg, self.d
        f, g = ef.form, eg.form
        tf, tg = traces or (ef.trace(t, r_lo, r_hi, p_lo, p_hi), eg.trace(t, r_lo, r_hi, p_lo, p_hi))

        def tight(name, delta):  # intersected with the difference of the affine forms, where the traces have them
            lohi = None if delta is None else affine_difference(tf, tg, name, self.same_to_x1)
            return delta if lohi is None else _to_ball(*intersect(_bounds(delta), lohi))

        da = tight("a", self.attention(t, *tf["m"]))
        ag = _to_ball(*tg["a"])
        dx1 = tight("x1", _total(self.d_emb[t] and Ball(self.d_emb[t].mid[None], self.d_emb[t].rad[None]),
                     da and matmul(da, point(f.proj_w)), d["proj_w"] and matmul(ag, d["proj_w"]), d["proj_b"]))
        dh = _total(dx1 and mul(point(f.ln2[0]), normalize_jacobian_times(
                        *_hull(_bounds(tf["x1"]), _bounds(tg["x1"])), dx1, f.ln_eps)),
                    d["ln2_g"] and mul(d["ln2_g"], _to_ball(*tg["z2"])), d["ln2_b"])
        dpre = _total(dh and matmul(dh, point(f.fc_w)), d["fc_w"] and matmul(_to_ball(*tg["h"]), d["fc_w"]),
                      d["fc_b"])
        dact = dpre and mul(_to_ball(*gelu_slope(*_hull(tf["pre"], tg["pre"]), f.activation)), dpre)
        dx2 = tight("x2", _total(dx1, dact and matmul(dact, point(f.mproj_w)),
                                 d["mproj_w"] and matmul(_to_ball(*tg["act"]), d["mproj_w"]), d["mproj_b"]))
        zg = normalize(*_bounds(tg["x2"]), g.ln_eps)
        dy = _total(dx2 and mul(point(f.lnf[0]), normalize_jacobian_times(
                        *_hull(_bounds(tf["x2"]), _bounds(tg["x2"])), dx2, f.ln_eps)),
                    d["lnf_g"] and mul(d["lnf_g"], _to_ball(*zg)), d["lnf_b"])
        dout = _total(dy and matmul(dy, point(f.head_w.T)),
                      d["head_w"] and matmul(_to_ball(*affine(*zg, *g.lnf)), d["head_w"]), d["head_b"])
        if dout is None:  # every parameter the output depends on is equal: f - g = 0
            B, n = tf["x2"].mid.shape[0], f.head_w.shape[0]
            return np.zeros((B, n)), np.zeros((B, n))
        return dout.lower, dout.upper

    def bound(self, t: int, r_lo, r_hi, p_lo, p_hi, traces=None):
        """Enclosure of ``f - g`` on the boxes: the mean-value form intersected with the difference of the two
        (centred) enclosures and with the difference of the affine forms (``traces``: the two forms' traces on
        the boxes, when already computed)."""
        tf, tg = traces or (self.ef.trace(t, r_lo, r_hi, p_lo, p_hi), self.eg.trace(t, r_lo, r_hi, p_lo, p_hi))
        (flo, fhi), (glo, ghi) = self.ef.trace_logits(tf), self.eg.trace_logits(tg)
        out = intersect((_dn(flo - ghi), _up(fhi - glo)), self.form(t, r_lo, r_hi, p_lo, p_hi, (tf, tg)))
        lohi = affine_difference(tf, tg, None, self.same_to_x1)
        return out if lohi is None else intersect(out, lohi)


def _same_body(f, g) -> bool:
    names = ("wte", "attn_w", "attn_b", "proj_w", "proj_b", "fc_w", "fc_b", "mproj_w", "mproj_b")
    if (f.n_head, f.ln_eps, f.activation, f.scale_attn, f.bos, f.alphabet, f.period) != \
            (g.n_head, g.ln_eps, g.activation, g.scale_attn, g.bos, g.alphabet, g.period):
        return False
    if (f.wpe is None) != (g.wpe is None) or (f.wpe is not None and not np.array_equal(f.wpe, g.wpe)):
        return False
    same = all(np.array_equal(getattr(f, n), getattr(g, n)) for n in names)
    return same and all(np.array_equal(a, b) for a, b in zip((*f.ln1, *f.ln2), (*g.ln1, *g.ln2), strict=True))


def _scaled(w, gamma) -> Ball:
    """Ball of ``diag(gamma) w^T`` (each product one rounding)."""
    prod = gamma[:, None] * w.T
    return Ball(prod, np.abs(prod) * U + TINY)


class PairDifference:
    """Enclosure of ``f - g`` (B, outputs) on boxes (the tightest form of the module docstring that applies); f and
    g must share BOS, alphabet and output count."""

    def __init__(self, f, g, mean_value: bool = True, affine: bool = True):
        if (f.bos, f.alphabet) != (g.bos, g.alphabet):
            raise ValueError(f"f and g read different inputs (BOS {f.bos} / {g.bos}, alphabet {f.alphabet} / "
                             f"{g.alphabet})")
        if f.period != g.period:
            raise ValueError(f"f and g have their classes at periods {f.period} and {g.period} (reduce both at the "
                             "least common multiple: Gpt2Form.at_period)")
        if f.head_w.shape[0] != g.head_w.shape[0]:
            raise ValueError(f"f has {f.head_w.shape[0]} outputs and g {g.head_w.shape[0]}")
        kind = AffineEnclosure if affine else CentredEnclosure
        self.f, self.g = kind(f), kind(g)
        self.shared = _same_body(f, g)
        self.mean_value = MeanValueDifference(self.f, self.g) \
            if mean_value and not self.shared and same_architecture(f, g) else None
        if self.shared:
            m = add(_scaled(f.head_w, f.lnf[0]), Ball(-g.lnf[0][:, None] * g.head_w.T,
                                                      np.abs(g.lnf[0][:, None] * g.head_w.T) * U + TINY))
            cf = add(matmul(point(f.lnf[1][None]), point(f.head_w.T)), point(f.head_b))
            cg = add(matmul(point(g.lnf[1][None]), point(g.head_w.T)), point(g.head_b))
            self.m, self.c = m, add(cf, Ball(-cg.mid, cg.rad))

    def difference(self, t: int, r_lo, r_hi, p_lo, p_hi):
        """Enclosure (lo, hi), each (B, outputs), of ``f - g`` on the boxes."""
        return self.difference_and_split(t, r_lo, r_hi, p_lo, p_hi)[:2]

    def difference_and_split(self, t: int, r_lo, r_hi, p_lo, p_hi):
        """:meth:`difference` and, per box, the box coordinate (0 = rho, 1 + i = pi_i) along which f's residual
        stream x2 varies most by its affine form (the largest ``sum_j |G_kj|`` over the box's symbols k: the
        "smear" split rule of interval branch-and-bound), or None where no forms were computed."""
        tf = self.f.trace(t, r_lo, r_hi, p_lo, p_hi)
        split = smear_split(tf)
        if self.shared:
            z = _to_ball(*normalize(*_bounds(tf["x2"]), self.f.form.ln_eps))
            return (*_bounds(add(matmul(z, self.m), self.c)), split)
        tg = self.g.trace(t, r_lo, r_hi, p_lo, p_hi)
        if self.mean_value is not None:
            return (*self.mean_value.bound(t, r_lo, r_hi, p_lo, p_hi, (tf, tg)), split)
        (flo, fhi), (glo, ghi) = self.f.trace_logits(tf), self.g.trace_logits(tg)
        lohi = affine_difference(tf, tg)
        plain = (_dn(flo - ghi), _up(fhi - glo))
        return (*(plain if lohi is None else intersect(plain, lohi)), split)
