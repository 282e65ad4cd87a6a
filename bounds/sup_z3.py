"""The supremum of a pair's disagreement over every long input, decided with z3.

Setting: Izzo et al. Theorem 4.1 (one layer, Delta-periodic positions, tau-local translation-invariant phi, the
``izzo`` precision model).  From the hardmax threshold on, a model's last-position output depends on an input of
model length ``n > w = tau + 1`` only through (:mod:`bounds.auxiliary`): the window (the last w classes), the set P
of (token, residue) classes present among the other positions (``$`` always, at residue 0), and their counts
``n_c >= 1``.  For a fixed *pattern* (P, window) every head attends to the argmax entries, which P and the window
fix, so its output is ``(sum_c n_c V y_c + sum_slots V y_s) / (sum_c n_c + #slots)`` (``n_$ = 1``), a ratio of
linear forms in the counts; the MLP's ReLU (``If(z > 0, z, 0)``) or Heaviside (``If(z >= 0, 1, 0)``) units and U
follow.  So ``max_coord |f - g| > t`` on the pattern is a quantifier-free nonlinear real formula, decided by z3
(nlsat).

**The relaxation (stated).**  The counts are real variables ``n_c >= 1`` (integrality dropped); everything else is
as in a real string: the residue sums ``S_r`` (``$`` included) are those of ``M = n - w`` positions, i.e.
``S_r = S_0`` for ``r < k`` and ``S_r = S_0 - 1`` for ``r >= k`` (k > 0), all equal for k = 0, the window's residues
are ``(M + s) mod Delta`` and ``n >= L0``.  Every input of length ``n >= max(L0, H, w + 1)`` is a point of the
relaxation (H: the length from which every sub-maximal softmax term is flushed), so:

* z3 ``unsat`` for t on every pattern: ``sup |f - g| <= t`` over every input of length ``>= max(L0, H, w + 1)``
  (certified, up to the correctness of z3's decision procedure);
* z3 ``sat`` for t: the relaxation's supremum exceeds t; it is not a real input.  A real input is obtained by
  rounding z3's counts to integers with the same pattern (:func:`_realize`) and is evaluated exactly
  (:func:`bounds.auxiliary.hardmax_output`): that value is the certified lower bound reported.

:func:`sup_disagreement` bisects t over exact dyadic rationals between the realized lower bound and
:func:`bounds.true_threshold.certified_sup` (checked to be ``unsat`` first: an encoding that exceeds it is refused).
Every z3 call has a timeout; ``unknown`` stops the bisection and is reported as undetermined, never as a bound.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from bounds.auxiliary import ClassModel, hardmax_output, in_hardmax, pair_period
from bounds.margin import BoundsError, hardmax_threshold
from bounds.true_threshold import certified_sup, configurations, smallest_gap, witness_string

MAX_PATTERNS = 5000  # z3 problems per pair (2^(|Sigma| Delta) |Sigma|^(tau+1) Delta); larger pairs are refused


def count_patterns(sigma: int, delta: int, tau: int) -> int:
    return 2 ** (sigma * delta) * sigma ** (tau + 1) * delta


@dataclass(frozen=True)
class Pattern:
    """Present prefix classes (``$`` excluded), the window's classes, and ``k = M mod Delta`` (M prefix positions)."""

    present: tuple
    window: tuple
    k: int


def patterns(sigma: int, delta: int, tau: int):
    """Every pattern of an input longer than the window (classes c = token id * Delta + residue, tokens 1..sigma)."""
    w = tau + 1
    classes = [t * delta + r for t in range(1, sigma + 1) for r in range(delta)]
    for k in range(delta):
        res = [(k + s) % delta for s in range(w)]
        for toks in itertools.product(range(1, sigma + 1), repeat=w):
            window = tuple(t * delta + r for t, r in zip(toks, res, strict=True))
            for size in range(len(classes) + 1):
                for present in itertools.combinations(classes, size):
                    yield Pattern(present, window, k)


def _q(x) -> object:
    import z3

    x = Fraction(x)
    return z3.RealVal(f"{x.numerator}/{x.denominator}")


def _dot(row, xs):
    terms = [_q(a) * x for a, x in zip(row, xs, strict=True) if a != 0]
    return sum(terms[1:], terms[0]) if terms else _q(0)


def head_entries(cm: ClassModel, pattern: Pattern, head: int) -> list:
    """The argmax entries of one head on the pattern: ("c", class) for a prefix class, ("w", slot) for a window slot."""
    logits, _, phi = cm.heads[head]
    q, w = pattern.window[-1], len(pattern.window)
    entries = [(logits[q, c], ("c", c)) for c in (0, *pattern.present)]
    for s, c in enumerate(pattern.window):
        off = w - 1 - s
        entries.append((logits[q, c] + (phi[off] if off < len(phi) else 0), ("w", s)))
    top = max(a for a, _ in entries)
    return [e for a, e in entries if a == top]


