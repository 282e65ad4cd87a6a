"""Shared helpers for the ahuja2024 proof chains: step builders that always attach a negative control.

Every builder takes the positive step's data and a *mutation* (a changed goal, a dropped hypothesis, a
different instance family) and returns the kernel step with ``negative`` set.  A builder refuses a
"mutation" that leaves the step unchanged, so no control is a copy of the step it controls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import sympy

from verify.kernel import (
    EnumerationStep,
    KernelError,
    LinalgStep,
    SympyStep,
    Z3Step,
    sympy_with_control,
    z3_with_control,
)

PAPER = "ahuja2024"

_UNSET = object()


def key(label: str) -> str:
    """The registry key ``ahuja2024:<label>``."""
    return f"{PAPER}:{label}"


def z3_step(claim: str, name: str, hypotheses: Iterable, goal, *, neg_hypotheses: Any = _UNSET,
            neg_goal: Any = _UNSET, timeout_ms: int = 20000) -> Z3Step:
    """``hypotheses => goal`` by z3, with a control that drops hypotheses or mutates the goal."""
    extra = {k: v for k, v in (("neg_hypotheses", neg_hypotheses), ("neg_goal", neg_goal)) if v is not _UNSET}
    return z3_with_control(key(claim), name, hypotheses, goal, timeout_ms=timeout_ms, **extra)


def sympy_step(claim: str, name: str, lhs, rhs, *, neg_lhs: Any = _UNSET, neg_rhs: Any = _UNSET) -> SympyStep:
    """Exact identity ``lhs == rhs`` with a mutated side as control."""
    extra = {k: v for k, v in (("neg_lhs", neg_lhs), ("neg_rhs", neg_rhs)) if v is not _UNSET}
    return sympy_with_control(key(claim), name, lhs, rhs, **extra)


def linalg_step(claim: str, name: str, residual, neg_residual) -> LinalgStep:
    """A residual matrix that must vanish exactly, with a mutated residual as control."""
    base = LinalgStep(key(claim), name, residual)
    return replace(base, negative=replace(base, residual=neg_residual))


def enum_step(claim: str, name: str, instances: Callable[[], Iterable], predicate: Callable[[Any], bool], *,
              neg_instances: Any = _UNSET, neg_predicate: Any = _UNSET) -> EnumerationStep:
    """A predicate on every member of a finite family, with a widened family or mutated predicate as control."""
    if neg_instances is _UNSET and neg_predicate is _UNSET:
        raise KernelError(f"{claim}/{name}: give a negative control (neg_instances or neg_predicate)")
    base = EnumerationStep(key(claim), name, instances, predicate)
    neg = replace(base, instances=instances if neg_instances is _UNSET else neg_instances,
                  predicate=predicate if neg_predicate is _UNSET else neg_predicate)
    return replace(base, negative=neg)


def sigmoid(z):
    """The logistic sigmoid as an exact sympy expression."""
    return 1 / (1 + sympy.exp(-z))


def rat_matrix(rows) -> sympy.Matrix:
    """A sympy Matrix of exact rationals (strings like '1/3' or ints)."""
    return sympy.Matrix([[sympy.Rational(x) for x in r] for r in rows])


def rank_is(expected: int):
    """Predicate: a sympy Matrix has exactly this rank (exact arithmetic)."""
    return lambda m: sympy.Matrix(m).rank() == expected


def checked(proof) -> list:
    """Run ``proof`` through :func:`verify.kernel.assert_proof`; also insist something was discharged.

    ``assert_proof`` fails unless every step holds and every negative control is rejected, so a passing
    call is the test that the controls are rejected.
    """
    from verify.kernel import assert_proof

    results = assert_proof(proof)
    discharged = [r for r in results if r.step.method != "cited"]
    if not discharged:
        raise AssertionError(f"{proof.claim}: only cited steps, nothing was checked")
    if any(r.negative_outcome is None or r.negative_outcome.holds for r in discharged):
        raise AssertionError(f"{proof.claim}: a discharged step lacks a rejected control")
    return results


class Sig(sympy.Function):
    """The sigmoid as a function symbol carrying its derivative rule sigma' = sigma (1 - sigma).

    Derivatives of Sig are polynomials in Sig, so identities between them simplify fast; the rule itself is
    checked once against 1/(1 + e^{-s}) (see :func:`verify.ahuja.rnn.sigmoid_steps`).
    """

    def fdiff(self, argindex=1):
        return self * (1 - self)


class Elementwise(sympy.Function):
    """An arbitrary scalar function applied coordinate-wise (steps that hold for every such function)."""


def ground(expr, start: int = 2):
    """``expr`` with every free symbol replaced by a distinct small rational (2, 3, 5/2, ...).

    Used for negative controls: a mutated identity evaluated at one rational point is still rejected by the
    same exact check, and costs far less to simplify than the generic residual.
    """
    syms = sorted(sympy.sympify(expr).free_symbols, key=lambda s: s.name)
    vals = {s: sympy.Rational(start + i, 1 + (i % 2)) for i, s in enumerate(syms)}
    return expr.subs(vals) if hasattr(expr, "subs") else expr


class VectorSpace:
    """An abstract real vector space for dimension-free z3 steps: an uninterpreted sort ``V`` with ``add``,
    scalar multiplication ``sc`` and ``zero``; the vector-space axioms enter only as ground instances at the
    terms a step uses (the kernel refuses quantifiers), so a proved step holds in R^m for every m."""

    def __init__(self, name: str = "V"):
        import z3

        self.sort = z3.DeclareSort(name)
        self.add = z3.Function(f"{name}_add", self.sort, self.sort, self.sort)
        self.sc = z3.Function(f"{name}_sc", z3.RealSort(), self.sort, self.sort)
        self.zero = z3.Const(f"{name}_zero", self.sort)

    def vec(self, name: str):
        import z3

        return z3.Const(name, self.sort)

    def fn(self, name: str):
        """An arbitrary map V -> V (e.g. a = omega^{-1} o rho)."""
        import z3

        return z3.Function(name, self.sort, self.sort)

    def add_zero(self, v):
        """Axiom instance v + 0 = v."""
        return self.add(v, self.zero) == v

    def sc_sc(self, c, d, v):
        """Axiom instance c (d v) = (c d) v."""
        return self.sc(c, self.sc(d, v)) == self.sc(c * d, v)

    def sc_one(self, v):
        """Axiom instance 1 v = v."""
        return self.sc(1, v) == v

    def sc_add(self, c, u, v):
        """Axiom instance c (u + v) = c u + c v."""
        return self.add(self.sc(c, u), self.sc(c, v)) == self.sc(c, self.add(u, v))
