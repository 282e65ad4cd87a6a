"""Affine (first-order Taylor) forms of a one-layer NoPE GPT-2 over a box of class shares, shared by two models.

The centred form of :mod:`bounds.certify.gpt2_centred` bounds an intermediate by ``x(c) + J (m - c)`` with J an
*interval* Jacobian over the box; the intervals forget which box coordinate a deviation came from, so after
``ln_2``, the MLP and the residual sum the enclosure of x2 can be far wider than x2's range (where one token's
large score switches the attention, about 70x on the benchmark model).  Here every intermediate is carried as an
**affine form** over the box's own noise symbols (affine arithmetic / a first-order Taylor model; the zonotopes
of DeepT, Bonaert et al. PLDI 2021, with the box coordinates as the only shared symbols):

    x(m) in c + sum_k e_k(m) G_k + [-r, r]    for every m in the box,   e_k(m) = (m_k - cm_k) / hm_k in [-1, 1],

(cm, hm: the box centre and half-widths, :func:`box_symbols`; hm_k = 0 gives e_k = 0).  c, G are doubles, r >= 0
collects every rounding error and every nonlinear remainder.  The symbols e_k are functions of the point m alone,
so two models evaluated on the same box carry the same e: the difference of their forms, ``(c_f - c_g) + sum_k
e_k (G_f - G_g)_k +- (r_f + r_g)``, cancels the first-order terms the two share (:func:`affine_difference`).

**Operations** (each proved in its docstring; rounding: products and sums through
:mod:`bounds.float_enclosures` / :func:`bounds.certify.gpt2_centred.mul` balls, whose radii go into r, a
generator's radius times ``|e_k| <= 1`` included):

* affine maps and sums are exact on forms (:func:`linear`, :func:`add`, :func:`scale`);
* products of two forms (:func:`product`): ``x y = c_x c_y + c_x G_y e + c_y G_x e + R`` with
  ``|R| <= |c_x| r_y + |c_y| r_x + dev_x dev_y``, ``dev = sum_k |G_k| + r``;
* the attention head ``a(m) = sum_c m_c w_c v_c / D(m)``, ``D = sum_c m_c w_c``, ``w_c = e^{s_c - max s}``
  (scores and values are fixed per token: points up to rounding) is linear-fractional in m:
  ``a(m) - a(cm) = L(e) / D(m)`` with ``L(e) = sum_k e_k hm_k w_k (v_k - a(cm))`` (the numerator
  ``sum_c m_c w_c (v_c - a(cm))`` is affine in m and vanishes at cm), so
  ``a(m) = a(cm) + L(e)/D(cm) + L(e) (1/D(m) - 1/D(cm))``: generators ``hm_k w_k (v_k - a(cm)) / D(cm)`` and the
  second-order remainder ``sum_k hm_k |w_k (v_k - a(cm))| * max |1/D - 1/D(cm)|`` over the box's range of D
  (:func:`attention_form`; :func:`quotient_remainder`);
* an elementwise C^1 function phi (GELU; ``v^(-1/2)`` in LayerNorm) is replaced on the range ``[lo, hi]`` of its
  input by a linear relaxation ``phi(x) in lam x + [mu_lo, mu_hi]`` (:func:`mean_value_relaxation`: ``lam`` the
  midpoint of an enclosure [s_lo, s_hi] of phi' over [lo, hi], ``mu = phi(xm) - lam xm +- D H`` with
  ``D = max(s_hi - lam, lam - s_lo)``, ``H`` the half-width; by the mean-value theorem
  ``phi(x) - lam x - (phi(xm) - lam xm) = (phi'(xi) - lam)(x - xm)``).  Where that is wider than the plain range
  of phi the constant relaxation ``lam = 0``, ``mu = range`` is used (both are sound);
* LayerNorm ``gamma (x - mean x) / sqrt(var x + eps) + beta``: the centring is linear; ``var`` is the quadratic
  ``sum_i y_i^2 / d`` of the centred form y, whose square is expanded exactly
  (``(c + G e + rho)^2 = c^2 + 2 c G e + 2 c rho + (G e + rho)^2``, the last term in ``[0, dev^2]``); then
  ``v^(-1/2)`` is relaxed and multiplied in by :func:`product`.

**Fresh symbols** (:func:`fresh`).  ``ln_2``'s remainder (second order in the box width, and large where the
attention switches) is turned into d new symbols, one per coordinate, before the MLP: through ``c_fc``, GELU and
``mlp.c_proj`` it is then combined with its signs, ``|sum_j M_jk lam_j W_ij| r_i`` instead of ``sum_j |M_jk| lam_j
sum_i |W_ij| r_i`` (on the benchmark model this narrows x2 on a box of width 0.01 in the switching strip from 16
to 4.6 against a sampled range of 0.86).  Two models share these symbols only when they compute the same x1 with
the same forms (:func:`shared_symbols`); otherwise each one's are its own and enter the difference as remainder.

The range used to relax a nonlinearity is the form's own range intersected with the interval enclosure of the
same quantity (centred and plain, :class:`bounds.certify.gpt2_centred.CentredEnclosure`): both hold the value at
every m of the box, so their intersection does; where a form's range is more than twice the interval's, the
interval's constant form replaces it (:func:`narrowest`).  :class:`AffineEnclosure` intersects every
intermediate's interval enclosure with its form's range as it goes, and its logits with the logits' form.
:func:`smear_split` gives the branch-and-bound of :mod:`bounds.certify.gpt2_search` the box coordinate along
which x2's form varies most (Hansen's "smear" rule), which is where a split shrinks the remainders most.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from bounds.certify.gpt2_centred import CentredEnclosure, gelu_slope, imul, intersect, mul, neg
from bounds.certify.gpt2_enclosure import (
    _centering,
    _dn,
    _to_ball,
    _up,
    centred_sigma,
    gelu,
    gelu_values,
    mixture,
    point,
    shifted_exp,
)
from bounds.float_enclosures import TINY, Ball, U, add, gamma_n, matmul

NARROWEST_FACTOR = 2.0
POINT_WIDTH = 1e-12  # boxes no wider than this (the point boxes of single inputs) are left to the centred form


def _rad_up(x, terms: int):
    """An upper bound of a sum of ``terms`` non-negative float terms computed in floating point."""
    return _up(x * (1 + gamma_n(terms + 4)) + (terms + 2) * TINY)


@dataclass(eq=False)
class Affine:
    """``x(m) in c + sum_s e_s(m) G[:, s] + [-r, r]`` for every m of the box (module docstring); c, r (B, n),
    G (B, S, n).  The first K symbols are the box's; later ones are introduced by :func:`fresh` in the order of
    the computation, so two forms of one trace agree on the meaning of every symbol index they both have."""

    c: np.ndarray
    G: np.ndarray
    r: np.ndarray

    @functools.cached_property
    def gsum(self) -> np.ndarray:
        """``sum_s |G_s|`` (B, n), rounded up."""
        return _rad_up(np.sum(np.abs(self.G), axis=1), self.G.shape[1])

    def deviation(self) -> np.ndarray:
        """Upper bound of ``|x(m) - c|`` on the box: ``sum_s |G_s| + r``."""
        return _rad_up(self.gsum + self.r, 2)

    def bounds(self):
        """The form's range (lo, hi), rounded outward."""
        b = Ball(self.c, self.deviation())
        return b.lower, b.upper

    def at(self, e) -> Ball:
        """The form at given values e (B, S') of its first S' symbols (|e| <= 1; the others anywhere in [-1, 1]),
        for checks: a Ball holding every value the form allows there."""
        k = e.shape[1]
        mid = np.einsum("bk,bkn->bn", e, self.G[:, :k])
        rest = np.sum(np.abs(self.G[:, k:]), axis=1)
        err = gamma_n(k + 2) * np.einsum("bk,bkn->bn", np.abs(e), np.abs(self.G[:, :k]))
        return Ball(self.c + mid, _rad_up(self.r + rest + np.abs(self.c + mid) * 2 * U + err, k + 4))


