"""Lemmas 48, 52, 53: the period search (Hypothesis), the translator T in Theta_n -> Limit Transformer, its exact
correctness check, and the tau reading of Definition 50 (docs/gaps.md); negative controls throughout."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp.compiler import compile_program
from constructions.crasp.programs import BENCHMARKS
from constructions.huang.errors import NotTranslatableError
from constructions.huang.finite import fractional_bits
from constructions.huang.lemma47 import compile_theta
from constructions.huang.lemma52 import period_of, phi_coordinates, translate, translation_mismatch
from constructions.huang.regularizer import limit_complexity, regularizer
from constructions.limit_transformer import Head, Layer, LimitTransformer, LocalPhi
from constructions.tasks.modp import ModPTask
from verify.claims import checks

DYADIC = st.sampled_from([Fraction(k, 2) for k in range(-2, 3)])


def _signed_permutation(perm, signs):
    r = len(perm)
    m = np.zeros((r, r), dtype=object)
    m.fill(Fraction(0))
    for a, b in enumerate(perm):
        m[b, a] = Fraction(signs[a])
    return m


@st.composite
def invariant_products(draw):
    """F(delta) = u_0^T A R^delta v_0 with R a signed permutation (orthogonal, so ||u_i|| is bounded), A a
    polynomial in R (so R^T A R = A: translation invariance), dyadic entries (p-bit values)."""
    r = draw(st.integers(1, 3))
    perm = draw(st.permutations(list(range(r))))
    signs = draw(st.lists(st.sampled_from([1, -1]), min_size=r, max_size=r))
    R = _signed_permutation(perm, signs)
    coeffs = draw(st.lists(DYADIC, min_size=r, max_size=r))
    A = sum((c * np.linalg.matrix_power(R, k) for k, c in enumerate(coeffs)), np.zeros((r, r), dtype=object))
    u = np.array(draw(st.lists(DYADIC, min_size=r, max_size=r)), dtype=object)
    v = np.array(draw(st.lists(DYADIC, min_size=r, max_size=r)), dtype=object)
    return r, R, A, u, v


@checks("huang2024:lem48")
@settings(max_examples=60, deadline=None)
@given(invariant_products())
def test_lemma48_bounded_rank_norm_precision_gives_period_independent_of_n(case):
    r, R, A, u, v = case
    N = 48
    F, w = [], v.copy()
    for _ in range(N):
        F.append(Fraction(u.dot(A.dot(w))))
        w = R.dot(w)
    assert max(fractional_bits(x) for x in F) <= 3  # p-bit values, p = 3 (hypothesis of the lemma)
    assert period_of(F) <= 2 * math.lcm(*range(1, r + 1))  # bound depends on r only, not on N


@checks("huang2024:lem48")
def test_lemma48_hypotheses_are_needed():
    N = 40
    # unbounded norms: u_i = (-i, 1), v_j = (1, j): g(i, j) = j - i is translation invariant, integer, rank 2
    F = [Fraction(-1 * 1 + 1 * (1 + d)) for d in range(N)]
    assert period_of(F) == N  # not periodic on any window: the same checker rejects it
    # no p-bit values: Pythagorean rotation (3/5, 4/5) keeps norms bounded but denominators are 5^delta
    R = np.array([[Fraction(3, 5), Fraction(-4, 5)], [Fraction(4, 5), Fraction(3, 5)]], dtype=object)
    w, vals = np.array([Fraction(1), Fraction(0)], dtype=object), []
    for _ in range(12):
        vals.append(w[0])
        w = R.dot(w)
    assert period_of(vals) == 12
    with pytest.raises(Exception, match="dyadic"):
        fractional_bits(vals[1])


def _models():
    return [compile_program(BENCHMARKS[n].program()) for n in ("aa_star", "tomita4", "majority", "abab_star")] + [
        ModPTask(3, 1).limit_transformer(precision_bits=2)]


@checks("huang2024:lem52", "huang2024:lem52.subclass", "huang2024:lem53", "huang2024:def50")
@pytest.mark.parametrize("idx", range(5))
def test_lemma52_round_trip_exact(idx):
    T = _models()[idx]
    Tn = compile_theta(T, 8)
    That = translate(Tn)
    words = ["".join(w) for k in range(0, 4) for w in itertools.product(T.alphabet, repeat=k)]
    assert translation_mismatch(Tn, That, words) is None  # T^(x, 0) = T_n(x, o) for every offset
    assert That.is_periodic_and_local
    Rn, Ri = regularizer(Tn), limit_complexity(That)
    assert Ri.p == Rn.p and Ri.mass == Rn.eq8 and Ri.norm <= Rn.norm  # ingredients bounded by R(T)
    # negative control: a corrupted phi in the translation is caught by the same exact comparison
    if Ri.tau > 0:
        layers = list(That.layers)
        l = next(k for k, layer in enumerate(layers) if any(h.phi is not None for h in layer.heads))
        heads = tuple(Head(h.query, h.key, h.value, None) for h in layers[l].heads)
        layers[l] = Layer(heads, layers[l].mlp)
        broken = LimitTransformer(That.alphabet, That.embedding, tuple(layers), That.unembedding, That.positions,
                                  That.precision_bits, That.precision)
        assert translation_mismatch(Tn, broken, words) is not None


@checks("huang2024:lem52", "huang2024:lem52.subclass")
def test_translator_refuses_outside_its_subclass():
    T = compile_theta(compile_program(BENCHMARKS["tomita4"].program()), 6)
    S = phi_coordinates(T)
    assert len(S) == 6  # region II
    table = T.table.copy()
    table[2, S[0]] = 1  # p_3 now also has e_1: the phi-coordinate Gram matrix is no longer Toeplitz
    from constructions.huang.finite import FiniteTransformer
    with pytest.raises(NotTranslatableError):
        translate(FiniteTransformer(T.model, table))


@checks("huang2024:lem52.tau")
def test_tau_is_not_bounded_by_R():
    """R(T_n) is constant while the phi of eq. (41) has tau = n - 1: R_infinity including tau is unbounded."""
    E = [[0, 0], [1, 0], [0, 1]]
    taus, rs = [], []
    for n in (4, 8, 16):
        head = Head([[0, 0]], [[0, 0]], [[0, 0], [1, 0]], LocalPhi(tuple([0] * (n - 1) + [1])))
        T = LimitTransformer(("a", "b"), E, (Layer((head,)),), [[0, 1], [0, 1]], precision_bits=1)
        Tn = compile_theta(T, n)
        rs.append(regularizer(Tn).total)
        That = translate(Tn)
        taus.append(That.tau)
        # the far logit matters: dropping it changes T_n's output at length n (so eq. (41)'s phi needs it)
        flat = LimitTransformer(("a", "b"), E, (Layer((Head([[0, 0]], [[0, 0]], [[0, 0], [1, 0]]),)),),
                                [[0, 1], [0, 1]], precision_bits=1, precision="huang")
        w = "a" + "b" * (n - 2)
        assert translation_mismatch(Tn, flat, [w], offsets=[0]) is not None
    assert len(set(rs)) == 1 and taus == [3, 7, 15]
    # negative control: with a local phi (tau = 1) the same measurement stays bounded
    head = Head([[0, 0]], [[0, 0]], [[0, 0], [1, 0]], LocalPhi((0, 1)))
    T = LimitTransformer(("a", "b"), E, (Layer((head,)),), [[0, 1], [0, 1]], precision_bits=1)
    assert {translate(compile_theta(T, n)).tau for n in (4, 8, 16)} == {1}
