"""Derivative enclosures of a one-layer NoPE GPT-2, and the centred (mean-value) form of its box enclosure.

Plain interval propagation (:class:`bounds.certify.gpt2_enclosure.Enclosure`) loses the correlation between the
coordinates of a vector: through ``ln_2``, the MLP (two matrix products) and ``ln_f`` the width of an enclosure
grows by the matrices' absolute row sums at every layer, so on a box of shares it can be orders of magnitude wider
than the range of the function.  The box has only K = |alphabet| + 1 coordinates (the masses m = (rho, pi)), so a
first-order form is cheap:

**Centred form.**  For every intermediate x(m) of the layer and every m in the box, with c the box centre,
``x_i(m) - x_i(c) = grad x_i(xi_i) . (m - c)`` for some xi_i on the segment [c, m] (the mean-value theorem per
coordinate; every map is C^1: LayerNorm has eps > 0, GELU and softmax are smooth, and the softmax denominator is
positive on the box when its lower bound is); the segment lies in the box, so ``x(m) in x(c) + J (m - c)`` with J
an interval enclosure of the Jacobian dx/dm over the box.  J is carried forward (forward-mode differentiation in
interval arithmetic), each map's derivative enclosed over the box enclosure of its input:

* attention, a head ``a = sum_c m_c e^{s_c} v_c / Z``, ``Z = sum_c m_c e^{s_c}``:
  ``da/dm_c = e^{s_c} (v_c - a) / Z`` (:func:`attention_jacobian`);
* affine maps: ``J W``; LayerNorm: ``J_N J`` (:func:`normalize_jacobian_times`), then ``gamma``;
* GELU: ``diag(g'(pre)) J`` with g' over the enclosure of its input (:func:`gelu_slope`);
* the residual sums add their Jacobians.

Each intermediate's enclosure is the intersection of the plain one (computed from the previous, already
intersected, enclosure) and the centred one (both contain x(m)), so it is never wider than the plain one and, on a
box of width w, its excess over the true range is O(w^2) instead of O(w).  :class:`CentredEnclosure` is a drop-in
:class:`~bounds.certify.gpt2_enclosure.Enclosure`.  Every operation rounds outward (:func:`mul`, and
:func:`bounds.float_enclosures.matmul` for products of matrices); exp, tanh and erf are trusted to REL.
"""

from __future__ import annotations

import numpy as np

from bounds.certify.gpt2_enclosure import (
    GELU_TANH_C,
    REL,
    Enclosure,
    _bounds,
    _centering,
    _dn,
    _sq,
    _to_ball,
    _up,
    centred_sigma,
    normalize,
    point,
    shifted_exp,
)
from bounds.float_enclosures import TINY, Ball, U, add, matmul

#: GELU' lies in this range on the whole real line (proof in :func:`gelu_slope`)
SLOPE_RANGE = (-0.7, 1.7)
GELU_TANH_A = 0.044715


# --------------------------------------------------------------------------------------------- arithmetic
def mul(a: Ball, b: Ball) -> Ball:
    """Enclosure of the elementwise product (broadcasting): ``xy - a0 b0 = a0 (y - b0) + (x - a0) y``, so
    ``|xy - a0 b0| <= |a0| rb + ra (|b0| + rb)``; the float product ``a0 b0`` is off by at most ``U |mid|`` (plus
    an underflow quantum), and the radius (non-negative terms, five roundings) is inflated by ``1 + 8U``."""
    mid = a.mid * b.mid
    rad = np.abs(a.mid) * b.rad + a.rad * (np.abs(b.mid) + b.rad) + 2 * U * np.abs(mid)
    return Ball(mid, rad * (1 + 8 * U) + 2 * TINY)


def imul(alo, ahi, blo, bhi):
    """Interval product (broadcasting), rounded outward."""
    with np.errstate(invalid="ignore"):
        c = np.stack(np.broadcast_arrays(alo * blo, alo * bhi, ahi * blo, ahi * bhi))
    return _dn(c.min(axis=0)), _up(c.max(axis=0))


