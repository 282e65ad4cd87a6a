"""Benchmark: one training step of a Huang et al. Figure 1 cpu-preset cell, split into batch drawing and model step.

    python scripts/bench_huang_step.py [--task tomita4] [--steps 30] [--seeds 2] [--batch 32] [--layers 2] [--d 64]

A step of :func:`bounds.experiments.training.sequences.train_sequences` draws one batch per seed (Python: the task's sampler,
:mod:`constructions.tasks.huang2024`, then ``collate``) and runs one batched forward / backward / AdamW update of
the stacked GPT-2 models (:mod:`bounds.experiments.training.loop`).  This prints the wall and process-CPU time of each half,
per step, in the same process and interleaved (draw, model, draw, model, ...), so that a change in machine load
hits both; with one torch thread the CPU time is the work done whatever else runs on the machine.

Baseline in the same run: the language sampler as it was before its per-state tables (``_reference_sample``
below, the earlier ``LanguageTask.sample`` body: per-symbol weight lists, ``itertools.accumulate`` and a set
built per position); both samplers are fed the same generator states and must return the same examples, which is
checked.  The load average before and after is printed (the machine may be shared).
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _reference_sample(task, n: int, rng):
    """The earlier ``LanguageTask.sample`` (the baseline; same draws, same result)."""
    from constructions.tasks.huang2024 import SOS, Example

    q, word = task.dfa.start, []
    for r in range(n, 0, -1):
        weights = [task.count[r - 1][task.dfa.delta[q][s]] for s in task.alphabet]
        total = sum(weights)
        pick = int(rng.integers(1 << 62)) * total >> 62
        s = task.alphabet[bisect.bisect_right(list(itertools.accumulate(weights)), pick)]
        word.append(s)
        q = task.dfa.delta[q][s]
    states = [task.dfa.start]
    for s in word:
        states.append(task.dfa.delta[states[-1]][s])
    return Example((SOS, *word), tuple(task.next_set(q) for q in states))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench_huang_step")
    ap.add_argument("--task", default="tomita4")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--d", type=int, default=64)
    args = ap.parse_args(argv)

    import torch

    from bounds.experiments.huang2024 import TRAIN_MAX, _encode
    from bounds.experiments.training.decoders import ModelSpec, build_model
    from bounds.experiments.training.loop import _stack, _tensor, _vmapped
    from bounds.experiments.training.sequences import collate, masked_loss
    from constructions.tasks.huang2024 import LanguageTask, make_task

    torch.set_num_threads(1)
    print(f"load average before: {os.getloadavg()}")
    task = make_task(args.task, max_len=150)
    lengths = task.lengths(min(task.lengths(0, TRAIN_MAX)), TRAIN_MAX)
    n_positions = max(task.max_tokens(n) for n in task.lengths(101, 150))
    spec = ModelSpec("ape", args.layers, 2, args.d, max(len(task.input_vocab), len(task.classes)), n_positions,
                     "gelu_pytorch_tanh")
    base, params, buffers = _stack(lambda i: build_model(spec), list(range(args.seeds)), "cpu")
    forward = _vmapped(base)
    opt = torch.optim.AdamW(list(params.values()), lr=1e-3, weight_decay=0.01)
    samplers = {"current": task.sample}
    if isinstance(task, LanguageTask):
        samplers["reference"] = lambda n, rng: _reference_sample(task, n, rng)

    def batch(sample, seed):
        rng = np.random.default_rng([seed, 1])
        parts = []
        for _ in range(args.seeds):
            draws = []
            for _i in range(args.batch):
                ex = sample(int(rng.choice(lengths)), rng)
                offset = int(rng.integers(0, n_positions - len(ex.tokens) + 1))
                draws.append(_encode(task, ex, offset))
            parts.append(collate(draws))
        T = max(p[0].shape[-1] for p in parts)
        x = np.stack([np.pad(p[0], ((0, 0), (0, 0), (0, T - p[0].shape[-1])), mode="edge") for p in parts])
        y = np.stack([np.pad(p[1], ((0, 0), (0, T - p[1].shape[-1])), constant_values=-1) for p in parts])
        return x, y

    wall = {k: 0.0 for k in (*samplers, "model")}
    cpu = dict(wall)
    for step in range(args.steps):
        drawn = {}
        for name, sample in samplers.items():
            w, c = time.perf_counter(), time.process_time()
            drawn[name] = batch(sample, step)
            wall[name] += time.perf_counter() - w
            cpu[name] += time.process_time() - c
        if "reference" in drawn and not all(np.array_equal(a, b) for a, b in zip(drawn["current"], drawn["reference"], strict=True)):
            print("MISMATCH: the samplers drew different batches")
            return 1
        x, y = (_tensor(a, "cpu") for a in drawn["current"])
        w, c = time.perf_counter(), time.process_time()
        loss = masked_loss(forward(params, buffers, x), x, y)
        opt.zero_grad(set_to_none=True)
        loss.sum().backward()
        opt.step()
        wall["model"] += time.perf_counter() - w
        cpu["model"] += time.process_time() - c
    ms = 1000 / args.steps
    print(f"{args.task}, {args.seeds} seeds x batch {args.batch}, {args.layers}-layer d = {args.d}, {args.steps} steps "
          "(ms per step, wall / CPU)")
    for name in wall:
        print(f"  {name + (' batch drawing' if name != 'model' else ' step'):26s} {wall[name] * ms:8.1f} / {cpu[name] * ms:8.1f}")
    if "reference" in wall:
        before = cpu["reference"] + cpu["model"]
        after = cpu["current"] + cpu["model"]
        print(f"  batch drawing speed-up (CPU): {cpu['reference'] / cpu['current']:.2f}x; "
              f"whole step (CPU): {before * ms:.1f} -> {after * ms:.1f} ms, {before / after:.2f}x")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
