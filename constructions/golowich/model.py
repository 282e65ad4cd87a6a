"""Exact finite model of Golowich et al. (2025), Section 3.

* Definition 3.2 (k-sparse planted correlations): :class:`Ensemble` with rational ``mu``, ``qvoc``,
  ``gstar`` and a position law ``qpos(l)`` for every length ``l >= k``.
* Definition 3.3 (k-sparse functional attention): :class:`KeyFunction` (scores in Q u {-inf}),
  :class:`ValueFunction` (values in Q, the label space Y = [0, 1] with loss |Y - Y'|),
  :func:`h_value` including footnote 6 (all scores -inf => uniform average of g1 over Sets_k([l])).
* The same attention read through its weights ``w = exp(g0)`` (``w = 0`` for ``-inf``): :func:`attention`,
  the one implementation of the softmax average; :func:`h_value` feeds it the weights of rational scores.
* :class:`Planted`: an unvalidated, callable-``g*`` view of Definition 3.2 that keeps the planted set S*
  (used by the proof checks in ``verify/golowich``); it shares the enumeration :func:`planted_law` with
  :class:`Ensemble`.  :func:`random_shift_Q` is the random-shift position law (paper, after Assumption 4.2).
* Definition 3.1: :func:`risk` (exact, by enumeration of the support of P_l), :func:`train_risk`
  (average over l in [L/2, L]) and :func:`minimizers` (*all* minimisers, compared exactly).

Positions are 1-based; a set S is a sorted tuple.  Sequences are tuples of tokens.

Exactness: when every finite score on the active sets of an input is equal (in particular for 0/-inf
keys, which all witnesses use) the softmax is a uniform average and everything is a ``Fraction``.
Otherwise exp() of rationals is irrational: the value is returned as an exact sympy expression and risks
are sympy numbers (comparisons are then done by sympy's certified evaluation).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache

NEG_INF = float("-inf")

Score = Fraction | float  # a Fraction, or NEG_INF
SetK = tuple[int, ...]
Seq = tuple[int, ...]


class ModelError(ValueError):
    """An ensemble, key/value function or length is malformed (not a distribution, wrong arity, l < k...)."""


def sets_k(length: int, k: int) -> list[SetK]:
    """Sets_k([length]) as sorted 1-based tuples, in lexicographic order."""
    return list(itertools.combinations(range(1, length + 1), k))


def span(S: SetK) -> int:
    """max S - min S."""
    return S[-1] - S[0]


def shape(S: SetK) -> SetK:
    """S - min S + 1 (the relative shape of S; starts at 1)."""
    return tuple(i - S[0] + 1 for i in S)


def _frac(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int | str):
        return Fraction(x)
    raise ModelError(f"expected an exact rational (Fraction/int/str), got {x!r}")


def _check_dist(d: Mapping, what: str) -> None:
    if not d:
        raise ModelError(f"{what} is empty")
    tot = Fraction(0)
    for key, p in d.items():
        if not isinstance(p, Fraction):
            raise ModelError(f"{what}[{key!r}] = {p!r} is not a Fraction")
        if p < 0:
            raise ModelError(f"{what}[{key!r}] = {p} is negative")
        tot += p
    if tot != 1:
        raise ModelError(f"{what} sums to {tot}, not 1")


@dataclass(frozen=True)
class KeyFunction:
    """g0: (N x V)^k -> Q u {-inf}, given by a rule ``fn(S, x)``; ``name`` is for printing.

    ``table``/``shape_table``, when given, are the data the function was built from (for printing and
    JSON); ``fn`` is always the definition used for evaluation.
    """

    name: str
    fn: Callable[[SetK, Seq], Score]
    data: dict = field(default_factory=dict, compare=False)

    def __call__(self, S: SetK, x: Seq) -> Score:
        v = self.fn(S, x)
        if v != NEG_INF and not isinstance(v, Fraction | int):
            raise ModelError(f"key {self.name}: score {v!r} on {S},{x} is not rational or -inf")
        return v if v == NEG_INF else Fraction(v)

    @staticmethod
    def from_shapes(name: str, active: Mapping[tuple[SetK, Seq], Score]) -> KeyFunction:
        """A relative key: g0(S, x) = active[(shape(S), x)] if present, else -inf."""
        act = {(tuple(s), tuple(x)): v for (s, x), v in active.items()}

        def fn(S, x):
            return act.get((shape(S), tuple(x)), NEG_INF)

        data = {"kind": "shape", "active": [[list(s), list(x), _score_json(v)] for (s, x), v in sorted(act.items())]}
        return KeyFunction(name, fn, data)

    @staticmethod
    def from_table(name: str, active: Mapping[tuple[SetK, Seq], Score]) -> KeyFunction:
        """An absolute-position key: g0(S, x) = active[(S, x)] if present, else -inf."""
        act = {(tuple(s), tuple(x)): v for (s, x), v in active.items()}

        def fn(S, x):
            return act.get((tuple(S), tuple(x)), NEG_INF)

        data = {"kind": "table", "active": [[list(s), list(x), _score_json(v)] for (s, x), v in sorted(act.items())]}
        return KeyFunction(name, fn, data)


def _score_json(v):
    return "-inf" if v == NEG_INF else str(Fraction(v))


@dataclass(frozen=True)
class ValueFunction:
    """g1: V^k -> Y = [0, 1] (a table; missing tuples raise)."""

    name: str
    table: Mapping[Seq, Fraction]

    def __call__(self, x: Seq) -> Fraction:
        try:
            return self.table[tuple(x)]
        except KeyError:
            raise ModelError(f"value function {self.name} undefined on {tuple(x)}") from None


@dataclass(frozen=True)
class Ensemble:
    """Definition 3.2: (mu, Q_l^pos, Q^voc, g*) with exact rational probabilities.

    ``qpos(l)`` returns a dict S -> Fraction over Sets_k([l]); it is validated on every use.
    Lengths l < k have no k-subsets, so the ensemble is only defined for l >= k.
    """

    vocab: tuple[int, ...]
    k: int
    mu: Mapping[int, Fraction]
    qvoc: Mapping[Seq, Fraction]
    gstar: Mapping[Seq, Fraction]
    qpos_fn: Callable[[int], Mapping[SetK, Fraction]]
    name: str = "ensemble"

    def __post_init__(self):
        _check_dist(self.mu, "mu")
        _check_dist(self.qvoc, "Q^voc")
        for t in self.mu:
            if t not in self.vocab:
                raise ModelError(f"mu puts mass on {t!r}, not in the vocabulary {self.vocab}")
        for z in self.qvoc:
            if len(z) != self.k or any(t not in self.vocab for t in z):
                raise ModelError(f"Q^voc support element {z!r} is not in V^{self.k}")
            if z not in self.gstar:
                raise ModelError(f"g* undefined on the planted tuple {z!r}")

    def qpos(self, length: int) -> dict[SetK, Fraction]:
        if length < self.k:
            raise ModelError(f"length {length} < k = {self.k}: Sets_k([{length}]) is empty, Q_l^pos undefined")
        q = {tuple(S): _frac(p) for S, p in self.qpos_fn(length).items()}
        for S in q:
            if len(S) != self.k or list(S) != sorted(set(S)) or S[0] < 1 or S[-1] > length:
                raise ModelError(f"Q_{length}^pos puts mass on {S!r}, not in Sets_{self.k}([{length}])")
        _check_dist(q, f"Q_{length}^pos")
        return q

    def joint(self, length: int) -> dict[tuple[Seq, Fraction], Fraction]:
        """The law of (X, Y) under P_length, as {(x, y): probability} (exact, by enumeration)."""
        out: dict[tuple[Seq, Fraction], Fraction] = {}
        for x, S, p in planted_law(self.mu, self.qpos(length), self.qvoc, length):
            key = (x, self.gstar[tuple(x[i - 1] for i in S)])
            out[key] = out.get(key, Fraction(0)) + p
        return out


def planted_law(mu: Mapping, qpos: Mapping[SetK, Fraction], qvoc: Mapping[Seq, Fraction], length: int):
    """Yield (X, S*, P(X, S*)) with P(X, S*) = Q_l^pos(S*) Q^voc(X_S*) prod_{i not in S*} mu(X_i) (Def. 3.2).

    Zero-probability positions, planted tuples and background tokens are skipped.
    """
    mu_items = [(t, p) for t, p in mu.items() if p]
    for S, ps in qpos.items():
        if not ps:
            continue
        rest = [i for i in range(1, length + 1) if i not in S]
        for z, pz in qvoc.items():
            if not pz:
                continue
            for bg in itertools.product(mu_items, repeat=len(rest)):
                x = [None] * length
                for i, t in zip(S, z, strict=True):
                    x[i - 1] = t
                p = ps * pz
                for i, (t, pt) in zip(rest, bg, strict=True):
                    x[i - 1] = t
                    p *= pt
                yield tuple(x), S, p


@dataclass(frozen=True)
class Planted:
    """Definition 3.2 as the proof checks use it: ``Q(l) -> {S: prob}`` (may be empty: P_l then has no
    mass), ``Qvoc: {Z: prob}``, ``gstar`` a callable ``Z -> label``; no validation (cf. :class:`Ensemble`).
    """

    k: int
    mu: dict
    Q: Callable
    Qvoc: dict
    gstar: Callable

    def joint(self, ell: int):
        """Yield (X, S*, prob), see :func:`planted_law`."""
        return planted_law(self.mu, self.Q(ell), self.Qvoc, ell)

    def risk(self, h: Callable, ell: int) -> Fraction:
        """E_{P_ell} |h(X) - g*(X_S*)| exactly."""
        hc = lru_cache(maxsize=None)(h)
        return sum((p * abs(hc(x) - self.gstar(tuple(x[i - 1] for i in S))) for x, S, p in self.joint(ell)),
                   Fraction(0))


def random_shift_Q(base: dict, Lloc: int):
    """Q_ell = law of S + Delta, S ~ base (on Sets_k([Lloc])), Delta ~ Unif{0..ell-Lloc} (paper, after A4.2).

    Empty for ell < Lloc."""
    @cache
    def Q(ell: int) -> dict:
        if ell < Lloc:
            return {}
        out: dict = {}
        n = ell - Lloc + 1
        for S, p in base.items():
            for d in range(n):
                T = tuple(i + d for i in S)
                out[T] = out.get(T, Fraction(0)) + Fraction(p) / n
        return out
    return Q


@cache
def local_sets(ell: int, k: int, local: int) -> tuple:
    """The sets of Sets_k([ell]) with span <= local."""
    out = []
    for lo in range(1, ell + 1):
        hi = min(ell, lo + local)
        for rest in itertools.combinations(range(lo + 1, hi + 1), k - 1):
            out.append((lo, *rest))
    return tuple(out)


def attention(w: Callable, g1: Callable, x: Seq, k: int, local: int | None = None):
    """h_{g0,g1}(x) of Definition 3.3 through the weights w(S, x_S) = exp(g0(S, x_S)) (0 for -inf).

    Footnote 6: when every weight is 0, the uniform average of g1 over Sets_k([l]).  ``local``: if given,
    only sets of span <= local are scored (the others must have w = 0), a speed-up only.  Exact: a
    Fraction for rational weights, a sympy expression for sympy weights.
    """
    length = len(x)
    num = den = Fraction(0)
    for S in (sets_k(length, k) if local is None else local_sets(length, k, local)):
        xs = tuple(x[i - 1] for i in S)
        ws = w(S, xs)
        if ws:
            v = g1(xs)
            if not isinstance(ws, Fraction | int):
                import sympy

                v = sympy.Rational(v)
            num += ws * v
            den += ws
    if den:
        return num / den
    allS = sets_k(length, k)
    return sum((Fraction(g1(tuple(x[i - 1] for i in S))) for S in allS), Fraction(0)) / len(allS)


def h_value(g0: KeyFunction, g1: ValueFunction, x: Seq, k: int):
    """h_{g0,g1}(x) of Definition 3.3 with the footnote-6 convention; Fraction when exact-rational.

    The scores are shifted by their maximum (softmax is shift-invariant), so the weights are 1 on the
    top-scoring sets and exp(s - top) (sympy) elsewhere; :func:`attention` does the average.
    """
    if len(x) < k:
        raise ModelError(f"input of length {len(x)} < k = {k}")
    scores = {S: g0(S, tuple(x[i - 1] for i in S)) for S in sets_k(len(x), k)}
    finite = [s for s in scores.values() if s != NEG_INF]
    top = max(finite) if finite else None

    def weight(S, _xs):
        s = scores[S]
        if s == NEG_INF:
            return 0
        if s == top:
            return 1
        import sympy

        return sympy.exp(sympy.Rational(s - top))

    return attention(weight, g1, x, k)


def _abs(v):
    if isinstance(v, Fraction):
        return abs(v)
    import sympy

    return sympy.Abs(v)


def risk(g0: KeyFunction, g1: ValueFunction, ens: Ensemble, length: int):
    """E_{(X,Y)~P_length} |h_{g0,g1}(X) - Y| (exact)."""
    tot = Fraction(0)
    cache: dict[Seq, object] = {}
    for (x, y), p in ens.joint(length).items():
        if x not in cache:
            cache[x] = h_value(g0, g1, x, ens.k)
        tot = tot + p * _abs(cache[x] - y)
    return tot


def training_lengths(L: int, k: int) -> list[int]:
    """The integers in [L/2, L] (i.e. ceil(L/2)..L); raises if one is < k (P_l undefined there)."""
    lo = math.ceil(Fraction(L, 2))
    if lo < k:
        raise ModelError(f"training lengths [{lo}, {L}] include l < k = {k}, where Q_l^pos is undefined")
    return list(range(lo, L + 1))


def train_risk(g0: KeyFunction, g1: ValueFunction, ens: Ensemble, L: int):
    """E_{l ~ Unif([L/2, L])} E_{P_l} |h - Y|, eq. (3)."""
    lens = training_lengths(L, ens.k)
    return sum((risk(g0, g1, ens, l) for l in lens), Fraction(0)) / len(lens)


@dataclass(frozen=True)
class AttentionClass:
    """H^attn(G^key, G^val): every pair (g0, g1)."""

    keys: tuple[KeyFunction, ...]
    values: tuple[ValueFunction, ...]
    k: int

    def hypotheses(self) -> Iterable[tuple[KeyFunction, ValueFunction]]:
        return itertools.product(self.keys, self.values)


def minimizers(H: AttentionClass, ens: Ensemble, L: int) -> tuple[object, list[tuple[KeyFunction, ValueFunction]], dict]:
    """(min training risk, all minimisers, {(g0.name, g1.name): training risk})."""
    risks = {(g0.name, g1.name): train_risk(g0, g1, ens, L) for g0, g1 in H.hypotheses()}
    best = min(risks.values())
    mins = [(g0, g1) for g0, g1 in H.hypotheses() if risks[(g0.name, g1.name)] == best]
    return best, mins, risks


def uniform(sets: Iterable[SetK]) -> dict[SetK, Fraction]:
    """The uniform law on a nonempty finite family of sets."""
    sets = list(sets)
    if not sets:
        raise ModelError("uniform law over an empty family of sets")
    return {S: Fraction(1, len(sets)) for S in sets}


def point_ensemble(vocab, k, background, planted, y, qpos_fn, name="ensemble") -> Ensemble:
    """mu = delta_background, Q^voc = delta_planted, g*(planted) = y (the shape of every C.3 witness)."""
    return Ensemble(tuple(vocab), k, {background: Fraction(1)}, {tuple(planted): Fraction(1)},
                    {tuple(planted): Fraction(y)}, qpos_fn, name)
