"""A one-layer Periodic and Local Limit Transformer as certified float64 enclosures (:class:`bounds.certified.Ball`).

The interval mode of :mod:`bounds.margin` reads the model through this view: built from an exact
:class:`~constructions.limit_transformer.model.LimitTransformer` (:func:`from_model`: each ``Fraction`` rounded to
the nearest double, radius ``u |x|``), or straight from a model file (:func:`load_interval_model`) without building
a single ``Fraction``, so that a float-weight file with d = 512 loads in a fraction of a second.  In a file, a
number is a JSON number, a decimal string or an ``"a/b"`` string (the schema of
:mod:`constructions.limit_transformer.serialize`); its double is within relative ``3u`` of the exact value (one
rounding for a decimal, three for ``a/b``), and the radius says so.  Shapes are checked as the exact loader checks
them; every problem raises :class:`~constructions.limit_transformer.errors.ModelFormatError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bounds.certified import TINY, Ball, U, ball
from constructions.limit_transformer.errors import ModelFormatError
from constructions.limit_transformer.model import ACTIVATIONS, BOS, PRECISION_MODELS, LocalPhi
from constructions.limit_transformer.serialize import FORMAT, VERSION


@dataclass(frozen=True)
class IntervalHead:
    query: Ball  # r x d
    key: Ball
    value: Ball  # d x d
    phi: Ball  # tau + 1 values (zeros when the head has no phi)
    phi_exact: tuple | None  # the exact phi values when known (ties between window offsets are then decided)


@dataclass(frozen=True)
class IntervalModel:
    alphabet: tuple
    embedding: Ball  # (|Sigma|+1) x d, row 0 is $
    positions: Ball | None  # Delta x d
    heads: tuple
    mlp_A: Ball | None
    mlp_b: Ball | None
    mlp_B: Ball | None
    heaviside: bool
    unembedding: Ball
    precision: str
    precision_bits: int
    depth: int
    name: str = ""

    @property
    def d(self) -> int:
        return self.embedding.mid.shape[1]

    @property
    def period(self) -> int:
        return 1 if self.positions is None else self.positions.mid.shape[0]

    @property
    def tau(self) -> int:
        return max(len(h.phi.mid) for h in self.heads) - 1 if self.heads else 0


def from_model(model) -> IntervalModel:
    """Enclosures of an exact one-layer model's parameters."""
    layer = model.layers[0]
    heads = []
    for h in layer.heads:
        vals = tuple(h.phi.values) if isinstance(h.phi, LocalPhi) else (0,)
        heads.append(IntervalHead(ball(h.query), ball(h.key), ball(h.value), ball(np.array(vals, dtype=object)),
                                  tuple(vals)))
    mlp = layer.mlp
    return IntervalModel(model.alphabet, ball(model.embedding),
                         None if model.positions is None else ball(model.positions.table), tuple(heads),
                         None if mlp is None else ball(mlp.A), None if mlp is None else ball(mlp.b),
                         None if mlp is None else ball(mlp.B), bool(mlp is not None and mlp.heaviside_mask.any()),
                         ball(model.unembedding), model.precision, model.precision_bits, model.depth, model.name)


class _Reader:
    """Number -> float, remembering whether every number read was an exact double (an int below 2^53 or an
    ``a/2^k`` string with |a| < 2^53: what :func:`save_model` writes for float weights)."""

    def __init__(self):
        self.exact = True

    def __call__(self, x) -> float:
        if isinstance(x, bool):
            raise ModelFormatError(f"expected a number, got {x!r}")
        if isinstance(x, int):
            self.exact &= abs(x) < 2**53
            return float(x)
        if isinstance(x, float):  # a JSON float means its decimal text (as in the exact loader)
            self.exact &= x.is_integer()
            return x
        if isinstance(x, str):
            num, slash, den = x.partition("/")
            try:
                if not slash:
                    v = float(x)
                    self.exact &= v.is_integer() and abs(v) < 2**53 and x.strip().lstrip("-").isdigit()
                    return v
                a, b = int(num), int(den)
                self.exact &= abs(a) < 2**53 and b > 0 and (b & (b - 1)) == 0 and b < 2**1000
                return float(a) / float(b)
            except (ValueError, ZeroDivisionError, OverflowError):
                raise ModelFormatError(f"cannot read {x!r} as a rational number ('3/4', '0.25' or '-2')") from None
        raise ModelFormatError(f"cannot read {x!r} (type {type(x).__name__}) as a number")


