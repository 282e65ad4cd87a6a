"""High capacity (ahuja2024 sec. 4, App. B.1), Theorem 10 and Lemma 11, checked exactly.

Slow tests: ``pytest -m slow verify/tests/ahuja2024/test_capacity.py``.
"""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.realizing import MLP, RNN, AttentionTransformer, DeepSet, LinearSSM, RealizingError
from constructions.realizing.mlp import mlp_append_input
from counterexamples.capacity import (
    CapacityError,
    check_interval_witness,
    check_witness,
    deep_set_witness,
    exact_risk,
    finite_class_threshold,
    lemma11_check,
    mean_pool_obstruction,
    offset_class,
    quantized_deep_sets,
    risk,
    rnn_counter,
    rnn_witness,
    ssm_witness,
    transformer_witness,
)
from verify.ahuja import capacity as capacity_proof
from verify.ahuja import covers
from verify.claims import checks
from verify.kernel import assert_universal_proof

# ------------------------------------------------------------------------------------- strategies
small = st.fractions(min_value=-2, max_value=2, max_denominator=4)
nonzero_c = small.filter(lambda c: c != 0)


def mlp_strategy(in_dim, out_dim, hidden=2):
    def build(ws):
        w1, b1, w2, b2 = ws
        return MLP(((w1, b1, "relu"), (w2, b2, "linear")))

    return st.tuples(
        st.lists(st.lists(small, min_size=in_dim, max_size=in_dim), min_size=hidden, max_size=hidden),
        st.lists(small, min_size=hidden, max_size=hidden),
        st.lists(st.lists(small, min_size=hidden, max_size=hidden), min_size=out_dim, max_size=out_dim),
        st.lists(small, min_size=out_dim, max_size=out_dim),
    ).map(build)


def seqs_strategy(dim, max_len, const=False):
    tok = st.lists(small, min_size=dim, max_size=dim).map(lambda v: tuple(v) + ((1,) if const else ()))
    return st.lists(st.lists(tok, min_size=1, max_size=max_len), min_size=1, max_size=4)


def fixed_f_deep_set():
    phi = MLP((([[1, -1], [2, 1]], [0, 1], "relu"), ([[1, 1], [-1, 2]], [0, 0], "linear")))
    rho = MLP((([[1, -2], [1, 1]], [1, 0], "relu"), ([[1, -1], [0, 3]], [Fraction(1, 2), 0], "linear")))
    return DeepSet(phi, rho)


RATIONAL_TOKENS = [(0, 1), (1, 0), (Fraction(1, 2), Fraction(-1, 3))]


def all_sequences(tokens, max_len):
    return [list(s) for n in range(1, max_len + 1) for s in itertools.product(tokens, repeat=n)]


# ------------------------------------------------------------------------------------ deep sets
@checks("ahuja2024:sec4.1-high-capacity")
def test_deep_set_witness_exact_on_all_short_rational_sequences():
    f = fixed_f_deep_set()
    h = deep_set_witness(f, 3, Fraction(1, 5))
    r = check_witness(f, h, 3, Fraction(1, 5), all_sequences(RATIONAL_TOKENS, 5))
    assert r.is_witness and r.prefixes_checked > 1000


@checks("ahuja2024:sec4.1-high-capacity")
@settings(max_examples=12)
@given(phi=mlp_strategy(2, 2), rho=mlp_strategy(2, 1), T=st.integers(1, 4), c=nonzero_c, data=st.data())
def test_deep_set_witness_property(phi, rho, T, c, data):
    f = DeepSet(phi, rho)
    h = deep_set_witness(f, T, c)
    seqs = data.draw(seqs_strategy(2, T + 3))
    r = check_witness(f, h, T, c, seqs)
    assert r.matches_train and r.offset_beyond
    # permutation invariance of the witness (it is a deep set)
    xs = seqs[0]
    assert h.outputs(xs)[-1] == h.outputs(list(reversed(xs)))[-1]


