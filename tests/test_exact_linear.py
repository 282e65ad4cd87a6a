"""The O(n) exact evaluator (positional-only heads, integer rows) against the O(n^2) reference definition."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp.compiler import compile_program
from constructions.limit_transformer import (
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    NotExactError,
    exact_forward,
)
from constructions.limit_transformer.rational_rows import RationalRow
from constructions.strategies import crasp_programs as programs
from constructions.strategies import limit_transformers, strings, words


def _both(model, s, **kw):
    """(linear result, reference result), or the two NotExactError messages' query parts."""
    out = []
    for ref in (False, True):
        try:
            out.append(exact_forward(model, s, reference=ref, **kw))
        except NotExactError:
            out.append("not exact")
    return out


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a.shape == b.shape and all(x == y and isinstance(x, Fraction) for x, y in zip(a.flat, b.flat, strict=True))


# depth <= 2 as in tests/test_limit_transformer.py: deeper random models reach logits of size 10^5 and more,
# whose exact huang term round_p(n^a) is an integer of that many digits (slow in either path)
@settings(max_examples=25, deadline=None)
@given(limit_transformers(depth=(1, 2), qk_scale=(1, 2)), strings(max_size=20), st.integers(0, 4),
       st.sampled_from(["all", "last"]))
def test_linear_exact_path_equals_reference_on_random_models(model, s, offset, positions):
    lin, ref = _both(model, s, offset=offset, positions=positions)
    assert _same(lin, ref)


@settings(max_examples=25, deadline=None)
@given(limit_transformers(depth=(1, 3), positional_only=True, qk_scale=(1, 1)), strings(max_size=20),
       st.integers(0, 4))
def test_linear_exact_path_equals_reference_positional_only(model, s, offset):
    lin, ref = _both(model, s, offset=offset)
    assert _same(lin, ref)


@settings(max_examples=8, deadline=None)
@given(programs(max_defs=6), st.sampled_from(["izzo", "huang"]), st.data())
def test_linear_exact_path_equals_reference_on_compiled_programs(prog, precision, data):
    model = compile_program(prog, precision=precision)
    for w in data.draw(st.lists(words(prog.alphabet, 1, 14), min_size=1, max_size=3)):
        lin, ref = _both(model, w, positions="all")
        assert _same(lin, ref)


def test_huge_values_leave_int64_exactly():
    """Parameters and softmax terms beyond int64 (n^40 under huang; 2^70 embeddings) take the object path."""
    E = [[0, 2**70, 1], [1, 3, 1], [2**65, -1, 1]]
    head = Head(np.zeros((1, 3), int), np.zeros((1, 3), int), [[1, 1, 0], [0, 0, 0], [0, 0, 0]],
                LocalPhi((40, 0, -3)))
    m = LimitTransformer(("a", "b"), E, [Layer([head, head])], [[1, 0, 0], [0, 1, 1]], precision_bits=3,
                         precision="huang")
    for s in ("", "a", "abbab", "ab" * 9):
        lin, ref = _both(m, s)
        assert _same(lin, ref)


def test_izzo_not_exact_is_reported_by_both_paths():
    head = Head(np.zeros((1, 3), int), np.zeros((1, 3), int), np.eye(3, dtype=int), LocalPhi((0, 1)))
    m = LimitTransformer(("a", "b"), np.eye(3, dtype=int), [Layer([head])], np.eye(3, dtype=int)[:2],
                         precision_bits=4)
    with pytest.raises(NotExactError, match="layer 1 head 1 query 2"):
        exact_forward(m, "ab")  # n = 3, query 2: gap 1, 3^1 < 2^4
    with pytest.raises(NotExactError, match="layer 1 head 1 query 2"):
        exact_forward(m, "ab", reference=True)
    assert _same(*_both(m, "a" * 15))  # n = 16: flushed


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(-2**80, 2**80), st.integers(1, 2**70)), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(-50, 50), st.integers(1, 50)), min_size=6, max_size=6),
       st.fractions(max_denominator=2**40), st.lists(st.integers(-2**64, 2**64), min_size=6, max_size=6))
def test_rational_rows_are_fraction_arithmetic(big, small, q, ints):
    a = [Fraction(x, y) for x, y in big] + [Fraction(0)] * (6 - len(big))
    b = [Fraction(x, y) for x, y in small]
    A, B = RationalRow.from_fractions(a), RationalRow.from_fractions(b)
    assert list((A + B).fractions()) == [x + y for x, y in zip(a, b, strict=True)]
    assert list(A.scale(q).fractions()) == [q * x for x in a]
    assert list(B.times(np.array(ints, dtype=object)).fractions()) == [x * k for x, k in zip(b, ints, strict=True)]
    assert list(A.divided(np.array(ints, dtype=object)).fractions()) == \
        [x / k if k else 0 for x, k in zip(a, ints, strict=True)]
    assert list(A.cumsum().fractions()) == list(np.cumsum(np.array(a, dtype=object)))
    assert list(B.heaviside().fractions()) == [int(x >= 0) for x in b]
    assert list(A.relu().fractions()) == [max(x, 0) for x in a]
