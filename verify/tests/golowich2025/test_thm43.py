"""golowich2025 Theorem 4.3: each inequality of the proof (Appendix C.1) on small exact instances.

Default: two random k = 1 instances (L = 4, Lbar = 6, L_local = 1).  Slow: the k = 2 marker instance
(L = 8, Lbar = 10, L_local = 2) and a 200-instance bounded search; outcomes in docs/gaps.md.
"""

import random
from fractions import Fraction

import pytest

from constructions.golowich.assumptions import INF
from verify.claims import checks
from verify.golowich import thm43 as T
from verify.kernel import EnumerationStep, Proof, assert_proof, assert_universal_proof, negated

K = "golowich2025:thm4.3"
STEP_KEYS = {"eq7": "eq7", "com1": "change-of-measure", "com2fix": "change-of-measure", "eq8": "eq8-9",
             "eq9": "eq8-9", "eq10": "eq10", "hyp14a": "eq10", "hyp14b": "eq10", "eq11": "eq11", "eq13": "eq13",
             "final": "final"}


def _instances(count=3, seed=11):
    rng = random.Random(seed)
    return [T.random_k1_instance(rng) for _ in range(count)]


_Q_CACHE: dict = {}


def _quantities(insts):
    key = id(insts)
    if key not in _Q_CACHE:
        _Q_CACHE[key] = [T.proof_quantities(i) for i in insts]
    return _Q_CACHE[key]


INSTANCES = _instances()


def _holds(name):
    return lambda q: all(a <= b for a, b in q["steps"][name])


def _zero_rhs(name):  # mutated constant: the right-hand side replaced by 0
    return lambda q: all(a <= 0 for a, _ in q["steps"][name])


def _proof(qs):
    steps = []
    for name in STEP_KEYS:
        st = EnumerationStep(f"{K}.{STEP_KEYS[name]}", name, instances=lambda: qs, predicate=_holds(name))
        steps.append(EnumerationStep(**{**st.__dict__, "negative": negated(st, predicate=_zero_rhs(name))}))
    return Proof(K, "Theorem 4.3 proof steps on exact instances", tuple(steps))


@checks(K, *{f"{K}.{v}" for v in STEP_KEYS.values()})
def test_every_step_holds_on_exact_instances_with_controls():
    qs = _quantities(INSTANCES)
    assert sum(q["delta"] > 0 for q in qs) == 2  # non-trivial (with delta = 0 every step reads 0 <= 0)
    for inst, q in zip(INSTANCES, qs, strict=True):  # the theorem's hypotheses hold on every instance
        assert all(e < INF for e in q["eta"].values()) and inst.L >= 4 * inst.Lloc
        assert (inst.Lbar - inst.L) % inst.Lloc == 0
        assert all(T.is_local_relative(inst.w(name), 1, inst.Lloc, (0, 1, 2)) for name in inst.keys)
    res = assert_proof(_proof(qs))
    assert all(not r.negative_outcome.holds for r in res)


@checks(f"{K}.eq7", f"{K}.eq8-9", f"{K}.eq10")
def test_eq7_to_eq10_nearly_tight_each_factor_needed():
    """On the edge instances every step holds, and (7), (8), (10) fail without their factor L, eta_L or 2."""
    wide, narrow = T.edge_instance(Fraction(1, 2), Fraction(1, 4)), T.edge_instance(Fraction(1, 8), Fraction(1, 8))
    qw, qn = T.proof_quantities(wide), T.proof_quantities(narrow)
    for inst, q in ((wide, qw), (narrow, qn)):  # the theorem's hypotheses hold; delta > 0
        assert q["delta"] > 0 and all(e < INF for e in q["eta"].values()) and inst.L >= 4 * inst.Lloc
        assert (inst.Lbar - inst.L) % inst.Lloc == 0 and T.is_local_relative(inst.w("edge"), 2, 1, (0, 1, 2))
        assert q["minimisers"] == [("edge", "edge")]
    res = assert_proof(_proof([qw, qn]))
    assert all(not r.negative_outcome.holds for r in res)
    assert T.violations(qw) == {"com2": (4, 2)} and T.violations(qn) == {}  # only the printed eta_L of com2

    def top(q, name):
        return max(a for a, _ in q["steps"][name])

    d, eta, L = qw["delta"], qw["eta"][4], wide.L
    assert (d, eta, qn["delta"], qn["eta"][4]) == (Fraction(1, 15), 2, Fraction(1, 24), 8)
    assert top(qw, "eq7") == Fraction(209, 1800) > d            # (7) needs a factor > 1 (L)
    assert top(qw, "eq8") == Fraction(2, 9) > eta * d           # (8) needs L
    assert top(qn, "eq8") == Fraction(2, 9) > L * qn["delta"]   # (8) needs eta_L
    assert top(qw, "eq10") == Fraction(5, 9) > eta * L * d      # (10) needs the 2


