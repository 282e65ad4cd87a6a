"""Lemma 37 as an algorithm: eventual behaviour of a C-RASP program on the words ``u a^n``.

Huang et al. Lemma 37 (reference section 3.8): over a unary alphabet, every C-RASP program eventually
accepts all ``a^n`` or eventually rejects all.  The proof is an induction over the operations: every
Boolean is eventually constant, every Count is eventually affine in the position.  :func:`eventual`
executes that induction on the infinite word ``u a a a ...`` (a fixed prefix ``u``; ``u`` empty is the
lemma), returning for every operation a threshold ``T`` and its eventual form, together with its exact
values before ``T``.  Because the value of an operation at position ``i`` depends only on ``w_1..w_i``,
the program accepts ``u a^n`` iff the output at position ``|u| + n`` is true, so acceptance is constant for
``|u| + n >= T``.

Local relations psi are handled too (an extension: a local count of an eventually constant predicate is
eventually constant, with threshold ``+ tau``); Positional phi is rejected, since periodic relations break
the lemma (``(aa)*`` has a C-RASP[periodic] program).

:func:`eventual_acceptance` continues the induction past the block to words ``u a^n v``.
:func:`not_eventually_constant` turns this into a non-expressibility certificate: if membership of
``u a^n v`` in a language is not constant on ``n`` in ``[N, N + period)`` for arbitrarily large ``N`` (checked
for a given periodic pattern), no C-RASP[local] program recognizes the language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from constructions.crasp.ast import (
    Add,
    And,
    BoolConst,
    Comparison,
    Conditional,
    Count,
    CountConst,
    Initial,
    Node,
    Not,
    Positional,
    Program,
    Sub,
)
from constructions.crasp.errors import CraspError

__all__ = ["Eventual", "eventual", "eventual_acceptance", "not_eventually_constant", "NotUnaryApplicableError"]


class NotUnaryApplicableError(CraspError):
    """Lemma 37 does not apply (the program uses a Positional relation)."""


@dataclass(frozen=True)
class Eventual:
    """Values ``head[i-1]`` for positions ``1 <= i < T``; for ``i >= T`` the constant ``b`` (Boolean) or
    the affine ``a * i + b`` (Count)."""

    T: int
    head: tuple
    a: int
    b: int | bool
    sort: str

    def at(self, i: int):
        if i < self.T:
            return self.head[i - 1]
        return self.b if self.sort == "bool" else self.a * i + self.b


def _ceil_div(p: int, q: int) -> int:
    return -((-p) // q)


def rising_from(d, k):
    """Lemma 37's comparison step, slope ``d > 0``: ``d i + k >= 0`` for every integer ``i >= rising_from(d, k)``
    (the least such i).  Only ``//``, unary minus and ``+`` are used, so verify/huang/lemma37.py proves this very
    function correct on z3 integers."""
    return _ceil_div(-k, d)


def falling_from(d, k):
    """Lemma 37's comparison step, slope ``d < 0``: ``d i + k < 0`` for every integer ``i >= falling_from(d, k)``
    (the least such i); proved on z3 integers by verify/huang/lemma37.py."""
    return k // (-d) + 1


def comparison_eventually(d: int, k: int) -> tuple[int, bool]:
    """``(T, v)``: ``[d i + k >= 0] = v`` for every integer ``i >= T`` (Lemma 37's three cases of the slope; ``T = 0``
    when ``d = 0``).  The one home of the threshold for :func:`eventual`, the suffix forms and
    :func:`eventual_periodic`."""
    if d > 0:
        return rising_from(d, k), True
    if d < 0:
        return falling_from(d, k), False
    return 0, k >= 0


def eventual(prog: Program, prefix: str, letter: str) -> dict[Node, Eventual]:
    """Eventual forms of all operations of ``prog`` on ``prefix + letter^infinity`` (see module doc)."""
    if letter not in prog.alphabet:
        raise CraspError(f"letter {letter!r} is not in the alphabet")
    u = len(prefix)
    ev: dict[Node, Eventual] = {}

    def word(i: int) -> str:
        return prefix[i - 1] if i <= u else letter

    for op in prog.operations(all_defs=True):
        if isinstance(op, Positional):
            raise NotUnaryApplicableError("Lemma 37 does not apply: Positional phi(i) is not eventually constant")
        if isinstance(op, Initial):
            T = u + 1
            e = Eventual(T, tuple(word(i) == op.symbol for i in range(1, T)), 0, letter == op.symbol, "bool")
        elif isinstance(op, BoolConst):
            e = Eventual(1, (), 0, op.value, "bool")
        elif isinstance(op, CountConst):
            e = Eventual(1, (), 0, op.value, "count")
        elif isinstance(op, Not):
            c = ev[op.arg]
            e = Eventual(c.T, tuple(not v for v in c.head), 0, not c.b, "bool")
        elif isinstance(op, (And, Add, Sub, Comparison)):
            l, r = ev[op.left], ev[op.right]
            T = max(l.T, r.T)
            if isinstance(op, And):
                e = Eventual(T, tuple(l.at(i) and r.at(i) for i in range(1, T)), 0, l.b and r.b, "bool")
            elif isinstance(op, Add):
                e = Eventual(T, tuple(l.at(i) + r.at(i) for i in range(1, T)), l.a + r.a, l.b + r.b, "count")
            elif isinstance(op, Sub):
                e = Eventual(T, tuple(l.at(i) - r.at(i) for i in range(1, T)), l.a - r.a, l.b - r.b, "count")
            else:
                # l.a i + l.b <= r.a i + r.b  <=>  d i + k >= 0 with d = r.a - l.a, k = r.b - l.b
                start, v = comparison_eventually(r.a - l.a, r.b - l.b)
                T2 = max(T, start, 1)
                e = Eventual(T2, tuple(l.at(i) <= r.at(i) for i in range(1, T2)), 0, v, "bool")
        elif isinstance(op, Conditional):
            c, t, f = ev[op.cond], ev[op.then], ev[op.orelse]
            T = max(c.T, t.T, f.T)
            head = tuple(t.at(i) if c.at(i) else f.at(i) for i in range(1, T))
            br = t if c.b else f
            e = Eventual(T, head, br.a, br.b, "count")
        elif isinstance(op, Count):
            p = ev[op.arg]
            if op.psi is None:
                T = p.T
                head, acc = [], 0
                for i in range(1, T):
                    acc += 1 if p.at(i) else 0
                    head.append(acc)
                v = 1 if p.b else 0
                # C(i) = acc + v * (i - T + 1) for i >= T
                e = Eventual(T, tuple(head), v, acc - v * (T - 1), "count")
            else:
                tau = op.psi.tau
                T = p.T + tau
                head = tuple(sum(1 for c in op.psi.offsets if i - c >= 1 and p.at(i - c)) for i in range(1, T))
                e = Eventual(T, head, 0, len(op.psi.offsets) * (1 if p.b else 0), "count")
        else:  # pragma: no cover
            raise CraspError(f"unknown node {type(op).__name__}")
        ev[op] = e
    return ev


def eventual_acceptance(prog: Program, prefix: str = "", letter: str | None = None, suffix: str = "") -> tuple[int, bool]:
    """``(N0, v)``: for all ``n >= N0``, ``prog`` accepts ``prefix + letter * n + suffix`` iff ``v``.

    With a suffix the induction continues past the unary block: at the block's last position ``m`` every
    Count is affine in ``m`` and every Boolean constant (for ``m`` beyond a threshold); each suffix position
    keeps that shape (Counting adds finitely many suffix terms, local Counting reads finitely many block
    positions whose eventual value is known, comparisons of affine forms are eventually constant).
    """
    letter = letter if letter is not None else prog.alphabet[0]
    ev = eventual(prog, prefix, letter)
    u = len(prefix)
    if not suffix:
        e = ev[prog.output]
        return max(e.T - u, 1 if not prefix else 0), bool(e.b)
    for c in suffix:
        if c not in prog.alphabet:
            raise CraspError(f"suffix symbol {c!r} is not in the alphabet")
    ops = prog.operations(all_defs=True)
    # forms[op][k] for suffix position m + k (k = 1..|v|); k = 0 is the block's last position m.
    # Boolean form: (Tm, value); Count form: (Tm, a, b) meaning a * m + b, valid for m >= Tm.
    forms: dict[Node, list] = {}
    for op in ops:
        e = ev[op]
        f0 = (e.T, bool(e.b)) if e.sort == "bool" else (e.T, e.a, e.b)
        forms[op] = [f0]
    for k in range(1, len(suffix) + 1):
        for op in ops:
            forms[op].append(_suffix_step(op, k, suffix, forms, ev))
    f = forms[prog.output][len(suffix)]
    return max(f[0] - u, 1 if not prefix else 0), bool(f[1])


def _suffix_step(op: Node, k: int, suffix: str, forms: dict, ev: dict):
    F = {ch: forms[ch] for ch in op.children()}
    if isinstance(op, Initial):
        return (0, suffix[k - 1] == op.symbol)
    if isinstance(op, BoolConst):
        return (0, op.value)
    if isinstance(op, CountConst):
        return (0, 0, op.value)
    if isinstance(op, Not):
        T, v = F[op.arg][k]
        return (T, not v)
    if isinstance(op, And):
        (T1, v1), (T2, v2) = F[op.left][k], F[op.right][k]
        return (max(T1, T2), v1 and v2)
    if isinstance(op, (Add, Sub)):
        (T1, a1, b1), (T2, a2, b2) = F[op.left][k], F[op.right][k]
        sign = 1 if isinstance(op, Add) else -1
        return (max(T1, T2), a1 + sign * a2, b1 + sign * b2)
    if isinstance(op, Conditional):
        (Tc, c), t, f = F[op.cond][k], F[op.then][k], F[op.orelse][k]
        br = t if c else f
        return (max(Tc, t[0], f[0]), br[1], br[2])
    if isinstance(op, Comparison):
        (T1, a1, b1), (T2, a2, b2) = F[op.left][k], F[op.right][k]
        T = max(T1, T2)
        start, v = comparison_eventually(a2 - a1, b2 - b1)  # d * m + kk >= 0
        return (max(T, start), v)
    if isinstance(op, Count):
        Tp = max(F[op.arg][t][0] for t in range(0, k + 1))
        if op.psi is None:
            T0, a0, b0 = forms[op][k - 1]
            Tp_k, v = F[op.arg][k]
            return (max(T0, Tp_k), a0, b0 + (1 if v else 0))
        total, T = 0, Tp
        p = ev[op.arg]
        for c in op.psi.offsets:
            if k - c >= 1:
                Tk, v = F[op.arg][k - c]
                T = max(T, Tk)
            else:
                # block position m + (k - c): its eventual value, valid once m + k - c >= p.T
                v = bool(p.b)
                T = max(T, p.T - (k - c))
            total += 1 if v else 0
        return (T, 0, total)
    raise NotUnaryApplicableError(f"Lemma 37 does not apply to {type(op).__name__}")  # pragma: no cover


def not_eventually_constant(member: Callable[[str], bool], prefix: str, letter: str, period: int,
                            start: int, upto: int, suffix: str = "") -> bool:
    """Check that ``n -> member(prefix + letter^n)`` is periodic with ``period`` on ``[start, upto)`` and
    not constant there; with Lemma 37 this certifies that no C-RASP[local] program recognizes the language
    *provided the pattern continues for ever* (true for the modular languages it is used on, by their
    definition; the check here guards against a mistyped oracle or period)."""
    vals = [member(prefix + letter * n + suffix) for n in range(start, upto)]
    periodic = all(vals[k] == vals[k + period] for k in range(len(vals) - period))
    return periodic and len(set(vals)) == 2


# ------------------------------------------------------------------ periodic words: Lemmas 40 + 37 (-> 41)
@dataclass(frozen=True)
class EventualPeriodic:
    """Values ``head[i-1]`` for ``1 <= i < T``; for ``i >= T`` with ``rho = i mod L``, ``q = i // L``: the
    Boolean ``b[rho]`` or the Count ``a[rho] * q + b[rho]``."""

    T: int
    L: int
    head: tuple
    a: tuple
    b: tuple
    sort: str

    def at(self, i: int):
        if i < self.T:
            return self.head[i - 1]
        rho, q = i % self.L, i // self.L
        return self.b[rho] if self.sort == "bool" else self.a[rho] * q + self.b[rho]


def eventual_periodic(prog: Program, prefix: str, block: str) -> dict[Node, EventualPeriodic]:
    """Eventual forms of all operations on ``prefix + block block block ...`` (Lemma 40 + Lemma 37).

    The block length ``L`` must be a multiple of every period of the program's Positional relations; then
    every Boolean is eventually periodic in the position with period ``L`` and every Count is eventually
    ``a[rho] * (i // L) + b[rho]`` in its residue class ``rho = i mod L`` (the block encoding of Lemma 40
    done implicitly, and Lemma 37's induction per residue class).  Local relations are allowed.
    """
    L = len(block)
    if L == 0:
        raise CraspError("eventual_periodic: empty block")
    if L % prog.period:
        raise NotUnaryApplicableError(f"block length {L} is not a multiple of the program's period {prog.period}")
    for c in prefix + block:
        if c not in prog.alphabet:
            raise CraspError(f"symbol {c!r} is not in the alphabet")
    u = len(prefix)

    def sym(i: int) -> str:
        return prefix[i - 1] if i <= u else block[(i - u - 1) % L]

    ev: dict[Node, EventualPeriodic] = {}

    def mk(T, head_fn, a, b, sort):
        return EventualPeriodic(T, L, tuple(head_fn(i) for i in range(1, T)), tuple(a), tuple(b), sort)

    zeros = (0,) * L
    for op in prog.operations(all_defs=True):
        if isinstance(op, Initial):
            T = u + 1
            b = tuple(block[(rho - u - 1) % L] == op.symbol for rho in range(L))
            e = mk(T, lambda i, op=op: sym(i) == op.symbol, zeros, b, "bool")
        elif isinstance(op, Positional):
            e = mk(1, None, zeros, tuple(op.phi(rho) for rho in range(L)), "bool")
        elif isinstance(op, BoolConst):
            e = mk(1, None, zeros, (op.value,) * L, "bool")
        elif isinstance(op, CountConst):
            e = mk(1, None, zeros, (op.value,) * L, "count")
        elif isinstance(op, Not):
            c = ev[op.arg]
            e = mk(c.T, lambda i, c=c: not c.at(i), zeros, tuple(not x for x in c.b), "bool")
        elif isinstance(op, And):
            l, r = ev[op.left], ev[op.right]
            e = mk(max(l.T, r.T), lambda i, l=l, r=r: l.at(i) and r.at(i), zeros,
                   tuple(x and y for x, y in zip(l.b, r.b, strict=True)), "bool")
        elif isinstance(op, (Add, Sub)):
            l, r = ev[op.left], ev[op.right]
            s = 1 if isinstance(op, Add) else -1
            e = mk(max(l.T, r.T), lambda i, l=l, r=r, s=s: l.at(i) + s * r.at(i),
                   tuple(x + s * y for x, y in zip(l.a, r.a, strict=True)),
                   tuple(x + s * y for x, y in zip(l.b, r.b, strict=True)), "count")
        elif isinstance(op, Conditional):
            c, t, f = ev[op.cond], ev[op.then], ev[op.orelse]
            e = mk(max(c.T, t.T, f.T), lambda i, c=c, t=t, f=f: t.at(i) if c.at(i) else f.at(i),
                   tuple(t.a[r] if c.b[r] else f.a[r] for r in range(L)),
                   tuple(t.b[r] if c.b[r] else f.b[r] for r in range(L)), "count")
        elif isinstance(op, Comparison):
            l, r = ev[op.left], ev[op.right]
            T = max(l.T, r.T)
            vals = []
            for rho in range(L):
                qmin, v = comparison_eventually(r.a[rho] - l.a[rho], r.b[rho] - l.b[rho])  # d q + k >= 0
                T = max(T, qmin * L)
                vals.append(v)
            e = mk(max(T, 1), lambda i, l=l, r=r: l.at(i) <= r.at(i), zeros, tuple(vals), "bool")
        elif isinstance(op, Count):
            p = ev[op.arg]
            if op.psi is None:
                T0 = max(L, _ceil_div(p.T, L) * L)  # a multiple of L, >= p.T
                head, acc = [], 0
                for i in range(1, T0):
                    acc += 1 if p.at(i) else 0
                    head.append(acc)
                s = sum(1 for x in p.b if x)
                prefix_counts = [sum(1 for x in p.b[: rho + 1] if x) for rho in range(L)]
                # C(i) = acc + s (i//L - T0//L) + #{rho' <= i mod L : P true}
                b = tuple(acc - s * (T0 // L) + prefix_counts[rho] for rho in range(L))
                e = EventualPeriodic(T0, L, tuple(head), (s,) * L, b, "count")
            else:
                T = p.T + op.psi.tau
                b = tuple(sum(1 for c in op.psi.offsets if p.b[(rho - c) % L]) for rho in range(L))
                e = mk(T, lambda i, p=p, op=op: sum(1 for c in op.psi.offsets if i - c >= 1 and p.at(i - c)),
                       zeros, b, "count")
        else:  # pragma: no cover
            raise CraspError(f"unknown node {type(op).__name__}")
        ev[op] = e
    return ev


def eventual_acceptance_periodic(prog: Program, prefix: str, block: str) -> tuple[int, bool]:
    """``(N0, v)``: for all ``n >= N0``, ``prog`` accepts ``prefix + block * n`` iff ``v`` (Lemma 41's argument)."""
    e = eventual_periodic(prog, prefix, block)[prog.output]
    L, u = len(block), len(prefix)
    n0 = max(0, _ceil_div(e.T - u, L))
    if not prefix:
        n0 = max(n0, 1)
    return n0, bool(e.at(u + n0 * L))


def periodic_certificate(member: Callable[[str], bool], alphabet: str, k_max: int, n_start: int = 12,
                         n_len: int = 36, periods: tuple[int, ...] = (2, 3, 4)) -> dict[int, str] | None:
    """For every block length ``k <= k_max``, a block ``v`` with ``|v| = k`` on which membership of ``v^n``
    is periodic (with one of ``periods``) and not constant for ``n`` in ``[n_start, n_start + n_len)``;
    ``None`` if some ``k`` has none.  With :func:`eventual_periodic` (every C-RASP[periodic,local] program is
    eventually constant on ``v^n`` once ``|v|`` is a multiple of its period) this is the argument of
    Lemma 41: a language with such blocks for *every* ``k`` has no C-RASP[periodic,local] program.  The
    search is a finite check; that the pattern holds for all ``k`` and ``n`` is arithmetic on the language."""
    from itertools import product

    out: dict[int, str] = {}
    for k in range(1, k_max + 1):
        structured = [a * (k - 1) + b for a in alphabet for b in alphabet] + [a * k for a in alphabet]
        candidates = structured + (["".join(t) for t in product(alphabet, repeat=k)] if len(alphabet) ** k <= 4096 else [])
        for v in candidates:
            vals = [member(v * n) for n in range(n_start, n_start + n_len)]
            if len(set(vals)) == 2 and any(all(vals[j] == vals[j + p] for j in range(len(vals) - p)) for p in periods):
                out[k] = v
                break
        else:
            return None
    return out
