"""bounds.sup_z3: the z3 encoding equals exact evaluation on real inputs; its certified supremum is above every
exactly enumerated disagreement and below certified_sup; a wrong encoding (heads dropped) is caught by the same
comparison; z3's ``unknown`` never becomes a bound."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds.auxiliary import ClassModel, hardmax_output, pair_period
from bounds.sup_z3 import (
    MAX_PATTERNS,
    Pattern,
    count_patterns,
    encode_pattern,
    long_length,
    outputs_at,
    sup_disagreement,
)
from bounds.true_threshold import certified_sup, configurations, max_disagreement
from counterexamples.izzo.estimate_breaks import residual_pair
from counterexamples.izzo.search import search_pair


def _pattern(counts, window, delta):
    M = sum(counts.values())
    return Pattern(tuple(sorted(c for c, k in counts.items() if k and c)), window, M % delta)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 400))
def test_encoding_equals_exact_evaluation(index):
    """At the integer counts of every input of lengths n0..6, the z3 terms evaluate to hardmax_output exactly."""
    f, g = search_pair(3, index)
    D, tau = pair_period(f, g), max(f.tau, g.tau)
    cms = (ClassModel.of(f, D), ClassModel.of(g, D))
    n0 = long_length(f, g)
    checked = 0
    for n in range(n0, 7):
        for counts, window in configurations(n, len(f.alphabet), D, tau):
            prob = encode_pattern(cms, _pattern(counts, window, D), D, n0)
            got = outputs_at(prob, counts)
            assert got is not None  # a real input satisfies the pattern's constraints
            for cm, out in zip(cms, got, strict=True):
                assert list(out) == list(hardmax_output(cm, counts, window))
            checked += 1
    assert checked >= 4


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 400))
def test_sup_between_enumeration_and_certified_sup(index):
    f, g = search_pair(3, index)
    r = sup_disagreement(f, g, tol=Fraction(1, 64), timeout_ms=120_000)
    assert not r.undetermined
    assert r.lower <= r.upper <= certified_sup(f, g)
    for n in range(r.min_length, 9):
        assert max_disagreement(f, g, n).max_disagreement <= r.upper


def test_dropping_a_head_is_caught():
    """Negative control: the encoding without the head claims sup = 0, below an enumerated disagreement."""
    f, g = residual_pair()
    wrong = sup_disagreement(f, g, heads=())
    assert wrong.upper < max_disagreement(f, g, 3).max_disagreement == 1
    right = sup_disagreement(f, g)
    assert right.upper == 3 and max_disagreement(f, g, 3).max_disagreement <= right.upper


def test_unknown_is_never_a_bound(monkeypatch):
    import z3

    import bounds.sup_z3 as mod

    f, g = search_pair(2, 66)
    monkeypatch.setattr(mod, "_check", lambda *a, **k: (z3.unknown, None))
    r = sup_disagreement(f, g)
    assert r.undetermined and r.upper == certified_sup(f, g) and "undetermined" in r.describe()


def test_refuses_models_outside_the_setting(monkeypatch):
    import bounds.sup_z3 as mod
    from bounds.margin import BoundsError
    from constructions.limit_transformer.model import LimitTransformer

    f, g = residual_pair()
    other = LimitTransformer(alphabet=("x", "y"), embedding=g.embedding, layers=g.layers, unembedding=g.unembedding,
                             positions=g.positions, precision_bits=g.precision_bits, precision=g.precision)
    with pytest.raises(BoundsError, match="same alphabet"):
        sup_disagreement(f, other)
    assert count_patterns(2, 1, 0) == 8 and count_patterns(3, 3, 2) == 41472 > MAX_PATTERNS
    monkeypatch.setattr(mod, "MAX_PATTERNS", 4)
    with pytest.raises(BoundsError, match="8 patterns .* above the limit 4"):
        sup_disagreement(f, g)


def test_refine_true_threshold_decides_what_enumeration_leaves_open():
    """Enumeration up to a short length sees no violation; z3 beyond it decides: a pair against itself has true
    threshold exactly 1 (the interval bound alone is loose there), the unembedding pair has a violation beyond
    the enumeration (witness evaluated exactly), so its threshold stays undetermined above the enumerated lengths."""
    from bounds.sup_z3 import refine_true_threshold
    from bounds.true_threshold import true_threshold
    from counterexamples.izzo.estimate_breaks import residual_pair, unembedding_pair

    f, _ = residual_pair()
    same = true_threshold(f, f, 0, Fraction(1, 10), 3)
    assert same.exact is None  # certified_sup is loose for f against itself (control)
    same = refine_true_threshold(same, f, f)
    assert same.exact == 1 and same.long_upper <= Fraction(1, 10) and "by z3" in same.describe()
    u, v = unembedding_pair(4)
    t = refine_true_threshold(true_threshold(u, v, 0, Fraction(1, 10), 5), u, v)
    assert t.exact is None and t.long_lower > Fraction(1, 10) and "above 5" in t.describe()
