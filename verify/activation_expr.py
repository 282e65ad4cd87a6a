"""Activations given as sympy expressions in ``x`` for :mod:`verify.identify` (``--activation "x/(1+exp(-x))"``).

The identification argument of Ahuja & Mansouri (Theorem 9, eqs. (29)-(34)) moves from an open set to 0 by
the identity theorem, which needs sigma real-analytic on all of R (on a connected domain holding both the
open set and 0; docs/identify.md).  The text is read by the grammar of :mod:`verify.expr_grammar` (a
whitelist of functions, the variable ``x``, exact numbers; size, depth and magnitude limits checked before
anything is built), never evaluated as Python.  An expression is accepted only when both are established:

* **analytic at 0** (:func:`taylor_at_zero`): the one-sided expansions at 0 from the right and from the left
  are the same polynomial (no fractional, negative or logarithmic terms) and the expression's value at 0 is
  finite and equals the constant term.  ``Abs(x)`` (``x`` against ``-x``), ``log(x)``, ``x**(1/3)`` and
  ``exp(-1/x**2)`` (undefined at 0) fail here.
* **analytic on all of R** (:func:`analytic_on_reals`): the expression is built from ``x``, real numbers,
  sums, products and integer powers, and the functions of :data:`ENTIRE_ON_REALS` (each real-analytic on R),
  where a negative integer power needs a base with no real zero, and ``log(b)`` or ``b**e`` with ``e`` not an
  integer need ``b > 0`` on R (decided by sympy's assumptions, else by: ``b`` has no real zero (``solveset``)
  and ``b(0) > 0``, with ``b`` itself analytic on R, so ``b > 0`` by the intermediate value theorem).
  ``1/(1-x)`` and ``Abs(x - 5)`` fail here.  The rule is sufficient, not necessary: an expression it cannot
  establish is refused with the sub-expression named, never guessed.

Errors are :class:`NotUnivariateError` (a symbol other than ``x``) and :class:`NotAnalyticError`, both
:class:`ActivationExpressionError` (a ``ValueError``).
"""

from __future__ import annotations

from functools import lru_cache

import sympy

from verify import expr_grammar
from verify.expr_grammar import X

#: functions real-analytic on all of R (compositions with analytic arguments stay analytic)
ENTIRE_ON_REALS = (sympy.exp, sympy.sin, sympy.cos, sympy.sinh, sympy.cosh, sympy.tanh, sympy.atan,
                   sympy.asinh, sympy.erf, sympy.erfc)


class ActivationExpressionError(ValueError):
    """An activation expression cannot be analysed (unparsable, not univariate or not analytic)."""


class NotUnivariateError(ActivationExpressionError):
    """The expression depends on a symbol other than ``x``, or on none."""


class NotAnalyticError(ActivationExpressionError):
    """The expression is not analytic at 0, or is not shown real-analytic on all of R."""


@lru_cache(maxsize=64)
def parse(text: str) -> sympy.Expr:
    """The expression ``text`` in ``x``, checked univariate, analytic at 0 and analytic on R."""
    try:
        expr = expr_grammar.parse(text)
    except expr_grammar.ExpressionError as exc:
        raise ActivationExpressionError(f"cannot read activation {text[:60]!r}"
                                        f"{'...' if len(text) > 60 else ''}: {exc}") from exc
    if not isinstance(expr, sympy.Expr):
        raise ActivationExpressionError(f"activation {text!r} is not an expression in x")
    others = sorted(str(s) for s in expr.free_symbols if s != X)
    if others:
        raise NotUnivariateError(f"activation {text!r} is not univariate: it depends on {', '.join(others)} "
                                 "(write it in the one variable x)")
    if X not in expr.free_symbols:
        raise NotUnivariateError(f"activation {text!r} does not depend on x")
    taylor_at_zero(expr, 3, text)
    why = analytic_on_reals(expr)
    if why is not None:
        raise NotAnalyticError(f"activation {text!r} is not shown analytic on all of R ({why}); the identity-"
                               "theorem step from an open set to 0 needs it")
    return expr


