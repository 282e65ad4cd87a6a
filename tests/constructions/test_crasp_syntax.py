"""Text syntax: parser errors with line/column, canonical printing of the benchmark programs, example files, fuzzing.

The round trip of random programs (huang2024:def8) is checked in verify/tests/huang2024/test_crasp_syntax.py.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp.errors import ParseError
from constructions.crasp.programs import BENCHMARKS, EXTRA_PROGRAMS
from constructions.crasp.syntax import format_program, parse

GOOD = """\
-- illustration of our own (reference section 3.3): a*b*
alphabet: a b
C_b := #[j <= i] Q_b            -- b's so far
V := Q_a & 1 <= C_b
C_V := #[j <= i] V
L := C_V <= 1 - 1
"""


def test_parse_example_and_sugar():
    p = parse(GOOD)
    assert p.alphabet == ("a", "b") and [n for n, _ in p.defs] == ["C_b", "V", "C_V", "L"]
    q = parse("alphabet: a b\nX := exists[j <= i, j = i - 1] Q_a | phi[i % 2 = 0] & !(#[j<=i] Q_b > 2)\n"
              "Y := X ? #[j <= i, i - j in {0, 2}] Q_b : -3\nL := Y != 0 & Y >= -1 & Y == Y & 1 < 2\n")
    assert q.fragment == "C-RASP[periodic,local]"
    assert q.locality == 2 and q.period == 2


@pytest.mark.parametrize("text, line, col, msg", [
    ("C := #[j <= i] Q_a\n", 1, 1, "alphabet"),
    ("alphabet: a b\nC := #[j <= i] Q_a\nL := C & Q_a\n", 3, 6, "And: expected a Boolean"),
    ("alphabet: a b\nL := Q_a <= 1\n", 2, 6, "Comparison <=: expected a Count"),
    ("alphabet: a b\nL := Q_c\n", 2, 6, "outside the alphabet"),
    ("alphabet: a b\nL := X & Q_a\n", 2, 6, "undefined name 'X'"),
    ("alphabet: a b\nL := (Q_a & Q_b\n", 2, 16, "expected ')'"),
    ("alphabet: a b\nL := Q_a $ Q_b\n", 2, 10, "unexpected character"),
    ("alphabet: a b\nL := #[j <= i, i + j] Q_a\n", 2, 18, "expected '-'"),
    ("alphabet: a b\nL := phi[i % 0 in {0}]\n", 2, 14, "period must be"),
    ("alphabet: a b\nL := phi[i % 2 in {5}]\n", 2, 14, "residue 5"),
    ("alphabet: a b\nL := #[j <= i, i - j in {-1}] Q_a <= 1\n", 2, 16, "negative"),
    ("alphabet: a b\nC := #[j <= i] Q_a\n", 2, 1, "must be Boolean"),
    ("alphabet: a b\nL := Q_a\nL := Q_b\n", 3, 1, "defined twice"),
    ("alphabet: ab\nL := Q_a\n", 1, 11, "single character"),
    ("alphabet: a b\nL Q_a\n", 2, 1, "NAME := expression"),
    ("alphabet: a b\nL := Q_ab\n", 2, 6, "exactly one symbol"),
    ("alphabet: a b\nL := Q_a ? 1 : Q_b\n", 2, 16, "Conditional branch"),
    ("alphabet: a b\nL := Q_a Q_b\n", 2, 10, "unexpected 'Q_b'"[:12]),
])
def test_parse_errors_have_line_and_column(text, line, col, msg):
    with pytest.raises(ParseError) as ei:
        parse(text)
    assert (ei.value.line, ei.value.column) == (line, col), str(ei.value)
    assert msg in str(ei.value)


@pytest.mark.parametrize("name", [*BENCHMARKS, *EXTRA_PROGRAMS])
def test_benchmark_programs_round_trip(name):
    prog = BENCHMARKS[name].program() if name in BENCHMARKS else EXTRA_PROGRAMS[name]()
    text = format_program(prog)
    back = parse(text)
    assert back.defs == prog.defs and back.alphabet == prog.alphabet
    assert format_program(back) == text


@pytest.mark.parametrize("name", list(BENCHMARKS))
def test_example_files_in_sync(name):
    """constructions/crasp/examples/NAME.crasp parses to the registry program (regenerate with
    ``python -c 'from constructions.crasp.programs import export_examples; export_examples()'``)."""
    import os

    from constructions.crasp.programs import EXAMPLES_DIR
    from constructions.crasp.syntax import parse_file
    prog = parse_file(os.path.join(EXAMPLES_DIR, f"{name}.crasp"))
    ref = BENCHMARKS[name].program()
    assert prog.defs == ref.defs and prog.alphabet == ref.alphabet and prog.name == name


_TOKENS = ["alphabet: a b\n", "alphabet: a\n", "\n", "L", "C", " := ", "#[j <= i]", "#[j <= i, i - j in {1}]", "#[j <= i, j = i - 2]",
           "Q_a", "Q_b", "Q_", "Q_c", "phi[i % 2 in {0}]", "phi[i % 0 = 1]", "exists[j <= i]", "(", ")", "&", "|", "!", "?",
           ":", "<=", "<", "=", "!=", "+", "-", "1", "-3", "true", "false", "{", "}", ",", "[", "]", "$", "--c", "i", "j"]


def _fuzz(toks):
    text = "".join(toks)
    try:
        prog = parse(text)
    except ParseError as e:
        assert e.line >= 1 and e.column >= 1
        assert str(e).startswith(f"line {e.line}, column {e.column}: ")
    else:
        assert format_program(parse(format_program(prog))) == format_program(prog)


@settings(max_examples=120)
@given(st.lists(st.sampled_from(_TOKENS), max_size=25))
def test_parser_fuzz_only_parse_errors(toks):
    """Arbitrary token soup either parses or raises ParseError (never another exception)."""
    _fuzz(toks)


@pytest.mark.slow
@settings(max_examples=5000)
@given(st.lists(st.sampled_from(_TOKENS), max_size=40))
def test_parser_fuzz_only_parse_errors_slow(toks):
    _fuzz(toks)
