"""Named sweeps: a grid of (task, training lengths) with one run configuration and a seed count.

A :class:`Preset` is generic (any run function and config dict); :func:`Preset.specs` turns it into
:class:`lengthgen_cli.sweep.RunSpec` s, one per (task, N) with all seeds batched in that run.  The Izzo et
al. sec. 5 presets are :data:`IZZO_PRESETS`:

* ``quick``: every ModP p = 2..5 and SimpleTask omega = 1, 2, 4, 8 at small budgets (batch 64, <= 2000 steps,
  stop at 1e-4, 8 seeds); sized to finish in under 30 minutes on a 2-core CPU.
* ``cpu``: the quick grid trained until it fits (budget 5000 steps, early stop at 1e-4; SimpleTask omega = 8:
  10000 steps, query/key lr scale 0.03, which the quick budget left unfitted); about an hour on 2 idle cores.
* ``horizon``: the threshold measured by certificate (``bounds.certify --runs``): ModP p = 2, 3 and SimpleTask
  omega = 1, 2 at training lengths from 4 to at least 4x the class's certified lower bound of ``bounds.estimate``
  (38, 56, 39, 77: up to N = 160, 228, 160, 320), 4 seeds, the cpu run configuration; 45 runs, about 85 minutes
  with ``--workers 2`` on a shared 2-core machine (the N = 320 run alone 26 minutes).
* ``paper``: App. B (batch 1024, Adam 1e-2 / 1e-2/d constant, stop at train loss 1e-5, 8 seeds) with a finer
  grid and longer test lengths; GPU-sized (hours on a CPU).

Both share the attention learning-rate setting ``qk_lr_scale`` (see ``bounds.experiments.training.model.lr_scale``), the
fix that lets SimpleTask omega >= 4 train; every difference from App. B is listed in each run record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lengthgen_cli.sweep import RunSpec


@dataclass(frozen=True)
class Grid:
    """One task with its training lengths; ``config`` overrides the preset's run configuration for this task."""

    task: str
    params: dict
    lengths: tuple[int, ...]
    config: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    fn: str  # run function "module:function", called with task, params, n, seeds, config, device, threads
    config: dict
    seeds: int
    grids: tuple[Grid, ...]
    experiment: str = "izzo2025"
    num_cpus: float = 1
    num_gpus: float = 0
    extra: dict = field(default_factory=dict)

    def specs(self, device: str = "auto", threads: int | None = 1, num_gpus: float | None = None) -> list[RunSpec]:
        out = []
        for g in self.grids:
            config = {**self.config, **g.config}
            for n in sorted(set(g.lengths)):
                kw = {"task": g.task, "params": g.params, "n": n, "seeds": list(range(self.seeds)),
                      "config": config, "device": device, "threads": threads}
                key = run_key(self.experiment, g.task, g.params, n, self.seeds, config)
                out.append(RunSpec(key, self.fn, kw, num_cpus=self.num_cpus,
                                   num_gpus=self.num_gpus if num_gpus is None else num_gpus))
        return sorted(out, key=lambda s: s.kwargs["n"])  # small runs first: every task gets its low end early


def run_key(experiment: str, task: str, params: dict, n: int, seeds: int, config: dict) -> str:
    """A stable, readable key: experiment, task, params, N, seeds and a digest of the config."""
    import hashlib
    import json

    cid = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:10]
    ps = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return f"{experiment}/{task}({ps})/N={n}/seeds={seeds}/cfg={cid}"


_QUICK_CONFIG = {"max_steps": 2000, "batch": 64, "lr": 1e-2, "qk_lr_scale": 0.1, "schedule": "cosine", "train_loss_target": 1e-4,
                 "positions": "periodic", "pos_period": None, "test_multiples": [2, 4, 8], "plateau_from": 4,
                 "test_batch": 128, "attn_length": 80, "d": 16, "width": 256}