def _form(centre: Ball, gens: np.ndarray, gens_err, rem=0.0) -> Affine:
    """The form with centre known to within ``centre.rad`` and generators ``gens`` (B, S, n) whose errors, summed
    over the symbols, are at most ``gens_err`` (B, n): ``c_true + sum_s e_s G_true_s`` lies within
    ``rad_c + gens_err`` of ``c + sum_s e_s G_s`` (|e_s| <= 1); ``rem`` (>= 0) is added to r."""
    return Affine(centre.mid, gens, _rad_up(centre.rad + gens_err + rem, 4))


def _align(G1, G2):
    """The two generator arrays padded with zero generators to the same number of symbols."""
    s1, s2 = G1.shape[1], G2.shape[1]
    if s1 < s2:
        G1 = np.concatenate([G1, np.zeros((G1.shape[0], s2 - s1, G1.shape[2]))], axis=1)
    elif s2 < s1:
        G2 = np.concatenate([G2, np.zeros((G2.shape[0], s1 - s2, G2.shape[2]))], axis=1)
    return G1, G2


def box_symbols(m_lo, m_hi):
    """Centres cm and half-widths hm (B, K) with ``|m - cm| <= hm`` on the box [m_lo, m_hi]."""
    cm = np.clip(m_lo + (m_hi - m_lo) / 2, m_lo, m_hi)
    hm = _up(np.maximum(_up(m_hi - cm), _up(cm - m_lo)))
    return cm, hm


