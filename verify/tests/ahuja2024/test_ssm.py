"""ahuja2024 Theorem 8 (SSM): the chain (21)-(27), Assumption 9 on data, and the bounded-token witness."""

from verify.ahuja import ssm
from verify.ahuja._common import checked
from verify.claims import checks
from verify.kernel import Proof


@checks("ahuja2024:thm8", "ahuja2024:asm9", "ahuja2024:eq25", "ahuja2024:eq23", "ahuja2024:eq24")
def test_theorem8_chain():
    checked(ssm.proof())


@checks("ahuja2024:asm8")
def test_assumption8_instance():
    checked(Proof("ahuja2024:asm8", "A8 instance", (ssm.asm8_instance(),)))


@checks("ahuja2024:thm8", "ahuja2024:asm9")
def test_bounded_tokens_break_theorem8():
    checked(ssm.findings())


@checks("ahuja2024:eq25")
def test_eq25_for_every_size_and_power():
    checked(ssm.eq25_general())
