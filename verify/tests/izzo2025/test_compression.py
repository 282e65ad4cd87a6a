"""The corrected bound's proof executed (bounds/corrected.py, bounds/compression.py): every inequality of the proof
checked exactly on random pairs (1-2 heads each, |Sigma|, Delta <= 3, tau <= 2, p = 1, 30 or 60 bits) and random
long inputs whose class counts span up to 40 orders of magnitude beyond N."""

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.auxiliary import Claim, NotApplicableError, pair_period
from bounds.compression import Compressor, components, compress, exact_bound
from bounds.corrected import corrected_bound
from bounds.margin import combine, ingredients
from bounds.true_threshold import positions_per_residue
from counterexamples.izzo.search import GROUPS, Spec, build, draw_group, perturb
from verify.claims import checks

EPS = [Fraction(1, 2), Fraction(1, 10), Fraction(3), Fraction(100)]


def _pair(data, heads: int, p: int):
    def draw(lo, hi):
        return data.draw(st.integers(lo, hi))

    spec = Spec(draw(1, 3), draw(1, 3), draw(0, 2), heads)
    spec.params = {grp: draw_group(draw, spec, grp) for grp in GROUPS}
    f, g = build(spec, "f"), build(perturb(draw, spec), "g")
    return dataclasses.replace(f, precision_bits=p), dataclasses.replace(g, precision_bits=p)


def _long_input(data, sigma: int, delta: int, tau: int, N: int):
    """Class counts ($ = class 0) and window of a string longer than N: each class absent or a * 10^e + b with e up
    to 40 digits beyond N, one class per residue at least N, residues balanced at the most frequent class."""
    top = len(str(N)) + 40
    counts = {0: 1}
    for r in range(delta):
        for t in range(1, sigma + 1):
            if data.draw(st.booleans()):
                counts[t * delta + r] = data.draw(st.integers(1, 3)) * 10 ** data.draw(st.integers(0, top)) + \
                    data.draw(st.integers(0, 5))
        big = data.draw(st.integers(1, sigma)) * delta + r
        counts[big] = counts.get(big, 0) + N * data.draw(st.integers(1, 10**6))
    sums = [sum(k for c, k in counts.items() if c and c % delta == r) for r in range(delta)]
    M = 1 + delta * max(sums)  # positions 1..M precede the window
    for r, (have, need) in enumerate(zip(sums, positions_per_residue(M, delta), strict=True)):
        star = max((c for c in counts if c and c % delta == r), key=counts.get)
        counts[star] += need - have
    window = tuple(data.draw(st.integers(1, sigma)) * delta + (M + s) % delta for s in range(tau + 1))
    return counts, window


def _case(data):
    heads, p = data.draw(st.integers(1, 2)), data.draw(st.sampled_from([1, 1, 30, 60]))
    f, g = _pair(data, heads, p)
    eps = data.draw(st.sampled_from(EPS))
    N, _, _ = exact_bound(f, g, eps)
    counts, window = _long_input(data, len(f.alphabet), pair_period(f, g), max(f.tau, g.tau), N)
    return f, g, counts, window, eps


@checks("izzo2025:thm4.1.corrected")
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_step_of_the_proof_holds(data):
    """The z of the proof exists for every drawn input and every inequality the proof writes holds exactly:
    presence, residues, H <= |z| <= N, the map F, every set's insignificance and rounding errors, the padding, the l1
    budget, Lemma M with every head's actual distance, the triangle."""
    f, g, counts, window, eps = _case(data)
    z = compress(f, g, counts, window, eps)
    assert z.failed() == [], z.failed()
    names = {c.name.split(" [")[0] for c in z.claims}
    assert {"|z| <= N", "|z| >= H", "same present classes", "residue counts fit positions 2..|z|-w",
            "|f(x) - g(x)| <= |f(z) - g(z)| + eps"} <= names
    if not z.constants.trivial and z.failed() == []:
        assert "a theta + rho* <= eta = eps/K" in names and any(n.startswith("Lemma M") for n in names)


def _balanced(X: int, tau: int):
    """Delta = 2, one symbol: classes a@1 (3) and a@0 (2) with X keys each (residues balanced), window a@(M mod 2)."""
    counts, M = {0: 1, 3: X, 2: X}, 1 + 2 * X
    assert positions_per_residue(M, 2) == [counts[2], counts[3]]
    return counts, tuple(2 + (M + s) % 2 for s in range(tau + 1))


