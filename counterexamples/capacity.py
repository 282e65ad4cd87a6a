"""High capacity breaks length generalization; finite classes restore it (Ahuja & Mansouri, sec. 4, 5.1, App. B.1).

Section 4's "High capacity" paragraphs (deep sets 4.1, transformers 4.2, SSMs 4.3, RNNs 4.4) argue that
with unconstrained parts the class contains ``h = f + c * [t > T]``, a minimizer of the risk (1) on
lengths <= T that is off by c at every longer length.  This module builds that h *inside each
architecture* (the networks live in :mod:`constructions.realizing`) as an executable model with exact rational parameters (ReLU MLPs; ``Fraction``
arithmetic), from any given f of the same architecture:

* deep sets ``rho(sum_j phi(x_j))``: phi gets a constant-1 output (the sum counts t), rho a ReLU ramp;
* transformers ``rho(pool_j psi(x_i, x_j))`` with the paper's non-softmax attention: with **sum** pooling
  (the released code) the same trick works; with the paper's **mean** pooling (1/i) it cannot (constant
  sequences give the same pooled vector at every length; :func:`mean_pool_obstruction`), but the paper's
  relative-position variant ``psi_{i-j}`` can (a ``[i = j]`` feature averages to 1/i);
* linear SSMs ``h_t = Lambda h_{t-1} + B x_t``: a counter state with eigenvalue 1 needs a constant input
  coordinate (without one, the all-zero input keeps every state 0, so no SSM realizes the witness);
* RNNs ``h_t = sigma(Lambda h_{t-1} + B x_t)``: with ReLU the counter needs a constant input coordinate;
  with the hard sigmoid (exact) or the sigmoid (certified by interval arithmetic), ``sigma(0) = 1/2`` drives
  a strictly increasing counter with no input at all.

:func:`check_witness` verifies ``h - f = c * [t > T]`` exactly on given sequences (a c = 0 "witness" is
rejected), :func:`exact_risk` computes the per-length risk exactly over a finite token distribution, and
:func:`finite_class_threshold` computes Theorem 10's threshold and checks Lemma 11 on the argmin chain.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from constructions.realizing import (
    RNN,
    AttentionTransformer,
    DeepSet,
    LinearSSM,
    RealizingError,
    SequenceModel,
)
from constructions.realizing.exact import hard_sigmoid, relu, to_fraction, to_vector
from constructions.realizing.mlp import MLP, mlp_append_constant, mlp_pass_input, mlp_plus_ramp


class CapacityError(RealizingError):
    """A construction's hypothesis fails (no constant input coordinate, bad T or c, a class it cannot reach)."""


# ------------------------------------------------------------------------------------ the witnesses
def _check_tc(T: int, c) -> Fraction:
    if not isinstance(T, int) or T < 1:
        raise CapacityError(f"T must be a positive integer, got {T!r}")
    return to_fraction(c)


def deep_set_witness(f: DeepSet, T: int, c) -> DeepSet:
    """h = f + c [t > T] as a deep set: phi' = (phi, 1) so the sum carries t; rho' adds c * ramp(t; T, T+1)."""
    c = _check_tc(T, c)
    return DeepSet(mlp_append_constant(f.phi), mlp_plus_ramp(f.rho, c, T, T + 1), name=f"{f.name} + {c}[t>{T}]")


def transformer_witness(f: AttentionTransformer, T: int, c) -> AttentionTransformer:
    """h = f + c [i > T] in the same attention class.

    * sum pooling: psi' = (psi, 1) sums to i; rho' ramps from T to T + 1.
    * mean pooling with relative positions: psi' = (psi, [i = j]) averages to 1/i; rho' ramps from 1/T
      to 1/(T+1).  The result reads ``[i = j]``, so f must be relative too (f may ignore the feature).
    * mean pooling without relative positions: impossible (:func:`mean_pool_obstruction`); raises.
    """
    c = _check_tc(T, c)
    name = f"{f.name} + {c}[t>{T}]"
    if f.pooling == "sum":
        psi = mlp_append_constant(f.psi)
        return AttentionTransformer(psi, mlp_plus_ramp(f.rho, c, T, T + 1), "sum", f.relative, name)
    if not f.relative:
        raise CapacityError("with mean pooling and no positional information, f + c[t > T] is not in the class: "
                            "a constant sequence gives the same pooled vector at every length "
                            "(see mean_pool_obstruction); use sum pooling or the relative-position variant")
    psi = mlp_pass_input(f.psi, f.psi.in_dim - 1)
    return AttentionTransformer(psi, mlp_plus_ramp(f.rho, c, Fraction(1, T), Fraction(1, T + 1)), "mean", True, name)


