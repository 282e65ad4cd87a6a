"""One training run and its length-generalization evaluation (Izzo et al. sec. 5, App. B).

Protocol.  Online batches (a fresh sample each step, App. B: "online SGD ... fresh batch") of sequences of
length N from the task's seeded sampler; the loss is the squared error at EVERY prefix position T = 1..N
(causal attention makes the output at position T the model's output on x_{1:T}), i.e. training on all
lengths T <= N with T uniform in [1, N] (sec. 5: "we train models on sequences of length T <= N").  Adam with
App. B's learning rates (lr for embeddings, lr/d for hidden layers), by default
with a cosine decay to 0 over ``max_steps`` (our addition for short CPU budgets; ``schedule='constant'`` is
App. B as printed).  Training stops when the running mean of the training loss is below
``train_loss_target`` or after ``max_steps`` steps (App. B trains to 1e-5; CPU budgets here are smaller).

Evaluation.  One fixed test batch of length ``max(test_multiples) * N`` (its prefixes have the same law as
sequences sampled at that length).  ``test_loss[m]`` is the MSE at test length T' = m N, ``plateau`` the
MSE averaged over all T' in [plateau_from * N, max_multiple * N] (sec. 5: "the test loss plateaus at a
finite value").  For ModP the record also has the attention mass on positions = k (mod p) at length
``attn_length`` (sec. 5 / Figure 3).
"""

from __future__ import annotations

import math
import time
import zlib
from dataclasses import asdict, dataclass

import numpy as np

from bounds.training.data import sample_batch, vocab_size
from bounds.training.model import D_MODEL, MLP_WIDTH, build_model


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's numbers (apart from task, N and seed)."""

    max_steps: int = 1500
    batch: int = 64
    lr: float = 1e-2
    schedule: str = "cosine"  # "cosine": lr decays to 0 over max_steps; "constant": App. B as printed
    train_loss_target: float = 1e-4
    positions: str = "periodic"
    pos_period: int | None = None  # None: the task's Delta (p for ModP, 1 for SimpleTask)
    test_multiples: tuple[int, ...] = (2, 4, 8)
    plateau_from: int = 4
    test_batch: int = 256
    attn_length: int = 80
    d: int = D_MODEL
    width: int = MLP_WIDTH

    def as_dict(self) -> dict:
        out = asdict(self)
        out["test_multiples"] = list(self.test_multiples)
        return out


def task_delta(task) -> int:
    return getattr(task, "period", 1)


def _seed(label: str, n: int, seed: int, stream: int) -> list[int]:
    return [zlib.crc32(label.encode()), n, seed, stream]


def train_run(task, label: str, n: int, seed: int, cfg: RunConfig, device: str = "cpu", return_model: bool = False):
    """Train one model on lengths <= n and evaluate it at lengths up to max(test_multiples) * n.

    Returns the record (a JSON-able dict), or ``(record, model)`` with ``return_model``."""
    import torch

    torch.manual_seed(int(np.random.default_rng(_seed(label, n, seed, 0)).integers(2**62)))
    rng = np.random.default_rng(_seed(label, n, seed, 1))
    test_rng = np.random.default_rng(_seed(label, n, seed, 2))
    top = max(cfg.test_multiples) * n
    max_len = max(top, cfg.attn_length) + 1
    period = cfg.pos_period or task_delta(task)
    model = build_model(vocab_size(task), cfg.positions, period, max_len, cfg.d, cfg.width).to(device)
    opt = torch.optim.Adam(model.param_groups(cfg.lr))
    base = [g["lr"] for g in opt.param_groups]
    t0 = time.perf_counter()
    running, steps, history = None, 0, []
    while steps < cfg.max_steps:
        ids, tg = sample_batch(task, rng, n, cfg.batch)
        ids_t = torch.from_numpy(ids).to(device)
        tg_t = torch.from_numpy(tg).float().to(device)
        loss = ((model(ids_t)[:, 1:] - tg_t[:, 1:]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        if cfg.schedule == "cosine":
            scale = 0.5 * (1 + math.cos(math.pi * steps / cfg.max_steps))
            for g, b in zip(opt.param_groups, base, strict=True):
                g["lr"] = b * scale
        opt.step()
        steps += 1
        v = loss.item()
        running = v if running is None else 0.95 * running + 0.05 * v
        if steps % 100 == 0:
            history.append([steps, running])
        if steps >= 50 and running < cfg.train_loss_target:
            break
    train_s = time.perf_counter() - t0
    rec = evaluate(model, task, test_rng, n, cfg, device)
    rec.update(steps=steps, train_loss=running, train_seconds=round(train_s, 2), history=history,
               reached_target=running is not None and running < cfg.train_loss_target)
    return (rec, model) if return_model else rec


def evaluate(model, task, rng: np.random.Generator, n: int, cfg: RunConfig, device: str) -> dict:
    """Test losses at m * n, the plateau over [plateau_from * n, max * n], in-distribution loss, attention."""
    import torch

    top = max(cfg.test_multiples) * n
    ids, tg = sample_batch(task, rng, top, cfg.test_batch)
    with torch.no_grad():
        out = model(torch.from_numpy(ids).to(device)).double().cpu().numpy()
    err = (out - tg) ** 2  # (batch, top + 1), column T = prefix length T
    rec = {
        "train_length_loss": float(err[:, 1:n + 1].mean()),
        "test_loss": {str(m): float(err[:, m * n].mean()) for m in cfg.test_multiples},
        "plateau": float(err[:, cfg.plateau_from * n: top + 1].mean()),
    }
    if hasattr(task, "period"):
        rec["attention"] = class_attention(model, task, rng, cfg, device)
    return rec


def class_attention(model, task, rng: np.random.Generator, cfg: RunConfig, device: str) -> dict:
    """Figure 3: at the last position of length-``attn_length`` inputs, the mean attention per key on task
    positions = k (mod p), per key elsewhere, the total mass on the class, and 1/(class size)."""
    import torch

    T = cfg.attn_length
    ids, _ = sample_batch(task, rng, T, min(cfg.test_batch, 128))
    with torch.no_grad():
        att = model.attention(model.embed(torch.from_numpy(ids).to(device)))[:, -1, :].double().cpu().numpy()
    t = np.arange(T + 1)  # model column c is task position c (column 0 = '$')
    cls = (t >= 1) & (t % task.period == task.index % task.period)
    return {"length": T, "per_key_class": float(att[:, cls].mean()), "per_key_other": float(att[:, ~cls].mean()),
            "mass_class": float(att[:, cls].sum(axis=1).mean()), "uniform_class": 1.0 / int(cls.sum())}
