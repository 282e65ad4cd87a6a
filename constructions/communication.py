"""Theorem 12 (Huang et al.; App. B.3) in executable form: the Alice/Bob protocol for Periodic and Local
Limit Transformers, its exact message, and the Corollary 13 fooling-set argument for copying.

Setting.  A word ``w`` with ``|$w| = 2N`` (so ``|w| = 2N - 1``).  Alice holds model positions ``1..N``
(``$ w_1 .. w_{N-1}``), Bob holds ``N+1..2N``.  Both know the model and ``N`` (hence ``n = 2N`` and
``log n``).  Because attention is causal, Alice computes every activation of her own positions.  For
each layer ``l`` and head ``h`` she sends

* for her *far* keys ``j <= N - tau`` (``phi(j, i) = 0`` for every Bob query ``i > N``), grouped by the
  exact key vector ``k = K y_j^(l-1)``: the class key ``k``, the count of positions and the sum of the
  value vectors ``V y_j^(l-1)``;
* for her ``<= tau`` *boundary* keys ``N - tau < j <= N``: the key and value vectors themselves.

For a far key the logit ``k . (Q y_i)`` depends on ``j`` only through ``k`` (the period class of the
paper's proof is inside ``k``: the positional encoding is part of ``y_j``), and under both precision
models (``izzo`` flush, ``huang`` rounding) the softmax term depends only on the logit, so Bob gets the
exact numerator ``sum s(a) V y_j`` and denominator ``sum s(a)`` of every head at every one of his
queries, layer by layer.  :func:`run_protocol` encodes the message as a self-delimiting bit string
(Elias gamma for integers, rationals as sign/numerator/denominator), decodes it on Bob's side,
reconstructs his activations and compares them with the library's exact evaluator
(:func:`constructions.limit_transformer.exact_forward`, used on truncated copies of the model).

Message size.  With ``k`` key classes per head, the message has ``O(L H (k + tau) d)`` rationals.  If
the value vectors at Alice's positions take finitely many values (e.g. every compiled C-RASP model:
values read only Boolean coordinates), each entry of a class sum is an integer ``<= N`` and the
message is ``O(log N)`` bits (:func:`message_size_table`, :func:`fit_log_slope`).  Exact rational
activations can break this (``docs/gaps.md``, :func:`averaging_witness`).

Corollary 13.  :func:`copy_fooling` enumerates Alice's inputs for the copy task ``$ x # y``: Bob's
targets (the next symbols ``x_1 .. x_{N-1}``) determine ``x``, so a correct protocol needs ``2^{N-1}``
distinct messages (``>= N - 1`` bits), whereas the model's protocol uses ``O(log N)`` bits; a collision
``m(x) = m(x')`` with ``x != x'`` is exhibited and the model's outputs on Bob's half are checked
(directly) to coincide, so the model copies one of the two inputs wrongly.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

import numpy as np

from constructions.limit_transformer import LimitTransformer, LocalPhi, NotExactError
from constructions.limit_transformer.precision import flushes, round_bits, rounded_power
from lengthgen_cli import Parser, UsageError, add_json_option, bounded_int, command, progress, usage_errors

__all__ = [
    "ProtocolError", "MessageDecodeError", "AliceMessage", "ProtocolResult", "alice_message", "encode_message",
    "decode_message", "bob_reconstruct", "direct_activations", "run_protocol", "message_size_table",
    "fit_log_slope", "stream_outputs", "copy_fooling", "CopyFooling", "averaging_witness", "distinct_class_sums",
]


class ProtocolError(ValueError):
    """The protocol cannot run: bad split, model outside Periodic-and-Local, or input outside Sigma."""


class MessageDecodeError(ProtocolError):
    """A bit string is not a well-formed Alice message for this model and N."""


# ------------------------------------------------------------------------------------ sparse model
def _num(x):
    x = Fraction(x)
    return int(x) if x.denominator == 1 else x


def _rows(mat: np.ndarray) -> list[list[tuple[int, object]]]:
    return [[(c, _num(v)) for c, v in enumerate(row) if v != 0] for row in mat]


def _dot(row, y) -> object:
    s = 0
    for c, v in row:
        yc = y[c]
        if yc:
            s += v * yc
    return s


@dataclass(frozen=True)
class _HeadSpec:
    Q: list
    K: list
    V: list
    phi: tuple  # offsets 0..tau values (possibly empty)

    def phi_at(self, off: int):
        return self.phi[off] if 0 <= off < len(self.phi) else 0


@dataclass(frozen=True)
class _Sparse:
    d: int
    tau: int
    E: list
    pos: list | None
    layers: list  # [(heads: [_HeadSpec], mlp: (A rows, b, Bcols by unit, heaviside flags) | None)]
    U: list
    p: int
    precision: str


def _sparse(model: LimitTransformer) -> _Sparse:
    try:
        _, tau = model.require_periodic_and_local("the Theorem 12 protocol")
    except ValueError as e:  # NotPeriodicError / NotLocalError of the core
        raise ProtocolError(str(e)) from e
    layers = []
    for layer in model.layers:
        heads = []
        for h in layer.heads:
            phi = tuple(_num(v) for v in h.phi.values) if isinstance(h.phi, LocalPhi) else ()
            heads.append(_HeadSpec(_rows(h.query), _rows(h.key), _rows(h.value), phi))
        mlp = None
        if layer.mlp is not None:
            m = layer.mlp
            cols = [[(r, _num(m.B[r, u])) for r in range(m.B.shape[0]) if m.B[r, u] != 0] for u in range(m.B.shape[1])]
            mlp = (_rows(m.A), [_num(v) for v in m.b], cols, list(m.heaviside_mask))
        layers.append((heads, mlp))
    pos = None
    if model.positions is not None:
        pos = [[_num(v) for v in row] for row in model.positions.table]
    return _Sparse(model.d, tau, [[_num(v) for v in row] for row in model.embedding], pos, layers,
                   _rows(model.unembedding), model.precision_bits, model.precision)


def _embed(S: _Sparse, tok: int, t: int) -> list:
    y = list(S.E[tok])
    if S.pos is not None:
        pr = S.pos[(t - 1) % len(S.pos)]
        y = [a + b for a, b in zip(y, pr, strict=True)]
    return y


def _term(a, top, n: int, S: _Sparse, where: str):
    """Softmax term of logit ``a`` (unnormalised), exactly as the precision model defines it."""
    if S.precision == "izzo":
        if a == top:
            return 1
        if flushes(Fraction(top - a), n, S.p):
            return 0
        raise NotExactError(f"{where}: logit gap {top - a} survives the 2^-{S.p} flush at n={n} (not hardmax)")
    return rounded_power(n, round_bits(Fraction(a), S.p), S.p)


def _mlp(S_mlp, Y: list) -> list:
    A, b, cols, heav = S_mlp
    out = list(Y)
    for u, row in enumerate(A):
        z = _dot(row, Y) + b[u]
        act = (1 if z >= 0 else 0) if heav[u] else (z if z > 0 else 0)
        if act:
            for r, v in cols[u]:
                out[r] = out[r] + v * act
    return out


def _add_into(acc: list, vec: list, scale=1):
    for c, v in enumerate(vec):
        if v:
            acc[c] = acc[c] + scale * v


def _kv(head: _HeadSpec, y: list, d: int) -> tuple[tuple, list]:
    return tuple(_dot(r, y) for r in head.K), [_dot(r, y) for r in head.V]


def _stream_layer(S: _Sparse, l: int, prev: dict, kv_given: dict, far: list, start: int, stop: int, n: int) -> dict:
    """Activations y^(l) at positions start..stop from y^(l-1) (``prev``: index -> vector).

    ``kv_given[h]``: index -> (key, value) for keys whose y^(l-1) is not held (Alice's boundary).
    ``far[h]``: key -> [count, value sum] over all keys j <= start - 1 - tau (mutated: keys move in as
    the query advances).  Every query i sees far classes (phi = 0) and near keys j in [i - tau, i].
    """
    heads, mlp = S.layers[l - 1]
    tau, d = S.tau, S.d
    kv_cache = [dict(kv_given.get(h, {})) for h in range(len(heads))]

    def kv(h, j):
        c = kv_cache[h]
        if j not in c:
            c[j] = _kv(heads[h], prev[j], d)
        return c[j]

    out = {}
    for i in range(start, stop + 1):
        y = prev[i]
        Y = list(y)
        for h, head in enumerate(heads):
            agg = far[h]
            jn = i - tau - 1  # moves from near to far before query i
            if jn >= max(1, start - tau):
                k, v = kv(h, jn)
                cls = agg.setdefault(k, [0, [0] * d])
                cls[0] += 1
                _add_into(cls[1], v)
            q = [_dot(r, y) for r in head.Q]
            near = [(j, *kv(h, j)) for j in range(max(1, i - tau), i + 1)]
            logits_far = [(sum(a * b for a, b in zip(k, q, strict=True)), cnt, vs) for k, (cnt, vs) in agg.items()]
            logits_near = [(sum(a * b for a, b in zip(k, q, strict=True)) + head.phi_at(i - j), v)
                           for j, k, v in near]
            top = max([a for a, _, _ in logits_far] + [a for a, _ in logits_near])
            num = [0] * d
            den = 0
            where = f"layer {l} head {h + 1} query {i}"
            for a, cnt, vs in logits_far:
                s = _term(a, top, n, S, where)
                if s:
                    den += s * cnt
                    _add_into(num, vs, s)
            for a, v in logits_near:
                s = _term(a, top, n, S, where)
                if s:
                    den += s
                    _add_into(num, v, s)
            if den:
                for c in range(d):
                    if num[c]:
                        Y[c] = Y[c] + Fraction(num[c]) / den
        out[i] = _mlp(mlp, Y) if mlp is not None else Y
    return out


# ------------------------------------------------------------------------------------------ message
@dataclass(frozen=True)
class AliceMessage:
    """Per layer, per head: ``classes`` ((key, count, value sum), sorted by key) and ``boundary`` ((key,
    value) for Alice's positions N - tau + 1 .. N, in order)."""

    N: int
    layers: tuple  # tuple over layers of tuple over heads of (classes, boundary)

    @property
    def n_classes(self) -> int:
        return sum(len(c) for layer in self.layers for c, _ in layer)


def _check_split(model: LimitTransformer, word: str) -> tuple[int, np.ndarray]:
    if (len(word) + 1) % 2:
        raise ProtocolError(f"the protocol splits $w into two halves: |$w| = {len(word) + 1} must be even")
    N = (len(word) + 1) // 2
    if N < 1:
        raise ProtocolError("need N >= 1")
    try:
        ids = model.encode(word)[0]
    except ValueError as e:
        raise ProtocolError(str(e)) from e
    return N, ids


def _layer_message(S: _Sparse, head: _HeadSpec, prev: dict, N: int) -> tuple:
    """(classes, boundary) of one head from Alice's y^(l-1) at positions 1..N."""
    tau = S.tau
    classes: dict = {}
    for j in range(1, N - tau + 1):
        k, v = _kv(head, prev[j], S.d)
        cls = classes.setdefault(k, [0, [0] * S.d])
        cls[0] += 1
        _add_into(cls[1], v)
    boundary = tuple((tuple(k), tuple(v)) for k, v in
                     (_kv(head, prev[j], S.d) for j in range(max(1, N - tau + 1), N + 1)))
    cl = tuple(sorted(((k, c, tuple(vs)) for k, (c, vs) in classes.items()), key=lambda x: repr(x[0])))
    return cl, boundary


def _activations(S: _Sparse, ids: Sequence[int], n: int, message_at: int | None = None):
    """Exact y^(0..L) at positions 1..len(ids) of an input of total length ``n`` (causal: a prefix suffices).

    With ``message_at = N`` also returns Alice's message for the split after position N.
    """
    m = len(ids)
    prev = {t: _embed(S, int(ids[t - 1]), t) for t in range(1, m + 1)}
    acts = [prev]
    layers_msg = []
    for l in range(1, len(S.layers) + 1):
        heads, _ = S.layers[l - 1]
        if message_at is not None:
            layers_msg.append(tuple(_layer_message(S, head, prev, message_at) for head in heads))
        prev = _stream_layer(S, l, prev, {}, [{} for _ in heads], 1, m, n)
        acts.append(prev)
    msg = AliceMessage(message_at, tuple(layers_msg)) if message_at is not None else None
    return acts, msg


def _alice_side(S: _Sparse, ids_alice: Sequence[int], N: int) -> AliceMessage:
    """Alice's message, computed from her N tokens only (n = 2N is known to both)."""
    return _activations(S, ids_alice[:N], 2 * N, message_at=N)[1]


def stream_outputs(model: LimitTransformer, word: str) -> list:
    """Exact outputs ``U y_t^(L)`` at every position of ``$word``, by the protocol's streaming computation
    (what Alice does for her half): per head, far keys aggregated by key class, so O(n (classes + tau))
    per head instead of O(n^2).  Cross-checked against the library's ``exact_forward`` in the tests."""
    S = _sparse(model)
    ids = model.encode(word)[0]
    acts, _ = _activations(S, ids, len(ids))
    return [[_dot(r, acts[-1][t]) for r in S.U] for t in range(1, len(ids) + 1)]


def alice_message(model: LimitTransformer, word: str) -> AliceMessage:
    """Alice's message for ``$word`` (``|$word| = 2N``), computed from her half only."""
    N, ids = _check_split(model, word)
    S = _sparse(model)
    return _alice_side(S, ids[:N], N)


# Elias-gamma bit coding -----------------------------------------------------------------------------
def _gamma(x: int) -> str:
    if x < 1:
        raise ValueError("gamma code needs x >= 1")
    b = bin(x)[2:]
    return "0" * (len(b) - 1) + b


def _rat(x) -> str:
    x = Fraction(x)
    return ("1" if x < 0 else "0") + _gamma(abs(x.numerator) + 1) + _gamma(x.denominator)


class _Reader:
    def __init__(self, bits: str):
        self.bits, self.pos = bits, 0

    def gamma(self) -> int:
        z = 0
        while self.pos < len(self.bits) and self.bits[self.pos] == "0":
            z += 1
            self.pos += 1
        if self.pos + z + 1 > len(self.bits):
            raise MessageDecodeError(f"message truncated at bit {self.pos}")
        v = int(self.bits[self.pos: self.pos + z + 1], 2)
        self.pos += z + 1
        return v

    def rat(self):
        if self.pos >= len(self.bits):
            raise MessageDecodeError(f"message truncated at bit {self.pos}")
        neg = self.bits[self.pos] == "1"
        self.pos += 1
        num, den = self.gamma() - 1, self.gamma()
        return _num(Fraction(-num if neg else num, den))


def encode_message(msg: AliceMessage) -> str:
    """Self-delimiting bit string: per layer/head, #classes, then (key, count, value sum) per class, then
    the boundary (key, value) vectors (their number is fixed by N and tau; dimensions by the model)."""
    out = []
    for layer in msg.layers:
        for classes, boundary in layer:
            out.append(_gamma(len(classes) + 1))
            for k, c, vs in classes:
                out += [_rat(x) for x in k]
                out.append(_gamma(c))
                out += [_rat(x) for x in vs]
            for k, v in boundary:
                out += [_rat(x) for x in k] + [_rat(x) for x in v]
    return "".join(out)


def decode_message(model: LimitTransformer, N: int, bits: str) -> AliceMessage:
    """Inverse of :func:`encode_message` given the model and N (raises :class:`MessageDecodeError`)."""
    S = _sparse(model)
    r = _Reader(bits)
    nb = len(range(max(1, N - S.tau + 1), N + 1))
    layers = []
    for heads, _ in S.layers:
        hs = []
        for head in heads:
            ncls = r.gamma() - 1
            classes = []
            for _ in range(ncls):
                k = tuple(r.rat() for _ in head.K)
                c = r.gamma()
                vs = tuple(r.rat() for _ in range(S.d))
                classes.append((k, c, vs))
            boundary = tuple((tuple(r.rat() for _ in head.K), tuple(r.rat() for _ in range(S.d))) for _ in range(nb))
            hs.append((tuple(classes), boundary))
        layers.append(tuple(hs))
    if r.pos != len(bits):
        raise MessageDecodeError(f"{len(bits) - r.pos} trailing bits after the message")
    return AliceMessage(N, tuple(layers))


def bob_reconstruct(model: LimitTransformer, msg: AliceMessage, bob_ids: Sequence[int]) -> list[dict]:
    """Bob's activations ``y^(l)`` (l = 0..L) at positions N+1..2N from the message and his tokens."""
    S = _sparse(model)
    N = msg.N
    if len(bob_ids) != N:
        raise ProtocolError(f"Bob holds N = {N} positions, got {len(bob_ids)} tokens")
    n = 2 * N
    tau = S.tau
    prev = {t: _embed(S, int(bob_ids[t - N - 1]), t) for t in range(N + 1, 2 * N + 1)}
    acts = [prev]
    for l in range(1, len(S.layers) + 1):
        heads, _ = S.layers[l - 1]
        layer_msg = msg.layers[l - 1]
        far, given = [], {}
        bidx = list(range(max(1, N - tau + 1), N + 1))
        for h, (classes, boundary) in enumerate(layer_msg):
            far.append({k: [c, list(vs)] for k, c, vs in classes})
            given[h] = {j: (k, list(v)) for j, (k, v) in zip(bidx, boundary, strict=True)}
        prev = _stream_layer(S, l, prev, given, far, N + 1, 2 * N, n)
        acts.append(prev)
    return acts


def direct_activations(model: LimitTransformer, word: str) -> list[np.ndarray]:
    """``y^(l)`` for l = 0..L at every position, by the library's exact evaluator on truncated models."""
    from constructions.limit_transformer import exact_forward

    eye = np.zeros((model.d, model.d), dtype=object)
    eye.fill(Fraction(0))
    for c in range(model.d):
        eye[c, c] = Fraction(1)
    out = []
    for l in range(model.depth + 1):
        sub = LimitTransformer(model.alphabet, model.embedding, model.layers[:l], eye, model.positions,
                               model.precision_bits, model.precision)
        out.append(exact_forward(sub, word))
    return out


@dataclass(frozen=True)
class ProtocolResult:
    N: int
    bits: int
    n_classes: int
    equal: bool
    outputs: list  # Bob's outputs U y_t^(L), t = N+1..2N (exact)
    mismatch: str = ""


def run_protocol(model: LimitTransformer, word: str, *, check: bool = True, tamper=None) -> ProtocolResult:
    """Run Alice -> bits -> Bob on ``$word`` and (``check``) compare every reconstructed activation with
    :func:`direct_activations`.  ``tamper(bits) -> bits`` (tests) corrupts the message in transit."""
    N, ids = _check_split(model, word)
    S = _sparse(model)
    msg = _alice_side(S, ids[:N], N)
    bits = encode_message(msg)
    if tamper is not None:
        bits = tamper(bits)
    received = decode_message(model, N, bits)
    acts = bob_reconstruct(model, received, ids[N:])
    outputs = [[_dot(r, acts[-1][t]) for r in S.U] for t in range(N + 1, 2 * N + 1)]
    equal, why = True, ""
    if check:
        direct = direct_activations(model, word)
        for l, (mine, ref) in enumerate(zip(acts, direct, strict=True)):
            for t in range(N + 1, 2 * N + 1):
                a, b = mine[t], list(ref[t - 1])
                if any(Fraction(x) != Fraction(y) for x, y in zip(a, b, strict=True)):
                    equal, why = False, f"layer {l} position {t}: Bob {a} != direct {b}"
                    break
            if not equal:
                break
    return ProtocolResult(N, len(bits), msg.n_classes, equal, outputs, why)


# --------------------------------------------------------------------------------- size vs N, fit
def message_size_table(model: LimitTransformer, Ns: Sequence[int], words) -> list[dict]:
    """Message bits for each N: ``words(N)`` yields the words (``|$w| = 2N``) to try; reports the max.

    Only Alice's side is computed (Bob's reconstruction is checked separately by :func:`run_protocol`).
    """
    S = _sparse(model)
    rows = []
    for N in Ns:
        best = None
        for w in words(N):
            _, ids = _check_split(model, w)
            msg = _alice_side(S, ids[:N], N)
            bits = len(encode_message(msg))
            if best is None or bits > best[0]:
                best = (bits, msg.n_classes)
        rows.append({"N": N, "log2N": math.log2(N), "bits": best[0], "classes": best[1]})
    return rows


def fit_log_slope(rows: list[dict]) -> dict:
    """Least-squares fits ``bits ~ a + b log2 N`` and ``bits ~ a' + b' N``; returns slopes and R^2."""
    x = np.array([r["log2N"] for r in rows])
    N = np.array([r["N"] for r in rows], dtype=float)
    y = np.array([r["bits"] for r in rows], dtype=float)

    def fit(u):
        A = np.vstack([np.ones_like(u), u]).T
        coef, *_ = np.linalg.lstsq(A, y, rcond=None)
        pred = A @ coef
        ss = float(((y - y.mean()) ** 2).sum())
        r2 = 1.0 - float(((y - pred) ** 2).sum()) / ss if ss else 1.0
        return float(coef[1]), float(coef[0]), r2

    b, a, r2 = fit(x)
    bl, al, r2l = fit(N)
    return {"slope_per_log2N": b, "intercept": a, "r2_log": r2, "slope_per_N": bl, "r2_linear": r2l}


# ------------------------------------------------------------------------------------ Corollary 13
@dataclass(frozen=True)
class CopyFooling:
    N: int
    needed: int  # distinct messages a correct protocol needs (2^(N-1))
    distinct: int  # distinct messages of the model's protocol
    max_bits: int
    collision: tuple | None  # (x, x') with equal messages
    outputs_equal: bool | None  # model's outputs on Bob's half coincide for the collision (direct check)


def copy_fooling(model: LimitTransformer, N: int, y: str | None = None, sep: str = "#",
                 symbols: str | None = None) -> CopyFooling:
    """Corollary 13 by a fooling set.  Inputs ``$ x sep y`` with ``|x| = N - 1`` over ``symbols`` (default:
    the alphabet without ``sep``), ``|y| = N - 1`` fixed (default ``x``-independent ``symbols[0]^(N-1)``).

    The copy target at Bob's positions is ``x_1 .. x_{N-1}`` (then end), a function of ``x`` alone, so any
    correct protocol needs one message per ``x``: ``2^(N-1)`` for two symbols.  Counts the model's distinct
    messages and, for a collision, checks directly that its outputs on Bob's half are identical.
    """
    from constructions.limit_transformer import exact_forward

    syms = symbols if symbols is not None else "".join(a for a in model.alphabet if a != sep)
    if sep not in model.alphabet or len(syms) < 2:
        raise ProtocolError(f"copy_fooling needs the separator {sep!r} and two symbols in the alphabet")
    y = y if y is not None else syms[0] * (N - 1)
    if len(y) != N - 1:
        raise ProtocolError(f"Bob's copy prefix y must have length N - 1 = {N - 1}")
    S = _sparse(model)
    seen: dict[str, str] = {}
    collision = None
    max_bits = 0
    for tup in product(syms, repeat=N - 1):
        x = "".join(tup)
        ids = model.encode(x + sep + y)[0]
        bits = encode_message(_alice_side(S, ids[:N], N))
        max_bits = max(max_bits, len(bits))
        if bits in seen and collision is None:
            collision = (seen[bits], x)
        seen.setdefault(bits, x)
    same = None
    if collision is not None:
        o1 = exact_forward(model, collision[0] + sep + y)[N:]
        o2 = exact_forward(model, collision[1] + sep + y)[N:]
        same = bool(np.all(o1 == o2))
    return CopyFooling(N, len(syms) ** (N - 1), len(seen), max_bits, collision, same)


# ------------------------------------------------------------------------- exact-activation witness
def averaging_witness() -> LimitTransformer:
    """Two-layer NoPE model over {a, b}: layer 1 averages Q_a (c1 = #a/t), layer 2 averages c1.

    Periodic (NoPE) and Local (no phi), p = 1 bit; its layer-2 activations at Bob's positions depend on
    Alice's ``sum_{j <= N} c1_j``, whose exact values separate (almost) all of Alice's inputs.
    """
    from constructions.limit_transformer import Head, Layer

    d = 4  # sos, Q_a, c1, c2
    F0, F1 = Fraction(0), Fraction(1)
    E = [[F1, F0, F0, F0], [F0, F1, F0, F0], [F0, F0, F0, F0]]
    zero = [[F0] * d]

    def V(src, dst):
        m = [[F0] * d for _ in range(d)]
        m[dst][src] = F1
        return m

    layers = (Layer((Head(zero, zero, V(1, 2)),)), Layer((Head(zero, zero, V(2, 3)),)))
    U = [[F0, F0, F0, F1], [F0, F0, F0, F0]]
    return LimitTransformer(("a", "b"), E, layers, U, None, precision_bits=1, precision="izzo",
                            name="averaging-witness")


def distinct_class_sums(model: LimitTransformer, N: int, layer: int = 2, head: int = 1) -> int:
    """Number of distinct (class key, value-sum) messages of one head over all Alice inputs of length N."""
    S = _sparse(model)
    seen = set()
    for tup in product(range(1, len(model.alphabet) + 1), repeat=N - 1):
        msg = _alice_side(S, [0, *tup], N)
        seen.add(msg.layers[layer - 1][head - 1])
    return len(seen)


# ------------------------------------------------------------------------------------------- CLI
def _demo_models() -> dict:
    from constructions.crasp.ast import Q, count, eq, exists, phi, prev, program
    from constructions.crasp.compiler import compile_program

    Ca, Cb = count(Q("a")), count(Q("b"))
    progs = {
        "majority": program("ab", [("M", Cb <= Ca)], name="majority"),
        "dyck1": program("ab", [("D", ~exists(~(Cb <= Ca)) & eq(Ca, Cb))], name="dyck1"),
        "local": program("ab", [("L", count(Q("a") & prev(Q("a")) & prev(Q("b"), 2)) <= 1)], name="local"),
        "periodic": program("ab", [("L", (count(Q("a") & phi(3, {1})) <= Cb) & phi(2, {0}))], name="periodic"),
    }
    out = {k: compile_program(p) for k, p in progs.items()}
    out["witness"] = averaging_witness()
    return out


# Sizes beyond these are refused before any work: the table's largest N is 2^MAX_LOG2_N positions per party (the
# bound the tool always had); the Bob-side check runs the exact evaluator once per N <= --check-upto; the fooling
# set enumerates all 2^(N-1) Alice inputs of each N.
MAX_LOG2_N = 20
MAX_CHECK_N = 12
MAX_FOOLING_N = 14
DEMO_MODELS = ("majority", "dyck1", "local", "periodic", "witness")


def _limit(name: str) -> str:
    return f"constructions.communication.{name} = {globals()[name]}"


def build_parser() -> Parser:
    ap = Parser(module="constructions.communication",
                description="Theorem 12 protocol: message size vs N; Corollary 13 fooling set.")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="{table,fooling}", help="what to compute")
    log2n = bounded_int(1, MAX_LOG2_N, _limit("MAX_LOG2_N"))
    t = sub.add_parser("table", help="message bits for N = 2^lo .. 2^hi and the fitted slope against log2 N")
    t.add_argument("--model", default="dyck1", choices=DEMO_MODELS, help="the compiled demo model (default dyck1)")
    t.add_argument("--lo", type=log2n, default=4, help="smallest N is 2^lo (default 4)")
    t.add_argument("--hi", type=log2n, default=12, help="largest N is 2^hi (default 12)")
    t.add_argument("--check-upto", type=bounded_int(0, MAX_CHECK_N, _limit("MAX_CHECK_N")), default=4,
                   help="also verify Bob's reconstruction == the direct evaluation for N <= this (default 4)")
    add_json_option(t)
    f = sub.add_parser("fooling", help="Corollary 13: distinct Alice messages for the copy task vs 2^(N-1)")
    f.add_argument("--max-n", type=bounded_int(2, MAX_FOOLING_N, _limit("MAX_FOOLING_N")), default=8,
                   help="enumerate N = 2 .. this (default 8)")
    add_json_option(f, "one JSON list")
    return ap


@command
def main(argv: Sequence[str] | None = None) -> int:
    """``python -m constructions.communication table|fooling ...`` (usage errors exit 2, one line)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.cmd == "fooling":
        return _fooling(args)
    with usage_errors(ap):
        if args.lo > args.hi:
            raise UsageError(f"--lo {args.lo} exceeds --hi {args.hi}")
    return _table(args, ap.error_prefix)


def _table(args, prog: str) -> int:
    m = _demo_models()[args.model]
    rng = random.Random(0)

    def words(N):
        yield m.alphabet[0] * (2 * N - 1)
        yield "".join(rng.choice(m.alphabet) for _ in range(2 * N - 1))

    for N in range(1, args.check_upto + 1):
        res = run_protocol(m, "".join(rng.choice(m.alphabet) for _ in range(2 * N - 1)))
        if not res.equal:
            print(f"{prog}: Bob's reconstruction differs at N={N}: {res.mismatch}", file=sys.stderr)
            return 1
    t0 = time.time()
    rows = []
    for k in progress(range(args.lo, args.hi + 1), desc=f"{args.model}: N = 2^k", unit="N"):
        t1 = time.time()
        row = message_size_table(m, [2**k], words)[0]
        row["seconds"] = round(time.time() - t1, 2)
        rows.append(row)
        if not args.json:
            print(f"N = 2^{k:<2d} = {row['N']:>7d}  bits = {row['bits']:>6d}  classes = {row['classes']}  "
                  f"({row['seconds']} s)", flush=True)
    fit = fit_log_slope(rows)
    if args.json:
        print(json.dumps({"model": args.model, "rows": rows, "fit": fit, "seconds": round(time.time() - t0, 1)}))
    else:
        print(f"fit: bits = {fit['intercept']:.1f} + {fit['slope_per_log2N']:.2f} log2 N  (R^2 {fit['r2_log']:.4f});"
              f"  linear fit slope {fit['slope_per_N']:.5f} bits/position (R^2 {fit['r2_linear']:.4f})")
    return 0


def _fooling(args) -> int:
    from constructions.crasp.ast import Q, count, exists, prev, program
    from constructions.crasp.compiler import compile_program

    model = compile_program(program("ab#", [("L", exists(Q("#") & prev(Q("a"))) | (count(Q("a")) <= count(Q("b"))))]))
    out = []
    for N in progress(range(2, args.max_n + 1), desc="copy fooling set: N", unit="N"):
        r = copy_fooling(model, N)
        out.append({"N": N, "needed": r.needed, "distinct": r.distinct, "max_bits": r.max_bits,
                    "collision": r.collision, "outputs_equal": r.outputs_equal})
        if not args.json:
            print(f"N = {N:2d}: messages needed 2^(N-1) = {r.needed:5d}, model's distinct messages = {r.distinct:3d}, "
                  f"collision {r.collision} (outputs equal: {r.outputs_equal})", flush=True)
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
