"""Unit tests of the Limit Transformer core: evaluators agree, exactness errors, validation, JSON."""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from constructions.limit_transformer import (
    MLP,
    ArbitraryPhi,
    ArbitraryPositions,
    Head,
    InputError,
    Layer,
    LimitTransformer,
    ModelFormatError,
    NotExactError,
    NotHardmaxError,
    NotPeriodicError,
    PeriodicPositions,
    ShapeError,
    counting_forward,
    exact_forward,
    forward,
    load_model,
    model_from_dict,
    model_to_dict,
    save_model,
)
from constructions.limit_transformer.evaluate import stream_forward
from constructions.limit_transformer.precision import BoundaryWarning, exact_weights
from constructions.strategies import boundary_free, limit_transformers, strings


def _close(exact, approx, rtol=1e-9):
    ex = np.asarray(exact, dtype=object).astype(float)
    return np.allclose(ex, approx, rtol=rtol, atol=1e-9)


@settings(max_examples=60)
@given(limit_transformers(precision="huang", activations=("relu",)), strings())
def test_float_path_matches_exact_path_huang(model, s):
    # ReLU only: under 'huang' the weights are irrational-looking rationals, and a Heaviside pre-activation
    # can land within float64 resolution of 0 (e.g. -5e-17), where no float evaluation can decide it.
    with boundary_free():
        fl = forward(model, s)[0]
    assert _close(exact_forward(model, s), fl)


@settings(max_examples=60)
@given(limit_transformers(precision="izzo"), strings())
def test_float_path_matches_exact_path_izzo_when_exact(model, s):
    try:
        ex = exact_forward(model, s)
    except NotExactError:
        assume(False)
    with boundary_free():
        fl = forward(model, s)[0]
    assert _close(ex, fl)


@settings(max_examples=60)
@given(limit_transformers(depth=(1, 1), precision="izzo"), strings(max_size=40), st.integers(0, 5))
def test_counting_evaluator_matches_exact_path(model, s, offset):
    try:
        ex = exact_forward(model, s, offset=offset)
    except NotExactError:
        with pytest.raises(NotHardmaxError):
            counting_forward(model, s, offset=offset, positions="all")
        return
    assert (counting_forward(model, s, offset=offset, positions="all") == ex).all()
    assert (counting_forward(model, s, offset=offset) == ex[-1]).all()
    assert _close(ex, counting_forward(model, s, offset=offset, positions="all", exact=False))


@settings(max_examples=50)
@given(limit_transformers(depth=(1, 3), positional_only=True, activations=("relu",)), strings(max_size=30),
       st.integers(1, 9), st.integers(0, 4))
def test_positional_heads_linear_time_paths_match_exact(model, s, block, offset):
    """Heads with K^T Q = 0 take the O(n) prefix-sum path in forward and stream_forward (any block size)."""
    assert all(h.positional_only for layer in model.layers for h in layer.heads)
    try:
        ex = exact_forward(model, s, offset=offset)
    except NotExactError:
        assume(False)
    with boundary_free():
        fl = forward(model, s, offset=offset)[0]
        streamed = stream_forward(model, s, offset=offset, positions="all", block=block)
        last = stream_forward(model, s, offset=offset, block=block)
        batch_last = forward(model, [s, s], offset=offset, positions="last")[1]
    assert _close(ex, fl)
    assert _close(ex, streamed)
    assert _close(ex[-1], last)
    assert _close(ex[-1], batch_last)


def test_stream_forward_refuses_content_dependent_heads():
    with pytest.raises(InputError, match="positional-only"):
        stream_forward(_one_head(1), "ab")


@settings(max_examples=40)
@given(limit_transformers(), strings(max_size=16), st.integers(0, 3))
def test_offset_by_whole_periods_changes_nothing(model, s, k):
    shift = k * model.period
    with boundary_free():
        shifted, plain = forward(model, s, offset=shift), forward(model, s)
    assert np.allclose(shifted, plain)


def _one_head(logit_scale, precision="izzo", p=4):
    """Alphabet {a, b}; the query attends to 'b' keys with logit `logit_scale`, to others with 0."""
    E = [[0, 0, 1], [1, 0, 1], [0, 1, 1]]  # $, a, b (third coordinate is a constant 1)
    head = Head(query=[[0, 0, logit_scale]], key=[[0, 1, 0]], value=[[1, 0, 0], [0, 1, 0], [0, 0, 0]])
    return LimitTransformer(("a", "b"), E, [Layer([head])], [[0, 1, 0]], precision_bits=p, precision=precision)


def test_exact_izzo_is_hardmax_from_threshold_and_raises_below():
    model = _one_head(1, p=4)  # gap 1: flush iff n >= 2^4
    s_long = "ab" * 8  # n = 17
    assert exact_forward(model, s_long, positions="last")[0] == 2  # residual 1 + all weight on 'b' keys
    with pytest.raises(NotExactError, match="hardmax regime"):
        exact_forward(model, "ab" * 7, positions="last")  # n = 15 < 16
    assert abs(forward(model, "ab" * 7, positions="last")[0, 0] - 2) > 1e-3  # genuinely not hardmax


