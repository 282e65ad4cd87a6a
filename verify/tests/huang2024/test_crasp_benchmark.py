"""Benchmark programs against independent oracles: exhaustive sweeps, long random words, mutants."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp import oracles
from constructions.crasp.interpreter import accepts
from constructions.crasp.mutate import mutants
from constructions.crasp.programs import (
    BENCHMARKS,
    EXTRA_PROGRAMS,
    NO_PROGRAM,
    REGULAR_13,
    copy_unique,
    majority_letters,
    program,
    sort_task,
    subsequence_defs,
)
from constructions.crasp.verify import check_exhaustive
from constructions.strategies import member_like
from verify.claims import checks

# The paper's prediction columns (reference sections 5.3, 5.4, 5.6): the fragment each program may use.
EXPECTED_FRAGMENT = {
    "majority": "C-RASP", "dyck1": "C-RASP", "anbncn": "C-RASP", "anbn": "C-RASP",
    "pt_aba": "C-RASP", "pt_bca": "C-RASP", "pt_ab_not_ba": "C-RASP",
    "tomita1": "C-RASP", "tomita2": "C-RASP", "tomita4": "C-RASP[local]", "tomita7": "C-RASP",
    "d2": "C-RASP", "d3": "C-RASP", "d4": "C-RASP", "d12": "C-RASP",
    "aa_star": "C-RASP[periodic]", "aaaa_star": "C-RASP[periodic]", "abab_star": "C-RASP[periodic]",
    "a_b_c_d_e": "C-RASP", "ab_d_bc": "C-RASP",
    "induction_next_a": "C-RASP[local]", "induction_argmax_a": "C-RASP[local]",
    "binary_majority": "C-RASP", "binary_majority_interleave": "C-RASP[periodic]", "majority_letters": "C-RASP",
    "sort": "C-RASP", "copy_unique": "C-RASP[local]",
}
ALPHABETS = {"tomita1": "01", "tomita2": "01", "tomita4": "01", "tomita7": "01", "d2": "ab", "d3": "ab", "d4": "ab",
             "d12": "ab", "aa_star": "ab", "aaaa_star": "ab", "abab_star": "ab", "a_b_c_d_e": "abcde",
             "ab_d_bc": "abcd"}


#: the claims each benchmark program checks (Theorem 10's counter languages, Table 2's regular languages, Table 3's
#: algorithmic tasks, eq. (10)'s induction-head targets, Lemma 11's (aa)* and piecewise testable patterns): a test
#: of one program is linked to the claims about that program only
_TAB3 = ("binary_majority", "majority_letters", "sort", "copy_unique", "binary_majority_interleave")
CLAIMS_OF = {name: tuple(k for k, names in (
    ("huang2024:thm10", ("majority", "dyck1", "anbncn", "anbn")),
    ("huang2024:tab2", REGULAR_13),
    ("huang2024:tab3", _TAB3),
    ("huang2024:eq10", ("induction_next_a", "induction_argmax_a")),
    ("huang2024:lem11.aa-star", ("aa_star",)),
    ("huang2024:lem11.piecewise", ("pt_aba", "pt_bca", "pt_ab_not_ba")),
) if name in names) for name in BENCHMARKS}


def benchmark_params(*only: str):
    """One pytest param per benchmark program, marked with the claims about it (among ``only`` when given)."""
    out = []
    for name in BENCHMARKS:
        keys = [k for k in CLAIMS_OF[name] if not only or k in only]
        out.append(pytest.param(name, marks=[checks(*keys)] if keys else []))
    return out


def fast_len(b) -> int:
    special = {"binary_majority_interleave": 7, "copy_unique": 6, "sort": 6}
    return special.get(b.name) or {2: 9, 3: 6, 4: 5}.get(len(b.program().alphabet), 5)


def test_registry_is_complete():
    assert set(REGULAR_13) <= set(BENCHMARKS)
    assert set(EXPECTED_FRAGMENT) == set(BENCHMARKS)
    for name, alpha in ALPHABETS.items():
        assert "".join(BENCHMARKS[name].program().alphabet) == alpha
    assert set(NO_PROGRAM) == {"tomita3", "tomita5", "tomita6", "parity", "zero_two_star", "copy_repeat", "addition"}
    assert not set(NO_PROGRAM) & set(BENCHMARKS)


@pytest.mark.parametrize("name", benchmark_params())
def test_program_fragment_matches_paper(name):
    assert BENCHMARKS[name].program().fragment == EXPECTED_FRAGMENT[name]


@pytest.mark.parametrize("name", benchmark_params())
def test_exhaustive_small(name):
    b = BENCHMARKS[name]
    res = check_exhaustive(b.program(), b.oracle, fast_len(b), name)
    assert res.ok, res.line()


@pytest.mark.slow
@pytest.mark.parametrize("name", benchmark_params())
def test_exhaustive_full(name):
    b = BENCHMARKS[name]
    res = check_exhaustive(b.program(), b.oracle, b.exhaustive_len, name)
    assert res.ok, res.line()
    assert b.exhaustive_len >= (12 if len(b.program().alphabet) == 2 else 8)


_PROGS = {name: b.program() for name, b in BENCHMARKS.items()}


def _long_words(name, data):
    b = BENCHMARKS[name]
    ws = [data.draw(member_like(name, 2000)) for _ in range(3)]
    assert accepts(_PROGS[name], ws).tolist() == [b.oracle(w) for w in ws]


@pytest.mark.parametrize("name", benchmark_params("huang2024:thm10", "huang2024:tab2", "huang2024:tab3",
                                                 "huang2024:eq10"))
@settings(max_examples=5)
@given(data=st.data())
def test_long_random_words(name, data):
    """Words up to length 2000 (near-members plus random edits): program == oracle."""
    _long_words(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BENCHMARKS))
@settings(max_examples=150)
@given(data=st.data())
def test_long_random_words_slow(name, data):
    _long_words(name, data)


_SORT9 = sort_task("123456789")()
_COPY10 = copy_unique("abcdefghij")()
_LETTERS26 = "abcdefghijklmnopqrstuvwxyz"
_MAJ26 = majority_letters(_LETTERS26)()


@checks("huang2024:tab3")
@settings(max_examples=6)
@given(data=st.data())
def test_sort_and_copy_with_larger_vocabularies(data):
    """The same builders over 9 numbers / 10 letters / the task's 26 letters (longer transcripts)."""
    w = data.draw(member_like("sort:123456789", 40))
    assert bool(accepts(_SORT9, [w])[0]) == oracles.sort_task(w)
    w = data.draw(member_like("copy_unique:abcdefghij", 40))
    assert bool(accepts(_COPY10, [w])[0]) == oracles.copy_unique(w)
    w = data.draw(member_like(f"majority_letters:{_LETTERS26}", 300))
    assert bool(accepts(_MAJ26, [w])[0]) == oracles.majority_letters(_LETTERS26)(w)