def constant(x: Ball, K: int) -> Affine:
    B = x.mid.shape[0]
    return Affine(x.mid, np.zeros((B, K, x.mid.shape[1])), _rad_up(x.rad, 1))


def fresh(x: Affine) -> Affine:
    """The same set of values with the remainder turned into new symbols, one per coordinate: ``rho_i(m) =
    x_i(m) - c_i - sum_s e_s(m) G_si`` is a function of m with ``|rho_i| <= r_i``, so ``e'_i = rho_i / r_i`` (0
    where r_i = 0) is a symbol in [-1, 1] and ``x = c + sum_s e_s G_s + sum_i e'_i r_i u_i`` exactly.  Later linear
    maps then combine the remainders with their signs instead of their absolute values."""
    B, S, n = x.G.shape
    if not np.all(np.isfinite(x.r)):
        return x
    block = np.zeros((B, n, n))
    block[:, np.arange(n), np.arange(n)] = x.r
    return Affine(x.c, np.concatenate([x.G, block], axis=1), np.zeros_like(x.r))


# --------------------------------------------------------------------------------------------- linear algebra
def narrowest(x: Affine, lo, hi) -> Affine:
    """Per coordinate, x, or the constant form of the enclosure [lo, hi] of the same values where x's range is more
    than ``NARROWEST_FACTOR`` times as wide (both hold the value at every m of the box, so either may stand for
    it; a form a little wider than the interval is kept for the correlations its generators carry)."""
    hull = _to_ball(lo, hi)
    with np.errstate(invalid="ignore", over="ignore"):
        worse = ~(x.deviation() <= NARROWEST_FACTOR * hull.rad)
    if not worse.any():
        return x
    return Affine(np.where(worse, hull.mid, x.c), np.where(worse[:, None, :], 0.0, x.G),
                  np.where(worse, _rad_up(hull.rad, 1), x.r))


def linear(x: Affine, W: Ball, b: Ball | None = None) -> Affine:
    """``x W + b``: exact on forms (``(c + G e + rho) W = c W + (G W) e + rho W``, ``|rho W| <= r |W|``, which the
    ball product of ``Ball(c, r)`` with W bounds).  The generators' rounding errors, summed over the symbols, are
    at most ``gamma_n (sum_s |G_s|) |W| + (sum_s |G_s|) rad W`` (Higham's bound is linear in |G_s|)."""
    centre = matmul(Ball(x.c, x.r), W)
    if b is not None:
        centre = add(centre, b)
    n = x.G.shape[-1]
    A = x.gsum
    err = gamma_n(n) * (A @ np.abs(W.mid))
    if W.rad.any():
        err = err + A @ W.rad
    return _form(centre, x.G @ W.mid, _rad_up(err, n + 2))


