"""A one-layer Periodic and Local Limit Transformer as certified float64 enclosures (:class:`bounds.certified.Ball`).

The interval mode of :mod:`bounds.margin` reads the model through this view: built from an exact
:class:`~constructions.limit_transformer.model.LimitTransformer` (:func:`from_model`: each ``Fraction`` rounded to
the nearest double, radius ``u |x|``), or straight from a model file (:func:`load_interval_model`) without building
a single ``Fraction``, so that a float-weight file with d = 512 loads in a fraction of a second.  In a file, a
number is a JSON number, a decimal string or an ``"a/b"`` string (the schema of
:mod:`constructions.limit_transformer.serialize`); its double is within relative ``3u`` of the exact value (one
rounding for a decimal, three for ``a/b``), and the radius says so.  Shapes are checked as the exact loader checks
them; every problem raises :class:`~constructions.limit_transformer.errors.ModelFormatError`.

Exactness (a matrix gets radius 0 only when every number in it is read as the exact double it denotes):
an integer (JSON int, or a string of ASCII digits with an optional ``-``) with ``|n| < 2^53``; an ``"a/b"`` string
with ``|a| < 2^53`` and ``b`` a power of two below ``2^1000`` (what :func:`save_model` writes for float weights:
the quotient is then exact, no underflow); a JSON float only when it is an integer below ``2^53`` in magnitude (the
exact loader reads a JSON float by its shortest decimal text, ``repr``: for an integral double below 2^53 that
text is the double itself, but ``2.0**60`` means ``1152921504606847000``).  :class:`_Reader` states these rules
one number at a time; :func:`_read_numbers` applies the same rules to a whole matrix at once (numpy on the bytes
of the joined strings), and hands anything outside the grammar it vectorizes back to :class:`_Reader`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

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
    """Number -> float, remembering whether every number read was an exact double (the rules of the module
    docstring, one number at a time: the reference for :func:`_read_numbers`)."""

    def __init__(self):
        self.exact = True

    def __call__(self, x) -> float:
        if isinstance(x, bool):
            raise ModelFormatError(f"expected a number, got {x!r}")
        if isinstance(x, int):
            self.exact &= abs(x) < 2**53
            if abs(x) >= 2**1024:
                raise ModelFormatError(f"{x} is too large for a double")
            return float(x)
        if isinstance(x, float):  # a JSON float means its decimal text repr(x) (as in the exact loader)
            self.exact &= x.is_integer() and abs(x) < 2**53
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


_SYNTAX = b"0123456789/-,"  # the bytes of joined "a/b" and integer strings
_POW10 = 10 ** np.arange(17, -1, -1, dtype=np.int64)  # 10^17 .. 10^0


def _digit_runs(digits: np.ndarray, end: np.ndarray, length: np.ndarray, width: int) -> np.ndarray:
    """int64 values of the decimal numbers ``digits[end - length : end]`` (``digits``: bytes mapped to their digits,
    padded in front by 18 zeros; 0 <= length <= width <= 18), read right-aligned in windows of ``width`` bytes with
    the bytes before each number masked: exact, below 10^18 < 2^63."""
    rows = sliding_window_view(digits, width)[end - width]
    rows = rows * (np.arange(width, dtype=np.int8) >= (width - length)[:, None].astype(np.int8))
    return rows.astype(np.int64) @ _POW10[18 - width:]


@functools.cache
def _pow2_limbs(n: int) -> np.ndarray:
    """The base-10^18 digits of 2^k, k = 0..1023, lowest first: an int64 array (1024, n)."""
    return np.array([[(2**k // 10 ** (18 * j)) % 10**18 for j in range(n)] for k in range(1024)], dtype=np.int64)


def _read_strings(flat: list) -> tuple[np.ndarray, bool] | None:
    """(doubles, exact) of strings that are all ``-?[0-9]+`` or ``-?[0-9]+/[0-9]+`` with at most 18 numerator
    digits; None for anything else (the caller then reads number by number).  The rules of :class:`_Reader`, with
    the same doubles: numerators are parsed exactly (int64) and rounded once; a denominator is a power of two iff
    its base-10^18 digits are those of 2^k for the k its magnitude names, and is then read as the double 2^k
    (otherwise int64 -> double, or Python's ``float(int)`` above 10^18: one correct rounding, as ``float(b)``); the
    quotient is one IEEE division, as ``float(a) / float(b)``."""
    n = len(flat)
    try:
        joined = (",".join(flat) + ",").encode("ascii")
    except UnicodeEncodeError:
        return None
    if joined.translate(None, _SYNTAX):
        return None
    b = np.frombuffer(joined, np.uint8)
    ends = np.flatnonzero(b == 44)  # one ',' after every string
    if len(ends) != n:
        return None
    starts = np.concatenate(([0], ends[:-1] + 1))
    slash_at = np.flatnonzero(b == 47)
    owner = np.searchsorted(ends, slash_at)
    if np.any(np.diff(owner) <= 0):
        return None  # two '/' in one string
    has_slash = np.zeros(n, bool)
    has_slash[owner] = True
    slash = ends.copy()
    slash[owner] = slash_at
    neg = b[starts] == 45
    if np.count_nonzero(b == 45) != np.count_nonzero(neg):
        return None  # a '-' not at the start
    num_len, den_len = slash - starts - neg, np.where(has_slash, ends - slash - 1, 0)
    if np.any(num_len < 1) or np.any(has_slash & (den_len < 1)) or num_len.max() > 18:
        return None
    digits = np.concatenate((np.zeros(18, np.uint8), b - np.uint8(48)))
    digits[digits > 9] = 0
    num = _digit_runs(digits, slash + 18, num_len, int(num_len.max()))
    top = int(den_len.max())
    limbs = [_digit_runs(digits, ends + 18 - k, np.clip(den_len - k, 0, 18), min(18, top - k))
             for k in range(0, top, 18)]  # base-10^18 digits of the denominators, lowest first
    limbs = limbs or [np.zeros(n, np.int64)]
    limbs[0] = np.where(has_slash, limbs[0], 1)  # an integer string: denominator 1
    if len(limbs) > 17:
        return None  # a denominator of more than 306 digits: no double (_Reader says so)
    approx = sum(limb * 1e18**j for j, limb in enumerate(limbs))  # within a few ulps: names the candidate 2^k
    if not np.all(approx > 0):
        return None  # division by zero: _Reader names the number
    k = np.clip(np.rint(np.log2(approx)), 0, 1023).astype(np.int64)
    table = _pow2_limbs(len(limbs))
    pow2 = np.all([limb == table[k, j] for j, limb in enumerate(limbs)], axis=0) & (k < 1000)
    den = np.where(pow2, np.ldexp(1.0, k), limbs[0].astype(np.float64))  # int64 -> double: correctly rounded
    other = ~pow2 & (np.count_nonzero(limbs[1:], axis=0) > 0 if len(limbs) > 1 else False)
    if np.any(other):  # denominators above 10^18 that are no power of two: rounded by Python, as _Reader does
        try:
            den[other] = [float(sum(int(limb[i]) * 10 ** (18 * j) for j, limb in enumerate(limbs)))
                          for i in np.flatnonzero(other)]
        except OverflowError:
            return None
    exact = bool(np.all(pow2) and np.all(num < 2**53))
    a = num.astype(np.float64)
    a = np.where(neg & ~(has_slash & (num == 0)), -a, a)  # float("-0") is -0.0, float(int("-0")) / 1.0 is 0.0
    return a / den, exact


def _read_numbers(flat: list) -> tuple[np.ndarray, bool]:
    """(doubles, exact) of a flat list of numbers, by the rules of :class:`_Reader`, vectorized for the common
    cases (all JSON numbers; all integer or ``"a/b"`` strings; all decimal strings); other lists, and every list
    with a number that cannot be read, go through :class:`_Reader` number by number."""
    kinds = set(map(type, flat))
    fast = None
    if kinds == {str}:
        fast = _read_strings(flat)
        if fast is None and not any("/" in x for x in flat):
            try:  # numpy parses str with Python's float(): the same doubles as _Reader
                mid = np.array(flat, dtype=np.float64)
            except (ValueError, OverflowError):
                mid = None
            if mid is not None:
                whole = bool(np.all(np.isfinite(mid) & (mid == np.trunc(mid)) & (np.abs(mid) < 2**53)))
                fast = mid, whole and all(x.strip().lstrip("-").isdigit() for x in flat)
    elif kinds and kinds <= {int, float}:
        try:
            mid = np.array(flat, dtype=np.float64)
        except OverflowError:
            mid = None
        if mid is not None:  # ints: |n| < 2^53; floats: integral and below 2^53 (repr is then the double)
            fast = mid, bool(np.all(np.isfinite(mid) & (mid == np.trunc(mid)) & (np.abs(mid) < 2**53)))
    if fast is not None:
        return fast
    read = _Reader()
    return np.array(list(map(read, flat)), dtype=np.float64), read.exact


def _matrix(data, name: str, ndim: int = 2) -> Ball:
    if not isinstance(data, list):
        raise ModelFormatError(f"{name} must be a list")
    regular = data and all(type(r) is list for r in data) and len(set(map(len, data))) == 1 and data[0]
    if ndim == 2 and regular:
        mid, exact = _read_numbers(list(chain.from_iterable(data)))
        mid = mid.reshape(len(data), len(data[0]))
    elif ndim == 1 and data:
        mid, exact = _read_numbers(data)
    else:  # irregular: read number by number, for the same messages as before
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
        mid, exact = np.array(rows, dtype=np.float64), read.exact
    if mid.ndim != ndim or (ndim == 2 and 0 in mid.shape and mid.shape[0] == 0):
        raise ModelFormatError(f"{name} must be {ndim}-dimensional, got shape {mid.shape}")
    if not np.all(np.isfinite(mid)):
        raise ModelFormatError(f"{name}: parameters must be finite")
    if exact:
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
