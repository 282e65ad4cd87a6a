"""Theorem 9 (Huang et al.): compiled Limit Transformer == C-RASP interpreter, exhaustively and under
Hypothesis, with the exactness boundary and negative controls (docs/crasp_compiler.md)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.communication import run_protocol, stream_outputs
from constructions.crasp.ast import (
    FALSE,
    TRUE,
    Count,
    CountConst,
    Positional,
    Q,
    Sub,
    count,
    eq,
    exists,
    ite,
    phi,
    prev,
    program,
)
from constructions.crasp.compiler import (
    CompileError,
    compile_program,
    compiled_accepts,
    describe,
    guard_threshold,
    required_bits,
)
from constructions.crasp.interpreter import accepts
from constructions.limit_transformer import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    NotExactError,
    exact_forward,
    forward,
)
from constructions.limit_transformer.precision import BoundaryWarning
from constructions.strategies import crasp_programs
from verify.claims import checks

# ------------------------------------------------------------------------------------- programs
Ca, Cb = count(Q("a")), count(Q("b"))
MAJORITY = program("ab", [("Ca", Ca), ("Cb", Cb), ("M", Cb <= Ca)], name="majority")
DYCK1 = program("ab", [("Bad", ~(Cb <= Ca)), ("D", ~exists(~(Cb <= Ca)) & eq(Ca, Cb))], name="dyck1")
_BAD0 = Q("0") & prev(Q("0")) & prev(Q("0"), 2)
TOMITA4 = program("01", [("Bad", _BAD0), ("L", count(_BAD0) <= 0)], name="tomita4")
AA_STAR = program("ab", [("L", ~exists(Q("b")) & phi(2, {0}))], name="aa_star")
COND = program("ab", [("L", ite(Q("a") & phi(3, {1}), Ca - 3, Cb + 2) <= count(Q("a"), {0, 1, 3}) + 1)], name="cond")
_Cs = {a: count(Q(a)) for a in "abc"}
_BADC = (Q("a") & exists(Q("b") | Q("c"))) | (Q("b") & exists(Q("c")))
ANBNCN = program("abc", [("L", ~exists(_BADC) & eq(_Cs["a"], _Cs["b"]) & eq(_Cs["b"], _Cs["c"]))], name="anbncn")
_D = {a: count(Q(a)) for a in "abcd"}
ABCD = program("abcd", [("L", (_D["a"] <= _D["b"] + _D["c"] - 1) | ((_D["d"] <= 1) & prev(Q("c"))))], name="abcd")

BINARY = [MAJORITY, DYCK1, TOMITA4, AA_STAR, COND]
ALL = [*BINARY, ANBNCN, ABCD]
COMPILED = {p.name: compile_program(p) for p in ALL}


def words(alphabet, n_max, n_min=1):
    for n in range(n_min, n_max + 1):
        for t in itertools.product(alphabet, repeat=n):
            yield "".join(t)


def disagreements(prog, model, strings, exact=False):
    strings = list(strings)
    ref = accepts(prog, strings)
    if exact:
        got = [bool(stream_outputs(model, s)[-1][-1] > 0) for s in strings]
    else:
        got = compiled_accepts(model, strings)
    return [s for s, r, g in zip(strings, ref, got, strict=True) if bool(r) != g]


def sweep_length(prog, default=True):
    k = len(prog.alphabet)
    if k == 2:
        return 12 if default else 14
    if k == 3:
        return 8 if default else 9
    return 6 if default else 8


# ------------------------------------------------------------------------ exhaustive equivalence
@checks("huang2024:thm9", "huang2024:thm27")
@pytest.mark.parametrize("prog", ALL, ids=lambda p: p.name)
def test_exhaustive_float(prog):
    """Vectorized float64 path == interpreter on every string up to the sweep length."""
    bad = disagreements(prog, COMPILED[prog.name], words(prog.alphabet, sweep_length(prog)))
    assert bad == []


@pytest.mark.slow
@checks("huang2024:thm9")
@pytest.mark.parametrize("prog", ALL, ids=lambda p: p.name)
def test_exhaustive_float_full(prog):
    bad = disagreements(prog, COMPILED[prog.name], words(prog.alphabet, sweep_length(prog, default=False)))
    assert bad == []


@checks("huang2024:thm9", "huang2024:thm9.exactness")
@pytest.mark.parametrize("prog", BINARY, ids=lambda p: p.name)
def test_exhaustive_exact_short(prog):
    """Exact (Fraction) evaluation == interpreter on every binary string up to length 5."""
    assert disagreements(prog, COMPILED[prog.name], words(prog.alphabet, 5), exact=True) == []


@pytest.mark.slow
@checks("huang2024:thm9", "huang2024:thm9.exactness")
@pytest.mark.parametrize("prog", ALL, ids=lambda p: p.name)
def test_exhaustive_exact_full(prog):
    n = {2: 12, 3: 8, 4: 6}[len(prog.alphabet)]
    assert disagreements(prog, COMPILED[prog.name], words(prog.alphabet, n), exact=True) == []


@checks("huang2024:thm9")
def test_library_exact_forward_agrees():
    """The library's exact evaluator gives the same exact outputs as the streaming one, and accepts like P."""
    rng = random.Random(1)
    for prog in ALL:
        model = COMPILED[prog.name]
        for n in (1, 6) if COMPILED[prog.name].depth > 3 else (1, 3, 8):
            w = "".join(rng.choice(prog.alphabet) for _ in range(n))
            lib = exact_forward(model, w)
            mine = stream_outputs(model, w)
            assert [list(r) for r in lib] == [[Fraction(x) for x in r] for r in mine]
            out = lib[-1][-1]
            assert out in (1, -1) and (out > 0) == bool(accepts(prog, [w])[0])


