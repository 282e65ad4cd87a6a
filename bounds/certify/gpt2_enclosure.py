"""Certified enclosures of a one-layer GPT-2's last-position logits (NoPE or periodic positions) as a function of
the class shares.

**Class reduction** (the NoPE case of Izzo et al. App. A.1, with Huang et al.'s BOS token).  For the input
``BOS x_1 ... x_n`` (L = n + 1 positions) every key and value is a function of its position's token alone (no
position term; ``ln_1`` acts per position), and the query is the last token's.  Head h therefore outputs

    a_h = sum_c m_c e^{s_hc} v_hc / sum_c m_c e^{s_hc},   c in {BOS} + alphabet,
    m_BOS = rho = 1/L,  m_c = pi_c = count_c / L,

with ``s_hc = q_h(t) . k_hc / sqrt(d_head)`` (t the last token).  The rest of the layer (residual, ``ln_2``, the MLP,
``ln_f``, the head) acts on the last position only, so the logits are a function F_t(rho, pi) of the last token
and the shares; the shares of every input satisfy ``rho + sum pi = 1``, ``rho > 0``, ``pi_t >= rho``.  For
L -> infinity the points fill the closure of that set with rho in [0, 1/(N0 + 2)].

**Periodic positions** (Izzo et al. App. A.1 "Including positional embedding vectors": with Delta-periodic
positions the classes are (token, position mod Delta)).  A position table read periodically, ``wpe[i] = wpe[i mod
P]`` (position 0 holds BOS), makes position i's residual input ``wte[x_i] + wpe[i mod P]`` a function of its class
``(x_i, i mod P)`` (BOS: ``(BOS, 0)``), and ``ln_1``, keys and values act per position, so the same derivation holds
with c ranging over BOS and the k P classes ``(a, r)`` (class ``1 + i P + r`` for the alphabet's i-th token), the
query and the residual term being the last position's class ``(x_n, n mod P)``: the logits are F_t(rho, pi) with
t that class and ``pi_(a,r) = count_(a,r) / L``.  Besides ``rho + sum pi = 1`` and ``pi_t >= rho`` the shares of
every input satisfy, per residue r, ``sum_a pi_(a,r) = N_r / L`` with N_r the number of positions 1..n of residue
r (:func:`bounds.true_threshold.positions_per_residue`), ``floor(n/P) <= N_r <= ceil(n/P)``, so
``1/P - rho <= sum_a pi_(a,r) <= 1/P + rho`` (``N_r >= (n - P + 1)/P`` and ``N_r <= (n + P - 1)/P`` with
``n = 1/rho - 1``).  P = 1 with a zero table is the NoPE case.  The class embeddings ``wte[a] + wpe[r]`` are
enclosed one ulp each way (:meth:`bounds.certify.gpt2.Gpt2Form.class_embeddings`).

**Enclosures on a box** ``rho in [r_lo, r_hi]``, ``pi in [p_lo, p_hi]`` (:meth:`Enclosure.logits`), float64 with
outward rounding (``np.nextafter`` after every correctly rounded operation; Higham's gamma_n bounds on sums and
products through :mod:`bounds.float_enclosures`; exp, tanh and erf trusted to 2^-40 relative, the package's
convention):

1. *Attention*: with ``u_c = m_c e^{s_c}``, ``a_hj = sum u_c v_cj / sum u_c`` is linear-fractional in u, hence
   quasi-linear, so its max and min over the box of u (``u_c in [m_lo e^{s_lo}, m_hi e^{s_hi}]``) are attained
   at vertices: all 2^K vertices are evaluated (K = |alphabet| P + 1 classes), with v at its upper end for the max and its
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
5. *Attention with many classes* (more than :data:`VERTEX_CLASSES`: an absolute table read as a table of period R,
   every position its own class; only point boxes are evaluated there): numerator and denominator are enclosed
   separately, ``sum_c u_c v_cj`` in ``[sum_c u_c^- v_lo_cj, sum_c u_c^+ v_hi_cj]`` with ``u_c^-`` / ``u_c^+`` the
   end of ``[u_lo_c, u_hi_c]`` (all >= 0) that minimizes / maximizes each product, ``sum_c u_c`` in
   ``[sum u_lo, sum u_hi]``, each sum padded by ``gamma_{K+2}`` times its sum of magnitudes, then divided as
   intervals (the denominator > 0: BOS's mass is > 0 on every box evaluated there) and clipped to the values'
   convex hull.  Sound on any box (looser than item 1 on wide ones).

:mod:`bounds.certify.gpt2_difference` encloses ``f - g`` for two forms (tighter than subtracting two enclosures).
"""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
from scipy.special import erf

