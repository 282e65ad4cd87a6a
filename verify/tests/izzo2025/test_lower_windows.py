"""Every printed lower bound of the bump and chain families (bounds/lower.py) re-evaluated on its own pair: the
package's exact evaluator (:func:`constructions.limit_transformer.exact.exact_forward`, Fractions, izzo precision in
the hardmax regime) on EVERY input of every length up to the family's agreement length, for small classes whose
window is long (tau >= (N_b + 1) Delta: inputs no longer than the window hold ``$`` in it) as well as short.  The
negative control is the earlier construction, whose window slots all added the same ``-G0``: on an input no longer
than the window ``$`` then ties with the gated tokens, and the same check finds a disagreement before the printed
length."""

import dataclasses
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from bounds.lower import ModelClass, bump, chain
from constructions.limit_transformer.exact import exact_forward
from constructions.limit_transformer.model import LocalPhi
from verify.claims import checks


def _cls(**kw):
    base = dict(sigma=1, period=1, tau=64, heads=1, K=Fraction(1, 2), precision_bits=8, gamma=Fraction(8),
                eps=Fraction(9, 100), delta=Fraction(0))
    return ModelClass(**{**base, **kw})


def _negated(f, g) -> bool:
    """g is f with the MLP's output weight negated (everything else equal), so f - g = 2 f exactly."""
    lf, lg = f.layers[0], g.layers[0]
    heads = len(lf.heads) == len(lg.heads) and all(
        all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("query", "key", "value"))
        and a.phi.values == b.phi.values for a, b in zip(lf.heads, lg.heads, strict=True))
    same = (f.alphabet == g.alphabet and np.array_equal(f.embedding, g.embedding) and heads
            and np.array_equal(f.positions.table, g.positions.table) and len(f.layers) == len(g.layers) == 1
            and np.array_equal(f.unembedding, g.unembedding) and f.precision_bits == g.precision_bits
            and f.precision == g.precision and np.array_equal(lf.mlp.A, lg.mlp.A) and np.array_equal(lf.mlp.b, lg.mlp.b))
    return same and np.array_equal(lf.mlp.B, -lg.mlp.B)


def first_disagreement(f, g, delta, lengths, strings=None) -> int | None:
    """The first model length in ``lengths`` at which some input has |f - g| > delta (every string over the alphabet,
    or those ``strings(length)`` yields), exactly; None when there is none.  The pair must be a negated pair, so one
    exact evaluation of f per input gives |f - g| = 2 |f|."""
    assert _negated(f, g)
    for n in lengths:
        pool = strings(n) if strings else ("".join(t) for t in itertools.product(f.alphabet, repeat=n - 1))
        for s in pool:
            if 2 * abs(exact_forward(f, s, positions="last")[0]) > delta:
                return n
    return None


def _uniform_window(model):
    """The earlier construction: every window slot adds the same -G0, so ``$`` in the window ties (the mutation)."""
    layer = model.layers[0]
    heads = tuple(dataclasses.replace(h, phi=LocalPhi((max(h.phi.values),) * len(h.phi.values))) for h in layer.heads)
    return dataclasses.replace(model, layers=(dataclasses.replace(layer, heads=heads),))


# (family, class): |Sigma| = 1 gives one input per length, so long windows are enumerated in full; |Sigma| = 2, 3
# with windows at least (N_b + 1) Delta (resp. S Delta) and a short one
CASES = [
    ("bump", _cls()),                                                   # tau = 64 >= (N_b + 1) Delta = 20
    ("bump", _cls(period=3, tau=40, eps=Fraction(1, 4), delta=Fraction(1, 10))),
    ("bump", _cls(tau=0)),                                              # short window
    ("bump", _cls(sigma=2, tau=4, eps=Fraction(4, 5))),                  # N_b = 1: every string of length <= 7
    ("bump", _cls(sigma=2, period=2, tau=4, eps=Fraction(4, 5))),
    ("chain", _cls(sigma=2, tau=3, eps=Fraction(4, 5))),
    ("chain", _cls(sigma=3, heads=2, tau=2, K=Fraction(1), eps=Fraction(6, 5))),  # S = 2 <= tau
]


