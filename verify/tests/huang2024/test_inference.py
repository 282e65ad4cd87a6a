"""The Inference Procedure (Definition 6, eq. (9)) on the bounded class of constructions/huang/inference.py:
Theorems 7 / 14 / 23 and Corollary 18 *on that class only* (docs/huang_inference.md)."""

import itertools
import math

import pytest
import z3

from constructions.huang.errors import InferenceError
from constructions.huang.inference import bounded_class, inference, targets
from constructions.huang.lemma47 import compile_theta, lemma47_mismatch
from constructions.huang.products import require_theta
from constructions.huang.regularizer import regularizer
from constructions.strategies import boundary_allowed
from verify.claims import checks
from verify.huang import inference as proof

NS = (2, 4, 8, 12)
SMALL = {"test_exhaustive": 8, "test_long": (40,), "samples": 10}


def _target(name):
    return next(t for t in targets() if t.name == name)


@pytest.fixture(scope="module")
def klass():
    return bounded_class(max_ladder=6)


@checks("huang2024:thm7.bounded", "huang2024:def6.bounded", "huang2024:eq9.bounded", "huang2024:thm7",
        "huang2024:thm14", "huang2024:def6", "huang2024:eq9")
@pytest.mark.parametrize("name", ["majority", "(aa)*", "modp(2,1)"])
def test_expressible_targets_are_identified_with_bounded_R(name, klass):
    with boundary_allowed():  # modp(2,1)'s members meet the flush boundary at some lengths, as designed
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
    with boundary_allowed():
        assert inference(_target(name), NS, reduced, **SMALL).identified_from() is None


@checks("huang2024:thm7.bounded", "huang2024:thm23.bounded", "huang2024:thm7", "huang2024:thm23", "huang2024:lem17")
def test_non_expressible_targets_fail_or_need_growing_R(klass):
    parity = inference(_target("parity (even #a)"), NS, klass, **SMALL)
    assert parity.identified_from() is None and not any(s.generalizes for s in parity.steps)
    rs = [s.R for s in parity.steps if s.n >= 4]
    assert all(a < b for a, b in itertools.pairwise(rs))  # R(T_n) grows with n
    tomita5 = inference(_target("tomita5 (a=0, b=1)"), NS, klass, **SMALL)
    assert all(s.chosen is None for s in tomita5.steps if s.n >= 4)  # recurring failure: U_n empty in the class
    for name in ("tomita3 (a=0, b=1)", "tomita6 (a=0, b=1)"):
        assert inference(_target(name), NS, klass, **SMALL).identified_from() is None


@checks("huang2024:cor18.bounded", "huang2024:cor18")
def test_nope_members_identify_majority_but_not_aa_star(klass):
    """Corollary 18 on the class: restricted to p_i = 0 members, majority (C-RASP) is identified, (aa)* is not."""
    nope = [c for c in klass if c.model.is_nope]
    assert inference(_target("majority"), NS, nope, **SMALL).identified_from() == 4
    assert inference(_target("(aa)*"), NS, nope, **SMALL).identified_from() is None


EXPRESSIBLE = ("majority", "(aa)*", "modp(2,1)", "modp(3,0)")
NOT_EXPRESSIBLE = ("parity (even #a)", "tomita3 (a=0, b=1)", "tomita5 (a=0, b=1)", "tomita6 (a=0, b=1)",
                   "ones at prime positions")


@checks("huang2024:thm7.bounded", "huang2024:cor18.bounded", "huang2024:thm23.bounded")
def test_member_readings_match_the_models(klass):
    """The readings the proofs use (unit: a linear threshold of the counts; ladder: min(#x, m) even) are what the
    models compute on every prefix of every word of length <= 4 (ladders: <= 5); the count formulas of the
    targets are the oracles' on every word of length <= 8."""
    for c in klass:
        if proof.unit_weights(c):
            assert proof.unit_reading_mismatch(c, 4) is None, c.name
        elif proof.ladder_params(c):
            assert proof.ladder_reading_mismatch(c, 5) is None, c.name
    a, b = z3.Ints("a b")
    for name, f in proof.COUNT_TARGETS.items():
        t = _target(name)
        for k in range(1, 9):
            for w in map("".join, itertools.product("ab", repeat=k)):
                assert z3.simplify(f(z3.IntVal(w.count("a")), z3.IntVal(w.count("b")))) == z3.BoolVal(bool(t.f(w)))
    # negative control: another unit's weights are not this unit's reading
    unit = next(c for c in klass if c.name == "unit[1,-1,0,0,0]")
    wrong = unit.__class__("unit[1,-1,0,0,-1]", unit.model, unit.kind)
    assert proof.unit_reading_mismatch(wrong, 4) is not None