def add_forms(x: Affine, y: Affine) -> Affine:
    """``x + y`` (shapes broadcast); each generator sum is off by at most ``U |sum|``."""
    Gx, Gy = _align(x.G, y.G)
    return _form(add(Ball(x.c, x.r), Ball(y.c, y.r)), Gx + Gy, _rad_up(U * (x.gsum + y.gsum), 2))


def sub_forms(x: Affine, y: Affine) -> Affine:
    return add_forms(x, Affine(-y.c, -y.G, y.r))


def _gen_factor(b: np.ndarray) -> np.ndarray:
    """A (B, n) or (n,) factor broadcasting against generators (B, S, n)."""
    return b[:, None, :] if np.ndim(b) == 2 else b


def scale(x: Affine, s: Ball, b: Ball | None = None) -> Affine:
    """``s x + b`` elementwise for a factor s known up to its ball (the same s at every m): ``s (c + G e + rho) =
    s c + (s G) e + s rho``; the generators' errors ``U |s_mid G| + |G| rad s`` summed over the symbols."""
    centre = mul(Ball(x.c, x.r), s)
    if b is not None:
        centre = add(centre, b)
    err = x.gsum * (U * np.abs(s.mid) + s.rad)  # sum_s |G_s s| = |s| sum_s |G_s|
    return _form(centre, x.G * _gen_factor(s.mid), _rad_up(err, 3))


def add_interval(x: Affine, lo, hi) -> Affine:
    """``x + [lo, hi]`` (the interval's value may depend on m: it enters the remainder)."""
    return _form(add(Ball(x.c, x.r), _to_ball(lo, hi)), x.G, 0.0)


def product(x: Affine, y: Affine) -> Affine:
    """Elementwise ``x y`` (shapes broadcast): ``(c_x + G_x e + rho_x)(c_y + G_y e + rho_y) = c_x c_y +
    (c_x G_y + c_y G_x) e + R`` with ``R = c_x rho_y + c_y rho_x + (G_x e + rho_x)(G_y e + rho_y)``, so
    ``|R| <= |c_x| r_y + |c_y| r_x + dev_x dev_y``; the generators' rounding (two products and a sum) is at most
    ``3U (|c_x G_y| + |c_y G_x|)`` per symbol."""
    Gx, Gy = _align(x.G, y.G)
    G = Gy * _gen_factor(x.c) + Gx * _gen_factor(y.c)
    err = 3 * U * (np.abs(x.c) * y.gsum + np.abs(y.c) * x.gsum)
    rem = _rad_up(np.abs(x.c) * y.r + np.abs(y.c) * x.r + x.deviation() * y.deviation(), 3)
    return _form(mul(point(x.c), point(y.c)), G, _rad_up(err, G.shape[1] + 2), rem)


# --------------------------------------------------------------------------------------------- relaxations
def mean_value_relaxation(lo, hi, value_at, s_lo, s_hi, range_lo, range_hi):
    """A linear relaxation ``phi(x) in lam x + [mu_lo, mu_hi]`` for every x in [lo, hi] (elementwise) of a C^1
    function phi with ``phi'`` in [s_lo, s_hi] on [lo, hi] and phi in [range_lo, range_hi] there; ``value_at(xm)``
    is a Ball holding phi at the doubles xm.

    Proof: with xm in [lo, hi] and x in [lo, hi], ``phi(x) = phi(xm) + phi'(xi) (x - xm)`` for some xi between
    them (mean-value theorem), so ``phi(x) - lam x = phi(xm) - lam xm + (phi'(xi) - lam)(x - xm)`` and the last
    term is at most ``max(s_hi - lam, lam - s_lo) * max(hi - xm, xm - lo)`` in absolute value.  The constant
    relaxation (``lam = 0``, ``mu`` = the range) is sound too; it is taken where the slope enclosure is not finite
    or where it is narrower."""
    xm = np.clip(lo + (hi - lo) / 2, lo, hi)
    with np.errstate(invalid="ignore", over="ignore"):
        lam = s_lo + (s_hi - s_lo) / 2
        ok = np.isfinite(lam) & np.isfinite(s_lo) & np.isfinite(s_hi) & np.isfinite(lo) & np.isfinite(hi)
        lam = np.where(ok, lam, 0.0)
        D = _up(np.maximum(_up(s_hi - lam), _up(lam - s_lo)))
        H = _up(np.maximum(_up(hi - xm), _up(xm - lo)))
        off = add(value_at(np.where(ok, xm, 0.0)), neg(mul(point(lam), point(np.where(ok, xm, 0.0)))))
        rem = _rad_up(np.where(ok, D * H, np.inf), 1)
        mu_lo, mu_hi = _dn(off.lower - rem), _up(off.upper + rem)
    wide = ~ok | ~(mu_hi - mu_lo <= _up(range_hi - range_lo)) | np.isnan(mu_lo) | np.isnan(mu_hi)
    return (np.where(wide, 0.0, lam), np.where(wide, range_lo, mu_lo), np.where(wide, range_hi, mu_hi))