from bounds.float_enclosures import TINY, Ball, add, ball, gamma_n, matmul

REL = 2.0**-40  # trusted relative accuracy of numpy/scipy exp, tanh, erf
GELU_TANH_C = float(np.sqrt(2 / np.pi))
GELU_MIN_MARGIN = 1e-12
VERTEX_CLASSES = 9  # up to this many classes the attention is enclosed at the 2^K vertices (item 1), else item 5


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


def centred_sigma(lo, hi, eps: float):
    """``y = (I - 11^T/d) x`` as intervals and an enclosure ``[sig_lo, sig_hi]`` (last axis kept, length 1) of
    ``sqrt(var x + eps)`` over x in the interval vector [lo, hi] (last axis; item 2 of the module docstring)."""
    d = lo.shape[-1]
    y = matmul(_to_ball(lo, hi), _centering(d))
    ylo, yhi = _bounds(y)
    sq_lo, sq_hi = _sq(ylo, yhi)
    s_lo = _dn(np.sum(sq_lo, axis=-1) * (1 - gamma_n(d + 2)))
    s_hi = _up(np.sum(sq_hi, axis=-1) * (1 + gamma_n(d + 2)) + d * TINY)
    sig_lo = _dn(np.sqrt(_dn(_dn(np.maximum(s_lo, 0) / d) + eps)))[..., None]
    sig_hi = _up(np.sqrt(_up(_up(s_hi / d) + eps)))[..., None]
    return ylo, yhi, sig_lo, sig_hi


def normalize(lo, hi, eps: float):
    """Enclosure of ``(x - mean x) / sqrt(var x + eps)`` over x in the interval vector [lo, hi] (last axis)."""
    d = lo.shape[-1]
    ylo, yhi, sig_lo, sig_hi = centred_sigma(lo, hi, eps)
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
def class_counts(ids, alphabet, period: int = 1):
    """The class count vector (length ``len(alphabet) * period``, class ``i P + r`` for letter i at residue r; BOS
    not counted) of the input ``ids`` (positions 1..n after BOS at 0) and the index of its last position's class."""
    P = period
    counts = [0] * (len(alphabet) * P)
    for pos, a in enumerate(ids, 1):
        counts[alphabet.index(a) * P + pos % P] += 1
    return counts, alphabet.index(ids[-1]) * P + len(ids) % P


def point_box(counts, n: int):
    """The box (degenerate up to rounding) of one input: n tokens after BOS with these counts per letter."""
    L = float(n + 1)
    c = np.asarray(counts, dtype=np.float64)[None, :]
    return (np.array([_dn(1 / L)]), np.array([_up(1 / L)]), _dn(c / L), _up(c / L))


def shifted_exp(s_lo, s_hi):
    """Enclosure of ``e^{s_c - max_c s_hi}`` (a common factor of numerator and denominator of a softmax) per head:
    the exponent rounded outward, exp trusted to REL."""
    shift = s_hi.max(axis=1, keepdims=True)
    with np.errstate(under="ignore"):
        e_lo = np.maximum(_dn(np.exp(_dn(s_lo - shift)) * (1 - REL)), 0.0)
        e_hi = _up(np.exp(_up(s_hi - shift)) * (1 + REL)) + TINY
    return e_lo, e_hi


