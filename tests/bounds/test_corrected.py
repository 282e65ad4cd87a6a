"""bounds.corrected (the default bound), bounds.lengths and the pair combination of bounds.margin."""

import math
from fractions import Fraction

import pytest

from bounds.corrected import NoBoundError, corrected_bound, published_bound
from bounds.lengths import Length
from bounds.margin import _larger_value_sum, combine, ingredients
from constructions.tasks.modp import ModPTask


def test_modp_formula_by_hand():
    """p = 3: K = ||U|| (1 + ||A|| ||B||) max ||V y|| = 1 * 2 * 1, |Sigma| = 2, Delta = 3, w = 1, k = 2, eps = 1/2:
    eta = 1/8, Q = 2*3 + 1 + 1 = 8, a = 2*8 + 4*3*4 = 64, b = 2*9 + 4*3*2*3 = 90, theta = 2 eta/(3 a) = 1/768,
    G = ceil(3 b / eta) = 2160, N_1 = 1 + w + 3 (2 + 1) + ceil(3*2 G theta^-2); H = 2 (gamma = 8)."""
    ing = ingredients(ModPTask(3, 1).limit_transformer())
    c = corrected_bound(ing, Fraction(1, 2))
    pc = c.constants
    assert c.K_upper == 2.0 and c.classes == 7 and c.nesting == 2
    assert (pc.eta, pc.items, pc.a, pc.b, pc.theta, pc.G) == (Fraction(1, 8), 8, 64, 90, Fraction(1, 768), 2160)
    n1 = 2 + 9 + 6 * 2160 * 768**2
    assert c.sample == n1 and c.N.exact == max(n1, 2 + 3 * (2 + 3)) == n1
    assert pc.a * pc.theta + Fraction(pc.b, pc.G) <= pc.eta  # the proof's budget
    # k = 3 sets: theta = 3 eta/(4 a), one more factor theta^-1
    assert corrected_bound(ing, Fraction(1, 2), nesting=3).constants.theta == Fraction(3, 4) * Fraction(1, 8) / 64
    # control: the formula is monotone in eps (a sign error would fail this)
    assert corrected_bound(ing, Fraction(1, 4)).N.exact > c.N.exact


def test_trivial_case_and_astronomical_H():
    """eps >= 4K: any z works, N = max(1 + w + Delta(|Sigma| + 1), H + Delta - 1); with p = 4096 bits H = 2^512 is
    printed in the log domain, above N_1."""
    import dataclasses

    m = ModPTask(3, 1).limit_transformer()
    c = corrected_bound(ingredients(m), Fraction(8))
    assert c.constants.trivial and c.N.exact == max(1 + 1 + 3 * 3, 2 + 3 - 1) == 11
    big = corrected_bound(ingredients(dataclasses.replace(m, precision_bits=4096)), Fraction(1, 2))
    assert big.N.exact is None and big.N.exponent == 512 and big.N.add == 3 * (2 + 3) and big.N.log2 > math.log2(
        big.sample)


def test_no_bound_cases():
    from counterexamples.izzo.estimate_breaks import heaviside_pair

    with pytest.raises(NoBoundError, match="Heaviside"):
        corrected_bound(ingredients(heaviside_pair(2)[1]), Fraction(1, 10))
    ing = ingredients(ModPTask(3, 1).limit_transformer())
    assert published_bound(ingredients(ModPTask(3, 1).limit_transformer(), definition="printed"),
                           Fraction(1, 10)).N.exact == 1  # printed gamma = +inf, tau = 0
    assert corrected_bound(ing, Fraction(1, 10)).N.exact > 1


def test_pair_takes_the_larger_value_sum():
    # sum sqrt: (4, 0) -> 2 < (1, 1, 1) -> 3 although 4 + 0 > 1 + 1 + 1 (the sum of squares would pick wrongly)
    assert _larger_value_sum((Fraction(4), Fraction(0)), (Fraction(1),) * 3) == (Fraction(1),) * 3
    assert _larger_value_sum((Fraction(9),), (Fraction(1), Fraction(1))) == (Fraction(9),)
    a = ingredients(ModPTask(3, 1).limit_transformer())
    pair = combine(a, a)
    assert pair.heads == 2 and corrected_bound(pair, Fraction(1, 2), nesting=2).N == corrected_bound(
        a, Fraction(1, 2)).N


def test_length_log_domain():
    assert str(Length.pow2(Fraction(10), 5)) == "1029"
    big = Length.pow2(Fraction(10**6, 3), 7)
    assert big.exact is None and big.log2 == pytest.approx(10**6 / 3) and "2^333333.3333" in str(big)
    assert big.to_json()["plus"] == 7 and big.to_json()["pow2_exponent"] == "1000000/3"


def test_integer_text_abbreviates_only_long_integers():
    from bounds.lengths import integer_text

    assert integer_text(10**30 - 1) == "9" * 30 and str(Length.of(7)) == "7"
    n = 123456789 * 10**40
    assert integer_text(n) == "1.234567e+48 (49 digits; exact in --json)" and integer_text(-n).startswith("-1.2345")
