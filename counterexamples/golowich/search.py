"""z3 search for Proposition C.3-style witnesses (and a bounded check of Theorem 4.3 with ``drop='none'``).

The search space ("the bounds"), for given vocabulary size |V|, sparsity k, L_local, L, test length Lbar,
number of key functions m and value functions n:

* ensemble: mu = delta_b and Q^voc = delta_z (point masses; b = 1 and z ranges over V^k \\ {b^k} up to
  relabelling the other tokens), g*(z) = 1, and Q_l^pos an arbitrary rational law on Sets_k([l]) for
  every l in [k, Lbar] (z3 real variables).  Unless ``literal``, Q_l^pos is supported on sets of span
  <= L_local (planted-set locality: the proof of Thm 4.3 uses it, the statement does not assume it).
* keys: scores in {0, -inf} (z3 Booleans).  If ``relative`` is kept a key is a table over
  (shape(S), x_S), otherwise over (S, x_S) for S in Sets_k([Lbar]); if ``locality`` is kept only sets of
  span <= L_local can be active.
* values: g1 : V^k -> {0, 1} (z3 Booleans).

Constraints: every kept assumption on lengths k..Lbar (coverage with eta_l = eta_factor * l, realizability
with delta = 0), the dropped assumption *violated*, hypothesis (key 0, value 0) a training-risk minimiser
(eq. 3; all risks are exact linear expressions in Q, see :func:`_risk_terms`) and its risk at Lbar >= c
(for ``drop='none'``: > 0, so unsat proves that every minimiser has test risk exactly 0 = the Theorem 4.3
bound with delta = 0).  Every model is converted to exact data and re-checked by the exact model
(:func:`counterexamples.golowich.witnesses.recheck_data`), independently of z3.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import z3

from constructions.golowich.model import (
    AttentionClass,
    Ensemble,
    KeyFunction,
    ModelError,
    ValueFunction,
    sets_k,
    shape,
    span,
    training_lengths,
)

DROPS = ("locality", "relative", "realizability", "coverage", "none")


class SearchError(ValueError):
    """Invalid search parameters (reported by the CLI as a one-line usage error)."""


@dataclass(frozen=True)
class Params:
    drop: str
    L: int
    vocab: int = 2
    k: int = 2
    L_local: int | None = None  # default: 2 for a drop, max(1, L // 4) for 'none'
    Lbar: int | None = None  # default 2L
    keys: int = 2  # maximum number of key functions
    values: int = 2  # maximum number of value functions
    c: Fraction = Fraction(1, 4)
    eta_factor: Fraction = Fraction(2)
    literal: bool = False
    minimize: bool = True
    timeout_s: float = 60.0
    min_seconds: float = 3.0  # time budget for shrinking a found witness

    def resolved(self) -> Params:
        if self.drop not in DROPS:
            raise SearchError(f"--drop must be one of {', '.join(DROPS)}, got {self.drop!r}")
        for name in ("L", "vocab", "k", "keys", "values"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise SearchError(f"--{name} must be a positive integer, got {v!r}")
        if self.vocab < 2:
            raise SearchError("--vocab must be >= 2 (with one token every sequence is the same)")
        Lloc = self.L_local if self.L_local is not None else (max(1, self.L // 4) if self.drop == "none" else 2)
        Lbar = self.Lbar if self.Lbar is not None else 2 * self.L
        if Lloc < 1 or Lloc < self.k - 1:
            raise SearchError(f"--L-local must be >= max(1, k - 1) = {max(1, self.k - 1)}, got {Lloc}")
        try:
            training_lengths(self.L, self.k)
        except ModelError as e:
            raise SearchError(f"--L {self.L} too small for k = {self.k}: {e}") from None
        if Lbar <= self.L:
            raise SearchError(f"--Lbar must exceed --L (got Lbar = {Lbar}, L = {self.L})")
        if not (0 < self.c <= 1):
            raise SearchError(f"--c must be in (0, 1], got {self.c}")
        if self.eta_factor <= 0:
            raise SearchError(f"--eta-factor must be positive, got {self.eta_factor}")
        if self.timeout_s <= 0 or self.min_seconds < 0:
            raise SearchError("--timeout must be positive and --min-seconds non-negative")
        return Params(self.drop, self.L, self.vocab, self.k, Lloc, Lbar, self.keys, self.values, Fraction(self.c),
                      Fraction(self.eta_factor), self.literal, self.minimize, self.timeout_s, self.min_seconds)


def planted_choices(vocab: int, k: int) -> list[tuple[int, tuple[int, ...]]]:
    """(background b, planted z) up to relabelling tokens: b = 1, z != (1,...,1), non-1 tokens of z first
    occurring in increasing order; most informative (fewest background tokens) first."""
    out = []
    for z in itertools.product(range(1, vocab + 1), repeat=k):
        if all(t == 1 for t in z):
            continue
        seen = [t for t in dict.fromkeys(z) if t != 1]
        if seen != list(range(2, 2 + len(seen))):
            continue
        out.append((1, z))
    out.sort(key=lambda bz: (sum(t == 1 for t in bz[1]), bz[1]))
    return out


@dataclass
class Encoding:
    """The Boolean layer of the search for one (m, n, b, z): keys, values and the supports of Q_l^pos.

    Probabilities are not in this layer: for each Boolean model, :func:`solve_q` computes every error
    exactly with the exact model and solves the (then linear) problem for the Q_l^pos masses.
    """

    p: Params
    m: int
    n: int
    b: int
    z: tuple[int, ...]
    solver: z3.Solver
    s: dict = field(default_factory=dict)  # (l, S) -> z3 Bool: S in supp Q_l (absent = not allowed)
    a: dict = field(default_factory=dict)  # (j, idx, x) -> z3 Bool: key j is 0 (not -inf) there
    v: dict = field(default_factory=dict)  # (i, x) -> z3 Bool: g1_i(x) = 1 (else 0)
    support_terms: list = field(default_factory=list)
    groups: dict = field(default_factory=dict)  # (l, S*) -> the (key index, x_S) pairs the input contains


def _seq(l, S, b, z):
    x = [b] * l
    for i, t in zip(S, z, strict=True):
        x[i - 1] = t
    return tuple(x)


def _keep(p: Params) -> dict:
    return {d: d != p.drop for d in DROPS[:4]}


def build_encoding(p: Params, m: int, n: int, b: int, z: tuple[int, ...]) -> Encoding:
    """Boolean constraints that every witness must satisfy (necessary conditions, all exact)."""
    k, Lbar, Lloc = p.k, p.Lbar, p.L_local
    keep = _keep(p)
    ctx = z3.Context()  # a fresh context: results do not depend on earlier searches in the process
    solver = z3.Solver(ctx=ctx)
    enc = Encoding(p, m, n, b, z, solver)
    lens = list(range(k, Lbar + 1))
    train = training_lengths(p.L, k)
    xs = list(itertools.product(range(1, p.vocab + 1), repeat=k))

    for l in lens:
        row = []
        for S in sets_k(l, k):
            if not p.literal and span(S) > Lloc:
                continue
            sv = z3.Bool(f"s_{l}_{'_'.join(map(str, S))}", ctx)
            enc.s[(l, S)] = sv
            row.append(sv)
            enc.support_terms.append(z3.If(sv, 1, 0))
        solver.add(z3.Or(row))

    max_span = Lloc if keep["locality"] else Lbar - 1
    for j in range(m):
        if keep["relative"]:
            idxs = {shape(S) for S in sets_k(Lbar, k) if span(S) <= max_span}
        else:
            idxs = {S for S in sets_k(Lbar, k) if span(S) <= max_span}
        for idx in sorted(idxs):
            for x in xs:
                a = z3.Bool(f"a_{j}_{'_'.join(map(str, idx))}_{''.join(map(str, x))}", ctx)
                enc.a[(j, idx, x)] = a
                enc.support_terms.append(z3.If(a, 1, 0))
    for i in range(n):
        for x in xs:
            enc.v[(i, x)] = z3.Bool(f"v_{i}_{''.join(map(str, x))}", ctx)

    def act(j, idx, xS):
        return enc.a.get((j, idx, xS), z3.BoolVal(False, ctx))

    hyps = [(j, i) for j in range(m) for i in range(n)]
    zero = {}
    big = {}  # test inputs on which (0, 0) errs by >= c
    keyable = {idx for (_, idx, _) in enc.a}  # key indices that can be active at all
    for (l, Sstar) in enc.s:
        x = _seq(l, Sstar, b, z)
        groups: dict = {}  # (key index, x_S) -> multiplicity, for the sets a key can score
        by_x: dict = {}  # x_S -> multiplicity over all sets (the footnote-6 average)
        for S in sets_k(l, k):
            xS = tuple(x[i - 1] for i in S)
            by_x[xS] = by_x.get(xS, 0) + 1
            idx = shape(S) if keep["relative"] else S
            if idx in keyable:
                groups[(idx, xS)] = groups.get((idx, xS), 0) + 1
        enc.groups[(l, Sstar)] = list(groups) + [(None, xS) for xS in by_x]
        C = sum(by_x.values())
        for j, i in hyps:
            cnt = z3.Sum([c * z3.If(act(j, idx, xS), 1, 0) for (idx, xS), c in groups.items()] or [z3.IntVal(0, ctx)])
            anybad = z3.Or([z3.And(act(j, idx, xS), z3.Not(enc.v[(i, xS)])) for (idx, xS) in groups]
                           or [z3.BoolVal(False, ctx)])
            allgood = z3.And([enc.v[(i, xS)] for xS in by_x])
            zero[(j, i, l, Sstar)] = z3.If(cnt > 0, z3.Not(anybad), allgood)
            if (j, i) == (0, 0) and l == Lbar and p.drop != "none":
                # error of (0, 0) on this input >= c: cbad >= c * cnt, or (fallback) #bad >= c * C(l, k)
                cbad = z3.Sum([c * z3.If(z3.And(act(j, idx, xS), z3.Not(enc.v[(i, xS)])), 1, 0)
                               for (idx, xS), c in groups.items()] or [z3.IntVal(0, ctx)])
                nbad = z3.Sum([c * z3.If(z3.Not(enc.v[(i, xS)]), 1, 0) for xS, c in by_x.items()])
                cq = p.c
                big[(l, Sstar)] = z3.If(cnt > 0, cq.denominator * cbad >= cq.numerator * cnt,
                                        cq.denominator * nbad >= cq.numerator * C)

    cells = list(enc.s)
    if keep["realizability"]:
        r = {h: z3.Bool(f"r_{h[0]}_{h[1]}", ctx) for h in hyps}
        solver.add(z3.Or(list(r.values())))
        for h in hyps:
            solver.add(z3.Implies(r[h], z3.And([z3.Implies(enc.s[c], zero[(*h, *c)]) for c in cells])))
        # the realizer has training risk 0, so the failing minimiser (0, 0) must have it too
        solver.add(z3.And([z3.Implies(enc.s[c], zero[(0, 0, *c)]) for c in cells if c[0] in train]))
    else:
        for h in hyps:
            solver.add(z3.Or([z3.And(enc.s[c], z3.Not(zero[(*h, *c)])) for c in cells]))
        # (0, 0) can only minimise the training risk if no hypothesis is exact on the training support
        # while (0, 0) is not
        tr = [c for c in cells if c[0] in train]
        hat_err = z3.Or([z3.And(enc.s[c], z3.Not(zero[(0, 0, *c)])) for c in tr])
        for h in hyps[1:]:
            solver.add(z3.Implies(hat_err, z3.Or([z3.And(enc.s[c], z3.Not(zero[(*h, *c)])) for c in tr])))
    # (0, 0) errs somewhere at the test length; for a drop, by >= c (its test risk is an average of these)
    if p.drop == "none":
        solver.add(z3.Or([z3.And(enc.s[c], z3.Not(zero[(0, 0, *c)])) for c in cells if c[0] == Lbar]))
    else:
        solver.add(z3.Or([z3.And(enc.s[c], big[c]) for c in cells if c[0] == Lbar]))

    if keep["coverage"]:
        # finite eta needs supports closed under (i) and (ii); these generate all instances: (i) S -> S - 1 at
        # the same length and S -> S at length l - 1 (if it fits and l - 1 >= max(L_local, k)); (ii) S at l'
        # -> S at l' + 1 (l' >= L_local)
        false = z3.BoolVal(False, ctx)
        lo = max(Lloc, k)
        for (l, S), sv in enc.s.items():
            if l < lo:
                continue
            if S[0] > 1:
                solver.add(z3.Implies(sv, enc.s.get((l, tuple(i - 1 for i in S)), false)))
            if S[-1] <= l - 1 and l - 1 >= lo:
                solver.add(z3.Implies(sv, enc.s.get((l - 1, S), false)))
            if l + 1 <= Lbar:
                solver.add(z3.Implies(sv, enc.s.get((l + 1, S), false)))

    if not keep["locality"]:
        solver.add(z3.Or([a for (j, idx, x), a in enc.a.items() if span(idx) > Lloc] or [z3.BoolVal(False, ctx)]))
    if not keep["relative"]:
        viol = []
        for (j, S, x), a in enc.a.items():
            T = tuple(i + 1 for i in S)
            if T[-1] <= Lbar:
                other = enc.a.get((j, T, x))
                viol.append(a != other if other is not None else a)
        solver.add(z3.Or(viol or [z3.BoolVal(False, ctx)]))
    return enc


def candidate(enc: Encoding, model: z3.ModelRef) -> dict:
    """The Boolean part of a model as witness data (without Q masses)."""
    p = enc.p

    def t(e):
        return z3.is_true(model.eval(e, model_completion=True))

    keys = []
    for j in range(enc.m):
        active = [[list(idx), list(x)] for (jj, idx, x), a in enc.a.items() if jj == j and t(a)]
        keys.append({"name": f"g0_{j}", "kind": "shape" if p.drop != "relative" else "table", "active": active})
    values = [{"name": f"g1_{i}", "table": {"".join(map(str, x)): int(t(v)) for (ii, x), v in enc.v.items() if ii == i}}
              for i in range(enc.n)]
    support = {}
    for (l, S), sv in enc.s.items():
        if t(sv):
            support.setdefault(l, []).append(S)
    z = "".join(map(str, enc.z))
    return {"vocab": p.vocab, "k": p.k, "L": p.L, "Lbar": p.Lbar, "L_local": p.L_local, "drop": p.drop,
            "mu": {str(enc.b): "1"}, "qvoc": {z: "1"}, "gstar": {z: "1"}, "support": support,
            "keys": keys, "values": values, "bad": ["g0_0", "g1_0"], "eta_factor": str(p.eta_factor),
            "c": str(p.c), "literal": p.literal}


def _block(enc: Encoding, model: z3.ModelRef):
    """A clause excluding this Boolean assignment as far as it matters: the supports, and the key/value
    entries read on some input in the support (the errors, hence the linear problem, depend on nothing else)."""

    def t(e):
        return z3.is_true(model.eval(e, model_completion=True))

    lits = []
    seen_a, seen_v = set(), set()
    for cell, sv in enc.s.items():
        on = t(sv)
        lits.append(sv if on else z3.Not(sv))
        if not on:
            continue
        for idx, xS in enc.groups[cell]:
            for j in range(enc.m):
                if idx is not None and (j, idx, xS) in enc.a:
                    seen_a.add((j, idx, xS))
            for i in range(enc.n):
                seen_v.add((i, xS))
    for key in sorted(seen_a):
        a = enc.a[key]
        lits.append(a if t(a) else z3.Not(a))
    for key in sorted(seen_v):
        v = enc.v[key]
        lits.append(v if t(v) else z3.Not(v))
    return z3.Not(z3.And(lits))


class _OutOfTime(Exception):
    """The linear problem could not be decided before the deadline."""


def solve_q(cand: dict, deadline: float | None = None) -> dict | None:
    """Given keys, values and supports, find exact Q_l^pos masses (z3 over linear real arithmetic) such that
    coverage (kept: holds with eta_l = eta_factor*l; dropped: violated), (g0_0, g1_0) minimises the training
    risk and fails at Lbar.  Every error coefficient is computed by the exact model.  None if infeasible."""
    from constructions.golowich.model import h_value

    drop = cand["drop"]
    k, Lbar, Lloc, b = cand["k"], cand["Lbar"], cand["L_local"], int(next(iter(cand["mu"])))
    z = tuple(int(c) for c in next(iter(cand["qvoc"])))
    H = attention_class(cand)
    hyps = [(g0, g1) for g0 in H.keys for g1 in H.values]
    train = training_lengths(cand["L"], k)
    ctx = z3.Context()
    sol = z3.SolverFor("QF_LRA", ctx=ctx)
    q = {}
    for l, sets in cand["support"].items():
        for S in sets:
            q[(l, tuple(S))] = z3.Real(f"q_{l}_{'_'.join(map(str, S))}", ctx)
            sol.add(q[(l, tuple(S))] > 0)
        sol.add(z3.Sum([q[(l, tuple(S))] for S in sets]) == 1)
    err = {}
    for (l, S), _ in q.items():
        x = _seq(l, S, b, z)
        for g0, g1 in hyps:
            err[(g0.name, g1.name, l, S)] = abs(h_value(g0, g1, x, k) - 1)

    def R(h, l):
        return z3.Sum([z3.RealVal(str(err[(h[0].name, h[1].name, l, S)]), ctx) * qq
                       for (ll, S), qq in q.items() if ll == l] or [z3.RealVal(0, ctx)])

    bad = hyps[0]
    rt = [z3.Sum([R(h, l) for l in train]) for h in hyps]
    for r in rt[1:]:
        sol.add(rt[0] <= r)
    c = z3.RealVal(cand["c"], ctx)
    if drop == "none":
        sol.add(R(bad, Lbar) > 0)
    elif drop == "realizability":  # eq. (16): worse than some other hypothesis by c at Lbar
        sol.add(z3.Or([R(bad, Lbar) >= R(h, Lbar) + c for h in hyps[1:]] or [z3.BoolVal(False, ctx)]))
    else:
        sol.add(R(bad, Lbar) >= c)
    cov = []
    eta_f = Fraction(cand["eta_factor"])
    by_len: dict = {}
    for (ll, S), qq in q.items():
        by_len.setdefault(ll, []).append((S, qq))
    false = z3.BoolVal(False, ctx)
    for l in range(max(Lloc, k), Lbar + 1):
        eta = z3.RealVal(str(eta_f * l), ctx)
        for lp in range(max(Lloc, k), l + 1):
            for S, qq in by_len.get(l, []):  # (i)
                for d in range(0, S[0]):
                    T = tuple(i - d for i in S)
                    if T[-1] <= lp:
                        cov.append(qq <= eta * q[(lp, T)] if (lp, T) in q else false)
            for S, qq in by_len.get(lp, []):  # (ii)
                cov.append(qq <= eta * q[(l, S)] if (l, S) in q else false)
    allcov = z3.And(cov) if cov else z3.BoolVal(True, ctx)
    sol.add(allcov if drop != "coverage" else z3.Not(allcov))
    # first try the uniform law on every support (readable witnesses; decided by substitution), then
    # arbitrary masses (linear real arithmetic)
    uni = [(qq, z3.RealVal(str(Fraction(1, len(by_len[ll]))), ctx)) for (ll, _), qq in q.items()]
    if all(z3.is_true(z3.simplify(z3.substitute(a, *uni))) for a in sol.assertions()):
        vals = {qq: v for qq, v in uni}

        def value(qq):
            return vals[qq]
    else:
        left = (deadline - time.monotonic()) if deadline is not None else 60.0
        if left <= 0:
            raise _OutOfTime
        sol.set("timeout", max(1, int(left * 1000)))
        res = sol.check()
        if res == z3.unknown:
            raise _OutOfTime
        if res != z3.sat:
            return None
        model = sol.model()

        def value(qq):
            return model.eval(qq, model_completion=True)
    qpos = {}
    for (l, S), qq in sorted(q.items()):
        qpos.setdefault(str(l), []).append([list(S), str(_frac(value(qq)))])
    out = {kk: vv for kk, vv in cand.items() if kk != "support"}
    out["qpos"] = qpos
    return out


def _frac(val) -> Fraction:
    val = z3.simplify(val)
    if z3.is_rational_value(val):
        return Fraction(val.numerator_as_long(), val.denominator_as_long())
    raise SearchError(f"z3 returned a non-rational value {val}")


def attention_class(w: dict) -> AttentionClass:
    """H^attn(G^key, G^val) from witness data (0/-inf keys, 0/1 values)."""
    keys = []
    for g in w["keys"]:
        act = {(tuple(idx), tuple(x)): Fraction(0) for idx, x in g["active"]}
        keys.append(KeyFunction.from_shapes(g["name"], act) if g["kind"] == "shape"
                    else KeyFunction.from_table(g["name"], act))
    values = [ValueFunction(g["name"], {tuple(int(c) for c in x): Fraction(v) for x, v in g["table"].items()})
              for g in w["values"]]
    return AttentionClass(tuple(keys), tuple(values), w["k"])


def ensemble(w: dict) -> Ensemble:
    """The ensemble of witness data; it is defined on the lengths listed in ``qpos`` only."""
    q = {int(l): {tuple(S): Fraction(pr) for S, pr in lst} for l, lst in w["qpos"].items()}

    def qpos(l):
        if l not in q:
            raise ModelError(f"the witness ensemble is only defined for lengths {min(q)}..{max(q)}, not {l}")
        return q[l]

    def tup(s):
        return tuple(int(c) for c in s)

    return Ensemble(tuple(range(1, w["vocab"] + 1)), w["k"], {int(t): Fraction(pr) for t, pr in w["mu"].items()},
                    {tup(z): Fraction(pr) for z, pr in w["qvoc"].items()},
                    {tup(z): Fraction(y) for z, y in w["gstar"].items()}, qpos, "search witness")


def witness_objects(w: dict):
    """(AttentionClass, Ensemble) from witness data."""
    return attention_class(w), ensemble(w)


def support_size(w: dict) -> int:
    return sum(len(v) for v in w["qpos"].values()) + sum(len(g["active"]) for g in w["keys"])


def format_witness(w: dict) -> str:
    """A readable multi-line rendering of a witness."""
    lines = [f"vocab {list(range(1, w['vocab'] + 1))}, k = {w['k']}, L = {w['L']}, Lbar = {w['Lbar']}, "
             f"L_local = {w['L_local']}, dropped: {w['drop']}",
             f"  mu = delta_{list(w['mu'])[0]},  Q^voc = delta_({','.join(list(w['qvoc'])[0])}),  "
             f"g*({','.join(list(w['gstar'])[0])}) = 1"]
    for g in w["keys"]:
        what = "shape" if g["kind"] == "shape" else "S"
        act = ", ".join(f"{what}={tuple(i)} x={tuple(x)}" for i, x in g["active"]) or "nothing"
        lines.append(f"  key {g['name']}: 0 on [{act}], -inf elsewhere")
    for g in w["values"]:
        lines.append(f"  value {g['name']}: " + ", ".join(f"{x}->{v}" for x, v in sorted(g["table"].items())))
    for l, lst in w["qpos"].items():
        lines.append(f"  Q_{l}: " + ", ".join(f"{tuple(S)}:{pr}" for S, pr in lst))
    lines.append(f"  failing minimiser: h_{{{w['bad'][0]},{w['bad'][1]}}}")
    return "\n".join(lines)


def recheck_data(w: dict) -> dict:
    """Independent exact re-check of a search witness (no z3): returns the report and ``verified``."""
    from constructions.golowich.assumptions import (
        check_coverage,
        check_local,
        check_planted_local,
        check_realizable,
        check_relative,
    )
    from constructions.golowich.model import minimizers, risk

    H, ens = witness_objects(w)
    k, Lbar, Lloc = w["k"], w["Lbar"], w["L_local"]
    vocab = tuple(range(1, w["vocab"] + 1))
    lengths = list(range(k, Lbar + 1))
    eta_f = Fraction(w["eta_factor"])
    v = {
        "locality": check_local(H.keys, vocab, k, Lloc, Lbar),
        "relative": check_relative(H.keys, vocab, k, Lbar),
        "realizability": check_realizable(H, ens, lengths),
        "coverage": check_coverage(ens, Lloc, lengths, lambda l: eta_f * l),
    }
    best, mins, train = minimizers(H, ens, w["L"])
    bad = tuple(w["bad"])
    g0 = next(g for g in H.keys if g.name == bad[0])
    g1 = next(g for g in H.values if g.name == bad[1])
    test = risk(g0, g1, ens, Lbar)
    names = [(a.name, b.name) for a, b in mins]
    kept_ok = all(v[a].holds for a in v if a != w["drop"])
    drop_ok = w["drop"] == "none" or not v[w["drop"]].holds
    pl = check_planted_local(ens, Lloc, lengths)
    threshold = Fraction(w["c"])
    if w["drop"] == "none":
        fails = test > 0
    elif w["drop"] == "realizability":  # eq. (16): worse than another hypothesis of the class by c
        others = [risk(a, b, ens, Lbar) for a in H.keys for b in H.values if (a.name, b.name) != bad]
        fails = any(test >= o + threshold for o in others)
    else:
        fails = test >= threshold
    verified = kept_ok and drop_ok and bad in names and fails and (w["literal"] or pl.holds)
    return {"verified": bool(verified), "verdicts": {a: x.holds for a, x in v.items()},
            "violations": {a: x.witness for a, x in v.items() if not x.holds}, "planted_local": pl.holds,
            "train_risk": train[bad], "min_train_risk": best, "minimizers": names, "test_risk": test,
            "delta": v["realizability"].value, "needed_eta": v["coverage"].value}


def theorem_bound(p: Params, delta: Fraction) -> Fraction:
    """Theorem 4.3's eta_L * eta_Lbar * L * Lbar^2 * delta with the allowed eta_l = eta_factor * l."""
    eta_L, eta_Lbar = p.eta_factor * p.L, p.eta_factor * p.Lbar
    return eta_L * eta_Lbar * p.L * p.Lbar ** 2 * Fraction(delta)


