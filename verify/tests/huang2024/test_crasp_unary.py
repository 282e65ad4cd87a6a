"""Lemma 37 executed: eventual behaviour on u a^n, and the non-expressibility certificates it gives."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp import oracles
from constructions.crasp.interpreter import accepts
from constructions.crasp.programs import BENCHMARKS
from constructions.crasp.reference import value
from constructions.crasp.unary import (
    NotUnaryApplicableError,
    eventual,
    eventual_acceptance,
    eventual_acceptance_periodic,
    eventual_periodic,
    not_eventually_constant,
    periodic_certificate,
)
from constructions.strategies import crasp_programs as programs
from constructions.strategies import words
from verify.claims import checks


def _check_eventual(prog, prefix, letter, extra=40):
    ev = eventual(prog, prefix, letter)
    T = max(e.T for e in ev.values())
    w = prefix + letter * max(1, T + extra - len(prefix))
    memo = {}
    for op, e in ev.items():
        for i in range(1, len(w) + 1):
            assert e.at(i) == value(op, w, i, memo), (op, i)
    n0, v = eventual_acceptance(prog, prefix, letter)
    for n in range(max(n0, 1 if not prefix else 0), n0 + extra):
        if prefix or n:
            assert bool(accepts(prog, [prefix + letter * n])[0]) == v


@checks("huang2024:lem37", "huang2024:lem11.aa-star")  # aa*'s certificate is sound only if Lemma 37 is
@settings(max_examples=25)
@given(programs(alphabet="ab", periodic=False, local=True, max_const=4), words("ab", 0, 4), st.sampled_from("ab"))
def test_eventual_forms_equal_interpreter(prog, prefix, letter):
    """Every operation equals its computed form (explicit head, then constant / affine) at every position."""
    _check_eventual(prog, prefix, letter)


@pytest.mark.slow
@checks("huang2024:lem37")
@settings(max_examples=400)
@given(programs(alphabet="abc", periodic=False, local=True, max_const=6, max_defs=14), words("abc", 0, 6),
       st.sampled_from("abc"))
def test_eventual_forms_equal_interpreter_slow(prog, prefix, letter):
    _check_eventual(prog, prefix, letter, extra=60)


@checks("huang2024:lem37")
def test_negative_control_periodic_breaks_the_lemma():
    prog = BENCHMARKS["aa_star"].program()
    with pytest.raises(NotUnaryApplicableError):
        eventual(prog, "", "a")
    got = accepts(prog, ["a" * n for n in range(100, 110)]).tolist()
    assert got == [n % 2 == 0 for n in range(100, 110)]  # alternates for ever: not eventually constant


# (language, oracle, prefix, letter, period): membership of prefix + letter^n is periodic and non-constant in n,
# so by Lemma 37 (extended to local psi) no C-RASP[local] program recognizes the language.
CERTIFICATES = [
    pytest.param("aa_star", oracles.aa_star, "", "a", 2,
                 marks=checks("huang2024:tab2.no-crasp", "huang2024:lem38", "huang2024:lem11.aa-star")),
    pytest.param("aaaa_star", oracles.aaaa_star, "", "a", 4, marks=checks("huang2024:tab2.no-crasp", "huang2024:lem38")),
    pytest.param("parity", oracles.parity, "", "1", 2, marks=checks("huang2024:lem11.parity", "huang2024:lem41")),
    pytest.param("tomita3", oracles.tomita3, "1", "0", 2, marks=checks("huang2024:tab2.tomita3")),
    pytest.param("tomita5", oracles.tomita5, "", "0", 2, marks=checks("huang2024:tab2.tomita5")),
    pytest.param("tomita6", oracles.tomita6, "", "0", 3, marks=checks("huang2024:tab2.tomita6")),
]


@pytest.mark.parametrize("name, member, prefix, letter, period", CERTIFICATES)  # each case linked to its own claims
def test_non_expressibility_certificates(name, member, prefix, letter, period):
    assert not_eventually_constant(member, prefix, letter, period, 50, 200)


@checks("huang2024:lem38")
@pytest.mark.parametrize("name, member", [("tomita1", oracles.tomita1), ("tomita4", oracles.tomita4),
                                          ("zero_two_star", oracles.zero_two_star)])
def test_certificate_negative_control(name, member):
    """Languages that are eventually constant on these families get no certificate."""
    for prefix, letter in [("", "0"), ("", "1"), ("0", "2"), ("1", "0")]:
        if set(prefix + letter) <= set("012"):
            assert not not_eventually_constant(member, prefix, letter, 2, 50, 200)


@checks("huang2024:lem37")
def test_threshold_is_tight():
    """#a <= 5 on a^n: eventually false from n = 6 on, and true at n = 5 (an off-by-one would show)."""
    from constructions.crasp import Q, count, program
    prog = program("a", [("L", count(Q("a")) <= 5)])
    assert eventual_acceptance(prog) == (6, False)
    assert accepts(prog, ["a" * 5, "a" * 6]).tolist() == [True, False]
    prog2 = program("a", [("L", 2 * 0 + count(Q("a")) + count(Q("a")) >= 7)])
    assert eventual_acceptance(prog2) == (4, True)
    assert accepts(prog2, ["aaa", "aaaa"]).tolist() == [False, True]


