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