def mean_pool_obstruction(model: AttentionTransformer, x, lengths: Sequence[int]) -> bool:
    """True iff the pooled vector of the constant sequence x, x, ..., x is the same at every given length.

    For mean pooling without positional features this always holds ((1/i) * i * psi(x, x) = psi(x, x)), so
    every member outputs the same label at all lengths on constant sequences, while f + c[t > T] would
    differ by c between t = T and t = T + 1: the witness is not in the class.
    """
    pooled = model.pooled([x] * max(lengths))
    vals = {pooled[t - 1] for t in lengths}
    return len(vals) == 1


def ssm_witness(f: LinearSSM, T: int, c, const_index: int | None) -> LinearSSM:
    """h = f + c [t > T] as a linear SSM: a counter state (eigenvalue 1) fed by a constant input coordinate.

    Raises :class:`CapacityError` when ``const_index`` is None: without a constant coordinate the state of
    the all-zero input is 0 at every t, so every SSM's label on 0^t is rho(0) for all t.
    """
    c = _check_tc(T, c)
    if const_index is None:
        raise CapacityError("an SSM (no bias) realizes f + c[t > T] only if the input has a constant coordinate: "
                            "on the all-zero input every state is 0 at every t, so h(0^T) = h(0^(T+1))")
    k, n = len(f.Lam), len(f.B[0])
    if not 0 <= const_index < n:
        raise CapacityError(f"const_index {const_index} out of range for inputs of dimension {n}")
    lam = [tuple(row) + (Fraction(0),) for row in f.Lam] + [(Fraction(0),) * k + (Fraction(1),)]
    b = [tuple(row) for row in f.B] + [tuple(Fraction(int(j == const_index)) for j in range(n))]
    return LinearSSM(tuple(lam), tuple(b), mlp_plus_ramp(f.rho, c, T, T + 1), name=f"{f.name} + {c}[t>{T}]")


def rnn_counter(act: str, T: int, a=1) -> tuple:
    """The counter values s_1..s_{T+1} of ``s_t = act(a s_{t-1} [+ 1])`` (exact for relu / hard_sigmoid)."""
    s, out = Fraction(0), []
    for _ in range(T + 1):
        s = relu(s + 1) if act == "relu" else hard_sigmoid(to_fraction(a) * s)
        out.append(s)
    return out


def _sigmoid_counter_bounds(T: int, a) -> tuple[Fraction, Fraction]:
    """Rational lo, hi with s_T < lo < hi < s_{T+1} for the sigmoid counter (certified by intervals)."""
    from mpmath import iv, mpf

    iv.dps = 60
    s, vals = iv.mpf(0), []
    for _ in range(T + 1):
        s = 1 / (1 + iv.exp(-(iv.mpf(to_fraction(a).numerator) / to_fraction(a).denominator) * s))
        vals.append(s)
    top_T, bot_T1 = vals[T - 1].b, vals[T].a
    if not top_T < bot_T1:
        raise CapacityError(f"sigmoid counter not separated at T={T} (a={a}); use a > 0")
    gap = bot_T1 - top_T
    lo = Fraction(str(mpf(top_T + gap / 3)))
    hi = Fraction(str(mpf(top_T + 2 * gap / 3)))
    return lo, hi


def rnn_witness(f: RNN, T: int, c, const_index: int | None = None, a=1) -> RNN:
    """h = f + c [t > T] as an RNN with the same activation: f's state plus one counter state.

    * relu: the counter ``s_t = relu(s_{t-1} + x[const])`` = t needs a constant input coordinate.
    * hard_sigmoid / sigmoid: ``s_t = sigma(a s_{t-1})`` with no input; sigma(0) = 1/2 starts it and it
      increases strictly (a > 0), so a ramp between s_T and s_{T+1} is 0 up to T and 1 after.
    """
    c = _check_tc(T, c)
    k, n = len(f.Lam), len(f.B[0])
    a = to_fraction(a)
    if f.act == "relu":
        if const_index is None:
            raise CapacityError("a ReLU RNN counter needs a constant input coordinate (relu(0) = 0 never starts it)")
        if not 0 <= const_index < n:
            raise CapacityError(f"const_index {const_index} out of range for inputs of dimension {n}")
        lam_c, b_row = Fraction(1), tuple(Fraction(int(j == const_index)) for j in range(n))
        lo, hi = T, T + 1
    else:
        if a <= 0:
            raise CapacityError("the sigmoid counter needs a > 0 to increase strictly")
        lam_c, b_row = a, (Fraction(0),) * n
        if f.act == "hard_sigmoid":
            vals = rnn_counter("hard_sigmoid", T, a)
            lo, hi = vals[T - 1], vals[T]
            if not lo < hi:
                raise CapacityError(f"hard-sigmoid counter saturated before T={T} (a={a}); use a smaller a")
        else:
            lo, hi = _sigmoid_counter_bounds(T, a)
    lam = [tuple(row) + (Fraction(0),) for row in f.Lam] + [(Fraction(0),) * k + (lam_c,)]
    b = [tuple(row) for row in f.B] + [b_row]
    return RNN(tuple(lam), tuple(b), mlp_plus_ramp(f.rho, c, lo, hi), f.act, name=f"{f.name} + {c}[t>{T}]")