_CPU_CONFIG = {**_QUICK_CONFIG, "max_steps": 5000}
_PAPER_CONFIG = {**_QUICK_CONFIG, "max_steps": 20000, "batch": 1024, "schedule": "constant",
                 "train_loss_target": 1e-5, "test_multiples": [2, 4, 8, 16], "plateau_from": 8, "test_batch": 512}


def _modp(p: int, multiples) -> Grid:
    return Grid("modp", {"period": p, "index": 0}, tuple(sorted({max(1, round(m * p)) for m in multiples})))


IZZO_PRESETS = {
    "quick": Preset(
        "quick", "ModP p = 2..5 and SimpleTask omega = 1, 2, 4, 8, small budgets (< 30 min on 2 idle CPU cores)",
        "bounds.experiments.training.train:train_group", _QUICK_CONFIG, 8,
        (Grid("modp", {"period": 2, "index": 0}, (2, 3, 4, 5, 6, 8, 10, 12)),
         Grid("modp", {"period": 3, "index": 0}, (3, 4, 6, 8, 9, 12, 15)),
         Grid("modp", {"period": 4, "index": 0}, (4, 6, 8, 10, 12, 16, 20)),
         Grid("modp", {"period": 5, "index": 0}, (5, 10, 15, 20, 25)),
         Grid("simple", {"omega": "1"}, (1, 2, 3, 4, 6)),
         Grid("simple", {"omega": "2"}, (2, 3, 4, 6, 8)),
         Grid("simple", {"omega": "4"}, (4, 6, 8, 12, 16)),
         Grid("simple", {"omega": "8"}, (8, 12, 16, 24)))),
    "cpu": Preset(
        "cpu", "the quick grid trained until it fits on a 2-core CPU: step budget 5000 (early stop at train MSE 1e-4); "
        "SimpleTask omega = 8 with 10000 steps and query/key lr scale 0.03 on N = 6, 8, 12, 16",
        "bounds.experiments.training.train:train_group", _CPU_CONFIG, 8,
        (Grid("modp", {"period": 2, "index": 0}, (2, 3, 4, 5, 6, 8, 10, 12)),
         Grid("modp", {"period": 3, "index": 0}, (3, 4, 6, 8, 9, 12, 15)),
         Grid("modp", {"period": 4, "index": 0}, (4, 6, 8, 10, 12, 16, 20)),
         Grid("modp", {"period": 5, "index": 0}, (5, 10, 15, 20, 25)),
         Grid("simple", {"omega": "1"}, (1, 2, 3, 4, 6)),
         Grid("simple", {"omega": "2"}, (2, 3, 4, 6, 8)),
         Grid("simple", {"omega": "4"}, (4, 6, 8, 12, 16)),
         Grid("simple", {"omega": "8"}, (6, 8, 12, 16), {"max_steps": 10000, "qk_lr_scale": 0.03}))),
    "horizon": Preset(
        "horizon", "ModP p = 2, 3 and SimpleTask omega = 1, 2 from N = 4 to >= 4x the class's certified lower bound "
        "(N <= 160, 228, 160, 320), 4 seeds, the cpu configuration: the sweep whose seeds bounds.certify --runs "
        "certifies (the threshold measured by certificate)",
        "bounds.experiments.training.train:train_group", _CPU_CONFIG, 4,
        (Grid("modp", {"period": 2, "index": 0}, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 160)),
         Grid("modp", {"period": 3, "index": 0}, (4, 6, 9, 12, 18, 27, 36, 54, 81, 120, 228)),
         Grid("simple", {"omega": "1"}, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 160)),
         Grid("simple", {"omega": "2"}, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 160, 320)))),
    "paper": Preset(
        "paper", "App. B settings (batch 1024, stop at 1e-5, 8 seeds), finer grids; GPU-sized",
        "bounds.experiments.training.train:train_group", _PAPER_CONFIG, 8,
        tuple(_modp(p, (1, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 8, 10)) for p in (2, 3, 4, 5, 6, 7, 8))
        + tuple(Grid("simple", {"omega": str(w)}, tuple(sorted({max(1, round(m * w)) for m in
                                                               (1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12)})))
                for w in (1, 2, 4, 8, 16))),
}
