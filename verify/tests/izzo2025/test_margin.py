"""bounds.margin: gamma (printed / completed), L, the hardmax threshold; eq. (1) and the Lipschitz step of App. A.1."""

import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.margin import (
    INF,
    BoundsError,
    UnsupportedModelError,
    combine,
    hardmax_threshold,
    ingredients,
    logit_margin,
    norm_L,
)
from constructions.limit_transformer import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
    exact_forward,
)
from constructions.tasks import ModPTask, SimpleTask
from counterexamples.izzo.witnesses import printed_gamma_violation
from verify.claims import checks


# ------------------------------------------------------------------------------------------- gamma
@checks("izzo2025:def-gamma")
def test_gamma_of_constructions():
    for p, k in [(1, 0), (5, 0), (5, 3)]:
        m = ModPTask(p, k).limit_transformer(precision_bits=8)
        assert logit_margin(m).gamma == 8  # lam/2 with lam = 16
        assert logit_margin(m, "printed").gamma == INF  # tau = 0: the window holds only the query's own residue
    s = SimpleTask(3).limit_transformer(error=0.1, precision_bits=6)
    assert logit_margin(s).gamma == 6 and logit_margin(s, "printed").gamma == 12  # printed misses the $ key


@checks("izzo2025:def-gamma")
def test_printed_gamma_misses_far_keys_witness():
    model, printed, completed = printed_gamma_violation()
    assert printed == INF and completed == Fraction(1, 2)
    assert hardmax_threshold(printed, 4) == 1 and hardmax_threshold(completed, 4) == 256


def _toy(phi=(0, 3), table=((0, 0, 0), (0, 0, 1)), value_pos=0):
    """Sigma = {a, b}, Delta = 2, tau = len(phi) - 1: key score = 2*[b] + 5*[row 1]."""
    E = [[1, 0, 0], [1, 0, 0], [1, 1, 0]]
    key = [[0, 2, 5]]
    query = [[1, 0, 0]]
    value = [[0, 0, 0], [0, 1, value_pos], [0, 0, 0]]
    return LimitTransformer(("a", "b"), E, (Layer((Head(query, key, value, LocalPhi(phi)),), MLP([[0, 1, 0]], [0],
                                                                                               [[0], [0], [1]])),),
                            [[0, 0, 1]], PeriodicPositions(np.array(table, dtype=object)), precision_bits=3)


@checks("izzo2025:def-gamma")
def test_gamma_by_hand():
    m = _toy()
    # row 0 query: window k=0 {0, 2}, k=1 (row 1, phi 3) {8, 10}; far {0, 2, 5, 7}; $ {0}  -> min gap 1 (7, 8)
    # row 1 query: window k=0 {5, 7}, k=1 (row 0, phi 3) {3, 5}; far {0, 2, 5, 7}; $ {0, 3} -> min gap 1 (2, 3)
    assert logit_margin(m).gamma == 1
    assert logit_margin(m, "printed").gamma == 2  # window keys only: {0, 2, 8, 10} and {3, 5, 7}
    w = logit_margin(m)
    assert w.top - w.below == 1
    m2 = _toy(phi=(0,))
    assert logit_margin(m2, "printed").gamma == 2 and logit_margin(m2).gamma == 2


# ------------------------------------------------------------------------------------ threshold
@checks("izzo2025:sec3.2-hardmax")
def test_threshold_known_values():
    assert hardmax_threshold(1, 8) == 256
    assert hardmax_threshold(2, 8) == 16
    assert hardmax_threshold(3, 8) == 7  # 2^(8/3) = 6.35
    assert hardmax_threshold(Fraction(1, 2), 4) == 256
    assert hardmax_threshold(INF, 8) == 1
    assert hardmax_threshold(100, 8) == 2
    with pytest.raises(BoundsError, match="positive"):
        hardmax_threshold(0, 8)


def _is_threshold(n, gamma, p):
    u, v = gamma.numerator, gamma.denominator
    return n**u >= 2 ** (p * v) and (n - 1) ** u < 2 ** (p * v)


@checks("izzo2025:sec3.2-hardmax")
@given(u=st.integers(1, 40), v=st.integers(1, 12), p=st.integers(1, 24))
@settings(max_examples=200, deadline=None)
def test_threshold_is_smallest_integer(u, v, p):
    g = Fraction(u, v)
    n = hardmax_threshold(g, p)
    assert _is_threshold(n, g, p) or (n == 1 and 1 >= 2 ** (p * v / u))
    assert not _is_threshold(n + 1, g, p)  # control: an off-by-one threshold is rejected by the same check
    assert abs(n - 2 ** (p / float(g))) < 1 + 1e-9 * n


