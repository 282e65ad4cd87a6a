"""Batches for training runs: token ids from the task samplers, exact-by-construction prefix targets.

The sequences come from the seeded App. B samplers of :mod:`constructions.tasks` (``ModPTask.sample_ids``,
``SimpleTask.sample``); nothing about the task distribution is redefined here.  The *targets* of every prefix
are computed vectorized with numpy (``ModPTask.prefix_targets`` / ``SimpleTask.prefix_targets`` are exact
but per-string Fractions, far too slow for online batches); ``tests/experiments/test_measure.py`` checks these arrays
against the tasks' exact targets, so the task definitions stay the single source of truth.

Model convention (the package's, docs/bounds.md): the model reads ``$ x_1 .. x_T``; ``$`` is id 0 at model
position 1, task position t is model position t + 1.  ``targets[:, T]`` is f*(x_{1:T}) (T = 0: the ``$``
position, target 0 by the tasks' empty-class convention).  Ids: ModP ``'0' -> 1, '1' -> 2`` (as
``ModPTask.sample_ids``); Simple ``'0' -> 1, '1' -> 2, '2' -> 3``.
"""

from __future__ import annotations

import numpy as np

from constructions.tasks import ModPTask, SimpleTask


def vocab_size(task) -> int:
    """Number of token ids including ``$``."""
    return 1 + len(task.alphabet)


def sample_batch(task, rng: np.random.Generator, length: int, batch: int) -> tuple[np.ndarray, np.ndarray]:
    """(ids, targets), both of shape (batch, length + 1): ids with ``$`` prepended, float64 prefix targets."""
    if isinstance(task, ModPTask):
        ids = task.sample_ids(rng, length, batch)
        return ids, modp_targets(task, ids)
    if isinstance(task, SimpleTask):
        ids = strings_to_ids(task.sample(rng, length, batch), length)
        return ids, simple_targets(task, ids)
    raise TypeError(f"no batch sampler for task {task!r}; expected ModPTask or SimpleTask")


def strings_to_ids(strings: list[str], length: int) -> np.ndarray:
    """Task strings over digits ``'0'..'9'`` -> ids (digit + 1) with ``$`` = 0 prepended."""
    ids = np.zeros((len(strings), length + 1), dtype=np.int64)
    if length:
        ids[:, 1:] = np.frombuffer("".join(strings).encode("ascii"), dtype=np.uint8).reshape(len(strings), length) - 47
    return ids


def modp_targets(task: ModPTask, ids: np.ndarray) -> np.ndarray:
    """f* of every prefix: mean bit over task positions t = k (mod p), t <= T (0 if there is none)."""
    bits = ids[:, 1:] == 2
    t = np.arange(1, ids.shape[1])
    cls = (t % task.period) == (task.index % task.period)
    ones = np.cumsum(bits & cls, axis=1)
    count = np.cumsum(np.broadcast_to(cls, bits.shape), axis=1)
    out = np.zeros(ids.shape, dtype=np.float64)
    out[:, 1:] = np.divide(ones, count, out=np.zeros(ones.shape), where=count > 0)
    return out


def simple_targets(task: SimpleTask, ids: np.ndarray) -> np.ndarray:
    """sin(omega z) of every prefix, z = (c_0 - c_1)/(c_0 + c_1) (z = 0 when c_0 + c_1 = 0)."""
    c0 = np.cumsum(ids == 1, axis=1)
    c1 = np.cumsum(ids == 2, axis=1)
    tot = c0 + c1
    z = np.divide(c0 - c1, tot, out=np.zeros(tot.shape), where=tot > 0)
    return np.sin(float(task.omega) * z)
