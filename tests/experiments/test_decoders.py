"""Hugging Face decoders of the reproductions: APE / NoPE / RoPE / coupled, PoSE ids, seed-batched training."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from bounds.experiments.training.decoders import (  # noqa: E402
    POSITIONS,
    ModelConfigError,
    ModelSpec,
    build_model,
    pack,
    pose_position_ids,
)


def _out(model, ids, pos):
    with torch.no_grad():
        out = model(pack(ids, pos))
    return out[0] if isinstance(out, tuple) else out


def _inputs(T=12, shift=0):
    ids = torch.randint(0, 10, (3, T), generator=torch.Generator().manual_seed(0))
    return ids, (torch.arange(T) + shift).expand(3, T)


@pytest.mark.parametrize("positions", POSITIONS)
def test_shapes(positions):
    torch.manual_seed(0)
    m = build_model(ModelSpec(positions, 2, 2, 16, 10, 40))
    ids, pos = _inputs()
    out = m(pack(ids, pos))
    if positions == "coupled":
        assert out[0].shape == (3, 12, 10) and out[1].shape == (3, 12, 40)
    else:
        assert out.shape == (3, 12, 10)


def test_nope_ignores_positions_and_ape_does_not():
    """NoPE: shifting every position id changes nothing; APE (the negative control) changes."""
    torch.manual_seed(0)
    nope, ape = build_model(ModelSpec("nope", 2, 2, 16, 10, 40)), build_model(ModelSpec("ape", 2, 2, 16, 10, 40))
    ids, pos = _inputs()
    _, shifted = _inputs(shift=7)
    assert torch.allclose(_out(nope, ids, pos), _out(nope, ids, shifted))
    assert not torch.allclose(_out(ape, ids, pos), _out(ape, ids, shifted))
    assert not any("wpe" in n for n, _ in nope.named_parameters())


def test_rope_is_translation_invariant():
    """RoPE logits depend on relative positions only (up to float error); APE does not (control above)."""
    torch.manual_seed(0)
    rope = build_model(ModelSpec("rope", 2, 2, 16, 10, 64))
    ids, pos = _inputs()
    _, shifted = _inputs(shift=9)
    assert torch.allclose(_out(rope, ids, pos), _out(rope, ids, shifted), atol=1e-4)


@pytest.mark.parametrize("positions", ["ape", "rope", "coupled"])
def test_position_id_resets_do_not_cut_attention(positions):
    """Coupled ids (0..l, 0..l) and PoSE jumps must not be read as packed documents: a token before the reset
    still influences the outputs after it."""
    torch.manual_seed(0)
    m = build_model(ModelSpec(positions, 1, 1, 16, 10, 40))
    ids = torch.tensor([[1, 2, 3, 4, 5, 6]])
    pos = torch.tensor([[0, 1, 2, 0, 1, 2]])
    other = ids.clone()
    other[0, 1] = 7
    assert not torch.allclose(_out(m, ids, pos)[0, 3:], _out(m, other, pos)[0, 3:])


def test_pose_ids_increase_and_fit():
    rng = np.random.default_rng(0)
    for ids, n in zip(pose_position_ids([1, 5, 20, 50], 60, rng), [1, 5, 20, 50], strict=True):
        assert len(ids) == n and all(b > a for a, b in zip(ids, ids[1:], strict=False)) and ids[-1] < 60
    with pytest.raises(ModelConfigError, match="exceeds"):
        pose_position_ids([61], 60, rng)


def test_bad_specs():
    with pytest.raises(ModelConfigError, match="divisible"):
        ModelSpec("ape", 1, 3, 16, 10, 40)
    with pytest.raises(ModelConfigError, match="positions"):
        ModelSpec("alibi", 1, 1, 16, 10, 40)


def test_shared_loop_trains_every_kind():
    """A few steps of the shared seed-batched loop on a copy task: every model kind trains, two seeds at once."""
    from bounds.experiments.training.sequences import collate, exact_match, train_sequences

    def draw(rng):
        toks = [int(t) for t in rng.integers(1, 5, size=4)]
        return [0, *toks, 5, *toks], list(range(10)), [-1] * 5 + toks + [-1]

    for positions in POSITIONS:
        spec = ModelSpec(positions, 1, 2, 16, 6, 12)
        res = train_sequences(lambda spec=spec: build_model(spec), draw, [0, 1], 8, 1e-2, 12, 0.0, "cpu")
        assert res.n_models == 2 and res.steps == [12, 12]
        assert all(np.isfinite(res.final_loss)) and res.final_loss[0] != res.final_loss[1]
        x, y = collate([draw(np.random.default_rng(9)) for _ in range(4)])
        acc = exact_match(res, x, y)
        assert len(acc) == 2 and all(0 <= a <= 1 for a in acc)