def _check_suffix(prog, prefix, letter, suffix, extra=30):
    n0, v = eventual_acceptance(prog, prefix, letter, suffix)
    ws = [prefix + letter * n + suffix for n in range(n0, n0 + extra)]
    ws = [w for w in ws if w]
    assert accepts(prog, ws).tolist() == [v] * len(ws)


@checks("huang2024:lem37", "huang2024:lem11.aa-star")  # aa*'s certificate is sound only if Lemma 37 is
@settings(max_examples=25)
@given(programs(alphabet="ab", periodic=False, local=True, max_const=4), words("ab", 0, 3), st.sampled_from("ab"),
       words("ab", 1, 4))
def test_eventual_with_suffix(prog, prefix, letter, suffix):
    """The induction continued past the unary block: acceptance of u a^n v is constant for n >= N0."""
    _check_suffix(prog, prefix, letter, suffix)


@pytest.mark.slow
@checks("huang2024:lem37")
@settings(max_examples=400)
@given(programs(alphabet="abc", periodic=False, local=True, max_const=6, max_defs=14), words("abc", 0, 5),
       st.sampled_from("abc"), words("abc", 1, 6))
def test_eventual_with_suffix_slow(prog, prefix, letter, suffix):
    _check_suffix(prog, prefix, letter, suffix, extra=50)


@checks("huang2024:tab3.no-crasp")
def test_bmi_transcript_not_in_crasp_local():
    """Binary Majority Interleave as a transcript language: 1^n #111 is a member iff n = 0 mod 3 (n >= 3), so
    no C-RASP[local] program exists (the paper's remark that 'length = 0 mod 3' needs positions)."""
    member = [oracles.binary_majority_interleave("1" * n + "#111") for n in range(30, 60)]
    assert member == [n % 3 == 0 for n in range(30, 60)]
    assert not_eventually_constant(oracles.binary_majority_interleave, "", "1", 3, 30, 120, suffix="#111")
    # negative control: the C-RASP[periodic] program is not covered by the lemma and does track n mod 3
    prog = BENCHMARKS["binary_majority_interleave"].program()
    with pytest.raises(NotUnaryApplicableError):
        eventual_acceptance(prog, "", "1", "#111")
    assert accepts(prog, ["1" * n + "#111" for n in range(30, 60)]).tolist() == member