@checks("izzo2025:thm4.1.corrected")
@pytest.mark.parametrize("p", [55, 60])
def test_stretch_reaches_the_hardmax_threshold(p):
    """p bits put H = 2^p above the compression length N_1: z is stretched (s > 1) to H <= |z| <= N; at p = 1 it
    is not (control)."""
    from counterexamples.izzo.auxiliary_breaks import hardmax_z_witness

    f, g, *_ = hardmax_z_witness()  # logit gap 1: H = 2^p
    eps = Fraction(1, 2)
    for bits, stretched in ((p, True), (1, False)):
        fp, gp = (dataclasses.replace(m, precision_bits=bits) for m in (f, g))
        bound = corrected_bound(combine(ingredients(fp), ingredients(gp)), eps, 2)
        assert (bound.sample.exact < bound.hardmax.exact) == stretched
        counts, window = _balanced(10**30 + bound.N.exact, f.tau)
        z = compress(fp, gp, counts, window, eps)
        assert z.failed() == [] and (z.stretch > 1) == stretched and z.H <= z.length <= z.N


@checks("izzo2025:thm4.1.corrected")
@settings(max_examples=25, deadline=None)
@given(st.data())
def test_controls_are_rejected(data):
    """The same checks reject constants that are too coarse, and every inequality with its right side halved."""
    f, g, counts, window, eps = _case(data)
    z = compress(f, g, counts, window, eps)
    if not z.constants.trivial:
        coarse = dataclasses.replace(z.constants, theta=4 * z.constants.theta)
        bad = compress(f, g, counts, window, eps, constants=coarse)
        names = {c.name.split(" [")[0] for c in bad.failed()}
        # a theta 4 times too large breaks the budget, or (when it makes den negative) the positivity of den
        assert names & {"a theta + rho* <= eta = eps/K", "den = lambda (1 - Delta |Sigma| theta) - theta (w + Delta) > 0"}
    for c in z.claims:
        if c.op == "<=" and c.lhs > 0:
            assert not Claim(c.name, c.lhs, c.op, c.lhs / 2).holds
    assert not Claim("x", Fraction(1), "==", Fraction(0)).holds


@checks("izzo2025:thm4.1.corrected")
def test_coarse_constants_break_a_proof_step():
    """Negative control with a concrete input: the proof's constants keep every claim; theta = 1/2 is rejected (its
    den is negative), and so is 4 theta by the budget check."""
    from counterexamples.izzo.auxiliary_breaks import ratio_classes_witness

    f, g, *_ = ratio_classes_witness()
    eps = Fraction(1, 10)
    N = corrected_bound(combine(ingredients(f), ingredients(g)), eps).N.exact
    counts, window = _balanced(10**40 + 7 * N, f.tau)
    good = compress(f, g, counts, window, eps)
    assert good.failed() == []
    for theta, name in ((Fraction(1, 2), "den = lambda (1 - Delta |Sigma| theta) - theta (w + Delta) > 0"),
                        (4 * good.constants.theta, "a theta + rho* <= eta = eps/K")):
        coarse = dataclasses.replace(good.constants, theta=theta)
        failed = {c.name.split(" [")[0] for c in compress(f, g, counts, window, eps, constants=coarse).failed()}
        assert name in failed


def test_compressor_properties():
    """F is continuous, non-decreasing, F(v) <= v, F(v)/v non-increasing, and ratio-preserving on components."""
    comps = components([(Fraction(1), Fraction(5)), (Fraction(4), Fraction(9)), (Fraction(10**6), Fraction(10**8))])
    assert comps == [(1, 9), (10**6, 10**8)]
    F = Compressor.build(comps, Fraction(100))
    grid = sorted({Fraction(v) for v in (1, 2, 9, 10, 500, 10**5, 10**6, 10**6 + 1, 5 * 10**7, 10**8)})
    vals = [F(v) for v in grid]
    assert all(a <= b for a, b in zip(vals, vals[1:], strict=False))
    assert all(F(v) <= v for v in grid)
    assert all(F(a) / a >= F(b) / b for a, b in zip(grid, grid[1:], strict=False))
    assert F(9) == 9 and F(10**6) == 100 and F(10**8) / F(10**6) == 100
    assert F.divisor(0) == 1 and F.divisor(1) == 10**4
    # continuity at a component start: the left limit equals F(a)
    assert F(Fraction(10**6) - Fraction(1, 10**9)) == min(F(9) * (Fraction(10**6) - Fraction(1, 10**9)) / 9, F(10**6))
    # control: with L above the second component's start, F keeps it (D = 1) and compresses nothing
    assert Compressor.build(comps, Fraction(10**7)).divisor(1) == 1


