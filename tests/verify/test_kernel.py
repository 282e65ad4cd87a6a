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


def test_solver_timeout_is_not_a_proof():
    """A step z3 cannot decide in its time limit (unknown) is not proved; the same formula with a hypothesis
    that makes it decidable is (the control)."""
    a, b, c = z3.Ints("a b c")
    hyps = (a >= 1, b >= 1, c >= 1, a * a * a + b * b * b == c * c * c)
    out = Z3Step("izzo2025:thm4.1", "fermat3", hyps, z3.BoolVal(False), timeout_ms=50, rlimit=1_000_000).discharge()
    assert not out.holds and out.detail.startswith("unknown")
    small = Z3Step("izzo2025:thm4.1", "fermat3-bounded", (*hyps, a <= 2, b <= 2, c <= 2), z3.BoolVal(False))
    assert small.discharge().holds


def test_contradictory_hypotheses_are_refused():
    """assert_universal_proof refuses a step whose hypotheses contradict each other although its control is
    rejected; the same step with consistent hypotheses is accepted (the control)."""
    from verify.kernel import assert_universal_proof, z3_with_control

    vacuous = Proof("izzo2025:thm4.1", "t", (z3_with_control("izzo2025:thm4.1", "s", [x > 0, x < 0], x == 1,
                                                             neg_hypotheses=[x > 0]),))
    with pytest.raises(AssertionError, match="inconsistent hypotheses"):
        assert_universal_proof(vacuous)
    sound = Proof("izzo2025:thm4.1", "t", (z3_with_control("izzo2025:thm4.1", "s", [x > 0, y == 2 * x], y > x,
                                                           neg_goal=y < x),))
    assert assert_universal_proof(sound)


def test_self_check_fails_when_a_guard_is_removed(monkeypatch):
    """The self-check that runs before the first proof of a process notices a kernel that counts an unknown z3
    answer as proved, and one that accepts contradictory hypotheses."""
    import verify.kernel as k

    monkeypatch.setitem(k._SELF_CHECK, "state", "pending")
    k.self_check()  # the real kernel passes
    monkeypatch.setitem(k._SELF_CHECK, "state", "pending")
    monkeypatch.setattr(k.Z3Step, "discharge", lambda self: k.Outcome(True, "always"))
    with pytest.raises(KernelError, match="timed out"):
        k.self_check()
    monkeypatch.undo()
    monkeypatch.setitem(k._SELF_CHECK, "state", "pending")
    real = k.assert_proof
    monkeypatch.setattr(k, "assert_universal_proof", lambda proof, count=None: real(proof))
    with pytest.raises(KernelError, match="contradictory hypotheses was accepted"):
        k.self_check()
    assert k._SELF_CHECK["state"] == "pending"


@pytest.mark.parametrize(("patch", "says"), [
    ("empty", "enumeration over no instance"),
    ("failing", "enumeration that fails on an instance"),
    ("no-control", "without a negative control"),
    ("control-holds", "negative control that holds"),
    ("float", "float in an exact identity"),
    ("quantifier", "quantifier in a z3 step"),
])
def test_self_check_covers_every_step_guard(monkeypatch, patch, says):
    """Each guard of the steps and of assert_proof removed (by patching the kernel as the library mutations of
    verify/registry/mutations_library.py edit it) makes the self-check's step-guard part fail, naming the guard; the
    real kernel passes (control)."""
    import z3

    import verify.kernel as k

    r = z3.Real("r")
    k._check_step_guards(r)
    enum = k.EnumerationStep.discharge
    if patch == "empty":
        monkeypatch.setattr(k.EnumerationStep, "discharge", lambda self: k.Outcome(True, "x") if not list(
            self.instances()) else enum(self))
    elif patch == "failing":
        monkeypatch.setattr(k.EnumerationStep, "discharge", lambda self: k.Outcome(True, "x") if list(
            self.instances()) else enum(self))
    elif patch == "no-control":
        monkeypatch.setattr(k.Proof, "run", lambda self: [k.StepResult(s, s.discharge(), None) for s in self.steps])
    elif patch == "control-holds":
        monkeypatch.setattr(k, "assert_proof", lambda proof: proof.run())
    elif patch == "float":
        monkeypatch.setattr(k, "_has_float", lambda expr: False)
    elif patch == "quantifier":
        monkeypatch.setattr(z3, "is_quantifier", lambda e: False)
    with pytest.raises(KernelError, match=says):
        k._check_step_guards(r)


def _kernel_module(source: str, name: str):
    """A fresh module from a kernel source text (its own self-check state)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look the module up
    try:
        exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    finally:
        del sys.modules[name]
    return mod


def test_self_check_catches_every_declared_kernel_mutation():
    """Every library mutation of verify/kernel.py declared in verify/registry/mutations_library.py (a guard removed
    or weakened, a solver's unknown taken as proved, a contradiction accepted, ...) makes the self-check that runs
    before the first proof of a process fail, so every claim whose checks run a proof catches it.  Control: the
    kernel's own source passes its self-check."""
    from pathlib import Path

    import verify.registry.mutations_library  # noqa: F401  (declares the mutations)
    from verify.mutate import all_mutations

    path = Path(__file__).resolve().parents[2] / "verify" / "kernel.py"
    source = path.read_text()
    _kernel_module(source, "kernel_control").self_check()
    ms = [m for m in all_mutations().values() if m.path == "verify/kernel.py"]
    assert len(ms) >= 14
    for m in ms:
        mod = _kernel_module(m.apply(source), "kernel_" + m.name.replace("-", "_"))
        with pytest.raises(mod.KernelError):
            mod.self_check()
