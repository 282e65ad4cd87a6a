"""bounds.corrected (the default bound), bounds.lengths and the pair combination of bounds.margin."""

from fractions import Fraction

import pytest

from bounds.corrected import NoBoundError, corrected_bound, published_bound
from bounds.lengths import Length
from bounds.margin import _larger_value_sum, combine, ingredients
from constructions.tasks.modp import ModPTask


def test_modp_formula_by_hand():
    """p = 3: the model's modulus K = 1/2 (U reads ``out``, the unit relu(val) has slope 1, values 0 and 1), so its
    class has K = 1, eta = eps/K = 1/2; |Sigma| = 2, Delta = 3, w = 1, k = 2; with lambda = 1:
    a = 2 (2*3*2 + 2) = 28, c = 2 + 2 + 3 = 7, den = 1 - 6 theta - 4 theta, and theta is the largest (to 48 bits)
    with 28 theta + 3*7 theta/den <= 1/2; N_1 = 1 + 1 + 3 (2 (ceil(theta^-2) + 1) + 2); H = 2 (gamma = 8)."""
    ing = ingredients(ModPTask(3, 1).limit_transformer())
    assert ing.moduli[0].K == Fraction(1, 2)
    c = corrected_bound(ing, Fraction(1, 2), lam=1)
    pc = c.constants
    assert c.K == 1 and c.classes == 7 and c.nesting == 2 and pc.eta == Fraction(1, 2)
    assert (pc.a, pc.c, pc.den(Fraction(1, 100))) == (28, 7, 1 - Fraction(10, 100))
    th = pc.theta
    assert 28 * th + 3 * 7 * th / (1 - 10 * th) <= Fraction(1, 2) == pc.eta
    assert not pc.admissible(th * (1 + Fraction(1, 2**40)))  # the largest admissible theta, to 48 bits
    x = 1 / th**2
    n1 = 2 + 3 * (2 * (-(-x.numerator // x.denominator) + 1) + 2)
    assert c.sample.exact == n1 and c.N.exact == max(n1, 2 + 3 * (2 + 4)) == n1
    # k = 3 sets: one more factor theta^-1
    assert corrected_bound(ing, Fraction(1, 2), nesting=3, lam=1).sample.exact > n1 / th / 2
    # control: the formula is monotone in eps (a sign error would fail this)
    assert corrected_bound(ing, Fraction(1, 4)).N.exact > corrected_bound(ing, Fraction(1, 2)).N.exact
    # the default picks the best lambda of the menu: never worse than lambda = 1
    assert corrected_bound(ing, Fraction(1, 2)).N.exact <= c.N.exact


def test_trivial_case_and_astronomical_H():
    """eps >= 2K: any z works, N = max(1 + w + Delta(|Sigma| + 1), H + Delta - 1); with p = 4096 bits H = 2^512 is
    printed in the log domain, above N_1."""
    import dataclasses

    m = ModPTask(3, 1).limit_transformer()
    c = corrected_bound(ingredients(m), Fraction(2))
    assert c.constants.trivial and c.N.exact == max(1 + 1 + 3 * 3, 2 + 3 - 1) == 11
    big = corrected_bound(ingredients(dataclasses.replace(m, precision_bits=4096)), Fraction(1, 2))
    assert big.N.exact is None and big.N.exponent == 512 and big.N.add == 3 * (2 + 4) and big.N.log2 > \
        big.sample.log2


def test_many_heads_stay_in_the_log_domain():
    """k = 2048 argmax sets (a 1024-head model's class): N_1 has thousands of digits; it is kept as ceil(2^e) with e
    rounded up, never as a decimal integer."""
    ing = ingredients(ModPTask(3, 1).limit_transformer())
    c = corrected_bound(ing, Fraction(1, 10), nesting=2048)
    assert c.N.exact is None and c.N.exponent > 2048 * 7 and "ceil(2^" in str(c.N)
    exact = c.constants.compression_length()
    assert exact.bit_length() > 10**4 and exact.bit_length() - 1 < c.sample.exponent  # the exponent rounds up


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


def test_a_1024_head_model_file_gets_a_bracket(tmp_path, capsys):
    """A valid one-layer model with 1024 heads: the estimate answers (both ends in the log domain where needed),
    and no integer of more than 64 bits reaches the JSON."""
    import json

    from bounds.estimate import main
    from constructions.limit_transformer.model import MLP, Head, Layer, LimitTransformer, LocalPhi
    from constructions.limit_transformer.serialize import save_model

    eye = [[int(i == j) for j in range(4)] for i in range(4)]
    heads = tuple(Head([[1, 0, 0, 0]], [[0, h % 3, 1, 0]], eye, LocalPhi((0,))) for h in range(1024))
    m = LimitTransformer(alphabet=("a", "b"), embedding=eye[:3],
                         layers=(Layer(heads=heads, mlp=MLP([[0, 1, 0, 0]], [0], [[0], [0], [0], [1]])),),
                         unembedding=[[0, 0, 0, 1]], precision_bits=8)
    path = tmp_path / "heads1024.json"
    save_model(m, path)
    assert main(["--model", str(path), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["corrected"]["nesting"] == 2048 and isinstance(r["N"], dict) and r["lower"]["N"] is not None

    def small(v):
        return all(small(x) for x in v.values()) if isinstance(v, dict) else \
            all(small(x) for x in v) if isinstance(v, list) else not isinstance(v, int) or v.bit_length() <= 64

    assert small(r)
