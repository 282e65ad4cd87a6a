"""ahuja2024 Lemma 3 and the deep-set theorems 4, 5 (proof chains, controls, findings)."""

import z3

from verify.ahuja import cauchy, deepsets_slp, lemma3
from verify.ahuja._common import checked
from verify.claims import checks


@checks("ahuja2024:lem3", "ahuja2024:asm2")
def test_lemma3_chain_and_regular_closed_supports():
    checked(lemma3.proof())


@checks("ahuja2024:lem3")
def test_lemma3_needs_regular_closedness_witness():
    res = checked(lemma3.findings())
    assert any("df/dy = 1" in r.step.name for r in res)


@checks("ahuja2024:thm4", "ahuja2024:asm1", "ahuja2024:eq4", "ahuja2024:eq10")
def test_theorem4_chain():
    checked(deepsets_slp.proof())


@checks("ahuja2024:thm4.remark-label-t")
def test_bias_witness():
    """The learner fitted on the length-T label only is exact at T = 5 and wrong elsewhere."""
    from fractions import Fraction as F

    gaps = [deepsets_slp.bias_gap(t, 5, F(3, 10), F(-1, 5)) for t in (1, 3, 5, 8, 20)]
    assert gaps == [F(2, 5), F(1, 5), 0, F(-3, 10), F(-3, 2)]
    checked(deepsets_slp.findings())


@checks("ahuja2024:thm5", "ahuja2024:eq16")
def test_theorem5_cauchy_chain():
    checked(cauchy.proof())


@checks("ahuja2024:thm5")
def test_cauchy_chain_needs_each_instance():
    """Bounded search: with only support pairs inside [0,1]^2 the additivity at (1, 1) is not entailed."""
    f = z3.Function("a", z3.RealSort(), z3.RealSort())
    grid = [z3.RealVal(k) / 2 for k in range(3)]
    s = z3.Solver()
    s.add(f(0) == 0)
    for u in grid:
        for v in grid:
            if z3.simplify(u + v <= 1):
                s.add(f(u + v) == f(u) + f(v))
    s.add(f(2) != 2 * f(1))
    assert s.check() == z3.sat


@checks("ahuja2024:thm5", "ahuja2024:asm4", "ahuja2024:asm3", "ahuja2024:asm7", "ahuja2024:asm14")
def test_bounded_phi_breaks_theorem5():
    checked(cauchy.findings())


@checks("ahuja2024:eq4")
def test_eq4_for_every_bijective_sigma():
    checked(deepsets_slp.eq4_bijective())


@checks("ahuja2024:eq16")
def test_eq16_in_every_dimension():
    checked(cauchy.eq16_vector_space())
