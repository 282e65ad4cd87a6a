"""Certified lower bounds on the class threshold (bounds/lower.py): each family's pair lies in its class (the package's
own ingredients), agrees within delta on every input up to the claimed length (exact enumeration where it is small,
z3 per pattern beyond), and differs by more than delta + eps on an exactly evaluated witness; negative controls claim
one length too many or a mutated parameter and are caught by the same checks."""

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.auxiliary import ClassModel, hardmax_output, pair_period
from bounds.lengths import Length
from bounds.lower import (
    ModelClass,
    NotInClassError,
    best_lower_bound,
    bump,
    certify_agreement,
    chain,
    hardmax,
    in_class,
)
from bounds.margin import ingredients
from bounds.true_threshold import true_threshold
from constructions.tasks.modp import ModPTask
from verify.claims import checks


def _diff(lb):
    f, g = lb.pair()
    counts, window = lb.witness()
    D = pair_period(f, g)
    outs = [hardmax_output(ClassModel.of(m, D), counts, window) for m in (f, g)]
    return max(abs(a - b) for a, b in zip(*outs, strict=True))


def _cls(**kw):
    base = dict(sigma=2, period=2, tau=0, heads=1, K=Fraction(1, 2), precision_bits=8, gamma=Fraction(8),
                eps=Fraction(1, 2), delta=Fraction(0))
    return ModelClass(**{**base, **kw})


@checks("izzo2025:lower.bump")
@pytest.mark.parametrize("kw", [{}, {"delta": Fraction(1, 10)}, {"period": 3, "tau": 1}, {"sigma": 1, "period": 1},
                                {"gamma": Fraction(1, 4), "precision_bits": 1}])
def test_bump_pair_is_in_its_class_and_its_threshold_is_exact(kw):
    """In the class; the first input with |f - g| > delta has length exactly agree + 1 (exhaustive enumeration), and
    the witness differs by more than delta + eps (exact)."""
    cls = _cls(**kw)
    lb = bump(cls)
    f, g = lb.pair()
    assert all(in_class(f, g, cls).values()), in_class(f, g, cls)
    n = lb.agree.exact
    tt = true_threshold(f, g, cls.delta, cls.eps, n + 1)
    assert tt.first_above_delta == n + 1
    assert _diff(lb) > cls.delta + cls.eps


@checks("izzo2025:lower.bump")
def test_bump_controls_are_caught():
    """Claiming one length more, or building the pair with a larger q (a shorter agreement), is caught by the same
    enumeration; a pair whose K exceeds the class's is caught by the membership check."""
    cls = _cls()
    lb = bump(cls)
    f, g = lb.pair()
    n = lb.agree.exact
    assert true_threshold(f, g, 0, cls.eps, n + 1).first_above_delta <= n + 1  # not agreeing up to n + 1
    wide = dataclasses.replace(lb, params={**lb.params, "q": 2 * lb.params["q"]})
    assert true_threshold(*wide.pair(), 0, cls.eps, n).first_above_delta <= n
    small = dataclasses.replace(cls, K=cls.K / 2)
    assert not all(in_class(f, g, small).values())


@checks("izzo2025:lower.bump")
def test_bump_argument_for_all_parameters_by_z3():
    """verify/izzo/lower_bump.py: from the pair's output formula on, for all parameters (controls rejected)."""
    from verify.izzo.lower_bump import proof
    from verify.kernel import assert_universal_proof

    assert_universal_proof(proof(), count=4)


@checks("izzo2025:lower.chain")
def test_chain_argument_for_every_number_of_heads_by_z3():
    """verify/izzo/lower_chain.py: the docstring's inequalities and its induction over the heads, for every h and all
    parameters (every control rejected, no step vacuous)."""
    from verify.izzo.lower_chain import proof
    from verify.kernel import assert_universal_proof

    assert_universal_proof(proof(), count=9)


@checks("izzo2025:lower.chain")
@pytest.mark.parametrize("h", [1, 2, 3])
def test_chain_agreement_is_certified_by_z3_and_its_witness_differs(h):
    """h heads, |Sigma| = h + 1, Delta = 1: every input up to the claimed length agrees (z3 on every pattern, counts
    relaxed to reals), the witness differs by more than eps; control: z3 finds a disagreement at the witness's
    length."""
    cls = _cls(sigma=h + 1, period=1, heads=h, K=Fraction(h, 2), eps=Fraction(1, 3))
    lb = chain(cls, h)
    f, g = lb.pair()
    assert all(in_class(f, g, cls).values()), in_class(f, g, cls)
    n = lb.agree.exact
    assert certify_agreement(f, g, n)["agree"] is True
    assert _diff(lb) > cls.eps
    counts, window = lb.witness()
    assert certify_agreement(f, g, sum(counts.values()) + len(window))["agree"] is False