def mixture(s_lo, s_hi, val_lo, val_hi, masks, m_lo, m_hi):
    """Enclosure (B, H, dh) of the softmax mixtures ``sum_c u_c val_c / sum_c u_c`` over ``u_c = m_c e^{s_c}`` with
    ``s`` in [s_lo, s_hi] (H, K), masses in [m_lo, m_hi] (B, K) and values in [val_lo, val_hi] ((H, K, dh), or
    (B, H, K, dh) per box): item 1 of the module docstring (the vertices ``masks`` of the u box, the values at
    their upper end for the max, lower for the min, rounding padded, clipped to the values' convex hull)."""
    K = s_lo.shape[1]
    e_lo, e_hi = shifted_exp(s_lo, s_hi)
    # masses and exponentials are >= 0, so 0 bounds their products below (rounding down may cross it)
    u_lo = np.maximum(_dn(np.maximum(m_lo, 0.0)[:, None, :] * e_lo[None]), 0.0)  # (B, H, K)
    u_hi = _up(m_hi[:, None, :] * e_hi[None])
    if masks is None:
        return _ratio_mixture(u_lo, u_hi, val_lo, val_hi)
    u = np.where(masks[None, None], u_hi[:, :, None, :], u_lo[:, :, None, :])  # (B, H, V, K)
    den = u.sum(axis=-1)  # (B, H, V)
    ok = den > 0
    safe = np.where(ok, den, 1.0)[..., None]
    spec = "bhvk,hkj->bhvj" if val_lo.ndim == 3 else "bhvk,bhkj->bhvj"
    top = np.einsum(spec, u, val_hi) / safe
    bot = np.einsum(spec, u, val_lo) / safe
    hi = np.where(ok[..., None], top, -np.inf).max(axis=2)  # (B, H, dh)
    lo = np.where(ok[..., None], bot, np.inf).min(axis=2)
    vabs = np.maximum(np.abs(val_lo), np.abs(val_hi)).max(axis=(-2, -1))  # (H,) or (B, H)
    pad = (4 * gamma_n(K + 4) * vabs + TINY)[..., None]
    hull_lo, hull_hi = val_lo.min(axis=-2), val_hi.max(axis=-2)  # (H, dh) or (B, H, dh)
    hi = np.minimum(_up(hi + pad), hull_hi)
    lo = np.maximum(_dn(lo - pad), hull_lo)
    return lo, hi


def _ratio_mixture(u_lo, u_hi, val_lo, val_hi):
    """Item 5 of the module docstring: ``sum_c u_c val_c / sum_c u_c`` for u in [u_lo, u_hi] (B, H, K) and values in
    [val_lo, val_hi] ((H, K, dh) or (B, H, K, dh)), numerator and denominator enclosed apart."""
    K = u_lo.shape[-1]
    g = gamma_n(K + 2)
    vl = val_lo if val_lo.ndim == 4 else val_lo[None]
    vh = val_hi if val_hi.ndim == 4 else val_hi[None]
    ul, uh = u_lo[..., None], u_hi[..., None]  # (B, H, K, 1)
    top_t = np.where(vh >= 0, uh * vh, ul * vh)  # the product's largest value over u, per class
    bot_t = np.where(vl >= 0, ul * vl, uh * vl)
    num_hi = _up(top_t.sum(axis=2) + g * np.abs(top_t).sum(axis=2) + TINY)  # (B, H, dh)
    num_lo = _dn(bot_t.sum(axis=2) - g * np.abs(bot_t).sum(axis=2) - TINY)
    den_lo = _dn(u_lo.sum(axis=-1) * (1 - g))[..., None]
    den_hi = _up(u_hi.sum(axis=-1) * (1 + g) + TINY)[..., None]
    ok = den_lo > 0
    safe = np.where(ok, den_lo, 1.0)
    hi = np.where(num_hi >= 0, _up(num_hi / safe), _up(num_hi / den_hi))
    lo = np.where(num_lo >= 0, _dn(num_lo / den_hi), _dn(num_lo / safe))
    hull_lo, hull_hi = vl.min(axis=-2), vh.max(axis=-2)  # (1 or B, H, dh)
    hi = np.minimum(np.where(ok, hi, np.inf), hull_hi)
    lo = np.maximum(np.where(ok, lo, -np.inf), hull_lo)
    return lo, hi