def _polynomial(series: sympy.Expr) -> sympy.Poly | None:
    try:
        return sympy.Poly(series, X)
    except sympy.PolynomialError:
        return None


def taylor_at_zero(expr: sympy.Expr, order: int, text: str | None = None) -> list:
    """Exact Taylor coefficients c_0..c_order of ``expr`` at 0; :class:`NotAnalyticError` where it has none."""
    name = text if text is not None else str(expr)
    sides = []
    for direction in ("+", "-"):
        try:
            s = sympy.series(expr, X, 0, order + 1, dir=direction).removeO()
        except (NotImplementedError, ValueError, TypeError) as exc:
            raise NotAnalyticError(f"activation {name!r}: sympy finds no Taylor expansion at 0 ({exc})") from None
        poly = _polynomial(sympy.expand(s))
        if poly is None:
            raise NotAnalyticError(f"activation {name!r} is not analytic at 0: its expansion {s} has terms that "
                                   "are not non-negative integer powers of x")
        sides.append(poly)
    if sides[0] != sides[1]:
        raise NotAnalyticError(f"activation {name!r} is not analytic at 0: the expansions from the right "
                               f"({sides[0].as_expr()}) and from the left ({sides[1].as_expr()}) differ")
    coeffs = [sides[0].coeff_monomial(X**m) for m in range(order + 1)]  # exact: the grammar makes no floats
    value = expr.subs(X, 0)
    if not value.is_finite or sympy.simplify(value - coeffs[0]) != 0:
        raise NotAnalyticError(f"activation {name!r} is not analytic at 0: its value there is {value}")
    if not all(c.is_real for c in coeffs):
        raise NotAnalyticError(f"activation {name!r} is not real at 0: Taylor coefficients {coeffs}")
    return coeffs


def _positive_on_reals(b: sympy.Expr) -> bool:
    if b.is_positive:
        return True
    if analytic_on_reals(b) is not None:
        return False
    at0 = b.subs(X, 0)
    if at0.is_positive is not True:
        return False
    try:
        zeros = sympy.solveset(b, X, sympy.S.Reals)
    except (NotImplementedError, ValueError, TypeError):
        return False
    return zeros is sympy.S.EmptySet


def _nonzero_on_reals(b: sympy.Expr) -> bool:
    if b.is_positive or b.is_negative:
        return True
    try:
        zeros = sympy.solveset(b, X, sympy.S.Reals)
    except (NotImplementedError, ValueError, TypeError):
        return False
    return zeros is sympy.S.EmptySet


def analytic_on_reals(expr: sympy.Expr) -> str | None:
    """None when the rule of the module docstring shows ``expr`` real-analytic on R, else the obstruction."""
    if expr == X:
        return None
    if expr.is_number:
        return None if expr.is_real else f"{expr} is not real"
    if isinstance(expr, sympy.Add | sympy.Mul):
        return next((w for w in map(analytic_on_reals, expr.args) if w is not None), None)
    if isinstance(expr, sympy.Pow):
        base, e = expr.args
        inner = analytic_on_reals(base) or (None if X not in e.free_symbols else analytic_on_reals(e))
        if inner is not None:
            return inner
        if e.is_integer and e.is_nonnegative:
            return None
        if e.is_integer:
            return None if _nonzero_on_reals(base) else f"{expr} is singular where {base} = 0"
        return None if _positive_on_reals(base) else f"{expr} needs {base} > 0 on all of R"
    if isinstance(expr, sympy.log):
        (arg,) = expr.args
        return analytic_on_reals(arg) or (None if _positive_on_reals(arg) else f"{expr} needs {arg} > 0 on all of R")
    if isinstance(expr, sympy.Function) and expr.func in ENTIRE_ON_REALS:
        return next((w for w in map(analytic_on_reals, expr.args) if w is not None), None)
    return f"{expr.func} is not among the functions known analytic on R: " + ", ".join(
        f.__name__ for f in ENTIRE_ON_REALS) + ", log of a positive argument, powers"
