"""Certified enclosures of a one-layer NoPE GPT-2's last-position logits as a function of the class shares.

**Class reduction** (the NoPE case of Izzo et al. App. A.1, with Huang et al.'s BOS token).  For the input
``BOS x_1 ... x_n`` (L = n + 1 positions) every key and value is a function of its position's token alone (no
position term; ``ln_1`` acts per position), and the query is the last token's.  Head h therefore outputs

    a_h = sum_c m_c e^{s_hc} v_hc / sum_c m_c e^{s_hc},   c in {BOS} + alphabet,
    m_BOS = rho = 1/L,  m_c = pi_c = count_c / L,

with ``s_hc = q_h(t) . k_hc / sqrt(d_head)`` (t the last token).  The rest of the layer (residual, ``ln_2``, the MLP,
``ln_f``, the head) acts on the last position only, so the logits are a function F_t(rho, pi) of the last token
and the shares; the shares of every input satisfy ``rho + sum pi = 1``, ``rho > 0``, ``pi_t >= rho``.  For
L -> infinity the points fill the closure of that set with rho in [0, 1/(N0 + 2)].

**Enclosures on a box** ``rho in [r_lo, r_hi]``, ``pi in [p_lo, p_hi]`` (:meth:`Enclosure.logits`), float64 with
outward rounding (``np.nextafter`` after every correctly rounded operation; Higham's gamma_n bounds on sums and
products through :mod:`bounds.float_enclosures`; exp, tanh and erf trusted to 2^-40 relative, the package's
convention):

1. *Attention*: with ``u_c = m_c e^{s_c}``, ``a_hj = sum u_c v_cj / sum u_c`` is linear-fractional in u, hence
   quasi-linear, so its max and min over the box of u (``u_c in [m_lo e^{s_lo}, m_hi e^{s_hi}]``) are attained
   at vertices: all 2^K vertices are evaluated (K = |alphabet| + 1), with v at its upper end for the max and its
   lower end for the min (the value increases with every v_c, the weights being >= 0), each padded by
   ``4 gamma_{K+4} max|v|`` for the rounding of the ratio, and clipped to the convex hull ``[min v, max v]``.
2. *LayerNorm* on an interval vector x: ``y = (I - 11^T/d) x`` (one interval matmul, so the mean's dependence on
   x_i is exact), ``var = mean(y^2)`` with exact interval squares, ``z = y / sqrt(var + eps)`` by interval
   division, intersected with ``[-sqrt(d), sqrt(d)]`` (``y_i^2 <= sum_j y_j^2 = d var``), then ``gamma z + beta``.
   Before attention its input is a single token's embedding, so it is evaluated once per token.
3. *GELU* (both ``gelu`` = x Phi(x) and GPT-2's tanh form ``x sigma(2 c (x + 0.044715 x^3))``) is unimodal:
   decreasing on (-inf, x0], increasing on [x0, inf).  Proof: for x >= 0 both factors are positive and
   nondecreasing.  For x = -y < 0: erf form, ``g'(x) = phi(y) (R(y) - y)`` with R the Mills ratio (decreasing),
   so ``R(y) - y`` falls strictly from sqrt(pi/2) to -inf: one sign change.  Tanh form, with u(x) = c (x + a x^3)
   odd and increasing, ``g'(x) = sigma(2u) (1 - h(y))``, ``h(y) = 2 y u'(y) sigma(2 u(y))``, a product of positive
   increasing factors, so h rises strictly from 0 to inf: one sign change.  Hence on [lo, hi] the max is
   ``max(g(lo), g(hi))`` and the min is g(hi) if hi <= x0, g(lo) if lo >= x0, else min g (a lower bound: the
   value at the bisected x0 less 1e-12, far above the Taylor error of a 1e-12-accurate x0).
4. Affine maps are interval (midpoint-radius) matmuls (:func:`bounds.float_enclosures.matmul`).

:class:`PairDifference` encloses ``f - g`` for two forms; where they differ only in ``ln_f`` and the head, the
difference is linear in the shared normalized stream, ``z (diag(gf) Wf^T - diag(gg) Wg^T) + const``, enclosed
directly (so a model against itself gets exactly 0, and a small change a small bound).
"""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
from scipy.special import erf

from bounds.float_enclosures import TINY, Ball, U, add, ball, gamma_n, matmul

