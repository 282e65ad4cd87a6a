"""ahuja2024 Theorem 9 (vanilla RNN), Lemmas 15 and 16, Assumption 10."""

from verify.ahuja import rnn
from verify.ahuja._common import checked
from verify.claims import checks
from verify.kernel import Proof


@checks("ahuja2024:thm9", "ahuja2024:eq36", "ahuja2024:eq40")
def test_theorem9_chain():
    checked(rnn.proof())


@checks("ahuja2024:eq40")
def test_eq40_as_printed_is_the_rejected_control():
    step = next(s for s in rnn.proof().steps if s.name.startswith("(40)"))
    assert step.discharge().holds and not step.negative.discharge().holds


@checks("ahuja2024:lem15")
def test_lemma15():
    checked(rnn.lemma15_proof())
    polys = rnn.lemma15_polys()
    import sympy

    S = sympy.Symbol("S")
    assert sympy.factor(polys[1]) == sympy.factor(S * (S - 1) * (2 * S - 1))
    assert sympy.Poly(polys[6], S).LC() == -5040


@checks("ahuja2024:lem16")
def test_lemma16():
    checked(rnn.lemma16_proof())


@checks("ahuja2024:asm10")
def test_assumption10_instance():
    checked(Proof("ahuja2024:asm10", "A10 instance", (rnn.asm10_instance(),)))


@checks("ahuja2024:lem15")
def test_lemma15_for_every_k():
    checked(rnn.lemma15_induction())


@checks("ahuja2024:lem16")
def test_lemma16_for_every_size():
    checked(rnn.lemma16_general())


@checks("ahuja2024:eq36")
def test_eq36_for_every_size():
    checked(rnn.eq36_general())
