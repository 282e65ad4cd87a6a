"""Unit tests of the proof-step kernel: each method accepts a true step and rejects its mutation."""

import pytest
import sympy
import z3

from verify.kernel import (
    CitedLemma,
    EnumerationStep,
    KernelError,
    LinalgStep,
    Proof,
    SympyStep,
    Z3Step,
    assert_proof,
    negated,
)

x, y = z3.Reals("x y")


def _z3_step():
    s = Z3Step("izzo2025:thm4.1", "toy", hypotheses=(x > 0, y == 2 * x), goal=y > x)
    return Z3Step(s.claim, s.name, s.hypotheses, s.goal, negative=negated(s, goal=y < x))


def test_z3_step_proves_and_rejects_mutation():
    s = _z3_step()
    assert s.discharge().holds
    assert not s.negative.discharge().holds


def test_z3_refuses_quantifiers():
    q = Z3Step("izzo2025:thm4.1", "q", goal=z3.ForAll([x], x * x >= 0))
    with pytest.raises(KernelError):
        q.discharge()


def test_sympy_and_linalg_steps():
    a = sympy.Symbol("a")
    s = SympyStep("izzo2025:thm4.1", "sq", lhs=(a + 1) ** 2, rhs=a**2 + 2 * a + 1)
    assert s.discharge().holds
    assert not negated(s, rhs=a**2 + 1).discharge().holds
    with pytest.raises(KernelError):
        SympyStep("izzo2025:thm4.1", "f", lhs=sympy.Float(0.5), rhs=sympy.Rational(1, 2)).discharge()
    m = LinalgStep("izzo2025:thm4.1", "inv", residual=sympy.Matrix([[2, 0], [0, 2]]) * sympy.Matrix([[1, 0], [0, 1]]) / 2
                   - sympy.eye(2))
    assert m.discharge().holds
    assert not negated(m, residual=sympy.eye(2)).discharge().holds


def test_enumeration_rejects_empty_family_and_failures():
    e = EnumerationStep("izzo2025:thm4.1", "even", instances=lambda: range(0, 10, 2), predicate=lambda n: n % 2 == 0)
    assert e.discharge().holds
    assert not negated(e, instances=lambda: range(5)).discharge().holds
    assert not negated(e, instances=lambda: []).discharge().holds


def test_proof_requires_negative_controls_and_runs_them():
    bare = Z3Step("izzo2025:thm4.1", "bare", goal=x == x)
    with pytest.raises(KernelError):
        Proof("izzo2025:thm4.1", "no control", (bare,)).run()
    good = Proof("izzo2025:thm4.1", "ok", (_z3_step(), CitedLemma("izzo2025:thm4.1", "c", statement="s", source="x")))
    assert len(assert_proof(good)) == 2
    s = _z3_step()
    weak = Z3Step(s.claim, s.name, s.hypotheses, s.goal, negative=negated(s, goal=y >= x))  # also true
    with pytest.raises(AssertionError, match="NOT rejected"):
        assert_proof(Proof("izzo2025:thm4.1", "weak control", (weak,)))
