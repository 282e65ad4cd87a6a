"""The activation grammar (verify.expr_grammar): user text is parsed, never evaluated as Python.

Injection payloads are refused and leave no file behind; over-large expressions are refused by a named limit
before anything is built; the legal forms give the same sympy expression as sympy's own reader."""

from __future__ import annotations

import os

import pytest
import sympy

from lengthgen_cli.deadline import TimeLimitExceeded, time_limit
from verify import expr_grammar as G
from verify import identify as I


def _chr_string(s: str) -> str:
    return "+".join(f"chr({ord(c)})" for c in s)


INJECTIONS = [
    f"open({_chr_string('made')},{_chr_string('w')})",
    f"eval({_chr_string('1+1')})*x",
    f"exec({_chr_string('import os')})",
    "open(1)",
    "().__class__.__bases__[0].__subclasses__()",
    "x.__class__",
    "(x).func",
    "lambda: open(1)",
    "__import__('os').system('touch made')",
    "getattr(x, 'func')",
    "f'{x}'",
    "x[0]",
    "(x,)[0]",
    "ｏｐｅｎ(1)",               # full-width letters (NFKC-normalised to open by Python's parser)
    "x\u2028+1",                 # a line separator
    "x;open(1)",
    "x # comment",
    "Symbol(chr(121))*x",
    "Function(chr(102))(x)",
    "S(1)*x",
    "x if 1 else 2",
    "x @ x",
    "\u0663*x",                # an Arabic-Indic digit
    "x\n+1",
    "x_1",
    "1e5*x",
    "factorial(10**9)*x",
]

#: over-large expressions: each refused by a limit of the grammar (ExpressionLimitError) before evaluation
OVER_LIMIT = [
    ("9**9**9*x", "MAX_EXPONENT"),
    ("2**100000*x", "MAX_EXPONENT"),
    ("x**(1/1000)", "MAX_EXPONENT"),
    ("(10**9)**64*(10**9)**64*(10**9)**64*x", "MAX_BITS"),
    ("sqrt((10**9)**64*(10**9)**64*(10**9)**64)*x", "MAX_BITS"),
    ("(123456789**60)**60*x", "MAX_BITS"),
    ("exp(exp(exp(exp(exp(x)))))", "MAX_CALL_NESTING"),
    ("+".join(["x"] * 20000), "MAX_TEXT"),
    ("+".join(["x"] * 150), "MAX_NODES"),
    ("(" * 30 + "x" + ")" * 30, "MAX_DEPTH"),
    ("-" * 30 + "x", "MAX_DEPTH"),
    ("x" + "**x" * 30, "MAX_DEPTH"),
    ("10000000000*x", "MAX_INTEGER"),
    ("0.1234567890123456789*x", "MAX_DIGITS"),
]