def neg(a: Ball) -> Ball:
    return Ball(-a.mid, a.rad)


def intersect(a, b):
    """The intersection of two enclosures (lo, hi) of the same values; a NaN or an empty intersection (a box
    holding no point of the domain) keeps ``a``."""
    lo, hi = np.maximum(a[0], np.where(np.isnan(b[0]), -np.inf, b[0])), \
        np.minimum(a[1], np.where(np.isnan(b[1]), np.inf, b[1]))
    bad = lo > hi
    return np.where(bad, a[0], lo), np.where(bad, a[1], hi)


# --------------------------------------------------------------------------------------------- GELU'
def gelu_slope(lo, hi, kind: str):
    """Enclosure of GELU' over [lo, hi] by interval evaluation of its formula, intersected with SLOPE_RANGE.

    ``gelu`` = x Phi(x): ``g' = Phi(x) + x phi(x)``, Phi increasing, phi(x) = exp(-x^2/2)/sqrt(2 pi) through the
    interval of x^2; ``|x phi(x)| <= phi(1) < 0.25``, so g' in [-0.25, 1.25].  Tanh form
    ``g = x (1 + tanh u)/2``, ``u = c (x + a x^3)`` increasing: ``g' = (1 + T)/2 + x u'(x) (1 - T^2)/2`` with
    ``T = tanh u`` in [tanh u(lo), tanh u(hi)] and ``u' = c (1 + 3 a x^2)``; since ``|x u'(x)| = c |x + 3 a x^3| <=
    3 |u(x)|`` and ``v sech^2 v <= 0.448`` (its maximum, where v tanh v = 1/2), g' in [-0.672, 1.672].  Both lie in
    SLOPE_RANGE.  exp, tanh, erf are trusted to REL relative (the package's convention); every other operation
    rounds outward."""
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    sq_lo, sq_hi = _sq(lo, hi)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if kind == "gelu":
            from scipy.special import erf

            def Phi(x, sign):
                return 0.5 * (1 + erf(x / np.sqrt(2.0))) + sign * (4 * REL * (1 + np.abs(x)) + TINY)

            p_lo, p_hi = np.clip(Phi(lo, -1), 0, 1), np.clip(Phi(hi, 1), 0, 1)
            root = np.sqrt(2 * np.pi)
            f_lo = np.maximum(_dn(np.exp(-sq_hi / 2) / root * (1 - 4 * REL)), 0.0)
            f_hi = _up(np.exp(-sq_lo / 2) / root * (1 + 4 * REL)) + TINY
            xl, xh = imul(lo, hi, f_lo, f_hi)
            s_lo, s_hi = _dn(p_lo + xl), _up(p_hi + xh)
        else:
            c, a = GELU_TANH_C, GELU_TANH_A

            def u(x, sign):
                return c * (x + a * x * x * x) + sign * (8 * REL * c * (np.abs(x) + a * np.abs(x) ** 3) + TINY)

            t_lo = np.maximum(np.tanh(u(lo, -1)) - 2 * REL, -1.0)
            t_hi = np.minimum(np.tanh(u(hi, 1)) + 2 * REL, 1.0)
            t2_lo, t2_hi = _sq(t_lo, t_hi)
            one_lo, one_hi = np.maximum(_dn(1 - t2_hi), 0.0), np.minimum(_up(1 - t2_lo), 1.0)
            d_lo = _dn(c * (1 + 3 * a * sq_lo) * (1 - 4 * REL))
            d_hi = _up(c * (1 + 3 * a * sq_hi) * (1 + 4 * REL))
            xl, xh = imul(lo, hi, one_lo, one_hi)
            yl, yh = imul(xl, xh, d_lo, d_hi)
            s_lo = _dn(_dn(0.5 * (1 + t_lo)) + 0.5 * yl)
            s_hi = _up(_up(0.5 * (1 + t_hi)) + 0.5 * yh)
    s_lo = np.where(np.isnan(s_lo), SLOPE_RANGE[0], s_lo)
    s_hi = np.where(np.isnan(s_hi), SLOPE_RANGE[1], s_hi)
    return np.maximum(s_lo, SLOPE_RANGE[0]), np.minimum(s_hi, SLOPE_RANGE[1])