def test_short_inputs_are_refused():
    from counterexamples.izzo.auxiliary_breaks import ratio_classes_witness

    f, g, counts, window, eps = ratio_classes_witness()
    with pytest.raises(NotApplicableError, match="needs no z"):
        compress(f, g, counts, window, eps)


def _nested_pair():
    """NoPE, tau = 0, Sigma = {a, b, c}, one-hot embeddings: f attends $ and a, g attends a and b (value = the one-hot
    vector, U reads a - b), so the two argmax totals and the class no head attends sit at three separate scales."""
    from constructions.limit_transformer.model import Head, Layer, LimitTransformer, LocalPhi

    eye = [[int(i == j) for j in range(4)] for i in range(4)]

    def model(key, name):
        head = Head([[1, 1, 1, 1]], [key], eye, LocalPhi((0,)))
        return LimitTransformer(alphabet=("a", "b", "c"), embedding=eye, layers=(Layer(heads=(head,)),),
                                unembedding=[[0, 1, -1, 0]], precision_bits=1, name=name)

    return model([2, 2, 0, 0], "f-$a"), model([0, 1, 1, 0], "g-ab")


@checks("izzo2025:thm4.1.corrected")
def test_separated_scales_reach_the_length_bound():
    """Worst case of the length step: with the argmax totals of f (10^15 a's and $) and g (+ 10^30 b's) at separated
    scales and 10^45 c's no head attends, the k = 2 intervals are disjoint, F(b_m) = lambda theta^-2 up to rounding,
    and z is longer than half of N_1 (so a bound with theta^-(k-1) instead of theta^-k would be broken by this z)."""
    f, g = _nested_pair()
    eps = Fraction(1, 2)
    counts = {0: 1, 1: 10**15, 2: 10**30, 3: 10**45}  # classes t * Delta + r with Delta = 1: $, a, b, c
    window = (3,)  # the query is c (no logit ties with a or b)
    z = compress(f, g, counts, window, eps)
    pc = z.constants
    assert z.failed() == [] and not pc.trivial and z.stretch == 1 and pc.heads == 2
    assert 2 * z.length > z.N and z.N == pc.compression_length()
    assert z.length > pc.period * pc.sigma * pc.lam * (1 / pc.theta) ** (pc.heads - 1)


@pytest.mark.slow
@checks("izzo2025:thm4.1.corrected")
@settings(max_examples=3000, deadline=None)
@given(st.data())
def test_every_step_of_the_proof_holds_large_run(data):
    """The default test's property on 3000 examples (record in docs/bounds.md)."""
    f, g, counts, window, eps = _case(data)
    assert compress(f, g, counts, window, eps).failed() == []


@checks("izzo2025:thm4.1.corrected")
@settings(max_examples=25, deadline=None)
@given(st.data())
def test_short_z_is_a_string_with_the_class_level_outputs(data):
    """Where z is short (eps >= 2K: any z of the right window, presence and residues), it is written out as a string
    and f(z), g(z) from exact evaluation equal the class-level outputs the proof uses."""
    from bounds.auxiliary import ClassModel, hardmax_output, string_of
    from constructions.limit_transformer import exact_forward

    f, g = _pair(data, data.draw(st.integers(1, 2)), 1)
    ing = combine(ingredients(f, mode="exact"), ingredients(g, mode="exact"))
    eps = 2 * corrected_bound(ing, 1).K + 1  # eta >= 2: the short case
    bound = corrected_bound(ing, eps)
    assert bound.constants.trivial
    D = pair_period(f, g)
    counts, window = _long_input(data, len(f.alphabet), D, max(f.tau, g.tau), bound.N.exact)
    z = compress(f, g, counts, window, eps)
    assert z.failed() == [] and z.length <= bound.N.exact
    for m in (f, g):
        word = string_of(z.counts, window, D, m.alphabet)
        assert len(word) + 1 == z.length
        assert list(exact_forward(m, word, positions="last")) == list(hardmax_output(ClassModel.of(m, D), z.counts,
                                                                                        window))


