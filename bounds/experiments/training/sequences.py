"""Token-sequence training for the reproductions, on the shared loop :mod:`bounds.experiments.training.loop`.

An experiment supplies a ``draw(rng) -> (tokens, position_ids, targets)`` per example (targets: class index or
-1 where not supervised).  :func:`train_sequences` trains one model per seed with
:func:`bounds.experiments.training.loop.train_models` (all seeds batched), with online batches (a fresh sample every step,
Huang et al. §5.1 / Golowich et al. App. E), masked cross-entropy on the supervised positions, and the loop's
stop rule on the running loss.  :func:`exact_match` is the papers' metric: a sequence counts iff the argmax is
right at every supervised position.

Batches are right-padded: with causal attention a padded position never influences an earlier one, and padded
positions are unsupervised (target -1), so padding changes no loss or prediction.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

IGNORE = -1


def collate(examples: list[tuple], pad_id: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)``: x ``(B, 2, T)`` token and position ids, y ``(B, T)`` targets (-1 = not supervised)."""
    T = max(len(t) for t, _, _ in examples)
    x = np.full((len(examples), 2, T), pad_id, dtype=np.int64)
    y = np.full((len(examples), T), IGNORE, dtype=np.int64)
    for b, (tokens, positions, targets) in enumerate(examples):
        n = len(tokens)
        x[b, 0, :n] = tokens
        x[b, 1, :n] = positions
        x[b, 1, n:] = positions[-1]
        y[b, :n] = targets
    return x, y


def masked_loss(out, x, y):
    """Per-model mean cross-entropy over supervised positions; ``out`` (S, B, T, V) or a (tokens, ...) tuple."""
    import torch

    logits = out[0] if isinstance(out, tuple) else out
    mask = y >= 0
    ce = torch.nn.functional.cross_entropy(logits.flatten(0, 2), y.clamp(min=0).flatten(), reduction="none")
    ce = ce.view(y.shape) * mask
    return ce.sum(dim=(1, 2)) / mask.sum(dim=(1, 2)).clamp(min=1)


def train_sequences(build: Callable[[], object], draw: Callable, seeds: list[int], batch: int, lr: float,
                    max_steps: int, loss_target: float | None, device: str, loss: Callable = masked_loss,
                    progress: Callable | None = None, schedule: str = "cosine", collate_fn=collate,
                    weight_decay: float = 0.0, warmup: int = 0, accuracy: Callable | None = None,
                    accuracy_target: float = 1.0, eval_every: int = 250):
    """Train ``len(seeds)`` models (shared loop); model s draws its batches from ``np.random.default_rng``
    seeded by (seed, 1); ``weight_decay`` > 0 makes the optimizer AdamW; ``warmup``
    steps of linear warm-up; ``loss_target`` None disables the loss stop; ``accuracy`` (per-model scores of a
    snapshot, e.g. :func:`exact_match` on a fixed set) stops a model at ``accuracy_target``, measured every
    ``eval_every`` steps (:class:`~bounds.experiments.training.loop.StopRule`).  ``collate_fn`` turns a list of draws into ``(x, y, ...)`` (x as :func:`collate`;
    every further array is a target, padded with -1) and ``loss(out, x, y, ...)`` reads them.  Returns the
    loop's :class:`~bounds.experiments.training.loop.TrainResult`."""
    from bounds.experiments.training.loop import Adam, StopRule, train_models

    rngs = [np.random.default_rng([s, 1]) for s in seeds]

    def sample(step):
        parts = [collate_fn([draw(rng) for _ in range(batch)]) for rng in rngs]  # per model: (x, y, ...)
        T = max(p[0].shape[-1] for p in parts)
        x = np.stack([np.pad(p[0], ((0, 0), (0, 0), (0, T - p[0].shape[-1])), mode="edge") for p in parts])
        targets = [np.stack([np.pad(p[j], ((0, 0), (0, T - p[j].shape[-1])), constant_values=IGNORE)
                             for p in parts]) for j in range(1, len(parts[0]))]
        return (x, *targets)

    report = (lambda step, losses, done: progress(step, max_steps)) if progress else None
    return train_models(factory=lambda i: build(), seeds=seeds, sample=sample, loss=loss,
                        optim=Adam(lr=lr, schedule=schedule, weight_decay=weight_decay, warmup=warmup),
                        stop=StopRule(max_steps=max_steps, loss_target=loss_target, accuracy=accuracy,
                                      accuracy_target=accuracy_target, eval_every=eval_every),
                        device=device, progress=report)


def exact_match(result, x: np.ndarray, y: np.ndarray, y_pos: np.ndarray | None = None, chunk: int = 64) -> list[float]:
    """Per-model fraction of sequences whose argmax is right at every supervised position (same x, y for all);
    with ``y_pos`` the model returns ``(token, next-position)`` logits and both argmaxes must be right."""
    from bounds.experiments.training.loop import stacked_forward

    S = result.n_models
    correct = np.zeros(S)
    for i in range(0, len(x), chunk):
        xb = np.broadcast_to(x[i:i + chunk], (S, *x[i:i + chunk].shape)).copy()
        out = stacked_forward(result, xb)
        heads = (out if isinstance(out, tuple) else (out,))[: 1 if y_pos is None else 2]
        ok = np.ones(xb.shape[:2], dtype=bool)
        for logits, target in zip(heads, (y, y_pos), strict=False):
            pred = logits.argmax(-1).cpu().numpy()
            yb = target[i:i + chunk][None]
            ok &= ((pred == yb) | (yb < 0)).all(axis=-1)
        correct += ok.sum(axis=-1)
    return [float(c / len(x)) for c in correct]