REL = 2.0**-40  # trusted relative accuracy of numpy/scipy exp, tanh, erf
GELU_TANH_C = float(np.sqrt(2 / np.pi))
GELU_MIN_MARGIN = 1e-12


def _dn(x):
    return np.nextafter(x, -np.inf)


def _up(x):
    return np.nextafter(x, np.inf)


def _to_ball(lo, hi) -> Ball:
    mid = lo + (hi - lo) / 2
    rad = _up(np.maximum(_up(hi - mid), _up(mid - lo)))
    return Ball(mid, rad)


def _bounds(b: Ball):
    return b.lower, b.upper


def point(x) -> Ball:
    return Ball(np.asarray(x, dtype=np.float64), np.zeros(np.shape(x)))


@functools.cache
def _centering(d: int) -> Ball:
    one = Fraction(1, d)
    c = np.array([[(1 - one if i == j else -one) for j in range(d)] for i in range(d)], dtype=object)
    return ball(c)


def _sq(lo, hi):
    a, b = lo * lo, hi * hi
    low = np.where((lo <= 0) & (hi >= 0), 0.0, _dn(np.minimum(a, b)))
    return low, _up(np.maximum(a, b))


def normalize(lo, hi, eps: float):
    """Enclosure of ``(x - mean x) / sqrt(var x + eps)`` over x in the interval vector [lo, hi] (last axis)."""
    d = lo.shape[-1]
    y = matmul(_to_ball(lo, hi), _centering(d))
    ylo, yhi = _bounds(y)
    sq_lo, sq_hi = _sq(ylo, yhi)
    s_lo = _dn(np.sum(sq_lo, axis=-1) * (1 - gamma_n(d + 2)))
    s_hi = _up(np.sum(sq_hi, axis=-1) * (1 + gamma_n(d + 2)) + d * TINY)
    sig_lo = _dn(np.sqrt(_dn(_dn(np.maximum(s_lo, 0) / d) + eps)))[..., None]
    sig_hi = _up(np.sqrt(_up(_up(s_hi / d) + eps)))[..., None]
    z_lo = np.where(ylo >= 0, _dn(ylo / sig_hi), _dn(ylo / sig_lo))
    z_hi = np.where(yhi >= 0, _up(yhi / sig_lo), _up(yhi / sig_hi))
    cap = _up(np.sqrt(float(d)))
    return np.maximum(z_lo, -cap), np.minimum(z_hi, cap)


def affine(lo, hi, gamma, beta):
    """``gamma * z + beta`` for z in [lo, hi] (gamma, beta exact doubles)."""
    a, b = lo * gamma, hi * gamma
    plo, phi = _dn(np.minimum(a, b)), _up(np.maximum(a, b))
    return _dn(plo + beta), _up(phi + beta)


def layer_norm(lo, hi, params, eps):
    return affine(*normalize(lo, hi, eps), params[0], params[1])


# --------------------------------------------------------------------------------------------- GELU
def gelu_values(x, kind: str):
    """Float GELU and an absolute error bound of the float value."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        if kind == "gelu":
            g = 0.5 * x * (1 + erf(x / np.sqrt(2.0)))
        else:
            g = 0.5 * x * (1 + np.tanh(GELU_TANH_C * (x + 0.044715 * x * x * x)))
    return g, 4 * REL * (np.abs(g) + np.abs(x)) + TINY


def _gelu_slope(x, kind):
    h = 1e-7
    return (gelu_values(x + h, kind)[0] - gelu_values(x - h, kind)[0]) / (2 * h)


@functools.cache
def gelu_minimum(kind: str):
    """(x0_lo, x0_hi, lower bound of min GELU): the minimum's location bracketed by bisection on the slope."""
    a, b = -2.0, 0.0
    for _ in range(80):
        m = (a + b) / 2
        if _gelu_slope(m, kind) < 0:
            a = m
        else:
            b = m
    g, err = gelu_values(np.array([(a + b) / 2]), kind)
    return a - 1e-6, b + 1e-6, float(g[0] - err[0] - GELU_MIN_MARGIN)


def gelu(lo, hi, kind: str):
    """Enclosure of GELU over [lo, hi] by its unimodality (module docstring, item 3)."""
    glo, elo = gelu_values(lo, kind)
    ghi, ehi = gelu_values(hi, kind)
    x0_lo, x0_hi, gmin = gelu_minimum(kind)
    upper = _up(np.maximum(glo + elo, ghi + ehi))
    lower = np.where(hi <= x0_lo, ghi - ehi, np.where(lo >= x0_hi, glo - elo, gmin))
    return _dn(lower), upper