def relax(x: Affine, lam, mu_lo, mu_hi) -> Affine:
    """``lam x + [mu_lo, mu_hi]``: the image of x under a function with that linear relaxation on x's range."""
    return add_interval(scale(x, point(lam)), mu_lo, mu_hi)


def inv_sqrt_relaxation(lo, hi):
    """:func:`mean_value_relaxation` of ``v^(-1/2)`` on [lo, hi], lo > 0: ``phi' = -v^(-3/2)/2`` is increasing, so
    it lies in ``[phi'(lo), phi'(hi)]``; phi is decreasing, so its range is ``[phi(hi), phi(lo)]``.  sqrt and
    division are correctly rounded (relative error <= U each; 8U covers the chain)."""
    def inv(v):
        return 1 / np.sqrt(v)

    def half_cube(v):  # |phi'(v)| = 1 / (2 v sqrt v)
        return 0.5 / (v * np.sqrt(v))

    def value_at(v):
        val = inv(v)
        return Ball(val, 8 * U * np.abs(val) + TINY)

    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        s_lo = -_up(half_cube(lo) * (1 + 8 * U))
        s_hi = -_dn(half_cube(hi) * (1 - 8 * U))
        r_lo, r_hi = _dn(inv(hi) * (1 - 8 * U)), _up(inv(lo) * (1 + 8 * U))
    return mean_value_relaxation(lo, hi, value_at, s_lo, s_hi, r_lo, r_hi)


def gelu_relaxation(lo, hi, kind: str):
    """:func:`mean_value_relaxation` of GELU on [lo, hi]: slopes by
    :func:`bounds.certify.gpt2_centred.gelu_slope`, values and range by
    :mod:`bounds.certify.gpt2_enclosure` (``gelu_values`` with its error bound; ``gelu`` by unimodality)."""
    def value_at(x):
        g, err = gelu_values(x, kind)
        return Ball(g, err)

    s_lo, s_hi = gelu_slope(lo, hi, kind)
    r_lo, r_hi = gelu(lo, hi, kind)
    return mean_value_relaxation(lo, hi, value_at, s_lo, s_hi, r_lo, r_hi)


