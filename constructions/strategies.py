"""Hypothesis strategies for the package's objects: Limit Transformers, logits at precision boundaries,
C-RASP programs and words (public: use them in your own property tests; examples in docs/strategies.md).

* :func:`limit_transformers`: random models with declared properties (``periodic``, ``local``, ``precision``
  model, ``precision_bits``, ``depth``, heads, ``positional_only``) and rational parameters of a declared
  kind (:data:`PARAM_KINDS`): ``integer``, ``dyadic`` (denominators powers of 2, so p-bit rounding has real
  work and exact ties), ``non-dyadic`` (thirds, fifths, ...), or ``any`` of them.
* :func:`boundary_logits`: logit pairs whose exact decision sits at, or one float64 ulp beside, a flush
  boundary (izzo: ``n^gap = 2^p``) or a rounding tie (huang: ``2^p a`` a half-integer).
* :func:`crasp_programs` / :func:`words` / :func:`program_words`: well-typed C-RASP programs (every operation of
  Huang et al. Definition 8) and words over an alphabet or over a given program's alphabet;
  :func:`member_like`: words often (not always) in a benchmark program's language, with random edits.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from fractions import Fraction

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from constructions.crasp.ast import (
    Add,
    And,
    BoolConst,
    Comparison,
    Conditional,
    Count,
    CountConst,
    Initial,
    LocalRelation,
    Not,
    PeriodicRelation,
    Positional,
    Program,
    Sub,
)
from constructions.limit_transformer import MLP, Head, Layer, LimitTransformer, LocalPhi, PeriodicPositions

PARAM_KINDS = ("integer", "dyadic", "non-dyadic", "any")
_DENOMINATORS = {"integer": (1,), "dyadic": (1, 2, 4, 8, 16), "non-dyadic": (3, 5, 6, 7, 9)}


def rationals(kind: str = "integer", bound: int = 2) -> st.SearchStrategy[Fraction]:
    """Rationals ``k / q`` with ``|k / q| <= bound`` and ``q`` from the denominators of ``kind``."""
    if kind not in PARAM_KINDS:
        raise ValueError(f"kind must be one of {PARAM_KINDS}, got {kind!r}")
    dens = sorted({q for k, qs in _DENOMINATORS.items() if kind in (k, "any") for q in qs})
    return st.sampled_from(dens).flatmap(
        lambda q: st.integers(-bound * q, bound * q).map(lambda k: Fraction(k, q)))


def _matrix(draw, rows: int, cols: int, kind: str) -> np.ndarray:
    vals = draw(st.lists(rationals(kind), min_size=rows * cols, max_size=rows * cols))
    return np.array(vals, dtype=object).reshape(rows, cols)


@st.composite
def limit_transformers(draw, *, depth=(1, 2), heads=(1, 2), precision: str | None = None,
                       precision_bits=(1, 6), periodic: bool | None = None, local: bool | None = None,
                       params: str = "integer", max_tau: int = 2, max_period: int = 3, qk_scale=(1, 4),
                       activations=("relu", "heaviside"), positional_only: bool = False) -> LimitTransformer:
    """A random Limit Transformer over {a, b} of width 3 (Huang et al. Definition 2 / Izzo et al. sec. 3.1).

    ``depth``, ``heads``, ``precision_bits``, ``qk_scale``: inclusive ranges.  ``precision``: ``'izzo'``,
    ``'huang'`` or None (either).  ``periodic`` / ``local``: True forces periodic positional encodings /
    translation-invariant local phi on every head, False forces NoPE / no phi, None draws.  ``params``: the kind
    of every parameter (:data:`PARAM_KINDS`).  ``positional_only``: every head has K^T Q = 0 (its logit is
    phi alone: the O(n) head kind of compiled C-RASP programs).
    """
    d = 3
    layers = []
    for _ in range(draw(st.integers(*depth))):
        hs = []
        for _ in range(draw(st.integers(*heads))):
            scale = draw(st.integers(*qk_scale))
            tau = draw(st.integers(0, max_tau))
            has_phi = local if local is not None else draw(st.booleans())
            phi = LocalPhi(tuple(draw(st.lists(rationals(params), min_size=tau + 1, max_size=tau + 1))))
            query = _matrix(draw, 2, d, params) * (0 if positional_only else scale)
            hs.append(Head(query, _matrix(draw, 2, d, params), _matrix(draw, d, d, params),
                           phi if has_phi else None))
        k = draw(st.integers(1, 4))
        acts = tuple(draw(st.sampled_from(activations)) for _ in range(k))
        mlp = (MLP(_matrix(draw, k, d, params), _matrix(draw, 1, k, params)[0], _matrix(draw, d, k, params), acts)
               if draw(st.booleans()) else None)
        layers.append(Layer(hs, mlp))
    period = draw(st.integers(1, max_period))
    with_positions = periodic if periodic is not None else draw(st.booleans())
    return LimitTransformer(("a", "b"), _matrix(draw, 3, d, params), layers, _matrix(draw, 2, d, params),
                            PeriodicPositions(_matrix(draw, period, d, params)) if with_positions else None,
                            precision_bits=draw(st.integers(*precision_bits)),
                            precision=precision or draw(st.sampled_from(["izzo", "huang"])))


def strings(min_size: int = 0, max_size: int = 24, alphabet: str = "ab") -> st.SearchStrategy[str]:
    """Input strings for :func:`limit_transformers` (alphabet {a, b})."""
    return st.text(alphabet=alphabet, min_size=min_size, max_size=max_size)


@st.composite
def boundary_logits(draw, model: str, *, n=(2, 64), p=(1, 8), ulps=(-1, 0, 1)):
    """``(logits, n, p, exact_logits)`` for one query of two keys, at a precision boundary of ``model``.

    ``izzo``: the gap ``g = u / v`` between the two logits has ``n^g = 2^p`` exactly (``n = 2^k r^v``-free
    form: n a power of 2, ``g = p / log2 n``), so the smaller term sits on the flush boundary.  ``huang``:
    the second logit is a tie ``(2m + 1) / 2^(p+1)`` of the p-bit rounding.  ``logits`` are float64, moved
    by ``ulps`` units in the last place (0: on the boundary; +-1: one ulp beside it, where float64 cannot
    tell the sides apart); ``exact_logits`` are the exact rationals of those same float64 values.
    """
    bits = draw(st.integers(*p))
    step = draw(st.sampled_from(ulps))
    if model == "izzo":
        k = draw(st.integers(1, max(1, int(math.log2(n[1])))))
        length = 2**k
        gap = Fraction(bits, k)
        first = 0.0
        second = -float(gap)
    elif model == "huang":
        length = draw(st.integers(*n))
        m = draw(st.integers(-4 * 2**bits, 4 * 2**bits))
        first = 0.0
        second = float(Fraction(2 * m + 1, 2 ** (bits + 1)))
    else:
        raise ValueError(f"unknown precision model {model!r}")
    for _ in range(abs(step)):
        second = math.nextafter(second, math.inf if step > 0 else -math.inf)
    logits = np.array([first, second])
    return logits, length, bits, [Fraction(first), Fraction(second)]


# ------------------------------------------------------------------------------------------------ C-RASP
_BOOL_OPS = ("not", "and", "cmp", "leaf")
_COUNT_OPS = ("count", "cond", "add", "sub", "const")


@st.composite
def crasp_programs(draw, alphabet: str = "ab", max_defs: int = 8, periodic: bool = True, local: bool = True,
                   max_const: int = 3, big_consts: bool = False) -> Program:
    """A random well-typed C-RASP program over ``alphabet``; every operation kind of Definition 8 can occur.

    ``periodic`` / ``local``: allow Positional periodic relations / local counting relations (the fragments
    C-RASP[periodic, local]); ``max_const``: bound of the count constants (``big_consts``: up to 2^70).
    """
    bools: list = []
    counts: list = []

    def leaf_bool():
        kinds = ["q", "q", "const"] + (["pos"] if periodic else [])
        k = draw(st.sampled_from(kinds))
        if k == "q":
            return Initial(draw(st.sampled_from(alphabet)))
        if k == "const":
            return BoolConst(draw(st.booleans()))
        period = draw(st.integers(1, 4))
        res = draw(st.frozensets(st.integers(0, period - 1), max_size=period))
        return Positional(PeriodicRelation(period, res))

    def pick_bool():
        if bools and draw(st.booleans()):
            return draw(st.sampled_from(bools))
        return leaf_bool()

    def pick_count():
        if counts and draw(st.integers(0, 2)) > 0:
            return draw(st.sampled_from(counts))
        if draw(st.booleans()):
            return count_op()
        hi = 2**70 if big_consts else max_const
        return CountConst(draw(st.integers(-hi, hi)))

    def count_op():
        psi = None
        if local and draw(st.integers(0, 2)) == 0:
            psi = LocalRelation(draw(st.frozensets(st.integers(0, 3), min_size=1, max_size=3)))
        return Count(pick_bool(), psi)

    defs = []
    for k in range(draw(st.integers(1, max_defs))):
        if draw(st.sampled_from(["bool", "count"])) == "bool":
            op = draw(st.sampled_from(_BOOL_OPS))
            if op == "not":
                node = Not(pick_bool())
            elif op == "and":
                node = And(pick_bool(), pick_bool())
            elif op == "cmp":
                node = Comparison(pick_count(), pick_count())
            else:
                node = leaf_bool()
            bools.append(node)
        else:
            op = draw(st.sampled_from(_COUNT_OPS))
            if op == "count":
                node = count_op()
            elif op == "cond":
                node = Conditional(pick_bool(), pick_count(), pick_count())
            elif op == "add":
                node = Add(pick_count(), pick_count())
            elif op == "sub":
                node = Sub(pick_count(), pick_count())
            else:
                node = CountConst(draw(st.integers(-max_const, max_const)))
            counts.append(node)
        defs.append((f"D{k}", node))
    if defs[-1][1].sort != "bool":
        defs.append(("Out", Comparison(pick_count(), pick_count())))
    return Program(tuple(alphabet), tuple(defs))


def words(alphabet: str, min_size: int = 1, max_size: int = 12) -> st.SearchStrategy[str]:
    """Words over ``alphabet`` (a string of symbols)."""
    return st.text(alphabet=st.sampled_from(alphabet), min_size=min_size, max_size=max_size)


def program_words(program: Program, min_size: int = 1, max_size: int = 12) -> st.SearchStrategy[str]:
    """Words over ``program``'s alphabet."""
    return words("".join(program.alphabet), min_size, max_size)


