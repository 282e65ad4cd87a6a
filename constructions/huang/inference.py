"""The Inference Procedure (Huang et al. Definition 6, eq. (9)) run on an explicit, enumerable bounded class.

Definition 6 minimises R over ``U_n = {T in Theta_n : T matches f on all inputs of length <= n/2}``, an infimum
over infinitely many widths that no program computes.  Here the minimum is taken over the finite class
``C_n = {compile_theta(M, n) : M in CLASS(max_ladder)}`` -- Lemma 47 images (members of Theta_n, checked by
:mod:`constructions.huang.products`) of the Limit Transformers ``M`` listed by :func:`bounded_class`:

=====================  ===============================================================================
``unit[w]``            alphabet {a, b}; 1 layer, 1 uniform head (``K = Q = 0``) writing ``one = 1/t``,
                       ``#a/t``, ``#b/t``; one Heaviside unit ``H(w_a #a/t + w_b #b/t + w_1 / t + w_phi phi_2
                       + w_0)`` with ``w_a, w_b, w_1, w_phi in {-1, 0, 1}``, ``w_0 in {-1, 0}``
                       (``phi_2 = [t odd]``, a period-2 encoding, present only when ``w_phi != 0``);
                       output ``2h - 1``: 162 members, width 8 (9 with phi_2), p = 1.
``ladder[x, m]``       ``m`` Heaviside units ``H(#x/t - k/t) = [#x >= k]``, ``k = 1..m``, output
                       ``1 - 2 sum_k (-1)^(k+1) [#x >= k]`` (accepts an even number of x's while #x <= m):
                       ``x in {a, b}``, ``m = 1..max_ladder``; units and norms grow with m.
``avg[Delta, r]``      alphabet {0, 1}; the one-layer ModP construction (``ModPTask(Delta, r)``, p = 2):
                       average of the 1s at task positions ``= r (mod Delta)``, ``Delta in {1, 2, 3}``.
=====================  ===============================================================================

Evaluation.  ``T_n(x, o) = M(x, 0)`` for every admissible x, o is Lemma 47 (checked exactly by
:func:`constructions.huang.lemma47.lemma47_mismatch` on the selected ``T_n``), so candidates are *fitted* through
``M`` with the package's float64 path (``forward``; tolerances in docs/limit_transformer.md: language outputs are
``+-1``, values are compared to 1e-9), every word of length exactly ``m`` covering all shorter words as prefixes.
``R(T_n)`` is computed exactly (:func:`constructions.huang.regularizer.regularizer`) for the fitting candidates;
ties are broken by enumeration order (the 1/n slack of eq. (9) is then unused: we take an exact minimiser).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from constructions.crasp.oracles import ORACLES
from constructions.huang.errors import InferenceError
from constructions.huang.lemma47 import compile_theta
from constructions.huang.regularizer import regularizer
from constructions.limit_transformer import MLP, Head, Layer, LimitTransformer, PeriodicPositions, forward
from constructions.tasks.modp import ModPTask

SOS, TOP, QA, QB, ONE, CA, CB, PHI = range(8)


@dataclass(frozen=True)
class Candidate:
    name: str
    model: LimitTransformer
    kind: str  # "language" (accept iff last output > 0) or "value" (exact output)


def _count_model(units: list[tuple[dict, Fraction]], out: dict, name: str, periodic: bool) -> LimitTransformer:
    """1 layer: uniform head writing one, #a/t, #b/t; Heaviside units; U reads sum(out[u] h_u) + out['top'] top."""
    d = 9 if periodic else 8
    k = len(units)
    E = [[0] * d for _ in range(3)]
    E[0][SOS] = 1
    E[1][TOP], E[1][QA] = 1, 1
    E[2][TOP], E[2][QB] = 1, 1
    V = [[0] * d for _ in range(d)]
    V[ONE][SOS], V[CA][QA], V[CB][QB] = 1, 1, 1
    d_out = d + k  # unit u writes its own coordinate d + u
    for row in E:
        row.extend([0] * k)
    for row in V:
        row.extend([0] * k)
    V.extend([[0] * d_out for _ in range(k)])
    A = [[0] * d_out for _ in range(k)]
    b = [0] * k
    B = [[0] * k for _ in range(d_out)]
    for u, (w, bias) in enumerate(units):
        for c, val in w.items():
            A[u][c] = val
        b[u] = bias
        B[d + u][u] = 1
    U = [[0] * d_out, [0] * d_out]
    U[1][TOP] = out.get("top", 0)
    for u in range(k):
        U[1][d + u] = out[u]
    positions = None
    if periodic:
        table = [[0] * d_out, [0] * d_out]
        table[0][PHI] = 1  # model position t odd (t = 1, 3, ...): even word length
        positions = PeriodicPositions(np.array(table, dtype=object))
        E[0][PHI] = 0
    z = [[0] * d_out]
    layer = Layer((Head(z, z, V),), MLP(A, b, B, ("heaviside",) * k))
    return LimitTransformer(("a", "b"), E, (layer,), U, positions, precision_bits=1, name=name)