@checks("huang2024:thm9")
def test_every_benchmark_program_compiles_and_agrees():
    """Every program of the C-RASP benchmark (constructions.crasp.programs) compiles to a Periodic and Local
    model that agrees with the interpreter on all short words (float path; the full sweeps are slow)."""
    from constructions.crasp.programs import BENCHMARKS

    for name, bench in BENCHMARKS.items():
        prog = bench.program()
        m = compile_program(prog)
        assert m.is_periodic_and_local and m.is_nope == (prog.fragment == "C-RASP"), name
        n = {2: 6, 3: 4}.get(len(prog.alphabet), 3)
        assert disagreements(prog, m, words(prog.alphabet, n)) == [], name


@pytest.mark.slow
@checks("huang2024:thm9")
def test_every_benchmark_program_full():
    from constructions.crasp.programs import BENCHMARKS

    for name, bench in BENCHMARKS.items():
        prog = bench.program()
        m = compile_program(prog)
        n = {2: 12, 3: 8, 4: 6}.get(len(prog.alphabet), 5)
        assert disagreements(prog, m, words(prog.alphabet, n)) == [], name
        assert disagreements(prog, m, words(prog.alphabet, min(n, 5 if len(prog.alphabet) == 2 else 3)),
                             exact=True) == [], name


# ------------------------------------------------------------------------------ structure/describe
@checks("huang2024:thm9.nope")
def test_plain_crasp_compiles_to_nope():
    for prog in (MAJORITY, DYCK1, ANBNCN):
        m = COMPILED[prog.name]
        assert prog.fragment == "C-RASP"
        assert m.positions is None and all(h.phi is None for layer in m.layers for h in layer.heads)
        assert m.is_nope and describe(m)["nope"] and describe(m)["period"] == 1 and describe(m)["locality"] == 0
    # negative control: a periodic or a local relation makes the compiled model non-NoPE
    for prog in (AA_STAR, TOMITA4, COND):
        assert not COMPILED[prog.name].is_nope


@checks("huang2024:def3", "huang2024:thm9")
def test_compiled_models_are_periodic_and_local():
    for prog in ALL:
        m = COMPILED[prog.name]
        assert m.is_periodic_and_local
        assert m.period == prog.period and m.tau == prog.locality
    d = describe(COMPILED["cond"])
    assert d["period"] == 3 and d["locality"] == 3 and d["depth"] >= 2 and d["fragment"] == "C-RASP[periodic,local]"
    assert describe(COMPILED["majority"])["depth"] == 1 and describe(COMPILED["majority"])["max_heads"] == 1
    # heads with identical logits are merged: one uniform head per layer plus one per local offset
    for prog in ALL:
        for layer in COMPILED[prog.name].layers:
            offsets = [None if h.phi is None else h.phi.tau for h in layer.heads]
            assert len(offsets) == len(set(offsets))