def _uniform_pair():
    """Sigma = {a, b}, Delta = 2, tau = 0, all logits 0: each model averages every position (one attention set that
    holds every class), so every residue's classes are attended."""
    from constructions.limit_transformer.model import (
        Head,
        Layer,
        LimitTransformer,
        LocalPhi,
        PeriodicPositions,
    )

    eye = [[int(i == j) for j in range(4)] for i in range(4)]

    def model(readout, name):
        head = Head([[0, 0, 0, 0]], [[0, 0, 0, 0]], eye, LocalPhi((0,)))
        return LimitTransformer(alphabet=("a", "b"), embedding=eye[:3], layers=(Layer(heads=(head,)),),
                                unembedding=[readout], positions=PeriodicPositions([[0, 0, 0, 1], [0, 0, 0, 0]]),
                                precision_bits=1, name=name)

    return model([0, 1, -1, 0], "uniform"), model([0, 1, -1, 1], "uniform'")


@checks("izzo2025:thm4.1.corrected")
def test_attended_residue_is_padded_proportionally():
    """Every class attended (no free class), residue 1 holds 10^15 b's that F compresses less than the a's: residue 0
    must be padded, over its classes at the top component's scale (a@0 with 10^20 keys, not b@0 with one key), by a
    relative amount within rho*, and every claim holds."""
    f, g = _uniform_pair()
    eps = Fraction(1, 2)
    a0, b0, b1 = 10**20, 1, 10**15
    a1 = a0 + b0 - b1  # residues balanced: S_0 = S_1
    counts = {0: 1, 2: a0, 4: b0, 3: a1, 5: b1}  # classes t * 2 + r: a@0 = 2, a@1 = 3, b@0 = 4, b@1 = 5
    M = 1 + 2 * (a0 + b0)
    assert positions_per_residue(M, 2) == [a0 + b0, a1 + b1]
    z = compress(f, g, counts, (2 + M % 2,), eps)
    assert z.failed() == [] and z.counts[4] == 1 and z.counts[2] > 1
    rho = [c for c in z.claims if c.name.startswith("rho_r <= rho*")]
    assert rho and all(c.holds for c in rho) and any(c.lhs > 0 for c in rho)
    # the rarest class (one key) is left alone: padding it would move its set by ~1 in l1 (mutation
    # izzo-corrected-pad-rarest, verify/registry/mutations.py)
    assert all(not c.name.endswith("[class 4]") for c in z.claims if c.name.startswith("|m_c - v_c"))


@checks("izzo2025:thm4.1.corrected")
def test_lemma_m_with_halved_moduli_is_caught():
    """Lemma M is checked with every head's actual distance; with the moduli halved the same check fails on the
    padded input above (so the claim can fail)."""
    f, g = _uniform_pair()
    a0, b0, b1 = 10**20, 1, 10**15
    counts = {0: 1, 2: a0, 4: b0, 3: a0 + b0 - b1, 5: b1}
    M = 1 + 2 * (a0 + b0)
    z = compress(f, g, counts, (2 + M % 2,), Fraction(1, 2))
    lemma = [c for c in z.claims if c.name.startswith("Lemma M")]
    assert lemma and all(c.holds for c in lemma)
    assert any(c.lhs > 0 and not Claim(c.name, c.lhs, c.op, c.rhs / 2).holds for c in lemma)


@checks("izzo2025:thm4.1.corrected")
def test_admissible_refuses_theta_beyond_the_budget():
    """ProofConstants.admissible: the chosen theta meets a theta + rho* <= eta; a theta whose budget exceeds eta
    (by any factor, here just past eta and at twice eta) is refused.  Control: the chosen theta is admitted."""
    from bounds.corrected import proof_constants

    for sigma, delta, w, heads, K, eps in [(2, 1, 2, 1, 3, Fraction(1, 2)), (3, 2, 3, 2, 5, Fraction(1, 10))]:
        pc = proof_constants(sigma, delta, w, heads, K, eps)
        assert not pc.trivial and pc.admissible(pc.theta)
        over = [t for t in (pc.theta * Fraction(k, 64) for k in range(65, 400)) if pc.den(t) > 0]
        past = next(t for t in over if pc.budget(t) > pc.eta)
        double = next((t for t in over if pc.budget(t) > 3 * pc.eta / 2), None)
        assert not pc.admissible(past)
        if double is not None:
            assert not pc.admissible(double)