def bounded_class(max_ladder: int = 12) -> list[Candidate]:
    """The enumerable class of the module docstring, in enumeration order."""
    if max_ladder < 0:
        raise InferenceError(f"max_ladder must be >= 0, got {max_ladder}")
    out = []
    for wa, wb, w1, wphi in itertools.product((-1, 0, 1), repeat=4):
        for w0 in (-1, 0):
            w = {CA: wa, CB: wb, ONE: w1, PHI: wphi}
            w = {c: v for c, v in w.items() if v}
            name = f"unit[{wa},{wb},{w1},{wphi},{w0}]"
            out.append(Candidate(name, _count_model([(w, Fraction(w0))], {0: 2, "top": -1}, name, wphi != 0),
                                 "language"))
    for x, m in itertools.product((CA, CB), range(1, max_ladder + 1)):
        units = [({x: 1, ONE: -k}, Fraction(0)) for k in range(1, m + 1)]
        signs = {u: -2 * (-1) ** u for u in range(m)}  # -2 * (-1)^(k+1) with k = u + 1
        signs["top"] = 1
        name = f"ladder[{'ab'[x - CA]},{m}]"
        out.append(Candidate(name, _count_model(units, signs, name, False), "language"))
    for delta in (1, 2, 3):
        for r in range(delta):
            out.append(Candidate(f"avg[{delta},{r}]", ModPTask(delta, r).limit_transformer(precision_bits=2), "value"))
    return out


@dataclass(frozen=True)
class Target:
    name: str
    alphabet: str
    kind: str
    f: Callable[[str], object]  # prefix -> bool (language) or Fraction (value)
    expressible: bool  # has a C-RASP[periodic, local] program / Periodic and Local Limit Transformer


def _outputs(model: LimitTransformer, words: list[str]) -> np.ndarray:
    return forward(model, words)[:, 1:, -1]  # (B, m): output at every non-$ position


def wanted(t: Target, words: list[str]) -> np.ndarray:
    """Target values at every prefix of every word: (B, m) bool (language) or float (value) array."""
    vals = [[t.f(w[:k]) for k in range(1, len(w) + 1)] for w in words]
    return np.array(vals, dtype=bool if t.kind == "language" else float)


def matches(c: Candidate, t: Target, words: list[str], want: np.ndarray | None = None) -> bool:
    """``c`` matches ``t`` on every prefix of every word (all of equal length); ``want`` = :func:`wanted`."""
    if c.kind != t.kind or tuple(c.model.alphabet) != tuple(t.alphabet):
        return False
    want = wanted(t, words) if want is None else want
    out = _outputs(c.model, words)
    if t.kind == "language":
        return bool(np.array_equal(out > 0, want))
    return bool(np.all(np.abs(out - want) <= 1e-9))


def all_words(alphabet: str, m: int) -> list[str]:
    return ["".join(w) for w in itertools.product(alphabet, repeat=m)]


@dataclass
class Step:
    n: int
    chosen: str | None
    R: Fraction | None
    fits: int
    generalizes: bool | None
    failure: str = ""


