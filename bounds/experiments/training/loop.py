"""The training loop shared by every experiment: S models trained at once, one batched forward per step.

How an experiment plugs in (``bounds.experiments.measure`` is the first user; ``bounds.experiments.reproduce`` the others)::

    from bounds.experiments.training.loop import Adam, StopRule, train_models, stacked_forward, unstack

    result = train_models(
        factory=lambda i: MyModule(...),            # model i (the loop seeds torch with seeds[i] first)
        seeds=[0, 1, 2, 3, 4, 5, 6, 7],             # one model per seed, trained together
        sample=lambda step: (x, y),                 # a batch PER MODEL: arrays with leading dim S
        loss=lambda out, x, y: ((out - y) ** 2).mean(dim=(1, 2)),   # per-model losses, shape (S,)
        optim=Adam(lr=1e-2, lr_scale=lambda name: 1.0, schedule="constant"),
        stop=StopRule(max_steps=5000, loss_target=1e-5),
        progress=lambda step, losses, done: ...,    # optional, called every ``report_every`` steps
    )
    out = stacked_forward(result, x_eval)           # (S, ...) outputs of all trained models
    model_3 = unstack(result, 3)                    # an ordinary nn.Module with model 3's weights

Batching over models.  The S modules built by ``factory`` must share their architecture; their parameters are
stacked (``torch.func.stack_module_state``) into tensors with a leading model dimension and the forward pass
is ``torch.func.vmap`` of ``torch.func.functional_call`` over that dimension, so one step costs one batched
forward/backward instead of S.  Adam is elementwise, so one Adam over the stacked tensors is S independent
Adams; the gradient of ``loss.sum()`` w.r.t. model s's slice is the gradient of model s's own loss, so the
models do not interact.

Stopping.  Each model keeps an exponential running mean of its loss (``StopRule.ema``); model s stops at the
first step >= ``min_steps`` where the running mean is below ``loss_target`` (App. B of Izzo et al.: "until the
training loss crosses below 1e-5").  With ``StopRule.accuracy`` the loop also measures every model every
``eval_every`` steps (``accuracy(snapshot)`` returns one score per model, e.g. exact match on a fixed
in-distribution set) and model s stops when its score reaches ``accuracy_target`` (Huang et al. App. E.3: "early
stop once in-distribution accuracy reaches 100%"); the scores are kept in ``TrainResult.evaluations``.  A stopped
model's parameters are frozen from then on (snapshotted, and restored after every later optimizer step), and its
record says ``reached_target``.  The loop ends when every model has stopped or at ``max_steps``.

Device.  :func:`default_device` is ``"cuda"`` when torch sees a CUDA device, else ``"cpu"``.  torch is imported
inside the functions, so importing this module is cheap (progress can be shown before torch loads).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Plateau:
    """Per-model ReduceLROnPlateau: every ``every`` steps (an epoch) the model's mean loss over those steps is
    compared with its best; after ``patience`` consecutive epochs without an improvement of more than
    ``threshold`` (absolute), that model's learning rate is multiplied by ``factor`` (not below ``min_lr``),
    then ``cooldown`` epochs pass before counting again (torch's ReduceLROnPlateau, mode 'min', threshold_mode
    'abs', with torch's ``patience`` = ours - 1).  Batching keeps S optimizers in one: model s's update is
    scaled by its own factor after the optimizer step (Adam's step is proportional to the learning rate)."""

    every: int = 100
    factor: float = 0.8
    patience: int = 1
    threshold: float = 1e-6
    cooldown: int = 1
    min_lr: float = 1e-7

    def __post_init__(self):
        if self.every < 1 or not 0 < self.factor < 1:
            raise ValueError(f"plateau needs every >= 1 and 0 < factor < 1, got {self.every}, {self.factor}")


@dataclass(frozen=True)
class Adam:
    """Adam settings: base ``lr``; parameter ``name`` (as in ``named_parameters``) gets ``lr * lr_scale(name)``;
    ``schedule`` is ``"constant"``, ``"cosine"`` (decay to 0 over ``StopRule.max_steps``) or ``"plateau"``
    (per model, see :class:`Plateau`); ``warmup`` > 0 ramps the rate linearly from ``lr / warmup`` to ``lr``
    over the first ``warmup`` steps (on top of the schedule); ``weight_decay`` > 0 is decoupled (AdamW);
    ``betas``, ``eps`` as in torch."""

    lr: float = 1e-2
    lr_scale: Callable[[str], float] | None = None
    schedule: str = "constant"
    weight_decay: float = 0.0
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    plateau: Plateau = field(default_factory=Plateau)
    warmup: int = 0

    def __post_init__(self):
        if self.schedule not in ("constant", "cosine", "plateau"):
            raise ValueError(f"unknown schedule {self.schedule!r}; use 'constant', 'cosine' or 'plateau'")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        if self.weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay}")
        if self.warmup < 0:
            raise ValueError(f"warmup must be >= 0, got {self.warmup}")


class _PerModelPlateau:
    """The state of :class:`Plateau` for S models; ``factor`` (S,) multiplies each model's update."""

    def __init__(self, cfg: Plateau, lr: float, S: int, device):
        import torch

        self.cfg, self.floor = cfg, cfg.min_lr / lr
        self.factor = torch.ones(S, device=device)
        self.best = torch.full((S,), float("inf"), device=device)
        self.bad = torch.zeros(S, device=device)
        self.cool = torch.zeros(S, device=device)
        self.acc = torch.zeros(S, device=device)
        self.n = 0

    def observe(self, losses) -> None:
        import torch

        self.acc += losses
        self.n += 1
        if self.n < self.cfg.every:
            return
        mean, self.acc, self.n = self.acc / self.n, torch.zeros_like(self.acc), 0
        better = mean < self.best - self.cfg.threshold
        self.best = torch.where(better, mean, self.best)
        cooling = self.cool > 0
        self.cool = torch.where(cooling, self.cool - 1, self.cool)
        self.bad = torch.where(better | cooling, torch.zeros_like(self.bad), self.bad + 1)
        cut = self.bad > self.cfg.patience - 1
        self.factor = torch.where(cut, torch.clamp(self.factor * self.cfg.factor, min=self.floor), self.factor)
        self.cool = torch.where(cut, torch.full_like(self.cool, self.cfg.cooldown), self.cool)
        self.bad = torch.where(cut, torch.zeros_like(self.bad), self.bad)


@dataclass(frozen=True)
class StopRule:
    """Stop model s when its running-mean loss < ``loss_target`` (after ``min_steps``) or, with ``accuracy``, when
    ``accuracy(snapshot)[s] >= accuracy_target`` at a step that is a multiple of ``eval_every`` (``snapshot`` is a
    :class:`TrainResult` of the current parameters); all stop at ``max_steps``."""

    max_steps: int
    loss_target: float | None = None
    min_steps: int = 50
    ema: float = 0.05  # running mean r <- (1 - ema) r + ema * loss
    accuracy: Callable[[TrainResult], Sequence[float]] | None = None
    accuracy_target: float = 1.0
    eval_every: int = 250

    def __post_init__(self):
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {self.max_steps}")
        if self.eval_every < 1:
            raise ValueError(f"eval_every must be >= 1, got {self.eval_every}")


@dataclass
class TrainResult:
    """What :func:`train_models` returns: the stacked trained parameters and per-model statistics."""

    base: object  # a module of the architecture (on the meta device), for functional calls
    params: dict  # name -> tensor (S, ...), the trained parameters (frozen snapshots for stopped models)
    buffers: dict
    steps: list[int]  # steps each model took
    final_loss: list[float]  # running-mean loss at stop
    reached_target: list[bool]
    history: list[list[list[float]]]  # per model: [step, running loss] every ``history_every`` steps
    seconds: float
    device: str
    seeds: list[int] = field(default_factory=list)
    lr_factor: list[float] = field(default_factory=list)  # plateau schedule: each model's final lr / base lr
    evaluations: list[list[list[float]]] = field(default_factory=list)  # per model: [step, accuracy] (StopRule.accuracy)

    @property
    def n_models(self) -> int:
        return len(self.steps)


def default_device() -> str:
    """``"cuda"`` if a CUDA device is visible to torch, else ``"cpu"``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _stack(factory, seeds: Sequence[int], device: str):
    import copy

    import torch
    from torch.func import stack_module_state

    models = []
    for s in seeds:
        torch.manual_seed(s)
        models.append(factory(len(models)).to(device))
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    return base, {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}, buffers


def _vmapped(base):
    from torch.func import functional_call, vmap

    def one(params, buffers, *xs):
        return functional_call(base, (params, buffers), xs)

    return vmap(one)


def train_models(factory: Callable[[int], object], seeds: Sequence[int], sample: Callable[[int], tuple],
                 loss: Callable, optim: Adam, stop: StopRule, device: str | None = None,
                 progress: Callable[[int, list, list], None] | None = None, report_every: int = 25,
                 history_every: int = 100) -> TrainResult:
    """Train ``len(seeds)`` models of one architecture together (see the module docstring).

    ``sample(step)`` returns a tuple of arrays (numpy or torch) each with leading dimension S (model s gets
    slice s; float64 arrays become float32); ``loss(outputs, *batch)`` returns per-model losses, shape (S,)."""
    import torch

    device = device or default_device()
    S = len(seeds)
    if S < 1:
        raise ValueError("train_models needs at least one seed")
    base, params, buffers = _stack(factory, seeds, device)
    forward = _vmapped(base)
    scale = optim.lr_scale or (lambda name: 1.0)
    groups = [{"params": [p], "lr": optim.lr * scale(name)} for name, p in params.items()]
    opt_cls = torch.optim.AdamW if optim.weight_decay > 0 else torch.optim.Adam
    opt = opt_cls(groups, betas=tuple(optim.betas), eps=optim.eps, weight_decay=optim.weight_decay)
    plateau = _PerModelPlateau(optim.plateau, optim.lr, S, device) if optim.schedule == "plateau" else None
    base_lrs = [g["lr"] for g in opt.param_groups]
    running = torch.full((S,), float("nan"), device=device)
    done = torch.zeros(S, dtype=torch.bool, device=device)
    steps = [0] * S
    history: list[list[list[float]]] = [[] for _ in range(S)]
    evaluations: list[list[list[float]]] = [[] for _ in range(S)]
    frozen: dict = {}  # snapshots of the stopped models' parameters (every tensor; rows of running models unused)
    t0 = time.perf_counter()
    step = 0
    while step < stop.max_steps and not bool(done.all()):
        batch = tuple(_tensor(b, device) for b in sample(step))
        losses = loss(forward(params, buffers, *batch[:1]), *batch)
        opt.zero_grad(set_to_none=True)
        losses.sum().backward()
        if optim.schedule == "cosine" or optim.warmup:
            f = 0.5 * (1 + math.cos(math.pi * step / stop.max_steps)) if optim.schedule == "cosine" else 1.0
            if step < optim.warmup:
                f *= (step + 1) / optim.warmup
            for g, b in zip(opt.param_groups, base_lrs, strict=True):
                g["lr"] = b * f
        before = {k: v.detach().clone() for k, v in params.items()} if plateau is not None else None
        opt.step()
        if plateau is not None:  # model s moves by factor_s times Adam's step: a per-model learning rate
            with torch.no_grad():
                for k, v in params.items():
                    v.copy_(before[k] + _expand(plateau.factor, v) * (v - before[k]))
            plateau.observe(losses.detach())
        step += 1
        with torch.no_grad():
            lv = losses.detach()
            fresh = (1 - stop.ema) * running + stop.ema * lv
            running = torch.where(done, running, torch.where(torch.isnan(running), lv, fresh))
            if frozen:  # stopped models keep their parameters: undo this step's update for them
                for k, v in params.items():
                    v.copy_(torch.where(_expand(done, v), frozen[k], v))
            newly = torch.zeros_like(done)
            if stop.loss_target is not None and step >= stop.min_steps:
                newly = ~done & (running < stop.loss_target)
            if stop.accuracy is not None and step % stop.eval_every == 0:
                snapshot = TrainResult(base=base, params={k: v.detach() for k, v in params.items()}, buffers=buffers,
                                       steps=[step] * S, final_loss=running.tolist(), reached_target=done.tolist(),
                                       history=[], seconds=time.perf_counter() - t0, device=device, seeds=list(seeds))
                scores = [float(a) for a in stop.accuracy(snapshot)]
                for s in range(S):
                    if not bool(done[s]):
                        evaluations[s].append([step, scores[s]])
                newly |= ~done & (torch.tensor(scores, device=device) >= stop.accuracy_target)
            if bool(newly.any()):
                for k, v in params.items():
                    frozen[k] = torch.where(_expand(newly, v), v, frozen.get(k, v)).clone()
            for s in range(S):
                if not bool(done[s]):
                    steps[s] = step
            done |= newly
            run_list = running.tolist()
            if step % history_every == 0:
                for s in range(S):
                    if steps[s] == step:
                        history[s].append([step, run_list[s]])
        if progress is not None and (step % report_every == 0 or bool(done.all()) or step == stop.max_steps):
            progress(step, run_list, done.tolist())
    return TrainResult(base=base, params={k: v.detach() for k, v in params.items()}, buffers=buffers,
                       steps=steps, final_loss=running.tolist(), reached_target=done.tolist(), history=history,
                       seconds=time.perf_counter() - t0, device=device, seeds=list(seeds),
                       lr_factor=plateau.factor.tolist() if plateau is not None else [1.0] * S,
                       evaluations=evaluations)


def _expand(mask, like):
    return mask.view((-1,) + (1,) * (like.dim() - 1))


def _tensor(x, device: str):
    import numpy as np
    import torch

    if isinstance(x, np.ndarray):
        x = torch.from_numpy(x)
    if x.dtype == torch.float64:
        x = x.float()
    return x.to(device)


def stacked_forward(result: TrainResult, *xs, method: str = "forward"):
    """All S trained models on per-model inputs (each with leading dim S), without gradients; ``method`` names
    the module method to call (default ``forward``; e.g. one returning attention weights)."""
    import torch
    from torch.func import functional_call, vmap

    xs = tuple(_tensor(x, result.device) for x in xs)
    wrapper = _method_module(result.base, method)

    def one(params, buffers, *inp):
        return functional_call(wrapper, (params, buffers), inp)

    with torch.no_grad():
        return vmap(one)(result.params, result.buffers, *xs)


def _method_module(base, method: str):
    """A module whose forward is ``base.<method>`` and whose parameter names are base's (for functional_call)."""
    if method == "forward":
        return base
    import types

    import torch

    wrapper = torch.nn.Module()
    wrapper._modules = base._modules
    wrapper._parameters = base._parameters
    wrapper._buffers = base._buffers
    wrapper.forward = types.MethodType(lambda self, *a: getattr(base, method)(*a), wrapper)
    return wrapper


def unstack(result: TrainResult, s: int, factory: Callable[[int], object]):
    """Model s as an ordinary module: ``factory(s)`` loaded with model s's trained weights (on the CPU)."""
    module = factory(s)
    module.load_state_dict({k: v[s].detach().cpu() for k, v in {**result.params, **result.buffers}.items()})
    return module