@checks("ahuja2024:sec4.1-high-capacity")
@pytest.mark.parametrize("acts", [("linear", "linear"), ("relu", "relu"), ("linear",), ("relu",),
                                  ("linear", "relu", "linear")])
def test_deep_set_witness_for_any_rho_layer_pattern(acts):
    layers = tuple(([[1, -1], [Fraction(1, 2), 2]], [0, -1], a) for a in acts)
    f = DeepSet(fixed_f_deep_set().phi, MLP(layers))
    h = deep_set_witness(f, 2, Fraction(3, 4))
    assert check_witness(f, h, 2, Fraction(3, 4), all_sequences(RATIONAL_TOKENS, 4)).is_witness


@checks("ahuja2024:sec4.1-high-capacity", "ahuja2024:def1")
def test_negative_controls_c_zero_and_wrong_T_are_not_witnesses():
    f = fixed_f_deep_set()
    seqs = all_sequences(RATIONAL_TOKENS, 4)
    assert not check_witness(f, deep_set_witness(f, 3, 0), 3, 0, seqs).is_witness
    wrong = check_witness(f, deep_set_witness(f, 2, Fraction(1, 5)), 3, Fraction(1, 5), seqs)
    assert not wrong.is_witness and not wrong.matches_train and wrong.first_violation[1] == 3
    assert not check_witness(f, f, 3, Fraction(1, 5), seqs).is_witness


@checks("ahuja2024:sec4.1-high-capacity", "ahuja2024:def1")
def test_witness_is_a_risk_minimizer_that_fails_beyond_T():
    f = fixed_f_deep_set()
    c, T = Fraction(1, 5), 2
    h = deep_set_witness(f, T, c)
    support = RATIONAL_TOKENS
    assert risk(h, f, support, T) == 0
    assert exact_risk(h, f, support, T + 1) == exact_risk(h, f, support, T + 2) == 2 * c**2  # m = 2 outputs


@checks("ahuja2024:sec4.4-high-capacity")
def test_sigmoid_rnn_witness_for_every_f_T_and_c():
    """The sigmoid-counter witness for every f, T and c (z3, sigma's monotonicity cited): the counter increases
    strictly, so the readout adds c exactly beyond T; controls: s_0 = 1, a < 0, an induction hypothesis dropped."""
    assert_universal_proof(capacity_proof.rnn_universal(), 6)


@checks("ahuja2024:sec4.1-high-capacity")
def test_deep_set_witness_for_every_f_T_and_c():
    """The witness f + c[t > T] for every phi, rho, m, d, T and c != 0 (z3): counter, ramp at integers, offset per
    coordinate, loss d c^2 [t > T]; controls: constant 0 appended, ramp of width 2, c = 0."""
    assert_universal_proof(capacity_proof.universal(), 7)


# ---------------------------------------------------------------------------------- transformers
def fixed_psi():
    return MLP((([[1, 0, -1, 1], [0, 1, 1, 0]], [0, 0], "relu"), ([[1, 1], [0, 1]], [0, 0], "linear")))


@checks("ahuja2024:sec4.2-high-capacity")
def test_transformer_sum_pooling_witness_exact():
    f = AttentionTransformer(fixed_psi(), fixed_f_deep_set().rho, "sum")
    h = transformer_witness(f, 3, Fraction(-3, 2))
    assert check_witness(f, h, 3, Fraction(-3, 2), all_sequences(RATIONAL_TOKENS, 4)).is_witness


@checks("ahuja2024:sec4.2-high-capacity")
def test_transformer_relative_mean_pooling_witness_exact():
    f = AttentionTransformer(mlp_append_input(fixed_psi()), fixed_f_deep_set().rho, "mean", relative=True)
    h = transformer_witness(f, 2, Fraction(1, 10))
    assert check_witness(f, h, 2, Fraction(1, 10), all_sequences(RATIONAL_TOKENS, 4)).is_witness


