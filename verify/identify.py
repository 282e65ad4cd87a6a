"""Permutation identification: which (U, V) satisfy ``sigma(V y) = U sigma(y)`` on an open set?

``python -m verify.identify --activation sigmoid --n 6 [--json] [--max-order K] [--time-limit SECONDS]``

``--activation`` is a name of :data:`ACTIVATIONS` or a sympy expression in ``x`` (``"x/(1+exp(-x))"``,
``"log(1+exp(x))"``), accepted when it is univariate and shown analytic at 0 and on all of R
(:mod:`verify.activation_expr`; read by the grammar of :mod:`verify.expr_grammar`, never evaluated as
Python), and analysed the same way as the named activations.  The analysis stops with one line after
``--time-limit`` seconds (default :data:`TIME_LIMIT_S`).

This generalises the RNN step of Ahuja & Mansouri (ahuja2024, Theorem 9, eqs. (29)-(34)): from
``sigma(V y) = U sigma(y)`` on an open set, with V, U invertible, conclude ``U = V = Pi`` (a permutation).

Method (exact, see docs/identify.md for why matching at 0 suffices):

1. For an activation analytic on all of R, an identity between analytic functions on a non-empty open
   set holds on all of R^n (identity theorem; R^n is connected), in particular on a neighbourhood of 0,
   so all Taylor coefficients at 0 agree.  (Recorded as a cited lemma, :data:`ANALYTICITY`.)
2. The identity decouples per row i:  ``sigma(v . y) = sum_j u_j sigma(y_j)`` with (u, v) = (U_i, V_i).
   With ``sigma(t) = sum_m c_m t^m`` the coefficient of ``y^alpha`` (|alpha| = m) gives
   ``c_m * (m!/alpha!) * v^alpha = c_m * [alpha = m e_j] * u_j`` (and ``c_0 = c_0 * sum_j u_j`` at m = 0):
   every equation of order m is c_m times a polynomial with integer coefficients, so the row system only
   depends on which c_m vanish (decided exactly by sympy).
3. The row system is invariant under permuting coordinates, so it is solved once per *support size*
   t = |supp v| (v_1..v_t nonzero via the Rabinowitsch variable z * prod(v) = 1, v_{t+1..n} = 0),
   by a Groebner basis over Q (sympy).  A monomial equation whose variables are all nonzero on the
   support is inconsistent at once (a product of units is a unit) - this is what kills every support
   size t >= 2 as soon as some c_m, m >= 2, is nonzero.
4. The truncated system at order K has the full solution set as a subset.  The system *closes* at order
   K when every solution of the order-K system is verified to be a true solution of the analytic identity
   (exact symbolic check); then the order-K solution set *is* the solution set.  Candidates that are not
   true solutions are exposed by a nonzero exact Taylor residual at a higher order.
5. Rows are combined: (U, V) has its rows in the (permutation-closed) row solution set, and both U and V
   must be invertible.

Non-analytic activations (relu, leaky_relu, abs) are handled separately: the open set need not contain 0,
and on the open box (1, 2)^n every nonnegative invertible V gives a witness of non-identifiability.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import sympy

from lengthgen_cli import Parser, add_json_option, bounded_int, command, progress, usage_errors
from lengthgen_cli.deadline import TimeLimitExceeded, time_limit
from verify import activation_expr
from verify.activation_expr import ActivationExpressionError
from verify.kernel import CitedLemma

ANALYTIC = {
    "sigmoid": lambda t: 1 / (1 + sympy.exp(-t)),
    "tanh": sympy.tanh,
    "softplus": lambda t: sympy.log(1 + sympy.exp(t)),
    "exp": sympy.exp,
    "sin": sympy.sin,
    "erf": sympy.erf,
    "gelu": lambda t: t * (1 + sympy.erf(t / sympy.sqrt(2))) / 2,
    "swish": lambda t: t / (1 + sympy.exp(-t)),
    "identity": lambda t: t,
    "square": lambda t: t**2,
    "cube": lambda t: t**3,
}
NON_ANALYTIC = {
    "relu": lambda t: sympy.Max(t, 0),
    "leaky_relu": lambda t: sympy.Max(t, t / 100),
    "abs": sympy.Abs,
}
ACTIVATIONS = tuple(sorted(ANALYTIC)) + tuple(sorted(NON_ANALYTIC))
MAX_N = 12

ANALYTICITY = CitedLemma(
    "ahuja2024:thm9",
    "analytic-continuation",
    statement=("If F: R^n -> R^n is real-analytic on the connected open set R^n and F = 0 on a non-empty "
               "open subset, then F = 0 on R^n; hence every Taylor coefficient of F at 0 vanishes. Applied "
               "to F(y) = sigma(V y) - U sigma(y) for sigma entire-analytic on R (composition and linear "
               "combination of analytic maps are analytic)."),
    source="identity theorem for real-analytic functions (Krantz & Parks, A Primer of Real Analytic "
           "Functions, Cor. 1.2.7); used in ahuja2024 proof of Thm 9 via Mityagin (2015)",
)


class IdentifyError(ValueError):
    """Bad request: unknown or non-analytic activation for the Taylor method, bad n."""


def activation_function(activation: str):
    """sigma as a map of sympy expressions: a named activation of :data:`ANALYTIC` or an expression in x."""
    if activation in ANALYTIC:
        return ANALYTIC[activation]
    if activation in NON_ANALYTIC:
        raise IdentifyError(f"no Taylor expansion for activation {activation!r}")
    if activation.isidentifier() and activation != "x":
        raise IdentifyError(f"unknown activation {activation!r}: choose one of {', '.join(ACTIVATIONS)} or give a "
                            "sympy expression in x")
    expr = activation_expr.parse(activation)
    return lambda t: expr.subs(activation_expr.X, t)


def _fps_exp(a: Fraction, N: int) -> list:
    """Coefficients of exp(a t) up to t^N."""
    return [a**k / math.factorial(k) for k in range(N + 1)]


def _fps_mul(p: list, q: list, N: int) -> list:
    return [sum(p[i] * q[k - i] for i in range(k + 1)) for k in range(N + 1)]


def _fps_inv(p: list, N: int) -> list:
    """1/p as a power series (p[0] != 0)."""
    out = [Fraction(1) / p[0]]
    for k in range(1, N + 1):
        out.append(-sum(p[i] * out[k - i] for i in range(1, k + 1)) / p[0])
    return out


def _fps_log1p(x: list, N: int) -> list:
    """log(1 + x) for a series x with x[0] = 0."""
    out = [Fraction(0)] * (N + 1)
    power = [Fraction(1)] + [Fraction(0)] * N
    for k in range(1, N + 1):
        power = _fps_mul(power, x, N)
        out = [o + Fraction((-1) ** (k + 1), k) * p for o, p in zip(out, power, strict=True)]
    return out


def _sigmoid_series(N):
    p = _fps_exp(Fraction(-1), N)
    p[0] += 1  # 1 + exp(-t)
    return _fps_inv(p, N)


def _series(activation: str, N: int) -> list:
    """Exact Taylor coefficients c_0..c_N at 0 (Fractions, or sympy numbers where irrational)."""
    one = [Fraction(1)] + [Fraction(0)] * N
    if activation == "sigmoid":
        return _sigmoid_series(N)
    if activation == "swish":
        return [Fraction(0)] + _sigmoid_series(N)[:N]
    if activation == "tanh":
        e2 = _fps_exp(Fraction(2), N)
        return _fps_mul([a - b for a, b in zip(e2, one, strict=True)],
                        _fps_inv([a + b for a, b in zip(e2, one, strict=True)], N), N)
    if activation == "softplus":  # log 2 + log(1 + (e^t - 1)/2)
        x = [(c - o) / 2 for c, o in zip(_fps_exp(Fraction(1), N), one, strict=True)]
        return [sympy.log(2)] + _fps_log1p(x, N)[1:]
    if activation == "exp":
        return _fps_exp(Fraction(1), N)
    if activation == "sin":
        return [Fraction((-1) ** ((k - 1) // 2), math.factorial(k)) if k % 2 else Fraction(0) for k in range(N + 1)]
    if activation == "erf":  # 2/sqrt(pi) sum (-1)^j t^(2j+1) / (j! (2j+1))
        return [2 / sympy.sqrt(sympy.pi) * sympy.Rational((-1) ** (k // 2), math.factorial(k // 2) * k)
                if k % 2 else sympy.Integer(0) for k in range(N + 1)]
    if activation == "gelu":  # t/2 + (t/2) erf(t/sqrt 2)
        erf = _series("erf", N)
        return [sympy.Integer(0), sympy.Rational(1, 2)] + [
            sympy.Rational(1, 2) * erf[k - 1] * sympy.sqrt(2) ** -(k - 1) for k in range(2, N + 1)]
    if activation == "identity":
        return [Fraction(0), Fraction(1)] + [Fraction(0)] * (N - 1)
    if activation in ("square", "cube"):
        d = 2 if activation == "square" else 3
        return [Fraction(1 if k == d else 0) for k in range(N + 1)]
    raise IdentifyError(f"no Taylor expansion for activation {activation!r}")


@lru_cache(maxsize=64)
def taylor_coefficients(activation: str, order: int) -> tuple:
    """Exact Taylor coefficients c_0..c_order of the activation (a name or an expression in x) at 0."""
    if activation in ANALYTIC:
        return tuple(_series(activation, order))
    if activation in NON_ANALYTIC:
        raise IdentifyError(f"no Taylor expansion for activation {activation!r}")
    return tuple(activation_expr.taylor_at_zero(activation_expr.parse(activation), order, activation))


def _is_zero(c, activation: str, m: int) -> bool:
    """Whether the Taylor coefficient c_m is zero, decided exactly (an undecidable one is refused)."""
    if isinstance(c, int | Fraction):
        return c == 0
    z = c.is_zero  # sympy's assumptions first: exact, and far cheaper than simplify where they decide
    if z is None:
        z = sympy.simplify(c).is_zero
    if z is None:
        raise ActivationExpressionError(f"activation {activation!r}: cannot decide whether its Taylor coefficient "
                                        f"c_{m} = {c} is zero")
    return z


def active_orders(activation: str, order: int) -> tuple[int, ...]:
    """The orders m <= order with c_m != 0 (decided exactly)."""
    return tuple(m for m, c in enumerate(taylor_coefficients(activation, order)) if not _is_zero(c, activation, m))


def _compositions(m: int, n: int):
    """All alpha in N^n with |alpha| = m."""
    if n == 1:
        yield (m,)
        return
    for a in range(m, -1, -1):
        for rest in _compositions(m - a, n - 1):
            yield (a, *rest)


def _multinom(alpha) -> int:
    return math.factorial(sum(alpha)) // math.prod(math.factorial(a) for a in alpha)


def row_equations(n: int, orders, u, v) -> list:
    """Row system of ``sigma(v.y) = sum_j u_j sigma(y_j)`` for the given active orders.

    ``orders``: the m with c_m != 0; each order-m equation is divided by its c_m (so it is over Z).
    Entries of ``u``, ``v`` may be symbols or exact numbers (v may contain zeros: support restriction).
    Returns the nonzero left-hand sides (equations read ``expr = 0``).
    """
    eqs = []
    support = [j for j in range(n) if not (isinstance(v[j], int | Fraction) and v[j] == 0) and v[j] != 0]
    for m in orders:
        if m == 0:
            e = sympy.expand(1 - sum(u))
            if e != 0:
                eqs.append(e)
            continue
        for j in range(n):  # pure powers y_j^m
            e = sympy.expand(v[j] ** m - u[j])
            if e != 0:
                eqs.append(e)
        if len(support) >= 2:  # mixed monomials: only those inside supp v can be nonzero
            for beta in _compositions(m, len(support)):
                if max(beta) == m:
                    continue
                eqs.append(_multinom(beta) * sympy.Mul(*[v[support[i]] ** beta[i] for i in range(len(support))]))
    return eqs


@dataclass
class SupportSolution:
    """Solutions of the row system with supp v = {0..t-1}: finite points or free families."""

    t: int
    points: list = field(default_factory=list)      # list of (u tuple, v tuple), exact
    families: list = field(default_factory=list)    # list of (u exprs, v exprs, free symbols)
    constrained: list = field(default_factory=list)  # positive-dimensional, not free: sample points
    inconsistent_by: str = ""


def solve_support(n: int, t: int, orders) -> SupportSolution:
    """Solve the row system with supp v = {0..t-1} exactly.

    u is eliminated first: the order-m1 pure-power equations (m1 = least active order >= 1) give
    u_j = v_j^m1 (u_j = 0 off the support).  The remaining system is in v_0..v_{t-1} only; a monomial
    equation (all its variables nonzero on the support) is inconsistent at once, else a lex Groebner
    basis over Q with the Rabinowitsch variable z (z * v_0 ... v_{t-1} = 1) decides it.
    """
    pos = [m for m in orders if m >= 1]
    if not pos:  # no non-constant term yet: u and v unconstrained but for sum u = 1
        return SupportSolution(t, constrained=[{"equations": ["no non-constant Taylor term up to this order"],
                                                "sample": None}])
    m1 = pos[0]
    vs = sympy.symbols(f"v0:{t}") if t else ()
    v = list(vs) + [0] * (n - t)
    u = [x**m1 for x in vs] + [0] * (n - t)
    sol = SupportSolution(t)
    eqs = row_equations(n, orders, u, v)
    for e in eqs:
        if e.is_number:
            sol.inconsistent_by = f"constant equation {e} = 0"
            return sol
        if e.is_Mul or e.is_Pow or e.is_Symbol:  # a monomial in nonzero variables
            sol.inconsistent_by = f"monomial equation {e} = 0 with v_0..v_{t - 1} != 0"
            return sol
    if not eqs:
        if t == 0:
            sol.points.append((tuple(u), tuple(v)))
        else:
            sol.families.append((tuple(u), tuple(v), tuple(vs)))
        return sol
    z = sympy.Symbol("z")
    G = sympy.groebner(eqs + [z * sympy.Mul(*vs) - 1], z, *vs, order="lex")
    if list(G.exprs) == [1]:
        sol.inconsistent_by = "Groebner basis {1}"
        return sol
    elim = [g for g in G.exprs if z not in g.free_symbols]
    Gv = sympy.groebner(elim, *vs, order="lex") if elim else None
    if Gv is not None and Gv.is_zero_dimensional:
        for s in sympy.solve_poly_system(list(Gv.exprs), *vs) or []:
            if all(x.is_real and x != 0 for x in s):
                sub = dict(zip(vs, s, strict=True))
                sol.points.append((tuple(sympy.sympify(x).subs(sub) for x in u),
                                   tuple(sympy.sympify(x).subs(sub) for x in v)))
        return sol
    sample = _sample_point(elim, vs)
    sol.constrained.append({"equations": [str(e) for e in elim], "sample": sample and (
        tuple(sympy.sympify(x).subs(dict(zip(vs, sample, strict=True))) for x in u),
        tuple(sympy.sympify(x).subs(dict(zip(vs, sample, strict=True))) for x in v))})
    return sol


def _sample_point(eqs, vs):
    """A rational point with all coordinates nonzero on a positive-dimensional variety (small search)."""
    for k in range(len(vs) - 1, 0, -1):  # fix as many coordinates as possible first
        for vals in itertools.islice(itertools.product((2, 3, -1, 5, -2), repeat=k), 40):
            sub = dict(zip(vs[len(vs) - k:], vals, strict=True))
            rest = [sympy.expand(e.subs(sub)) for e in eqs]
            rest = [e for e in rest if e != 0]
            free = vs[:len(vs) - k]
            if any(e.is_number for e in rest):
                continue
            try:
                sols = sympy.solve_poly_system(rest, *free) if rest else None
            except (NotImplementedError, sympy.PolynomialError):
                continue
            for s in sols or []:
                if all(x.is_rational and x != 0 for x in s):
                    return tuple(s) + tuple(vals)
    return None


def residual(activation: str, u, v, order: int) -> list:
    """Nonzero exact Taylor residuals (order, value) of sigma(v.y) - sum u_j sigma(y_j), orders <= order."""
    out = []
    for m in active_orders(activation, order):
        for e in row_equations(len(u), (m,), list(u), list(v)):
            val = sympy.nsimplify(e)
            if val != 0:
                out.append((m, val))
                break
    return out


def is_true_solution(activation: str, u, v) -> bool:
    """Exact symbolic check that sigma(v.y) == sum_j u_j sigma(y_j) identically in y."""
    n = len(u)
    y = sympy.symbols(f"y0:{n}")
    s = activation_function(activation)
    expr = sympy.expand(s(sum(v[j] * y[j] for j in range(n))) - sum(u[j] * s(y[j]) for j in range(n)))
    if expr == 0:
        return True
    return sympy.simplify(sympy.expand(sympy.simplify(expr.rewrite(sympy.exp)))) == 0


def direct_row_solutions(activation: str, n: int, order: int):
    """Unstructured cross-check: lex Groebner basis of the whole row system in (u, v) (2n unknowns).

    Returns (is_zero_dimensional, sorted list of real solutions (u, v)) -- slow beyond n = 3.
    """
    u, v = sympy.symbols(f"u0:{n}"), sympy.symbols(f"v0:{n}")
    eqs = row_equations(n, active_orders(activation, order), list(u), list(v))
    G = sympy.groebner(eqs, *v, *u, order="lex")
    if not G.is_zero_dimensional:
        return False, []
    sols = sympy.solve_poly_system(list(G.exprs), *v, *u) or []
    real = [s for s in sols if all(x.is_real for x in s)]
    return True, sorted(((tuple(s[n:]), tuple(s[:n])) for s in real), key=str)


@dataclass
class RowAnalysis:
    activation: str
    n: int
    order: int | None
    closed: bool
    supports: list
    log: list


def analyse_rows(activation: str, n: int, max_order: int = 8, mutate=None, step=None) -> RowAnalysis:
    """Raise the truncation order K until every candidate row solution is a verified true solution.

    ``mutate`` (negative controls only): a function applied to the tuple of active orders before solving,
    e.g. dropping the order-3 equations; a mutated system must not close.  ``step(K)`` (progress display) is
    called after each support size is solved at order K.
    """
    log = []
    sups = []
    for K in range(1, max_order + 1):
        orders = active_orders(activation, K)
        if mutate is not None:
            orders = tuple(mutate(orders))
        sups = []
        for t in range(n + 1):
            sups.append(solve_support(n, t, orders))
            if step is not None:
                step(K)
        spurious = None
        for sp in sups:
            for c in sp.constrained:
                bad = residual(activation, *c["sample"], K + 8) if c["sample"] else []
                spurious = (sp.t, "family", c["equations"], "sample", c["sample"], bad[:1])
                if not bad:
                    spurious += ("unresolved",)
            for fam in sp.families:
                if spurious is not None:
                    break
                sub = {s: sympy.Integer(p) for s, p in zip(fam[2], (2, 3, -1, 5, -2, 7, 11, 13, 17, 19, 23, 29),
                                                           strict=False)}
                at = ([sympy.sympify(x).subs(sub) for x in fam[0]], [sympy.sympify(x).subs(sub) for x in fam[1]])
                bad = residual(activation, *at, K + 8)
                if bad or not is_true_solution(activation, fam[0], fam[1]):
                    spurious = (sp.t, "free family", fam[:2], "sample", at, bad[:1])
            for uu, vv in sp.points:
                if spurious is None and not is_true_solution(activation, uu, vv):
                    spurious = (sp.t, "point", (uu, vv), residual(activation, uu, vv, K + 8)[:1])
            if spurious:
                break
        log.append({"order": K, "active_orders": list(orders), "closed": spurious is None,
                    "spurious": None if spurious is None else str(spurious)})
        if spurious is None:
            return RowAnalysis(activation, n, K, True, sups, log)
    return RowAnalysis(activation, n, None, False, sups, log)


def is_permutation_matrix(M) -> bool:
    """Entries in {0, 1}, exactly one 1 in every row and every column."""
    M = sympy.Matrix(M)
    return (all(x in (0, 1) for x in M) and all(sum(M.row(i)) == 1 for i in range(M.rows))
            and all(sum(M.col(j)) == 1 for j in range(M.cols)))


def classify(ra: RowAnalysis) -> dict:
    """Combine row solutions into the class of admissible (U, V) (rows from the solution set, both invertible)."""
    n = ra.n
    fams = [(sp.t, f) for sp in ra.supports for f in sp.families]
    single = [(vv[0], uu[0]) for sp in ra.supports if sp.t == 1 for uu, vv in sp.points]
    pairs = sorted({(a, b) for a, b in single if a != 0 and b != 0}, key=str)  # (v scale, u scale)
    wide = [sp.t for sp in ra.supports if sp.t >= 2 and (sp.points or sp.families)]
    if not fams and not wide:
        if not pairs:
            return {"identified": True, "class": "empty: no invertible (U, V) satisfies the identity",
                    "witness": None, "row_pairs": []}
        if pairs == [(1, 1)]:
            cls = "permutations: U = V = P"
        elif set(pairs) == {(1, 1), (-1, -1)}:
            cls = "signed permutations: U = V = D P, D = diag(+-1)"
        elif set(pairs) == {(1, 1), (-1, 1)}:
            cls = "V = D P signed permutation, U = |V| = P"
        else:
            cls = f"scaled permutations: rows (v, u) = (a e_j, b e_j) with (a, b) in {pairs}"
        witness = None
        other = [p for p in pairs if p != (1, 1)]
        if other:
            a, b = other[0]
            witness = {"V": (sympy.eye(n) * a).tolist(), "U": (sympy.eye(n) * b).tolist(), "note":
                       "an admissible pair that is not a permutation pair (the class is finite)"}
        return {"identified": True, "class": cls, "witness": witness, "row_pairs": pairs}
    full = [f for t, f in fams if t == n]
    if full and all(sympy.expand(full[0][0][j] - full[0][1][j]) == 0 for j in range(n)):
        cls = "all invertible linear maps: U = V in GL_n"
    else:
        cls = "continuous families: " + "; ".join(f"supp size {t}: u = {f[0]}, v = {f[1]}" for t, f in fams)
    return {"identified": False, "class": cls, "witness": _witness(ra)}


def _witness(ra: RowAnalysis) -> dict | None:
    n = ra.n
    candidates = []
    if n >= 2:
        candidates.append(sympy.eye(n) + sympy.Matrix(n, n, lambda i, j: 1 if (i, j) == (0, 1) else 0))
    candidates.append(sympy.diag(*([2] + [1] * (n - 1))))
    u = sympy.symbols(f"u0:{n}")
    orders = active_orders(ra.activation, ra.order)
    for V in candidates:
        rows = []
        for i in range(n):
            sol = sympy.solve(row_equations(n, orders, u, list(V.row(i))), u, dict=True)
            if not sol:
                break
            rows.append([sympy.sympify(u[j].subs(sol[0])).subs({s: 0 for s in u}) for j in range(n)])
        if len(rows) < n:
            continue
        U = sympy.Matrix(rows)
        if U.det() == 0 or is_permutation_matrix(V):
            continue
        if all(is_true_solution(ra.activation, list(U.row(i)), list(V.row(i))) for i in range(n)):
            return {"V": V.tolist(), "U": U.tolist(), "note": "sigma(V y) = U sigma(y) for all y (checked exactly)"}
    return None


def relu_witness(activation: str, n: int) -> dict:
    """Non-analytic activations: on the open box (1,2)^n, relu(V y) = V y = U relu(y) for V >= 0 invertible."""
    V = sympy.Matrix(n, n, lambda i, j: 1 if j >= i else 0)  # upper-triangular ones, det 1
    f = NON_ANALYTIC[activation]
    ok = V.det() != 0 and all(x >= 0 for x in V) and all(any(x > 0 for x in V.row(i)) for i in range(n))
    # exact check on the box corners (both sides are linear on the box since V y > 0 there)
    for corner in itertools.product((1, 2), repeat=n):
        y = sympy.Matrix(corner)
        lhs = (V * y).applyfunc(f)
        rhs = V * y.applyfunc(f)
        ok = ok and lhs == rhs
    return {"V": V.tolist(), "U": V.tolist(), "open_set": f"(1, 2)^{n}", "verified": bool(ok),
            "note": f"{activation} is linear on the positive orthant; V >= 0 maps (1,2)^n into it"}


def identify(activation: str, n: int, max_order: int = 8, step=None) -> dict:
    """Decide the class of (U, V) with sigma(V y) = U sigma(y) on an open set (see module docstring).

    ``step(K)``: optional progress callback, see :func:`analyse_rows`."""
    if not isinstance(n, int) or n < 1 or n > MAX_N:
        raise IdentifyError(f"n must be an integer in 1..{MAX_N}, got {n!r}")
    t0 = time.perf_counter()
    if activation in NON_ANALYTIC:
        w = relu_witness(activation, n)
        return {"activation": activation, "n": n, "identified": False, "order": None,
                "class": "not identifiable: non-analytic (piecewise linear) activation, open set may avoid 0; "
                         "Taylor matching at 0 is not valid, every invertible V >= 0 works on (1,2)^n",
                "witness": w, "method": "piecewise-linear witness", "seconds": time.perf_counter() - t0}
    if activation not in ANALYTIC:
        activation_function(activation)  # an expression in x: refused unless univariate and analytic
    ra = analyse_rows(activation, n, max_order, step=step)
    if not ra.closed:
        return {"activation": activation, "n": n, "identified": False, "order": None,
                "class": f"undecided: the system did not close up to order {max_order}", "witness": None,
                "log": ra.log, "seconds": time.perf_counter() - t0}
    out = {"activation": activation, "n": n, "order": ra.order}
    out.update(classify(ra))
    out["taylor_coefficients"] = [str(c) for c in taylor_coefficients(activation, ra.order)]
    out["log"] = ra.log
    out["seconds"] = time.perf_counter() - t0
    return out


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, sympy.Basic):
        return str(x)
    return x


MAX_ORDER = 20
#: default of --time-limit: the exact analysis of an expression (Taylor series of compositions, Groebner bases)
#: may grow without bound for a legal expression; past the limit the tool stops in one line
TIME_LIMIT_S = 120
MAX_TIME_LIMIT_S = 24 * 3600


def build_parser() -> Parser:
    ap = Parser(module="verify.identify", description=__doc__.splitlines()[0])
    ap.add_argument("--activation", required=True, metavar="NAME|EXPR",
                    help=f"the activation sigma: one of {', '.join(ACTIVATIONS)}, or an expression in x "
                         "analytic on R, e.g. 'x/(1+exp(-x))', 'log(1+exp(x))'")
    ap.add_argument("--n", required=True, type=bounded_int(1, MAX_N, f"verify.identify.MAX_N = {MAX_N}"),
                    help=f"dimension n of y, U and V, 1..{MAX_N}")
    ap.add_argument("--max-order", type=bounded_int(1, MAX_ORDER, f"verify.identify.MAX_ORDER = {MAX_ORDER}"), default=8,
                    help=f"highest Taylor truncation order tried, 1..{MAX_ORDER} (default 8)")
    ap.add_argument("--time-limit", type=bounded_int(1, MAX_TIME_LIMIT_S, "verify.identify.MAX_TIME_LIMIT_S = "
                                                     f"{MAX_TIME_LIMIT_S}"),
                    default=TIME_LIMIT_S, metavar="SECONDS",
                    help=f"stop with an error after this many seconds of analysis (default {TIME_LIMIT_S})")
    add_json_option(ap)
    return ap


@command
def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    with usage_errors(ap, IdentifyError, ActivationExpressionError, TimeLimitExceeded), progress(
            desc=f"{args.activation[:60]} n={args.n}: supports solved", unit="support") as bar, time_limit(
            args.time_limit, f"the analysis of {args.activation[:60]!r}", " (--time-limit; raise it to allow more)"):
        res = _jsonable(identify(args.activation, args.n, args.max_order,
                                 step=lambda K: (bar.set_postfix_str(f"order {K}"), bar.update())))
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"activation {res['activation']}, n = {res['n']}")
    print(f"identified: {res['identified']}")
    print(f"class: {res['class']}")
    print(f"order at which the system closes: {res['order']}")
    if res.get("witness"):
        print(f"witness: {res['witness']}")
    print(f"time: {res['seconds']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