# --------------------------------------------------------------------------------------------- LayerNorm
def normalize_jacobian_times(lo, hi, d_ball: Ball, eps: float) -> Ball:
    """Enclosure of ``J_N(u) d`` over u in [lo, hi] (B, d) and d in ``d_ball`` ((B, d), or (B, K, d): K
    directions): ``J_N d = (C d - z (z . C d)/d) / sigma`` for ``N(u) = C u / sigma``, ``C = I - 11^T/d``,
    ``sigma = sqrt(|C u|^2/d + eps)``, ``z = N(u)`` (differentiate: C is symmetric and idempotent), with z and
    sigma enclosed over the box."""
    dim = lo.shape[-1]
    _, _, sig_lo, sig_hi = centred_sigma(lo, hi, eps)  # (B, 1)
    z = _to_ball(*normalize(lo, hi, eps))  # (B, d)
    inv_sigma = _to_ball(_dn(1 / sig_hi), _up(1 / sig_lo))
    if d_ball.mid.ndim == 3:
        z = Ball(z.mid[:, None, :], z.rad[:, None, :])
        inv_sigma = Ball(inv_sigma.mid[:, None, :], inv_sigma.rad[:, None, :])
    cd = matmul(d_ball, _centering(dim))
    zc = matmul(Ball(cd.mid[..., None, :], cd.rad[..., None, :]), Ball(z.mid[..., :, None], z.rad[..., :, None]))
    zc = Ball(zc.mid[..., 0], zc.rad[..., 0])  # (..., 1): z . C d
    inv_d = Ball(np.float64(1 / dim), np.float64(U / dim))
    return mul(add(cd, neg(mul(z, mul(zc, inv_d)))), inv_sigma)


# --------------------------------------------------------------------------------------------- attention
def attention_jacobian(enc: Enclosure, t: int, m_lo, m_hi, a) -> Ball:
    """Enclosure (B, K, d) of ``da/dm`` over masses in [m_lo, m_hi] (B, K), ``a`` an enclosure (lo, hi) of the
    attention output (B, d) on the box: ``da_hj/dm_c = e^{s_hc} (v_hcj - a_hj) / Z_h``, ``Z_h = sum_c m_c e^{s_hc}``
    (with the common factor ``e^{-max s}`` of :func:`~bounds.certify.gpt2_enclosure.shifted_exp` in both); where
    the box lets Z reach 0 the enclosure is unbounded (the centred form then adds nothing)."""
    e_lo, e_hi = shifted_exp(enc.s_lo[t], enc.s_hi[t])  # (H, K)
    B, K, H, dh = m_lo.shape[0], enc.K, enc.v_lo.shape[0], enc.dh
    with np.errstate(under="ignore"):
        z_lo = _dn(np.sum(_dn(np.maximum(m_lo, 0.0)[:, None, :] * e_lo[None]), axis=-1) * (1 - 2 * K * U))
        z_hi = _up(np.sum(_up(m_hi[:, None, :] * e_hi[None]), axis=-1) * (1 + 2 * K * U))  # (B, H)
    with np.errstate(divide="ignore", invalid="ignore"):
        w_lo = _dn(e_lo[None] / z_hi[..., None])  # (B, H, K)
        w_hi = np.where(z_lo[..., None] > 0, _up(e_hi[None] / np.maximum(z_lo, TINY)[..., None]), np.inf)
    a_lo, a_hi = a[0].reshape(B, H, 1, dh), a[1].reshape(B, H, 1, dh)
    r_lo, r_hi = _dn(enc.v_lo[None] - a_hi), _up(enc.v_hi[None] - a_lo)  # (B, H, K, dh)
    j_lo, j_hi = imul(r_lo, r_hi, w_lo[..., None], w_hi[..., None])
    j_lo = np.where(np.isnan(j_lo), -np.inf, j_lo).transpose(0, 2, 1, 3).reshape(B, K, H * dh)
    j_hi = np.where(np.isnan(j_hi), np.inf, j_hi).transpose(0, 2, 1, 3).reshape(B, K, H * dh)
    return _to_ball(j_lo, j_hi)