def encode_output(cm: ClassModel, pattern: Pattern, counts: dict, tag: str, heads=None):
    """(constraints, output expressions) of the model's hardmax output on the pattern, counts as z3 terms
    (``counts[0]`` is ``$``'s count 1).  ``heads``: the heads to encode (all by default; a subset only for the
    negative control of the tests)."""
    import z3

    cons = []
    Y = [_q(v) for v in cm.inputs[pattern.window[-1]]]
    for h in range(len(cm.heads)) if heads is None else heads:
        values = cm.heads[h][1]
        att = head_entries(cm, pattern, h)
        weight = [(counts[c] if kind == "c" else _q(1), c if kind == "c" else pattern.window[c]) for kind, c in att]
        den = sum((wt for wt, _ in weight[1:]), weight[0][0])
        for j in range(len(Y)):
            a = z3.Real(f"{tag}_h{h}_a{j}")
            num = [wt * _q(values[c][j]) for wt, c in weight if values[c][j] != 0]
            cons.append(den * a == (sum(num[1:], num[0]) if num else _q(0)))
            Y[j] = Y[j] + a
    mlp = cm.model.layers[0].mlp
    out = list(Y)
    if mlp is not None:
        for i in range(mlp.A.shape[0]):
            pre = _dot(mlp.A[i], Y) + _q(mlp.b[i])
            act = z3.If(pre >= 0, _q(1), _q(0)) if mlp.heaviside_mask[i] else z3.If(pre > 0, pre, _q(0))
            for j in range(len(out)):
                if mlp.B[j, i] != 0:
                    out[j] = out[j] + _q(mlp.B[j, i]) * act
    return cons, [_dot(row, out) for row in cm.model.unembedding]


@dataclass
class PatternProblem:
    """The z3 encoding of one pattern for a pair: count variables, constraints, and both outputs."""

    pattern: Pattern
    variables: dict  # class -> z3 Real
    constraints: list
    outputs: tuple  # (f outputs, g outputs)


def encode_pattern(cms, pattern: Pattern, delta: int, L0: int, heads=None, integer: bool = False) -> PatternProblem:
    """The pattern's constraints (module docstring); ``integer``: integer counts (no relaxation, for witnesses)."""
    import z3

    w = len(pattern.window)
    var = {c: (z3.ToReal(z3.Int(f"k{c}")) if integer else z3.Real(f"n{c}")) for c in pattern.present}
    counts = {0: _q(1), **var}
    cons = [v >= 1 for v in var.values()]
    S = [sum((var[c] for c in pattern.present if c % delta == r), _q(1 if r == 0 else 0)) for r in range(delta)]
    for r in range(1, delta):
        cons.append(S[r] == (S[0] if r < pattern.k or pattern.k == 0 else S[0] - 1))
    cons.append(sum(S[1:], S[0]) + w >= L0)
    outs = []
    for m, cm in enumerate(cms):
        c, o = encode_output(cm, pattern, counts, f"m{m}", heads)
        cons += c
        outs.append(o)
    return PatternProblem(pattern, var, cons, tuple(outs))


def _above(problem: PatternProblem, t: Fraction):
    import z3

    return z3.Or([d > _q(t) for a, b in zip(*problem.outputs, strict=True) for d in (a - b, b - a)])


def _value(v) -> Fraction:
    import z3

    if isinstance(v, z3.RatNumRef):
        return Fraction(v.as_fraction())
    if isinstance(v, z3.IntNumRef):
        return Fraction(v.as_long())
    r = v.approx(20)  # an algebraic number: a rational within 10^-20
    return Fraction(r.as_fraction())


def _realize(problem: PatternProblem, model, delta: int):
    """Integer counts near z3's real counts with the same pattern and residue structure (or None)."""
    p = problem.pattern
    counts = {c: max(1, round(_value(model.eval(v, model_completion=True)))) for c, v in problem.variables.items()}
    S = [sum(n for c, n in counts.items() if c % delta == r) + (1 if r == 0 else 0) for r in range(delta)]
    need = [1 if (r < p.k) else 0 for r in range(delta)] if p.k else [0] * delta
    Q = max(s - e for s, e in zip(S, need, strict=True))
    for r in range(delta):
        deficit = Q + need[r] - S[r]
        if deficit:
            mine = [c for c in counts if c % delta == r]
            if not mine:
                return None
            counts[max(mine, key=counts.__getitem__)] += deficit
    return {0: 1, **counts}


