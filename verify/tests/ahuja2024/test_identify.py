"""Permutation identification tool (verify.identify): sigma(V y) = U sigma(y) on an open set.

Generalises the RNN step of ahuja2024 Theorem 9 (eqs. (29)-(34)); tests are tagged with that claim once the
ahuja2024 registry module declares ``ahuja2024:thm9``.
"""

import itertools
import json

import pytest
import sympy
import z3

from verify import identify as I
from verify.claims import checks, load_all
from verify.kernel import Proof, Z3Step, assert_proof, negated


def _tag(f):
    return checks("ahuja2024:thm9")(f) if "ahuja2024:thm9" in load_all() else f


@_tag
@pytest.mark.parametrize(("act", "cls", "order"), [
    ("sigmoid", "permutations: U = V = P", 3),
    ("softplus", "permutations: U = V = P", 2),
    ("exp", "permutations: U = V = P", 2),
    ("tanh", "signed permutations: U = V = D P, D = diag(+-1)", 3),
    ("sin", "signed permutations: U = V = D P, D = diag(+-1)", 3),
])
def test_identified_classes(act, cls, order):
    r = I.identify(act, 3)
    assert r["identified"] is True and r["class"] == cls and r["order"] == order
    assert r["log"][-1]["closed"] and all(not e["closed"] for e in r["log"][:-1])