@checks("ahuja2024:sec4.2-high-capacity")
def test_mean_pooling_without_positions_cannot_hold_the_witness():
    f = AttentionTransformer(fixed_psi(), fixed_f_deep_set().rho, "mean")
    with pytest.raises(CapacityError, match="not in the class"):
        transformer_witness(f, 3, 1)


@checks("ahuja2024:sec4.2-high-capacity")
@settings(max_examples=12)
@given(psi=mlp_strategy(4, 2, hidden=3), x=st.tuples(small, small))
def test_mean_pool_obstruction_property(psi, x):
    """Every mean-pooled member pools a constant sequence to the same vector at every length ..."""
    m = AttentionTransformer(psi, MLP.linear([[1, 0]]), "mean")
    assert mean_pool_obstruction(m, x, [1, 2, 3, 5, 8])


@checks("ahuja2024:sec4.2-high-capacity")
def test_mean_pool_obstruction_negative_control():
    """... which the check denies for the sum-pooled and the relative-position variants (count leaks)."""
    psi = MLP((([[0, 0, 0, 0]], [1], "relu"),))  # psi == 1
    assert not mean_pool_obstruction(AttentionTransformer(psi, MLP.linear([[1]]), "sum"), (0, 0), [1, 2])
    psi_rel = MLP((([[0, 0, 0, 0, 1]], [0], "relu"),))  # psi = [i = j]
    assert not mean_pool_obstruction(AttentionTransformer(psi_rel, MLP.linear([[1]]), "mean", True), (0, 0), [1, 2])


# ----------------------------------------------------------------------------------------- SSMs
def fixed_ssm():
    rho = fixed_f_deep_set().rho
    return LinearSSM([[Fraction(1, 2), 1], [0, Fraction(-1, 3)]], [[1, 0, 0], [0, 1, 2]], rho)


SSM_TOKENS = [(0, 1, 1), (1, 0, 1), (Fraction(1, 2), Fraction(-1, 3), 1)]


@checks("ahuja2024:sec4.3-high-capacity")
def test_ssm_witness_with_constant_coordinate_exact():
    f = fixed_ssm()
    h = ssm_witness(f, 3, Fraction(2, 7), const_index=2)
    assert check_witness(f, h, 3, Fraction(2, 7), all_sequences(SSM_TOKENS, 4)).is_witness


@checks("ahuja2024:sec4.3-high-capacity")
@settings(max_examples=10)
@given(rho=mlp_strategy(2, 1), lam=st.lists(st.lists(small, min_size=2, max_size=2), min_size=2, max_size=2),
       b=st.lists(st.lists(small, min_size=3, max_size=3), min_size=2, max_size=2), T=st.integers(1, 4),
       c=nonzero_c, data=st.data())
def test_ssm_witness_property(rho, lam, b, T, c, data):
    f = LinearSSM(lam, b, rho)
    h = ssm_witness(f, T, c, const_index=2)
    assert check_witness(f, h, T, c, data.draw(seqs_strategy(2, T + 3, const=True))).is_witness


@checks("ahuja2024:sec4.3-high-capacity")
@settings(max_examples=10)
@given(rho=mlp_strategy(3, 1), lam=st.lists(st.lists(small, min_size=3, max_size=3), min_size=3, max_size=3),
       b=st.lists(st.lists(small, min_size=2, max_size=2), min_size=3, max_size=3))
def test_ssm_without_constant_input_is_blind_to_length_on_zero_input(rho, lam, b):
    """Every SSM labels 0^t with rho(0) for all t, so no SSM equals f + c[t > T] there (c != 0)."""
    m = LinearSSM(lam, b, rho)
    outs = m.outputs([(0, 0)] * 6)
    assert all(o == outs[0] for o in outs)
    with pytest.raises(CapacityError, match="constant coordinate"):
        ssm_witness(m, 2, 1, const_index=None)


