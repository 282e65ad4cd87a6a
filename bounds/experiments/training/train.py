"""The Izzo et al. experiment (sec. 5, App. B) on the shared loop: train S seeds at one length, evaluate them.

:func:`train_group` is a sweep run function (:mod:`lengthgen_cli.sweep`): it trains the models of
``seeds`` together (:func:`bounds.experiments.training.loop.train_models`) on one task at training length ``n`` and returns
one JSON record with, per seed, the training statistics, the evaluation and the trained weights.

Protocol.  Online batches (a fresh sample each step, App. B) of sequences of length N from the task's seeded
sampler, one independent stream per seed; the loss is the squared error at EVERY prefix position T = 1..N
(causal attention makes the output at position T the model's output on x_{1:T}), i.e. training on all lengths
T <= N (sec. 5).  Adam with App. B's learning rates (lr for the embeddings, lr/d for hidden layers,
:func:`bounds.experiments.training.model.lr_scale`); schedule ``constant`` (App. B) or ``cosine`` (decay to 0 over
``max_steps``, for short budgets).  A model stops when the running mean of its training loss is below
``train_loss_target`` (App. B: 1e-5) or after ``max_steps`` steps.  Every difference from App. B is listed
in the record (``deviations``).

Evaluation.  One fixed test batch of length ``max(test_multiples) * N`` per seed (its prefixes have the law of
sequences sampled at each shorter length).  ``test_curve[T-1]`` is the MSE at test length T = 1..max*N (Figures
1-2, left), ``test_loss[m]`` the MSE at T' = m N, ``plateau`` the MSE averaged over all T' in
[plateau_from * N, max * N] (sec. 5: "the test loss plateaus at a finite value").  For ModP the record also has
the attention at the last position of length-``attn_length`` inputs (Figure 3): mean and standard deviation of
the weight per key on task positions = k (mod p) and per key elsewhere, and the class's total mass.
"""

from __future__ import annotations

import base64
import zlib
from dataclasses import asdict, dataclass, replace

import numpy as np

from bounds.certify.trained import make_task, weights_from
from bounds.experiments.training.data import sample_batch, vocab_size
from bounds.experiments.training.model import D_MODEL, MLP_WIDTH, build_model, lr_scale


class TrainingSetupError(ValueError):
    """A run cannot be set up as asked (unknown task, bad config, device missing)."""


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's numbers (apart from task, N and seeds)."""

    max_steps: int = 1500
    batch: int = 64
    lr: float = 1e-2
    qk_lr_scale: float = 0.1  # query/key lr = qk_lr_scale * lr / d (App. B: 1); see model.lr_scale
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

    @classmethod
    def from_dict(cls, d: dict) -> RunConfig:
        d = dict(d)
        d["test_multiples"] = tuple(d.get("test_multiples", (2, 4, 8)))
        return cls(**d)


# App. B as printed: batch 1024, Adam 1e-2 (embeddings) / 1e-2/d (hidden), constant rate, stop at 1e-5, 8 seeds.
APP_B = {"batch": 1024, "lr": 1e-2, "qk_lr_scale": 1.0, "schedule": "constant", "train_loss_target": 1e-5, "d": 16,
         "width": 256}
APP_B_SEEDS = 8


def deviations(cfg: RunConfig, n_seeds: int) -> list[str]:
    """Every way this run differs from App. B (and what App. B leaves open that we had to choose)."""
    out = [f"{k} = {getattr(cfg, k)!r} (App. B: {v!r})" for k, v in APP_B.items() if getattr(cfg, k) != v]
    if n_seeds < APP_B_SEEDS:
        out.append(f"{n_seeds} seeds (App. B: {APP_B_SEEDS})")
    out.append(f"step budget max_steps = {cfg.max_steps} (App. B: until the training loss is below the target)")
    out.append(f"positions = {cfg.positions!r} learned table (App. B does not say which positional embeddings)")
    out.append("muP read as: embeddings N(0,1), hidden N(0,1/fan_in), zero query and zero readout, no B/U biases")
    return out


def task_delta(task) -> int:
    return getattr(task, "period", 1)


def _seed(label: str, n: int, seed: int, stream: int) -> list[int]:
    return [zlib.crc32(label.encode()), n, seed, stream]


def torch_seed(label: str, n: int, seed: int) -> int:
    return int(np.random.default_rng(_seed(label, n, seed, 0)).integers(2**62))


def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise TrainingSetupError("device cuda was asked for, but this torch sees no CUDA device; use cpu or auto")
    return device


def fit(task, label: str, n: int, seeds: list[int], cfg: RunConfig, device: str = "auto", progress=None):
    """Train the models of ``seeds`` together; returns the :class:`bounds.experiments.training.loop.TrainResult`."""
    from bounds.experiments.training.loop import Adam, StopRule, train_models

    device = resolve_device(device)
    top = max(cfg.test_multiples) * n
    max_len = max(top, cfg.attn_length) + 1
    period = cfg.pos_period or task_delta(task)
    rngs = [np.random.default_rng(_seed(label, n, s, 1)) for s in seeds]

    def factory(i):
        return build_model(vocab_size(task), cfg.positions, period, max_len, cfg.d, cfg.width)

    def sample(step):
        batches = [sample_batch(task, r, n, cfg.batch) for r in rngs]
        return np.stack([b[0] for b in batches]), np.stack([b[1] for b in batches])

    def loss(out, ids, tg):
        return ((out[..., 1:] - tg[..., 1:]) ** 2).mean(dim=(1, 2))

    report = None
    if progress is not None:
        def report(step, losses, done):
            progress(step, cfg.max_steps)

    return train_models(
        factory, [torch_seed(label, n, s) for s in seeds], sample, loss,
        Adam(cfg.lr, lambda name: lr_scale(name, cfg.d, cfg.qk_lr_scale), cfg.schedule),
        StopRule(max_steps=cfg.max_steps, loss_target=cfg.train_loss_target), device=device, progress=report)


