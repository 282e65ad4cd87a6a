"""ahuja2024 Section 5.2 and App. A.6: Theorem 12 (covers), Lipschitz constants (42)-(47), Rademacher (92)-(94)."""

from fractions import Fraction as F

from verify.ahuja import assumptions, covers, lipschitz, rademacher
from verify.ahuja._common import checked
from verify.claims import checks
from verify.kernel import assert_universal_proof


@checks("ahuja2024:thm12", "ahuja2024:asm11")
def test_theorem12_chain_and_exact_threshold():
    checked(covers.proof())
    assert covers.threshold() == 5
    sets = covers.constrained_sets()
    assert sets[3] == sets[4] != sets[5]          # a plateau before T_0: T_0 is not visible from the data


@checks("ahuja2024:thm12")
def test_theorem12_for_every_finite_cover():
    """Theorem 12's conclusion for every finite cover, eps and risk table (z3, N symbolic); the control with
    theta < N dropped (an infinite cover) has a counter-model."""
    assert_universal_proof(covers.thm12_universal(), 4)


@checks("ahuja2024:thm12.squared-loss")
def test_squared_loss_witness():
    checked(covers.findings())


@checks("ahuja2024:eq42", "ahuja2024:eq43", "ahuja2024:eq44", "ahuja2024:eq45", "ahuja2024:eq46",
        "ahuja2024:eq47", "ahuja2024:sec5.2-ssm")
def test_lipschitz_chain():
    checked(lipschitz.proof())


@checks("ahuja2024:eq42", "ahuja2024:eq43", "ahuja2024:eq44", "ahuja2024:eq45", "ahuja2024:sec5.2-ssm")
def test_lipschitz_chain_for_every_length_and_parameter():
    """(42)-(45) and the SSM block from the norm axioms, for every t, N and parameter value (z3, sympy)."""
    checked(lipschitz.universal())


@checks("ahuja2024:eq93")
def test_rademacher_cover_step_for_every_mT():
    checked(rademacher.universal())


@checks("ahuja2024:eq46", "ahuja2024:eq47", "ahuja2024:sec5.2-ssm", "ahuja2024:asm11")
def test_eq46_witness():
    checked(lipschitz.findings())
    g1, g2, printed, corrected = lipschitz.eq46_constants(F(1, 2), F(1, 2), 1, F(1, 10), 1, 1)
    assert printed == F(2077, 8100) < 1 <= corrected


@checks("ahuja2024:eq92", "ahuja2024:eq93", "ahuja2024:eq94")
def test_rademacher_chain():
    checked(rademacher.proof())


@checks("ahuja2024:eq94", "ahuja2024:eq94.massart")
def test_rademacher_witnesses():
    checked(rademacher.findings())
    assert rademacher.rademacher_shared(rademacher.const_class(F(1), 1, 12), 1, 12) == F(1, 2)
    assert rademacher.rademacher_flat([[F(0)], [F(2)]]) == 1


@checks("ahuja2024:asm5", "ahuja2024:asm6", "ahuja2024:asm13", "ahuja2024:def2")
def test_assumption_instances():
    checked(assumptions.proof())