def _matrix(data, name: str, ndim: int = 2) -> Ball:
    if not isinstance(data, list):
        raise ModelFormatError(f"{name} must be a list")
    read = _Reader()
    try:
        if ndim == 2:
            rows = [list(map(read, row)) for row in data]
            if len({len(r) for r in rows}) > 1:
                raise ModelFormatError(f"{name}: rows of different lengths")
        else:
            rows = list(map(read, data))
    except TypeError:
        raise ModelFormatError(f"{name} must be a {ndim}-dimensional array of numbers") from None
    mid = np.array(rows, dtype=np.float64)
    if mid.ndim != ndim or (ndim == 2 and 0 in mid.shape and mid.shape[0] == 0):
        raise ModelFormatError(f"{name} must be {ndim}-dimensional, got shape {mid.shape}")
    if not np.all(np.isfinite(mid)):
        raise ModelFormatError(f"{name}: parameters must be finite")
    if read.exact:
        return Ball(mid, np.zeros_like(mid))
    return Ball(mid, np.abs(mid) * 3 * U * (1 + 4 * U) + TINY)


def _get(obj, key, where):
    if not isinstance(obj, dict) or key not in obj:
        raise ModelFormatError(f"{where} is missing the field {key!r}")
    return obj[key]


def interval_model_from_dict(data: dict) -> IntervalModel:
    """The interval view of a model-file dict (same schema and shape checks as the exact loader)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelFormatError(f"not a Limit Transformer file: 'format' must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise ModelFormatError(f"unsupported schema version {data.get('version')!r}")
    alphabet = tuple(_get(data, "alphabet", "model"))
    if len(set(alphabet)) != len(alphabet) or BOS in alphabet or not alphabet:
        raise ModelFormatError(f"alphabet must be non-empty, without repeats and without '{BOS}'")
    E = _matrix(_get(data, "embedding", "model"), "embedding")
    d = E.mid.shape[1]
    if E.mid.shape[0] != len(alphabet) + 1:
        raise ModelFormatError(f"token embedding needs {len(alphabet) + 1} rows, got {E.mid.shape[0]}")
    pos = data.get("positions")
    P = None if pos is None else _matrix(_get(pos, "table", "positions"), "positions.table")
    if P is not None and (P.mid.shape[1] != d or pos.get("period", P.mid.shape[0]) != P.mid.shape[0]):
        raise ModelFormatError("positions: table width or declared period inconsistent")
    layers = _get(data, "layers", "model")
    if not isinstance(layers, list) or not layers:
        raise ModelFormatError("model needs at least one layer")
    ld = layers[0]
    heads = []
    for h, hd in enumerate(_get(ld, "heads", "layer 1"), 1):
        Q, K, V = (_matrix(_get(hd, k, f"layer 1 head {h}"), f"head {h} {k}") for k in ("query", "key", "value"))
        if Q.mid.shape != K.mid.shape or Q.mid.shape[1] != d or V.mid.shape != (d, d):
            raise ModelFormatError(f"layer 1 head {h}: query/key must be r x {d} and value {d} x {d}")
        phi = hd.get("phi")
        vals = [0] if phi is None else _get(phi, "values", f"head {h} phi")
        if not isinstance(vals, list) or not vals:
            raise ModelFormatError(f"head {h} phi: values must be a non-empty list")
        heads.append(IntervalHead(Q, K, V, _matrix(vals, f"head {h} phi", 1), None))
    md = ld.get("mlp")
    A = b = B = None
    heav = False
    if md is not None:
        A, b, B = _matrix(_get(md, "A", "mlp"), "mlp A"), _matrix(_get(md, "b", "mlp"), "mlp b", 1), \
            _matrix(_get(md, "B", "mlp"), "mlp B")
        k = A.mid.shape[0]
        acts = md.get("activations") or ["relu"] * k
        if A.mid.shape[1] != d or B.mid.shape != (d, k) or b.mid.shape != (k,) or len(acts) != k \
                or any(a not in ACTIVATIONS for a in acts):
            raise ModelFormatError("layer 1 MLP: shapes or activations inconsistent")
        heav = "heaviside" in acts
    Um = _matrix(_get(data, "unembedding", "model"), "unembedding")
    if Um.mid.shape[1] != d:
        raise ModelFormatError(f"unembedding must have {d} columns")
    prec, bits = _get(data, "precision", "model"), _get(data, "precision_bits", "model")
    if prec not in PRECISION_MODELS or not isinstance(bits, int) or bits < 1:
        raise ModelFormatError("precision / precision_bits invalid")
    return IntervalModel(alphabet, E, P, tuple(heads), A, b, B, heav, Um, prec, bits, len(layers),
                         data.get("name", ""))


def load_interval_model(path) -> IntervalModel:
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except OSError as e:
        raise ModelFormatError(f"cannot read model file {p}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ModelFormatError(f"{p} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from e
    try:
        return interval_model_from_dict(data)
    except ModelFormatError as e:
        raise ModelFormatError(f"{p}: {e}") from e