# ------------------------------------------------------------- periodic words: Lemma 40 + 37 = Lemma 41
def _check_periodic(prog, prefix, block, extra_blocks=4):
    ev = eventual_periodic(prog, prefix, block)
    T = max(e.T for e in ev.values())
    n = max(1, (T - len(prefix)) // len(block) + extra_blocks)
    w = prefix + block * n
    memo = {}
    for op, e in ev.items():
        for i in range(1, len(w) + 1):
            assert e.at(i) == value(op, w, i, memo), (op, i)
    n0, v = eventual_acceptance_periodic(prog, prefix, block)
    ws = [prefix + block * m for m in range(n0, n0 + 6)]
    assert accepts(prog, ws).tolist() == [v] * len(ws)


@st.composite
def _periodic_case(draw):
    prog = draw(programs(alphabet="01", periodic=True, local=True, max_const=4))
    m = draw(st.integers(1, 3))
    block = draw(words("01", prog.period * m, prog.period * m))
    return prog, draw(words("01", 0, 3)), block


@checks("huang2024:lem41", "huang2024:lem40", "huang2024:lem11.parity")  # PARITY's certificate rests on it
@settings(max_examples=25)
@given(_periodic_case())
def test_eventual_periodic_forms_equal_interpreter(case):
    _check_periodic(*case)


@pytest.mark.slow
@checks("huang2024:lem41", "huang2024:lem40")
@settings(max_examples=400)
@given(_periodic_case())
def test_eventual_periodic_forms_equal_interpreter_slow(case):
    _check_periodic(*case, extra_blocks=8)


def test_periodic_requires_block_multiple_of_period():
    with pytest.raises(NotUnaryApplicableError, match="multiple"):
        eventual_periodic(BENCHMARKS["abab_star"].program(), "", "ab")
    # with a block of length 4 the (abab)* program is eventually constant on (abab)^n: accepted for ever
    assert eventual_acceptance_periodic(BENCHMARKS["abab_star"].program(), "", "abab")[1] is True


@pytest.mark.parametrize("name, member", [  # each case linked to its own claims
    pytest.param("parity", oracles.parity, marks=checks("huang2024:lem41", "huang2024:lem11.parity")),
    pytest.param("tomita5", oracles.tomita5, marks=checks("huang2024:tab2.tomita5")),
    pytest.param("tomita6", oracles.tomita6, marks=checks("huang2024:tab2.tomita6")),
])
def test_periodic_certificates(name, member):
    """For every block length k <= 16 a block v with membership of v^n periodic and non-constant: no
    C-RASP[periodic,local] program (whatever its period) recognizes the language."""
    cert = periodic_certificate(member, "01", 16)
    assert cert is not None and set(cert) == set(range(1, 17))


@pytest.mark.parametrize("name, member, alphabet", [("aa_star", oracles.aa_star, "ab"),
                                                    ("abab_star", oracles.abab_star, "ab"),
                                                    ("tomita4", oracles.tomita4, "01"),
                                                    ("majority", oracles.majority, "ab")])
def test_periodic_certificate_negative_control(name, member, alphabet):
    """Languages with a C-RASP[periodic,local] program get no certificate (some k has no such block)."""
    assert periodic_certificate(member, alphabet, 8) is None


@checks("huang2024:lem37")
def test_lemma37_for_every_program_by_structural_induction():
    """verify/huang/lemma37.py: one z3 step per operation of Definition 8, for every position, threshold, slope and
    intercept; the steps name exactly the operations of BOOL_NODES and COUNT_NODES other than Positional (a new
    operation without a step fails here), and Positional's step is refuted (the control)."""
    from constructions.crasp.ast import BOOL_NODES, COUNT_NODES
    from verify.huang.lemma37 import CASES, lemma37, positional_control
    from verify.kernel import assert_universal_proof

    proof = lemma37()
    assert_universal_proof(proof, count=len(CASES))
    operations = {cls.__name__ for cls in BOOL_NODES + COUNT_NODES}
    assert set(CASES) == operations - {"Positional"}
    assert "Positional" in operations  # the control below is about an operation the grammar has
    assert_universal_proof(positional_control(), count=1)


@checks("huang2024:lem38")
def test_lemma38_for_every_modulus_by_z3():
    from verify.huang.lemma37 import lemma38
    from verify.kernel import assert_universal_proof

    assert_universal_proof(lemma38(), count=2)


@checks("huang2024:lem11.aa-star")
def test_aa_star_both_halves_for_every_word():
    """Positive: mod_star(k) builds the program verify/huang/lemma37.py reads, which accepts exactly (a^k)* on every
    word (z3 over every length >= 1 and number of b's; the interpreter takes nonempty words only), its reading agreeing
    with the interpreter on short words; negative: Lemma 38 for m = k."""
    from verify.huang.lemma37 import lemma38, mod_star_program, mod_star_reading
    from verify.kernel import assert_universal_proof

    for name, k in (("aa_star", 2), ("aaaa_star", 4)):
        prog = BENCHMARKS[name].build()
        assert (prog.alphabet, prog.defs) == (mod_star_reading(k).alphabet, mod_star_reading(k).defs)
        assert_universal_proof(mod_star_program(k), count=1)
        short = ["".join(t) for n in range(1, 7) for t in itertools.product("ab", repeat=n)]
        # the reading's semantics (C_b = number of b's, phi on the 1-based last position) is the interpreter's
        assert [bool(v) for v in accepts(prog, short)] == [w.count("b") == 0 and len(w) % k == 0 for w in short]
    assert mod_star_reading(2).defs != mod_star_reading(4).defs  # control: the reading tells the programs apart
    assert_universal_proof(lemma38(), count=2)


@checks("huang2024:lem41", "huang2024:lem11.parity", "huang2024:tab2.tomita5", "huang2024:tab2.tomita6")
def test_lemma41_for_every_program_and_block_length_by_structural_induction():
    """verify/huang/lemma41.py: every operation of Definition 8 (Positional included) is eventually L-periodic on u v v
    v ... (one z3 step each, the steps checked to cover the grammar), so the answer on v^n settles, while PARITY,
    Tomita 5 and Tomita 6 take both values beyond every threshold for every block length k."""
    from constructions.crasp.ast import BOOL_NODES, COUNT_NODES
    from verify.huang.lemma41 import CASES, language, periodic_words
    from verify.kernel import assert_universal_proof

    assert_universal_proof(periodic_words(), count=len(CASES))
    assert set(CASES) == {cls.__name__ for cls in BOOL_NODES + COUNT_NODES}
    for claim in ("huang2024:lem41", "huang2024:tab2.tomita5", "huang2024:tab2.tomita6"):
        assert_universal_proof(language(claim), count=3)
