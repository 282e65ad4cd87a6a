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


def _phi_model(phi: tuple, sigma: int = 2, delta: int = 1) -> LimitTransformer:
    """One head with zero query/key (every q.k logit 0): the logit set of each query is {0} and {phi_k}, so gamma is
    the least gap among 0 and the phi values (the far keys and $ carry logit 0)."""
    d = 2
    z = np.zeros((d, d), dtype=object)
    emb = np.array([[Fraction(1), Fraction(0)]] + [[Fraction(0), Fraction(t)] for t in range(1, sigma + 1)],
                   dtype=object)
    pos = np.array([[Fraction(r + 1, 7), Fraction(0)] for r in range(delta)], dtype=object)
    head = Head(z.copy(), z.copy(), np.eye(d, dtype=object) * Fraction(1), LocalPhi(tuple(Fraction(v) for v in phi)))
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
