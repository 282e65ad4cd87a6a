"""Theta_n (Definitions 4, 43, 46, eq. (7)), R (Definition 5, eq. (8)), R^- (Definition 16), Lemma 47 and
Corollary 26, checked exactly; each check has a negative control that the same checker rejects."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from constructions.crasp.compiler import compile_program
from constructions.crasp.programs import BENCHMARKS
from constructions.huang.errors import ContextError, NotCompilableError, NotInThetaError
from constructions.huang.finite import finite_transformer
from constructions.huang.lemma47 import compile_theta, lemma47_mismatch
from constructions.huang.products import (
    check_translation_invariance,
    enumerate_products,
    max_product_bits,
    require_theta,
)
from constructions.huang.regularizer import regularizer
from constructions.limit_transformer import (
    MLP,
    ArbitraryPhi,
    ArbitraryPositions,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
)
from constructions.tasks.modp import ModPTask
from verify.claims import checks

DEFAULT_MODELS = ("majority", "aa_star", "tomita4", "abab_star")


def _one_layer(table, kq_scale=1, u_reads_pos=False):
    """A 1-layer finite transformer over {a, b}, width 3 (token a, position x, position y)."""
    E = [[0, 0, 0], [1, 0, 0], [0, 0, 0]]
    q = [[0, kq_scale, 0], [0, 0, kq_scale]]
    k = [[0, 1, 0], [0, 0, 1]]
    v = [[0, 0, 0], [1, 0, 0], [0, 0, 0]]
    U = [[0, 1 if u_reads_pos else 0, 0], [1, 0, 0]]
    parts = {"alphabet": ("a", "b"), "embedding": E, "layers": (Layer((Head(q, k, v),)),), "unembedding": U,
             "precision_bits": 2, "precision": "huang"}
    return finite_transformer(parts, table)


def _rotation_table(n):
    """p_i = (cos, sin)-like periodic vectors with a Toeplitz Gram matrix: (1,0),(0,1),(-1,0),(0,-1)."""
    cyc = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    return [[0, *cyc[i % 4]] for i in range(n)]


@checks("huang2024:def4", "huang2024:def46", "huang2024:def43", "huang2024:eq7", "huang2024:eq5", "huang2024:rem45")
def test_product_functions_translation_invariance_and_negative_controls():
    T = _one_layer(_rotation_table(8))
    kinds = {(p.kind, p.key_positional, p.query_positional) for p in enumerate_products(T)}
    assert ("logit", True, True) in kinds  # p_j^T K^T Q p_i is enumerated
    rep = require_theta(T)
    assert rep.translation_invariant and rep.checked["logit-two"] >= 1
    # negative control 1: a non-Toeplitz Gram matrix (p_2 scaled) breaks eq. (7)
    bad = _rotation_table(8)
    bad[1] = [0, 0, 2]
    rep = check_translation_invariance(_one_layer(bad))
    assert not rep.translation_invariant and "eq. (7)" in rep.violations[0]
    with pytest.raises(NotInThetaError):
        require_theta(_one_layer(bad))
    # negative control 2: the unembedding reads a positional coordinate (one-positional product not constant)
    rep = check_translation_invariance(_one_layer(_rotation_table(8), u_reads_pos=True))
    assert not rep.translation_invariant and rep.violations[0].startswith("U P")
    # negative control 3: non-dyadic parameter / phi in a finite transformer
    with pytest.raises(NotInThetaError):
        _one_layer([[0, Fraction(1, 3), 0]] * 4)


def test_context_window_is_enforced():
    T = _one_layer(_rotation_table(4))
    assert T.forward("aa", offset=1).shape == (3, 2)
    with pytest.raises(ContextError):
        T.forward("aa", offset=2)


@checks("huang2024:def5", "huang2024:eq8", "huang2024:def16")
def test_regularizer_ingredients_by_hand():
    T = _one_layer(_rotation_table(8), kq_scale=2)
    R = regularizer(T)
    # p_1^T K^T Q p_j = 2 <p_1, p_j> = 2, 0, -2, 0, 2, 0, -2, 0 -> (8) = 4 * 4 = 16
    assert R.eq8 == 16
    assert (R.L, R.H, R.p, R.rank, R.units) == (1, 1, 2, 1, 0)
    assert R.norm == 2 and R.total == R.r_minus + 16 == 1 + 1 + 2 + 1 + 0 + 2 + 16
    # negative control: the same checker sees the change when the logit scale changes
    assert regularizer(_one_layer(_rotation_table(8), kq_scale=1)).eq8 == 4 != R.eq8


def _compiled(name):
    return compile_program(BENCHMARKS[name].program())


@checks("huang2024:lem47", "huang2024:cor26", "huang2024:thm9")
@pytest.mark.parametrize("name", DEFAULT_MODELS)
def test_lemma47_compiled_models_match_at_every_offset(name):
    T = _compiled(name)
    alphabet = T.alphabet
    n = 8
    Tn = compile_theta(T, n)
    assert require_theta(Tn).translation_invariant
    delta = T.period if T.positions is not None else 0
    assert Tn.d <= T.d + n + 3 * delta + 2 and Tn.model.precision_bits == T.precision_bits
    words = ["".join(w) for k in range(0, 4) for w in itertools.product(alphabet, repeat=k)]
    assert lemma47_mismatch(T, Tn, words) is None  # every word of length <= 3, every admissible offset
    rng = np.random.default_rng(0)
    long = ["".join(rng.choice(list(alphabet), size=7))]
    assert lemma47_mismatch(T, Tn, long) is None
    # exhaustive at n = 6: every input that fits the context (words of length <= 5), at every offset
    T6 = compile_theta(T, 6)
    every = ["".join(w) for k in range(0, 6) for w in itertools.product(alphabet, repeat=k)]
    assert lemma47_mismatch(T, T6, every) is None


@checks("huang2024:lem47")
def test_lemma47_modp_and_negative_controls():
    T = ModPTask(3, 1).limit_transformer(precision_bits=2)
    Tn = compile_theta(T, 10)
    words = ["".join(w) for k in range(0, 4) for w in itertools.product("01", repeat=k)] + ["011010110"]
    assert lemma47_mismatch(T, Tn, words) is None
    every = ["".join(w) for k in range(0, 6) for w in itertools.product("01", repeat=k)]
    assert lemma47_mismatch(T, compile_theta(T, 6), every) is None  # exhaustive at n = 6, every offset
    # negative control: a wrong positional row in the layer-2 MLP is caught by the same exact comparison
    mlp = Tn.model.layers[1].mlp
    B = mlp.B.copy()
    B[:, 1], B[:, 2] = mlp.B[:, 2], mlp.B[:, 1]
    layers = (Tn.model.layers[0], Layer(Tn.model.layers[1].heads, MLP(mlp.A, mlp.b, B, mlp.activations)),
              *Tn.model.layers[2:])
    parts = {"alphabet": T.alphabet, "embedding": Tn.model.embedding, "layers": layers,
             "unembedding": Tn.model.unembedding, "precision_bits": 2}
    broken = finite_transformer(parts, Tn.table)
    assert lemma47_mismatch(T, broken, words) is not None
    with pytest.raises(NotCompilableError):
        compile_theta(compile_program(BENCHMARKS["aa_star"].program(), precision="huang"), 8)


@checks("huang2024:lem47")
def test_eq12_bounded_for_periodic_local_and_growing_for_controls():
    T = _compiled("tomita4")
    rs = [regularizer(compile_theta(T, n)).total for n in (4, 8, 16)]
    assert rs[0] == rs[1] == rs[2]
    # non-local translation-invariant phi: (8) grows linearly with n
    E = [[0, 0], [1, 0], [0, 1]]
    head = Head([[0, 0]], [[0, 0]], [[0, 0], [1, 0]], ArbitraryPhi(lambda j, i: 1))
    nonlocal_T = LimitTransformer(("a", "b"), E, (Layer((head,)),), [[0, 1], [0, 1]], precision_bits=1)
    grow = [regularizer(compile_theta(nonlocal_T, n)).eq8 for n in (4, 8, 16)]
    assert grow == [4, 8, 16]
    # non-periodic encodings (p_i = [i is a power of 2]): n layer-2 heads, R grows
    pos = ArbitraryPositions(lambda i: [0, 1 if (i & (i - 1)) == 0 else 0], 2)
    nonper = LimitTransformer(("a", "b"), E, (), [[0, 1], [1, 0]], positions=pos, precision_bits=1)
    heads = [regularizer(compile_theta(nonper, n)).H for n in (4, 8, 16)]
    assert heads == [4, 8, 16]
    assert lemma47_mismatch(nonper, compile_theta(nonper, 8), ["ab", "abba"]) is None
    # the Local (periodic) counterpart keeps R constant: negative control of the growth checker
    local_T = LimitTransformer(("a", "b"), E, (Layer((Head([[0, 0]], [[0, 0]], [[0, 0], [1, 0]],
                                                           LocalPhi((1,))),)),), [[0, 1], [0, 1]], precision_bits=1)
    assert len({regularizer(compile_theta(local_T, n)).total for n in (4, 8, 16)}) == 1


@pytest.mark.slow
@checks("huang2024:lem47", "huang2024:cor26")
@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_lemma47_every_benchmark_model(name):
    """Every compiled benchmark model, n = 12: Theta_n, all words of length <= 2 (<= 3 for binary alphabets)
    at every offset, 3 random words of length 11 at offsets 0 and 1, and R(T_n) equal at n = 8, 12, 24."""
    T = _compiled(name)
    Tn = compile_theta(T, 12)
    require_theta(Tn)
    top = 3 if len(T.alphabet) == 2 else 2
    words = ["".join(w) for k in range(top + 1) for w in itertools.product(T.alphabet, repeat=k)]
    assert lemma47_mismatch(T, Tn, words) is None
    rng = np.random.default_rng(1)
    assert lemma47_mismatch(T, Tn, ["".join(rng.choice(list(T.alphabet), size=11)) for _ in range(3)], [0, 1]) is None
    assert len({regularizer(compile_theta(T, n)).total for n in (8, 12, 24)}) == 1


@checks("huang2024:lem49")
def test_lemma49_product_bits_at_most_L_plus_4_times_p():
    for T in [_compiled(n) for n in ("majority", "tomita4", "aa_star")] + [ModPTask(3, 1).limit_transformer(2)]:
        Tn = compile_theta(T, 8)
        assert max_product_bits(Tn) <= (Tn.model.depth + 4) * Tn.model.precision_bits
    # negative control: the same bound checker rejects a 1-layer model whose parameters exceed p bits
    E = [[0, 0], [Fraction(1, 2**7), 0], [0, 0]]
    head = Head([[0, 0]], [[0, 0]], [[0, 0], [Fraction(1, 2**7), 0]])
    parts = {"alphabet": ("a", "b"), "embedding": E, "layers": (Layer((head,)),),
             "unembedding": [[0, Fraction(1, 2**7)], [0, 0]], "precision_bits": 7}
    T = finite_transformer(parts, [[0, 0]] * 4)
    assert max_product_bits(T) == 21 > (1 + 4) * 4  # 21 bits: it is within (L+4)p only for p = 7, not p = 4
