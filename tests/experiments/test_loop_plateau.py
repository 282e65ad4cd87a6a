"""The shared loop's AdamW + per-model ReduceLROnPlateau extension (App. B of Ahuja & Mansouri)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from bounds.experiments.training.loop import Adam, Plateau, StopRule, _PerModelPlateau, train_models  # noqa: E402


def test_plateau_cuts_only_the_stalled_model_and_respects_cooldown_and_floor():
    p = _PerModelPlateau(Plateau(every=2, factor=0.5, patience=1, threshold=1e-6, cooldown=1, min_lr=0.3),
                         lr=1.0, S=2, device="cpu")
    improving, stalled = 1.0, 1.0
    factors = []
    for _epoch in range(6):
        improving *= 0.5
        for _ in range(2):
            p.observe(torch.tensor([improving, stalled]))
        factors.append(p.factor.tolist())
    assert all(f[0] == 1.0 for f in factors)  # the improving model keeps its learning rate
    # stalled: epoch 1 sets the best; epoch 2 is bad -> cut; epoch 3 cooldown; epoch 4 bad -> cut (floor 0.3)
    assert [f[1] for f in factors] == pytest.approx([1.0, 0.5, 0.5, 0.3, 0.3, 0.3])


def _net():
    return torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))


def _sample(S):
    g = torch.Generator().manual_seed(0)

    def sample(step):
        x = torch.rand(1, 16, 3, generator=g).expand(S, 16, 3)
        return x, x.sum(-1, keepdim=True).sin()

    return sample


@pytest.mark.parametrize("schedule", ["plateau", "constant"])
def test_models_trained_together_equal_the_model_trained_alone(schedule):
    optim = Adam(lr=1e-2, schedule=schedule, weight_decay=0.01, betas=(0.9, 0.95),
                 plateau=Plateau(every=5, factor=0.5, patience=1, threshold=1.0))  # cut every second epoch (cooldown 1)
    stop = StopRule(max_steps=30)
    mse = lambda out, x, y: ((out - y) ** 2).mean(dim=(1, 2))  # noqa: E731
    both = train_models(lambda i: _net(), [0, 1], _sample(2), mse, optim, stop, device="cpu")
    alone = train_models(lambda i: _net(), [1], _sample(1), mse, optim, stop, device="cpu")
    for k in both.params:
        assert torch.allclose(both.params[k][1], alone.params[k][0], atol=1e-6)
    assert both.lr_factor == pytest.approx([0.5**3] * 2 if schedule == "plateau" else [1.0, 1.0])
    # negative control: a different seed gives different weights
    assert not torch.allclose(both.params["0.weight"][0], both.params["0.weight"][1])


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        Adam(schedule="step")
    with pytest.raises(ValueError):
        Adam(weight_decay=-1)
    with pytest.raises(ValueError):
        Plateau(factor=1.5)


def test_warmup_ramps_the_rate_then_hands_over_to_the_schedule():
    """Constant schedule with 4 warm-up steps: the first Adam steps are 1/4, 2/4, 3/4 of a full step (Adam's
    first step moves every weight by lr * sign(grad)); a run without warm-up moves by the full rate at once."""
    def first_move(warmup):
        res = train_models(lambda i: torch.nn.Linear(1, 1, bias=False), [0], lambda step: (torch.ones(1, 4, 1), torch.zeros(1, 4, 1)),
                           lambda out, x, y: ((out - y) ** 2).mean(dim=(1, 2)), Adam(lr=0.1, warmup=warmup),
                           StopRule(max_steps=1), device="cpu")
        torch.manual_seed(0)
        return abs(res.params["weight"][0, 0, 0].item() - torch.nn.Linear(1, 1, bias=False).weight[0, 0].item())

    assert first_move(0) == pytest.approx(0.1, rel=1e-4)
    assert first_move(4) == pytest.approx(0.025, rel=1e-4)
    with pytest.raises(ValueError):
        Adam(warmup=-1)
