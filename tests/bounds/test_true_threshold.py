"""bounds.true_threshold: exact enumeration by (token, residue) class counts equals exhaustive string evaluation;
the true threshold of witness pairs; named limits; the pair mode of bounds.estimate."""

import random
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.compare import exhaustive_disagreement
from bounds.margin import BoundsError
from bounds.true_threshold import (
    certified_sup,
    configurations,
    count_configurations,
    max_disagreement,
    true_threshold,
)
from constructions.limit_transformer.serialize import save_model
from counterexamples.izzo.auxiliary_breaks import hardmax_z_witness
from counterexamples.izzo.estimate_breaks import residual_pair
from counterexamples.izzo.search import build, search_pair


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 400))
def test_class_enumeration_equals_every_string(index):
    """max |f - g| per length from class counts = exact evaluation of every string (bounds.compare)."""
    f, g = search_pair(3, index)
    sup = certified_sup(f, g)
    for n in range(1, 5):
        d = max_disagreement(f, g, n).max_disagreement
        assert d == exhaustive_disagreement(f, g, n)[0]
        assert d <= sup  # the certified supremum bounds every length


def test_certified_sup_decides_threshold_one():
    """Outputs that cannot differ by more than eps: the true threshold is exactly 1 (certified); the control with
    a real disagreement is not decided that way."""
    from counterexamples.izzo.search import GROUPS, Spec, draw_group, perturb

    rng = random.Random(1)

    def draw(lo, hi):
        return rng.randint(lo, hi)

    spec = Spec(2, 2, 1)
    spec.params = {k: draw_group(draw, spec, k) for k in GROUPS}
    spec.params["mlp"] = None
    spec.params["unembedding"] = [[0, 0, 0, 1]]
    spec.params["value"] = [[[0] * 4 for _ in range(4)]]  # attention writes nothing: output = U y_query
    other = perturb(draw, spec)
    other.params.update({k: spec.params[k] for k in ("embedding", "positions", "unembedding", "value", "mlp", "scale")})
    f, g = build(spec, "f"), build(other, "g")
    assert certified_sup(f, g) == 0
    t = true_threshold(f, g, 0, Fraction(1, 10), 3)
    assert t.exact == 1 and "certified" in t.describe()
    f2, g2 = residual_pair()
    assert certified_sup(f2, g2) >= 1 and true_threshold(f2, g2, 0, Fraction(1, 10), 2).exact is None


@pytest.mark.parametrize("n,sigma,delta,tau", [(1, 2, 1, 0), (5, 2, 2, 1), (7, 3, 3, 2), (9, 1, 3, 1)])
def test_configuration_count(n, sigma, delta, tau):
    configs = list(configurations(n, sigma, delta, tau))
    assert len(configs) == count_configurations(n, sigma, delta, tau)
    assert all(sum(c.values()) + len(w) == n for c, w in configs)
    assert len({(tuple(sorted(c.items())), w) for c, w in configs}) == len(configs)  # no duplicates


def test_true_threshold_of_the_residual_pair():
    f, g = residual_pair()
    t = true_threshold(f, g, 0, Fraction(1, 2), 6)
    assert t.exact == 3 and t.violation.max_disagreement == 1
    # control: f against itself never disagrees, so nothing is determined
    same = true_threshold(f, f, 0, Fraction(1, 2), 6)
    assert same.exact is None and same.first_above_delta is None and "> 6" in same.describe()
    # with a tolerance above the disagreement, T is seen but no violation
    loose = true_threshold(f, g, 0, 2, 6)
    assert loose.exact is None and loose.first_above_delta == 3


def test_limits_are_named():
    f, g = search_pair(2, 66)
    with pytest.raises(BoundsError, match="above the limit"):
        true_threshold(f, g, 0, 1, 40, max_configs=1000)
    f2, g2, *_ = hardmax_z_witness()  # p = 20: length 2 is below the hardmax threshold
    with pytest.raises(BoundsError, match="hardmax"):
        true_threshold(f2, g2, 100, Fraction(1, 10), 3)


def test_estimate_pair_mode_prints_the_true_threshold(tmp_path):
    f, g = search_pair(2, 66)
    save_model(f, tmp_path / "f.json")
    save_model(g, tmp_path / "g.json")
    out = subprocess.run([sys.executable, "-m", "bounds.estimate", "--model", str(tmp_path / "f.json"), "--against",
                          str(tmp_path / "g.json"), "--eps", "1"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "true threshold of the pair" in out.stdout and ": 3 (exact" in out.stdout and "bound / true" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "bounds.estimate", "--model", str(tmp_path / "f.json"), "--against",
                          str(tmp_path / "g.json"), "--true-max-length", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "error:" in bad.stderr


def test_sound_bounds_are_above_the_true_threshold():
    """Any sound bound must be >= the exact true threshold (when sup |f - g| > delta + eps): the corrected bound is on
    the witness pairs; the published formula is not (the same check rejects it: N = 2 < 3)."""
    from bounds.estimate import estimate
    from bounds.margin import combine, ingredients
    from counterexamples.izzo.estimate_breaks import unembedding_pair
    from counterexamples.izzo.witnesses import bump_pair

    eps = Fraction(1, 10)
    for (f, g), T in ((residual_pair(), 3), (search_pair(2, 66), 3), (unembedding_pair(2), 5), (bump_pair(2), 5)):
        t = true_threshold(f, g, 0, eps, T)
        assert t.exact == T
        ing = combine(ingredients(f), ingredients(g))
        pr = combine(ingredients(f, definition="printed"), ingredients(g, definition="printed"))
        r = estimate(ing, eps, 0, pr, "corrected", ing.heads)
        assert not isinstance(r["N"], int) or r["N"] >= t.exact
    f, g = residual_pair()
    ing = combine(ingredients(f), ingredients(g))
    pr = combine(ingredients(f, definition="printed"), ingredients(g, definition="printed"))
    assert estimate(ing, eps, 0, pr, "as-published", ing.heads)["N"] == 2 < true_threshold(f, g, 0, eps, 3).exact