@checks("huang2024:def2")
def test_compiled_parameters_are_p_bit():
    for prog in ALL:
        m = COMPILED[prog.name]
        assert required_bits(m) <= m.precision_bits
    # negative control: a non-dyadic weight is rejected; too few bits is a compile error
    m = COMPILED["tomita4"]
    mlp = m.layers[0].mlp
    A = mlp.A.copy()
    A[0, 0] = Fraction(1, 3)
    bad = _replace_layer(m, 0, Layer(m.layers[0].heads, MLP(A, mlp.b, mlp.B, mlp.activations)))
    with pytest.raises(CompileError):
        required_bits(bad)
    with pytest.raises(CompileError, match="fractional bits"):
        compile_program(TOMITA4, precision_bits=1)


@checks("huang2024:thm9")
def test_guard_threshold():
    """The local-count guard g_c = [i >= c] (module docstring): a dyadic threshold strictly inside (1/(c+1), 1/c)
    with a margin of at least a quarter of the gap (float evaluation); control: the end 1/c decides t = c wrongly."""
    for c in range(1, 40):
        thr = guard_threshold(c)
        lo, hi = Fraction(1, c + 1), Fraction(1, c)
        assert lo < thr < hi and thr.denominator & (thr.denominator - 1) == 0
        assert lo + (hi - lo) / 4 <= thr <= hi - (hi - lo) / 4
        # [1/t <= thr] == [t >= c + 1] for t = 1..3c; control: the upper end 1/c of the interval admits t = c
        assert all((Fraction(1, t) <= thr) == (t >= c + 1) for t in range(1, 3 * c + 3))
        assert not all((Fraction(1, t) <= hi) == (t >= c + 1) for t in range(1, 3 * c + 3))


@checks("huang2024:thm9")
def test_compile_errors():
    with pytest.raises(CompileError):
        compile_program("not a program")
    with pytest.raises(CompileError):
        compile_program(MAJORITY, precision="float")
    with pytest.raises(CompileError):
        compile_program(TOMITA4, local_logit=0)


# ------------------------------------------------------------------------------ negative controls
def _replace_layer(m: LimitTransformer, idx: int, layer: Layer) -> LimitTransformer:
    layers = list(m.layers)
    layers[idx] = layer
    return LimitTransformer(m.alphabet, m.embedding, tuple(layers), m.unembedding, m.positions, m.precision_bits,
                            m.precision)


def _corrupt_value(m: LimitTransformer, layer: int, head: int, row: int, delta=Fraction(1, 2)) -> LimitTransformer:
    """Change the first nonzero entry of row ``row`` of one head's value matrix by ``delta``."""
    h = m.layers[layer].heads[head]
    V = h.value.copy()
    c = int(np.nonzero(V[row] != 0)[0][0])
    V[row, c] = V[row, c] + delta
    heads = list(m.layers[layer].heads)
    heads[head] = Head(h.query, h.key, V, h.phi)
    return _replace_layer(m, layer, Layer(tuple(heads), m.layers[layer].mlp))


def _corrupt_mlp(m: LimitTransformer, layer: int, unit: int, bias_delta=Fraction(1)) -> LimitTransformer:
    mlp = m.layers[layer].mlp
    b = mlp.b.copy()
    b[unit] = b[unit] + bias_delta
    return _replace_layer(m, layer, Layer(m.layers[layer].heads, MLP(mlp.A, b, mlp.B, mlp.activations)))


