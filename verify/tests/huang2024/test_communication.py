"""Theorem 12 / Corollary 13 (Huang et al.) in executable form: the Alice/Bob protocol reconstructs
Bob's activations exactly, its message grows like log N, copying needs 2^(N-1) messages, and the
exact-activation reading of Theorem 12 fails on a two-layer witness (docs/gaps.md)."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from constructions.communication import (
    MessageDecodeError,
    ProtocolError,
    alice_message,
    averaging_witness,
    copy_fooling,
    decode_message,
    distinct_class_sums,
    encode_message,
    fit_log_slope,
    message_size_table,
    run_protocol,
    stream_outputs,
)
from constructions.crasp.ast import Q, count, eq, exists, phi, prev, program
from constructions.crasp.compiler import compile_program
from constructions.limit_transformer import (
    MLP,
    ArbitraryPhi,
    ArbitraryPositions,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
    exact_forward,
)
from verify.claims import checks

Ca, Cb = count(Q("a")), count(Q("b"))
DYCK1 = compile_program(program("ab", [("D", ~exists(~(Cb <= Ca)) & eq(Ca, Cb))], name="dyck1"))
LOCAL = compile_program(program("ab", [("L", count(Q("a") & prev(Q("a")) & prev(Q("b"), 2)) <= 1)], name="local"))
PERIODIC = compile_program(program("ab", [("L", (count(Q("a") & phi(3, {1})) <= Cb) & phi(2, {0}))], name="per"))
# induction-head style program over {a, b, #}: "the symbol after the last # equals the first symbol"
_COPY = program("ab#", [("L", exists(Q("#") & prev(Q("a"))) | (count(Q("a")) <= count(Q("b"))))], name="copyish")
COPYISH = compile_program(_COPY)


def random_word(rng, alphabet, N):
    return "".join(rng.choice(alphabet) for _ in range(2 * N - 1))


def _finite_valued_model(rng) -> LimitTransformer:
    """A random 2-layer Periodic and Local model (Delta = 3, tau = 2) with nonzero keys/queries whose
    values read only finitely-valued coordinates (token, position class, Heaviside outputs)."""
    F = Fraction
    d = 8  # 0 sos, 1-2 tokens a/b, 3-5 position class, 6 attn scratch (not read by V/K), 7 heaviside bit
    E = [[F(int(c == t)) for c in range(d)] for t in range(3)]
    table = [[F(int(c == 3 + r)) for c in range(d)] for r in range(3)]

    def mat(rows, cols, entries):
        m = [[F(0)] * cols for _ in range(rows)]
        for (r, c), v in entries.items():
            m[r][c] = F(v)
        return m

    def rnd():
        return F(rng.randint(-2, 2), rng.choice([1, 2]))

    h1 = Head(mat(1, d, {(0, 1): rnd(), (0, 3): rnd()}), mat(1, d, {(0, 2): rnd(), (0, 4): rnd(), (0, 0): rnd()}),
              mat(d, d, {(6, 1): 1}), LocalPhi((F(0), F(1), rnd())))
    mlp1 = MLP(mat(1, d, {(0, 6): 1}), [F(-1, 2)], mat(d, 1, {(7, 0): 1}), ("heaviside",))
    h2 = Head(mat(1, d, {(0, 7): rnd(), (0, 5): 1}), mat(1, d, {(0, 7): rnd(), (0, 1): rnd()}),
              mat(d, d, {(6, 7): 1, (6, 2): F(1, 2)}), LocalPhi((F(1),)))
    U = mat(2, d, {(0, 6): 1, (1, 7): 1})
    return LimitTransformer(("a", "b"), E, (Layer((h1,), mlp1), Layer((h2,))), U, PeriodicPositions(table),
                            precision_bits=2, precision="huang")


# --------------------------------------------------------------------------------- reconstruction
@checks("huang2024:thm12.finite-values", "huang2024:eq1", "huang2024:eq2", "huang2024:eq3", "huang2024:eq4",
        "huang2024:eq6")
@pytest.mark.parametrize("model", [DYCK1, LOCAL, PERIODIC, COPYISH], ids=lambda m: m.name)
def test_protocol_matches_direct_exactly(model):
    rng = random.Random(3)
    for N in (1, 2, 4) if model.depth > 3 else (1, 2, 3, 5):
        res = run_protocol(model, random_word(rng, model.alphabet, N))
        assert res.equal, res.mismatch


@pytest.mark.slow
@checks("huang2024:thm12.finite-values")
@pytest.mark.parametrize("model", [DYCK1, LOCAL, PERIODIC, COPYISH], ids=lambda m: m.name)
def test_protocol_matches_direct_exactly_slow(model):
    rng = random.Random(4)
    for N in (6, 9, 12, 16):
        for _ in range(3):
            res = run_protocol(model, random_word(rng, model.alphabet, N))
            assert res.equal, res.mismatch


@checks("huang2024:thm12.finite-values", "huang2024:eq3", "huang2024:eq6")
def test_protocol_random_finite_valued_models():
    """Nonzero keys (several key classes), periodic positions, tau = 2, 'huang' rounding."""
    rng = random.Random(11)
    for _ in range(4):
        m = _finite_valued_model(rng)
        for N in (1, 3, 6):
            res = run_protocol(m, random_word(rng, "ab", N))
            assert res.equal, res.mismatch
        assert res.n_classes >= 1


@checks("huang2024:thm19")
def test_protocol_huang_precision():
    m = compile_program(program("ab", [("L", count(Q("a") & prev(Q("b"))) <= Cb)]), precision="huang")
    for N in (2, 5):
        assert run_protocol(m, random_word(random.Random(N), "ab", N)).equal


@checks("huang2024:thm12.finite-values")
def test_protocol_negative_controls():
    """A message corrupted in transit, or a protocol that drops the tau boundary positions, is caught."""
    N = 5
    model = _finite_valued_model(random.Random(11))  # tau = 2, several key classes, fast to evaluate
    w = random_word(random.Random(5), "ab", N)
    assert run_protocol(model, w).equal

    def rewrite(fn):
        def tamper(bits: str) -> str:
            msg = decode_message(model, N, bits)
            layers = tuple(tuple(fn(cl, bd) for cl, bd in layer) for layer in msg.layers)
            return encode_message(type(msg)(msg.N, layers))
        return tamper

    def more(cl, bd):  # one class count increased by one
        return (((cl[0][0], cl[0][1] + 1, cl[0][2]), *cl[1:]) if cl else cl), bd

    def drop_boundary(cl, bd):  # Alice omits the tau boundary positions (Bob sees zero vectors)
        return cl, tuple((tuple(0 * x for x in k), tuple(0 * x for x in v)) for k, v in bd)

    assert not run_protocol(model, w, tamper=rewrite(more)).equal
    assert not run_protocol(model, w, tamper=rewrite(drop_boundary)).equal
    assert run_protocol(model, w, tamper=rewrite(lambda cl, bd: (cl, bd))).equal  # identity re-encoding is fine
    with pytest.raises(MessageDecodeError):
        run_protocol(model, w, tamper=lambda b: b[:-3])
    with pytest.raises(MessageDecodeError):
        run_protocol(model, w, tamper=lambda b: b + "1")
    assert decode_message(model, N, encode_message(alice_message(model, w))) == alice_message(model, w)


@checks("huang2024:def3", "huang2024:thm12.finite-values")
def test_protocol_rejects_non_local_and_non_periodic():
    F = Fraction
    base = DYCK1
    heads = list(base.layers[0].heads)
    h0 = heads[0]
    heads[0] = Head(h0.query, h0.key, h0.value, ArbitraryPhi(lambda j, i: F(int(j == 1))))  # attends to $: not local
    nonlocal_model = LimitTransformer(base.alphabet, base.embedding, (Layer(tuple(heads), base.layers[0].mlp),
                                      *base.layers[1:]), base.unembedding, None, base.precision_bits, base.precision)
    with pytest.raises(ProtocolError, match="Local"):
        run_protocol(nonlocal_model, "aba")
    nonperiodic = LimitTransformer(base.alphabet, base.embedding, base.layers, base.unembedding,
                                   ArbitraryPositions(lambda t: [F(0)] * base.d, base.d), base.precision_bits,
                                   base.precision)
    with pytest.raises(ProtocolError, match="Periodic"):
        run_protocol(nonperiodic, "aba")
    with pytest.raises(ProtocolError, match="even"):
        run_protocol(DYCK1, "ab")
    with pytest.raises(ProtocolError):
        run_protocol(DYCK1, "abc")


def test_stream_outputs_matches_library_exact():
    rng = random.Random(2)
    for m in (DYCK1, LOCAL, PERIODIC, _finite_valued_model(rng)):
        for n in (1, 4, 9):
            w = "".join(rng.choice(m.alphabet) for _ in range(n))
            assert [list(r) for r in exact_forward(m, w)] == [[Fraction(x) for x in r] for r in stream_outputs(m, w)]


# ------------------------------------------------------------------------------------ size vs N
def _words(alphabet, seed=0):
    rng = random.Random(seed)

    def gen(N):
        yield alphabet[0] * (2 * N - 1)
        yield random_word(rng, alphabet, N)

    return gen


@checks("huang2024:thm12.finite-values", "huang2024:thm12")
@pytest.mark.parametrize("model", [DYCK1, LOCAL, PERIODIC], ids=lambda m: m.name)
def test_message_bits_grow_logarithmically(model):
    rows = message_size_table(model, [2**k for k in range(3, 9)], _words(model.alphabet))
    fit = fit_log_slope(rows)
    bits = [r["bits"] for r in rows]
    # O(log N): each doubling adds a bounded number of bits (one per count entry), far below linear growth
    assert all(b2 - b1 <= 4 * max(1, r["classes"]) * 3 for b1, b2, r in zip(bits, bits[1:], rows, strict=False))
    assert fit["r2_log"] > 0.9 and 0 < fit["slope_per_log2N"] < 100
    assert bits[-1] < 2 * bits[0] + 200  # 32x longer inputs, far less than 32x the bits
    assert len({r["classes"] for r in rows}) == 1  # the number of key classes does not grow with N


@checks("huang2024:thm12.exact-activations", "huang2024:thm12")
def test_exact_activation_witness_needs_linear_bits():
    """Negative result: exact layer-2 aggregates of a 2-layer NoPE model separate all 2^(N-1) Alice inputs,
    so Bob's exact activations need >= N - 1 bits; the measured message grows linearly in N."""
    W = averaging_witness()
    assert W.is_periodic_and_local and W.is_nope
    for N in range(2, 9):
        assert distinct_class_sums(W, N) == 2 ** (N - 1)
    # control: layer 1 aggregates (#a) take only N values
    for N in range(2, 8):
        assert distinct_class_sums(W, N, layer=1) == N
    # Bob's exact activations themselves differ: fix Bob's half, vary Alice's (direct computation)
    N = 6
    bob = "ab" * 3
    seen = set()
    for k in range(2 ** (N - 1)):
        x = "".join("ab"[(k >> t) & 1] for t in range(N - 1))
        seen.add(tuple(exact_forward(W, x + bob[: N])[N:, 0]))
    assert len(seen) == 2 ** (N - 1)
    rows = message_size_table(W, [2**k for k in range(3, 9)], _words("ab", 1))
    fit = fit_log_slope(rows)
    assert fit["r2_linear"] > 0.95 and fit["slope_per_N"] > 1  # Theta(N) bits, not O(log N)
    for N in (2, 5):
        assert run_protocol(W, random_word(random.Random(N), "ab", N)).equal  # the protocol is still exact