# ------------------------------------------------------------------------------------------------ L
@checks("izzo2025:thm4.1")
def test_L_of_constructions_and_definitions():
    nl = norm_L(ModPTask(5, 2).limit_transformer())
    assert nl.L2 == 1 and nl.L == 1.0 and nl.argmax[1] == "1"
    assert str(nl.exact()) == "1"
    m = _toy(value_pos=2)  # V p_1 != 0: the (token, residue) reduction counts it
    assert norm_L(m, "printed").L2 == 1  # ||A||_F^2 ||B||_F^2 max ||V E_s||^2 = 1 * 1 * 1
    assert norm_L(m).L2 == 9  # V (E_b + p_1) = (0, 1 + 2 * 1, 0)
    assert norm_L(m).argmax == (0, "b", 1)


@checks("izzo2025:thm4.1")
def test_unsupported_models():
    m = ModPTask(3, 1).limit_transformer()
    two = LimitTransformer(m.alphabet, m.embedding, m.layers * 2, m.unembedding, m.positions)
    with pytest.raises(UnsupportedModelError, match="one-layer"):
        ingredients(two)
    ing = combine(ingredients(m), ingredients(SimpleTask(2).limit_transformer(error=0.1)))
    assert ing.period == 3 and ing.gamma == 8 and ing.alphabet_size == 3


@checks("izzo2025:thm4.1")
def test_L_omits_unembedding():
    """Finding: scaling (B, U) -> (B/t, t U) leaves every output unchanged but divides L by t (L ignores U)."""
    m = ModPTask(3, 1).limit_transformer()
    t = 8
    mlp = m.layers[0].mlp
    scaled = LimitTransformer(m.alphabet, m.embedding,
                              (Layer(m.layers[0].heads, MLP(mlp.A, mlp.b, mlp.B / t)),), m.unembedding * t,
                              m.positions, precision_bits=m.precision_bits)
    for s in ["", "1", "0110101", "1" * 12]:
        assert list(exact_forward(m, s)[:, 0]) == list(exact_forward(scaled, s)[:, 0])
    assert norm_L(scaled).L2 == norm_L(m).L2 / t**2


# ---------------------------------------------------------------------------------------- eq. (1)
def eq1_violations(counts, tau, eps, sigma, const=2, need_condition=True):
    """Check |m_s/sum m - n_s/|A_f|| <= const |Sigma| eps / tau for m_s = floor(n_s/|A_f| tau/eps); returns the
    violating s (or ['undefined'] when sum m = 0).  With need_condition, instances with |S_f| eps/tau > 1/2 are
    skipped (the hypothesis of eq. (1))."""
    k = len(counts)
    if need_condition and k * eps / tau > Fraction(1, 2):
        return []
    a = sum(counts)
    m = [math.floor(Fraction(n, a) * tau / eps) for n in counts]
    if sum(m) == 0:
        return ["undefined"]
    bound = const * sigma * eps / tau
    return [s for s, (mi, n) in enumerate(zip(m, counts, strict=True)) if abs(Fraction(mi, sum(m)) - Fraction(n, a)) > bound]


EPS_GRID = [Fraction(1, 10), Fraction(1, 5), Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(1)]


def _instances():
    for k in (1, 2, 3):
        for counts in product(range(1, 13), repeat=k):
            if sum(counts) <= 12:
                for tau in range(1, 5):
                    for eps in EPS_GRID:
                        yield counts, tau, eps


@checks("izzo2025:eq1")
def test_eq1_for_every_count_vector_by_z3():
    """verify/izzo/eq1.py: the floor, the sum of floors by induction (any number of symbols) and the bound, each step
    proved by z3 for all real parameters, every negative control rejected, no hypothesis set inconsistent."""
    import z3

    from verify.izzo.eq1 import proof
    from verify.kernel import assert_proof

    results = assert_proof(proof())
    assert len(results) == 5 and all(r.negative_outcome is not None for r in results)
    for r in results:
        solver = z3.Solver()
        solver.add(*r.step.hypotheses)
        assert solver.check() == z3.sat, r.step.name


@checks("izzo2025:eq1")
def test_eq1_exhaustive_with_controls():
    bad = [(c, t, e) for c, t, e in _instances() if eq1_violations(c, t, e, len(c))]
    assert bad == []
    # negative controls: a halved constant, and dropping the hypothesis |S_f| eps / tau <= 1/2
    assert any(eq1_violations(c, t, e, len(c), const=Fraction(1, 2)) for c, t, e in _instances())
    assert any(eq1_violations(c, t, e, len(c), need_condition=False) for c, t, e in _instances())


@checks("izzo2025:eq1")
@given(counts=st.lists(st.integers(1, 10**4), min_size=1, max_size=5), tau=st.integers(1, 50),
       eps=st.fractions(min_value=Fraction(1, 1000), max_value=1))
