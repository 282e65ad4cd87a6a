"""App. A.1 executed: the hypotheses of Theorem 4.1 as predicates and the auxiliary string z (bounds/auxiliary.py),
every explicit inequality of the proof checked exactly on random small pairs and long inputs."""

import dataclasses
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.auxiliary import (
    Claim,
    ClassModel,
    NotApplicableError,
    agree_up_to,
    auxiliary,
    hardmax_output,
    hypotheses,
    pair_period,
    string_of,
)
from bounds.margin import BoundsError
from bounds.true_threshold import true_threshold
from constructions.limit_transformer import exact_forward
from counterexamples.izzo.auxiliary_breaks import (
    eq1_classes_witness,
    hardmax_z_witness,
    ratio_classes_witness,
)
from counterexamples.izzo.search import GROUPS, Spec, build, draw_group, perturb
from counterexamples.izzo.witnesses import bump_pair
from verify.claims import checks

EPS = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 10), Fraction(1, 20)]


def _pair(data, sigma, delta, tau):
    def draw(lo, hi):
        return data.draw(st.integers(lo, hi))

    spec = Spec(sigma, delta, tau)
    spec.params = {grp: draw_group(draw, spec, grp) for grp in GROUPS}
    return build(spec, "f"), build(perturb(draw, spec), "g")


def _input(data, sigma, delta, tau, n):
    """Class counts outside the window and the window of a string of model length n (any token per position)."""
    w, M = tau + 1, n - tau - 1
    counts = Counter({0: 1})
    for r in range(delta):
        slots = len(range(r, M, delta)) - (r == 0)
        cuts = sorted(data.draw(st.lists(st.integers(0, slots), min_size=sigma - 1, max_size=sigma - 1)))
        for t, k in enumerate(b - a for a, b in zip([0, *cuts], [*cuts, slots], strict=True)):
            counts[(t + 1) * delta + r] += k
    window = tuple(data.draw(st.integers(1, sigma)) * delta + (M + s) % delta for s in range(w))
    return dict(counts), window


def _draw_case(data, lengths):
    sigma, delta, tau = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2))
    f, g = _pair(data, sigma, delta, tau)
    D = pair_period(f, g)
    counts, window = _input(data, sigma, D, max(f.tau, g.tau), data.draw(st.sampled_from(lengths)))
    return f, g, counts, window, data.draw(st.sampled_from(EPS))


@checks("izzo2025:app-a1.z", "izzo2025:app-a1.classes", "izzo2025:eq1")
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_inequality_holds_with_the_class_count(data):
    """With |Sigma| read as the number of classes, every explicit inequality of App. A.1 whose premise holds is
    true on long inputs (lengths up to 10^6, class counts only)."""
    f, g, counts, window, eps = _draw_case(data, [30, 200, 10**4, 10**6])
    classes = (len(f.alphabet) + 1) * pair_period(f, g)
    aux = auxiliary(f, g, counts, window, eps, alphabet_constant=classes)
    assert aux.failed() == [], aux.failed()
    assert aux.case in ("copy", "disjoint", "overlap")
    # the realized z is a string with the window of x
    assert sum(aux.counts.values()) + len(window) == aux.length
    assert (aux.length - sum(counts.values()) - len(window)) % pair_period(f, g) == 0


@checks("izzo2025:app-a1.z")
@settings(max_examples=25, deadline=None)
@given(st.data())
def test_outputs_match_exact_evaluation(data):
    """f(x), f(z), g(x), g(z) from class counts equal exact evaluation of the realized strings."""
    f, g, counts, window, eps = _draw_case(data, [12, 20, 30])
    D = pair_period(f, g)
    aux = auxiliary(f, g, counts, window, eps)
    for m in (f, g):
        cm = ClassModel.of(m, D)
        for c in (counts, aux.counts):
            s = string_of(c, window, D, m.alphabet)
            assert list(exact_forward(m, s, positions="last")) == list(hardmax_output(cm, c, window))


@checks("izzo2025:app-a1.classes", "izzo2025:eq1")
def test_eq1_fails_with_the_printed_sigma():
    f, g, counts, window, eps = eq1_classes_witness()
    bad = auxiliary(f, g, counts, window, eps).failed()
    assert [c.name for c in bad] == ["eq1[s=6]"] and bad[0].lhs == Fraction(1, 3) and bad[0].rhs == Fraction(2, 7)
    assert auxiliary(f, g, counts, window, eps, alphabet_constant=6).failed() == []  # |S_f| = 6 classes


@checks("izzo2025:app-a1.classes")
def test_case2_ratio_fails_with_the_printed_sigma():
    f, g, counts, window, eps = ratio_classes_witness()
    assert string_of(counts, window, 2, f.alphabet) == "a" * 23
    bad = auxiliary(f, g, counts, window, eps).failed()
    assert [c.name for c in bad] == ["cap-lower[s=2]"] and bad[0].lhs == Fraction(89, 110) > bad[0].rhs
    assert auxiliary(f, g, counts, window, eps, alphabet_constant=3).failed() == []


