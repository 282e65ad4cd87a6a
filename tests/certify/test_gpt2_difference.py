"""The enclosures of f - g (mean-value form) and of one model (centred form) for one-layer NoPE GPT-2 models:
sound against a 40-digit forward, tighter than plain interval propagation, and a broken form is caught."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from bounds.certify import gpt2, gpt2_centred, gpt2_difference  # noqa: E402
from bounds.certify.gpt2_centred import CentredEnclosure, gelu_slope  # noqa: E402
from bounds.certify.gpt2_difference import PairDifference  # noqa: E402
from bounds.certify.gpt2_enclosure import Enclosure, gelu_values, point_box  # noqa: E402
from tests.certify.test_gpt2 import BOS, _hf_model, _mp_forward  # noqa: E402

CHANGES = ("ln_1", "ln_2", "ln_f", "attn", "proj", "fc", "mproj", "head", "wte")


def _form(seed: int, activation: str = "gelu_new"):
    sd = _hf_model(seed, activation=activation, scale=1.0).state_dict()
    cfg = {"model_type": "gpt2", "n_layer": 1, "n_embd": 8, "n_head": 2, "activation_function": activation,
           "bos_token_id": BOS}
    return gpt2.from_state_dict(sd, cfg)


def _changed(f, change: str, size: float, seed: int):
    """f with one parameter group moved by ``size`` times a random direction."""
    rng = np.random.default_rng(seed)
    bump = lambda a: a + size * rng.standard_normal(np.shape(a))  # noqa: E731
    if change in ("ln_1", "ln_2", "ln_f"):
        key = {"ln_1": "ln1", "ln_2": "ln2", "ln_f": "lnf"}[change]
        gam, bet = getattr(f, key)
        return f.with_params(**{key: (bump(gam), bump(bet))})
    key = {"attn": "attn_w", "proj": "proj_w", "fc": "fc_w", "mproj": "mproj_w", "head": "head_w", "wte": "wte"}
    return f.with_params(**{key[change]: bump(getattr(f, key[change]))})


def _box(ids, alphabet, widen: float):
    counts = [ids.count(a) for a in alphabet]
    r_lo, r_hi, p_lo, p_hi = point_box(counts, len(ids))
    # the input off the box's centre (where a centred form is exact whatever its slopes)
    return (np.maximum(r_lo - widen / 8, 0), r_hi + widen / 32, np.maximum(p_lo - widen / 4, 0), p_hi + widen)


def _holds(lo, hi, ref) -> bool:
    return all(mpmath.mpf(a) <= r <= mpmath.mpf(b) for a, b, r in zip(lo, hi, ref, strict=True))


def _difference_holds(pd, f, g, ids, widen: float) -> bool:
    """The checker: the enclosure of f - g on a box holding the input contains the 40-digit f - g, and so does the
    mean-value form alone (where it applies)."""
    ref = [a - b for a, b in zip(_mp_forward(f, ids), _mp_forward(g, ids), strict=True)]
    box = (f.alphabet.index(ids[-1]), *_box(ids, f.alphabet, widen))
    lo, hi = pd.difference(*box)
    alone = pd.mean_value.form(*box) if pd.mean_value is not None else (lo, hi)
    return _holds(lo[0], hi[0], ref) and _holds(alone[0][0], alone[1][0], ref)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), ids=st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=7),
       activation=st.sampled_from(gpt2.ACTIVATIONS), change=st.sampled_from(CHANGES),
       size=st.sampled_from([1e-4, 1e-2, 0.3]), widen=st.sampled_from([0.0, 1e-3, 0.02]))
def test_difference_and_centred_enclosures_hold_the_40_digit_forward(seed, ids, activation, change, size, widen):
    f = _form(seed % 1000, activation)
    g = _changed(f, change, size, seed)
    pd = PairDifference(f, g)
    assert pd.shared == (change in ("ln_f", "head")) and (pd.mean_value is None) == pd.shared
    assert _difference_holds(pd, f, g, ids, widen)
    lo, hi = CentredEnclosure(f).logits(f.alphabet.index(ids[-1]), *_box(ids, f.alphabet, widen))
    assert _holds(lo[0], hi[0], _mp_forward(f, ids))


@pytest.mark.parametrize("change", ["ln_1", "ln_2", "attn", "fc", "mproj", "wte"])
def test_mean_value_form_is_tighter_than_plain_on_small_boxes(change):
    """Tightness control: on boxes of width 1e-3 the mean-value form is strictly (here: at least 5x) narrower than
    subtracting two plain enclosures, and the centred form of one model narrower than the plain one."""
    f = _form(7)
    g = _changed(f, change, 1e-3, 1)
    ids = [1, 2, 2, 3, 1, 1]
    box = _box(ids, f.alphabet, 1e-3)
    t = f.alphabet.index(ids[-1])
    lo, hi = PairDifference(f, g).difference(t, *box)
    (flo, fhi), (glo, ghi) = Enclosure(f).logits(t, *box), Enclosure(g).logits(t, *box)
    assert np.max(hi - lo) * 5 < np.max(fhi - glo - (flo - ghi))
    clo, chi = CentredEnclosure(f).logits(t, *box)
    elo, ehi = Enclosure(f).logits(t, *box)
    assert np.all(chi - clo <= ehi - elo) and np.max(chi - clo) < np.max(ehi - elo)


@pytest.mark.parametrize("broken", ["no_ln_jacobian", "no_attention_shift_term", "no_gelu_slope"])
def test_a_broken_form_is_caught_by_the_soundness_check(broken, monkeypatch):
    """Negative control of the checker above: each form with one term dropped (the LayerNorm Jacobian's
    propagation, the attention's score term, GELU's slope in the centred form) misses the 40-digit value on a fixed
    draw that the sound form holds."""
    f = _form(5)
    g = _changed(f, "ln_1", 1e-3, 2)
    ids, widen = [1, 2, 3, 3, 1], 0.0
    assert _difference_holds(PairDifference(f, g), f, g, ids, widen)
    if broken == "no_ln_jacobian":
        monkeypatch.setattr(gpt2_difference, "normalize_jacobian_times",
                            lambda lo, hi, d, eps: gpt2_centred.Ball(0 * d.mid, 0 * d.rad))
        assert not _difference_holds(PairDifference(f, g), f, g, ids, widen)
    elif broken == "no_attention_shift_term":
        monkeypatch.setattr(gpt2_difference, "imul", lambda a, b, c, d: (0 * a * c, 0 * b * d))
        assert not _difference_holds(PairDifference(f, g), f, g, ids, widen)
    else:
        ids, widen = [1, 2, 3], 0.01
        t = f.alphabet.index(ids[-1])
        ref = _mp_forward(f, ids)
        lo, hi = CentredEnclosure(f).logits(t, *_box(ids, f.alphabet, widen))
        assert _holds(lo[0], hi[0], ref)
        monkeypatch.setattr(gpt2_centred, "gelu_slope", lambda lo, hi, kind: (0 * lo, 0 * hi))
        lo, hi = CentredEnclosure(f).logits(t, *_box(ids, f.alphabet, widen))
        assert not _holds(lo[0], hi[0], ref)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(-8, 8), w=st.floats(0, 4), kind=st.sampled_from(["gelu", "gelu_new"]))
def test_gelu_slope_encloses_the_derivative(a, w, kind):
    lo, hi = np.array([a]), np.array([a + w])
    slo, shi = gelu_slope(lo, hi, kind)
    xs = np.linspace(a, a + w, 801)
    h = 1e-6
    num = (gelu_values(xs + h, kind)[0] - gelu_values(xs - h, kind)[0]) / (2 * h)
    assert slo[0] - 1e-7 <= num.min() and num.max() <= shi[0] + 1e-7


def test_gelu_slope_range_and_endpoints_alone_are_not_an_enclosure():
    """Negative control: across GELU's inflection points the slopes at the endpoints miss the maximum slope
    (~1.129 at x = sqrt 2 for erf GELU), which the enclosure keeps; and the global range holds it."""
    for kind in ("gelu", "gelu_new"):
        lo, hi = np.array([0.5]), np.array([3.0])
        h = 1e-6
        ends = (gelu_values(np.array([0.5, 3.0]) + h, kind)[0] - gelu_values(np.array([0.5, 3.0]) - h, kind)[0]) / (2 * h)
        peak = (gelu_values(np.array([1.45]) + h, kind)[0] - gelu_values(np.array([1.45]) - h, kind)[0]) / (2 * h)
        assert peak[0] > ends.max() + 0.05
        assert gelu_slope(lo, hi, kind)[1][0] >= peak[0]
        slo, shi = gelu_slope(np.array([-1e6]), np.array([1e6]), kind)
        assert gpt2_centred.SLOPE_RANGE == (slo[0], shi[0])