# ------------------------------------------------------------------------------------------ checks
@dataclass
class WitnessCheck:
    """:func:`check_witness`: h = f on every prefix of length <= T, h - f = c (every coordinate) beyond."""

    T: int
    c: Fraction
    prefixes_checked: int
    matches_train: bool
    offset_beyond: bool
    first_violation: tuple | None = None

    @property
    def is_witness(self) -> bool:
        """Zero training risk, and a nonzero error c at every longer length."""
        return self.matches_train and self.offset_beyond and self.c != 0


def check_witness(f: SequenceModel, h: SequenceModel, T: int, c, sequences) -> WitnessCheck:
    """Exactly compare h and f on every prefix of every sequence (labels of all positions)."""
    c = to_fraction(c)
    train, beyond, first, count = True, True, None, 0
    for xs in sequences:
        yf, yh = f.outputs(xs), h.outputs(xs)
        for t, (a, b) in enumerate(zip(yf, yh, strict=True), 1):
            count += 1
            diff = tuple(y - x for x, y in zip(a, b, strict=True))
            want = tuple(c if t > T else Fraction(0) for _ in diff)
            if diff != want:
                if t <= T:
                    train = False
                else:
                    beyond = False
                if first is None:
                    first = (tuple(xs), t, diff)
    return WitnessCheck(T, c, count, train, beyond, first)


def check_interval_witness(f: RNN, h: RNN, T: int, c, sequences, width: float = 1e-30) -> WitnessCheck:
    """As :func:`check_witness` with interval outputs: each h - f - c[t > T] encloses 0 with tiny width."""
    from mpmath import iv

    c = to_fraction(c)
    cc = iv.mpf(c.numerator) / c.denominator
    train, beyond, first, count = True, True, None, 0
    for xs in sequences:
        for t, (a, b) in enumerate(zip(f.interval_outputs(xs), h.interval_outputs(xs), strict=True), 1):
            count += 1
            for x, y in zip(a, b, strict=True):
                r = y - x - (cc if t > T else 0)
                ok = r.a <= 0 <= r.b and float(r.b - r.a) < width
                if not ok:
                    if t <= T:
                        train = False
                    else:
                        beyond = False
                    if first is None:
                        first = (tuple(xs), t, (float(r.a), float(r.b)))
    return WitnessCheck(T, c, count, train, beyond, first)


def length_risks(models: Sequence[SequenceModel], f: SequenceModel, support: Sequence, max_len: int) -> list:
    """``[[R~(h, t) for t in 1..max_len] for h in models]``, exactly, tokens i.i.d. uniform on ``support``.

    R~(h, t) = E ||f(x_<=t) - h(x_<=t)||^2.  One depth-first walk over the prefix tree (every prefix of
    length <= max_len once), advancing every model one token per edge.
    """
    support = [to_vector(x) for x in support]
    sums = [[Fraction(0)] * max_len for _ in models]

    def walk(depth, fstate, states):
        if depth == max_len:
            return
        for x in support:
            fs, yf = f.advance(fstate, x)
            nxt = []
            for k, (m, st) in enumerate(zip(models, states, strict=True)):
                s2, y = m.advance(st, x)
                sums[k][depth] += sum((a - b) ** 2 for a, b in zip(yf, y, strict=True))
                nxt.append(s2)
            walk(depth + 1, fs, nxt)

    walk(0, f.initial(), [m.initial() for m in models])
    return [[sums[k][t] / len(support) ** (t + 1) for t in range(max_len)] for k in range(len(models))]


def exact_risk(h: SequenceModel, f: SequenceModel, support: Sequence, t: int) -> Fraction:
    """R~(h, t) = E ||f(x_<=t) - h(x_<=t)||^2 with tokens i.i.d. uniform on ``support`` (exact)."""
    return length_risks([h], f, support, t)[0][t - 1]


def risk(h: SequenceModel, f: SequenceModel, support: Sequence, T: int) -> Fraction:
    """R(h, T) = sum_{t <= T} R~(h, t) (the objective (1))."""
    return sum((exact_risk(h, f, support, t) for t in range(1, T + 1)), Fraction(0))


# -------------------------------------------------------------------- Theorem 10 and Lemma 11
def stabilization_index(chain: Sequence[frozenset]) -> int:
    """The least T0 (1-based) with chain[t] = chain[T0 - 1] for every t >= T0 - 1 in the window."""
    t0 = len(chain)
    while t0 > 1 and chain[t0 - 2] == chain[-1]:
        t0 -= 1
    return t0


