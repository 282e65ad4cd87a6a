"""Vectorized interpreter == independent per-position reference interpreter; exactness; traces."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp import InputError, Q, count, program, reference
from constructions.crasp.ast import Count, CountConst, Node, Sub, count_upto_minus, iter_nodes, psi, scale
from constructions.crasp.interpreter import accepts, accepts_one, encode, evaluate, trace
from constructions.crasp.programs import BENCHMARKS
from constructions.strategies import crasp_programs as programs
from constructions.strategies import words
from verify.claims import checks


def vector_values(prog, w):
    X = encode(prog, [w])
    keep = [d for _, d in prog.defs]
    vals = evaluate(prog, X, keep=keep, all_defs=True)
    return {n: [v.item() if hasattr(v, "item") else v for v in vals[d][0]] for n, d in prog.defs}


def agree(prog, ws, ref_values=reference.values):
    for w in ws:
        if vector_values(prog, w) != ref_values(prog, w):
            return w
    return None


def _check_vectorized_equals_reference(prog, ws):
    assert agree(prog, ws) is None
    # batch acceptance (mixed lengths) equals per-word reference acceptance
    assert accepts(prog, ws).tolist() == [reference.accepts(prog, w) for w in ws]


@checks("huang2024:def8")
@settings(max_examples=60)
@given(programs(alphabet="abc"), st.lists(words("abc", 1, 12), min_size=1, max_size=3))
def test_vectorized_equals_reference(prog, ws):
    _check_vectorized_equals_reference(prog, ws)


@pytest.mark.slow
@checks("huang2024:def8")
@settings(max_examples=400)
@given(programs(alphabet="abc", max_defs=14), st.lists(words("abc", 1, 40), min_size=1, max_size=4))
def test_vectorized_equals_reference_slow(prog, ws):
    _check_vectorized_equals_reference(prog, ws)


def _strict_counting(prog):
    """A wrong semantics for Counting (j < i instead of j <= i), expressed as a program rewrite."""
    memo = {}

    def rw(node):
        if node not in memo:
            if isinstance(node, Count) and node.psi is None:
                arg = rw(node.arg)
                memo[node] = Sub(Count(arg), Count(arg, psi({0})))
            else:
                memo[node] = type(node)(*(rw(v) if isinstance(v, Node) else v for v in node.field_values()))
        return memo[node]

    return program(prog.alphabet, [(n, rw(d)) for n, d in prog.defs])


@checks("huang2024:def8")
def test_negative_control_wrong_semantics_is_caught():
    prog = BENCHMARKS["dyck1"].program()
    wrong = _strict_counting(prog)

    def wrong_ref(p, w):
        return reference.values(wrong, w)
    assert agree(prog, ["ab", "aabb", "ba"], wrong_ref) is not None


@settings(max_examples=25)
@given(programs(alphabet="ab", big_consts=True), words("ab", 1, 10))
def test_exact_big_integers(prog, w):
    """Constants near 2**70 force Python-int arrays; results equal the reference exactly."""
    assert vector_values(prog, w) == reference.values(prog, w)


def test_overflow_path_is_exact():
    c = count(Q("a"))
    big = scale(2**10, CountConst(2**60)) + c  # 2**70 + #a: beyond int64
    prog = program("ab", [("Big", big), ("L", big - CountConst(2**70) <= 1)])
    vals = evaluate(prog, encode(prog, ["aab"]), keep=[big])[big]
    assert vals.dtype == object and vals[0].tolist() == [2**70 + 1, 2**70 + 2, 2**70 + 2]
    assert accepts(prog, ["a", "aa", "ab", "bbb"]).tolist() == [True, False, True, True]


@checks("huang2024:prop39")
@settings(max_examples=40)
@given(programs(alphabet="ab", max_defs=4, local=False, periodic=True), st.integers(0, 4), words("ab", 1, 12))
def test_prop39_count_up_to_i_minus_c(prog, c, w):
    p = prog.output
    node = count_upto_minus(p, c)
    prog2 = program("ab", [("C", node), ("L", node <= 0)])
    got = reference.values(prog2, w)["C"]
    memo = {}
    want = [sum(1 for j in range(1, i - c + 1) if reference.value(p, w, j, memo)) for i in range(1, len(w) + 1)]
    assert got == want
    # negative control: the same sum without the local correction is wrong somewhere unless P never holds
    if c > 0 and any(reference.value(p, w, j, memo) for j in range(1, len(w) + 1)):
        assert reference.values(program("ab", [("C", count(p)), ("L", Q("a"))]), w)["C"] != want


def test_empty_word_and_bad_symbols():
    prog = BENCHMARKS["majority"].program()
    with pytest.raises(InputError, match="empty word"):
        accepts(prog, [""])
    with pytest.raises(InputError, match="not in the alphabet"):
        accepts(prog, ["abc"])
    with pytest.raises(InputError):
        reference.accepts(prog, "")


def test_trace_text_and_html():
    prog = BENCHMARKS["dyck1"].program()
    t = trace(prog, "aabb")
    txt = t.text()
    assert "C_a | 1 2 2 2" in txt.replace("  ", " ") or "1 2 2 2" in txt
    assert t.accepted and "accepted: True" in txt
    h = t.html()
    assert h.startswith("<table") and h.count("<tr>") == 2 + len(prog.defs)
    full = trace(prog, "ab", all_ops=True)
    assert len(full.rows) == len(prog.operations(all_defs=True))
    assert accepts_one(prog, "aabb") and not accepts_one(prog, "abba")


def test_chunking_large_batch():
    prog = BENCHMARKS["majority"].program()
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300_000, 5))
    from constructions.crasp.interpreter import accepts_array
    got = accepts_array(prog, X)
    want = (X == 0).sum(1) >= (X == 1).sum(1)
    assert (got == want).all()


def test_operations_are_distinct():
    prog = BENCHMARKS["copy_unique"].program()
    ops = iter_nodes([prog.output])
    assert len(ops) == len(set(ops)) == len(prog.operations())


@checks("huang2024:prop39")
def test_prop39_for_every_c_word_and_position_by_z3():
    """verify/huang/prop39.py: A(i) - L_c(i) = A(i - c) by induction on c (z3 for every i, counts and P), and
    count_upto_minus builds exactly that difference (Counting minus Counting with the offsets 0..c-1)."""
    from constructions.crasp.ast import LocalRelation, Sub
    from verify.huang.prop39 import proof
    from verify.kernel import assert_universal_proof

    assert_universal_proof(proof(), count=2)
    p = Q("a")
    assert count_upto_minus(p, 0) == count(p)
    for c in (1, 2, 5):
        node = count_upto_minus(p, c)
        assert isinstance(node, Sub) and node.left == count(p) and node.right.arg == p
        assert node.right.psi == LocalRelation(frozenset(range(c)))
    assert count_upto_minus(p, 3) != Sub(count(p), count(p, range(2)))  # control: one offset short is told apart


@checks("huang2024:lem11.piecewise")
def test_piecewise_testable_for_every_pattern_word_and_position_by_z3():
    """verify/huang/piecewise.py: the subsequence programs decide s_m at every position (z3, induction over positions
    inside an induction over the pattern), and subsequence_defs builds exactly the program the proof reads."""
    import itertools

    from constructions.crasp.ast import exists, leq
    from constructions.crasp.programs import subsequence_defs
    from verify.huang.piecewise import proof
    from verify.kernel import assert_universal_proof

    assert_universal_proof(proof(), count=7)
    for k in range(1, 5):
        for u in itertools.product("abc", repeat=k):
            defs = dict(subsequence_defs("".join(u)))
            s = exists(Q(u[0]))
            assert defs["S_1"] == s
            for m in range(2, k + 1):
                assert defs[f"SPrev_{m}"] == leq(2, count(s))
                s = exists(Q(u[m - 1]) & leq(2, count(s)))
                assert defs[f"S_{m}"] == s
    assert dict(subsequence_defs("ab"))["S_2"] != exists(Q("b") & leq(1, count(exists(Q("a")))))  # control


@checks("huang2024:thm10")
def test_theorem10_programs_for_every_word_by_z3():
    """verify/huang/counter_languages.py: the four programs decide MAJORITY, DYCK-1, a^n b^n and a^n b^n c^n on every
    word (z3, induction over positions), and the benchmark programs are exactly the ones the proof reads."""
    from constructions.crasp.ast import AND, OR, eq, leq, lt
    from constructions.crasp.programs import BENCHMARKS
    from verify.huang.counter_languages import proof
    from verify.kernel import assert_universal_proof

    assert_universal_proof(proof(), count=9)
    ca, cb, cc = count(Q("a")), count(Q("b")), count(Q("c"))
    dyck_bad = count(lt(ca, cb))
    ab_bad = count(Q("a") & leq(1, cb))
    abc_bad = count((Q("a") & leq(1, count(Q("b") | Q("c")))) | (Q("b") & leq(1, cc)))
    read = {"majority": leq(cb, ca), "dyck1": AND(leq(dyck_bad, 0), eq(ca, cb)),
            "anbn": AND(leq(ab_bad, 0), eq(ca, cb)), "anbncn": AND(leq(abc_bad, 0), eq(ca, cb), eq(cb, cc))}
    for name, output in read.items():
        assert BENCHMARKS[name].build().output == output, name
    assert BENCHMARKS["dyck1"].build().output != AND(leq(count(OR(lt(ca, cb))), 1), eq(ca, cb))  # control


@checks("huang2024:eq10")
def test_induction_head_programs_for_every_word_by_z3():
    """verify/huang/induction_head.py: NEXT_a by bigram counts with the predecessor relation decides f(x)_a > 0 and
    'a in argmax f' on every word (z3), and the benchmark programs are exactly the ones the proof reads."""
    from constructions.crasp.ast import AND, OR, leq, prev
    from constructions.crasp.programs import BENCHMARKS
    from verify.huang.induction_head import proof
    from verify.kernel import assert_universal_proof

    assert_universal_proof(proof(), count=6)
    big = {(s, t): count(prev(Q(s)) & Q(t)) for s in "abc" for t in "abc"}
    support = OR(*(Q(s) & leq(1, big[s, "a"]) for s in "abc"))
    argmax = OR(*(Q(s) & AND(*(leq(big[s, t], big[s, "a"]) for t in "bc")) for s in "abc"))
    assert BENCHMARKS["induction_next_a"].build().output == support
    assert BENCHMARKS["induction_argmax_a"].build().output == argmax
    assert support != OR(*(Q(s) & leq(2, big[s, "a"]) for s in "abc"))  # control
