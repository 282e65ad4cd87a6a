"""golowich2025 Definitions 3.2, 3.3 and the k-gram example, on exact enumerations (constructions.golowich.model)."""

import itertools
import math
from fractions import Fraction

from constructions.golowich import model as E
from verify.claims import checks


def _ens():
    mu = {0: Fraction(3, 4), 1: Fraction(1, 4)}
    Q = E.random_shift_Q({(1, 2): Fraction(1, 3), (1, 3): Fraction(2, 3)}, 3)
    Qvoc = {(2, 0): Fraction(1, 2), (2, 1): Fraction(1, 2)}
    return E.Planted(2, mu, Q, Qvoc, lambda z: Fraction(z[1]))


@checks("golowich2025:def3.2")
def test_planted_joint_is_the_product_formula():
    P = _ens()
    for ell in (3, 4, 5):
        joint = list(P.joint(ell))
        assert sum(p for *_, p in joint) == 1
        for x, S, p in joint:
            rest = [i for i in range(1, ell + 1) if i not in S]
            expect = P.Q(ell)[S] * P.Qvoc[tuple(x[i - 1] for i in S)] * math.prod(P.mu[x[i - 1]] for i in rest)
            assert p == expect
        # background marginal given S*: iid mu on the other positions
        S0 = next(iter(P.Q(ell)))
        rest = [i for i in range(1, ell + 1) if i not in S0]
        cond = [(x, p) for x, S, p in joint if S == S0]
        tot = sum(p for _, p in cond)
        for bg in itertools.product((0, 1), repeat=len(rest)):
            got = sum(p for x, p in cond if tuple(x[i - 1] for i in rest) == bg) / tot
            assert got == math.prod(P.mu[b] for b in bg)
    # negative control: a wrong background law is detected by the same recount
    bad = E.Planted(2, {0: Fraction(1, 2), 1: Fraction(1, 2)}, P.Q, P.Qvoc, P.gstar)
    x, S, p = next(bad.joint(4))
    assert p != P.Q(4)[S] * P.Qvoc[tuple(x[i - 1] for i in S)] * math.prod(
        P.mu[x[i - 1]] for i in range(1, 5) if i not in S)


@checks("golowich2025:def3.3")
def test_sparse_attention_k1_is_softmax_and_shift_invariance_and_fallback():
    w = {0: Fraction(1), 1: Fraction(3), 2: Fraction(1, 2)}
    g1 = {0: Fraction(0), 1: Fraction(1), 2: Fraction(1, 3)}
    for x in itertools.product(range(3), repeat=4):
        h = E.attention(lambda S, xs: w[xs[0]], lambda xs: g1[xs[0]], x, 1)
        soft = sum(w[t] * g1[t] for t in x) / sum(w[t] for t in x)
        assert h == soft
        scaled = E.attention(lambda S, xs: 7 * w[xs[0]], lambda xs: g1[xs[0]], x, 1)  # g0 + log 7
        assert scaled == h
    # fallback (footnote 6): all scores -inf -> uniform average over Sets_k
    x = (0, 1, 1, 2)
    assert E.attention(lambda S, xs: 0, lambda xs: Fraction(xs[1]), x, 2) == Fraction(1 + 1 + 2 + 1 + 2 + 2, 6)
    # local speed-up equals the full sum for a local key
    loc = lambda S, xs: Fraction(1 + xs[0]) if E.span(S) <= 2 else 0  # noqa: E731
    for x in itertools.product(range(2), repeat=6):
        assert E.attention(loc, lambda xs: Fraction(xs[0] * xs[1]), x, 2, local=2) == E.attention(
            loc, lambda xs: Fraction(xs[0] * xs[1]), x, 2)
    # negative control: a non-local key gives a different value when restricted
    nonloc = lambda S, xs: Fraction(1)  # noqa: E731
    x = (1, 0, 0, 0, 1)
    assert E.attention(nonloc, lambda xs: Fraction(xs[0] * xs[1]), x, 2, local=2) != E.attention(
        nonloc, lambda xs: Fraction(xs[0] * xs[1]), x, 2)


def kgram_planted_set(ell, k, lp):
    return tuple(range(lp + 1, lp + k + 2)) + tuple(range(ell - k + 1, ell + 1))


@checks("golowich2025:ex-kgram")
def test_kgram_example_is_2k_plus_1_sparse_and_not_local():
    for k in (1, 2, 3):
        for ell in range(2 * k + 2, 20):
            spans = []
            for lp in range(1, ell - 2 * k):  # l' ~ Unif([l - 2k - 1])
                S = kgram_planted_set(ell, k, lp)
                assert len(set(S)) == 2 * k + 1 and lp + k + 1 <= ell - k
                spans.append(E.span(S))
            assert max(spans) == ell - 2  # l - l' - 1 with l' = 1: grows with l -> no fixed L_local