@settings(max_examples=150, deadline=None)
def test_eq1_property(counts, tau, eps):
    assert eq1_violations(counts, tau, eps, len(counts)) == []


# ----------------------------------------------------------------------------------- Lipschitz step
def _lip_ratio_ok(A, b, B, x, y, heaviside=False):
    def f(z):
        pre = A.dot(z) + b
        act = np.array([(Fraction(1) if t >= 0 else Fraction(0)) if heaviside else max(t, Fraction(0)) for t in pre],
                       dtype=object)
        return B.dot(act)

    diff = f(x) - f(y)
    lhs = sum(t * t for t in diff)
    fa = sum(t * t for t in A.flat)
    fb = sum(t * t for t in B.flat)
    return lhs <= fa * fb * sum(t * t for t in (x - y))


@checks("izzo2025:app-a1.lip")
@given(nums=st.lists(st.integers(-24, 24), min_size=40, max_size=40), k=st.integers(1, 4), d=st.integers(1, 3))
@settings(max_examples=120, deadline=None)
def test_lipschitz_relu(nums, k, d):
    it = iter(nums)
    arr = lambda *shape: np.array([Fraction(next(it), 8) for _ in range(math.prod(shape))],  # noqa: E731
                                  dtype=object).reshape(shape)
    A, b, B, x, y = arr(k, d), arr(k), arr(d, k), arr(d), arr(d)
    assert _lip_ratio_ok(A, b, B, x, y)


@checks("izzo2025:app-a1.lip")
def test_lipschitz_in_every_dimension_by_z3():
    """verify/izzo/lipschitz.py: every step proved for all sizes (induction over entries, rows, coordinates), every
    control rejected (the Heaviside unit among them), no z3 step vacuous."""
    from verify.izzo.lipschitz import proof
    from verify.kernel import assert_universal_proof

    assert_universal_proof(proof(), count=9)


@checks("izzo2025:app-a1.lip")
def test_lipschitz_fails_for_heaviside():
    A = np.array([[Fraction(1)]], dtype=object)
    b = np.array([Fraction(0)], dtype=object)
    B = np.array([[Fraction(1)]], dtype=object)
    x, y = np.array([Fraction(1, 1000)], dtype=object), np.array([Fraction(-1, 1000)], dtype=object)
    assert _lip_ratio_ok(A, b, B, x, y)  # ReLU: fine
    assert not _lip_ratio_ok(A, b, B, x, y, heaviside=True)  # H jumps by 1 over a gap of 1/500


def _bos_toy():
    """Sigma = {a, b}, Delta = 2, tau = 0; a second query/key pair gives the $ key the logit 1/4 against a query at
    residue 1 (0 at residue 0): key score = 2*[b] + 5*[key row 1] + (1/4)*[query row 1]*[key is $]."""
    E = [[1, 0, 0, 1], [1, 0, 0, 0], [1, 1, 0, 0]]
    query = [[1, 0, 0, 0], [0, 0, 1, 0]]
    key = [[0, 2, 5, 0], [0, 0, 0, Fraction(1, 4)]]
    value = [[0] * 4, [0, 1, 0, 0], [0] * 4, [0] * 4]
    return LimitTransformer(("a", "b"), E, (Layer((Head(query, key, value, LocalPhi((0,))),),
                                                  MLP([[0, 1, 0, 0]], [0], [[0], [0], [1], [0]])),),
                            [[0, 0, 1, 0]], PeriodicPositions(np.array([[0, 0, 0, 0], [0, 0, 1, 0]], dtype=object)),
                            precision_bits=3)


@checks("izzo2025:def-gamma")
def test_completed_gamma_counts_the_bos_key_outside_the_window():
    """The completed A_(y,i) holds the $ key's own logit even where no window offset reaches the $ (tau = 0, query
    at residue 1): row 1 queries see {5, 7} in the window, {0, 2, 5, 7} far and the $ at 1/4, so gamma = 1/4.  The
    gap is realized: on "aaaaa" (model length 6, query at residue 1) the last position's logits, computed from the
    model's matrices, include 0 (an 'a' at residue 0) and 1/4 (the $).  Control: the printed definition (window
    keys only) gives 2."""
    m = _bos_toy()
    assert logit_margin(m).gamma == Fraction(1, 4)
    assert logit_margin(m, "printed").gamma == 2
    ids = m.encode("aaaaa")[0]
    X = [m.embedding[t] + m.positions.table[i % m.period] for i, t in enumerate(ids)]
    head = m.layers[0].heads[0]
    q = head.query.dot(X[-1])
    logits = {head.key.dot(x).dot(q) for x in X}
    assert {Fraction(0), Fraction(1, 4)} <= logits