# ------------------------------------------------------------------------------------- Cor. 13
@checks("huang2024:cor13.fooling", "huang2024:cor13")
def test_copy_fooling_set():
    for N in range(2, 7):
        res = copy_fooling(COPYISH, N)
        assert res.needed == 2 ** (N - 1)
        assert res.distinct <= res.needed
        if res.distinct < res.needed:
            assert res.collision is not None and res.collision[0] != res.collision[1]
            assert res.outputs_equal  # the model answers identically on Bob's half: it miscopies one
    assert res.distinct < res.needed  # at N = 6: 10 distinct messages for 32 inputs
    # negative control: a model whose message is injective in x is not flagged (no collision)
    W = _copy_injective()
    res = copy_fooling(W, 6)
    assert res.distinct == res.needed and res.collision is None


def _copy_injective() -> LimitTransformer:
    """The averaging witness over {a, b, #}: its exact layer-2 message separates every x."""
    W = averaging_witness()
    F = Fraction
    E = np.vstack([W.embedding, [[F(0)] * W.d]])
    U = np.vstack([W.unembedding, [[F(0)] * W.d]])
    return LimitTransformer(("a", "b", "#"), E, W.layers, U, None, W.precision_bits, W.precision)


def test_copy_fooling_errors():
    with pytest.raises(ProtocolError):
        copy_fooling(DYCK1, 3)
    with pytest.raises(ProtocolError):
        copy_fooling(COPYISH, 3, y="a")


@checks("huang2024:cor20", "huang2024:tab3.addition", "huang2024:rem21", "huang2024:tab3.copy-repeat")
def test_fooling_sets_of_addition_multiplication_and_dyck2():
    """Addition with y = 0, multiplication by 1 and unbounded-depth Dyck-2 need 2^(N-1) distinct messages
    (exhaustive, N = 2..8), as copying does (huang2024:cor13.fooling)."""
    from verify.huang import fooling

    for N in range(2, 9):
        for task in ("addition", "multiplication", "dyck2"):
            assert fooling.distinct_required(task, N) == 2 ** (N - 1), (task, N)
    # negative controls: one bracket type leaves one Alice half (no fooling set); Dyck-2 membership by hand
    assert fooling.distinct_required("dyck1", 6) == 1
    assert not fooling.dyck2("((") and fooling.dyck2("([])") and not fooling.dyck2("([)]")