@dataclass
class Run:
    target: str
    steps: list = field(default_factory=list)

    def identified_from(self) -> int | None:
        """Smallest n of the sweep from which every T_n generalized on the test set (None if the last fails)."""
        first = None
        for s in self.steps:
            if s.generalizes:
                first = s.n if first is None else first
            else:
                first = None
        return first


def inference(t: Target, ns, candidates: list[Candidate], *, test_exhaustive: int = 12, test_long=(64, 200),
              samples: int = 50, seed: int = 0, train_length: Callable[[int], int] | None = None) -> Run:
    """Definition 6 over ``candidates``: for each n, T_n = an exact R-minimiser among those matching ``t`` on all
    inputs of length <= l(n) (``train_length``; default n // 2, Definition 22's l-Inference Procedure otherwise,
    with 1 <= l(n) <= n); then test it on every word of length <= ``test_exhaustive`` and on ``samples`` random
    words of each length in ``test_long``."""
    rng = np.random.default_rng(seed)
    tests = [all_words(t.alphabet, test_exhaustive)] + [
        ["".join(rng.choice(list(t.alphabet), size=L)) for _ in range(samples)] for L in test_long]
    test_wants = [wanted(t, w) for w in tests]
    fit_cache: dict = {}
    run = Run(t.name)
    for n in ns:
        m = n // 2 if train_length is None else train_length(n)
        if not 1 <= m <= n:
            raise InferenceError(f"n = {n}: training length l(n) = {m} is not in 1..n (Definition 22)")
        train = all_words(t.alphabet, m)
        want = wanted(t, train)
        fitting = [c for c in candidates if fit_cache.setdefault((c.name, m), matches(c, t, train, want))]
        if not fitting:
            run.steps.append(Step(n, None, None, 0, False, "U_n is empty in the class"))
            continue
        scored = [(regularizer(compile_theta(c.model, n)).total, k, c) for k, c in enumerate(fitting)]
        R, _, best = min(scored, key=lambda s: (s[0], s[1]))
        bad = next((w[0][:8] + "..." for w, wt in zip(tests, test_wants, strict=True) if not matches(best, t, w, wt)), "")
        run.steps.append(Step(n, best.name, R, len(fitting), not bad, "" if not bad else "fails on a test word"))
    return run


def _modp_target(delta: int, r: int) -> Target:
    task = ModPTask(delta, r)
    return Target(f"modp({delta},{r})", "01", "value", lambda w: task.target(w), True)


def _renamed(oracle: Callable[[str], bool]) -> Callable[[str], bool]:
    """A {0, 1} oracle read over {a, b} (a = 0, b = 1)."""
    table = str.maketrans("ab", "01")
    return lambda w: oracle(w.translate(table))


def targets() -> list[Target]:
    """Expressible: majority, (aa)*, ModP(2,1), ModP(3,0).  Not (the package's certified non-expressible
    languages over two letters, Table 2 / Lemma 41): parity (even #a), Tomita 3, 5, 6 (package oracles, a = 0,
    b = 1); and 'ones at prime positions' (a value target with non-periodic positional structure)."""
    def primes_avg(w):
        idx = [t for t in range(1, len(w) + 1) if t > 1 and all(t % q for q in range(2, int(t**0.5) + 1))]
        return Fraction(sum(w[t - 1] == "1" for t in idx), len(idx)) if idx else Fraction(0)

    return [
        Target("majority", "ab", "language", lambda w: w.count("a") >= w.count("b"), True),
        Target("(aa)*", "ab", "language", lambda w: "b" not in w and len(w) % 2 == 0, True),
        _modp_target(2, 1),
        _modp_target(3, 0),
        Target("parity (even #a)", "ab", "language", lambda w: w.count("a") % 2 == 0, False),
        *[Target(f"{name} (a=0, b=1)", "ab", "language", _renamed(ORACLES[name]), False)
          for name in ("tomita3", "tomita5", "tomita6")],
        Target("ones at prime positions", "01", "value", primes_avg, False),
    ]
