"""The corrected training-length bound (default of ``python -m bounds.estimate``), its proof, and the paper's formula.

Izzo et al. Theorem 4.1 is broken by valid one-layer pairs (docs/gaps.md, ``izzo2025:thm4.1.*``): the norm L ignores
the unembedding U, the residual path and all but one head, a Heaviside MLP has no Lipschitz constant, App. A.1 counts
|Sigma| where it needs the number of (token, residue) classes and evaluates its short z in the hardmax regime without
making z long enough, and with three or more heads its rate ``tau Delta L^2 / eps^2`` is false whatever the constant
(``izzo2025:thm4.1.heads``, :mod:`bounds.lower`).  The statement below is proved (proof at the end of this
docstring); its auxiliary input is built, and every inequality of the proof checked exactly, by
:mod:`bounds.compression`; its algebra is discharged symbolically by ``verify/izzo/corrected.py``.

**Theorem (corrected; one layer, ReLU or no MLP, izzo precision with p bits, positions Delta-periodic, phi tau-local
and translation-invariant).**  Let f, g be such models over |Sigma| symbols, Delta the lcm of their periods, tau the
larger window, ``w = tau + 1``, and

* ``kappa`` the moduli of Lemma M (:mod:`bounds.modulus`): ``|m_j(x) - m_j(z)| <= sum_h kappa^m_{j,h}
  ||pi_h(x) - pi_h(z)||_1`` for inputs in the hardmax regime with the same window, query and present classes;
  ``K = max_j (sum_h kappa^f_{j,h} + sum_h kappa^g_{j,h})`` and ``eta = eps / K``;
* ``k`` the number of attention heads of f and g that can move a count-dependent attention set: heads with the same
  argmax sets on every input count once, heads whose argmax never contains a count-carrying class count zero
  (:func:`nesting_depth`; at most the total number of heads);
* ``H = ceil(2^{p/gamma})`` with gamma the smaller completed logit gap of f and g (:mod:`bounds.margin`);
* if ``eta < 2``: any rational ``lambda >= 1`` and ``theta > 0`` with

      den = lambda (1 - Delta |Sigma| theta) - theta (w + Delta) > 0,
      a theta + rho* <= eta,   a = 2 (|Sigma| Delta (1 + 1/lambda) + (1 + w)/lambda),
      rho* = Delta theta c / den,   c = |Sigma| lambda + |Sigma| + 3 (c = 1 when Delta = 1),

  ``N_1 = 1 + w + Delta (|Sigma| (ceil(lambda theta^{-k}) + 1) + 2)`` and ``N_H = H + Delta (|Sigma| + 4)``;
  if ``eta >= 2`` (K = 0 included) or k = 0: ``N_1 = 1 + w + Delta (|Sigma| + 1)``, ``N_H = H + Delta - 1``.

Then ``|f - g| <= delta`` (every output coordinate, last position) on every input of length ``<= N = max(N_1, N_H)``
implies ``|f - g| <= delta + eps`` on every input.  :func:`corrected_bound` takes the largest theta meeting the budget
for each lambda of a finite menu and keeps the lambda with the smallest N_1.  One model alone gets the bound for its
*class* (any pair whose quantities are at most its own: K = twice its own K, k = twice its heads).

**Proof.**  Let |x| > N.  As |x| >= H every sub-maximal softmax term of both models is flushed, so each head averages
``V_h y`` over its argmax *items*: the classes present among positions 2..|x|-w (count n_c >= 1), ``$`` and the w
window slots (count 1: *fixed* items).  The argmax set of a head depends only on the present classes, the window and
the query.  We build z with the same window, the same present classes, ``|z| = |x| (mod Delta)`` and
``H <= |z| <= N`` such that every head's distribution moves by ``||pi_h(x) - pi_h(z)||_1 <= eta``; then Lemma M gives
``|f_j(x) - g_j(x)| <= |f_j(x) - f_j(z)| + |f_j(z) - g_j(z)| + |g_j(z) - g_j(x)| <= K eta + delta = delta + eps``.

If eta >= 2 any such z works (l1 distances of distributions are <= 2), and so it does if k = 0 (every argmax set
is trivial, so every distribution is the same in x and z): every present class once, each residue padded
at one of its present classes to the counts of a common length, lengthened by Delta until |z| >= H.

Otherwise call an argmax set *non-trivial* if it holds a class and at least one more item (a set of fixed items, or a
single class, has the same distribution in x and z).  For each non-trivial set A_h let ``T_h = sum_{i in A_h} n_i``
and ``I_h = [max(1, theta T_h), T_h]``; there are at most k distinct ones.  Their union has components
``J_1 < ... < J_m``, ``J_i = [a_i, b_i]``, the last ending at ``b_m = max_h T_h``.  For ``s >= 1`` and
``L = lambda s`` define ``F = F_s`` on ``[1, inf)``: ``F(1) = 1``; ``F(a_i) = max(F(b_{i-1}), min(a_i, L))``
(``b_0 = 1``); ``F(v) = v F(a_i)/a_i`` on J_i; ``F(v) = min(F(b_{i-1}) v / b_{i-1}, F(a_i))`` between J_{i-1} and
J_i; ``F(v) = max(F(b_m), min(v, L))`` above b_m.  Then (F1) F is continuous, non-decreasing, ``1 <= F(v) <= v``;
(F2) ``F(v)/v`` is non-increasing on ``[1, b_m]``; (F3) with ``D_i = a_i/F(a_i) >= 1``: D_i > 1 forces
``F(a_i) >= L``, and D_i = 1 forces F = identity on ``[1, b_i]``; (F4) ``F <= max(L, F(b_m))`` and
``F(b_m) <= L prod_i (b_i/a_i) <= L theta^{-k}`` (a union of overlapping intervals is no longer, in log scale, than
their sum); (F5) ``F(v) <= v/D_m + F(a_m)`` for all v, and F(v) = F(b_m) above b_m when D_m > 1; (F6) if D_m > 1,
``a_m <= theta b_m``, so ``F(a_m) <= theta F(b_m)`` and ``F(b_m) >= L/theta``.

*Counts.*  A present class is *free* if no non-trivial set holds it.  Put ``v_c = F(n_c)``.  A residue without a free
class *pads* its classes with ``n_c >= a_m``; ``W_r`` is their sum of v_c (``W_r = 0`` for a residue with a free
class, which pads nothing).  Let ``need_r = sum_{unpadded c of r} ceil(v_c) + W_r`` and ``t_r`` the number of
prefix positions of residue r in z; z's length is the smallest ``|z| = |x| (mod Delta)`` with ``t_r >= need_r`` for
all r.  A residue with a free class gives every class ``ceil(v_c)`` and the rest of t_r to one free class.  A
residue without one gives its unpadded classes ``ceil(v_c)`` and its padded ones ``v'_c = v_c (1 + rho_r)`` with
``rho_r = E_r / W_r - 1 >= 0``, ``E_r = t_r - sum_{unpadded} ceil(v_c)``, rounded to integers m_c >= 1 summing to
E_r with ``|m_c - v'_c| < 1`` (largest remainders).  So every class count of z is at least 1 and within 1 of v'_c
(= v_c where unpadded) unless the class is free; fixed items keep 1.

*One set, D = 1* (its component has D_i = 1): every item has n <= T_h <= b_i, so F keeps it, ceil keeps it, and no
item is padded (padded classes have n >= a_m > b_i) unless i = m; in that case no residue is padded: if D_m = 1
then ``a_m <= L`` and ``b_m <= L theta^{-k}``, so a residue whose classes are all attended has
``S_r(x) <= |Sigma| L theta^{-k}`` and ``|x| <= 1 + w + Delta (|Sigma| L theta^{-k} + 1) < N`` (for s = 1, and by
the choice of s below otherwise), a contradiction.  So pi_h(z) = pi_h(x).

*One set, D = D_i > 1.*  Let ``u = n / D`` on A_h (fixed items: 1/D), ``U = T_h / D``; the distribution of u is
pi_h(x), and ``U >= F(a_i)/theta >= L/theta`` as ``a_i <= theta T_h`` (F3).  An item with ``n >= theta T_h`` lies
in J_i, so ``v = u``; a class with ``n < theta T_h`` has ``u <= v <= F(theta T_h) = theta U`` (F2); a fixed item
has ``0 < 1 - 1/D < 1``.  All errors v - u are >= 0, so (normalization lemma: ``||p/P - q/Q||_1 <=
2 ||p - q||_1 / max(P, Q)``) ``||pi(v) - pi(u)||_1 <= 2 (|Sigma| Delta theta + (1 + w)/U)``.  Padding multiplies
some entries by factors in ``[1, 1 + rho]`` (rho the largest rho_r), so the total grows by a factor in
``[1, 1 + rho]`` and each coordinate of the distribution moves by at most rho times itself:
``||pi(v') - pi(v)||_1 <= rho``.  Rounding
moves each class by < 1: ``||pi(m) - pi(v')||_1 <= 2 |Sigma| Delta / U``.  With ``1/U <= theta/lambda``, the
total is ``<= a theta + rho``.

*Padding.*  Let r be padded, so D_m > 1 (above) and all classes of r are <= b_m.  Minimality of |z| gives a residue
r0 with ``t_r0 < need_r0 + 1``, and ``t_r <= t_r0 + 1``; with (F5) and (F2) ``need_r0 <= S_r0(x)/D_m + |Sigma|
(F(a_m) + 1)`` and ``need_r >= S_r(x)/D_m``, and residue counts of x differ by <= 1, so
``E_r - W_r = t_r - need_r < |Sigma| F(a_m) + |Sigma| + 3`` (for Delta = 1, r0 = r and ``E_r - W_r < 1``).  As every item count is at most the
``L_0 = |x| - 1 - w`` prefix positions plus ``1 + w``, ``b_m <= L_0 + 1 + w`` and ``S_r(x) >= (L_0 - Delta + 1)/Delta
>= (b_m - w - Delta)/Delta``; the classes of r below a_m hold less than ``|Sigma| a_m``, so with ``X = F(b_m)``,
``W_r > (X (1 - Delta |Sigma| theta) - w - Delta)/Delta`` (F6).  Hence
``rho_r < Delta (|Sigma| theta X + |Sigma| + 3) / (X (1 - Delta |Sigma| theta) - w - Delta)``, which decreases in X
(where the denominator is positive), and ``X >= L/theta >= lambda/theta`` (F6) gives ``rho_r < rho*`` (for
Delta = 1 the numerator is 1 and the same holds with c = 1); ``den > 0``
is the positivity of that denominator at ``X = lambda/theta``, so W_r > 0 and some class of r is padded.

*Length.*  With ``Phi(s) = max_r sum_{c of r} F_s(n_c)``: ``sum_{c of r} v_c <= need_r <= sum_{c of r} (v_c + 1)
<= Phi + |Sigma|``, and the minimal |z| has ``t_r < need_r0 + 2`` for all r (or is at most ``1 + w + Delta``) and
``t_r >= t_r' - 1 >= need_r' - 1 >= Phi - 1`` for the r' attaining Phi, so ``1 + w + Delta (Phi - 1) <= |z| < 1 + w + Delta (Phi + |Sigma| + 2)``.  For s = 1, (F4) gives
``Phi <= |Sigma| lambda theta^{-k}`` and ``|z| <= N_1``.  If then ``|z| < H``, ``Phi(1) < Phi* = (H - 1 - w)/Delta +
1``.  *Stretch.*  For ``t >= 1``, ``F_s(v) <= F_{ts}(v) <= t F_s(v)`` for every v (induction over the rules defining
F: each is built from its earlier values, constants, L, max, min and positive scalings), so ``Phi(s) <= Phi(ts) <= t
Phi(s)``; once ``lambda s`` exceeds every count, F is the identity and ``Phi(s) = max_r S_r(x) >= L_0/Delta >= Phi*``
(as |x| > N_H).  On the grid ``s_j = 1 + j/(2 Phi*)`` the ratio of neighbours is at most ``1 + 1/(2 Phi*)``, so the
first grid point with ``Phi >= Phi*`` (there is one among finitely many) has ``Phi <= (1 + 1/(2 Phi*)) Phi* =
Phi* + 1/2`` (:mod:`bounds.compression` bisects instead: any s with ``Phi* <= Phi(s) <= Phi* + 1/2`` serves), so
``H <= |z| < H + Delta (|Sigma| + 3.5) <= N_H``.  (The D_m = 1 contradiction above: a residue whose classes are all
attended then has ``Phi(s) >= S_r(x) >= (L_0 - Delta + 1)/Delta``, so ``|x| <= H + 3 Delta < N_H``.)  Every larger
L only shrinks the bounds on each set, so the error bound holds for the stretched z too.  []

The steps are discharged in ``verify/izzo/corrected.py`` (z3 and sympy, each with a negative control); the map F,
the counts and every inequality above are executed on concrete inputs (counts of 10^40 and beyond) by
:mod:`bounds.compression`.  All arithmetic is exact: kappa, K and eta are rationals (or certified rational upper
bounds in interval mode, where Lemma M's norm form is used), theta and lambda are rationals checked against the
budget exactly, and lengths beyond 64 bits are kept as powers of two with exponents rounded up
(:class:`bounds.lengths.Length`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction

from bounds.lengths import Length, upper_max
from bounds.margin import INF, BoundsError, Ingredients
from bounds.modulus import pair_modulus

#: lambda values tried by :func:`corrected_bound` (every lambda >= 1 is valid; the menu only affects tightness)
LAMBDAS = tuple(Fraction(x) for x in (1, Fraction(3, 2), 2, 3, 4, 6, 8, 12, 16, 32, 64, 128, 256, 512, 1024, 2048,
                                       4096))
_THETA_BITS = 48  # significant bits of theta


class NoBoundError(BoundsError):
    """The corrected statement gives no length for this model (Heaviside MLP, huang precision, uncertified gamma)."""


@dataclass(frozen=True)
class ProofConstants:
    """The quantities of the theorem in the module docstring (exact rationals); theta None in the case eta >= 2."""

    sigma: int
    period: int
    window: int  # w = tau + 1
    heads: int  # k: distinct count-dependent attention sets
    K: Fraction  # max_j (sum_h kappa^f_{j,h} + sum_h kappa^g_{j,h})
    eta: Fraction | None  # per-set l1 budget eps / K (None when K = 0)
    lam: Fraction = Fraction(1)
    theta: Fraction | None = None

    @property
    def trivial(self) -> bool:
        return self.theta is None

    @property
    def a(self) -> Fraction:
        """The rounding and insignificance coefficient ``2 (|Sigma| Delta (1 + 1/lambda) + (1 + w)/lambda)``."""
        return 2 * (self.sigma * self.period * (1 + 1 / self.lam) + (1 + self.window) / self.lam)

    def den(self, theta: Fraction) -> Fraction:
        return self.lam * (1 - self.period * self.sigma * theta) - theta * (self.window + self.period)

    @property
    def c(self) -> Fraction:
        """The padding numerator's factor: |Sigma| lambda + |Sigma| + 3, or 1 when Delta = 1 (one residue)."""
        return Fraction(1) if self.period == 1 else self.sigma * self.lam + self.sigma + 3

    def rho_star(self, theta: Fraction) -> Fraction:
        """The largest relative padding of an attended residue (module docstring)."""
        return self.period * theta * self.c / self.den(theta)

    def budget(self, theta: Fraction) -> Fraction:
        """a theta + rho*: the bound on ||pi_h(x) - pi_h(z)||_1 for every set."""
        return self.a * theta + self.rho_star(theta)

    def admissible(self, theta: Fraction) -> bool:
        return theta > 0 and self.den(theta) > 0 and self.budget(theta) <= self.eta

    def growth(self):
        """lambda theta^-k: the largest scaled count F(b_m) at s = 1 (F4)."""
        return self.lam / self.theta**self.heads

    def compression_length(self) -> int:
        """N_1: the longest z the construction returns at s = 1 (an exact integer, possibly huge)."""
        w, S, D = self.window, self.sigma, self.period
        if self.trivial:
            return 1 + w + D * (S + 1)
        return self.length_at(math.ceil(self.growth()))

    def length_at(self, top):
        """``1 + w + Delta (|Sigma| (top + 1) + 2)``: the longest z when every scaled count is at most ``top`` (at
        s = 1, ``top = ceil(lambda theta^-k)``).  Plain arithmetic, so the proof (verify/izzo/corrected.py) calls it
        on symbols: checking the proof checks this formula."""
        return 1 + self.window + self.period * (self.sigma * (top + 1) + 2)

    def hardmax_side(self, H: int) -> int:
        """N_H: the longest z when z must be stretched to reach the hardmax threshold H (plain arithmetic in the
        non-trivial case, so the proof calls it on symbols)."""
        if self.trivial:
            return H + self.period - 1
        return H + self.period * (self.sigma + 4)