# ------------------------------------------------------------------ near-members of the benchmark
def _dyck(draw, max_depth: int, max_len: int) -> str:
    steps = draw(st.lists(st.booleans(), max_size=max_len // 2))
    out, depth = [], 0
    for up in steps:
        if depth == 0 or (up and depth < max_depth):
            out.append("a")
            depth += 1
        else:
            out.append("b")
            depth -= 1
    return "".join(out) + "b" * depth


def _rand(draw, alphabet: str, lo: int, hi: int) -> str:
    return draw(st.text(alphabet=st.sampled_from(alphabet), min_size=lo, max_size=hi))


def _maj(bits: str) -> str | None:
    o, z = bits.count("1"), bits.count("0")
    return None if o == z else ("1" if o > z else "0")


@st.composite
def member_like(draw, name: str, max_len: int = 2000) -> str:
    """A word that is often (not always) in benchmark ``name``'s language, of length <= ``max_len``."""
    k = draw(st.integers(1, max(1, max_len // 4)))
    if name in ("dyck1", "d2", "d3", "d4", "d12"):
        depth = {"dyck1": 10**9, "d2": 2, "d3": 3, "d4": 4, "d12": 12}[name]
        w = _dyck(draw, depth, max_len - 2) or "ab"
    elif name == "anbn":
        w = "a" * k + "b" * k
    elif name == "anbncn":
        k = min(k, max_len // 3)
        w = "a" * k + "b" * k + "c" * k
    elif name == "tomita1":
        w = "1" * k
    elif name == "tomita2":
        w = "10" * k
    elif name == "tomita4":
        w = "".join(draw(st.lists(st.sampled_from(["1", "01", "001"]), min_size=1, max_size=max_len // 3)))
    elif name == "tomita7":
        parts = draw(st.lists(st.integers(0, max_len // 4), min_size=4, max_size=4))
        w = "".join(s * n for s, n in zip("0101", parts, strict=True)) or "0"
    elif name == "aa_star":
        w = "aa" * k
    elif name == "aaaa_star":
        w = "aaaa" * min(k, max_len // 4)
    elif name == "abab_star":
        w = "abab" * min(k, max_len // 4)
    elif name == "a_b_c_d_e":
        parts = draw(st.lists(st.integers(1, max_len // 5), min_size=5, max_size=5))
        w = "".join(s * n for s, n in zip("abcde", parts, strict=True))
    elif name == "ab_d_bc":
        w = _rand(draw, "ab", 0, max_len // 2) + "d" + _rand(draw, "bc", 0, max_len // 2 - 1)
    elif name == "binary_majority":
        x = _rand(draw, "01", 1, max_len - 2)
        w = x + "#" + (_maj(x) or "1")
    elif name == "binary_majority_interleave":
        m = draw(st.integers(1, (max_len - 4) // 3))
        x = _rand(draw, "01", 3 * m, 3 * m)
        w = x + "#" + "".join(_maj(x[r::3]) or "0" for r in range(3))
    elif name.startswith("majority_letters"):
        letters = name.split(":")[1] if ":" in name else "abc"
        x = _rand(draw, letters, 1, max_len - 2)
        counts = {c: x.count(c) for c in letters}
        w = x + "#" + max(counts, key=lambda c: counts[c])
    elif name.startswith("sort"):
        nums = name.split(":")[1] if ":" in name else "123"
        x = "".join(draw(st.permutations(nums))[: draw(st.integers(1, len(nums)))])
        w = x + "#" + "".join(sorted(x))
    elif name.startswith("copy_unique"):
        letters = name.split(":")[1] if ":" in name else "abc"
        x = "".join(draw(st.permutations(letters))[: draw(st.integers(1, len(letters)))])
        w = "#" + x + "#" + x
    else:
        alpha = {"majority": "ab", "pt_aba": "ab", "pt_bca": "abc", "pt_ab_not_ba": "ab",
                 "induction_next_a": "abc", "induction_argmax_a": "abc"}[name]
        w = _rand(draw, alpha, 1, max_len)
    w = w[:max_len] or w[:1]
    # 0-2 random edits over the program's alphabet
    alphabet = sorted(set(w) | set(_edit_alphabet(name)))
    for _ in range(draw(st.integers(0, 2))):
        if not w:
            break
        pos = draw(st.integers(0, len(w) - 1))
        kind = draw(st.sampled_from(["sub", "del", "ins"]))
        sym = draw(st.sampled_from(alphabet))
        if kind == "sub":
            w = w[:pos] + sym + w[pos + 1:]
        elif kind == "del" and len(w) > 1:
            w = w[:pos] + w[pos + 1:]
        elif kind == "ins" and len(w) < max_len:
            w = w[:pos] + sym + w[pos:]
    return w


def _edit_alphabet(name: str) -> str:
    if ":" in name:
        return name.split(":")[1] + "#"
    from constructions.crasp.programs import BENCHMARKS

    return "".join(BENCHMARKS[name].build().alphabet)


@contextlib.contextmanager
def boundary_free():
    """For a property test whose random model may put a float flush or rounding decision on its boundary
    (``BoundaryWarning``: float64 cannot certify it): run the block with that warning recorded instead of
    raised, and discard the example (``hypothesis.assume``) when it was raised.  Tests that meet a boundary on
    purpose assert it with ``pytest.warns`` instead."""
    from constructions.limit_transformer.precision import BoundaryWarning

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", BoundaryWarning)
        yield
    assume(not any(issubclass(w.category, BoundaryWarning) for w in seen))


@contextlib.contextmanager
def boundary_allowed():
    """For a test that may meet a flush or rounding boundary on purpose (an input length at the hardmax threshold,
    where n^gap = 2^p exactly): the block's ``BoundaryWarning`` s are recorded, not raised; the list is yielded
    so that the test can assert on it."""
    from constructions.limit_transformer.precision import BoundaryWarning

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", BoundaryWarning)
        yield seen