@checks("huang2024:thm9")
def test_corrupted_weight_is_caught():
    """One corrupted weight (a value entry of a counting head; one MLP bias) breaks the equivalence check."""
    for prog in (MAJORITY, DYCK1, TOMITA4):
        m = COMPILED[prog.name]
        strings = list(words(prog.alphabet, 8))
        assert disagreements(prog, m, strings) == []
        li = next(i for i, layer in enumerate(m.layers) if layer.heads)
        names = m.metadata["coordinates"]
        rows = [(h, r) for h, head in enumerate(m.layers[li].heads) for r in range(m.d) if any(head.value[r] != 0)]
        counting = [(h, r) for h, r in rows if names[r] != "one"]
        assert counting
        for h, r in counting:
            assert disagreements(prog, _corrupt_value(m, li, h, r, Fraction(-1)), strings), (prog.name, names[r])
        # the 'one' output only feeds the tie margin (and the guards of local counting): halving it is
        # harmless for programs without local counting (margin 1/(4t)), which the sweep rightly does not flag
        if prog is MAJORITY:
            (h1, r1), = [(h, r) for h, r in rows if names[r] == "one"]
            assert disagreements(prog, _corrupt_value(m, li, h1, r1, Fraction(-1, 2)), strings) == []
        lm = max(i for i, layer in enumerate(m.layers) if layer.mlp is not None)
        assert disagreements(prog, _corrupt_mlp(m, lm, 0), strings), prog.name


@checks("huang2024:thm9")
def test_wrong_comparison_direction_is_caught():
    """Negative control on the compiler itself: swapping the comparison operands must be detected."""
    wrong = program("ab", [("M", Ca <= Cb)])
    m = compile_program(wrong)
    assert disagreements(MAJORITY, m, words("ab", 6))


# ------------------------------------------------------------------------------------ exactness
@checks("huang2024:thm9.exactness")
def test_exactness_boundary_izzo_small_lambda():
    """With lambda = 1 and p = 6 under 'izzo', local heads are hardmax (exact) iff n^1 >= 2^6: the last
    inexact model length is n = 63, the first exact one n = 64 (n = |$w|).  The default lambda = p + 1
    is exact already at n = 2.  Decisions are right on both sides (float path)."""
    prog = program("01", [("L", count(Q("0"), {2}) <= count(Q("1")))], name="local2")
    m = compile_program(prog, precision_bits=6, local_logit=1)
    w_last_bad = ("001" * 30)[:62]  # n = 63
    w_first_ok = ("001" * 30)[:63]  # n = 64
    with pytest.raises(NotExactError):
        exact_forward(m, w_last_bad, positions="last")
    with pytest.raises(NotExactError):
        stream_outputs(m, w_last_bad)
    out = exact_forward(m, w_first_ok, positions="last")
    assert (out[-1] > 0) == bool(accepts(prog, [w_first_ok])[0])
    with pytest.warns(BoundaryWarning):  # n = 64: n^lambda = 2^p exactly, the flush boundary, met on purpose
        assert disagreements(prog, m, [w_last_bad, w_first_ok, "0" * 62, "1" * 62, "100" * 21]) == []
    m_default = COMPILED["tomita4"]
    assert m_default.metadata["local_logit"] == str(m_default.precision_bits + 1)
    for w in ("0", "00", "000", "1000"):
        assert (exact_forward(m_default, w, positions="last")[-1] > 0) == bool(accepts(TOMITA4, [w])[0])


