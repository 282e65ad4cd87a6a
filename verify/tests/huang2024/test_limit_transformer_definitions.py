"""huang2024 Definition 3 (Periodic, Local, translation invariance) and App. D.2 (the p-bit rounding of the
softmax), as implemented by constructions.limit_transformer: validation and the exact rounding primitives."""

from fractions import Fraction

import pytest

from constructions.limit_transformer import (
    LocalPhi,
    NotLocalError,
    NotPeriodicError,
    NotTranslationInvariantError,
    PeriodicPositions,
)
from constructions.limit_transformer.precision import exact_weights, flushes, round_bits, rounded_power
from verify.claims import checks


@checks("huang2024:app-d2")
def test_exact_weights_and_rounding_primitives():
    assert flushes(Fraction(1), 16, 4) and not flushes(Fraction(1), 15, 4)
    assert flushes(Fraction(1, 2), 256, 4) and not flushes(Fraction(1, 2), 255, 4)
    assert rounded_power(4, Fraction(1, 2), 3) == 2
    assert rounded_power(10, Fraction(-1), 4) == Fraction(1, 8)  # 0.1 * 16 = 1.6 -> 2
    assert exact_weights([Fraction(0), Fraction(5), Fraction(5)], 100, 4, "izzo") == [0, Fraction(1, 2), Fraction(1, 2)]
    assert exact_weights([Fraction(-50)] * 2, 10, 2, "huang") == [0, 0]  # all terms underflow
    # exact ties go to even (logit 5/16 at p = 3 is 2.5 eighths; 4^(-1/2) = 1/2 at p = 0 is half-way)
    assert round_bits(Fraction(5, 16), 3) == Fraction(1, 4) and round_bits(Fraction(7, 16), 3) == Fraction(1, 2)
    assert round_bits(Fraction(-5, 16), 3) == Fraction(-1, 4)
    assert rounded_power(4, Fraction(-1, 2), 0) == 0 and rounded_power(4, Fraction(-3, 2), 2) == 0
    assert rounded_power(4, Fraction(1, 2), 0) == 2 and rounded_power(9, Fraction(-1, 2), 1) == Fraction(1, 2)


@checks("huang2024:app-d2")
def test_huang_weights_round_the_logit_before_the_power():
    """App. D.2's order: each logit is rounded to p fractional bits first, then n^a to p bits, then normalised.
    Logits that are not p-bit (1/3, 2/5, 3/5 round to 1/2 at p = 1) at square n: the rounded logit gives
    n^(1/2) = sqrt(n) exactly, so the weights are sqrt(n)/(sqrt(n) + 1) and 1/(sqrt(n) + 1).  Control: n^a with
    the unrounded logit, rounded to 1 bit, is a different term (4^(1/3) = 1.587.. -> 3/2), so skipping the logit's
    rounding changes the weights."""
    for n, r in ((4, 2), (9, 3), (16, 4), (25, 5)):
        for a in (Fraction(1, 3), Fraction(2, 5), Fraction(3, 5)):
            assert round_bits(a, 1) == Fraction(1, 2)
            assert exact_weights([a, Fraction(0)], n, 1, "huang") == [Fraction(r, r + 1), Fraction(1, r + 1)]
    assert rounded_power(4, Fraction(1, 3), 1) == Fraction(3, 2) != rounded_power(4, Fraction(1, 2), 1)



@checks("huang2024:def3")
def test_validation_detects_period_locality_and_translation_invariance():
    P = PeriodicPositions.from_sequence([[1, 0], [0, 1]] * 4)
    assert P.period == 2
    with pytest.raises(NotPeriodicError, match="p_3"):
        PeriodicPositions.from_sequence([[1, 0], [0, 1], [0, 0], [0, 1]], period=2)
    assert LocalPhi.from_function(lambda j, i: 1 if i - j == 2 else 0, 10).tau == 2
    with pytest.raises(NotLocalError, match="offset 3"):
        LocalPhi.from_function(lambda j, i: 1 if i - j == 3 else 0, 10, tau=2)
    with pytest.raises(NotTranslationInvariantError):
        LocalPhi.from_function(lambda j, i: 1 if j == 1 else 0, 6)
    # phi(j, i) = phi_{i - j} for 0 <= i - j <= tau (the offset tau included), 0 otherwise; control: tau = 1 drops
    # the offset 2
    phi = LocalPhi((Fraction(1), Fraction(2), Fraction(3)))
    assert [phi.value(j, 5) for j in range(1, 7)] == [0, 0, 3, 2, 1, 0]
    assert LocalPhi((Fraction(1), Fraction(2))).value(3, 5) == 0