# --------------------------------------------------------------------------------------------- boxes
def point_box(counts, n: int):
    """The box (degenerate up to rounding) of one input: n tokens after BOS with these counts per letter."""
    L = float(n + 1)
    c = np.asarray(counts, dtype=np.float64)[None, :]
    return (np.array([_dn(1 / L)]), np.array([_up(1 / L)]), _dn(c / L), _up(c / L))


class Enclosure:
    """Per-token precomputation and the box enclosure of one form's logits (module docstring)."""

    def __init__(self, form):
        self.form = form
        f = form
        d, H = f.d, f.n_head
        self.dh = d // H
        classes = [f.bos, *f.alphabet]
        self.K = len(classes)
        emb = f.wte[classes]
        l1 = _to_ball(*layer_norm(emb, emb, f.ln1, f.ln_eps))
        qkv = add(matmul(l1, point(f.attn_w)), point(f.attn_b))  # (K, 3d)
        q, k, v = qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
        if f.scale_attn:
            s = np.sqrt(float(self.dh))  # torch divides by the double sqrt; the interval holds it and the real root
            scale = (_dn(s), _up(s))
        else:
            scale = (1.0, 1.0)
        self.s_lo, self.s_hi, self.v_lo, self.v_hi = [], [], [], []
        for t in range(len(f.alphabet)):
            slo, shi = [], []
            for h in range(H):
                sl = slice(h * self.dh, (h + 1) * self.dh)
                sc = matmul(q[1 + t:2 + t, sl], k[:, sl].T)  # (1, K)
                a, b = _bounds(sc)
                slo.append(np.minimum(_dn(a / scale[0]), _dn(a / scale[1]))[0])
                shi.append(np.maximum(_up(b / scale[0]), _up(b / scale[1]))[0])
            self.s_lo.append(np.array(slo))
            self.s_hi.append(np.array(shi))
        vlo, vhi = _bounds(v)  # (K, d)
        self.v_lo = vlo.reshape(self.K, H, self.dh).transpose(1, 0, 2)  # (H, K, dh)
        self.v_hi = vhi.reshape(self.K, H, self.dh).transpose(1, 0, 2)
        self.v_abs = np.maximum(np.abs(self.v_lo), np.abs(self.v_hi)).max(axis=(1, 2))  # (H,)
        self.masks = np.array([[(m >> c) & 1 for c in range(self.K)] for m in range(1, 2**self.K)], dtype=bool)
        self.emb = [point(emb[1 + t]) for t in range(len(f.alphabet))]

    def attention(self, t: int, m_lo, m_hi):
        """Interval enclosure (B, d) of the concatenated head outputs at masses m in [m_lo, m_hi] (B, K)."""
        s_lo, s_hi = self.s_lo[t], self.s_hi[t]  # (H, K)
        shift = s_hi.max(axis=1, keepdims=True)
        with np.errstate(under="ignore"):
            e_lo = np.maximum(_dn(np.exp(_dn(s_lo - shift)) * (1 - REL)), 0.0)
            e_hi = _up(np.exp(_up(s_hi - shift)) * (1 + REL)) + TINY
        # masses and exponentials are >= 0, so 0 bounds their products below (rounding down may cross it)
        u_lo = np.maximum(_dn(np.maximum(m_lo, 0.0)[:, None, :] * e_lo[None]), 0.0)  # (B, H, K)
        u_hi = _up(m_hi[:, None, :] * e_hi[None])
        u = np.where(self.masks[None, None], u_hi[:, :, None, :], u_lo[:, :, None, :])  # (B, H, V, K)
        den = u.sum(axis=-1)  # (B, H, V)
        ok = den > 0
        safe = np.where(ok, den, 1.0)[..., None]
        top = np.einsum("bhvk,hkj->bhvj", u, self.v_hi) / safe
        bot = np.einsum("bhvk,hkj->bhvj", u, self.v_lo) / safe
        hi = np.where(ok[..., None], top, -np.inf).max(axis=2)  # (B, H, dh)
        lo = np.where(ok[..., None], bot, np.inf).min(axis=2)
        pad = (4 * gamma_n(self.K + 4) * self.v_abs + TINY)[None, :, None]
        hi = np.minimum(_up(hi + pad), self.v_hi.max(axis=1)[None])
        lo = np.maximum(_dn(lo - pad), self.v_lo.min(axis=1)[None])
        B = m_lo.shape[0]
        return lo.reshape(B, -1), hi.reshape(B, -1)

    def stream(self, t: int, r_lo, r_hi, p_lo, p_hi) -> Ball:
        """The residual stream x2 at the last position (before ``ln_f``), as a Ball (B, d)."""
        f = self.form
        m_lo = np.concatenate([r_lo[:, None], p_lo], axis=1)
        m_hi = np.concatenate([r_hi[:, None], p_hi], axis=1)
        a = _to_ball(*self.attention(t, m_lo, m_hi))
        x1 = add(add(matmul(a, point(f.proj_w)), point(f.proj_b)), self.emb[t])
        h = _to_ball(*layer_norm(*_bounds(x1), f.ln2, f.ln_eps))
        pre = add(matmul(h, point(f.fc_w)), point(f.fc_b))
        act = _to_ball(*gelu(*_bounds(pre), f.activation))
        return add(x1, add(matmul(act, point(f.mproj_w)), point(f.mproj_b)))

    def head(self, x2: Ball):
        f = self.form
        z = _to_ball(*layer_norm(*_bounds(x2), f.lnf, f.ln_eps))
        return _bounds(add(matmul(z, point(f.head_w.T)), point(f.head_b)))

    def logits(self, t: int, r_lo, r_hi, p_lo, p_hi):
        """Enclosure (lo, hi), each (B, outputs), of the logits on the boxes, last token ``alphabet[t]``."""
        return self.head(self.stream(t, r_lo, r_hi, p_lo, p_hi))


