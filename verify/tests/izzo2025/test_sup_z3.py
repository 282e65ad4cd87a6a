"""The witness pairs of Theorem 4.1's breaks over EVERY long length (bounds/sup_z3.py): z3 decides the supremum of
|f - g| over all inputs from the hardmax length on, against the exact maximum up to the broken bound's N."""

from fractions import Fraction

from bounds.sup_z3 import sup_disagreement
from bounds.true_threshold import max_disagreement
from counterexamples.izzo.estimate_breaks import (
    count_disagreement,
    heaviside_pair,
    residual_pair,
    unembedding_pair,
)
from counterexamples.izzo.search import search_pair
from verify.claims import checks


def _max_up_to(f, g, N):
    return max(max_disagreement(f, g, n).max_disagreement for n in range(1, N + 1))


@checks("izzo2025:thm4.1.residual")
def test_residual_pair_over_every_length():
    """f = g up to the printed N = 2; over every length the disagreement approaches scale = 3 (z3: sup <= 3, and an
    exactly evaluated input within 1/1000 of it)."""
    f, g = residual_pair()
    r = sup_disagreement(f, g)
    assert _max_up_to(f, g, 2) == 0 and not r.undetermined
    assert r.upper == 3 and 3 - r.lower < Fraction(1, 1000) and r.witness_length > 1000
    assert r.upper > _max_up_to(f, g, 9) == Fraction(7, 3)  # no bounded length reaches the supremum


@checks("izzo2025:thm4.1.search")
def test_search_pair_over_every_length():
    f, g = search_pair(2, 66)
    r = sup_disagreement(f, g)
    assert _max_up_to(f, g, 2) == 0 and r.lower == r.upper == 20 == max_disagreement(f, g, 3).max_disagreement


@checks("izzo2025:thm4.1.unembedding")
def test_unembedding_pair_over_every_length():
    """f = g up to 2N = 4; the first break (length 5) is 4/5; over every length the bump's full height 1, reached at
    length 64 (v = 13/64 = the bump's centre)."""
    f, g = unembedding_pair(2)
    r = sup_disagreement(f, g, tol=Fraction(1, 64), enumerate_to=5, witness_timeout_ms=120_000)
    assert _max_up_to(f, g, 4) == 0 and max_disagreement(f, g, 5).max_disagreement == Fraction(4, 5)
    assert count_disagreement(f, g, 64) == 1 <= r.upper <= 1 + Fraction(1, 64) and r.lower >= Fraction(4, 5)


@checks("izzo2025:thm4.1.heaviside")
def test_heaviside_pair_over_every_length():
    f, g = heaviside_pair(2)
    r = sup_disagreement(f, g)
    assert _max_up_to(f, g, 4) == 0 and r.lower == r.upper == 1