def _chunked(result, ids: np.ndarray, method: str = "forward", chunk: int = 32) -> np.ndarray:
    from bounds.experiments.training.loop import stacked_forward

    parts = [stacked_forward(result, ids[:, i:i + chunk], method=method).double().cpu().numpy()
             for i in range(0, ids.shape[1], chunk)]
    return np.concatenate(parts, axis=1)


def evaluate(result, task, label: str, n: int, seeds: list[int], cfg: RunConfig) -> list[dict]:
    """Per seed: test curve, test losses at m*N, plateau, in-distribution loss, Figure 3 attention (ModP)."""
    top = max(cfg.test_multiples) * n
    tests = [sample_batch(task, np.random.default_rng(_seed(label, n, s, 2)), top, cfg.test_batch) for s in seeds]
    ids = np.stack([t[0] for t in tests])
    tg = np.stack([t[1] for t in tests])
    err = (_chunked(result, ids) - tg) ** 2  # (S, batch, top + 1), column T = prefix length T
    out = []
    for i in range(len(seeds)):
        e = err[i]
        rec = {
            "train_length_loss": float(e[:, 1:n + 1].mean()),
            "test_loss": {str(m): float(e[:, m * n].mean()) for m in cfg.test_multiples},
            "plateau": float(e[:, cfg.plateau_from * n: top + 1].mean()),
            "test_curve": [float(f"{v:.4g}") for v in e[:, 1:].mean(axis=0)],
        }
        out.append(rec)
    if hasattr(task, "period"):
        for rec, att in zip(out, class_attention(result, task, label, n, seeds, cfg), strict=True):
            rec["attention"] = att
    return out


def class_attention(result, task, label: str, n: int, seeds: list[int], cfg: RunConfig) -> list[dict]:
    """Figure 3: at the last position of length-``attn_length`` inputs, the weight per key on task positions
    = k (mod p) and per key elsewhere (mean and standard deviation), the class's mass, and 1/(class size)."""
    T = cfg.attn_length
    ids = np.stack([sample_batch(task, np.random.default_rng(_seed(label, n, s, 3)), T, min(cfg.test_batch, 128))[0]
                    for s in seeds])
    att = _chunked(result, ids, method="attention_of_ids")[:, :, -1, :]  # (S, batch, T + 1)
    t = np.arange(T + 1)  # model column c is task position c (column 0 = '$')
    cls = (t >= 1) & (t % task.period == task.index % task.period)
    return [{"length": T, "per_key_class": float(a[:, cls].mean()), "per_key_class_std": float(a[:, cls].std()),
             "per_key_other": float(a[:, ~cls].mean()), "per_key_other_std": float(a[:, ~cls].std()),
             "mass_class": float(a[:, cls].sum(axis=1).mean()), "uniform_class": 1.0 / int(cls.sum())}
            for a in att]


def weights_of(result, i: int) -> dict:
    """Model i's trained parameters: name -> {"shape", "float32_base64"} (exact float32 bytes, little-endian)."""
    out = {}
    for k, v in result.params.items():
        a = np.ascontiguousarray(v[i].detach().cpu().numpy().astype("<f4"))
        out[k] = {"shape": list(a.shape), "float32_base64": base64.b64encode(a.tobytes()).decode("ascii")}
    return out


def train_group(task: str, params: dict, n: int, seeds: list[int], config: dict, device: str = "auto",
                threads: int | None = None, progress=None) -> dict:
    """Sweep run function: train ``seeds`` at length ``n`` on one task, evaluate, return one JSON record."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    cfg = RunConfig.from_dict(config)
    task_obj, label = make_task(task, params)
    result = fit(task_obj, label, n, list(seeds), cfg, device, progress)
    evals = evaluate(result, task_obj, label, n, list(seeds), cfg)
    runs = []
    for i, s in enumerate(seeds):
        runs.append({"seed": s, "steps": result.steps[i], "train_loss": result.final_loss[i],
                     "reached_target": result.reached_target[i], "history": result.history[i], **evals[i],
                     "weights": weights_of(result, i)})
    return {"task": label, "task_kind": task, "task_params": params, "N": n, "seeds": list(seeds),
            "config": cfg.as_dict(), "deviations": deviations(cfg, len(seeds)), "device": result.device,
            "torch": torch.__version__, "torch_threads": torch.get_num_threads(),
            "train_seconds": round(result.seconds, 2), "runs": runs}


def rebuild(record: dict, seed_index: int):
    """The trained torch module of ``record["runs"][seed_index]`` (CPU, float32)."""
    import torch

    cfg = RunConfig.from_dict(record["config"])
    task_obj, _ = make_task(record["task_kind"], record["task_params"])
    n = record["N"]
    max_len = max(max(cfg.test_multiples) * n, cfg.attn_length) + 1
    model = build_model(vocab_size(task_obj), cfg.positions, cfg.pos_period or task_delta(task_obj), max_len,
                        cfg.d, cfg.width)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights_from(record["runs"][seed_index]["weights"]).items()})
    return model


def with_overrides(cfg: RunConfig, **kw) -> RunConfig:
    return replace(cfg, **kw)