# ----------------------------------------------------------------------------------------- RNNs
def fixed_rnn(act):
    return RNN([[Fraction(1, 2), 1], [0, Fraction(-1, 3)]], [[1, 0, 0], [0, 1, 2]], fixed_f_deep_set().rho, act)


@checks("ahuja2024:sec4.4-high-capacity")
@pytest.mark.parametrize("act", ["relu", "hard_sigmoid"])
def test_rnn_witness_exact(act):
    f = fixed_rnn(act)
    h = rnn_witness(f, 3, Fraction(1, 5), const_index=2 if act == "relu" else None)
    assert check_witness(f, h, 3, Fraction(1, 5), all_sequences(SSM_TOKENS, 4)).is_witness


@checks("ahuja2024:sec4.4-high-capacity")
def test_hard_sigmoid_counter_strictly_increasing_without_input():
    vals = rnn_counter("hard_sigmoid", 30)
    assert vals[0] == Fraction(1, 2) and all(a < b < Fraction(2, 3) for a, b in zip(vals, vals[1:], strict=False))


@checks("ahuja2024:sec4.4-high-capacity")
def test_relu_rnn_needs_constant_input_negative_control():
    with pytest.raises(CapacityError, match="constant input"):
        rnn_witness(fixed_rnn("relu"), 3, 1)
    assert rnn_counter("relu", 4) == [1, 2, 3, 4, 5]


@checks("ahuja2024:sec4.4-high-capacity")
def test_sigmoid_rnn_witness_certified_by_intervals():
    f = fixed_rnn("sigmoid")
    h = rnn_witness(f, 2, Fraction(1, 5))
    seqs = all_sequences(SSM_TOKENS[:2], 4)
    assert check_interval_witness(f, h, 2, Fraction(1, 5), seqs).is_witness
    bad = check_interval_witness(f, rnn_witness(f, 2, 0), 2, Fraction(1, 5), seqs)  # c mismatch: rejected
    assert not bad.is_witness and bad.matches_train and not bad.offset_beyond


@checks("ahuja2024:sec4.4-high-capacity")
@settings(max_examples=10)
@given(rho=mlp_strategy(2, 1), lam=st.lists(st.lists(small, min_size=2, max_size=2), min_size=2, max_size=2),
       b=st.lists(st.lists(small, min_size=3, max_size=3), min_size=2, max_size=2), T=st.integers(1, 4),
       c=nonzero_c, data=st.data())
def test_hard_sigmoid_rnn_witness_property(rho, lam, b, T, c, data):
    f = RNN(lam, b, rho, "hard_sigmoid")
    h = rnn_witness(f, T, c)
    assert check_witness(f, h, T, c, data.draw(seqs_strategy(2, T + 3, const=True))).is_witness


# ------------------------------------------------------------------------------------ App. B.1
@checks("ahuja2024:app-b1")
def test_b1_shaped_witnesses_and_loss_c_squared():
    # deep set, c = 0.2, T = 5 (B.1); scalar tokens {0, 1}
    f = DeepSet(MLP((([[1], [-1]], [0, 1], "relu"), ([[1, 2]], [0], "linear"))),
                MLP((([[1]], [-1], "relu"), ([[2]], [0], "linear"))))
    c, T = Fraction(1, 5), 5
    h = deep_set_witness(f, T, c)
    support = [(0,), (1,)]
    assert risk(h, f, support, T) == 0 and exact_risk(h, f, support, T + 1) == c**2 == Fraction(1, 25)
    # transformer, c = 0.1, T = 10, sum pooling (the released code's pooling)
    tf = AttentionTransformer(MLP((([[1, -1]], [0], "relu"),)), MLP.linear([[1]]), "sum")
    ht = transformer_witness(tf, 10, Fraction(1, 10))
    seqs = [[(1,)] * 12, [(0,), (1,)] * 6, [(1,), (0,), (0,)] * 4]
    r = check_witness(tf, ht, 10, Fraction(1, 10), seqs)
    assert r.is_witness
    loss = [(a[0] - b[0]) ** 2 for a, b in zip(tf.outputs(seqs[0]), ht.outputs(seqs[0]), strict=True)]
    assert loss[:10] == [0] * 10 and loss[10:] == [Fraction(1, 100)] * 2