def _long_exact(progs, precision, n=2001, protocol=True):
    rng = random.Random(7)
    for prog in progs:
        m = compile_program(prog, precision=precision)
        w = "".join(rng.choice(prog.alphabet) for _ in range(n))
        if prog is DYCK1:  # a balanced word, so the answer is not trivially 'no'
            w = "ab" * (n // 2) + "a" * (n % 2)
        ref = bool(accepts(prog, [w])[0])
        assert (stream_outputs(m, w)[-1][-1] > 0) == ref
        if protocol:
            assert (run_protocol(m, w, check=False).outputs[-1][-1] > 0) == ref


@checks("huang2024:thm9.exactness")
@pytest.mark.parametrize("precision", ["izzo", "huang"])
def test_long_strings_exact_via_protocol(precision):
    """Exact evaluation at |$w| = 2002 (streaming) and Bob's side of the Theorem 12 protocol agree with P."""
    _long_exact([COND], precision, n=2001 if precision == "izzo" else 801, protocol=False)


@pytest.mark.slow
@checks("huang2024:thm9.exactness")
@pytest.mark.parametrize("precision", ["izzo", "huang"])
def test_long_strings_exact_full(precision):
    _long_exact([DYCK1, TOMITA4, COND, AA_STAR, ANBNCN], precision, n=4001)


@checks("huang2024:thm9.exactness")
def test_tie_margin_tolerance_boundary():
    """Why comparisons carry the one/2 margin, deterministically (exact arithmetic): perturb the value
    weight of the count C_a by -2^-5, an error of k/(32 t) in the stored value on the word a^k.  The tie
    C_T <= C_a + C_b then still holds with the margin for k <= 16 (error <= 1/(2t)) and fails from k = 17
    on; without the margin it fails at once (k = 1).  Float64 evaluation errors are such perturbations."""
    tie = program("ab", [("L", count(TRUE) <= Ca + Cb)])
    for margin, last_ok in ((True, 16), (False, 0)):
        m = compile_program(tie, margin=margin)
        li = next(i for i, layer in enumerate(m.layers) if layer.heads)
        qa = m.metadata["coordinates"].index("Q_a")
        (h, r), = [(h, r) for h, head in enumerate(m.layers[li].heads) for r in range(m.d)
                   if head.value[r, qa] != 0]
        pert = _corrupt_value(m, li, h, r, Fraction(-1, 32))
        assert [k for k in range(1, 22) if not stream_outputs(m, "a" * k)[-1][-1] > 0] == []
        rejected = [k for k in range(1, 22) if not stream_outputs(pert, "a" * k)[-1][-1] > 0]
        assert rejected == list(range(last_ok + 1, 22)), (margin, rejected)
    # the float64 path agrees with the interpreter on the tie with the margin
    assert disagreements(tie, compile_program(tie), words("ab", 12)) == []


@checks("huang2024:rem28", "huang2024:rem15")
def test_compiled_model_not_offset_invariant():
    m = COMPILED["aa_star"]
    for w in ("aa", "aaaa"):
        assert forward(m, [w], positions="last")[0, -1] > 0
        assert forward(m, [w], offset=1, positions="last")[0, -1] < 0  # phi(i) is read at i + offset


# ------------------------------------------------------------------------------------- Hypothesis
@st.composite
def programs(draw, max_defs=7):
    """The C-RASP package's random-program strategy (every Definition 8 operation) over 2 or 3 letters."""
    return draw(crasp_programs(alphabet=draw(st.sampled_from(["ab", "abc"])), max_defs=max_defs))


def _long_words(data, alphabet, n_words, lo, hi):
    out = []
    for _ in range(n_words):
        n = data.draw(st.integers(lo, hi))
        style = data.draw(st.sampled_from(["uniform", "skewed", "blocks"]))
        rng = random.Random(data.draw(st.integers(0, 2**32)))
        if style == "uniform":
            w = "".join(rng.choice(alphabet) for _ in range(n))
        elif style == "skewed":
            w = "".join(alphabet[0] if rng.random() < 0.9 else rng.choice(alphabet) for _ in range(n))
        else:
            unit = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5)))
            w = (unit * (n // len(unit) + 1))[:n]
        out.append(w)
    return out


@checks("huang2024:thm9")
@settings(max_examples=12, deadline=None)
@given(prog=programs(max_defs=6), data=st.data())
def test_hypothesis_programs_float(prog, data):
    """Random programs: every string up to length 5, and long strings (up to 2100) on the float path."""
    model = compile_program(prog)
    reachable = prog.operations()
    positional = any(isinstance(n, Positional) or (isinstance(n, Count) and n.psi is not None) for n in reachable)
    assert model.is_periodic_and_local and (positional or model.is_nope)
    assert disagreements(prog, model, words(prog.alphabet, 5)) == []
    long = _long_words(data, prog.alphabet, 1, 2000, 2100)
    assert disagreements(prog, model, long) == []


@checks("huang2024:thm9", "huang2024:thm9.exactness")
@settings(max_examples=8, deadline=None)
@given(prog=programs(max_defs=6), data=st.data())
def test_hypothesis_programs_exact(prog, data):
    """Random programs in exact arithmetic (both precision models) on short and medium strings."""
    precision = data.draw(st.sampled_from(["izzo", "huang"]))
    model = compile_program(prog, precision=precision)
    assert disagreements(prog, model, words(prog.alphabet, 3), exact=True) == []
    assert disagreements(prog, model, _long_words(data, prog.alphabet, 1, 50, 300), exact=True) == []


@pytest.mark.slow
@checks("huang2024:thm9", "huang2024:thm9.exactness")
@settings(max_examples=60, deadline=None)
@given(prog=programs(max_defs=9), data=st.data())
def test_hypothesis_programs_slow(prog, data):
    model = compile_program(prog, precision=data.draw(st.sampled_from(["izzo", "huang"])))
    assert disagreements(prog, model, words(prog.alphabet, 7)) == []
    assert disagreements(prog, model, _long_words(data, prog.alphabet, 3, 2000, 4000)) == []
    assert disagreements(prog, model, _long_words(data, prog.alphabet, 1, 2000, 2100), exact=True) == []


@checks("huang2024:thm9.exactness")
def test_huge_constants_exact_but_not_float():
    """Exactness boundary of the float64 path: a constant c is stored as c/t, so float64 decides a
    comparison only while |c| * 2^-53 stays below the 1/(2t) margin; with c = 2^60 the float path fails
    already at length 1 while exact arithmetic is right at every length tried."""
    def prog(c):  # the Conditional stores c/t in its own coordinate, so the constants do not cancel
        return program("ab", [("L", Ca + ite(Q("a"), c, c) <= Cb + c)])

    big = prog(2**60)
    m = compile_program(big)
    ws = list(words("ab", 4))
    assert disagreements(big, m, ws, exact=True) == []
    bad = disagreements(big, m, ws)
    assert bad and min(map(len, bad)) == 1  # float64: (2^60 + 1)/t and 2^60/t are not resolved
    small = prog(2**20)
    assert disagreements(small, compile_program(small), list(words("ab", 10))) == []


@checks("huang2024:thm9")
def test_comparison_reaching_its_bounds_is_false_at_sos():
    """A comparison whose operands reach their static bounds at ``$`` (C2 - C1 = M1 + M2, constants) is forced to 0
    there by K = M1 + M2 + 1, so counting it counts the word's positions only: the compiled model agrees with the
    interpreter on every word up to length 8 (exactly up to 4).  Control: the interpreter's answers differ between
    the program and the one counting one position more, so the check can see an off-by-one count."""
    for c in (0, 1, 3):
        cmp = CountConst(-c) <= CountConst(3)
        p = program("ab", [("T", cmp), ("L", count(cmp) <= count(Q("a")))])
        m = compile_program(p)
        assert disagreements(p, m, words("ab", 8)) == []
        assert disagreements(p, m, words("ab", 4), exact=True) == []
        shifted = program("ab", [("T", cmp), ("L", count(cmp) + 1 <= count(Q("a")))])
        assert list(accepts(p, ["a", "aa"])) != list(accepts(shifted, ["a", "aa"]))


@checks("huang2024:thm9")
def test_default_local_logit_keeps_float_decisions_off_the_flush_boundary():
    """The default lambda = p + 1 puts every local head strictly inside the hardmax regime at n = 2 (n^lambda > 2^p),
    so the float evaluation of a compiled program with local counts decides no flush on its boundary (no
    BoundaryWarning) on any word up to length 4.  Control: lambda = p, explicitly, sits on the boundary at n = 2."""
    import warnings

    p = program("ab", [("L", count(Q("a"), {0, 1, 2}) <= 1)])
    ws = list(words("ab", 4))
    m = compile_program(p)
    assert Fraction(m.metadata["local_logit"]) == m.precision_bits + 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", BoundaryWarning)
        assert disagreements(p, m, ws) == []
    with pytest.warns(BoundaryWarning):
        compiled_accepts(compile_program(p, local_logit=m.precision_bits), ws)


@checks("huang2024:thm9")
def test_constants_and_false():
    p = program("ab", [("L", (FALSE | (count(Q("a")) <= 2)) & (CountConst(-2) <= Sub(Cb, Ca)))])
    m = compile_program(p)
    assert disagreements(p, m, words("ab", 8)) == []
    assert disagreements(p, m, words("ab", 4), exact=True) == []