def _same_body(f, g) -> bool:
    names = ("wte", "attn_w", "attn_b", "proj_w", "proj_b", "fc_w", "fc_b", "mproj_w", "mproj_b")
    if (f.n_head, f.ln_eps, f.activation, f.scale_attn, f.bos, f.alphabet) != \
            (g.n_head, g.ln_eps, g.activation, g.scale_attn, g.bos, g.alphabet):
        return False
    same = all(np.array_equal(getattr(f, n), getattr(g, n)) for n in names)
    return same and all(np.array_equal(a, b) for a, b in zip((*f.ln1, *f.ln2), (*g.ln1, *g.ln2), strict=True))


def _scaled(w, gamma) -> Ball:
    """Ball of ``diag(gamma) w^T`` (each product one rounding)."""
    prod = gamma[:, None] * w.T
    return Ball(prod, np.abs(prod) * U + TINY)


class PairDifference:
    """Enclosure of ``f - g`` (B, outputs) on boxes; f and g must share BOS, alphabet and output count."""

    def __init__(self, f, g):
        if (f.bos, f.alphabet) != (g.bos, g.alphabet):
            raise ValueError(f"f and g read different inputs (BOS {f.bos} / {g.bos}, alphabet {f.alphabet} / "
                             f"{g.alphabet})")
        if f.head_w.shape[0] != g.head_w.shape[0]:
            raise ValueError(f"f has {f.head_w.shape[0]} outputs and g {g.head_w.shape[0]}")
        self.f, self.g = Enclosure(f), Enclosure(g)
        self.shared = _same_body(f, g)
        if self.shared:
            m = add(_scaled(f.head_w, f.lnf[0]), Ball(-g.lnf[0][:, None] * g.head_w.T,
                                                      np.abs(g.lnf[0][:, None] * g.head_w.T) * U + TINY))
            cf = add(matmul(point(f.lnf[1][None]), point(f.head_w.T)), point(f.head_b))
            cg = add(matmul(point(g.lnf[1][None]), point(g.head_w.T)), point(g.head_b))
            self.m, self.c = m, add(cf, Ball(-cg.mid, cg.rad))

    def difference(self, t: int, r_lo, r_hi, p_lo, p_hi):
        if self.shared:
            x2 = self.f.stream(t, r_lo, r_hi, p_lo, p_hi)
            z = _to_ball(*normalize(*_bounds(x2), self.f.form.ln_eps))
            return _bounds(add(matmul(z, self.m), self.c))
        flo, fhi = self.f.logits(t, r_lo, r_hi, p_lo, p_hi)
        glo, ghi = self.g.logits(t, r_lo, r_hi, p_lo, p_hi)
        return _dn(flo - ghi), _up(fhi - glo)