def _largest_theta(pc: ProofConstants) -> Fraction:
    """The largest theta (to _THETA_BITS significant bits) with den > 0 and a theta + rho* <= eta: the smaller root
    of ``a c2 x^2 - (a lambda + eta c2 + Delta c) x + eta lambda = 0`` (c of the theorem,
    c2 = lambda Delta |Sigma| + w + Delta), from mpmath, rounded down and checked exactly."""
    import mpmath

    S, D, w, lam, eta, a, c1 = pc.sigma, pc.period, pc.window, pc.lam, pc.eta, pc.a, pc.c
    c2 = lam * D * S + w + D
    with mpmath.workprec(200):
        q = lambda x: mpmath.mpf(x.numerator) / x.denominator  # noqa: E731
        A, B, C = q(a * c2), q(a * lam + eta * c2 + D * c1), q(eta * lam)
        root = (B - mpmath.sqrt(B * B - 4 * A * C)) / (2 * A)
        if root <= 0:  # cancellation: use the other form of the smaller root
            root = 2 * C / (B + mpmath.sqrt(B * B - 4 * A * C))
        e = int(mpmath.floor(mpmath.log(root, 2)))
        scale = _THETA_BITS - e
        theta = Fraction(int(mpmath.floor(root * mpmath.mpf(2) ** scale)), 1) / (Fraction(2) ** scale)
    while not pc.admissible(theta):
        theta = theta * (1 - Fraction(1, 1 << 20))
    return theta


