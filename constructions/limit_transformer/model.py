"""The Limit Transformer (Huang et al. Definition 2, eqs. (1)-(4), (6); Izzo et al. section 3.1).

Conventions (see docs/limit_transformer.md):

* Inputs are strings over the alphabet Sigma; the model reads ``$ x_1 ... x_n`` with the start symbol
  ``$`` at position 1, so a string of n symbols is a model input of length |x| = n + 1 (``$`` counts
  in ``log|x|``).  Token id 0 is ``$``; the alphabet's symbols have ids 1..|Sigma| in order.
* ``y_i^(0) = E_{x_i} + p_{i+o}``; ``a_ij = (K y_j) . (Q y_i) + phi(j, i)`` for keys j <= i;
  ``Y_i = y_i + sum_h softmax_p(log|x| * a_i.) V y``; ``y_i' = Y_i + B psi(A Y_i + b)``;
  output ``T(x)_i = U y_i^(L)``.
* Positional encodings are either periodic (one period of vectors, ``p_i = table[(i-1) mod Delta]``)
  or an arbitrary function of the position; phi is either a translation-invariant tau-local table
  ``phi(j, i) = values[i - j]`` for ``0 <= i - j <= tau`` (else 0), or an arbitrary function.
  Periodic and Local (Definition 3) hold exactly when both are tables.
* Every parameter is an exact rational (``fractions.Fraction``); float64 views are derived.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np

from constructions.limit_transformer.errors import (
    InputError,
    NotLocalError,
    NotPeriodicError,
    NotTranslationInvariantError,
    ShapeError,
)
from constructions.limit_transformer.rationals import exact_dot, frac_array, to_float, to_fraction, zeros

BOS = "$"
ACTIVATIONS = ("relu", "heaviside")
PRECISION_MODELS = ("izzo", "huang")


# ----------------------------------------------------------------------------------------- positions
@dataclass(frozen=True, eq=False)
class PeriodicPositions:
    """Periodic positional encodings: ``p_i = table[(i - 1) mod Delta]`` (Definition 3, Periodic)."""

    table: np.ndarray  # Delta x d, Fractions

    def __post_init__(self):
        object.__setattr__(self, "table", frac_array(self.table, 2, "positional table"))
        if self.table.shape[0] < 1:
            raise ShapeError("a periodic positional table needs at least one row (Delta >= 1)")

    @property
    def period(self) -> int:
        return self.table.shape[0]

    def vectors(self, positions: np.ndarray) -> np.ndarray:
        """Exact encodings for 1-based positions (object array, len(positions) x d)."""
        return self.table[(np.asarray(positions) - 1) % self.period]

    @cached_property
    def float_table(self) -> np.ndarray:
        return to_float(self.table)

    def float_vectors(self, positions: np.ndarray) -> np.ndarray:
        return self.float_table[(np.asarray(positions) - 1) % self.period]

    @classmethod
    def from_sequence(cls, vectors, period: int | None = None) -> PeriodicPositions:
        """Detect (or check a declared) period in explicit encodings p_1..p_n.

        With ``period`` given, the table keeps exactly that period; raises :class:`NotPeriodicError` naming
        the first i with p_i != p_{i+Delta}, or when fewer than ``period`` vectors are given; without it, uses the smallest period consistent with all n vectors (n itself if none is smaller).
        """
        arr = frac_array(vectors, 2, "positional encodings")
        n = arr.shape[0]
        if period is not None and period > n:
            raise NotPeriodicError(f"a declared period {period} needs at least {period} encodings (one per "
                                   f"residue), got {n}")
        candidates = [period] if period is not None else range(1, n + 1)
        for delta in candidates:
            if delta < 1:
                raise NotPeriodicError(f"period must be >= 1, got {delta}")
            bad = next((i for i in range(n - delta) if any(arr[i] != arr[i + delta])), None)
            if bad is None:
                return cls(arr[:delta])
            if period is not None:
                raise NotPeriodicError(
                    f"positional encodings are not {delta}-periodic: p_{bad + 1} != p_{bad + 1 + delta}")
        raise AssertionError("unreachable: delta = n always succeeds")  # pragma: no cover


@dataclass(frozen=True, eq=False)
class ArbitraryPositions:
    """Positional encodings given by a function of the 1-based position (not Periodic in general)."""

    fn: Callable[[int], Sequence]
    d: int

    period = None

    def vectors(self, positions: np.ndarray) -> np.ndarray:
        out = frac_array([list(self.fn(int(i))) for i in np.asarray(positions)], 2, "positional encodings")
        if out.shape[1] != self.d:
            raise ShapeError(f"positional function returned width {out.shape[1]}, expected {self.d}")
        return out

    def float_vectors(self, positions: np.ndarray) -> np.ndarray:
        return to_float(self.vectors(positions))


# ----------------------------------------------------------------------------------------------- phi
@dataclass(frozen=True, eq=False)
class LocalPhi:
    """Translation-invariant tau-local phi: ``phi(j, i) = values[i - j]`` for 0 <= i - j <= tau, else 0."""

    values: tuple

    def __post_init__(self):
        vals = tuple(to_fraction(v) for v in self.values)
        if not vals:
            raise ShapeError("a local phi table needs values for offsets 0..tau (at least one value)")
        object.__setattr__(self, "values", vals)

    @property
    def tau(self) -> int:
        return len(self.values) - 1

    def value(self, j: int, i: int) -> Fraction:
        off = i - j
        return self.values[off] if 0 <= off <= self.tau else Fraction(0)

    def matrix(self, n: int) -> np.ndarray:
        """Exact n x n matrix M[i-1, j-1] = phi(j, i) (query i, key j)."""
        m = zeros((n, n))
        for off, v in enumerate(self.values):
            if v != 0:
                for i in range(off, n):
                    m[i, i - off] = v
        return m

    def float_offsets(self) -> np.ndarray:
        return np.array([float(v) for v in self.values])

    @classmethod
    def from_function(cls, fn: Callable[[int, int], object], n: int, tau: int | None = None) -> LocalPhi:
        """Check translation invariance and locality of ``fn(j, i)`` on all 1 <= j <= i <= n.

        Raises :class:`NotTranslationInvariantError` (naming a pair) or :class:`NotLocalError`
        (naming the first nonzero offset beyond ``tau``); without ``tau``, uses the largest nonzero
        offset seen.  Only causal pairs j <= i are ever used by the model, so only they are checked.
        """
        base = [to_fraction(fn(1, 1 + k)) for k in range(n)]
        for i in range(1, n + 1):
            for j in range(1, i + 1):
                v = to_fraction(fn(j, i))
                if v != base[i - j]:
                    raise NotTranslationInvariantError(
                        f"phi({j}, {i}) = {v} but phi(1, {i - j + 1}) = {base[i - j]}: phi must depend on i - j only")
        nonzero = [k for k, v in enumerate(base) if v != 0]
        last = nonzero[-1] if nonzero else 0
        if tau is not None:
            beyond = [k for k in nonzero if k > tau]
            if beyond:
                raise NotLocalError(f"phi is not {tau}-local: phi at offset {beyond[0]} is {base[beyond[0]]} != 0")
            last = tau
        return cls(tuple(base[: last + 1]))


@dataclass(frozen=True, eq=False)
class ArbitraryPhi:
    """phi(j, i) given by a function (not Local in general)."""

    fn: Callable[[int, int], object]

    tau = None

    def value(self, j: int, i: int) -> Fraction:
        return to_fraction(self.fn(j, i))

    def matrix(self, n: int) -> np.ndarray:
        m = zeros((n, n))
        for i in range(1, n + 1):
            for j in range(1, i + 1):
                m[i - 1, j - 1] = self.value(j, i)
        return m


# ------------------------------------------------------------------------------------------- layers
@dataclass(frozen=True, eq=False)
class Head:
    """One attention head: logit ``(K y_j).(Q y_i) + phi(j, i)``, value ``V y_j``."""

    query: np.ndarray  # r x d
    key: np.ndarray  # r x d
    value: np.ndarray  # d x d
    phi: LocalPhi | ArbitraryPhi | None = None

    def __post_init__(self):
        for name in ("query", "key", "value"):
            object.__setattr__(self, name, frac_array(getattr(self, name), 2, f"head {name} matrix"))
        if self.query.shape != self.key.shape:
            raise ShapeError(f"query {self.query.shape} and key {self.key.shape} matrices must have the same shape")
        if self.value.shape[0] != self.value.shape[1]:
            raise ShapeError(f"value matrix must be d x d, got {self.value.shape}")

    @cached_property
    def bilinear(self) -> np.ndarray:
        """K^T Q (d x d, exact): a_ij = y_j^T (K^T Q) y_i."""
        return exact_dot(self.key.T, self.query)

    @cached_property
    def positional_only(self) -> bool:
        """True when the logit is ``phi(j, i)`` alone (K^T Q = 0 and phi Local or absent): such a head is a
        causal average mixed with a tau-window, evaluable in O(n) (C-RASP counting heads are of this kind)."""
        if not (self.phi is None or isinstance(self.phi, LocalPhi)):
            return False
        kc, qc = _support(self.key, 0), _support(self.query, 0)  # K^T Q restricted to the columns K, Q use
        if len(kc) == 0 or len(qc) == 0:
            return True
        return not any(v != 0 for v in self.key[:, kc].T.dot(self.query[:, qc]).flat)


@dataclass(frozen=True, eq=False)
class MLP:
    """One hidden layer ``y + B psi(A y + b)`` with per-unit ReLU or Heaviside (H(z) = [z >= 0])."""

    A: np.ndarray  # k x d
    b: np.ndarray  # k
    B: np.ndarray  # d x k
    activations: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "A", frac_array(self.A, 2, "MLP A"))
        object.__setattr__(self, "b", frac_array(self.b, 1, "MLP b"))
        object.__setattr__(self, "B", frac_array(self.B, 2, "MLP B"))
        k = self.A.shape[0]
        acts = tuple(self.activations) if self.activations else ("relu",) * k
        if isinstance(self.activations, str):
            acts = (self.activations,) * k
        object.__setattr__(self, "activations", acts)
        if self.b.shape != (k,) or self.B.shape[1] != k or len(acts) != k:
            raise ShapeError(f"MLP hidden size mismatch: A {self.A.shape}, b {self.b.shape}, B {self.B.shape}, "
                             f"{len(acts)} activations")
        bad = [a for a in acts if a not in ACTIVATIONS]
        if bad:
            raise ShapeError(f"unknown activation {bad[0]!r}; use one of {ACTIVATIONS}")

    @cached_property
    def heaviside_mask(self) -> np.ndarray:
        return np.array([a == "heaviside" for a in self.activations], dtype=bool)


@dataclass(frozen=True, eq=False)
class Layer:
    heads: tuple = ()
    mlp: MLP | None = None

    def __post_init__(self):
        object.__setattr__(self, "heads", tuple(self.heads))


# -------------------------------------------------------------------------------------------- model
@dataclass(frozen=True, eq=False)
class LimitTransformer:
    """A Limit Transformer with exact rational parameters (Huang et al. Def. 2; Izzo et al. sec. 3.1).

    ``embedding`` has |Sigma| + 1 rows (row 0 is ``$``), ``positions`` is a :class:`PeriodicPositions`,
    an :class:`ArbitraryPositions` or ``None`` (NoPE), ``unembedding`` is m x d.  ``precision`` names
    the finite-precision model of the softmax (see :mod:`constructions.limit_transformer.precision`).
    """

    alphabet: tuple
    embedding: np.ndarray
    layers: tuple
    unembedding: np.ndarray
    positions: PeriodicPositions | ArbitraryPositions | None = None
    precision_bits: int = 8
    precision: str = "izzo"
    name: str = ""
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        alphabet = tuple(self.alphabet)
        object.__setattr__(self, "alphabet", alphabet)
        if len(set(alphabet)) != len(alphabet) or BOS in alphabet or not alphabet:
            raise ShapeError(f"alphabet must be non-empty, without repeats and without '{BOS}': {alphabet}")
        object.__setattr__(self, "embedding", frac_array(self.embedding, 2, "token embedding"))
        object.__setattr__(self, "unembedding", frac_array(self.unembedding, 2, "unembedding"))
        object.__setattr__(self, "layers", tuple(self.layers))
        d = self.embedding.shape[1]
        if self.embedding.shape[0] != len(alphabet) + 1:
            raise ShapeError(f"token embedding needs {len(alphabet) + 1} rows ('$' then the alphabet), "
                             f"got {self.embedding.shape[0]}")
        if self.unembedding.shape[1] != d:
            raise ShapeError(f"unembedding must have {d} columns, got shape {self.unembedding.shape}")
        if isinstance(self.positions, PeriodicPositions) and self.positions.table.shape[1] != d:
            raise ShapeError(f"positional table must have width {d}, got {self.positions.table.shape[1]}")
        if isinstance(self.positions, ArbitraryPositions) and self.positions.d != d:
            raise ShapeError(f"positional function has width {self.positions.d}, model width is {d}")
        if self.precision not in PRECISION_MODELS:
            raise ShapeError(f"unknown precision model {self.precision!r}; use one of {PRECISION_MODELS}")
        if not isinstance(self.precision_bits, int) or self.precision_bits < 1:
            raise ShapeError(f"precision_bits must be a positive integer, got {self.precision_bits!r}")
        for l, layer in enumerate(self.layers, 1):
            if not isinstance(layer, Layer):
                raise ShapeError(f"layer {l} must be a Layer, got {type(layer).__name__}")
            for h, head in enumerate(layer.heads, 1):
                if head.query.shape[1] != d or head.value.shape[0] != d:
                    raise ShapeError(f"layer {l} head {h}: matrices must act on width {d}")
            if layer.mlp is not None and (layer.mlp.A.shape[1] != d or layer.mlp.B.shape[0] != d):
                raise ShapeError(f"layer {l} MLP must act on width {d}")

    # ---- structure
    @property
    def d(self) -> int:
        return self.embedding.shape[1]

    @property
    def depth(self) -> int:
        return len(self.layers)

    @property
    def n_heads(self) -> int:
        return max((len(layer.heads) for layer in self.layers), default=0)

    @property
    def output_dim(self) -> int:
        return self.unembedding.shape[0]

    @property
    def period(self) -> int | None:
        """Delta if the encodings are periodic (1 for NoPE), None otherwise."""
        if self.positions is None:
            return 1
        return self.positions.period

    @property
    def tau(self) -> int | None:
        """Largest locality radius over heads (0 with no phi), None if some phi is not Local."""
        taus = []
        for layer in self.layers:
            for head in layer.heads:
                if head.phi is None:
                    continue
                if head.phi.tau is None:
                    return None
                taus.append(head.phi.tau)
        return max(taus, default=0)

    @property
    def is_periodic_and_local(self) -> bool:
        return self.period is not None and self.tau is not None

    @property
    def is_nope(self) -> bool:
        """No positional information at all: no encodings (or all zero) and no phi (Corollary 18)."""
        no_pos = self.positions is None or (
            isinstance(self.positions, PeriodicPositions) and all(v == 0 for v in self.positions.table.flat))
        no_phi = all(h.phi is None or (isinstance(h.phi, LocalPhi) and not any(h.phi.values))
                     for layer in self.layers for h in layer.heads)
        return no_pos and no_phi

    def require_periodic_and_local(self, what: str) -> tuple[int, int]:
        if self.period is None:
            raise NotPeriodicError(f"{what} needs periodic positional encodings (Periodic); this model's are a function")
        if self.tau is None:
            raise NotLocalError(f"{what} needs translation-invariant local phi (Local); this model has a general phi")
        return self.period, self.tau

    # ---- inputs
    def encode(self, strings) -> np.ndarray:
        """Token ids with ``$`` prepended: a (B, n+1) int array for B equal-length strings.

        ``strings`` is one string/sequence of symbols, a list of them, or an int array of ids that already
        starts with the ``$`` id 0 (returned as is after a range check); symbols must be in the alphabet.
        """
        if isinstance(strings, np.ndarray) and strings.dtype.kind in "iu":
            ids = np.atleast_2d(strings)
            if ids.size and (ids.min() < 0 or ids.max() > len(self.alphabet) or np.any(ids[:, 0] != 0)):
                raise InputError(f"token ids must lie in 0..{len(self.alphabet)} with the '$' id 0 first")
            return ids
        if isinstance(strings, str) or (len(strings) > 0 and not isinstance(strings[0], str | list | tuple)):
            strings = [strings]
        lengths = {len(s) for s in strings}
        if len(lengths) > 1:
            raise InputError(f"a batch must have equal-length strings; got lengths {sorted(lengths)}")
        out = np.zeros((len(strings), (lengths.pop() if lengths else 0) + 1), dtype=np.int64)
        for b, s in enumerate(strings):
            out[b, 1:] = self._symbol_ids(s)
        return out

    @cached_property
    def _char_lut(self) -> np.ndarray | None:
        """Code point -> id table (-1 for unknown) when every symbol is one character, else None."""
        if not all(len(a) == 1 for a in self.alphabet):
            return None
        lut = np.full(max(ord(a) for a in self.alphabet) + 1, -1, dtype=np.int64)
        for k, a in enumerate(self.alphabet, 1):
            lut[ord(a)] = k
        return lut

    def _symbol_ids(self, s) -> np.ndarray:
        lut = self._char_lut
        if isinstance(s, str) and lut is not None:
            codes = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
            ids = lut[np.minimum(codes, len(lut) - 1)]
            bad = np.nonzero((ids < 0) | (codes >= len(lut)))[0]
        else:
            index = {a: k for k, a in enumerate(self.alphabet, 1)}
            ids = np.array([index.get(sym, -1) for sym in s], dtype=np.int64)
            bad = np.nonzero(ids < 0)[0]
        if len(bad):
            raise InputError(f"symbol {s[bad[0]]!r} is not in the alphabet {list(self.alphabet)}")
        return ids

    # ---- float views
    @cached_property
    def float_params(self) -> dict:
        """float64 copies of every parameter for the vectorized path, with the sparsity of V, A and B kept:
        ``{"E", "U", "layers": [([FloatHead, ...], FloatMLP | None), ...]}``."""
        layers = []
        for layer in self.layers:
            heads = [FloatHead.of(h) for h in layer.heads]
            layers.append((heads, None if layer.mlp is None else FloatMLP.of(layer.mlp)))
        return {"E": to_float(self.embedding), "U": to_float(self.unembedding), "layers": layers}


def _support(m: np.ndarray, axis: int) -> np.ndarray:
    """Indices of the rows (axis=1) or columns (axis=0) of ``m`` that hold a nonzero entry."""
    return np.nonzero(np.any(m.astype(bool), axis=axis))[0]


def _supports(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of ``m`` that hold a nonzero entry: :func:`_support` of both axes, each entry of an exact
    (object) matrix tested once."""
    nonzero = m.astype(bool)
    return np.nonzero(np.any(nonzero, axis=1))[0], np.nonzero(np.any(nonzero, axis=0))[0]