# --------------------------------------------------------------------------------------------- the layer
def normalized(x: Affine, lo, hi, eps: float) -> Affine:
    """Form of ``(x - mean x) / sqrt(var x + eps)`` (B, d) from the form of x and an enclosure [lo, hi] of x
    (module docstring, LayerNorm)."""
    d = x.c.shape[-1]
    y = linear(x, _centering(d))
    inv_d = Ball(np.float64(1 / d), np.float64(U / d))
    # sum_i y_i^2 = sum c^2 + 2 (c . G_k) e_k + 2 c . rho + |G e + rho|^2
    sq = matmul(point(y.c[:, None, :]), point(y.c[:, :, None]))[:, 0]  # (B, 1)
    lin = 2 * np.einsum("bsd,bd->bs", y.G, y.c)[..., None]  # (B, S, 1), each within 2 gamma_d |G_s| . |c|
    lin_err = _rad_up(2 * gamma_n(d) * np.sum(y.gsum * np.abs(y.c), axis=-1, keepdims=True), d + 2)
    dev = y.deviation()
    quad = _rad_up(np.sum(dev * dev, axis=-1, keepdims=True), d + 1)
    cross = _rad_up(2 * np.sum(np.abs(y.c) * y.r, axis=-1, keepdims=True), d + 1)
    s = add_interval(_form(sq, lin, lin_err), -cross, _up(cross + quad))  # sum_i y_i^2
    v = add_interval(scale(s, inv_d), np.float64(eps), np.float64(eps))  # var + eps
    v_lo, v_hi = v.bounds()
    _, _, sig_lo, sig_hi = centred_sigma(lo, hi, eps)
    v_lo = np.maximum(np.maximum(v_lo, _dn(sig_lo * sig_lo)), _dn(np.float64(eps) * (1 - 2 * U)))
    v_hi = np.minimum(v_hi, _up(sig_hi * sig_hi))
    v_hi = np.maximum(v_hi, v_lo)
    return product(y, relax(v, *inv_sqrt_relaxation(v_lo, v_hi)))