def _prefixes(sigma: int, delta: int, M: int):
    """Every class-count vector of a prefix $ x_2..x_M: residue r's positions shared among its classes t Delta + r
    (each residue holding at least one class)."""
    import itertools

    per = positions_per_residue(M, delta)
    options = []
    for r in range(delta):
        opts = [{t * delta + r: k for t, k in enumerate(comp, 1) if k}
                for comp in itertools.product(range(per[r] + 1), repeat=sigma) if sum(comp) == per[r]]
        options.append(opts)
    for combo in itertools.product(*options):
        x = {0: 1}
        for part in combo:
            x.update(part)
        if all(any(c % delta == r for c in x if c) for r in range(delta)):
            yield x


@checks("izzo2025:thm4.1.corrected")
@pytest.mark.parametrize(("sigma", "delta", "w"), [(2, 2, 1), (3, 2, 2), (2, 3, 3)])
def test_trivial_case_lengths_are_the_longest_z(sigma, delta, w):
    """eta >= 2 (any z works): the z of bounds.compression over every prefix of length <= 11 is at most the code's
    N_1 = 1 + w + Delta (|Sigma| + 1) (below the threshold, H = 1) and reaches the code's N_H = H + Delta - 1 (above
    it).  Controls: N_1 one residue period shorter and N_H one shorter are exceeded."""
    from bounds.compression import _trivial_z
    from bounds.corrected import proof_constants

    pc = proof_constants(sigma, delta, w, 1, 1, 3)  # eta = 3 >= 2: the trivial case
    assert pc.trivial
    prefixes = [x for M in range(1, 12) for x in _prefixes(sigma, delta, M)]
    for H in (1, 40, 41):
        longest = max(sum(_trivial_z(x, delta, w, H).values()) + w for x in prefixes)
        if H == 1:
            assert longest <= pc.compression_length() and longest > pc.compression_length() - delta
        else:
            assert longest == pc.hardmax_side(H) and longest > pc.hardmax_side(H) - 1


@checks("izzo2025:thm4.1.corrected")
def test_trivial_case_only_from_eta_two():
    """The trivial case (any z within the budget) needs eta >= 2, since two distributions are at l1 distance <= 2:
    at eta = 2 the constants are trivial, just below 2 they are not (control)."""
    from bounds.corrected import proof_constants

    assert proof_constants(2, 2, 2, 1, 1, 2).trivial
    for eps in (Fraction(199, 100), Fraction(3, 2), Fraction(1)):
        assert not proof_constants(2, 2, 2, 1, 1, eps).trivial


@checks("izzo2025:thm4.1.corrected")
@settings(max_examples=100)
@given(st.fractions(min_value=0, max_value=10**12))
def test_sqrt_up_is_an_upper_bound_of_the_square_root(x):
    """bounds.modulus.sqrt_up (every square root of the moduli and norms) is >= sqrt(x), within 2^-40 relative (plus
    2^-80).  Control: the same check rejects sqrt(2) rounded down on the same grid."""
    import math

    from bounds.modulus import sqrt_up

    r = sqrt_up(x)
    assert r >= 0 and r * r >= x
    assert r <= Fraction(math.isqrt(math.ceil(x * 2**160)), 2**80) + Fraction(1, 2**79)
    down = Fraction(math.isqrt(math.floor(2 * 2**160)), 2**80)  # control: sqrt(2) rounded down on the same grid
    assert not down * down >= 2


@checks("izzo2025:thm4.1.corrected")
def test_single_model_stands_for_its_class():
    """One model f stands for its class (Theorem 4.1 is about a pair in the class): the other member has as many
    heads again and its own modulus, so k = 2 heads and K = 2 K_f; the class's N is at least the N of the pair
    (f, f') for a member f' with the same heads and modulus.  Control: the pair's own constants (k, K of f and f')
    give a smaller or equal N than the class."""
    from counterexamples.izzo.auxiliary_breaks import hardmax_z_witness

    f, g, *_ = hardmax_z_witness()
    eps = Fraction(1, 2)
    single = corrected_bound(ingredients(f), eps)
    ing = ingredients(f)
    assert single.nesting == 2 * ing.heads and single.K == 2 * ing.moduli[0].K
    pair = corrected_bound(combine(ingredients(f), ingredients(f)), eps)
    assert pair.K <= single.K and pair.nesting <= single.nesting
    assert pair.N.exact <= single.N.exact