# ---------------------------------------------------------------------------- Theorem 10, Lemma 11
def scalar_f():
    return DeepSet(MLP((([[1]], [0], "relu"),)), MLP.linear([[1]]))


@checks("ahuja2024:thm10", "ahuja2024:lem11")
@pytest.mark.parametrize("K", [1, 3])
def test_theorem10_offset_class_threshold_exact(K):
    f = scalar_f()
    res = finite_class_threshold(offset_class(f, K, Fraction(1, 5)), f, [(0,), (1,)], K + 3)
    assert res.T_star == K + 1 and res.paper_T0 == K
    assert res.T_h == {j: j + 1 for j in range(1, K + 1)}
    assert res.theorem_holds
    assert all(res.generalizes[T] for T in range(K + 1, K + 4))
    assert not res.generalizes[K]  # negative control: one step below the threshold a minimizer fails
    assert K in res.minimizers[K]  # ... namely f + c[t > K]
    assert res.lemma11["holds"] and res.lemma11["T0"] == K + 1


@checks("ahuja2024:thm10")
def test_theorem10_for_every_finite_class():
    """Theorem 10 for every finite class (N symbolic), law and risk table (z3): minimisers have zero risk at the
    training lengths, and beyond T0 = F(N) at every length; controls: R~ >= 0 dropped, an infinite class."""
    assert_universal_proof(covers.thm10_universal(), 8)


@checks("ahuja2024:thm10")
def test_theorem10_threshold_not_bounded_by_class_size():
    f = scalar_f()
    for K in (2, 5):
        pair = [f, deep_set_witness(f, K, 1)]
        res = finite_class_threshold(pair, f, [(0,), (1,)], K + 2)
        assert res.class_size == 2 and res.T_star == K + 1 and res.theorem_holds


@checks("ahuja2024:thm10", "ahuja2024:lem11")
def test_theorem10_quantized_deep_sets():
    cls = quantized_deep_sets(ws=(0, 1), bs=(0, 1), us=(-1, 0, 1), vs=(-3, -2, -1, 0))
    target = next(m for m in cls if m.name == "w=1 b=0 u=1 v=-3")
    res = finite_class_threshold(cls, target, [(0,), (1,)], 7)
    assert len(cls) == 48
    assert res.T_star == 4 and res.theorem_holds and not res.generalizes[3]
    assert res.lemma11["holds"]


_QCLASS = quantized_deep_sets(ws=(0, 1), bs=(0, 1), us=(-1, 0, 1), vs=(-3, -2, -1, 0))


@checks("ahuja2024:thm10", "ahuja2024:lem11")
@settings(max_examples=10)
@given(target=st.integers(0, len(_QCLASS) - 1),
       others=st.sets(st.integers(0, len(_QCLASS) - 1), min_size=1, max_size=8))
def test_theorem10_random_finite_classes(target, others):
    """Random realizable subclasses: the exact threshold T* is tight and sufficient (on lengths <= 6)."""
    members = [_QCLASS[target]] + [_QCLASS[k] for k in sorted(others - {target})]
    res = finite_class_threshold(members, _QCLASS[target], [(0,), (1,)], 6)
    assert res.theorem_holds
    assert res.lemma11["holds"] and 0 in res.minimizers[6]


@checks("ahuja2024:thm10")
def test_theorem10_negative_control_unrealizable_class():
    """Drop realizability (f not in H): the minimizer at every T is a failing member."""
    f = scalar_f()
    cls = offset_class(f, 3, Fraction(1, 5))[1:]
    res = finite_class_threshold(cls, f, [(0,), (1,)], 6)
    assert not res.generalizes[6] and not res.theorem_holds


