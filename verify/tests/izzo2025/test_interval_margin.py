"""bounds.interval_margin (the certified lower bound of the logit margin gamma in the interval mode of the Theorem 4.1
length) against the exact margin of bounds.margin.

Soundness: the interval gamma is at most the exact gamma of every model inside the enclosures.  The instances are
TIGHT: the positional terms phi_k are enclosed by balls whose midpoints are pushed apart by their radius, so the
exact phi lie on the vertices and every midpoint gap is the exact gap plus the two radii; a bound that subtracts
one radius instead of two, in the first pass or in the detailed pass, then exceeds the exact gamma.  Near-ties that
cannot be decided exactly are reported as unresolved with gamma 0, never guessed.  Controls: the same checker rejects
a bound computed from the midpoints without the radii, and the exact model decides the near-ties.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from bounds.float_enclosures import Ball
from bounds.interval_margin import interval_margin
from bounds.interval_model import from_model
from bounds.margin import logit_margin
from constructions.limit_transformer.model import Head, Layer, LimitTransformer, LocalPhi, PeriodicPositions
from verify.claims import checks


def _phi_model(phi: tuple, sigma: int = 2, delta: int = 1, key: Fraction = Fraction(0)) -> LimitTransformer:
    """One head with zero query/key (every q.k logit 0): the logit set of each query is {0} and {phi_k}, so gamma is
    the least gap among 0 and the phi values (the far keys and $ carry logit 0).  With ``key`` != 0 the key of $
    differs: $ then carries its own logit (query a sees c/7 for its far key and 8c/7 for $, c = key, Delta = 1)."""
    d = 2
    z = np.zeros((d, d), dtype=object)
    q = np.eye(d, dtype=object) * Fraction(1) if key else z.copy()
    k = np.array([[Fraction(0), Fraction(0)], [key, Fraction(0)]], dtype=object) if key else z.copy()
    emb = np.array([[Fraction(1), Fraction(0)]] + [[Fraction(0), Fraction(t)] for t in range(1, sigma + 1)],
                   dtype=object)
    pos = np.array([[Fraction(r + 1, 7), Fraction(0)] for r in range(delta)], dtype=object)
    head = Head(q, k, np.eye(d, dtype=object) * Fraction(1), LocalPhi(tuple(Fraction(v) for v in phi)))
    return LimitTransformer(alphabet=tuple("ab"[:sigma]), embedding=emb, layers=(Layer(heads=(head,), mlp=None),),
                            unembedding=np.array([[Fraction(1), Fraction(0)]], dtype=object),
                            positions=PeriodicPositions(pos), precision_bits=4)


def _vertex_enclosure(m: LimitTransformer, radius: float, pair: tuple[int, int]):
    """The interval model of ``m`` with each phi_k enclosed by a ball of the given radius; the two phi of ``pair``
    (the closest pair, phi[pair[0]] < phi[pair[1]]) get midpoints pushed apart by the radius, so the exact values
    are vertices and their midpoint gap is the exact gap plus two radii."""
    im = from_model(m)
    h = im.heads[0]
    mid = np.array([float(v) for v in m.layers[0].heads[0].phi.values])
    mid[pair[0]] -= radius
    mid[pair[1]] += radius
    head = dataclasses.replace(h, phi=Ball(mid, np.full(len(mid), radius)), phi_exact=None)
    return dataclasses.replace(im, heads=(head,))


#: phi values whose least logit gap is between the two phi of the pair (every other gap is larger), radius
CASES = [((Fraction(3), Fraction(7, 2), Fraction(-2)), (0, 1), 2.0**-10),
         ((Fraction(-5, 4), Fraction(-1), Fraction(7, 4)), (0, 1), 2.0**-8),
         ((Fraction(9, 4), Fraction(-3), Fraction(5, 2)), (0, 2), 2.0**-12)]


@checks("izzo2025:thm4.1")
@pytest.mark.parametrize(("phi", "pair", "radius"), CASES)
def test_interval_gamma_is_sound_at_the_vertices(phi, pair, radius):
    m = _phi_model(phi)
    exact = logit_margin(m, mode="exact").gamma
    got = interval_margin(_vertex_enclosure(m, radius, pair), exact_model=m)  # ties among the far keys decided exactly
    assert not got.unresolved and got.gamma_lower is not None
    assert got.gamma_lower <= exact  # sound for the exact model at the vertex
    assert exact - got.gamma_lower <= Fraction(1, 2**40)  # tight: the midpoint gap less exactly its two radii
    # control: the midpoint gap less ONE radius (the bound with a radius term dropped) exceeds the exact gamma
    mids = sorted(float(v) for v in _vertex_enclosure(m, radius, pair).heads[0].phi.mid)
    one_radius = min(b - a for a, b in zip(mids, mids[1:], strict=False)) - radius
    assert Fraction(one_radius) > exact


@checks("izzo2025:thm4.1")
def test_unresolved_near_ties_are_reported_not_guessed():
    """ModP's far keys share one logit: the enclosures cannot tell those ties from near-ties.  Without the exact
    model the margin is unresolved (gamma 0); with it (control) the ties are decided and gamma is 1/2."""
    from constructions.tasks.modp import ModPTask

    m = ModPTask(3, 1).limit_transformer(precision_bits=4, logit_scale=1)
    blind = interval_margin(from_model(m))
    assert blind.unresolved and blind.gamma_lower == 0
    decided = interval_margin(from_model(m), exact_model=m)
    assert not decided.unresolved and decided.exact_ties > 0
    assert 0 < decided.gamma_lower <= logit_margin(m, mode="exact").gamma == Fraction(1, 2)


def _normal_model(seed: int, sigma: int = 3, delta: int = 2, d: int = 6, tau: int = 2) -> LimitTransformer:
    """A one-layer model with random double weights (taken as exact Fractions)."""
    rng = np.random.default_rng(seed)

    def fr(a):
        return np.vectorize(Fraction, otypes=[object])(a)

    head = Head(fr(rng.normal(size=(d, d))), fr(rng.normal(size=(d, d))), fr(rng.normal(size=(d, d))),
                LocalPhi(tuple(Fraction(float(v)) for v in rng.normal(size=tau + 1))))
    return LimitTransformer(alphabet=tuple("abcdefgh"[:sigma]), embedding=fr(rng.normal(size=(sigma + 1, d))),
                            layers=(Layer(heads=(head,), mlp=None),), unembedding=fr(rng.normal(size=(1, d))),
                            positions=PeriodicPositions(fr(rng.normal(size=(delta, d)))), precision_bits=8)


def _table_model(logits) -> LimitTransformer:
    """One head whose logit of query token s and key token t is ``logits[s][t]`` (row and column 0: $), no
    positional terms (Delta = 1, zero positions, phi = 0): embedding = identity, Q = identity, K = the table."""
    d = len(logits)
    eye = np.eye(d, dtype=object) * Fraction(1)
    key = np.array([[Fraction(v) for v in row] for row in logits], dtype=object)  # q_s . k_t = table[s][t]
    head = Head(eye.copy(), key, eye.copy(), LocalPhi((Fraction(0),)))
    return LimitTransformer(alphabet=tuple("abcdefgh"[:d - 1]), embedding=eye.copy(),
                            layers=(Layer(heads=(head,), mlp=None),), unembedding=eye[:1].copy(),
                            positions=PeriodicPositions(np.zeros((1, d), dtype=object) * Fraction(0)),
                            precision_bits=8)


#: query a sees its far keys at 100 and 100 + 2^-30 (a near-tie: 32-bit keys over [1/2, 100] cannot separate them)
#: and $ at 1/2; query b sees 3, 7 and -2: the far logits carry the row's largest radius
NEAR_TIE_TABLE = [[0, 0, 0], [Fraction(1, 2), 100, 100 + Fraction(1, 2**30)], [-2, 3, 7]]


def _inflated(im, factor: float):
    """The same midpoints with every radius multiplied by ``factor`` (a wider enclosure: every bound of it must
    still hold for every value it admits)."""
    def big(b):
        return None if b is None else Ball(b.mid, b.rad * factor)

    heads = tuple(dataclasses.replace(h, query=big(h.query), key=big(h.key), phi=big(h.phi), phi_exact=None)
                  for h in im.heads)
    return dataclasses.replace(im, embedding=big(im.embedding), positions=big(im.positions), heads=heads)


def _row_step_bounds(im, blocks, head, s, i):
    """Per row, in exact arithmetic: the least difference of two sorted midpoints less twice the largest radius
    (the certified step of the detailed pass, before its outward rounding)."""
    from bounds.interval_margin import _row_values

    mid, rad, _ = _row_values(im, blocks, head, s, i, "completed", 0)
    out = []
    for row in range(len(s)):
        finite = [(Fraction(float(m)), Fraction(float(r))) for m, r in zip(mid[row], rad[row], strict=True)
                  if np.isfinite(m)]
        vals = sorted(m for m, _ in finite)
        step = min((b - a for a, b in zip(vals, vals[1:], strict=False)), default=None)
        out.append(None if step is None else step - 2 * max(r for _, r in finite))
    return out


@checks("izzo2025:thm4.1")
@pytest.mark.parametrize(("model", "factor"), [(0, 1.0), (1, 2.0**20), (2, 2.0**30), (4, 0.0), ("phi", 2.0**8),
                                               ("phi", 1.0), ("table", 0.0)])
def test_first_pass_bound_never_exceeds_the_row_step(model, factor):
    """The first pass (the bound that orders the rows and lets the search skip them) is at most each row's certified
    step: the least midpoint difference less twice the row's largest radius, every far logit's radius included.  A
    first pass that subtracts one radius, or bounds the far logits' radii without the rounding of their sums, lets
    the search skip a row whose gap is smaller than the one it reports.  Models: random doubles (their enclosures, and
    the same widened, and with radius 0 as read from a file of doubles), the phi model and a logit table with
    near-ties (rows the 32-bit keys cannot separate), the table's largest radius that of a far logit's rounded sum.
    Control: the step with one radius added back exceeds the certified step on the phi model's rows."""
    from bounds.interval_margin import _blocks, _row_bounds

    # near-ties: logits 1/2 and 1/2 + 2^-34 among values spread over [-1/2, 5] (32-bit keys cannot separate them)
    phi = model == "phi"
    m = (_phi_model((Fraction(1, 2**34), Fraction(1), Fraction(-1)), sigma=1, key=Fraction(7, 2)) if phi
         else _table_model(NEAR_TIE_TABLE) if model == "table" else _normal_model(model))
    im = _inflated(from_model(m), factor)
    head = im.heads[0]
    blocks = _blocks(im, head)
    qs = np.array([(s, i) for s in range(1, len(im.alphabet) + 1) for i in range(im.period)])
    first = _row_bounds(im, blocks, head, qs[:, 0], qs[:, 1], "completed", 0)
    steps = _row_step_bounds(im, blocks, head, qs[:, 0], qs[:, 1])
    compared = 0
    for f, step in zip(first, steps, strict=True):
        if step is None:
            assert f == np.inf
        elif f > 0:  # a bound <= 0 marks possible near-ties: such rows are always recomputed
            compared += 1
            assert Fraction(float(f)) <= step
    assert compared >= 1
    if phi:  # control: the first-pass bound with one radius added back (one radius subtracted) is refused
        from bounds.interval_margin import _row_values

        rad = _row_values(im, blocks, head, qs[:, 0], qs[:, 1], "completed", 0)[1]
        assert any(f > 0 and not Fraction(float(f)) + Fraction(float(np.max(r))) <= step
                   for f, step, r in zip(first, steps, rad, strict=True))