@pytest.mark.parametrize("payload", INJECTIONS)
def test_injection_refused_and_leaves_no_file(payload, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(G.ExpressionError) as info:
        G.parse(payload)
    assert type(info.value) is G.ExpressionError  # refused by the grammar, not by a limit
    assert I.main([f"--activation={payload}", "--n", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("verify.identify: error:"), err
    assert os.listdir(tmp_path) == []


def test_no_file_check_can_fail(tmp_path, monkeypatch):
    """Negative control: the first payload, read by sympify (the former reader), does create the file, so
    the no-file check above would see a payload that ran."""
    monkeypatch.chdir(tmp_path)
    try:
        sympy.sympify(INJECTIONS[0])
    except Exception:  # noqa: BLE001 - what sympify makes of the file object does not matter here
        pass
    assert os.listdir(tmp_path) == ["made"]


@pytest.mark.parametrize(("text", "limit"), OVER_LIMIT)
def test_over_limit_refused_before_evaluation(text, limit, capsys):
    with pytest.raises(G.ExpressionLimitError, match=f"verify.expr_grammar.{limit} = "):
        G.parse(text)
    assert I.main([f"--activation={text}", "--n", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and limit in err


@pytest.mark.parametrize("text", [
    "x/(1+exp(-x))", "tanh(x)", "log(1+exp(x))", "1/(1+exp(-x))", "x*(1+erf(x/sqrt(2)))/2", "sin(x+1)",
    "1/(1+x**2)", "x^3 - 2*x", "-x**2", "2**3**2*x", "x**(-2)", "Abs(x - 5)", "Max(x, 0)", "I*x",
    "exp(-1/x**2)", "log(1/2 - x**2)", "x**(1/3)", "pi*x + E", "atan(asinh(sinh(x)))*cosh(x)", "erfc(x)*tan(x)",
    "exp(exp(exp(x)))", "(10**9)**64*x",
])
def test_legal_forms_same_expression_as_sympy(text):
    """Negative control of the refusals: every legal form parses, to the expression sympy's reader makes
    (sympify is called here on the test's own constant strings only)."""
    assert G.parse(text) == sympy.sympify(text, locals={"x": G.X}, convert_xor=True)


def test_decimals_are_exact_rationals():
    assert G.parse("0.25*x") == x_over(4)
    assert G.parse(".5+x") == sympy.Rational(1, 2) + G.X
    assert G.parse("3.") == 3
    assert G.parse("0.1") != sympy.Float(0.1)  # a float would not equal 1/10 exactly
    assert G.parse("0.1") == sympy.Rational(1, 10)


def x_over(k):
    return G.X / k


def test_limits_sit_at_their_bounds():
    """Each limit admits its bound and refuses one past it (the limits are not refusing everything)."""
    assert G.parse(f"x**{G.MAX_EXPONENT}") == G.X**G.MAX_EXPONENT
    with pytest.raises(G.ExpressionLimitError):
        G.parse(f"x**{G.MAX_EXPONENT + 1}")
    assert G.parse(f"{G.MAX_INTEGER}*x") == G.MAX_INTEGER * G.X
    with pytest.raises(G.ExpressionLimitError):
        G.parse(f"{G.MAX_INTEGER + 1}*x")
    nested = "x"
    for _ in range(G.MAX_CALL_NESTING):
        nested = f"exp({nested})"
    G.parse(nested)
    with pytest.raises(G.ExpressionLimitError):
        G.parse(f"exp({nested})")
    G.parse("(" * (G.MAX_DEPTH - 1) + "x" + ")" * (G.MAX_DEPTH - 1))
    G.parse("+".join(["x"] * (G.MAX_NODES // 2)))


def test_syntax_errors_name_the_position():
    for text, says in [("x+", "position 3"), ("(x", "')' expected"), ("exp x", "'(' after the function exp"),
                       ("exp(x, 2)", "takes 1 argument"), ("x y", "position 3"), ("", "end of the text")]:
        with pytest.raises(G.ExpressionError, match=says.replace("(", r"\(").replace(")", r"\)")):
            G.parse(text)


def test_time_limit_stops_a_long_analysis(monkeypatch, capsys):
    """A legal expression whose analysis does not end is stopped in one line by --time-limit (the analysis
    here never ends, so the test does not depend on the machine's speed)."""
    def forever(*args, **kwargs):
        while True:
            pass

    monkeypatch.setattr(I, "identify", forever)
    assert I.main(["--activation", "tanh(x)", "--n", "2", "--time-limit", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "exceeded the time limit of 1 s" in err and "--time-limit" in err


def test_time_limit_lets_a_finished_block_through():
    """Negative control: a block that ends before its limit is not interrupted, and the timer is cleared."""
    with time_limit(30, "nothing"):
        total = sum(range(1000))
    assert total == 499500
    with pytest.raises(TimeLimitExceeded, match="exceeded the time limit of 0.05 s"), time_limit(0.05, "spin"):
        while True:
            pass


def test_large_constants_are_analysed_exactly():
    """Constants as large as the grammar admits are kept exact (no numerical identification of coefficients):
    c*x is linear for c = exp(10^9), and the shifted sinh has c_0 != 0 and c_2 != 0 (permutations only)."""
    assert I.identify("x*exp(10**9)", 2)["class"] == "all invertible linear maps: U = V in GL_n"
    assert I.identify("x*exp(10**9)", 2)["identified"] is False
    shifted = I.identify("sinh(x+10**9)", 2)
    assert shifted["identified"] is True and shifted["class"] == "permutations: U = V = P"