def quotient_remainder(spread, D_lo, D_hi, Dc_lo, Dc_hi):
    """Upper bound of ``|L(e)| |1/D(m) - 1/D(cm)|`` (module docstring, attention) with ``|L(e)| <= spread`` (B, H,
    dh), ``D(m)`` in [D_lo, D_hi] on the box and ``D(cm)`` in [Dc_lo, Dc_hi] (B, H), all > 0 (else inf)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        gap = np.maximum(_up(_up(1 / D_lo) - _dn(1 / Dc_hi)), _up(_up(1 / Dc_lo) - _dn(1 / D_hi)))
        gap = np.where(D_lo > 0, np.maximum(gap, 0.0), np.inf)
        return _up(spread * gap[..., None])


def attention_form(enc, t: int, m_lo, m_hi, cm, hm) -> Affine:
    """Form (B, d) of the concatenated head outputs at masses m in the box (module docstring, attention).  The
    scores and values enter as the enclosures of :class:`~bounds.certify.gpt2_enclosure.Enclosure`; ``a(cm)`` is
    enclosed by the vertex mixture of its point box."""
    e_lo, e_hi = shifted_exp(enc.s_lo[t], enc.s_hi[t])  # (H, K)
    B, K = m_lo.shape
    H, dh = enc.v_lo.shape[0], enc.dh
    ac_lo, ac_hi = mixture(enc.s_lo[t], enc.s_hi[t], enc.v_lo, enc.v_hi, enc.masks, cm, cm)  # (B, H, dh)
    with np.errstate(under="ignore"):
        Dc_lo = _dn(np.sum(_dn(cm[:, None, :] * e_lo[None]), axis=-1) * (1 - 2 * K * U))  # (B, H)
        Dc_hi = _up(np.sum(_up(cm[:, None, :] * e_hi[None]), axis=-1) * (1 + 2 * K * U))
        D_lo = _dn(np.sum(_dn(np.maximum(m_lo, 0.0)[:, None, :] * e_lo[None]), axis=-1) * (1 - 2 * K * U))
        D_hi = _up(np.sum(_up(m_hi[:, None, :] * e_hi[None]), axis=-1) * (1 + 2 * K * U))
    r_lo = _dn(enc.v_lo[None] - ac_hi[:, :, None, :])  # v_k - a(cm), (B, H, K, dh)
    r_hi = _up(enc.v_hi[None] - ac_lo[:, :, None, :])
    wr_lo, wr_hi = imul(r_lo, r_hi, e_lo[None, :, :, None], e_hi[None, :, :, None])  # w_k (v_k - a(cm))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q_lo = np.where(Dc_lo[..., None] > 0, _dn(hm[:, None, :] / Dc_hi[..., None]), np.inf)  # hm_k / D(cm)
        q_hi = np.where(Dc_lo[..., None] > 0, _up(hm[:, None, :] / np.maximum(Dc_lo, TINY)[..., None]), np.inf)
        g_lo, g_hi = imul(wr_lo, wr_hi, q_lo[..., None], q_hi[..., None])  # (B, H, K, dh)
        g_lo = np.where(np.isnan(g_lo), -np.inf, g_lo)
        g_hi = np.where(np.isnan(g_hi), np.inf, g_hi)
        spread = _rad_up(np.sum(hm[:, None, :, None] * np.maximum(np.abs(wr_lo), np.abs(wr_hi)), axis=2), K + 1)
        rem = quotient_remainder(spread, D_lo, D_hi, Dc_lo, Dc_hi)  # (B, H, dh)
        gens = _to_ball(g_lo, g_hi)
    mid = gens.mid.transpose(0, 2, 1, 3).reshape(B, K, H * dh)
    centre = _to_ball(ac_lo.reshape(B, -1), ac_hi.reshape(B, -1))
    with np.errstate(invalid="ignore", over="ignore"):
        err = _rad_up(np.sum(gens.rad, axis=2).reshape(B, H * dh), K)
        out = _form(centre, np.where(np.isfinite(mid), mid, 0.0), err, rem.reshape(B, -1))
    return Affine(out.c, out.G, np.where(np.isnan(out.r), np.inf, out.r))


class AffineEnclosure(CentredEnclosure):
    """:class:`~bounds.certify.gpt2_centred.CentredEnclosure` with every intermediate also intersected with the
    range of its affine form (module docstring); the trace keeps the forms (``affine``) and the box symbols
    (``symbols``) so that two models' forms on the same box can be subtracted (:func:`affine_difference`).
    Batches of point boxes (every half-width at most POINT_WIDTH: single inputs) get the centred trace alone."""

    def trace(self, t: int, r_lo, r_hi, p_lo, p_hi, tighten=None) -> dict:
        f = self.form
        m_lo = np.concatenate([r_lo[:, None], p_lo], axis=1)
        m_hi = np.concatenate([r_hi[:, None], p_hi], axis=1)
        cm, hm = box_symbols(m_lo, m_hi)
        if not np.any(hm > POINT_WIDTH):  # inputs' point boxes: the forms would add nothing to the centred form
            return CentredEnclosure.trace(self, t, r_lo, r_hi, p_lo, p_hi)
        K = m_lo.shape[1]
        forms, hull = {}, {}

        def keep(name, lohi):
            if name == "a":
                A = attention_form(self, t, m_lo, m_hi, cm, hm)
            elif name == "x1":
                emb = self.emb[t]
                B = m_lo.shape[0]
                x1 = linear(forms["a"], point(f.proj_w), point(f.proj_b))
                A = add_forms(x1, constant(Ball(np.repeat(emb.mid[None], B, 0), np.repeat(emb.rad[None], B, 0)), K))
            elif name == "z2":  # its remainder becomes d new symbols, before the MLP's two matrices
                A = fresh(normalized(forms["x1"], *hull["x1"], f.ln_eps))
            elif name == "h":
                A = scale(forms["z2"], point(f.ln2[0]), point(f.ln2[1]))
            elif name == "pre":
                A = linear(forms["h"], point(f.fc_w), point(f.fc_b))
            elif name == "act":
                A = relax(forms["pre"], *gelu_relaxation(*hull["pre"], f.activation))
            else:  # x2
                A = add_forms(forms["x1"], linear(forms["act"], point(f.mproj_w), point(f.mproj_b)))
            with np.errstate(invalid="ignore"):
                hull[name] = intersect(lohi, A.bounds())
            forms[name] = narrowest(A, *hull[name])
            return hull[name]

        with np.errstate(invalid="ignore", over="ignore"):
            out = CentredEnclosure.trace(self, t, r_lo, r_hi, p_lo, p_hi, tighten=keep)
        out.update(affine=forms, symbols=(cm, hm))
        return out

    def final_form(self, trace: dict) -> Affine:
        """The affine form of ``ln_f``'s output (B, d) from a :meth:`trace` (cached in it): every read-out of the
        model (the logits, a difference of logits) is a linear functional of it (:func:`linear`)."""
        if "final_form" not in trace:
            f = self.form
            with np.errstate(invalid="ignore", over="ignore"):
                z = normalized(trace["affine"]["x2"], *_bounds_of(trace["x2"]), f.ln_eps)
                trace["final_form"] = scale(z, point(f.lnf[0]), point(f.lnf[1]))
        return trace["final_form"]

    def logit_form(self, trace: dict) -> Affine:
        """The affine form of the logits (B, outputs) from a :meth:`trace` (cached in it)."""
        if "logit_form" not in trace:
            f = self.form
            with np.errstate(invalid="ignore", over="ignore"):
                trace["logit_form"] = linear(self.final_form(trace), point(f.head_w.T), point(f.head_b))
        return trace["logit_form"]

    def trace_logits(self, trace: dict):
        if "affine" not in trace:
            return CentredEnclosure.trace_logits(self, trace)
        with np.errstate(invalid="ignore"):
            return intersect(CentredEnclosure.trace_logits(self, trace), self.logit_form(trace).bounds())


def smear_split(trace: dict):
    """Per box of an :class:`AffineEnclosure` trace, the box coordinate k whose symbol moves x2 most
    (``argmax_k sum_j |G_kj|`` of x2's form; G_k already carries the half-width hm_k); None without forms."""
    if "affine" not in trace:
        return None
    K = trace["symbols"][0].shape[1]
    smear = np.sum(np.abs(trace["affine"]["x2"].G[:, :K]), axis=2)
    smear = np.where(np.isfinite(smear), smear, 0.0)
    return np.where(smear.max(axis=1) > 0, np.argmax(smear, axis=1), -1)


def _bounds_of(value):
    return (value.lower, value.upper) if isinstance(value, Ball) else value


def _private(x: Affine, shared: int) -> Affine:
    """x with its symbols from index ``shared`` on moved into the remainder (``|sum_s e_s G_s| <= sum_s |G_s|``)."""
    if x.G.shape[1] <= shared:
        return x
    return Affine(x.c, x.G[:, :shared], _rad_up(x.r + np.sum(np.abs(x.G[:, shared:]), axis=1), x.G.shape[1]))


def shared_symbols(tf: dict, tg: dict, same_to_x1: bool) -> int:
    """How many leading symbols two traces of the same boxes share: the box's K always (functions of m alone);
    the d symbols of ``ln_2``'s remainder too when f and g compute the same x1 (``same_to_x1``: every parameter
    up to x1 and the LayerNorm eps equal) and their forms of z2 are the same arrays, for then the remainder
    ``rho(m) = z2(m) - c - G e(m)`` and its scale r are the same functions of m."""
    K = tf["symbols"][0].shape[1]
    a, b = tf["affine"].get("z2"), tg["affine"].get("z2")
    if same_to_x1 and a is not None and b is not None and all(
            np.array_equal(u, v) for u, v in ((a.c, b.c), (a.G, b.G), (a.r, b.r))):
        return a.G.shape[1]
    return K


def affine_difference(tf: dict, tg: dict, name: str | None = None, same_to_x1: bool = False):
    """Enclosure (lo, hi) of ``f - g`` (the logits, or the intermediate ``name``) on the boxes of two
    :class:`AffineEnclosure` traces of the same boxes: the forms share the box's symbols (and those of
    :func:`shared_symbols`), so their difference is the form ``(c_f - c_g) + sum_s e_s (G_f - G_g)_s`` over the
    shared symbols, the others' ``sum |G_s|`` and ``r_f + r_g`` as remainder.  None when a trace has no forms."""
    if "affine" not in tf or "affine" not in tg:
        return None
    (cf, hf), (cg, hg) = tf["symbols"], tg["symbols"]
    if not (np.array_equal(cf, cg) and np.array_equal(hf, hg)):
        raise ValueError("the two traces are of different boxes")
    shared = shared_symbols(tf, tg, same_to_x1)
    if name is None:
        a, b = tf.get("logit_form"), tg.get("logit_form")
        if a is None or b is None:
            return None
    else:
        a, b = tf["affine"][name], tg["affine"][name]
    with np.errstate(invalid="ignore", over="ignore"):
        return sub_forms(_private(a, shared), _private(b, shared)).bounds()
