"""The Inference Procedure (Definition 6, eq. (9)) on the bounded class of constructions/huang/inference.py:
Theorems 7 / 14 / 23 and Corollary 18 *on that class only* (docs/huang_inference.md)."""

import itertools

import pytest

from constructions.huang.inference import bounded_class, inference, targets
from constructions.huang.lemma47 import compile_theta, lemma47_mismatch
from constructions.huang.products import require_theta
from verify.claims import checks

NS = (2, 4, 8, 12)
SMALL = {"test_exhaustive": 8, "test_long": (40,), "samples": 10}


def _target(name):
    return next(t for t in targets() if t.name == name)


@pytest.fixture(scope="module")
def klass():
    return bounded_class(max_ladder=6)


@checks("huang2024:thm7.bounded", "huang2024:def6.bounded", "huang2024:eq9.bounded")
@pytest.mark.parametrize("name", ["majority", "(aa)*", "modp(2,1)"])
def test_expressible_targets_are_identified_with_bounded_R(name, klass):
    run = inference(_target(name), NS, klass, **SMALL)
    n0 = run.identified_from()
    assert n0 is not None and n0 <= 4
    tail = [s for s in run.steps if s.n >= n0]
    assert len({s.R for s in tail}) == 1 and len({s.chosen for s in tail}) == 1  # sup R(T_n) bounded
    chosen = next(c for c in klass if c.name == tail[-1].chosen)
    Tn = compile_theta(chosen.model, 8)  # the selected T_n is in Theta_n and matches M at every offset, exactly
    require_theta(Tn)
    words = ["".join(w) for k in range(4) for w in itertools.product(chosen.model.alphabet, repeat=k)]
    assert lemma47_mismatch(chosen.model, Tn, words) is None
    # negative control: without the identifying member the same checker reports no identification
    reduced = [c for c in klass if c.name != chosen.name]
    assert inference(_target(name), NS, reduced, **SMALL).identified_from() is None


@checks("huang2024:thm7.bounded", "huang2024:thm23.bounded")
def test_non_expressible_targets_fail_or_need_growing_R(klass):
    parity = inference(_target("parity (even #a)"), NS, klass, **SMALL)
    assert parity.identified_from() is None and not any(s.generalizes for s in parity.steps)
    rs = [s.R for s in parity.steps if s.n >= 4]
    assert all(a < b for a, b in itertools.pairwise(rs))  # R(T_n) grows with n
    tomita5 = inference(_target("tomita5 (a=0, b=1)"), NS, klass, **SMALL)
    assert all(s.chosen is None for s in tomita5.steps if s.n >= 4)  # recurring failure: U_n empty in the class
    for name in ("tomita3 (a=0, b=1)", "tomita6 (a=0, b=1)"):
        assert inference(_target(name), NS, klass, **SMALL).identified_from() is None


@checks("huang2024:cor18.bounded")
def test_nope_members_identify_majority_but_not_aa_star(klass):
    """Corollary 18 on the class: restricted to p_i = 0 members, majority (C-RASP) is identified, (aa)* is not."""
    nope = [c for c in klass if c.model.is_nope]
    assert inference(_target("majority"), NS, nope, **SMALL).identified_from() == 4
    assert inference(_target("(aa)*"), NS, nope, **SMALL).identified_from() is None


@pytest.mark.slow
def test_full_sweep_recorded_in_docs():
    """The table of docs/huang_inference.md (max_ladder 12, n up to 24, tests: every word <= 10, 20 random words of length 64)."""
    klass = bounded_class(max_ladder=12)
    for t in targets():
        run = inference(t, (2, 4, 6, 8, 10, 12, 16, 20, 24), klass, test_exhaustive=10, test_long=(64,),
                        samples=20)
        assert (run.identified_from() is not None) == t.expressible
