"""bounds.corrected (the default bound), bounds.lengths and the pair combination of bounds.margin."""

from fractions import Fraction

import pytest

from bounds.corrected import NoBoundError, corrected_bound, published_bound
from bounds.lengths import Length
from bounds.margin import _larger_value_sum, combine, ingredients
from constructions.tasks.modp import ModPTask


def test_modp_formula_by_hand():
    """p = 3: K = ||U|| (1 + ||A|| ||B||) max ||V y|| = 1 * 2 * 1, C = 2*3 + 1 = 7, w = 1, k = 2, eps = 1/2:
    x = 2K/eps = 8, N = H + 1 + w + Delta (C + (2C + w)(x + x^2)) = 2 + 2 + 3 (7 + 15 * 72)."""
    ing = ingredients(ModPTask(3, 1).limit_transformer())
    c = corrected_bound(ing, Fraction(1, 2))
    assert c.K_upper == 2.0 and c.classes == 7 and c.nesting == 2
    assert c.N.exact == 2 + 2 + 3 * (7 + 15 * 72)
    assert corrected_bound(ing, Fraction(1, 2), nesting=3).N.exact == 2 + 2 + 3 * (7 + 15 * (8 + 64 + 512))
    # control: the formula is monotone in eps (a sign error would fail this)
    assert corrected_bound(ing, Fraction(1, 4)).N.exact > c.N.exact


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