@checks("ahuja2024:lem11")
@settings(max_examples=60)
@given(m=st.integers(1, 12), data=st.data())
def test_lemma11_random_chains(m, data):
    first = frozenset(data.draw(st.sets(st.integers(0, m - 1))))
    chain = [first]
    for _ in range(data.draw(st.integers(0, 3 * m))):
        chain.append(frozenset(data.draw(st.sets(st.sampled_from(sorted(chain[-1])))) if chain[-1] else set()))
    r = lemma11_check(chain, m)
    assert r["nested"] and r["holds"] and r["changes"] <= m
    assert all(c == chain[-1] for c in chain[r["T0"] - 1:])
    assert r["T0"] == 1 or chain[r["T0"] - 2] != chain[-1]  # the LEAST such index


@checks("ahuja2024:lem11")
def test_lemma11_stabilization_index_is_the_least():
    """T0 is the least index from which the chain is constant: 1 for a constant chain, 2 when only the first set
    differs.  Control: the index one later is not the least (the set before it already equals the last)."""
    A, B = frozenset({0}), frozenset()
    assert lemma11_check([A, A, A], 1)["T0"] == 1
    assert lemma11_check([A, B, B], 1)["T0"] == 2
    late = 3
    assert [A, B, B][late - 2] == B  # the check above rejects T0 = 3 for [A, B, B]


@checks("ahuja2024:lem11")
def test_lemma11_stabilization_index_not_bounded_by_set_size():
    """Found by Hypothesis: a chain over a 1-element set can become constant only at index 3 > |A| + 1."""
    r = lemma11_check([frozenset({0}), frozenset({0}), frozenset()], 1)
    assert r["holds"] and r["changes"] == 1 and r["T0"] == 3


@checks("ahuja2024:lem11")
def test_lemma11_negative_control_non_nested():
    alternating = [frozenset({0}), frozenset({1})] * 5
    r = lemma11_check(alternating, 2)
    assert not r["nested"] and not r["holds"]
    r2 = lemma11_check([frozenset({0}), frozenset({0, 1}), frozenset({0, 1})], 2)  # constant at the end, not nested
    assert not r2["holds"]


def test_argument_errors():
    f = fixed_f_deep_set()
    with pytest.raises(CapacityError):
        deep_set_witness(f, 0, 1)
    with pytest.raises(RealizingError):
        MLP(((([1, 2],), (0, 0), "relu"),))
    with pytest.raises(RealizingError):
        MLP((([[1]], [0], "tanh"),))
    with pytest.raises(RealizingError):
        AttentionTransformer(fixed_psi(), f.rho, "max")
    with pytest.raises(CapacityError):
        rnn_witness(fixed_rnn("hard_sigmoid"), 2, 1, a=0)


# ----------------------------------------------------------------------------------------- slow
@pytest.mark.slow
@checks("ahuja2024:thm10", "ahuja2024:lem11")
def test_slow_theorem10_full_quantized_class():
    cls = quantized_deep_sets()
    target = next(m for m in cls if m.name == "w=1 b=0 u=1 v=-3")
    res = finite_class_threshold(cls, target, [(0,), (1,)], 9)
    assert len(cls) == 135 and res.T_star == 4 and res.theorem_holds


@pytest.mark.slow
@checks("ahuja2024:sec4.4-high-capacity")
def test_slow_sigmoid_rnn_longer():
    f = fixed_rnn("sigmoid")
    h = rnn_witness(f, 4, Fraction(1, 5))
    assert check_interval_witness(f, h, 4, Fraction(1, 5), all_sequences(SSM_TOKENS, 6)).is_witness


@checks("ahuja2024:lem11")
def test_lemma11_for_every_finite_set():
    from verify.ahuja import covers
    from verify.ahuja._common import checked

    checked(covers.lemma11_proof())