@pytest.mark.parametrize("family,cls", [pytest.param(f, c, marks=checks(f"izzo2025:lower.{f}"),  # its own claim
                                                      id=f"{f}-S{c.sigma}-D{c.period}-tau{c.tau}") for f, c in CASES])
def test_every_input_up_to_the_printed_length_agrees(family, cls):
    """Exact evaluation of the pair on every input of every length <= agree: within delta; for the bump the
    all-first-symbol input of length agree + 1 is above delta, so the length is the pair's own.  Control: the
    uniform-window mutation of the same pair is caught by the same check at a length <= tau + 1 whenever the
    bump's window is long ((N_b + 1) Delta <= tau)."""
    lb = bump(cls) if family == "bump" else chain(cls, min(cls.heads, cls.sigma - 1))
    n = lb.agree.exact
    assert n is not None and n <= 100
    f, g = lb.pair()
    assert first_disagreement(f, g, cls.delta, range(1, n + 1)) is None
    if family == "bump":
        assert first_disagreement(f, g, cls.delta, [n + 1], strings=lambda k: ["a" * (k - 1)]) == n + 1
        if n - cls.tau - 1 <= cls.tau:  # (N_b + 1) Delta <= tau: $ is in the window of a disagreeing input
            bad = first_disagreement(_uniform_window(f), _uniform_window(g), cls.delta, range(1, n + 1),
                                     strings=lambda k: ["a" * (k - 1)])
            assert bad is not None and bad <= cls.tau + 1, bad


@pytest.mark.parametrize("family,sigma,heads,tau", [pytest.param(*case, marks=checks(f"izzo2025:lower.{case[0]}"))
                                                     for case in (("bump", 2, 1, 64), ("bump", 2, 1, 400),
                                                                  ("chain", 3, 2, 400))])
def test_long_window_classes_on_their_worst_inputs(family, sigma, heads, tau):
    """Classes with windows far beyond (N_b + 1) Delta (|Sigma| = 2, 3; every input cannot be listed): the inputs that
    maximise the gated counts (the bump: all a, a alternated with b; the chain: all c, and m b's
    before the c's, the m of the shortest such input that differs) agree at lengths 1..agree (a stride of 30, the window's end and the last ones), and
    the earlier, uniform-window construction is caught on them at a length <= tau + 1."""
    cls = _cls(sigma=sigma, heads=heads, tau=tau, K=Fraction(heads, 2), eps=Fraction(heads, 10))
    lb = bump(cls) if family == "bump" else chain(cls, heads)
    n = lb.agree.exact
    f, g = lb.pair()
    if family == "bump":
        def strings(k):
            yield "a" * (k - 1)
            yield "ab" * ((k - 1) // 2) + "a" * ((k - 1) % 2)
    else:
        nu1 = lb.params["nu1"]  # b^m c^r differs iff 1/(1 + m) + (1 + m)/(1 + m + r) < nu1: the m with the least r

        def least_r(m):
            return math.floor((1 + m) / (nu1 - Fraction(1, 1 + m)) - (1 + m)) + 1

        m = min((k for k in range(1, tau) if Fraction(1, 1 + k) < nu1), key=lambda k: k + least_r(k))

        def strings(k):
            yield "c" * (k - 1)
            yield "b" * min(m, k - 1) + "c" * max(0, k - 1 - m)

    lengths = sorted(k for k in {1, 2, 3, *range(5, n + 1, 30), n - 1, n, tau, tau + 1, tau + 2} if k <= n)
    assert first_disagreement(f, g, cls.delta, lengths, strings) is None
    bad = first_disagreement(_uniform_window(f), _uniform_window(g), cls.delta, lengths, strings)
    assert bad is not None and bad <= tau + 1, bad
