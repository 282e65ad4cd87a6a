"""A one-layer Periodic and Local Limit Transformer as certified float64 enclosures (:class:`bounds.float_enclosures.Ball`).

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
from fractions import Fraction
from itertools import chain

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from bounds.float_enclosures import TINY, Ball, U, ball
from constructions.limit_transformer.errors import ModelFormatError
from constructions.limit_transformer.model import ACTIVATIONS, BOS, PRECISION_MODELS, LocalPhi
from constructions.limit_transformer.serialize import FORMAT, VERSION
from lengthgen_cli.inputs import require_regular_file


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
                if abs(a) < 2**1024 and b < 2**1024:
                    return float(a) / float(b)  # within 3 ulps (and TINY) of a/b: the radius rule of ball()
                # a denominator of 2^1024 or more: correctly rounded; a value below the smallest double rounds to 0
                # or a subnormal, which the TINY term of every radius covers
                return float(Fraction(a, b))
            except (ValueError, ZeroDivisionError, OverflowError):
                raise ModelFormatError(f"cannot read {x!r} as a rational number ('3/4', '0.25' or '-2')") from None
        raise ModelFormatError(f"cannot read {x!r} (type {type(x).__name__}) as a number")


_SYNTAX = b"0123456789/-,"  # the bytes of joined "a/b" and integer strings
_MAX_NUM, _MAX_DEN = 18, 336  # digits; 2^1023 has 308
_INT64_MAX = np.iinfo(np.int64).max


def _windows(padded: np.ndarray, start: np.ndarray, length: np.ndarray, width: int) -> np.ndarray:
    """The digits of the numbers ``padded[start : start + length]``, right-aligned in uint64 words of 8 digit bytes
    (``width`` bytes a row, zero bytes in front; ``padded`` has ``width`` bytes before the text)."""
    rows = sliding_window_view(padded, width)[start + length - width]  # a fresh array: changed in place
    rows -= np.uint8(48)
    words = rows.view(np.uint64)
    words &= np.take(_keep_last(width), length, axis=0)
    return words


@functools.cache
def _keep_last(width: int) -> np.ndarray:
    """Row L: uint64 words whose bytes keep the last L of ``width`` bytes (L = 0..width)."""
    return (np.arange(width) >= width - np.arange(width + 1)[:, None]).astype(np.uint8).__mul__(255).view(np.uint64)


def _eight_digits(words: np.ndarray) -> np.ndarray:
    """The values of 8 decimal digits packed in uint64 words (first byte most significant), by the usual SWAR
    reduction (pairs, quadruples, octets; exact: uint64 arithmetic, every partial value below 10^8)."""
    words = ((words & np.uint64(0x0F0F0F0F0F0F0F0F)) * np.uint64(2561)) >> np.uint64(8)
    words = ((words & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(6553601)) >> np.uint64(16)
    return ((words & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(42949672960001)) >> np.uint64(32)


@functools.cache
def _pow2_words(width: int) -> tuple[np.ndarray, np.ndarray]:
    """The last ``width`` decimal digits of 2^k, k = 0..1023, as :func:`_windows` lays them out (width a multiple
    of 8), and the digit count of 2^k."""
    texts = [str(2**k) for k in range(1024)]
    table = np.zeros((1024, max(width, 312)), np.uint8)
    for k, text in enumerate(texts):
        table[k, table.shape[1] - len(text):] = np.frombuffer(text.encode(), np.uint8) - 48
    return np.ascontiguousarray(table[:, -width:]).view(np.uint64), np.array([len(t) for t in texts])


def _read_strings(text: str, n: int) -> tuple[np.ndarray, bool] | None:
    """(doubles, exact) of n strings, each followed by a comma in ``text``, that are all ``-?[0-9]+`` or
    ``-?[0-9]+/[0-9]+`` (at most 18 numerator and 336 denominator digits, no leading zero in a denominator); None
    for anything else (the caller then reads number by number).  The rules and the doubles of :class:`_Reader`:
    numerators, and denominators of at most 18 digits, are parsed exactly (int64, ``np.fromstring``: below
    10^18 < 2^63 nothing saturates) and rounded once, as are denominators of 19 digits that parsed below
    ``2^63 - 1`` (``np.fromstring`` saturates at ``2^63 - 1``; 2^60..2^62 are such); a longer denominator (or a
    19-digit one that saturated) is a power of two iff its digits are
    those of 2^k for the k its leading digits name, and is then the double 2^k (otherwise Python's
    ``float(int)``: one correct rounding, as ``float(b)``); the quotient is one IEEE division, as
    ``float(a) / float(b)``."""
    try:
        joined = text.encode("ascii")
    except UnicodeEncodeError:
        return None
    if joined.translate(None, _SYNTAX) or not joined.endswith(b","):
        return None
    b = np.frombuffer(joined, np.uint8)
    marks = np.flatnonzero(b < 48)  # ',' '-' '/'
    kind = b[marks]
    minus = np.count_nonzero(kind == 45)
    seps = marks[kind != 45]
    is_slash = b[seps] == 47
    comma = np.flatnonzero(~is_slash)  # one ',' after every string
    if len(comma) != n or np.any(is_slash[1:] & is_slash[:-1]):
        return None  # a ',' inside a string, or two '/' in one string
    ends = seps[comma]
    starts = np.concatenate(([0], ends[:-1] + 1))
    before = np.maximum(comma - 1, 0)
    has_slash = (comma > 0) & is_slash[before]
    slash = np.where(has_slash, seps[before], ends)
    neg = b[starts] == 45
    if minus != np.count_nonzero(neg):
        return None  # a '-' not at the start
    num_len, den_len = slash - starts - neg, np.where(has_slash, ends - slash - 1, 0)
    if np.any(num_len < 1) or num_len.max() > _MAX_NUM or den_len.max() > _MAX_DEN or \
            np.any(has_slash & ((den_len < 1) | ((b[slash + 1 - ~has_slash] == 48) & (den_len > 1)))):
        return None
    ints = np.fromstring(joined.replace(b"/", b","), dtype=np.int64, sep=",")  # numerator [, denominator] each
    first = np.arange(n) + np.cumsum(has_slash) - has_slash
    num = np.abs(ints[first]).astype(np.uint64)
    den, pow2 = np.ones(n), np.zeros(n, dtype=bool)
    den_int = np.where(has_slash, ints[np.minimum(first + 1, len(ints) - 1)], 1)
    # 19 digits: exact in int64 unless np.fromstring saturated (it stops at 2^63 - 1, which it then returns)
    is_short = has_slash & ((den_len <= _MAX_NUM) | ((den_len == _MAX_NUM + 1) & (den_int < _INT64_MAX)))
    short = np.flatnonzero(is_short)
    exact_den = den_int[short]
    pow2[short] = (exact_den & (exact_den - 1)) == 0  # no leading zero: exact_den >= 1 here, or the string is 0
    den[short] = exact_den  # int64 -> double: one correct rounding, as float(int(b)); 2^k exactly
    long = np.flatnonzero(has_slash & ~is_short)
    if long.size:
        den[long], pow2[long] = _long_denominators(b, slash[long] + 1, den_len[long])
    other = np.flatnonzero(has_slash & ~pow2 & ~is_short)
    if other.size:  # no power of two (or 2^k with k >= 1000): rounded once, as float(int(b))
        try:
            den[other] = [float(int(joined[slash[i] + 1:ends[i]])) for i in other]
        except OverflowError:
            return None
    if np.any(den[has_slash] == 0):
        return None  # division by zero: _Reader names the number
    exact = bool(np.all(pow2 | ~has_slash) and np.all(num < 2**53))
    a = num.astype(np.float64)  # uint64 -> double: one correct rounding, as float(int(a))
    a = np.where(neg & ~(has_slash & (num == 0)), -a, a)  # float("-0") is -0.0, float(int("-0")) / 1.0 is 0.0
    return a / den, exact


def _long_denominators(b: np.ndarray, start: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(2^k where the digits ``b[start : start + length]`` are those of 2^k with k < 1000, and is-power-of-two) of
    denominators of more than 18 digits: k from the leading 8 digits, then every digit compared with 2^k's."""
    width = 8 * -(-int(length.max()) // 8)
    padded = np.concatenate((np.zeros(width, np.uint8), b))
    den_words = _windows(padded, start + width, length, width)
    lead = _eight_digits(_windows(padded, start + width, np.minimum(length, 8), 8)[:, 0])
    # the magnitude from the leading 8 digits: k within 0.5 if b = 2^k
    k = np.rint(np.log2(lead.astype(np.float64)) + (length - 8) * np.log2(10))
    k = np.clip(k, 0, 1023).astype(np.int64)
    table, count = _pow2_words(width)
    pow2 = (k < 1000) & (count[k] <= width) & np.all(den_words == np.take(table, k, axis=0), axis=1)
    return np.where(pow2, np.ldexp(1.0, k), 1.0), pow2


def _read_numbers(flat: list) -> tuple[np.ndarray, bool]:
    """(doubles, exact) of a flat list of numbers, by the rules of :class:`_Reader`, vectorized for the common
    cases (all JSON numbers; all integer or ``"a/b"`` strings; all decimal strings); other lists, and every list
    with a number that cannot be read, go through :class:`_Reader` number by number."""
    kinds = set(map(type, flat))
    fast = None
    if kinds == {str}:
        fast = _read_strings(",".join([*flat, ""]), len(flat))
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
    if isinstance(data, np.ndarray):  # a float64 array of the binary format (read_npz): exact, finite, of this ndim
        if data.ndim != ndim or data.dtype != np.float64 or not np.all(np.isfinite(data)):
            raise ModelFormatError(f"{name} must be a {ndim}-dimensional array of finite float64")
        if ndim == 2 and data.shape[0] == 0:
            raise ModelFormatError(f"{name} must be {ndim}-dimensional, got shape {data.shape}")
        return Ball(data, np.zeros_like(data))
    if not isinstance(data, list):
        raise ModelFormatError(f"{name} must be a list")
    regular = data and all(type(r) is list for r in data) and len(set(map(len, data))) == 1 and data[0]
    if ndim == 2 and regular:
        try:  # the common case, all strings: joined without a flat list
            fast = _read_strings(",".join([*map(",".join, data), ""]), len(data) * len(data[0]))
        except TypeError:
            fast = None
        mid, exact = fast if fast is not None else _read_numbers(list(chain.from_iterable(data)))
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
        raise ModelFormatError(f"{name}: a parameter is not finite or beyond the double range (|x| >= 2^1024), "
                               "which interval arithmetic cannot hold; use --mode exact")
    if exact:
        return Ball(mid, np.zeros_like(mid))
    return Ball(mid, np.abs(mid) * (3 * U * (1 + 4 * U)) + TINY)  # the factor is exact: no overflow near 2^1024


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
        if not isinstance(vals, list | np.ndarray) or not len(vals):
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
    """The interval view of a model file: JSON, or the binary format of :mod:`constructions.limit_transformer.npz`
    (every weight a float64, so every ball has radius 0), told apart by the file's first bytes."""
    p = require_regular_file(path, "model file", ModelFormatError, missing_ok=True)  # a FIFO would block
    from constructions.limit_transformer.npz import is_npz, read_npz

    if is_npz(p):
        data = read_npz(p)
        try:
            return interval_model_from_dict(data)
        except ModelFormatError as e:
            raise ModelFormatError(f"{p}: {e}") from e
    try:
        data = json.loads(p.read_text())
    except OSError as e:
        raise ModelFormatError(f"cannot read model file {p}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ModelFormatError(f"{p} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from e
    except RecursionError:
        raise ModelFormatError(f"{p} nests its JSON deeper than Python's recursion limit allows") from None
    try:
        return interval_model_from_dict(data)
    except ModelFormatError as e:
        raise ModelFormatError(f"{p}: {e}") from e