def proof_constants(sigma: int, period: int, window: int, heads: int, K: Fraction, eps, lam=None) -> ProofConstants:
    """theta (and lambda: ``lam``, or the best of :data:`LAMBDAS` for N_1) for the quantities and eps."""
    eps, K = Fraction(eps), Fraction(K)
    if eps <= 0:
        raise BoundsError(f"eps must be positive, got {eps}")
    eta = None if K == 0 else eps / K
    base = ProofConstants(sigma, period, window, heads, K, eta)
    if eta is None or eta >= 2 or heads == 0:
        return base
    best = None
    for choice in (LAMBDAS if lam is None else (Fraction(lam),)):
        pc = ProofConstants(sigma, period, window, heads, K, eta, choice)
        pc = dataclasses.replace(pc, theta=_largest_theta(pc))
        key = math.log2(pc.lam) + heads * (math.log2(pc.theta.denominator) - math.log2(pc.theta.numerator))
        if best is None or key < best[0]:
            best = (key, pc)
    return best[1]


def nesting_depth(ing: Ingredients) -> int:
    """k of the theorem: the distinct count-dependent argmax signatures of the heads (:mod:`bounds.margin`
    records one per head, None where it is unknown, e.g. in interval mode); a single model stands for its class,
    whose other member has as many heads again."""
    sigs = ing.head_signatures
    if len(ing.moduli) == 1:
        return 2 * ing.heads
    if sigs is None or any(s is None for s in sigs):
        return ing.heads
    return len({s for s in sigs if s != "count-free"})


