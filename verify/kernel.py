"""Proof-step kernel: a published argument as a list of explicitly instantiated, mechanically discharged steps.

Each step names its claim, its hypotheses instantiated explicitly ("substitute beta = -alpha"), its goal and
its method, and carries a *negative control*: a mutated goal or a dropped hypothesis that the same method
must reject.  Methods:

* :class:`Z3Step`     -- ground, quantifier-free formulas; proved iff ``hypotheses AND NOT goal`` is unsat.
                         Quantifiers are refused (no unbounded forall left to heuristic instantiation).
* :class:`SympyStep`  -- exact identity ``lhs == rhs``: ``simplify(lhs - rhs)`` must be 0; Floats refused.
* :class:`LinalgStep` -- exact linear algebra: a residual matrix (sympy, rational entries) must be zero.
* :class:`EnumerationStep` -- a predicate checked on every instance of an explicit finite family.
* :class:`CitedLemma` -- a step resting on analysis (continuity, density, analyticity, measure zero),
                         recorded with its exact statement and source; never silently assumed, never
                         counted as discharged.

:func:`assert_proof` runs every step and every negative control and fails unless all positives hold and
all negatives are rejected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

REJECTED = "rejected"


class KernelError(ValueError):
    """A step is malformed: quantified z3 formula, float in an exact identity, missing negative control."""


@dataclass(frozen=True)
class Outcome:
    """Result of discharging one step: ``holds`` and a human-readable detail (model, residual, instance)."""

    holds: bool
    detail: str = ""


@dataclass(frozen=True)
class _Step:
    claim: str
    name: str

    method = "abstract"

    def discharge(self) -> Outcome:  # pragma: no cover - abstract
        raise NotImplementedError


def _refuse_quantifiers(expr) -> None:
    import z3

    todo, seen = [expr], set()
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_quantifier(e):
            raise KernelError(f"z3 step contains a quantifier ({e.sexpr()[:60]}...): instantiate it explicitly")
        todo.extend(e.children())


@dataclass(frozen=True)
class Z3Step(_Step):
    """``hypotheses => goal`` over ground quantifier-free z3 terms (unsat of hypotheses AND NOT goal)."""

    hypotheses: tuple = ()
    goal: Any = None
    negative: Z3Step | None = None
    timeout_ms: int = 20000
    rlimit: int | None = None  # z3's deterministic resource limit, a backstop to the time limit (None: none)

    method = "z3"

    def discharge(self) -> Outcome:
        import z3

        if self.goal is None:
            raise KernelError(f"{self.claim}/{self.name}: z3 step without a goal")
        for h in (*self.hypotheses, self.goal):
            _refuse_quantifiers(h)
        s = z3.Solver()
        s.set("timeout", self.timeout_ms)
        if self.rlimit is not None:
            s.set("rlimit", self.rlimit)
        s.add(*self.hypotheses)
        s.add(z3.Not(self.goal))
        r = s.check()
        if r == z3.unsat:
            return Outcome(True, "unsat: hypotheses entail the goal")
        if r == z3.sat:
            return Outcome(False, f"sat: counter-model {s.model()}")
        return Outcome(False, f"unknown ({s.reason_unknown()}): not proved")


def _has_float(expr) -> bool:
    import sympy

    return any(isinstance(a, sympy.Float) for a in sympy.sympify(expr).atoms(sympy.Number))


@dataclass(frozen=True)
class SympyStep(_Step):
    """Exact identity ``lhs == rhs`` over Q (``simplify(lhs - rhs) == 0``)."""

    lhs: Any = None
    rhs: Any = 0
    negative: SympyStep | None = None

    method = "sympy"

    def discharge(self) -> Outcome:
        import sympy

        if _has_float(self.lhs) or _has_float(self.rhs):
            raise KernelError(f"{self.claim}/{self.name}: float in an exact identity; use sympy.Rational")
        residual = sympy.simplify(sympy.sympify(self.lhs) - sympy.sympify(self.rhs))
        if residual == 0:
            return Outcome(True, "residual 0")
        return Outcome(False, f"nonzero residual {residual}")


@dataclass(frozen=True)
class LinalgStep(_Step):
    """Exact linear algebra: ``residual`` (a sympy Matrix, or a callable returning one) must be zero."""

    residual: Any = None
    negative: LinalgStep | None = None

    method = "linalg"

    def discharge(self) -> Outcome:
        import sympy

        m = self.residual() if callable(self.residual) else self.residual
        m = sympy.Matrix(m)
        if any(_has_float(x) for x in m):
            raise KernelError(f"{self.claim}/{self.name}: float entry in an exact residual")
        m = m.applyfunc(sympy.simplify)
        if m.is_zero_matrix:
            return Outcome(True, f"residual {m.shape} is exactly zero")
        return Outcome(False, f"nonzero residual {m.tolist()}")


@dataclass(frozen=True)
class EnumerationStep(_Step):
    """``predicate(instance)`` holds on every instance of an explicit finite family (exact arithmetic)."""

    instances: Callable[[], Iterable] | None = None
    predicate: Callable[[Any], bool] | None = None
    negative: EnumerationStep | None = None

    method = "enumeration"

    def discharge(self) -> Outcome:
        count = 0
        for inst in self.instances():
            count += 1
            if not self.predicate(inst):
                return Outcome(False, f"fails on instance {inst!r}")
        if count == 0:
            return Outcome(False, "empty family: nothing was checked")
        return Outcome(True, f"holds on all {count} instances")


@dataclass(frozen=True)
class CitedLemma(_Step):
    """A step resting on analysis, recorded with its exact statement and source (not discharged)."""

    statement: str = ""
    source: str = ""

    method = "cited"

    def discharge(self) -> Outcome:
        return Outcome(True, f"cited, not discharged: {self.statement} [{self.source}]")


@dataclass(frozen=True)
class StepResult:
    step: _Step
    outcome: Outcome
    negative_outcome: Outcome | None


@dataclass(frozen=True)
class Proof:
    """A published argument: its claim key, a title and the ordered steps."""

    claim: str
    title: str
    steps: tuple = field(default_factory=tuple)

    def run(self) -> list[StepResult]:
        self_check()
        results = []
        for st in self.steps:
            out = st.discharge()
            neg = getattr(st, "negative", None)
            if st.method != "cited" and neg is None:
                raise KernelError(f"{st.claim}/{st.name}: every discharged step needs a negative control")
            if neg is not None and neg.method != st.method:
                raise KernelError(f"{st.claim}/{st.name}: the negative control must use the same method")
            results.append(StepResult(st, out, neg.discharge() if neg is not None else None))
        return results

    @property
    def cited(self) -> list[CitedLemma]:
        return [s for s in self.steps if isinstance(s, CitedLemma)]


def assert_proof(proof: Proof) -> list[StepResult]:
    """Run ``proof``; raise AssertionError unless every step holds and every negative control is rejected."""
    results = proof.run()
    problems = []
    for r in results:
        if not r.outcome.holds:
            problems.append(f"step {r.step.name!r} fails: {r.outcome.detail}")
        if r.negative_outcome is not None and r.negative_outcome.holds:
            problems.append(f"negative control of {r.step.name!r} was NOT rejected: {r.negative_outcome.detail}")
    if problems:
        raise AssertionError(f"{proof.claim} ({proof.title}):\n  " + "\n  ".join(problems))
    return results


def assert_universal_proof(proof: Proof, count: int | None = None) -> list[StepResult]:
    """:func:`assert_proof` for a proof meant to cover every instance: also every discharged step has a control,
    every control is rejected, no z3 step's hypotheses are inconsistent (a vacuous step proves nothing) and, when
    ``count`` is given, the proof has that many steps."""
    import z3

    results = assert_proof(proof)
    if count is not None and len(results) != count:
        raise AssertionError(f"{proof.claim}: {len(results)} steps, expected {count}")
    for r in results:
        if r.step.method == "cited":
            continue
        if r.negative_outcome is None or r.negative_outcome.holds:
            raise AssertionError(f"{proof.claim}/{r.step.name}: no rejected control")
        if r.step.method == "z3":
            solver = z3.Solver()
            solver.add(*r.step.hypotheses)
            if solver.check() != z3.sat:
                raise AssertionError(f"{proof.claim}/{r.step.name}: inconsistent hypotheses")
    return results


_SELF_CHECK = {"state": "pending"}


def self_check() -> None:
    """The kernel's guards, shown to work before the first proof of a process is run (:meth:`Proof.run`), so that
    every check that runs a proof fails when a guard is removed:

    * a z3 answer other than unsat is not a proof: a step z3 cannot decide within its time limit (x^3 + y^3 = z^3
      over the positive integers, 50 ms, and a resource limit of 10^6 should the timer be lost) is not proved;
    * :func:`assert_universal_proof` refuses a step whose hypotheses contradict each other (it would prove any
      goal), even when its negative control is rejected;
    * the step guards (:func:`_check_step_guards`): an enumeration over no instance or failing on one is not
      proved, a discharged step without a negative control is refused, a control that holds fails
      :func:`assert_proof`, a float in an exact identity and a quantifier in a z3 step are refused;
    * the methods' guards (:func:`_check_method_guards`): a z3 counter-model, a nonzero sympy or matrix residual
      is not a proof; a float on the right of an identity or in a residual matrix, a quantifier in a goal or
      nested in a formula, a control of another method and a universal proof short of its steps are refused.

    Raises :class:`KernelError` naming the guard that failed."""
    if _SELF_CHECK["state"] != "pending":
        return  # passed already, or running (the proofs below call run())
    import z3

    _SELF_CHECK["state"] = "running"
    try:
        x, y, z = z3.Ints("x y z")
        # 50 ms, with a resource limit as a backstop: with a 1 ms limit z3's timer can fire before the search starts
        # and be lost, and the search then never ends (about 1 fresh process in 8 hung so)
        hard = Z3Step("kernel:self-check", "undecided", (x >= 1, y >= 1, z >= 1, x * x * x + y * y * y == z * z * z),
                      z3.BoolVal(False), timeout_ms=50, rlimit=1_000_000)
        if hard.discharge().holds:
            raise KernelError("kernel self-check: a z3 step that timed out (unknown) counts as proved")
        r = z3.Real("r")
        vacuous = Proof("kernel:self-check", "contradictory hypotheses", (
            z3_with_control("kernel:self-check", "vacuous", [r > 0, r < 0], r == 1, neg_hypotheses=[r > 0]),))
        try:
            assert_universal_proof(vacuous)
        except AssertionError as exc:
            if "inconsistent hypotheses" not in str(exc):
                raise KernelError(f"kernel self-check: a vacuous step was refused for another reason: {exc}") from exc
        else:
            raise KernelError("kernel self-check: a step with contradictory hypotheses was accepted")
        _check_step_guards(r)
    except BaseException:
        _SELF_CHECK["state"] = "pending"
        raise
    _SELF_CHECK["state"] = "passed"


def _refused(make, what: str) -> None:
    """``make()`` must raise :class:`KernelError` or AssertionError (a refused step or proof), else the guard ``what``
    is missing."""
    try:
        make()
    except (KernelError, AssertionError):
        return
    raise KernelError(f"kernel self-check: {what} was accepted")


def _check_step_guards(r) -> None:
    """The guards of the steps and of :func:`assert_proof`, each on a step that only the guard refuses (the self-check
    of :func:`self_check`): an empty enumeration, an enumeration that fails on an instance, a step without a negative
    control, a negative control that is not rejected, a float in an exact identity, a quantifier in a z3 step."""
    import sympy
    import z3

    c = "kernel:self-check"
    if EnumerationStep(c, "empty", instances=lambda: [], predicate=lambda i: True).discharge().holds:
        raise KernelError("kernel self-check: an enumeration over no instance counts as proved")
    if EnumerationStep(c, "fails", instances=lambda: [0, 1], predicate=lambda i: i == 0).discharge().holds:
        raise KernelError("kernel self-check: an enumeration that fails on an instance counts as proved")
    plain = Z3Step(c, "no control", (r > 1,), r > 0)
    _refused(lambda: Proof(c, "no control", (plain,)).run(), "a discharged step without a negative control")
    kept = replace(plain, negative=replace(plain, name="control that holds"))
    _refused(lambda: assert_proof(Proof(c, "control not rejected", (kept,))), "a negative control that holds")
    x = sympy.Symbol("x")
    _refused(lambda: SympyStep(c, "float", lhs=x * sympy.Float(0.1), rhs=x / 10).discharge(),
             "a float in an exact identity")
    q = z3.ForAll([r], z3.Or(r > 0, r <= 0))
    _refused(lambda: Z3Step(c, "quantifier", (q,), r == r).discharge(), "a quantifier in a z3 step")
    _check_method_guards(c, r, plain, x, q)


def _check_method_guards(c: str, r, plain: Z3Step, x, q) -> None:
    """The rest of the self-check of :func:`self_check`: each method rejects a false step (a z3 counter-model, a
    nonzero sympy residual, a nonzero matrix residual), a float is refused on either side of an identity and in a
    residual matrix, a quantifier in a z3 goal or nested inside a formula, a negative control of another method than
    its step, and a universal proof with fewer steps than its statement needs."""
    import sympy
    import z3

    if Z3Step(c, "counter-model", (r > 0,), r > 1).discharge().holds:
        raise KernelError("kernel self-check: a z3 step with a counter-model counts as proved")
    if SympyStep(c, "false identity", lhs=x + 1, rhs=x).discharge().holds:
        raise KernelError("kernel self-check: a false sympy identity counts as proved")
    if LinalgStep(c, "nonzero", residual=sympy.Matrix([[0, sympy.Rational(1, 3)]])).discharge().holds:
        raise KernelError("kernel self-check: a nonzero residual matrix counts as proved")
    _refused(lambda: SympyStep(c, "float rhs", lhs=x / 10, rhs=x * sympy.Float(0.1)).discharge(),
             "a float on the right-hand side of an exact identity")
    _refused(lambda: LinalgStep(c, "float residual", residual=sympy.Matrix([[0, sympy.Float(0.0)]])).discharge(),
             "a float in an exact residual matrix")
    _refused(lambda: Z3Step(c, "quantified goal", (r > 0,), q).discharge(), "a quantifier in a z3 goal")
    _refused(lambda: Z3Step(c, "nested quantifier", (z3.And(r > 0, z3.Implies(r > 1, q)),), r > 0).discharge(),
             "a quantifier nested inside a z3 formula")
    mixed = replace(plain, negative=SympyStep(c, "control of another method", lhs=x, rhs=x + 1))
    _refused(lambda: Proof(c, "mixed methods", (mixed,)).run(), "a negative control of another method")
    one = replace(plain, negative=replace(plain, name="control", goal=r > 2))
    _refused(lambda: assert_universal_proof(Proof(c, "one step", (one,)), count=2),
             "a universal proof with fewer steps than required")


def z3_max(a, b):
    """``max(a, b)`` as a z3 term (an ``If``), for the hypotheses and goals of :class:`Z3Step`."""
    import z3

    return z3.If(a >= b, a, b)


def z3_min(a, b):
    """``min(a, b)`` as a z3 term (an ``If``)."""
    import z3

    return z3.If(a <= b, a, b)


def negated(step, **changes):
    """A copy of ``step`` with fields replaced (e.g. a mutated goal) and no negative of its own."""
    return replace(step, negative=None, **changes)


_UNSET = object()


def z3_with_control(claim: str, name: str, hypotheses, goal, *, neg_hypotheses: Any = _UNSET,
                    neg_goal: Any = _UNSET, timeout_ms: int = 20000) -> Z3Step:
    """``hypotheses => goal`` by z3 for the claim key ``claim``, with a control that drops or changes hypotheses
    or mutates the goal (at least one must be given)."""
    hyps = tuple(hypotheses)
    base = Z3Step(claim, name, hyps, goal, timeout_ms=timeout_ms)
    if neg_hypotheses is _UNSET and neg_goal is _UNSET:
        raise KernelError(f"{claim}/{name}: give a negative control (neg_hypotheses or neg_goal)")
    neg = replace(base, negative=None,
                  hypotheses=hyps if neg_hypotheses is _UNSET else tuple(neg_hypotheses),
                  goal=goal if neg_goal is _UNSET else neg_goal)
    return replace(base, negative=neg)


def sympy_with_control(claim: str, name: str, lhs, rhs, *, neg_lhs: Any = _UNSET, neg_rhs: Any = _UNSET) -> SympyStep:
    """Exact identity ``lhs == rhs`` for the claim key ``claim``, with a mutated side as control."""
    if neg_lhs is _UNSET and neg_rhs is _UNSET:
        raise KernelError(f"{claim}/{name}: give a negative control (neg_lhs or neg_rhs)")
    base = SympyStep(claim, name, lhs, rhs)
    neg = replace(base, lhs=lhs if neg_lhs is _UNSET else neg_lhs, rhs=rhs if neg_rhs is _UNSET else neg_rhs)
    return replace(base, negative=neg)