# --------------------------------------------------------------------------------------------- the centred form
def _centred(value_c, dm: Ball, jac: Ball):
    """``x(c) + (m - c) J`` as (lo, hi): value_c (B, w) at the centre, dm (B, K), jac (B, K, w)."""
    step = matmul(Ball(dm.mid[:, None, :], dm.rad[:, None, :]), jac)
    step = Ball(step.mid[:, 0], step.rad[:, 0])
    vc = value_c if isinstance(value_c, Ball) else _to_ball(*value_c)
    with np.errstate(invalid="ignore", over="ignore"):
        return _bounds(add(vc, step))


def _same_kind(value, lohi):
    return _to_ball(*lohi) if isinstance(value, Ball) else lohi


class CentredEnclosure(Enclosure):
    """:class:`~bounds.certify.gpt2_enclosure.Enclosure` with every intermediate (and the logits) intersected
    with its centred form (module docstring); ``tighten(name, (lo, hi))``, when given to :meth:`trace`, returns a
    tighter enclosure of each intersected intermediate, which the next one (and its Jacobian) is computed from."""

    def trace(self, t: int, r_lo, r_hi, p_lo, p_hi, tighten=None) -> dict:
        f = self.form
        c_r = np.clip(r_lo + (r_hi - r_lo) / 2, r_lo, r_hi)
        c_p = np.clip(p_lo + (p_hi - p_lo) / 2, p_lo, p_hi)
        centre = Enclosure.trace(self, t, c_r, c_r, c_p, c_p)
        m_lo = np.concatenate([r_lo[:, None], p_lo], axis=1)
        m_hi = np.concatenate([r_hi[:, None], p_hi], axis=1)
        c_m = np.concatenate([c_r[:, None], c_p], axis=1)
        dm = _to_ball(_dn(m_lo - c_m), _up(m_hi - c_m))
        jac, hull = {}, {}

        def keep(name, value):
            lohi = value if not isinstance(value, Ball) else _bounds(value)
            if name == "a":
                J = attention_jacobian(self, t, m_lo, m_hi, lohi)
            elif name == "x1":
                J = matmul(jac["a"], point(f.proj_w))
            elif name == "z2":
                J = normalize_jacobian_times(*hull["x1"], jac["x1"], f.ln_eps)
            elif name == "h":
                J = mul(jac["z2"], point(f.ln2[0]))
            elif name == "pre":
                J = matmul(jac["h"], point(f.fc_w))
            elif name == "act":
                slope = _to_ball(*gelu_slope(*hull["pre"], f.activation))
                J = mul(jac["pre"], Ball(slope.mid[:, None, :], slope.rad[:, None, :]))
            else:  # x2
                J = add(jac["x1"], matmul(jac["act"], point(f.mproj_w)))
            jac[name] = J
            hull[name] = intersect(lohi, _centred(centre[name], dm, J))
            if tighten is not None:  # a further sound enclosure (bounds.certify.gpt2_affine), given the hull
                hull[name] = tighten(name, hull[name])
            return _same_kind(value, hull[name])

        with np.errstate(invalid="ignore", over="ignore"):  # an unbounded Jacobian leaves the plain enclosure
            out = Enclosure.trace(self, t, r_lo, r_hi, p_lo, p_hi, tighten=keep)
        out.update(centre=centre, dm=dm, jac_x2=jac["x2"])
        return out

    def trace_logits(self, trace: dict):
        f = self.form
        x2 = _bounds(trace["x2"])
        with np.errstate(invalid="ignore", over="ignore"):
            jz = normalize_jacobian_times(*x2, trace["jac_x2"], f.ln_eps)
            J = matmul(mul(jz, point(f.lnf[0])), point(f.head_w.T))
        c = Enclosure.trace_logits(self, trace["centre"])
        with np.errstate(invalid="ignore", over="ignore"):
            return intersect(self.head(trace["x2"]), _centred(c, trace["dm"], J))
