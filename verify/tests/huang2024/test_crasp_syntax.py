"""huang2024:def8 -- the text syntax round-trips every well-typed C-RASP program (Hypothesis-generated).

Parser errors, the benchmark programs' round trip and fuzzing are unit tests in tests/constructions/test_crasp_syntax.py.
"""

import pytest
from hypothesis import given, settings

from constructions.crasp.syntax import format_program, parse
from constructions.strategies import crasp_programs as programs
from verify.claims import checks


def _round_trip(prog):
    text = format_program(prog)
    back = parse(text)
    assert back.defs == prog.defs
    assert format_program(parse(text)) == text


@checks("huang2024:def8")
@settings(max_examples=50)
@given(programs(alphabet="ab#"))
def test_random_program_round_trip(prog):
    _round_trip(prog)


@pytest.mark.slow
@settings(max_examples=2000)
@given(programs(alphabet="ab#01", max_defs=16))
def test_random_program_round_trip_slow(prog):
    _round_trip(prog)