@checks(f"{K}.change-of-measure")
def test_second_change_of_measure_needs_eta_L_minus_Llocal():
    """Finding: the second display bounds P_{L-2Ll}(..) mu / P_{L-Ll}(X, S) by eta_L; (ii) only gives eta_{L-Ll}."""
    inst = T.com2_witness()
    Q = inst.ens.Q
    assert Q(2) == {(1,): Fraction(1, 2), (2,): Fraction(1, 2)}
    assert Q(3) == {(1,): Fraction(1, 9), (2,): Fraction(4, 9), (3,): Fraction(4, 9)}
    assert INSTANCES[2].ens.Q(3) == Q(3) and INSTANCES[2].ens.Q(4) == Q(4)  # same draw: reuse its quantities
    q = _quantities(INSTANCES)[2]
    assert q["eta"] == {3: 9, 4: Fraction(18, 5), 6: Fraction(15, 2)}  # A4.2 holds with these (minimal) eta
    assert T.violations(q) == {"com2": (Fraction(9, 2), Fraction(18, 5))}  # only the printed constant fails
    assert all(a <= b for a, b in q["steps"]["com2fix"])  # with eta_{L - L_local} it holds


@checks(f"{K}.eq13", "golowich2025:fn16")
def test_eq13_needs_t0_up_to_N_plus_2_footnote16_typo():
    """With t0 + t1 + 2 = N (footnote 16 as printed) t0 <= N and some local S* at Lbar has no admissible t0."""
    inst = INSTANCES[0]
    N = (inst.Lbar - inst.L) // inst.Lloc
    S = (inst.Lbar,)  # a (local) singleton at the right end
    printed = [t0 for t0 in range(N + 1) if min(S) - t0 * inst.Lloc >= 1 and max(S) - t0 * inst.Lloc <= inst.L - 2]
    fixed = [t0 for t0 in range(N + 3) if min(S) - t0 * inst.Lloc >= 1 and max(S) - t0 * inst.Lloc <= inst.L - 2]
    assert printed == [] and fixed == [N + 2]


@checks(f"{K}.blocks")
def test_block_decomposition_reproduces_h():
    import itertools

    inst = T.marker_instance()
    seqs = [x for x in itertools.product((0, 1, 2), repeat=8) if x.count(2) <= 2][:400]
    assert T.blocks_check(inst, "marker+noise", "second", seqs)
    bad = T.marker_instance()
    bad.vals["second"] = {xs: 1 - v for xs, v in bad.vals["second"].items()}
    inst_h = inst.h("marker+noise", "second")
    bad.cache[("marker+noise", "second")] = inst_h  # negative control: blocks of another class vs this h
    assert not T.blocks_check(bad, "marker+noise", "second", seqs)
    W = inst.w("marker")
    assert T.is_local_relative(W, 2, 2, (0, 1, 2))
    assert not T.is_local_relative(lambda S, xs: W(S, xs) * (1 + S[0] % 2), 2, 2, (0, 1, 2))  # not relative


@checks(K)
def test_gaps_hidden_constant_and_left_extension():
    # the proof's chain gives eta_Lbar (N+3)(L delta + 6 eta_L L delta (N+2)), larger than the stated
    # eta_L eta_Lbar L Lbar^2 delta when L_local = 1 and Lbar >> L: the statement's bound is not what is proved
    assert T.proof_chain_bound(4, 100, 1, 1, 1, 1) > 4 * 100**2
    assert T.proof_chain_bound(8, 10, 2, 1, 1, 1) < 8 * 10**2  # negative control: small N, no excess
    r, eta_mid, eta_L = T.reverse_shift_ratio(Fraction(1, 10), 8, 2)
    assert eta_mid <= 6 and eta_L <= 8 and r > 10 * eta_L  # A4.2 holds with eta_l <= l, reverse ratio ~ l / p


@checks(K, f"{K}.final", f"{K}.eq13")
def test_theorem_as_stated_fails_nonlocal_planted_set_at_test_length():
    """Theorem 4.3 as stated is false (re-derivation of the counterexamples module's 'thm43-literal')."""
    inst = T.literal_counterexample()
    q = T.proof_quantities(inst)
    assert q["delta"] == 0 and all(e < INF for e in q["eta"].values())  # A4.1 with delta = 0, A4.2
    assert all(T.is_local_relative(inst.w(n), 2, 2, (1, 2)) for n in inst.keys)  # A3.3
    assert ("22", "ind22") in q["minimisers"] and q["risks"][("22", "ind22")][10] == Fraction(8, 45)
    assert T.violations(q) == {"final": (Fraction(8, 45), Fraction(0))}  # bound 0, test risk 8/45
    # negative control: with the planted set local at every length (no {j, j+L}) the minimiser is exact
    local = T.literal_counterexample(L=8, Lbar=8)
    assert T.violations(T.proof_quantities(local)) == {}


