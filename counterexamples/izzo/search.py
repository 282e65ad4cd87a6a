"""Searches for pairs of one-layer models that break a training-length bound (Izzo et al. Theorem 4.1 and ours).

Family (every parameter free, small integers): alphabet of 1 to ``max_sigma`` symbols (3), Delta in 1..3
(positional table or NoPE), tau in 0..2, width d = 4, 1 to ``max_heads`` heads (2; Q, K: 1 x 4; V: 4 x 4; phi on
offsets 0..tau), MLP absent or 1-2 ReLU units, U: 1 x 4, and a scale t in {1, 1/4, 1/64} moved from U into the
MLP's B (outputs unchanged, L scaled).
Entries are in {-1, 0, 1} (MLP biases in {-1, -1/2, 0, 1/2, 1}).  Integer logits and p = 1 bit make every
strictly sub-maximal softmax term flush from length 2 on, so the exact evaluator (``exact_forward``) applies at
every length.  g is f with a random subset of the parameter groups redrawn (so pairs agree on short inputs
often).

For each pair, :func:`check_pair` computes the three bounds (corrected, as published, the earlier proof count)
with :func:`bounds.estimate.estimate` and the exact disagreement ``max |f - g|`` over EVERY string of each model
length 1..M (:func:`bounds.compare.exhaustive_disagreement`).  A bound is broken when
f = g exactly on all lengths <= its N < M and ``|f - g| > allowed`` at some length in (N, M], where

* corrected: eps is chosen large (``eps = 2K + 1``, K the pair's modulus of bounds/modulus.py, so eta = eps/K >= 2)
  so that its N is short (presence, window, residues and H only), and allowed = eps (the corrected conclusion is
  ``|f - g| <= delta + eps`` with delta = 0); for smaller eps its N (bounds/corrected.py) is far beyond exhaustive
  evaluation, and bounds.compression checks its proof instead;
* as published / proof count (conclusion O(delta + eps), constant not given): only pairs whose N does not depend
  on eps (L = 0) are counted, with allowed = 0: for every eps the conclusion would need |f - g| <= C eps -> 0.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction

from bounds.compare import exhaustive_disagreement
from constructions.limit_transformer.errors import NotExactError
from constructions.limit_transformer.model import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)

GROUPS = ("embedding", "positions", "query", "key", "value", "phi", "mlp", "unembedding", "scale")


@dataclass
class Spec:
    """The integer parameters of one model of the family."""

    sigma: int
    delta: int
    tau: int
    heads: int = 1
    params: dict = field(default_factory=dict)


def _mat(draw, rows, cols, lo=-1, hi=1):
    return [[draw(lo, hi) for _ in range(cols)] for _ in range(rows)]


def draw_group(draw, spec: Spec, group: str):
    d, s = 4, spec.sigma
    if group == "embedding":
        return _mat(draw, s + 1, d)
    if group == "positions":
        return _mat(draw, spec.delta, d) if spec.delta > 1 else None
    if group in ("query", "key"):
        return [_mat(draw, 1, d) for _ in range(spec.heads)]
    if group == "value":
        return [_mat(draw, d, d) for _ in range(spec.heads)]
    if group == "phi":
        return [[draw(-1, 1) for _ in range(spec.tau + 1)] for _ in range(spec.heads)]
    if group == "mlp":
        width = draw(0, 2)
        if width == 0:
            return None
        return (_mat(draw, width, d), [Fraction(draw(-2, 2), 2) for _ in range(width)], _mat(draw, d, width))
    if group == "unembedding":
        return _mat(draw, 1, d)
    if group == "scale":
        return [Fraction(1), Fraction(1, 4), Fraction(1, 64)][draw(0, 2)]
    raise ValueError(group)


def draw_spec(draw, max_sigma: int = 2, max_delta: int = 2, max_tau: int = 1, max_heads: int = 1) -> Spec:
    spec = Spec(draw(1, max_sigma), draw(1, max_delta), draw(0, max_tau))
    spec.heads = draw(1, max_heads) if max_heads > 1 else 1  # (no draw: the smaller family's seeds reproduce)
    spec.params = {g: draw_group(draw, spec, g) for g in GROUPS}
    return spec


def perturb(draw, spec: Spec) -> Spec:
    """A copy of spec with a random non-empty subset of parameter groups redrawn."""
    new = Spec(spec.sigma, spec.delta, spec.tau, spec.heads, dict(spec.params))
    chosen = [g for g in GROUPS if draw(0, 2) == 0] or [GROUPS[draw(0, len(GROUPS) - 1)]]
    for g in chosen:
        new.params[g] = draw_group(draw, new, g)
    return new


def build(spec: Spec, name: str = "") -> LimitTransformer:
    p = spec.params
    t = p["scale"]
    mlp = None
    if p["mlp"] is not None:
        A, b, B = p["mlp"]
        mlp = MLP(A, b, [[Fraction(x) * t for x in row] for row in B])
    heads = tuple(Head(q, k, v, LocalPhi(tuple(ph)))
                  for q, k, v, ph in zip(p["query"], p["key"], p["value"], p["phi"], strict=True))
    return LimitTransformer(alphabet=tuple("abc"[: spec.sigma]), embedding=p["embedding"],
                            layers=(Layer(heads=heads, mlp=mlp),),
                            unembedding=[[Fraction(x) / t for x in row] for row in p["unembedding"]],
                            positions=None if p["positions"] is None else PeriodicPositions(p["positions"]),
                            precision_bits=1, precision="izzo", name=name)


@dataclass(frozen=True)
class Break:
    bound: str
    N: int
    length: int
    string: str
    difference: Fraction
    eps: Fraction


MAX_STRINGS = 1 << 10  # exhaustive evaluation up to this many strings per length


def _bounds(f, g):
    """{bound: (N, eps, allowed)} for the bounds the pair can be checked against (see the module docstring)."""
    from bounds.estimate import estimate
    from bounds.margin import combine, ingredients

    ing = combine(ingredients(f, mode="exact"), ingredients(g, mode="exact"))
    pr = combine(ingredients(f, definition="printed", mode="exact"), ingredients(g, definition="printed",
                                                                                 mode="exact"))
    out = {}
    small = Fraction(1, 10)
    r = estimate(ing, small, 0, pr, "proof-count", ing.heads)
    if ing.L2 == 0:  # N independent of eps
        out["proof-count"] = (r["proof_count"]["N"], small, Fraction(0))
        out["as-published"] = (r["as_published"]["N"], small, Fraction(0))
    c = r["corrected"]
    if c.get("N") is not None:
        K = Fraction(c["K"])
        eps = Fraction(int(2 * K) + 1)  # eta = eps/K >= 2: only presence, window, residues and H count
        out["corrected"] = (estimate(ing, eps, 0, pr, "corrected", ing.heads)["corrected"]["N"], eps, eps)
    return out


def _length_cap(sigma: int) -> int:
    """The longest length whose strings (after ``$``) number at most MAX_STRINGS over ``sigma`` letters."""
    return max(n for n in range(1, 4096) if sigma ** (n - 1) <= MAX_STRINGS) if sigma > 1 else 4096


def check_pair(f: LimitTransformer, g: LimitTransformer, max_length: int, extra: int = 3) -> list[Break]:
    """Breaks of each bound by (f, g) (see the module docstring): exhaustive exact evaluation at every length up to
    ``max(max_length, N + extra)`` while a length has at most MAX_STRINGS strings."""
    try:
        bounds = _bounds(f, g)
    except ValueError:
        return []
    cap = _length_cap(len(f.alphabet))
    dis = {}

    def disagreement(n):
        if n not in dis:
            dis[n] = exhaustive_disagreement(f, g, n)
        return dis[n]

    breaks = []
    for name, (N, eps, allowed) in bounds.items():
        top = min(cap, max(max_length, N + extra) if isinstance(N, int) else 0)
        if not isinstance(N, int) or N >= top:
            continue
        try:
            if any(disagreement(n)[0] != 0 for n in range(1, N + 1)):
                continue
            later = [(disagreement(n)[0], n, disagreement(n)[1]) for n in range(N + 1, top + 1)]
        except NotExactError:  # pragma: no cover - integer logits flush from length 2 on
            continue
        later = [t for t in later if t[0] > allowed]
        if later:
            diff, n, s = max(later)
            breaks.append(Break(name, N, n, s, diff, eps))
    return breaks


def checked_bounds(f: LimitTransformer, g: LimitTransformer, max_length: int, extra: int = 3) -> list[str]:
    """The bounds :func:`check_pair` actually tests on this pair (N below the evaluated lengths)."""
    try:
        bounds = _bounds(f, g)
    except ValueError:
        return []
    cap = _length_cap(len(f.alphabet))
    return [name for name, (N, _, _) in bounds.items()
            if isinstance(N, int) and N < min(cap, max(max_length, N + extra))]


def _draws(seed: int):
    rng = random.Random(seed)
    return lambda lo, hi: rng.randint(lo, hi)


def search_pair(seed: int, index: int, **family) -> tuple[LimitTransformer, LimitTransformer]:
    """The pair number ``index`` (0-based) that :func:`random_search` with this seed (and family) tries."""
    draw = _draws(seed)
    for _ in range(index + 1):
        fs = draw_spec(draw, **family)
        gs = perturb(draw, fs)
    return build(fs, f"search-f({seed},{index})"), build(gs, f"search-g({seed},{index})")


def random_search(seed: int, pairs: int, max_length: int = 7, **family):
    """(pairs tried, breaks found as (Break, f, g)) over ``pairs`` random pairs of the family (``family``: the
    keyword arguments of :func:`draw_spec`; the defaults are the smaller family of the first searches)."""
    draw = _draws(seed)
    found = []
    for k in range(pairs):
        fs = draw_spec(draw, **family)
        gs = perturb(draw, fs)
        f, g = build(fs, f"search-f({seed},{k})"), build(gs, f"search-g({seed},{k})")
        found += [(b, f, g) for b in check_pair(f, g, max_length)]
    return pairs, found