@checks("izzo2025:app-a1.hardmax-z")
def test_z_below_the_hardmax_threshold():
    f, g, counts, window, eps = hardmax_z_witness()
    aux = auxiliary(f, g, counts, window, eps, alphabet_constant=6)
    assert {c.name for c in aux.failed()} == {"z in the hardmax regime [uniform-p20]",
                                              "z in the hardmax regime [uniform-p20']"}
    assert aux.length < 2**20 < sum(counts.values())
    # control: the same pair at p = 1 bit has z in the hardmax regime
    f1, g1, *_ = ratio_classes_witness()
    assert auxiliary(f1, g1, counts, window, eps, alphabet_constant=6).failed() == []


# ----------------------------------------------------------------------------------------- controls
@checks("izzo2025:app-a1.z")
@settings(max_examples=20, deadline=None)
@given(st.data())
def test_controls_are_rejected(data):
    """The same claims reject a wrong z and wrong constants."""
    f, g, counts, window, eps = _draw_case(data, [200, 10**4])
    aux = auxiliary(f, g, counts, window, eps, alphabet_constant=(len(f.alphabet) + 1) * pair_period(f, g))
    for c in aux.claims:
        if c.op == "<=" and c.lhs > 0:  # shrinking the right side below the left is rejected
            assert not Claim(c.name, c.lhs, c.op, c.lhs / 2, c.premise).holds
    assert not Claim("x", Fraction(1), "==", Fraction(0)).holds


@checks("izzo2025:app-a1.z")
def test_perturbed_z_is_rejected():
    """Copy case: f(z) = f(x); one more attended key in z breaks the equality the same check asserts."""
    f, g, counts, window, eps = ratio_classes_witness()
    aux = auxiliary(f, g, counts, window, Fraction(1, 100))
    assert aux.case == "copy" and aux.failed() == []
    cm = ClassModel.of(f, 2)
    assert list(hardmax_output(cm, aux.counts, window)) == list(hardmax_output(cm, counts, window))
    perturbed = dict(aux.counts)
    perturbed[2] += 1
    assert list(hardmax_output(cm, perturbed, window)) != list(hardmax_output(cm, counts, window))
    with pytest.raises(NotApplicableError):
        string_of(perturbed, window, 2, f.alphabet)  # and it is no longer a string with this window


# --------------------------------------------------------------------------------------- hypotheses
@checks("izzo2025:thm4.1")
def test_hypotheses_predicates():
    f, g, *_ = ratio_classes_witness()
    assert all(hypotheses(f, g).values())
    b1, b2 = bump_pair(2)  # tau = 0, NoPE: tau_positive fails, the rest holds
    h = hypotheses(b1, b2)
    assert not h["tau_positive"] and h["one_layer"] and h["periodic"] and h["relu_mlp"]
    assert not hypotheses(f, b1)["same_alphabet"]
    # both precision models satisfy "p bits"; only izzo has the hardmax regime the proof uses
    h = hypotheses(dataclasses.replace(f, precision="huang"), g)
    assert h["finite_precision"] and not h["hardmax_regime_exists"]
    with pytest.raises(BoundsError, match="hardmax regime exists"):
        true_threshold(dataclasses.replace(f, precision="huang"), g, 0, Fraction(1, 10), 2)
    with pytest.raises(NotApplicableError, match="tau positive"):
        auxiliary(b1, b2, {0: 1}, (1,), Fraction(1, 2))


@checks("izzo2025:thm4.1")
def test_agreement_predicate():
    f, g = bump_pair(2)
    assert agree_up_to(f, g, 4) and not agree_up_to(f, g, 5)
    assert agree_up_to(f, g, 5, delta=1)


@pytest.mark.slow
@checks("izzo2025:app-a1.z", "izzo2025:app-a1.classes")
def test_auxiliary_search_record():
    """The search recorded in docs/gaps.md izzo §7: with the class count no claim fails; with the printed |Sigma|
    the class-reduction claims do (and only they)."""
    from counterexamples.izzo.auxiliary_breaks import search_auxiliary

    assert search_auxiliary(3, 3000, printed_sigma=False)["failed"] == {}
    printed = search_auxiliary(0, 3000)
    assert set(printed["failed"]) <= {"cap-lower", "m_s/m_s* >= n_s/n_s* - |Sigma|eps/(tau - |Sigma|eps)",
                                      "n_{s*} >= tau/(|Sigma| eps)", "m_{s*}/n_{s*} >= (tau/eps)/|A_f| - eps|Sigma|/tau",
                                      "eq1"}
    assert printed["failed"]["cap-lower"]["count"] > 0