@dataclass(frozen=True, eq=False)
class FloatHead:
    """float64 view of a head; ``V`` restricted to its nonzero block ``V[rows][:, cols]`` (``V_sub``)."""

    Q: np.ndarray
    K: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    V_sub: np.ndarray
    phi: np.ndarray | ArbitraryPhi | None
    positional: bool

    @classmethod
    def of(cls, h: Head) -> FloatHead:
        rows, cols = _supports(h.value)  # exact support: only that block is converted
        return cls(to_float(h.query), to_float(h.key), rows, cols, to_float(h.value[np.ix_(rows, cols)]),
                   h.phi.float_offsets() if isinstance(h.phi, LocalPhi) else h.phi, h.positional_only)

    @cached_property
    def V_terms(self) -> tuple | None:
        """``V_sub`` as, per written row, its nonzero terms ``((stream row, coefficient), ...)``, or None
        (:func:`sparse_terms`)."""
        return sparse_terms(self.V_sub, self.cols)


@dataclass(frozen=True, eq=False)
class FloatMLP:
    """float64 view of an MLP: ``A`` restricted to the columns it reads, ``B`` to the rows it writes."""

    A_cols: np.ndarray
    A_sub: np.ndarray
    b: np.ndarray
    B_rows: np.ndarray
    B_sub: np.ndarray
    heaviside: np.ndarray

    @classmethod
    def of(cls, m: MLP) -> FloatMLP:
        cols, rows = _support(m.A, 0), _support(m.B, 1)  # exact support: only those blocks are converted
        return cls(cols, to_float(m.A[:, cols]), to_float(m.b), rows, to_float(m.B[rows]), m.heaviside_mask)

    @cached_property
    def A_terms(self) -> tuple | None:
        """``A`` as, per hidden unit, its nonzero terms ``((stream row, coefficient), ...)``, or None when ``A`` is
        not sparse (:func:`sparse_terms`)."""
        return sparse_terms(self.A_sub, self.A_cols)

    @cached_property
    def B_terms(self) -> tuple | None:
        """``B`` as, per written stream row, its nonzero terms ``((hidden unit, coefficient), ...)``, or None."""
        return sparse_terms(self.B_sub, np.arange(self.B_sub.shape[1]))


_SPARSE_TERMS = 512  # nonzero terms at most for a term-by-term product (one numpy call per term)


def sparse_terms(M: np.ndarray, cols: np.ndarray) -> tuple | None:
    """Rows of ``M`` as their nonzero entries ``((cols[j], M[i, j]), ...)`` when at most ``_SPARSE_TERMS`` entries
    are nonzero and at most half of them or no more than its rows and columns together (compiled C-RASP MLPs: a few
    terms a unit); else None (a dense product is then cheaper)."""
    nz = np.count_nonzero(M)
    if nz > min(max(M.size // 2, sum(M.shape)), _SPARSE_TERMS):
        return None
    return tuple(tuple((int(cols[j]), float(M[i, j])) for j in np.flatnonzero(M[i])) for i in range(M.shape[0]))