class Enclosure:
    """Per-token precomputation and the box enclosure of one form's logits (module docstring)."""

    def __init__(self, form):
        self.form = form
        f = form
        d, H = f.d, f.n_head
        self.dh = d // H
        emb_lo, emb_hi = f.class_embeddings()
        self.K = len(emb_lo)
        l1 = _to_ball(*layer_norm(emb_lo, emb_hi, f.ln1, f.ln_eps))
        qkv = add(matmul(l1, point(f.attn_w)), point(f.attn_b))  # (K, 3d)
        q, k, v = qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
        if f.scale_attn:
            s = np.sqrt(float(self.dh))  # torch divides by the double sqrt; the interval holds it and the real root
            scale = (_dn(s), _up(s))
        else:
            scale = (1.0, 1.0)
        self.s_lo, self.s_hi, self.v_lo, self.v_hi = [], [], [], []
        for t in range(self.K - 1):
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
        self.masks = np.array([[(m >> c) & 1 for c in range(self.K)] for m in range(1, 2**self.K)], dtype=bool) \
            if self.K <= VERTEX_CLASSES else None
        self.emb = [point(emb_lo[1 + t]) if np.array_equal(emb_lo[1 + t], emb_hi[1 + t]) else
                    _to_ball(emb_lo[1 + t], emb_hi[1 + t]) for t in range(self.K - 1)]

    def attention(self, t: int, m_lo, m_hi):
        """Interval enclosure (B, d) of the concatenated head outputs at masses m in [m_lo, m_hi] (B, K)."""
        lo, hi = mixture(self.s_lo[t], self.s_hi[t], self.v_lo, self.v_hi, self.masks, m_lo, m_hi)
        B = m_lo.shape[0]
        return lo.reshape(B, -1), hi.reshape(B, -1)

    def trace(self, t: int, r_lo, r_hi, p_lo, p_hi, tighten=None) -> dict:
        """The enclosures of every intermediate at the last position on the boxes: ``m`` (the masses), ``a``
        (attention), ``z2`` (``ln_2``'s normalized input), ``h``, ``pre``, ``act`` as interval pairs, ``x1`` and
        ``x2`` (the residual stream before ``ln_f``) as Balls, each (B, width).  ``tighten(name, value)``, when
        given, returns a tighter enclosure of each intermediate (:mod:`bounds.certify.gpt2_centred`), which the
        next one is computed from."""
        f = self.form
        keep = tighten or (lambda name, value: value)
        m_lo = np.concatenate([r_lo[:, None], p_lo], axis=1)
        m_hi = np.concatenate([r_hi[:, None], p_hi], axis=1)
        a = keep("a", self.attention(t, m_lo, m_hi))
        x1 = keep("x1", add(add(matmul(_to_ball(*a), point(f.proj_w)), point(f.proj_b)), self.emb[t]))
        z2 = keep("z2", normalize(*_bounds(x1), f.ln_eps))
        h = keep("h", affine(*z2, *f.ln2))
        pre = keep("pre", _bounds(add(matmul(_to_ball(*h), point(f.fc_w)), point(f.fc_b))))
        act = keep("act", gelu(*pre, f.activation))
        x2 = keep("x2", add(x1, add(matmul(_to_ball(*act), point(f.mproj_w)), point(f.mproj_b))))
        return {"m": (m_lo, m_hi), "a": a, "x1": x1, "z2": z2, "h": h, "pre": pre, "act": act, "x2": x2}

    def stream(self, t: int, r_lo, r_hi, p_lo, p_hi) -> Ball:
        """The residual stream x2 at the last position (before ``ln_f``), as a Ball (B, d)."""
        return self.trace(t, r_lo, r_hi, p_lo, p_hi)["x2"]

    def head(self, x2: Ball):
        f = self.form
        z = _to_ball(*layer_norm(*_bounds(x2), f.lnf, f.ln_eps))
        return _bounds(add(matmul(z, point(f.head_w.T)), point(f.head_b)))

    def trace_logits(self, trace: dict):
        """Enclosure (lo, hi) of the logits from a :meth:`trace`."""
        return self.head(trace["x2"])

    def logits(self, t: int, r_lo, r_hi, p_lo, p_hi):
        """Enclosure (lo, hi), each (B, outputs), of the logits on the boxes, last position of class t (the
        alphabet's token ``t // P`` at residue ``t % P``)."""
        return self.trace_logits(self.trace(t, r_lo, r_hi, p_lo, p_hi))
