"""The quantities the corrected bound reads, exact against interval mode (bounds/margin.py, bounds/interval_model.py,
bounds/modulus.py): on random and adversarial one-layer models, interval gamma is a lower bound of the exact gamma,
the interval modulus an upper bound of the exact one, tau, Delta, |Sigma|, heads and p are equal, and the interval
bound is never below the exact one; options meant for the published formula never change the proved bound."""

import dataclasses
import json
from fractions import Fraction

from hypothesis import given, settings

from bounds.corrected import NoBoundError, corrected_bound
from bounds.estimate import main
from bounds.interval_model import from_model, load_interval_model
from bounds.margin import INF, ingredients, interval_ingredients
from constructions.limit_transformer.model import Layer, LocalPhi
from constructions.limit_transformer.serialize import save_model
from constructions.strategies import limit_transformers
from constructions.tasks.modp import ModPTask

EPS = Fraction(1, 10)


def _pair_of_modes(model):
    ex = ingredients(model, mode="exact")
    iv = interval_ingredients(from_model(model))
    return ex, iv


def _check(ex, iv):
    assert (ex.tau, ex.period, ex.alphabet_size, ex.heads, ex.precision_bits) == \
        (iv.tau, iv.period, iv.alphabet_size, iv.heads, iv.precision_bits)
    assert iv.gamma == INF and ex.gamma == INF or iv.gamma <= ex.gamma or iv.gamma_unresolved
    assert iv.moduli[0].K >= ex.moduli[0].K
    try:
        e = corrected_bound(ex, EPS)
    except NoBoundError:
        return
    try:
        i = corrected_bound(iv, EPS)
    except NoBoundError:
        assert iv.gamma_unresolved
        return
    assert i.nesting >= e.nesting and i.K >= e.K
    assert i.N.log2_upper >= e.N.log2_lower


@settings(max_examples=40, deadline=None)
@given(limit_transformers(depth=(1, 1), heads=(1, 2), precision="izzo", periodic=None, local=True, params="any",
                          activations=("relu",)))
def test_interval_quantities_bound_the_exact_ones(model):
    _check(*_pair_of_modes(model))


def _phi(model, value):
    layer = model.layers[0]
    head = dataclasses.replace(layer.heads[0], phi=LocalPhi((value,)))
    return dataclasses.replace(model, layers=(Layer(heads=(head,) + layer.heads[1:], mlp=layer.mlp),))


def test_adversarial_values():
    """Values below and above float64's range, huge denominators, near-ties and tiny gaps: the interval side stays
    a sound bound (gamma lower, K upper) or reports the near-tie as unresolved; never a larger gamma."""
    base = ModPTask(3, 0).limit_transformer()
    cases = [_phi(base, Fraction(1, 10**400)),  # underflows float64
             _phi(base, Fraction(3, 2**1100)),  # a dyadic below the smallest double
             _phi(base, Fraction(1, 3 * 2**60)),  # a near-tie within rounding
             _phi(base, Fraction(10**300)),  # near the top of the range
             ModPTask(3, 0).limit_transformer(logit_scale=Fraction(1, 10**40))]  # a tiny exact gap
    for m in cases:
        ex, iv = _pair_of_modes(m)
        _check(ex, iv)
    # control: a float reading that drops the tiny phi (0 instead of a radius covering it) claims a larger gamma
    ex = ingredients(cases[0], mode="exact")
    dropped = ingredients(_phi(base, Fraction(0)), mode="exact")
    assert dropped.gamma > ex.gamma


def test_published_options_leave_the_proved_bound_alone(tmp_path, capsys):
    """--definition printed and --as-published change the printed formulas only: the corrected N and the bracket
    are the same with every option (a model whose printed gamma differs from the completed one)."""
    path = tmp_path / "modp.json"
    save_model(ModPTask(3, 1).limit_transformer(), path)
    outs = []
    for extra in ([], ["--definition", "printed"], ["--as-published"], ["--proof-count"]):
        assert main(["--model", str(path), "--json", *extra]) == 0
        r = json.loads(capsys.readouterr().out)
        outs.append((r["corrected"]["N"], r["lower"]["N"], r["gamma"]))
    assert len(set(map(str, outs))) == 1


def test_huge_denominators_in_a_file_read_by_the_interval_reader(tmp_path):
    """A denominator of 10^400 (above 2^1024) is read (correctly rounded, radius covering the underflow) instead of
    refused."""
    path = tmp_path / "m.json"
    save_model(_phi(ModPTask(3, 0).limit_transformer(), Fraction(1, 10**400)), path)
    im = load_interval_model(path)
    assert im.heads[0].phi.mid[0] == 0 and im.heads[0].phi.rad[0] > 0