@checks("izzo2025:lower.hardmax")
def test_hardmax_pair_agrees_below_H_and_differs_from_H_on():
    """p = 4 bits, gamma = 1/2: H = 2^8 = 256.  At every length 2..255 the certified enclosures of the izzo softmax
    (bounds.certify.class_softmax) put both outputs within 10^-12 of 0 (the proof gives exactly 0: the unit's pre-activation is
    negative); from 256 on (hardmax, exact) they differ by 4K t* > eps."""
    from bounds.certify.class_softmax import enclose_output

    cls = _cls(sigma=1, period=1, gamma=Fraction(1, 2), precision_bits=4, K=Fraction(2), eps=Fraction(1, 4))
    lb = hardmax(cls)
    assert lb.agree.exact == 255
    f, g = lb.pair()
    assert all(in_class(f, g, cls).values())
    from constructions.limit_transformer import exact_forward

    assert [exact_forward(m, "", positions="last")[0] for m in (f, g)] == [0, 0]  # length 1: only $
    for n in range(2, 256):
        counts = {0: 1, 1: n - 2} if n > 2 else {0: 1}
        window = (1,)
        for m in (f, g):
            lo, hi = enclose_output(m, {c: k for c, k in counts.items() if k}, window, n, "izzo")
            assert lo[0] == 0 == hi[0] or hi[0] <= 0 <= lo[0] or (lo[0] >= -1e-12 and hi[0] <= 1e-12), (n, lo, hi)
    assert _diff(lb) > cls.eps
    # control: a threshold t* above the smallest unflushed output (2^-1/2 / (1 + 2^-1/2) ~ 0.414 at n = 2) makes the
    # same enclosures show a disagreement below H
    high = dataclasses.replace(lb, params={**lb.params, "t_star": Fraction(1, 2)})
    fh, _ = high.pair()
    lo, hi = enclose_output(fh, {0: 1}, (1,), 2, "izzo")
    assert lo[0] > Fraction(1, 100)
    # control: at gamma = 1/2 the family fails for a K too small to reach eps with the smallest unflushed output
    with pytest.raises(NotInClassError):
        hardmax(dataclasses.replace(cls, K=Fraction(1, 100)))


@checks("izzo2025:thm4.1.heads")
def test_head_question_rate_is_exponential_in_the_heads():
    """With K/eps growing, the chain family's agreement length grows like (4K/(h eps))^h while the printed
    tau Delta L^2/eps^2 of its models grows like (K/eps)^2: for h = 3 the ratio grows without bound (x10 per decade of
    K/eps), so no constant C makes Theorem 4.1's rate hold; for h = 1, 2 it does not grow (control)."""
    from bounds.corrected import published_bound

    def ratio(h, K):
        cls = _cls(sigma=h + 1, period=1, tau=1, heads=h, K=Fraction(K), eps=Fraction(1))
        lb = chain(cls, h)
        f, _ = lb.pair()
        pub = published_bound(ingredients(f, definition="printed"), cls.eps)
        return lb.agree.exact / max(pub.sample, 1)

    r3 = [ratio(3, K) for K in (10**2, 10**3, 10**4)]
    assert r3[1] > 5 * r3[0] and r3[2] > 5 * r3[1] and r3[2] > 100
    for h in (1, 2):
        r = [ratio(h, K) for K in (10**2, 10**3, 10**4)]
        assert r[2] < 2 * r[0]


@checks("izzo2025:lower.chain", "izzo2025:thm4.1.heads")
def test_many_heads_lower_bound_in_the_log_domain():
    """1024 heads: the chain's agreement length has thousands of digits and is kept as floor(2^e), e rounded down."""
    cls = _cls(sigma=1025, period=1, heads=1024, K=Fraction(10**6), eps=Fraction(1, 10))
    lb = chain(cls)
    assert lb.agree.exact is None and lb.agree.rounding == "down" and lb.agree.exponent > 1024 * 10


@checks("izzo2025:lower.bump")
def test_modp_class_bracket():
    """The class of the ModP construction (p = 5): the bump family gives N* >= 92; the corrected bound is within
    10^5 of it."""
    from bounds.corrected import corrected_bound
    from bounds.lengths import log10_ratio_upper

    ing = ingredients(ModPTask(5, 0).limit_transformer())
    best = best_lower_bound(ModelClass.of(ing, Fraction(1, 10)))
    assert best.family == "bump" and best.lower == Length.of(92)
    assert log10_ratio_upper(corrected_bound(ing, Fraction(1, 10)).N, best.lower) < 5


@checks("izzo2025:thm4.1.corrected", "izzo2025:lower.bump", "izzo2025:lower.chain", "izzo2025:lower.hardmax")
@settings(max_examples=60, deadline=None)
@given(sigma=st.integers(1, 6), period=st.integers(1, 6), tau=st.integers(0, 3), heads=st.integers(1, 4),
       K=st.fractions(Fraction(1, 8), 64), bits=st.integers(1, 24), gamma=st.fractions(Fraction(1, 64), 16),
       eps=st.fractions(Fraction(1, 64), 4))
def test_no_lower_bound_exceeds_the_proved_upper_bound(sigma, period, tau, heads, K, bits, gamma, eps):
    """Attack on the corrected bound by the families: for random classes, every certified agreement length is below
    the class's proved N (computed from the family's own model, whose quantities are the class's)."""
    from bounds.corrected import corrected_bound
    from bounds.lower import lower_bounds

    cls = ModelClass(sigma, period, tau, heads, K, bits, gamma, eps)
    for lb in lower_bounds(cls):
        if lb.agree.exact is None or lb.agree.exact > 10**7:
            continue
        f, _ = lb.pair()
        ing = ingredients(f)
        assert ing.moduli[0].K <= K
        up = corrected_bound(ing, eps, nesting=2 * heads).N
        assert up.exponent is not None or up.exact > lb.agree.exact, (lb.family, lb.agree, up)


@checks("izzo2025:thm4.1.corrected")
def test_pair_bound_is_above_the_family_pairs_true_threshold():
    """The corrected bound for the pair itself (distinct argmax sets: the two models share their heads, so k = 1)
    is above the pair's exact true threshold, for the bump and chain pairs."""
    from bounds.corrected import corrected_bound
    from bounds.margin import combine

    for lb in (bump(_cls()), chain(_cls(sigma=3, period=1, heads=2, K=Fraction(1), eps=Fraction(1, 3)), 2)):
        f, g = lb.pair()
        c = corrected_bound(combine(ingredients(f), ingredients(g)), lb.cls.eps)
        assert c.nesting == lb.params.get("h", 1) and c.N.exact > lb.agree.exact