def pair_K(ing: Ingredients) -> Fraction:
    """K of the theorem: ``max_j (K_j(f) + K_j(g))``; twice the model's own for a single model (its class)."""
    if len(ing.moduli) == 1:
        return 2 * ing.moduli[0].K
    return pair_modulus(*ing.moduli)


@dataclass(frozen=True)
class CorrectedBound:
    N: Length
    hardmax: Length
    sample: Length  # N_1, the compression length
    K: Fraction
    model_K: tuple  # each model's max_j K_j
    classes: int
    window: int
    nesting: int
    eps: Fraction
    constants: ProofConstants


def _hardmax(k_exp: Fraction, gamma_inf: bool) -> Length:
    return Length.of(1) if gamma_inf else Length.pow2(k_exp)


def corrected_bound(ing: Ingredients, eps, nesting: int | None = None, lam=None) -> CorrectedBound:
    """The proved N of the module docstring; :class:`NoBoundError` where the statement does not apply.  ``nesting``
    overrides k (a larger k is always valid); ``lam`` fixes lambda."""
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
    k = nesting_depth(ing) if nesting is None else nesting
    return bound_from_quantities(ing.alphabet_size, ing.period, ing.tau, k, pair_K(ing), eps, k_exp,
                                 ing.gamma == INF, lam, tuple(m.K for m in ing.moduli))


def bound_from_quantities(sigma: int, period: int, tau: int, k: int, K, eps, k_exp: Fraction, gamma_inf: bool,
                          lam=None, model_K: tuple = ()) -> CorrectedBound:
    """The theorem's N from its quantities alone (k argmax sets, pair modulus K, hardmax exponent p/gamma): what
    :func:`corrected_bound` computes for a model or pair, and what a class given by its quantities gets (a class of
    models with ``heads`` heads and modulus K per model: k = 2 heads, K = 2K)."""
    pc = proof_constants(sigma, period, tau + 1, k, Fraction(K), eps, lam)
    N1 = Length.at_most(pc.compression_length())
    H = _hardmax(k_exp, gamma_inf)
    NH = Length.of(pc.hardmax_side(H.exact)) if H.exact is not None else H.plus(pc.hardmax_side(0))
    return CorrectedBound(upper_max(N1, NH), H, N1, Fraction(K), model_K, sigma * period + 1, pc.window, k,
                          Fraction(eps), pc)


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
    return PublishedBound(upper_max(H, Length.at_most(sample)), H, sample)