@dataclass
class SupResult:
    """Brackets of sup |f - g| over every input of length >= ``min_length`` (module docstring)."""

    min_length: int
    lower: Fraction  # sup >= lower: an exactly evaluated real input (``witness``) of length >= min_length
    witness: tuple | None  # (class counts with $, window) of that input
    witness_length: int | None
    relaxed_lower: Fraction  # the relaxation's sup > relaxed_lower (z3 sat), or = lower
    upper: Fraction  # sup <= upper (z3 unsat on every pattern), or certified_sup when nothing better was decided
    patterns: int
    calls: int
    seconds: float
    undetermined: list = field(default_factory=list)  # (t, pattern) where z3 answered unknown

    alphabet: tuple = ()
    delta: int = 1

    def witness_text(self, limit: int = 40) -> str:
        """The witness as a string (``$`` left out) when short, else its class counts and window."""
        counts, window = self.witness
        if self.witness_length <= limit:
            return repr(witness_string(counts, window, self.delta, self.alphabet))
        name = {c: f"{self.alphabet[c // self.delta - 1]}@{c % self.delta}" for c in counts if c}
        return ("counts {" + ", ".join(f"{name[c]}: {k}" for c, k in sorted(counts.items()) if c) + "}, window "
                + "".join(self.alphabet[c // self.delta - 1] for c in window))

    @property
    def gap(self) -> Fraction:
        return self.upper - self.lower

    def describe(self) -> str:
        und = f"; z3 unknown at t = {self.undetermined[0][0]} (undetermined beyond)" if self.undetermined else ""
        wit = f", input {self.witness_text()} (length {self.witness_length})" if self.witness is not None else ""
        return (f"sup |f - g| over inputs of length >= {self.min_length}: in [{self.lower}, {self.upper}] "
                f"(gap {self.gap}; relaxation >= {self.relaxed_lower}{wit}); {self.patterns} patterns, "
                f"{self.calls} z3 calls, {self.seconds:.2f} s{und}")


def long_length(f, g, L0: int = 1) -> int:
    """max(L0, w + 1, the pair's hardmax length): from here on every input is covered by the encoding."""
    D = pair_period(f, g)
    n = max(L0, max(f.tau, g.tau) + 2)
    for m in (f, g):
        gap = smallest_gap(ClassModel.of(m, D))
        if gap is not None:
            n = max(n, hardmax_threshold(gap, m.precision_bits))
    return n


def _check(problem: PatternProblem, t: Fraction, timeout_ms: int, logic: str = "QF_NRA"):
    import z3

    s = z3.SolverFor(logic)
    s.set("timeout", timeout_ms)
    s.add(*problem.constraints, _above(problem, t))
    r = s.check()
    return r, (s.model() if r == z3.sat else None)


def sup_disagreement(f, g, L0: int = 1, tol=Fraction(1, 1024), timeout_ms: int = 10_000, max_steps: int = 40,
                     enumerate_to: int = 0, witness_timeout_ms: int = 2_000, heads=None,
                     budget_s: float | None = None) -> SupResult:
    """Bisect t (module docstring) until ``upper - relaxed_lower <= tol``.  The lower bound starts from the exact
    maximum over every input of lengths ``min_length .. enumerate_to`` (:func:`bounds.true_threshold.configurations`)
    and rises with each exactly evaluated witness.  ``budget_s``: wall-clock seconds after which every further z3 call
    counts as unknown (the brackets found so far stand).  ``heads`` is for the negative control only (a wrong encoding
    that drops heads)."""
    import z3

    if f.depth != 1 or g.depth != 1 or f.tau is None or g.tau is None or f.alphabet != g.alphabet:
        raise BoundsError("the z3 supremum needs two one-layer, tau-local models over the same alphabet")
    if "izzo" not in (f.precision, g.precision) or f.precision != g.precision:
        raise BoundsError("the z3 supremum needs the izzo precision model (a hardmax regime)")
    start = time.monotonic()
    D, tau = pair_period(f, g), max(f.tau, g.tau)
    if count_patterns(len(f.alphabet), D, tau) > MAX_PATTERNS:
        raise BoundsError(f"{count_patterns(len(f.alphabet), D, tau)} patterns (|Sigma| = {len(f.alphabet)}, Delta = "
                          f"{D}, tau = {tau}) is above the limit {MAX_PATTERNS} of the z3 supremum")
    n0 = long_length(f, g, L0)
    cms = (ClassModel.of(f, D), ClassModel.of(g, D))
    problems = [encode_pattern(cms, p, D, n0, heads) for p in patterns(len(f.alphabet), D, tau)]
    res = SupResult(n0, Fraction(0), None, None, Fraction(0), certified_sup(f, g), len(problems), 0, 0.0,
                    alphabet=f.alphabet, delta=D)
    unsat_at = [None] * len(problems)  # smallest t known unsat per pattern

    def query(t: Fraction) -> bool | None:
        """True: some pattern exceeds t (bounds raised); False: none does; None: unknown."""
        unknown = False
        for i, prob in enumerate(problems):
            if unsat_at[i] is not None and unsat_at[i] <= t:
                continue
            left = None if budget_s is None else budget_s - (time.monotonic() - start)
            if left is not None and left <= 0:
                res.undetermined.append((t, prob.pattern))
                return None
            r, model = _check(prob, t, timeout_ms if left is None else max(1, min(timeout_ms, int(left * 1000))))
            res.calls += 1
            if r == z3.unsat:
                unsat_at[i] = t
            elif r == z3.sat:
                res.relaxed_lower = max(res.relaxed_lower, t)
                _witness(prob, model)
                return True
            else:
                unknown = True
                res.undetermined.append((t, prob.pattern))
        return None if unknown else False

    def _witness(prob, model):
        """Exactly evaluated inputs near the relaxation's point: z3's counts rounded, and z3 on integer counts."""
        found = [_realize(prob, model, D)]
        integer = encode_pattern(cms, prob.pattern, D, n0, heads, integer=True)
        r, m = _check(integer, res.relaxed_lower, witness_timeout_ms, "QF_NIRA")
        res.calls += 1
        if r == z3.sat:
            found.append({0: 1, **{c: int(_value(m.eval(v, model_completion=True))) for c, v in
                                   integer.variables.items()}})
        for counts in found:
            if counts is not None:
                consider(counts, prob.pattern.window)

    def consider(counts, window):
        n = sum(counts.values()) + len(window)
        if n < n0 or not all(in_hardmax(cm, counts, window) for cm in cms):
            return
        outs = [hardmax_output(cm, counts, window) for cm in cms]
        v = max(abs(a - b) for a, b in zip(*outs, strict=True))
        if res.witness is None or v > res.lower:
            res.lower, res.witness, res.witness_length = v, (dict(counts), window), n
            res.relaxed_lower = max(res.relaxed_lower, v)

    for n in range(n0, enumerate_to + 1):
        for counts, window in configurations(n, len(f.alphabet), D, tau):
            consider(counts, window)

    answer = query(res.upper)
    if answer:
        raise BoundsError(f"z3 finds |f - g| > certified_sup = {res.upper}: the encoding is wrong")
    if answer is None:
        res.seconds = time.monotonic() - start
        return res
    tried, late = set(), 0
    for _ in range(max_steps):
        close = res.upper - res.relaxed_lower <= tol
        if res.upper == res.lower or (close and (res.lower in tried or late >= 2)):
            break
        # the exact lower bound is tried (an attained supremum closes the gap) at the start and up to twice when the
        # bracket is within tol; otherwise bisect
        if (close or not tried) and res.lower not in tried and res.lower >= res.relaxed_lower:
            t = res.lower
            tried.add(t)
            late += close
        else:
            t = _dyadic_mid(res.relaxed_lower, res.upper)
        answer = query(t)
        if answer is None:
            break
        if not answer:
            res.upper = t
    res.seconds = time.monotonic() - start
    return res


def _dyadic_mid(lo: Fraction, hi: Fraction) -> Fraction:
    """A dyadic rational strictly between lo and hi, near the middle (small z3 constants)."""
    k = 0
    while True:
        m = Fraction(round((lo + hi) / 2 * 2**k), 2**k)
        if lo < m < hi:
            return m
        k += 1


def outputs_at(problem: PatternProblem, counts: dict) -> tuple:
    """The encoded outputs of f and g at integer counts (for checking the encoding against exact evaluation)."""
    import z3

    s = z3.Solver()
    subs = [(v, _q(counts[c])) for c, v in problem.variables.items()]
    cons = [z3.substitute(c, *subs) if subs else c for c in problem.constraints]
    s.add(*cons)
    if s.check() != z3.sat:
        return None
    m = s.model()
    return tuple(np.array([_value(m.eval(z3.substitute(o, *subs) if subs else o, model_completion=True))
                           for o in outs], dtype=object) for outs in problem.outputs)


def refine_true_threshold(tt, f, g, timeout_ms: int = 10_000, budget_s: float | None = None):
    """Decide an undetermined :class:`bounds.true_threshold.TrueThreshold` with z3: bracket sup |f - g| over every
    input longer than the enumeration (:func:`sup_disagreement` from ``max_length + 1``, within ``budget_s``
    seconds).  Raises :class:`~bounds.margin.BoundsError` where the z3 supremum does not apply (too many patterns,
    not izzo)."""
    if tt.exact is not None:
        return tt
    res = sup_disagreement(f, g, L0=tt.max_length + 1, timeout_ms=timeout_ms, budget_s=budget_s)
    tt.long_from, tt.long_upper, tt.long_lower = res.min_length, res.upper, res.lower
    if res.witness is not None:
        tt.long_witness = f"{res.witness_text()} (length {res.witness_length})"
    else:
        tt.long_lower = None
    return tt
