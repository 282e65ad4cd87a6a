"""ahuja2024 chain-of-thought: Theorems 18-20, Assumptions 16-18, and the main-text ReLU claim."""

from verify.ahuja import cot
from verify.ahuja._common import checked
from verify.claims import checks
from verify.kernel import assert_universal_proof


@checks("ahuja2024:thm18", "ahuja2024:asm16")
def test_theorem18_chain():
    checked(cot.thm18_proof())


@checks("ahuja2024:thm18.bounded-tokens", "ahuja2024:asm16")
def test_cot_deepsets_bounded_tokens_witness():
    checked(cot.thm18_findings())


@checks("ahuja2024:thm19", "ahuja2024:asm17")
def test_theorem19_chain():
    checked(cot.thm19_proof())


@checks("ahuja2024:thm19", "ahuja2024:asm17")
def test_theorem19_rank_conditions_are_needed():
    checked(cot.thm19_findings())


@checks("ahuja2024:thm20", "ahuja2024:asm18")
def test_theorem20_chain():
    checked(cot.thm20_proof())


@checks("ahuja2024:thm20")
def test_theorem20_for_every_size():
    """Theorem 20 for every k, n, N: right inverses of the rank-(k + n) and rank-k data in non-commuting symbols,
    then length generalization by induction on t; controls: data of rank k only, parameters not equal."""
    assert_universal_proof(cot.thm20_general(), 7)


@checks("ahuja2024:sec4.1-cot-relu")
def test_relu_cot_dead_unit_witness():
    checked(cot.relu_cot_findings())
