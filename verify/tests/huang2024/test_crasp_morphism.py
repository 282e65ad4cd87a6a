"""Lemma 42 executed: inverse images of length-uniform morphisms."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp import oracles
from constructions.crasp.errors import CraspError
from constructions.crasp.interpreter import accepts
from constructions.crasp.morphism import apply_morphism, inverse_image
from constructions.crasp.programs import BENCHMARKS
from constructions.strategies import crasp_programs as programs
from constructions.strategies import words
from verify.claims import checks


@st.composite
def morphisms(draw, sigma="xyz", gamma="ab"):
    k = draw(st.integers(1, 3))
    return {s: draw(st.text(alphabet=st.sampled_from(gamma), min_size=k, max_size=k)) for s in sigma}


def _check(prog, h, ws):
    inv = inverse_image(prog, h)
    assert accepts(inv, ws).tolist() == accepts(prog, [apply_morphism(h, w) for w in ws]).tolist()
    return inv


@checks("huang2024:lem42")
@settings(max_examples=30)
@given(programs(alphabet="ab", max_defs=6), morphisms(), st.lists(words("xyz", 1, 9), min_size=1, max_size=5))
def test_inverse_image_random(prog, h, ws):
    inv = _check(prog, h, ws)
    k = len(next(iter(h.values())))
    assert inv.period in (1, prog.period) or prog.period % inv.period == 0
    assert inv.locality <= -(-prog.locality // k)
    if not prog.uses_local and not prog.uses_periodic:
        assert inv.fragment == "C-RASP"  # plain C-RASP stays plain


@pytest.mark.slow
@checks("huang2024:lem42")
@settings(max_examples=500)
@given(programs(alphabet="ab", max_defs=10), morphisms(), st.lists(words("xyz", 1, 20), min_size=1, max_size=5))
def test_inverse_image_random_slow(prog, h, ws):
    _check(prog, h, ws)


@checks("huang2024:lem42")
@pytest.mark.parametrize("name, h", [("tomita4", {"x": "00", "y": "1"[0] + "0"}), ("abab_star", {"p": "ab", "q": "ba"}),
                                     ("dyck1", {"o": "aab", "c": "abb"})])
def test_inverse_image_of_benchmarks(name, h):
    from itertools import product
    prog = BENCHMARKS[name].program()
    sigma = "".join(h)
    ws = ["".join(t) for n in range(1, 7) for t in product(sigma, repeat=n)]
    _check(prog, h, ws)


def test_negative_control_wrong_offset_is_caught():
    """Dropping the 'later offsets' correction of Counting (a wrong construction) disagrees somewhere."""
    from itertools import product

    import constructions.crasp.morphism as m
    prog = BENCHMARKS["dyck1"].program()
    h = {"x": "ab", "y": "ba"}
    real = m._indicator
    try:
        m._indicator = lambda p: m.CountConst(0)  # pretend [P_r'(i)] is always 0
        bad = inverse_image(prog, h)
    finally:
        m._indicator = real
    ws = ["".join(t) for n in range(1, 5) for t in product("xy", repeat=n)]
    assert accepts(bad, ws).tolist() != accepts(prog, [apply_morphism(h, w) for w in ws]).tolist()
    _check(prog, h, ws)  # the real construction agrees on the same words


def test_rejects_non_uniform_morphism():
    prog = BENCHMARKS["majority"].program()
    with pytest.raises(CraspError, match="length-uniform"):
        inverse_image(prog, {"x": "a", "y": "ab"})
    with pytest.raises(CraspError, match="outside the alphabet"):
        inverse_image(prog, {"x": "c"})


@checks("huang2024:tab2.tomita6")
def test_tomita6_reduction_morphism():
    """h: 0 -> 10, 1 -> 00 maps '#1 = 0 mod 3' onto Tomita 6: h^-1(Tomita 6) = {w : #1(w) = 0 mod 3} (all words
    up to length 10); so a program for Tomita 6 would give one for '#1 = 0 mod 3' (Lemma 42)."""
    from itertools import product
    h = {"0": "10", "1": "00"}
    for n in range(1, 11):
        for t in product("01", repeat=n):
            w = "".join(t)
            assert oracles.tomita6(apply_morphism(h, w)) == (w.count("1") % 3 == 0)