def _solve(enc: Encoding, deadline: float, size_bound: int | None = None):
    """Lazy loop: Boolean model -> exact errors -> Q masses; block the Boolean model when no masses fit.

    Returns (status, witness): status 'sat', 'unsat' or 'unknown' (time out)."""
    s = enc.solver  # no push/pop: incremental mode disables z3's preprocessing and is much slower here
    if size_bound is not None:
        s.add(z3.Sum(enc.support_terms) < size_bound)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "unknown", None
        s.set("timeout", max(1, int(left * 1000)))
        res = s.check()
        if res == z3.unsat:
            return "unsat", None
        if res == z3.unknown:
            return "unknown", None
        model = s.model()
        try:
            w = solve_q(candidate(enc, model), deadline)
        except _OutOfTime:
            return "unknown", None
        if w is not None:
            return "sat", w
        s.add(_block(enc, model))


def search(p: Params, log=None, skip=()) -> dict:
    """Run the search; returns the result object of the CLI (see counterexamples.search).

    ``log(entry)`` is called after every (keys, values, planted) cell; ``skip`` lists cells already done
    (for resuming), as (keys, values, planted-tuple) triples known to be unsat.
    """
    p = p.resolved()
    t0 = time.monotonic()
    c0 = time.process_time()
    deadline = t0 + p.timeout_s
    result = {"found": False, "verified": None, "witness": None, "train_risk": None, "test_risk": None,
              "bound": None, "params": _params_json(p), "searched": [], "seconds": None}
    result["theorem_side_conditions"] = {"L>=4L_local": p.L >= 4 * p.L_local,
                                         "L_local|Lbar-L": (p.Lbar - p.L) % p.L_local == 0}
    # with a single hypothesis the realizer would be the failing minimiser (test risk 0), so m*n >= 2
    pairs = sorted(((m, n) for m in range(1, p.keys + 1) for n in range(1, p.values + 1) if m * n >= 2),
                   key=lambda mn: (mn[0], mn[1]))
    complete = True
    for m, n in pairs:
        for b, z in planted_choices(p.vocab, p.k):
            if (m, n, tuple(z)) in skip:
                continue
            if deadline - time.monotonic() <= 0:
                complete = False
                break
            enc = build_encoding(p, m, n, b, z)
            status, w = _solve(enc, deadline)
            entry = {"keys": m, "values": n, "background": b, "planted": list(z), "result": status}
            result["searched"].append(entry)
            if log:
                log(entry)
            if status == "unknown":
                complete = False
                continue
            if status == "unsat":
                continue
            if p.minimize:
                w = _minimize(enc, w, min(deadline, time.monotonic() + p.min_seconds))
            chk = recheck_data(w)
            result.update(found=True, verified=chk["verified"], witness=w, train_risk=str(chk["train_risk"]),
                          test_risk=str(chk["test_risk"]), check=_json_check(chk))
            result["bound"] = str(theorem_bound(p, chk["delta"])) if p.drop == "none" else str(p.c)
            result["seconds"] = round(time.monotonic() - t0, 3)
            result["cpu_seconds"] = round(time.process_time() - c0, 3)
            return result
    result["complete"] = complete
    if p.drop == "none":
        # unsat everywhere: every training-risk minimiser has test risk exactly 0 (= the bound with delta 0)
        result["bound"] = str(theorem_bound(p, Fraction(0)))
        result["worst_test_risk"] = "0" if complete else None
    result["seconds"] = round(time.monotonic() - t0, 3)
    result["cpu_seconds"] = round(time.process_time() - c0, 3)
    return result


def _minimize(enc: Encoding, w: dict, deadline: float) -> dict:
    """Shrink the support (active key entries + supports of the Q_l) while time allows."""
    best = w
    while time.monotonic() < deadline:
        status, w2 = _solve(enc, deadline, support_size(best))
        if status != "sat":
            break
        best = w2
    return best


def _params_json(p: Params) -> dict:
    return {"drop": p.drop, "L": p.L, "vocab": p.vocab, "k": p.k, "L_local": p.L_local, "Lbar": p.Lbar,
            "keys": p.keys, "values": p.values, "c": str(p.c), "eta_factor": str(p.eta_factor),
            "literal": p.literal}


def _json_check(chk: dict) -> dict:
    def j(x):
        if isinstance(x, Fraction):
            return str(x)
        if isinstance(x, float) and math.isinf(x):
            return "inf"
        if isinstance(x, dict):
            return {str(k): j(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return [j(v) for v in x]
        return x

    return j(chk)
