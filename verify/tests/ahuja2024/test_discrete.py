"""ahuja2024 Theorem 17 (discrete tokens) and Assumption 15: the scalar algebra and the witnesses."""

from verify.ahuja import discrete
from verify.ahuja._common import checked
from verify.claims import checks


@checks("ahuja2024:thm17", "ahuja2024:asm15", "ahuja2024:eq84-85")
def test_theorem17_scalar_algebra():
    checked(discrete.proof())


@checks("ahuja2024:thm17", "ahuja2024:asm15", "ahuja2024:thm17.mvt")
def test_square_support_non_permutation_witness():
    checked(discrete.findings())
    assert discrete.satisfies_a15(discrete.SQUARE)
    assert not discrete.satisfies_a15(discrete.SQUARE, distinct_yi=True)
    assert float(discrete.U_STAR) != 1.0 and abs(float(discrete.V_STAR) - 0.7719) < 1e-3
