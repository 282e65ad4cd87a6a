"""huang2024 Definition 30 (MAJ_2[<, +1, MOD]) and the strictness half of Remark 32 (constructions/crasp/maj2.py)."""

import itertools
import re

import pytest

from constructions.crasp.maj2 import FormulaError, accepts, fragment, holds
from verify.claims import checks

MAJORITY_A = ("maj", "x", ("Q", "a", "x"))
# Sigma* b e*: some b after which every position is e (two variables, no majority needed: FO2[<])
LAST_WRITE_B = ("exists", "x", ("and", ("Q", "b", "x"),
                                ("not", ("exists", "y", ("and", ("<", "x", "y"), ("not", ("Q", "e", "y")))))))
CONTAINS_AB = ("exists", "x", ("and", ("Q", "a", "x"), ("exists", "y", ("and", ("+1", "y", "x"), ("Q", "b", "y")))))
EVEN_POSITIONS_A = ("forall", "x", ("or", ("not", ("mod", "x", 0, 2)), ("Q", "a", "x")))


def _words(alphabet, n):
    return ("".join(t) for k in range(1, n + 1) for t in itertools.product(alphabet, repeat=k))


@checks("huang2024:def30")
def test_semantics_against_independent_definitions():
    """Each quantifier and predicate against a direct definition, on every word of length <= 8 (<= 6 over 3 letters)."""
    for w in _words("ab", 8):
        assert accepts(w, MAJORITY_A) == (2 * w.count("a") > len(w))
        assert accepts(w, CONTAINS_AB) == ("ab" in w)
        assert accepts(w, EVEN_POSITIONS_A) == all(c == "a" for c in w[1::2])
    for w in _words("abe", 6):
        assert accepts(w, LAST_WRITE_B) == (re.fullmatch(r"[abe]*be*", w) is not None)
    assert fragment(LAST_WRITE_B) == fragment(MAJORITY_A) == "MAJ2[<]"
    assert fragment(CONTAINS_AB) == fragment(EVEN_POSITIONS_A) == "MAJ2[<,+1,MOD]"
    # negative control: 'at least half' (>= |w|/2) is not the majority quantifier: they differ on "ab"
    assert not accepts("ab", MAJORITY_A) and 2 * "ab".count("a") >= len("ab")


@checks("huang2024:def30")
def test_malformed_formulas_are_refused():
    with pytest.raises(FormulaError, match="only"):
        accepts("ab", ("exists", "z", ("Q", "a", "z")))
    with pytest.raises(FormulaError, match="free"):
        accepts("ab", ("Q", "a", "x"))
    with pytest.raises(FormulaError, match="unknown"):
        holds("ab", ("xor", ("Q", "a", "x")), {"x": 1})


@checks("huang2024:rem32")
def test_strictness_witness_is_in_maj2_lt():
    """Sigma* b e* is defined in MAJ_2[<] (every word of length <= 7 over {a, b, e}); by Lemma 36 it is not in
    C-RASP[periodic, local], a fortiori not in C-RASP: C-RASP != MAJ_2[<]."""
    assert fragment(LAST_WRITE_B) == "MAJ2[<]"
    for w in _words("abe", 7):
        assert accepts(w, LAST_WRITE_B) == (re.fullmatch(r"[abe]*be*", w) is not None)


# Proposition 31 on instances: languages of C-RASP[periodic, local] benchmark programs, each with a MAJ_2[<, +1, MOD]
# sentence written by hand (the paper's translation, after Krebs 2008, is only sketched).
def _after(v, u):  # v = u + 1
    return ("+1", v, u)


def _last(v):  # v is the last position
    other = "y" if v == "x" else "x"
    return ("not", ("exists", other, ("<", v, other)))


def _zero_zero_at(v):  # the letters at v and at v - 1 are 0
    other = "y" if v == "x" else "x"
    return ("and", ("Q", "0", v), ("exists", other, ("and", _after(v, other), ("Q", "0", other))))


def _ten_at(v):  # a factor 10 ends at v (the letter before v is 1, the letter at v is 0)
    other = "y" if v == "x" else "x"
    return ("and", ("Q", "0", v), ("exists", other, ("and", _after(v, other), ("Q", "1", other))))


PROP31_INSTANCES = {
    # MAJORITY (#a >= #b): not (more than half of the positions carry b); plain C-RASP
    "majority": ("not", ("maj", "x", ("Q", "b", "x"))),
    # (aa)*: only a's and the last position is even; C-RASP[periodic]
    "aa_star": ("and", ("forall", "x", ("Q", "a", "x")), ("exists", "x", ("and", ("mod", "x", 0, 2), _last("x")))),
    # (abab)*: a at odd and b at even positions, the last position = 0 mod 4; C-RASP[periodic]
    "abab_star": ("and", ("forall", "x", ("and", ("or", ("not", ("mod", "x", 1, 2)), ("Q", "a", "x")),
                                           ("or", ("not", ("mod", "x", 0, 2)), ("Q", "b", "x")))),
                  ("exists", "x", ("and", ("mod", "x", 0, 4), _last("x")))),
    # Tomita 4 (no factor 000): three consecutive 0's with two variables; C-RASP[local]
    "tomita4": ("not", ("exists", "x", ("and", ("Q", "0", "x"), ("exists", "y", ("and", _after("x", "y"), _zero_zero_at("y")))))),
    # 0*1*0*1* (at most one factor 10), the C-RASP[local] program tomita7_local
    "tomita7_local": ("not", ("exists", "x", ("and", _ten_at("x"), ("exists", "y", ("and", ("<", "x", "y"), _ten_at("y")))))),
}


@checks("huang2024:prop31")
@pytest.mark.parametrize("name", sorted(PROP31_INSTANCES))
def test_prop31_crasp_languages_have_maj2_sentences(name):
    """Each C-RASP[periodic, local] program's language is defined by its MAJ_2[<, +1, MOD] sentence: program and
    sentence accept the same words, every word of length 1..10 (the interpreter of constructions.crasp)."""
    from constructions.crasp import programs
    from constructions.crasp.interpreter import accepts as program_accepts

    prog = programs.tomita7_local() if name == "tomita7_local" else programs.get(name).build()
    words = list(_words(prog.alphabet, 10))
    got = program_accepts(prog, words)
    sentence = PROP31_INSTANCES[name]
    assert [accepts(w, sentence) for w in words] == [bool(g) for g in got]
    assert any(got) and not all(got)  # neither language is trivial on these words


@checks("huang2024:prop31")
def test_prop31_instances_negative_control():
    """The comparison tells languages apart: majority's sentence with 'at least half' (maj over a) is not the program."""
    from constructions.crasp.interpreter import accepts as program_accepts
    from constructions.crasp.programs import majority

    prog = majority()
    words = list(_words("ab", 6))
    wrong = ("maj", "x", ("Q", "a", "x"))  # strict majority of a's: rejects the ties #a = #b that MAJORITY accepts
    assert [accepts(w, wrong) for w in words] != [bool(g) for g in program_accepts(prog, words)]