@_tag
def test_sigmoid_n6_json_cli(capsys):
    assert I.main(["--activation", "sigmoid", "--n", "6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"identified", "class", "order", "witness"} <= set(out)
    assert out["identified"] is True and out["order"] == 3 and out["witness"] is None


def _check_pair_exactly(act, U, V):
    n = len(V)
    y = sympy.symbols(f"y0:{n}")
    s = I.ANALYTIC[act]
    for i in range(n):
        e = s(sum(sympy.sympify(V[i][j]) * y[j] for j in range(n))) - sum(
            sympy.sympify(U[i][j]) * s(y[j]) for j in range(n))
        assert sympy.expand(e) == 0


def test_identity_is_not_identified_with_witness():
    """Negative control: a linear activation admits every invertible V (U = V)."""
    r = I.identify("identity", 3)
    assert r["identified"] is False and r["class"].startswith("all invertible linear maps")
    V = sympy.Matrix(r["witness"]["V"])
    assert V.det() != 0
    assert not any(V == sympy.Matrix(3, 3, lambda i, j, p=p: int(p[i] == j)) for p in itertools.permutations(range(3)))
    _check_pair_exactly("identity", r["witness"]["U"], r["witness"]["V"])


def test_cube_scaled_family_witness():
    r = I.identify("cube", 2)
    assert r["identified"] is False and r["order"] == 3
    _check_pair_exactly("cube", r["witness"]["U"], r["witness"]["V"])


def test_mutated_system_does_not_close():
    """Negative control: sigmoid with every equation of order >= 2 dropped never closes."""
    ra = I.analyse_rows("sigmoid", 2, max_order=6, mutate=lambda o: [m for m in o if m <= 1])
    assert not ra.closed and ra.order is None
    assert I.identify("sigmoid", 2, max_order=2)["order"] is None  # truncated too early: undecided


@pytest.mark.parametrize("act", ["sigmoid", "tanh", "softplus", "gelu"])
@pytest.mark.parametrize("n", [2, 3])
def test_structured_solver_agrees_with_direct_groebner(act, n):
    r = I.analyse_rows(act, n)
    zero_dim, direct = I.direct_row_solutions(act, n, r.order)
    assert zero_dim
    structured = set()
    for sp in r.supports:
        for uu, vv in sp.points:
            for p in itertools.permutations(range(n)):
                structured.add((tuple(uu[p[j]] for j in range(n)), tuple(vv[p[j]] for j in range(n))))
    assert structured == set(direct)


def test_taylor_coefficients_match_sympy_series():
    t = sympy.Symbol("t")
    for act in ("sigmoid", "tanh", "softplus", "swish"):
        ser = sympy.expand(sympy.series(I.ANALYTIC[act](t), t, 0, 8).removeO())
        ours = I.taylor_coefficients(act, 7)
        assert all(sympy.simplify(sympy.nsimplify(ours[m]) - ser.coeff(t, m)) == 0 for m in range(1, 8))
    assert sympy.simplify(I.taylor_coefficients("softplus", 1)[0] - sympy.log(2)) == 0


def test_relu_handled_not_by_taylor():
    r = I.identify("relu", 3)
    assert r["identified"] is False and r["order"] is None and r["witness"]["verified"]
    with pytest.raises(I.IdentifyError):
        I.taylor_coefficients("relu", 3)


@pytest.mark.parametrize("argv", [["--activation", "nope", "--n", "2"], ["--activation", "tanh", "--n", "0"],
                                  ["--activation", "tanh"], ["--activation", "tanh", "--n", "2", "--max-order", "0"]])
def test_cli_usage_errors_exit_2(argv, capsys):
    assert I.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("verify.identify: error:")


def _z3_row_proof(n=3):
    """z3 (nonlinear reals): the order-3 sigmoid row system forces (u, v) = (e_j, e_j)."""
    u = z3.Reals(" ".join(f"u{j}" for j in range(n)))
    v = z3.Reals(" ".join(f"v{j}" for j in range(n)))

    def z3eqs(orders):
        eqs = I.row_equations(n, orders, sympy.symbols(f"u0:{n}"), sympy.symbols(f"v0:{n}"))
        syms = (*sympy.symbols(f"u0:{n}"), *sympy.symbols(f"v0:{n}"))
        return tuple(sympy.lambdify(syms, e, "math")(*u, *v) == 0 for e in eqs)

    goal = z3.Or(*[z3.And(*[z3.And(u[k] == int(k == j), v[k] == int(k == j)) for k in range(n)]) for j in range(n)])
    step = Z3Step("ahuja2024:thm9", "sigmoid row system to order 3 => unit rows", hypotheses=z3eqs((0, 1, 3)), goal=goal)
    neg = negated(step, hypotheses=z3eqs((0, 1)))  # order-3 equations dropped: counter-model exists
    return Z3Step(step.claim, step.name, step.hypotheses, step.goal, negative=neg)


@_tag
def test_z3_row_system_proof_with_negative_control():
    results = assert_proof(Proof("ahuja2024:thm9", "sigmoid row identification (z3)", (_z3_row_proof(), I.ANALYTICITY)))
    assert results[0].outcome.holds and not results[0].negative_outcome.holds


@_tag
def test_random_non_permutation_rows_have_nonzero_residual():
    """Bounded search (Hypothesis, exact): no integer row (u, v) other than (e_j, e_j) solves the sigmoid
    row system up to order 5; permutation rows have zero residual to order 9."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    rows = st.lists(st.integers(-2, 2), min_size=3, max_size=3)

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(rows, rows)
    def prop(u, v):
        unit = [tuple(int(i == j) for i in range(3)) for j in range(3)]
        bad = I.residual("sigmoid", [sympy.Integer(x) for x in u], [sympy.Integer(x) for x in v], 5)
        assert (not bad) == (tuple(u) == tuple(v) and tuple(v) in unit)

    prop()
    assert I.residual("sigmoid", [0, 1, 0], [0, 1, 0], 9) == []
    assert I.residual("identity", [1, 1, 0], [1, 1, 0], 9) == []  # control: linear activation admits it


@pytest.mark.parametrize(("expr", "name"), [("x/(1+exp(-x))", "swish"), ("log(1+exp(x))", "softplus"),
                                            ("1/(1+exp(-x))", "sigmoid"), ("tanh(x)", "tanh")])
def test_expression_activation_same_analysis_as_name(expr, name):
    """--activation takes a sympy expression in x: same Taylor coefficients, class and closing order as the name."""
    assert all(sympy.simplify(sympy.nsimplify(a) - sympy.nsimplify(b)) == 0
               for a, b in zip(I.taylor_coefficients(expr, 6), I.taylor_coefficients(name, 6), strict=True))
    by_expr, by_name = I.identify(expr, 2), I.identify(name, 2)
    assert (by_expr["identified"], by_expr["class"], by_expr["order"]) == (
        by_name["identified"], by_name["class"], by_name["order"])


def test_expression_activation_outside_the_named_ones():
    """An expression with no name: the Taylor solution set is verified on the expression itself."""
    r = I.identify("sin(x+1)", 2)  # sigma(0) != 0 and c_2 != 0: permutations only
    assert r["identified"] is True and r["class"] == "permutations: U = V = P" and r["order"] == 2
    even = I.identify("1/(1+x**2)", 2)  # even: V = D P, U = P (sigma(-y) = sigma(y))
    assert even["class"] == "V = D P signed permutation, U = |V| = P"


@pytest.mark.parametrize(("expr", "error", "says"), [
    ("Abs(x)", "NotAnalyticError", "not analytic at 0"),
    ("Max(x, 0)", "NotAnalyticError", "not analytic at 0"),
    ("log(x)", "NotAnalyticError", "not analytic at 0"),
    ("x**(1/3)", "NotAnalyticError", "not analytic at 0"),
    ("exp(-1/x**2)", "NotAnalyticError", "not analytic at 0"),
    ("1/(1-x)", "NotAnalyticError", "on all of R"),
    ("Abs(x - 5)", "NotAnalyticError", "on all of R"),
    ("log(1/2 - x**2)", "NotAnalyticError", "on all of R"),
    ("I*x", "NotAnalyticError", "not real"),
    ("x*y", "ActivationExpressionError", "not in the grammar"),
    ("3", "NotUnivariateError", "does not depend on x"),
])
def test_expression_activation_refused(expr, error, says, capsys):
    from verify import activation_expr

    with pytest.raises(getattr(activation_expr, error), match=says):
        I.identify(expr, 2)
    assert I.main(["--activation", expr, "--n", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("verify.identify: error:") and says in err


def test_expression_analytic_on_reals_rule():
    """The sufficient rule for analyticity on R accepts compositions it can justify and names what it cannot."""
    from verify.activation_expr import X, analytic_on_reals

    for ok in (X * sympy.erf(X), sympy.log(X**2 + sympy.Rational(1, 2)), sympy.log(1 + sympy.exp(X)), sympy.sqrt(X**2 + 1), 1 / (2 + sympy.sin(X)), 2**X):
        assert analytic_on_reals(ok) is None, ok
    for bad in (1 / X, sympy.sqrt(X), sympy.log(X**2), sympy.Abs(X), 1 / sympy.sin(X)):
        assert analytic_on_reals(bad) is not None, bad
