"""The corrected training-length bound (default of ``python -m bounds.estimate``) and the paper's formula as printed.

Izzo et al. Theorem 4.1 and the package's earlier estimate are broken by valid one-layer pairs (docs/gaps.md,
``izzo2025:thm4.1.*``): the norm L ignores the unembedding U, the residual path around the MLP and all but one
head, and a Heaviside MLP has no Lipschitz constant.  The corrected statement below puts every path from the
attention output to the model output into the constant and states every constant explicitly.

**Statement (corrected; ReLU MLPs, izzo precision model, one layer, Delta-periodic, tau-local).**  For a model m
with heads h, let

* ``Lambda_m = ||U||_F (1 + ||A||_F ||B||_F)``  (Lipschitz constant of ``a -> U(y + a + B relu(A(y + a) + b))``:
  the residual path and the MLP, then the unembedding),
* ``R_m = sum_h max_c ||V_h y_c||`` over every key class c = (token or ``$``, residue),
* ``K_m = Lambda_m R_m`` and ``K = max(K_f, K_g)``,
* ``C = |Sigma| Delta + 1`` key classes, ``w = tau + 1`` window positions, ``k`` = total number of heads of f and g
  (``2 x heads`` when one model is given), ``H = ceil(2^{p/gamma})`` with the completed gamma of
  :mod:`bounds.margin`, and ``x = 2K/eps``.

Then ``N = H + 1 + w + Delta (C + sum_{j=1..k} ceil((2C + w) x^j))``, and agreement ``|f - g| <= delta`` on every
input of length <= N implies ``|f - g| <= delta + eps`` on every input (constant 1, no O(.)).

**Where it comes from.**  |f(x) - f(z)| <= Lambda_f sum_h ||pi_h(x) - pi_h(z)||_1 max_c ||V_h y_c|| for inputs x, z
with the same last tau + 1 positions (same residues) and the same set of present key classes (so the hardmax
argmax classes agree), pi_h the attention distributions over classes and window slots.  The auxiliary z of App.
A.1 keeps the window and the presence set, and approximates the class counts at one scale per nesting level
(the paper's tau/eps then tau/eps^2, one level per attention set): ceil-rounding at scale S costs an l1 error
<= 2(C + w)/S per head, the window w/S, and residue balancing at most a factor Delta; z must also be in the
hardmax regime (|z| >= H).  The error split is eps/2 for f and eps/2 for g.  The z construction with these
constants is a sketch carried out by hand, not an executed proof (docs/bounds.md says what is checked): the
statement is the one the package's searches (``counterexamples.izzo.search``) have not broken.

All arithmetic is certified: the square roots are enclosed with ``mpmath.iv`` (outward rounding) and every ceiling
is taken of the upper endpoint, so the printed N can only be larger than the exact one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from bounds.lengths import Length
from bounds.margin import INF, BoundsError, Ingredients

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


def _ceil_up(x) -> int:
    return int(math.ceil(x.b))


@dataclass(frozen=True)
class CorrectedBound:
    N: Length
    hardmax: Length
    sample: int
    K_upper: float  # certified upper bound of K
    lipschitz_upper: float
    value_sum_upper: float
    classes: int
    window: int
    nesting: int
    eps: Fraction


def corrected_K(ing: Ingredients):
    """Enclosures (iv) of Lambda, R and K from the ingredients (per-model maxima when combined)."""
    iv = _iv()
    lam = iv.sqrt(_q(iv, ing.U_f2)) * (1 + iv.sqrt(_q(iv, ing.A_f2) * _q(iv, ing.B_f2)))
    R = sum((iv.sqrt(_q(iv, v)) for v in ing.head_value_max2), iv.mpf(0))
    return lam, R, lam * R


def corrected_bound(ing: Ingredients, eps, nesting: int | None = None) -> CorrectedBound:
    """The corrected N of the module docstring; :class:`NoBoundError` where the statement does not apply."""
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
    iv = _iv()
    lam, R, K = corrected_K(ing)
    C = ing.alphabet_size * ing.period + 1
    w = ing.tau + 1
    k = nesting if nesting is not None else 2 * ing.heads
    x = 2 * K / _q(iv, eps)
    total = sum(_ceil_up((2 * C + w) * x**j) for j in range(1, k + 1))
    sample = 1 + w + ing.period * (C + total)
    H = Length.of(1) if ing.gamma == INF else Length.pow2(k_exp)
    return CorrectedBound(H.plus(sample), H, sample, float(K.b), float(lam.b), float(R.b), C, w, k, eps)


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