def test_float_path_decides_exact_boundaries_like_the_exact_path():
    """n = 8, gap 1/3, p = 1: n^gap = 2^p exactly, so the term equals 2^-p and is flushed (regression)."""
    from constructions.limit_transformer.precision import float_weights, round_half_even_float

    logits = [Fraction(0), Fraction(-1, 3)]
    assert exact_weights(logits, 8, 1, "izzo") == [1, 0]
    with pytest.warns(BoundaryWarning, match="1 flush decisions"):  # met on purpose: the exact boundary
        w = float_weights(np.array([[0.0, -1 / 3]]), np.ones((1, 2), bool), 8, 1, "izzo")
    assert w.tolist() == [[1.0, 0.0]]
    assert round_half_even_float(np.array([0.5, 1.5, 2.5 + 4e-16, 2.6])).tolist() == [0.0, 2.0, 2.0, 3.0]


def test_huang_exact_always_exact_and_differs_from_izzo():
    h = _one_head(1, precision="huang", p=4)
    out = exact_forward(h, "ab" * 3, positions="last")[0]
    assert isinstance(out, Fraction) and 1 < out < 2


def test_counting_evaluator_refuses_unsupported_models():
    with pytest.raises(NotHardmaxError):
        counting_forward(_one_head(1, precision="huang"), "ab" * 20)
    two = _one_head(1)
    two = LimitTransformer(two.alphabet, two.embedding, [two.layers[0], two.layers[0]], two.unembedding)
    with pytest.raises(InputError):
        counting_forward(two, "ab")
    fn_pos = LimitTransformer(two.alphabet, two.embedding, [two.layers[0]], two.unembedding,
                              ArbitraryPositions(lambda i: [0, 0, i], 3))
    with pytest.raises(NotPeriodicError):
        counting_forward(fn_pos, "ab")


def test_general_positions_and_phi_evaluate_consistently():
    base = _one_head(1, p=3)
    head = Head(base.layers[0].heads[0].query, base.layers[0].heads[0].key, base.layers[0].heads[0].value,
                ArbitraryPhi(lambda j, i: 1 if j == 1 else 0))
    m = LimitTransformer(("a", "b"), base.embedding, [Layer([head])], base.unembedding,
                         ArbitraryPositions(lambda i: [0, 0, 0], 3), precision_bits=3)
    assert m.period is None and m.tau is None and not m.is_periodic_and_local
    s = "ab" * 20
    assert _close(exact_forward(m, s), forward(m, s)[0])


def test_shape_errors_are_specific():
    base = _one_head(1)
    with pytest.raises(ShapeError, match="rows"):
        LimitTransformer(("a", "b"), [[0, 0, 1]], base.layers, base.unembedding)
    with pytest.raises(ShapeError, match="alphabet"):
        LimitTransformer(("a", "$"), base.embedding, base.layers, base.unembedding)
    with pytest.raises(ShapeError, match="activation"):
        MLP([[1, 0, 0]], [0], [[1], [0], [0]], ("tanh",))
    with pytest.raises(ShapeError, match="width"):
        LimitTransformer(("a", "b"), base.embedding, base.layers, base.unembedding, PeriodicPositions([[1, 0]]))
    with pytest.raises(InputError, match="alphabet"):
        forward(base, "abc")
    with pytest.raises(InputError, match="equal-length"):
        forward(base, ["ab", "a"])


@settings(max_examples=30)
@given(limit_transformers(), strings(max_size=10))
def test_json_round_trip_is_exact(model, s):
    again = model_from_dict(json.loads(json.dumps(model_to_dict(model))))
    assert model_to_dict(again) == model_to_dict(model)
    with boundary_free():
        assert np.array_equal(forward(again, s), forward(model, s))


def test_malformed_model_files_raise_model_format_error(tmp_path):
    good = model_to_dict(_one_head(1))
    path = tmp_path / "m.json"
    save_model(_one_head(1), path)
    assert model_to_dict(load_model(path)) == good
    cases = {
        "not json": "{oops",
        "wrong version": json.dumps({**good, "version": 99}),
        "unknown field": json.dumps({**good, "colour": "red"}),
        "bad number": json.dumps({**good, "embedding": [["x", 0, 1]] * 3}),
        "bad period": json.dumps({**good, "positions": {"period": 3, "table": [[0, 0, 0]]}}),
        "missing layers": json.dumps({k: v for k, v in good.items() if k != "layers"}),
        "bad shape": json.dumps({**good, "unembedding": [[1, 2]]}),
    }
    accepted = []
    for name, text in cases.items():
        path.write_text(text)
        try:
            load_model(path)
        except ModelFormatError:
            continue
        accepted.append(name)
    assert accepted == [], f"malformed model files accepted: {accepted}"
    with pytest.raises(ModelFormatError, match="cannot read"):
        load_model(tmp_path / "missing.json")
    general = LimitTransformer(("a", "b"), good["embedding"], [], good["unembedding"],
                               ArbitraryPositions(lambda i: [0, 0, 0], 3))
    with pytest.raises(ModelFormatError, match="Periodic and Local"):
        model_to_dict(general)


def test_json_floats_are_read_by_their_decimal_text():
    d = model_to_dict(_one_head(1))
    d["embedding"] = [[0.1, 0, 1], [1, 0, 1], [0, 1, 1]]
    assert model_from_dict(d).embedding[0, 0] == Fraction(1, 10)