@checks("huang2024:thm7.bounded", "huang2024:thm7", "huang2024:thm14")
@pytest.mark.parametrize("name", EXPRESSIBLE)
def test_expressible_targets_identified_at_every_n_from_n0(name, klass):
    """Every member not equal to f has a witness of length <= n0 / 2, checked exactly, so for every n >= n0 the
    selected T_n equals f on every input; the sweep's choices agree and R(T_n) is the same for n0 <= n <= 32."""
    t = _target(name)
    a = proof.analyse(t, klass)
    n0 = a.n0()
    assert a.equal and n0 is not None
    run = inference(t, range(n0, n0 + 5), klass, **SMALL)
    assert all(s.chosen in a.equal and s.generalizes for s in run.steps)
    chosen = next(c for c in klass if c.name == run.steps[-1].chosen)
    assert len({regularizer(compile_theta(chosen.model, n)).total for n in range(n0, 33, 4)}) == 1
    # negative control: without its equal members the same analysis proves the target never identified
    reduced = proof.analyse(t, [c for c in klass if c.name not in a.equal])
    assert not reduced.equal and reduced.n0() is None


@checks("huang2024:thm7.bounded", "huang2024:thm23.bounded", "huang2024:thm7", "huang2024:thm23",
        "huang2024:cor24")
@pytest.mark.parametrize("name", NOT_EXPRESSIBLE)
def test_non_expressible_targets_never_identified_at_any_n(name, klass):
    """No member equals f: every member of f's kind has a witness (checked exactly), every ladder a witness
    family valid for every m (z3), so at every n every T_n differs from f somewhere, whatever l(n)."""
    t = _target(name)
    a = proof.analyse(t, klass)
    assert not a.equal and a.n0() is None
    kind = [c.name for c in klass if c.kind == t.kind and proof.ladder_params(c) is None]
    assert sorted(a.witnesses) == sorted(kind)
    if t.kind == "language":
        assert set(a.ladder_families) == {"a", "b"}
    for c in klass:
        if c.name in a.witnesses:
            assert proof.differs_exactly(c, t, a.witnesses[c.name])
    # negative control: the exact re-check rejects a word on which a member agrees with f
    member, agree = next((c, w) for c in klass if c.name in a.witnesses for k in range(1, 4)
                         for w in map("".join, itertools.product(t.alphabet, repeat=k))
                         if not proof.differs_exactly(c, t, w))
    assert agree != a.witnesses[member.name]


@checks("huang2024:cor18.bounded", "huang2024:cor18")
def test_nope_class_identifies_majority_and_provably_never_aa_star(klass):
    maj = proof.analyse(_target("majority"), klass, nope_only=True)
    aa = proof.analyse(_target("(aa)*"), klass, nope_only=True)
    assert maj.equal == ["unit[1,-1,0,0,0]"] and maj.n0() is not None
    assert not aa.equal and aa.n0() is None
    assert proof.analyse(_target("(aa)*"), klass).equal  # control: with positions it is identified


@checks("huang2024:def22", "huang2024:thm23", "huang2024:thm23.bounded")
def test_l_inference_procedure_for_other_training_lengths(klass):
    """Definition 22 with l(n) = n/3, n - 1, floor(sqrt n): the proofs above hold for every l, the sweeps agree."""
    sweeps = {"n/3": (lambda n: n // 3, (3, 6, 12, 18)), "n - 1": (lambda n: n - 1, (2, 4, 6, 7)),
              "sqrt n": (lambda n: math.isqrt(n), (4, 9, 16, 25, 36))}  # l(n) <= 6: every training word enumerated
    for ell, ns in sweeps.values():
        for name in ("parity (even #a)", "tomita5 (a=0, b=1)"):
            assert inference(_target(name), ns, klass, train_length=ell, **SMALL).identified_from() is None
        assert inference(_target("majority"), ns, klass, train_length=ell, **SMALL).identified_from() is not None
    with pytest.raises(InferenceError, match="Definition 22"):
        inference(_target("majority"), (4,), klass, train_length=lambda n: n + 1)


@checks("huang2024:cor24", "huang2024:rem25", "huang2024:lem17")
def test_selected_models_of_non_expressible_targets_err_within_twice_the_training_length(klass):
    """Every T_n selected for parity errs on a word of length <= n (twice n/2); R(T_n) grows while the
    expressible targets' stays bounded; the ladders' R grows with m, so members below any R bound are finite."""
    t = _target("parity (even #a)")
    run = inference(t, (4, 6, 8, 10), klass, **SMALL)
    for s in run.steps:
        member = next(c for c in klass if c.name == s.chosen)
        words = ["".join(w) for k in range(1, s.n + 1) for w in itertools.product("ab", repeat=k)]
        bad = next(w for w in words if proof.differs_exactly(member, t, w))
        assert s.n // 2 < len(bad) <= s.n
    rs = [regularizer(compile_theta(c.model, 8)).total for c in klass if proof.ladder_params(c)
          and proof.ladder_params(c)[0] == "a"]
    assert all(x < y for x, y in itertools.pairwise(rs))


@pytest.mark.slow
def test_full_sweep_recorded_in_docs():
    """The table of docs/huang_inference.md (max_ladder 12, n up to 24, tests: every word <= 10, 20 random words of length 64)."""
    klass = bounded_class(max_ladder=12)
    for t in targets():
        run = inference(t, (2, 4, 6, 8, 10, 12, 16, 20, 24), klass, test_exhaustive=10, test_long=(64,),
                        samples=20)
        assert (run.identified_from() is not None) == t.expressible