def is_nonincreasing(chain: Sequence[frozenset]) -> bool:
    return all(b <= a for a, b in zip(chain, chain[1:], strict=False))


def lemma11_check(chain: Sequence[frozenset], universe_size: int) -> dict:
    """Lemma 11 on a finite window: a nonincreasing chain of subsets of a set of size m changes (strictly
    shrinks) at most m times, hence is eventually constant.  The index T0 where it becomes constant is NOT
    bounded by m (the chain may stay put for a while before shrinking); only the number of changes is.
    Returns the verdict and the numbers; a non-nested sequence is rejected (``nested`` False) even if it
    happens to be constant at the end of the window."""
    changes = sum(1 for a, b in zip(chain, chain[1:], strict=False) if a != b)
    t0 = stabilization_index(chain)
    nested = is_nonincreasing(chain)
    return {"nested": nested, "changes": changes, "T0": t0, "max_changes": universe_size,
            "holds": nested and changes <= universe_size}


@dataclass
class ThresholdResult:
    """:func:`finite_class_threshold` (lengths are sequence lengths t; risks exact)."""

    class_size: int
    max_len: int
    T_h: dict  # member index -> first t with R~ > 0 (only members that ever fail within max_len)
    T_star: int  # max T_h (minimal sufficient training length); 1 if no member ever fails
    paper_T0: int  # the paper's strict-inequality threshold: T > T0 suffices, T0 = T_star - 1
    minimizers: dict  # T -> frozenset of member indices minimizing R(., T)
    generalizes: dict  # T -> every minimizer has zero risk at every length <= max_len
    lemma11: dict = field(default_factory=dict)

    @property
    def theorem_holds(self) -> bool:
        """All T >= T_star generalize and (if T_star > 1) T_star - 1 does not: the threshold is exact."""
        ok = all(self.generalizes[T] for T in self.generalizes if T >= self.T_star)
        tight = self.T_star == 1 or not self.generalizes[self.T_star - 1]
        return ok and tight


def finite_class_threshold(members: Sequence[SequenceModel], target: SequenceModel, support: Sequence,
                           max_len: int) -> ThresholdResult:
    """Theorem 10 / Lemma 11 on a finite class, by exact risk over the finite token distribution.

    R~(h, t) is computed for t = 1..max_len; R(h, T) = sum_{t<=T} R~(h, t) is nondecreasing in T.  T_h is the
    first t with R~(h, t) > 0; T* = max T_h.  For T >= T* every minimizer of R(., T) has zero risk at every
    length <= max_len; at T* - 1 the member attaining T* is a minimizer that fails.  (A member that first
    fails beyond max_len is invisible: "generalizes" means on lengths <= max_len.)
    """
    if max_len < 1:
        raise CapacityError(f"max_len must be >= 1, got {max_len}")
    per = length_risks(members, target, support, max_len)
    T_h = {k: next(t for t, r in enumerate(rs, 1) if r > 0) for k, rs in enumerate(per) if any(r > 0 for r in rs)}
    T_star = max(T_h.values(), default=1)
    minimizers, gen = {}, {}
    for T in range(1, max_len + 1):
        R = [sum(rs[:T], Fraction(0)) for rs in per]
        best = min(R)
        minimizers[T] = frozenset(k for k, r in enumerate(R) if r == best)
        gen[T] = all(all(r == 0 for r in per[k]) for k in minimizers[T])
    chain = [minimizers[T] for T in range(1, max_len + 1)]
    lem = lemma11_check(chain, len(members))
    return ThresholdResult(len(members), max_len, T_h, T_star, T_star - 1, minimizers, gen, lem)


def offset_class(f: DeepSet, K: int, c) -> list[DeepSet]:
    """H_K = {f} + {f + c[t > j] : j = 1..K} as deep sets (T* = K + 1, |H_K| = K + 1)."""
    return [f] + [deep_set_witness(f, j, c) for j in range(1, K + 1)]


def quantized_deep_sets(ws=(-1, 0, 1), bs=(-1, 0, 1), us=(-1, 0, 1), vs=(-3, -2, -1, 0, 1)) -> list[DeepSet]:
    """The finite class {rho(sum phi(x_j)) : phi(x) = relu(w x + b), rho(z) = relu(u z + v)} on scalar tokens."""
    out = []
    for w, b, u, v in itertools.product(ws, bs, us, vs):
        phi = MLP((([[w]], [b], "relu"),))
        rho = MLP((([[u]], [v], "relu"),))
        out.append(DeepSet(phi, rho, name=f"w={w} b={b} u={u} v={v}"))
    return out

