"""Each side of the bracket ``lower <= N* <= upper`` of ``bounds.estimate`` rounds its own way: the upper bound may
read K from above and gamma from below (interval mode), the lower bound only reads the class exactly
(bounds/estimate.py ``lower_bound``, bounds/lower.py ``ModelClass.of``).  Differential test over random small models:
the estimate in exact, interval and auto modes; a lower bound never exceeds the exact mode's lower bound, nor any
mode's proved class upper bound.  Negative control: the lower bound of the class read from interval quantities (what
the estimate printed before) is caught by the same check on a model whose exact K is 0."""

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings

from bounds.estimate import run
from bounds.lengths import Length
from bounds.lower import ModelClass, _Layout, best_lower_bound, bump
from bounds.margin import BoundsError, ingredients
from constructions.limit_transformer.serialize import save_model
from constructions.strategies import limit_transformers

EPS = "1/10"
MODES = ("exact", "interval", "auto")


def _estimates(path, *extra) -> dict:
    return {mode: run(["--model", str(path), "--mode", mode, "--eps", EPS, *extra]) for mode in MODES}


def bracket_violations(results: dict) -> list[str]:
    """What breaks soundness in the estimates of one model by mode: a lower bound above the exact mode's lower bound
    (or present where exact has none), or above a proved class upper bound of any mode."""
    out = []
    lows = {m: r["lower"].get("N") for m, r in results.items()}
    ups = [Length.from_json(r["corrected"]["N"]) for r in results.values() if r["corrected"].get("N") is not None]
    exact_lo = None if lows.get("exact") is None else Length.from_json(lows["exact"])
    for mode, lo in lows.items():
        if lo is None:
            continue
        lo = Length.from_json(lo)
        if exact_lo is None:
            out.append(f"{mode}: lower {lo} where the exact mode has none")
        elif lo.log2_lower > exact_lo.log2_upper:
            out.append(f"{mode}: lower {lo} above the exact mode's {exact_lo}")
        for up in ups:
            if lo.log2_lower > up.log2_upper or (lo.exact is not None and up.exact is not None and lo.exact > up.exact):
                out.append(f"{mode}: lower {lo} above the proved upper {up}")
    return out


@settings(max_examples=12, deadline=None)
@given(limit_transformers(depth=(1, 1), heads=(1, 2), precision="izzo", periodic=None, local=True, params="any",
                          activations=("relu",), precision_bits=(1, 8)))
def test_each_side_rounds_its_way_on_random_models(tmp_path_factory, model):
    path = tmp_path_factory.mktemp("m") / "m.json"
    save_model(model, path)
    try:
        results = _estimates(path)
    except BoundsError:  # no bound for this model in some mode (e.g. no certified margin): nothing to compare
        return
    assert not bracket_violations(results), bracket_violations(results)


def _k0_model():
    """The bump pair's f with its head's value read from the constant coordinate: the head's output never moves,
    so the exact modulus K is 0, while the interval (norm) bound of K is about 2000."""
    f, _ = bump(ModelClass(2, 1, 0, 1, Fraction(1000), 8, Fraction(8), Fraction(1, 10))).pair()
    lay = _Layout(2, 1, 1)
    V = [[Fraction(0)] * lay.d for _ in range(lay.d)]
    V[lay.val0][lay.const] = Fraction(1)
    head = dataclasses.replace(f.layers[0].heads[0], value=V)
    return dataclasses.replace(f, layers=(dataclasses.replace(f.layers[0], heads=(head,)),))


def test_a_model_with_exact_K_zero_gets_no_interval_lower_bound(tmp_path):
    """Exact K = 0: the exact mode proves N* <= 5 and no family applies; interval and auto print no lower bound
    above it.  Control: the class read from the interval quantities (K ~ 2000, as the estimate did before) gives a
    bump bound of ~75000, which the same check rejects; ModelClass.of refuses interval ingredients."""
    m = _k0_model()
    path = tmp_path / "k0.json"
    save_model(m, path)
    results = _estimates(path)
    assert Length.from_json(results["exact"]["corrected"]["N"]).exact <= 5
    assert not bracket_violations(results)
    iv = ingredients(m, mode="interval")
    with pytest.raises(BoundsError, match="exactly"):
        ModelClass.of(iv, Fraction(1, 10))
    ex_cls = ModelClass.of(ingredients(m, mode="exact"), Fraction(1, 10))
    wrong = best_lower_bound(dataclasses.replace(ex_cls, K=iv.moduli[0].K))
    mutated = {**results, "interval": {**results["interval"], "lower": {"N": wrong.lower.to_json()}}}
    assert any("above" in v or "none" in v for v in bracket_violations(mutated))
