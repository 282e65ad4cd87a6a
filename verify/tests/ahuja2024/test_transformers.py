"""ahuja2024 transformer theorems 6, 7, 13, 14 (proof chains, controls, findings)."""

from verify.ahuja import attention, jensen
from verify.ahuja._common import checked
from verify.claims import checks
from verify.kernel import assert_universal_proof


@checks("ahuja2024:thm6")
def test_theorem6_chain():
    checked(attention.thm6_proof())


@checks("ahuja2024:thm6", "ahuja2024:asm5")
def test_theorem6_needs_two_lengths():
    checked(attention.thm6_findings())


@checks("ahuja2024:thm7", "ahuja2024:eq63-65")
def test_theorem7_jensen_chain():
    checked(jensen.proof())


@checks("ahuja2024:thm7", "ahuja2024:asm6")
def test_theorem7_origin_and_odd_t_remark():
    checked(jensen.findings())


@checks("ahuja2024:thm13", "ahuja2024:asm12")
def test_theorem13_lag_peel():
    checked(attention.thm13_proof())


@checks("ahuja2024:thm13")
def test_theorem13_for_every_T_and_length():
    """The lag peel for every T >= T_max >= 2 and the sum at every test length (z3); controls: a lag not identified,
    T >= T_max dropped."""
    assert_universal_proof(attention.thm13_general(), 4)


@checks("ahuja2024:thm13.tmax-main-text")
def test_tmax_main_text_witness():
    checked(attention.thm13_findings())


@checks("ahuja2024:thm14", "ahuja2024:asm13", "ahuja2024:eq70")
def test_theorem14_step70_witness():
    res = checked(attention.thm14_findings())
    assert "unsat" in res[0].outcome.detail


@checks("ahuja2024:eq63-65")
def test_eq63_65_in_every_dimension():
    checked(jensen.eq63_65_vector_space())


@checks("ahuja2024:asm12")
def test_assumption12_instance():
    checked(attention.asm12_instance())