#: "a/b" parameters whose double float(a) / float(b) is not exact: 1/3 (b not a power of two), and a quotient of
#: two integers beyond 2^53 (three roundings: a, b, the division) whose error is 2.12 u relative
_FRACTION_ROWS = [["1/3", "-2/7"], ["-24264195558289742244/748747649728530149123", "5/1024"]]


@checks("izzo2025:thm4.1")
def test_interval_model_parameters_enclose_the_exact_rationals():
    """The interval model's reader (bounds.interval_model) encloses every exact rational parameter, on the fast
    path for a regular matrix and on the number-by-number path for a vector; a/2^k with |a| < 2^53 is exact
    (radius 0).  Controls: the doubles of 1/3 and of the long quotient are not exact (a radius 0 would miss them),
    and the long quotient is farther from its double than one rounding's radius u |mid|."""
    from bounds.float_enclosures import U
    from bounds.interval_model import _matrix

    F = Fraction
    exact = np.array([[F(s) for s in row] for row in _FRACTION_ROWS], dtype=object)
    for got in (_matrix(_FRACTION_ROWS, "W"),
                Ball(np.array([_matrix(r, "v", ndim=1).mid for r in _FRACTION_ROWS]),
                     np.array([_matrix(r, "v", ndim=1).rad for r in _FRACTION_ROWS]))):
        for i in range(2):
            for j in range(2):
                assert abs(exact[i, j] - F(float(got.mid[i, j]))) <= F(float(got.rad[i, j]))
    assert _matrix([["5/1024", "-3"]], "W").rad.tolist() == [[0.0, 0.0]]  # exact doubles: no radius
    mid = _matrix(_FRACTION_ROWS, "W").mid
    assert F(float(mid[0, 0])) != exact[0, 0]
    assert abs(exact[1, 0] - F(float(mid[1, 0]))) > F(U) * (1 + 4 * F(U)) * abs(F(float(mid[1, 0])))
