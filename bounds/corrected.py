"""The corrected training-length bound (default of ``python -m bounds.estimate``), its proof, and the paper's formula.

Izzo et al. Theorem 4.1 and the package's earlier estimate are broken by valid one-layer pairs (docs/gaps.md,
``izzo2025:thm4.1.*``): the norm L ignores the unembedding U, the residual path and all but one head, a Heaviside
MLP has no Lipschitz constant, and App. A.1 counts |Sigma| where it needs the number of (token, residue) classes
and evaluates its short z in the hardmax regime without making z long enough.  The statement below is proved
(proof at the end of this docstring); its auxiliary input is built, and every inequality of the proof checked
exactly, by :mod:`bounds.compression` (``izzo2025:corrected.*``, ``verify/tests/izzo2025/test_compression.py``).

**Theorem (corrected; one layer, ReLU or no MLP, izzo precision with p bits, positions Delta-periodic, phi tau-local
and translation-invariant).**  For f and g with k heads together, |Sigma| symbols and the quantities

* ``Lambda_m = ||U||_F (1 + ||A||_F ||B||_F)``, ``R_m = sum_h max_c ||V_h y_c||`` over every class c = (token or
  ``$``, residue), ``K = max(Lambda_f R_f, Lambda_g R_g)``, ``eta = eps / (2K)``;
* ``w = tau + 1`` window slots, ``Q = |Sigma| Delta + 1 + w`` items (classes and slots) per attention set;
* ``H = ceil(2^{p/gamma})`` with gamma the smaller completed logit gap of f and g (:mod:`bounds.margin`);
* if ``eta < 2``: ``a = 2Q + 4 Delta |Sigma|^2``, ``b = 2(Q + 1) + 4 Delta |Sigma| (|Sigma| + 1)``,
  ``theta = k eta / ((k + 1) a)``, ``G = max(2 (Delta + w), ceil((k + 1) b / eta))`` (so ``a theta + b / G <= eta``),
  ``N_1 = 1 + w + Delta (|Sigma| + 1) + ceil(Delta |Sigma| G theta^{-k})`` and ``N_H = H + Delta (|Sigma| + 3)``;
  if ``eta >= 2`` (K = 0 included): ``N_1 = 1 + w + Delta (|Sigma| + 1)``, ``N_H = H + Delta - 1``;

``|f - g| <= delta`` (every output coordinate, last position) on every input of length ``<= N = max(N_1, N_H)``
implies ``|f - g| <= delta + eps`` on every input.  One model alone gets the bound against any g with the same
quantities (k = twice its heads).

**Proof.**  Let |x| > N.  As |x| >= H, every sub-maximal softmax term of both models is flushed, so each head h
averages ``V_h y`` over its argmax *items*: the classes present among positions 2..|x|-w (count n_c >= 1), ``$``
(count 1) and the window slots (count 1); the argmax set A_h depends only on which classes are present, the window
and the query.  We build z with the same window, the same present classes, ``|z| = |x| (mod Delta)`` and
``H <= |z| <= N``; then f(z), g(z) are the same averages with counts m, and with pi_h the attention distribution
over A_h, ``|m(x) - m(z)|_2 <= Lambda_m sum_h ||pi_h(x) - pi_h(z)||_1 max_c ||V_h y_c|| <= K max_h ||..||_1``
(residual path, MLP and unembedding are Lambda_m-Lipschitz; the query vector is the same).  So it suffices that
``||pi_h(x) - pi_h(z)||_1 <= eta`` for every h: then ``|f(x) - g(x)| <= eps/2 + delta + eps/2``.

If eta >= 2 any such z works (l1 distances of distributions are <= 2): give each present class one position, pad
each residue r at one present class of residue r so that the per-residue counts are those of x shifted by one
common j, and raise j until |z| >= H; this gives ``|z| <= max(N_1, N_H)``.

Otherwise let ``T_h = sum_{i in A_h} n_i`` and ``I_h = [max(1, theta T_h), T_h]`` (h = 1..k); their union has
components ``J_1 < ... < J_m`` (m <= k, total log-length <= k log(1/theta)), the last ending at b_m = max_h T_h.
For s >= 1 define F = F_s by F(1) = 1 and, for each component ``J_i = [a_i, b_i]``:
``F(a_i) = max(F(b_{i-1}), min(a_i, sG))`` (b_0 = 1), ``F(v) = v / D_i`` on J_i with ``D_i = a_i / F(a_i)``,
``F(v) = min(F(b_{i-1}) v / b_{i-1}, F(a_i))`` between components, and ``F(v) = max(F(b_m), min(v, sG))`` above
b_m (only classes no head attends lie there).  F is continuous, non-decreasing and ``F(v) <= v``; on [1, b_m]
``F(v) / v`` is non-increasing, so ``F(v) >= v / D_m``; D_i > 1 forces ``F >= sG >= G`` from a_i on, and D_i = 1
forces F = identity on [1, b_i]; ``F(v) <= v / D_m + F(a_m)`` for every v, with ``F(a_m) <= theta F(b_m)`` when
D_m > 1.  Put ``m_c = ceil(F(n_c))`` (so m_c >= 1 iff n_c >= 1), slots and ``$`` keep 1.

*One head.*  If A_h lies in a component with D = 1, every count of A_h is kept.  Otherwise let ``u = n / D``
(same distribution as x) and U its total: an item with ``n_c >= theta T_h`` (significant; the largest item is one,
as theta <= 1/Q) has ``u_c >= G`` and ``|m_c - u_c| < 1 <= u_c / G``; any other item has
``|m_c - u_c| <= F(theta T_h) + 1 <= theta U + U / G``.  So ``||m - u||_1 <= U ((Q + 1)/G + Q theta)`` and the
normalized distributions differ by at most ``2 (Q + 1)/G + 2 Q theta`` in l1.

*Residues.*  Each residue's count in z must be x's plus a common j: with ``d_r = S_r(m) - S_r(x)``, j = max_r d_r
and residue r gets ``j - d_r`` more keys.  A residue with a present class no head attends gets them there (no
distribution moves).  Otherwise every class of r is attended, so <= b_m, and ``S_r(m) >= S_r(x) / D_m``; as
``S_r'(m) < S_r'(x) / D_m + |Sigma| (1 + F(a_m))`` for every r' and ``|S_r(x) - S_r'(x)| <= 1``, the padding is
``< 1 + |Sigma| (1 + F(a_m))``; if D_m = 1 it is 0 (F = identity on [1, b_m], >= F above), else it goes to the
most frequent class c of r, ``m_c >= n_c / D_m >= (L_0 - Delta + 1) / (Delta |Sigma| D_m)`` with
``L_0 = |x| - 1 - w >= b_m - 1 - w`` and ``F(b_m) >= G >= 2 (Delta + w)``: a relative increase ``rho <= 2 Delta
|Sigma| (|Sigma| + 1) / G + 2 Delta |Sigma|^2 theta``, hence at most ``2 rho`` more in l1 for every head.  In total
``||pi_h(x) - pi_h(z)||_1 <= a theta + b / G <= eta``.

*Length.*  With ``Phi(s) = max_r sum_{c of r} F_s(n_c)``, every residue count of z lies in
``[Phi - 1, Phi + |Sigma| + 1)``, so ``1 + w + Delta (Phi - 1) <= |z| < 1 + w + Delta (Phi + |Sigma| + 1)``.  For
s = 1, ``F <= max(F(b_m), G) <= G theta^{-k}`` (each component multiplies by b_i/a_i <= its intervals' product, each
gap by at most G once), so ``Phi <= |Sigma| G theta^{-k}`` and ``|z| <= N_1``.  If then ``|z| < H``, Phi(s) is
continuous in s and reaches ``max_r S_r(x) >= (L_0 - Delta + 1) / Delta`` for s large, which is at least
``(H - 1 - w) / Delta + 1`` as |x| > N_H; some s gives Phi(s) = (H - 1 - w) / Delta + 1 (:mod:`bounds.compression`
bisects to within 1/2), hence ``H <= |z| <= N_H``.  []

All arithmetic is certified: K is enclosed with ``mpmath.iv`` (outward rounding) and eta taken from its upper end,
theta and G are exact rationals, every ceiling is exact, so the printed N can only be larger than the exact one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from bounds.lengths import Length
from bounds.margin import INF, BoundsError, Ingredients
from constructions.limit_transformer.hardmax import ceil_pow2

_PREC = 256


class NoBoundError(BoundsError):
    """The corrected statement gives no length for this model (Heaviside MLP, huang precision, uncertified gamma)."""


def _iv():
    from mpmath import iv

    iv.prec = _PREC
    return iv


def _q(iv, x: Fraction):
    x = Fraction(x)
    return iv.mpf(x.numerator) / iv.mpf(x.denominator)


def _upper(x) -> Fraction:
    """The exact rational upper endpoint of an mpmath interval."""
    from mpmath import libmp

    return Fraction(*libmp.to_rational(x._mpi_[1]))


@dataclass(frozen=True)
class ProofConstants:
    """The quantities of the theorem in the module docstring (exact rationals)."""

    sigma: int
    period: int
    window: int
    heads: int  # k: attention sets of f and g together
    K: Fraction  # certified upper bound of max(Lambda_f R_f, Lambda_g R_g)
    eta: Fraction  # per-head l1 budget eps / (2K) (+inf as None when K = 0)
    theta: Fraction | None  # None in the trivial case eta >= 2
    G: int | None

    @property
    def trivial(self) -> bool:
        return self.theta is None

    @property
    def items(self) -> int:
        """Q: classes (tokens and $ by residue) and window slots, the most items an attention set holds."""
        return self.sigma * self.period + 1 + self.window

    @property
    def a(self) -> int:
        return 2 * self.items + 4 * self.period * self.sigma**2

    @property
    def b(self) -> int:
        return 2 * (self.items + 1) + 4 * self.period * self.sigma * (self.sigma + 1)

    def compression_length(self) -> int:
        """N_1: the longest z the construction returns at s = 1."""
        w, S, D = self.window, self.sigma, self.period
        if self.trivial:
            return 1 + w + D * (S + 1)
        return 1 + w + D * (S + 1) + math.ceil(D * S * self.G * (1 / self.theta) ** self.heads)

    def hardmax_side(self, H: int) -> int:
        """N_H: the longest z when z must be stretched to reach the hardmax threshold H."""
        if self.trivial:
            return H + self.period - 1
        return H + self.period * (self.sigma + 3)


def proof_constants(ing: Ingredients, eps, nesting: int | None = None, K_iv=None) -> ProofConstants:
    """theta, G and the rest for the ingredients (the worse of a pair) and eps; ``nesting`` = k (default 2 x heads);
    ``K_iv`` is the enclosure of K from :func:`corrected_K` when the caller has it."""
    eps = Fraction(eps)
    if eps <= 0:
        raise BoundsError(f"eps must be positive, got {eps}")
    k = nesting if nesting is not None else 2 * ing.heads
    if K_iv is None:
        _, _, K_iv = corrected_K(ing)
    K = _upper(K_iv)
    w, S, D = ing.tau + 1, ing.alphabet_size, ing.period
    pc = ProofConstants(S, D, w, k, K, None if K == 0 else eps / (2 * K), None, None)
    if pc.eta is None or pc.eta >= 2:
        return pc
    theta = k * pc.eta / ((k + 1) * pc.a)
    G = max(2 * (D + w), math.ceil((k + 1) * pc.b / pc.eta))
    out = ProofConstants(S, D, w, k, K, pc.eta, theta, G)
    assert out.a * theta + Fraction(out.b, G) <= out.eta and theta <= Fraction(1, out.items)
    return out


@dataclass(frozen=True)
class CorrectedBound:
    N: Length
    hardmax: Length
    sample: int  # N_1, the compression length
    K_upper: float  # certified upper bound of K
    lipschitz_upper: float
    value_sum_upper: float
    classes: int
    window: int
    nesting: int
    eps: Fraction
    constants: ProofConstants


def corrected_K(ing: Ingredients):
    """Enclosures (iv) of Lambda, R and K from the ingredients (per-model maxima when combined)."""
    iv = _iv()
    lam = iv.sqrt(_q(iv, ing.U_f2)) * (1 + iv.sqrt(_q(iv, ing.A_f2) * _q(iv, ing.B_f2)))
    R = sum((iv.sqrt(_q(iv, v)) for v in ing.head_value_max2), iv.mpf(0))
    return lam, R, lam * R


def _combine(N1: int, pc: ProofConstants, k_exp: Fraction | None, gamma_inf: bool) -> tuple[Length, Length]:
    """max(N_1, N_H) and H as lengths, never materializing an astronomically large H."""
    if gamma_inf:
        H = Length.of(1)
    else:
        H = Length.pow2(k_exp)
        if H.exact is None and k_exp > N1.bit_length() + 1:  # N_H = H + const is far above N_1
            return H.plus(pc.hardmax_side(0)), H
        if H.exact is None:  # 2^k is at most about 2 N_1: materialize it
            H = Length.of(ceil_pow2(k_exp))
    return Length.of(max(N1, pc.hardmax_side(H.exact))), H


def corrected_bound(ing: Ingredients, eps, nesting: int | None = None) -> CorrectedBound:
    """The proved N of the module docstring; :class:`NoBoundError` where the statement does not apply."""
    eps = Fraction(eps)
    if eps <= 0:
        raise BoundsError(f"eps must be positive, got {eps}")
    if ing.has_heaviside:
        raise NoBoundError("the MLP has Heaviside units: no Lipschitz constant, so no training length follows "
                           "(a Heaviside pair can agree up to any N and differ later; docs/gaps.md)")
    if "huang" in ing.precision:
        raise NoBoundError("the huang precision model never flushes, so there is no hardmax regime and no bound")
    k_exp = ing.hardmax_exponent
    if k_exp is None:
        raise NoBoundError("no hardmax threshold is certified: two logits are within the rounding error of each "
                           "other (interval mode) or gamma is not positive")
    lam, R, K = corrected_K(ing)
    pc = proof_constants(ing, eps, nesting, K)
    N1 = pc.compression_length()
    N, H = _combine(N1, pc, k_exp, ing.gamma == INF)
    return CorrectedBound(N, H, N1, float(K.b), float(lam.b), float(R.b), ing.alphabet_size * ing.period + 1,
                          pc.window, pc.heads, eps, pc)


@dataclass(frozen=True)
class PublishedBound:
    N: Length  # max{2^{p/gamma}, tau Delta L^2 / eps^2} with constant 1 (the O(.) constant is not given)
    hardmax: Length
    sample: int


def published_bound(printed: Ingredients, eps) -> PublishedBound:
    """Theorem 4.1 as printed, with printed gamma, printed L and printed tau, and the O(.) constant set to 1."""
    eps = Fraction(eps)
    k_exp = printed.hardmax_exponent
    if k_exp is None:
        raise NoBoundError("no hardmax threshold is certified for the printed gamma")
    H = Length.of(1) if printed.gamma == INF else Length.pow2(k_exp)
    sample = math.ceil(printed.tau * printed.period * printed.L2 / eps**2)
    N = H if (H.exact is None or H.exact >= sample) else Length.of(sample)
    return PublishedBound(N, H, sample)
