"""Trained torch model (:mod:`bounds.experiments.training.model`) -> exact :class:`LimitTransformer` (Izzo et al. sec. 3.1).

The trained architecture is the one-layer Limit Transformer computation itself (no biases in Q, K, V, B, U;
the hidden bias b of the MLP is the Limit Transformer's), so the conversion is a change of notation:

    embedding  = tok.weight              (row 0 is ``$``, then the task alphabet in id order)
    positions  = PeriodicPositions(pos.weight)        (``periodic`` models only: p_i = table[(i-1) mod Delta])
    query      = q.weight / sqrt(d),  key = k.weight,  value = v.weight,  phi = none (tau = 0)
    MLP        = A.weight, A.bias, B.weight (ReLU),   unembedding = U.weight

Every float32 weight becomes the exact Fraction of its value (1/sqrt(d) is exact for square d; otherwise it is
the float64 of 1/sqrt(d)).  The trained model's output at 1-based position i is the Limit Transformer's last
output on the prefix of length i (its ``log|x|`` is log i), up to float rounding and the precision model's flush
of softmax terms <= 2^-p: with the default ``precision_bits = 53`` a flushed term is below float64 resolution of
the largest term.  The Theorem 4.1 estimate of a trained model is therefore ``python -m bounds.estimate --model
FILE.json`` on the saved conversion (:func:`save_trained`); ``--precision-bits`` sets the p of its hardmax term.
"""

from __future__ import annotations

import base64
import math
from fractions import Fraction

import numpy as np

from constructions.limit_transformer.model import MLP, Head, Layer, LimitTransformer, PeriodicPositions

DEFAULT_PRECISION_BITS = 53


class TaskSpecError(ValueError):
    """A run record names a task this package does not define (or with parameters the task refuses)."""


class ConversionError(ValueError):
    """The trained model has no exact Limit Transformer form (e.g. absolute positional embeddings)."""


def _frac(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    out = np.empty(a.shape, dtype=object)
    for idx, v in np.ndenumerate(a):
        out[idx] = Fraction(float(v))
    return out


def make_task(task: str, params: dict):
    """(task object, label) for ``task`` in {"modp", "simple"} with ``params`` {"period", "index"} / {"omega"}."""
    from constructions.tasks import ModPTask, SimpleTask, TaskError

    try:
        if task == "modp":
            p, k = int(params["period"]), int(params.get("index", 0))
            return ModPTask(p, k), f"modp(p={p},k={k})"
        if task == "simple":
            w = Fraction(str(params["omega"]))
            return SimpleTask(w), f"simple(omega={w})"
    except TaskError as e:
        raise TaskSpecError(str(e)) from None
    raise TaskSpecError(f"unknown task {task!r}; use modp or simple")


def weights_from(w: dict) -> dict:
    """Inverse of :func:`weights_of`: name -> float32 numpy array."""
    return {k: np.frombuffer(base64.b64decode(v["float32_base64"]), dtype="<f4").reshape(v["shape"]).copy()
            for k, v in w.items()}


def to_limit_transformer(weights: dict, alphabet, positions: str = "periodic",
                         precision_bits: int = DEFAULT_PRECISION_BITS, name: str = "",
                         metadata: dict | None = None) -> LimitTransformer:
    """``weights``: parameter name -> float array (a state dict as numpy, or
    :func:`weights_from` of a run record)."""
    if positions != "periodic":
        raise ConversionError(f"{positions!r} positional embeddings are not periodic: no Limit Transformer form "
                              "(Theorem 4.1 needs Delta-periodic encodings)")
    return _build(weights, alphabet, precision_bits, name, metadata)


def _build(weights: dict, alphabet, precision_bits: int, name: str, metadata: dict | None) -> LimitTransformer:
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    extra = [k for k in w if k.endswith(".bias") and k != "A.bias"]
    if extra:
        raise ConversionError(f"biases {extra} have no place in a Limit Transformer; train without them")
    d = w["tok.weight"].shape[1]
    root = math.isqrt(d)
    qscale = Fraction(1, root) if root * root == d else Fraction(1 / math.sqrt(d))
    head = Head(_frac(w["q.weight"]) * qscale, _frac(w["k.weight"]), _frac(w["v.weight"]), None)
    mlp = MLP(_frac(w["A.weight"]), _frac(w["A.bias"]), _frac(w["B.weight"]), "relu")
    return LimitTransformer(alphabet=tuple(alphabet), embedding=_frac(w["tok.weight"]),
                            layers=(Layer((head,), mlp),), unembedding=_frac(w["U.weight"]),
                            positions=PeriodicPositions(_frac(w["pos.weight"])), precision_bits=precision_bits,
                            precision="izzo", name=name, metadata=metadata or {})


def from_record(record: dict, seed_index: int, precision_bits: int = DEFAULT_PRECISION_BITS) -> LimitTransformer:
    """The Limit Transformer of ``record["runs"][seed_index]`` (a :func:`bounds.experiments.training.train.train_group` record)."""
    run = record["runs"][seed_index]
    task, label = make_task(record["task_kind"], record["task_params"])
    meta = {"source": "bounds.certify.trained", "task": label, "N": record["N"], "seed": run["seed"],
            "plateau": run["plateau"], "train_loss": run["train_loss"], "reached_target": run["reached_target"]}
    return to_limit_transformer(weights_from(run["weights"]), task.alphabet, record["config"]["positions"],
                                precision_bits, f"trained {label} N={record['N']} seed={run['seed']}", meta)


def absolute_as_periodic(record: dict, seed_index: int,
                         precision_bits: int = DEFAULT_PRECISION_BITS) -> tuple[LimitTransformer, int]:
    """A trained model with ``absolute`` positions (a table of ``max_len`` rows, row i - 1 at model position i) as
    the Limit Transformer whose periodic table is that table, period ``max_len``, and ``max_len``.

    The two compute the same outputs on every input of model length <= ``max_len``, the only inputs the trained
    model reads (it refuses longer ones); beyond, the periodic reading says nothing about the trained model.  So a
    disagreement found at a length <= ``max_len`` is one of the trained model, and nothing else is claimed (the
    negative control of ``bounds.certify``: absolute positions are not a Limit Transformer encoding)."""
    if record["config"]["positions"] != "absolute":
        raise ConversionError(f"{record['config']['positions']!r} positions: use from_record")
    run = record["runs"][seed_index]
    task, label = make_task(record["task_kind"], record["task_params"])
    weights = weights_from(run["weights"])
    max_len = int(np.asarray(weights["pos.weight"]).shape[0])
    model = _build(weights, task.alphabet, precision_bits,
                   f"trained {label} N={record['N']} seed={run['seed']} (absolute positions read with period "
                   f"{max_len})", {"source": "bounds.certify.trained.absolute_as_periodic", "task": label,
                                   "N": record["N"], "seed": run["seed"], "max_len": max_len})
    return model, max_len


def save_trained(record: dict, seed_index: int, path, precision_bits: int = DEFAULT_PRECISION_BITS) -> None:
    """Write the conversion as a model file for ``python -m bounds.estimate --model``."""
    from constructions.limit_transformer.serialize import save_model

    save_model(from_record(record, seed_index, precision_bits), path)


def prefix_outputs(model: LimitTransformer, ids: np.ndarray) -> np.ndarray:
    """The Limit Transformer's output on every prefix: column T is its last output on ``ids[:, :T + 1]``
    (the quantity the trained model computes at column T)."""
    from constructions.limit_transformer.evaluate import forward

    return np.stack([forward(model, ids[:, :t + 1], positions="last")[:, 0] for t in range(ids.shape[1])], axis=1)