@pytest.mark.parametrize("name", benchmark_params("huang2024:thm10", "huang2024:tab2", "huang2024:tab3",
                                                 "huang2024:eq10"))
def test_mutants_are_rejected(name):
    """Negative control: single-operation mutants must (mostly) disagree with the oracle."""
    b = BENCHMARKS[name]
    ms = list(mutants(b.program()))
    sample = ms[:: max(1, len(ms) // 4)][:4]
    detected = sum(not check_exhaustive(m, b.oracle, fast_len(b)).ok for _, m in sample)
    assert detected >= 1 and detected >= 0.5 * len(sample), (detected, len(sample))


def test_specific_mutant_counterexample():
    """The checker names a shortest counterexample: MAJORITY with a strict comparison fails on 'ab'."""
    from constructions.crasp.ast import Q, count, lt
    wrong = program("ab", [("M", lt(count(Q("b")), count(Q("a"))))])
    res = check_exhaustive(wrong, oracles.majority, 6)
    assert not res.ok and res.counterexample == "ab" and res.program_value is False


@checks("huang2024:lem11.piecewise")
@pytest.mark.parametrize("alphabet, max_pat, max_len", [("ab", 3, 8)])
def test_all_subsequence_patterns(alphabet, max_pat, max_len):
    _check_patterns(alphabet, max_pat, max_len)


@pytest.mark.slow
@checks("huang2024:lem11.piecewise")
def test_all_subsequence_patterns_slow():
    _check_patterns("abc", 4, 7)


def _check_patterns(alphabet, max_pat, max_len):
    from itertools import product
    for k in range(1, max_pat + 1):
        for pat in product(alphabet, repeat=k):
            word = "".join(pat)
            prog = program(alphabet, subsequence_defs(word))
            res = check_exhaustive(prog, oracles.subsequence(word), max_len, f"subseq {word}")
            assert res.ok, res.line()


@checks("huang2024:tab1")
def test_dn_scan_equals_grammar():
    from itertools import product
    for n in (1, 2, 3, 4):
        pat = oracles._dn_recursive(n)
        scan = oracles.dyck_depth(n)
        for m in range(1, 11):
            for t in product("ab", repeat=m):
                w = "".join(t)
                assert scan(w) == (pat.fullmatch(w) is not None)


@checks("huang2024:lem36")
def test_zero_two_star_is_flipflop_renamed():
    """{0,1,2}*02* equals Sigma* b e* under 0->b, 1->a, 2->e (the last non-e symbol is b)."""
    from itertools import product
    ren = str.maketrans("012", "bae")
    for m in range(1, 9):
        for t in product("012", repeat=m):
            w = "".join(t)
            flip = re.fullmatch(r"[abe]*be*", w.translate(ren)) is not None
            assert oracles.zero_two_star(w) == flip


def test_extra_programs_agree():
    res = check_exhaustive(EXTRA_PROGRAMS["tomita7_local"](), oracles.tomita7, 10)
    assert res.ok, res.line()


@checks("huang2024:lem36", "huang2024:lem11.flipflop", "huang2024:lem11", "huang2024:lem29")
def test_lemma36_reduction_to_the_lemma35_language():
    """Lemma 36's reduction: with F deciding Sigma* b e* at every position, L(i) := E[j <= i](Q_b(j) and
    E[k <= j, k = j - 1] F(k)) -- only a local relation -- decides Sigma* b e* b Sigma* (our reading of Lemma 35's
    language), on every word of length <= 9 over {a, b, e}; F is the oracle of Sigma* b e*."""
    from itertools import product

    from verify.huang.reductions import lemma36_reduction as reduction

    flip = re.compile(r"[abe]*be*")
    lemma35 = re.compile(r"[abe]*be*b[abe]*")

    def F(u):
        return flip.fullmatch(u) is not None

    for m in range(1, 10):
        for t in product("abe", repeat=m):
            w = "".join(t)
            assert reduction(w, F) == (lemma35.fullmatch(w) is not None)
    # negative control: with F = 'the last symbol is b' (e's not skipped) the reduction misses "beb"
    assert not reduction("beb", lambda u: u.endswith("b")) and lemma35.fullmatch("beb")


@checks("huang2024:app-c2.2")
def test_next_is_in_crasp_local_with_the_predecessor_relation():
    """App. C.2.2's positive half: NEXT_a (support and argmax readings) has C-RASP[local] programs, checked against
    their oracles on every word up to the exhaustive length; each needs a positional (local) relation."""
    for name in ("induction_next_a", "induction_argmax_a"):
        b = BENCHMARKS[name]
        res = check_exhaustive(b.program(), b.oracle, fast_len(b), name)
        assert res.ok, res.line()
        assert b.program().fragment != "C-RASP"  # the predecessor relation is used
    wrong = BENCHMARKS["induction_next_a"]
    assert not check_exhaustive(wrong.program(), BENCHMARKS["induction_argmax_a"].oracle, 6, "control").ok