@pytest.mark.slow
@checks(K, f"{K}.eq11")
def test_marker_instance_k2_slow():
    q = T.proof_quantities(T.marker_instance())
    assert q["delta"] == Fraction(2, 45) and T.violations(q) == {}
    assert max(a for a, _ in q["steps"]["eq13"]) < INF


@pytest.mark.slow
@checks(K)
def test_bounded_search_k1_slow():
    found = T.search_k1(200, seed=0)
    assert set(found) == {"com2"}  # only the printed second change-of-measure display (eta_L) breaks
    assert found["com2"] == (25, (Fraction(40, 7), Fraction(5)))


def _z3_general_steps():
    """Symbolic (all L, eta, delta) steps of the proof, each with a rejected mutation."""
    import z3

    from verify.kernel import Z3Step

    L, c, n = z3.Ints("L c n")
    count = Z3Step(f"{K}.eq7", "#{ceil(L/2)..L} = floor(L/2)+1 <= L for L >= 2 (so average <= delta => each <= L delta)",
                   hypotheses=(L >= 2, 2 * c >= L, 2 * c <= L + 1, n == L - c + 1), goal=n <= L)
    count = Z3Step(**{**count.__dict__, "negative": negated(count, goal=n <= L - 1)})
    eta, d, Lr, e1, e2 = z3.Reals("eta d Lr e1 e2")
    tri = Z3Step(f"{K}.eq10", "(1 + eta) L delta <= 2 eta L delta when eta >= 1 (eta >= 1 from (ii) with l' = l)",
                 hypotheses=(eta >= 1, d >= 0, Lr >= 0), goal=(1 + eta) * Lr * d <= 2 * eta * Lr * d)
    tri = Z3Step(**{**tri.__dict__, "negative": negated(tri, hypotheses=(eta >= 0, d >= 0, Lr >= 0))})
    q1, q2 = z3.Reals("q1 q2")
    eta1 = Z3Step(f"{K}.eq10", "(ii) with l' = l gives 1 <= eta_l when Q_l(S) > 0",
                  hypotheses=(q1 > 0, q1 / q1 <= eta), goal=eta >= 1)
    eta1 = Z3Step(**{**eta1.__dict__, "negative": negated(eta1, hypotheses=(q1 > 0, q2 > 0, q2 / q1 <= eta))})
    return (count, tri, eta1)


@checks(f"{K}.eq7", f"{K}.eq10")
def test_symbolic_steps_z3():
    res = assert_proof(Proof(K, "Theorem 4.3 symbolic steps", _z3_general_steps()))
    assert all(not r.negative_outcome.holds for r in res)


@checks(K)
def test_repair_direction_inclusion_exclusion_of_windows():
    """Not the paper's argument: a repair direction for the extension step (documented in the gaps doc).
    With local keys every scored set of a length-(L + L_local) sequence lies in one of two length-L windows
    w1, w2 that both contain S*; A = A1 + A2 - A12, B = B1 + B2 - B12, hence pointwise
    |A/B - Y| <= |A1/B1 - Y| + |A2/B2 - Y| + |A12/B12 - Y| (training-length errors).  z3, d = 1."""
    import z3

    from verify.kernel import Z3Step

    A1, B1, A2, B2, A12, B12, Y = z3.Reals("A1 B1 A2 B2 A12 B12 Y")

    def ab(x):
        return z3.If(x >= 0, x, -x)

    A, B = A1 + A2 - A12, B1 + B2 - B12
    hyp = (B12 > 0, B1 >= B12, B2 >= B12)
    goal = ab(A / B - Y) <= ab(A1 / B1 - Y) + ab(A2 / B2 - Y) + ab(A12 / B12 - Y)
    step = Z3Step(K, "inclusion-exclusion bound", hypotheses=hyp, goal=goal)
    step = Z3Step(**{**step.__dict__, "negative": negated(step, hypotheses=(B12 > 0, B1 > 0, B2 > 0, B > 0))})
    res = assert_proof(Proof(K, "repair direction", (step,)))
    assert not res[0].negative_outcome.holds


@checks(f"{K}.eq7")
def test_eq7_for_every_instance():
    res = assert_proof(T.eq7_universal())
    assert all(not r.negative_outcome.holds for r in res)


@checks(f"{K}.eq10")
def test_eq10_for_every_instance():
    """(10) from (8) and (9) for every finite law: triangle inequality, expectations by induction over the support,
    the marginal of (9); every control rejected and no hypothesis set inconsistent."""
    assert_universal_proof(T.eq10_universal(), 6)


@checks(f"{K}.blocks")
def test_blocks_for_every_L_and_block():
    """The decomposition's telescoping, locality window and shift bijection for all integers (z3); every control
    rejected and no hypothesis set inconsistent."""
    assert_universal_proof(T.blocks_universal(), 4)
