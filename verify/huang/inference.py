"""Theorem 7 / Corollary 18 / Theorem 23 of Huang et al. on the bounded class of
:mod:`constructions.huang.inference`, for every n: the Inference Procedure identifies a target from some n0 on, or
provably never does.

The argument needs no regulariser: U_n holds the members that match f on every input of length <= n/2, and a
member that equals f on every input is in every U_n.  So

* if every member of the class that is not equal to f has a *witness* (an input on which it differs from f) of
  length <= w, then for every n >= n0 = 2 w the set U_n holds only members equal to f, and T_n (whichever
  R-minimiser is chosen) equals f on every input: f is identified from n0 on;
* if no member equals f (every member has a witness), then at every n every T_n differs from f somewhere:
  f is never identified, whatever the training length l(n).

How each member is settled (:func:`analyse`):

``unit[w_a, w_b, w_1, w_phi, w_0]``  accepts a prefix with ``a`` a's and ``b`` b's (``n = a + b``, ``t = n + 1``
    positions with ``$``, ``phi = [n even]``) iff ``w_a a + w_b b + w_1 + w_phi phi t + w_0 t >= 0`` (its uniform
    head writes ``1/t, a/t, b/t``, ``H(0) = 1``; the reading is compared with the model on every word of length
    <= 5, :func:`unit_reading_mismatch`).  For count-based targets (majority, (aa)*, parity, Tomita 5, Tomita 6:
    :data:`COUNT_TARGETS`, each compared with its oracle) z3 decides over all integers ``a, b >= 0`` whether the
    unit equals the target; a counter-model ``(a, b)`` is the witness ``a^a b^b``.  Other targets: search.
``ladder[x, m]``  accepts iff ``min(#x, m)`` is even.  A word ``w1`` with ``f(w1) != [#x(w1) even]`` is a witness
    for every ``m >= #x(w1)`` (proved by z3 for all such m); the finitely many smaller m get their own witnesses.
    For parity and ``x = a``, where no such ``w1`` exists, the family ``a^(m+1)`` is a witness for every m (z3).
``avg[Delta, r]``  value members: witnesses by search; ``avg[Delta, r]`` equals ``modp(Delta, r)`` on every input
    by the App. A.2 construction (izzo2025:app-a2.modp, checked exactly up to length 10^4, not proved).
Members of the other kind (language vs value) never enter U_n.  Every witness found is re-checked with the exact
evaluator (:func:`constructions.limit_transformer.exact_forward`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import z3

from constructions.huang.inference import Candidate, Target, wanted
from constructions.limit_transformer import exact_forward, forward

_UNIT = re.compile(r"^unit\[(-?\d),(-?\d),(-?\d),(-?\d),(-?\d)\]$")
_LADDER = re.compile(r"^ladder\[([ab]),(\d+)\]$")

#: count-based targets as z3 predicates of (a, b) with n = a + b >= 1 (checked against the oracles)
COUNT_TARGETS = {
    "majority": lambda a, b: a >= b,
    "(aa)*": lambda a, b: z3.And(b == 0, (a + b) % 2 == 0),
    "parity (even #a)": lambda a, b: a % 2 == 0,
    "tomita5 (a=0, b=1)": lambda a, b: z3.And(a % 2 == 0, b % 2 == 0),
    "tomita6 (a=0, b=1)": lambda a, b: (a - b) % 3 == 0,
}


class InferenceProofError(RuntimeError):
    """A member of the class could be settled neither as equal to the target nor by a witness."""


def unit_weights(c: Candidate) -> tuple[int, ...] | None:
    m = _UNIT.match(c.name)
    return tuple(int(g) for g in m.groups()) if m else None


def ladder_params(c: Candidate) -> tuple[str, int] | None:
    m = _LADDER.match(c.name)
    return (m.group(1), int(m.group(2))) if m else None


def unit_accepts(weights, a, b):
    """The unit's acceptance on a prefix with a a's and b b's (z3 terms or integers)."""
    wa, wb, w1, wphi, w0 = weights
    n = a + b
    t = n + 1
    phi = z3.If(n % 2 == 0, 1, 0) if isinstance(n, z3.ArithRef) else int(n % 2 == 0)
    return wa * a + wb * b + w1 + wphi * phi * t + w0 * t >= 0


def ladder_accepts(x: str, m: int, word: str) -> bool:
    return min(word.count(x), m) % 2 == 0


def _words(alphabet: str, max_len: int):
    for k in range(1, max_len + 1):
        for t in itertools.product(alphabet, repeat=k):
            yield "".join(t)


def unit_reading_mismatch(c: Candidate, max_len: int = 5) -> str | None:
    """A word on whose some prefix the model's acceptance differs from :func:`unit_accepts` (None: none)."""
    w = unit_weights(c)
    for k in range(1, max_len + 1):
        words = ["".join(t) for t in itertools.product("ab", repeat=k)]
        out = forward(c.model, words)[:, 1:, -1] > 0
        for word, row in zip(words, out, strict=True):
            for i in range(k):
                p = word[:i + 1]
                if bool(row[i]) != unit_accepts(w, p.count("a"), p.count("b")):
                    return word
    return None


def ladder_reading_mismatch(c: Candidate, max_len: int = 6) -> str | None:
    x, m = ladder_params(c)
    for k in range(1, max_len + 1):
        words = ["".join(t) for t in itertools.product("ab", repeat=k)]
        out = forward(c.model, words)[:, 1:, -1] > 0
        for word, row in zip(words, out, strict=True):
            if any(bool(row[i]) != ladder_accepts(x, m, word[:i + 1]) for i in range(k)):
                return word
    return None


def _z3_counter(pred) -> tuple[int, int] | None:
    """Integers a, b >= 0 with a + b >= 1 and pred(a, b) (None when unsat)."""
    a, b = z3.Ints("a b")
    s = z3.Solver()
    s.add(a >= 0, b >= 0, a + b >= 1, pred(a, b))
    if s.check() != z3.sat:
        return None
    mdl = s.model()
    return mdl[a].as_long(), mdl[b].as_long()


def differs_exactly(c: Candidate, t: Target, word: str) -> bool:
    """The exact evaluator shows c and t differ at some prefix of ``word``."""
    out = exact_forward(c.model, word)[1:, -1]
    want = wanted(t, [word])[0]
    if t.kind == "language":
        return any((o > 0) != bool(w) for o, w in zip(out, want, strict=True))
    return any(o != t.f(word[:i + 1]) for i, o in enumerate(out))


@dataclass
class Analysis:
    target: str
    equal: list = field(default_factory=list)       # members equal to f on every input
    equal_by: dict = field(default_factory=dict)    # name -> "z3" or the claim it rests on
    witnesses: dict = field(default_factory=dict)   # name -> word (members of the target's kind)
    ladder_families: dict = field(default_factory=dict)  # x -> ("from m >= c", w1, c, {m: word}) or ("a^(m+1)",)
    other_kind: list = field(default_factory=list)

    def n0(self) -> int | None:
        """Identified at every n >= n0 (None: never identified)."""
        if not self.equal:
            return None
        lens = [len(w) for w in self.witnesses.values()]
        for fam in self.ladder_families.values():
            if fam[0] != "from m >= c":
                return None  # an unbounded witness family: not needed for identification in this class
            lens += [len(fam[1])] + [len(w) for w in fam[3].values()]
        return 2 * max(lens, default=0)


def _search(pred_word, alphabet: str, max_len: int) -> str | None:
    return next((w for w in _words(alphabet, max_len) if pred_word(w)), None)


def _ladder_family(x: str, t: Target, max_len: int) -> tuple:
    f = COUNT_TARGETS.get(t.name)
    if t.name == "parity (even #a)" and x == "a":
        m = z3.Int("m")
        s = z3.Solver()  # for every m >= 1: min(m + 1, m) = m, so the ladder answers [m even] on a^(m+1)
        s.add(m >= 1, (m % 2 == 0) == ((m + 1) % 2 == 0))
        if s.check() != z3.unsat:
            raise InferenceProofError("the a^(m+1) family is not a witness for every m")
        return ("a^(m+1)",)
    if f is not None:  # z3: counts (a, b) where f differs from [#x even], the ladder's answer once m >= #x
        hit = _z3_counter(lambda a_, b_: f(a_, b_) != ((a_ if x == "a" else b_) % 2 == 0))
        w1 = None if hit is None else "a" * hit[0] + "b" * hit[1]
    else:
        w1 = _search(lambda w: bool(t.f(w)) != (w.count(x) % 2 == 0), "ab", max_len)
    if w1 is None:
        raise InferenceProofError(f"no ladder witness family for x = {x} against {t.name}")
    c = w1.count(x)
    small = {}
    for m in range(1, c):
        w = _search(lambda v, m=m: any(bool(t.f(v[:i])) != ladder_accepts(x, m, v[:i]) for i in range(1, len(v) + 1)),
                    "ab", max_len)
        if w is None:
            raise InferenceProofError(f"no witness for ladder[{x},{m}] against {t.name}")
        small[m] = w
    return ("from m >= c", w1, c, small)


def analyse(t: Target, klass: list[Candidate], *, nope_only: bool = False, max_len: int = 8) -> Analysis:
    """Settle every member of the class (of any max_ladder) against ``t`` (module docstring)."""
    res = Analysis(t.name)
    members = [c for c in klass if not nope_only or c.model.is_nope]
    f = COUNT_TARGETS.get(t.name)
    ladder_xs = set()
    for c in members:
        if c.kind != t.kind or tuple(c.model.alphabet) != tuple(t.alphabet):
            res.other_kind.append(c.name)
            continue
        if ladder_params(c) is not None:
            ladder_xs.add(ladder_params(c)[0])
            continue
        w = unit_weights(c)
        if w is not None and f is not None:
            hit = _z3_counter(lambda a, b, w=w: unit_accepts(w, a, b) != f(a, b))
            if hit is None:
                res.equal.append(c.name)
                res.equal_by[c.name] = "z3 over all counts"
                continue
            word = "a" * hit[0] + "b" * hit[1]
        elif t.name.startswith("modp(") and c.name == "avg[" + t.name[5:-1] + "]":
            res.equal.append(c.name)
            res.equal_by[c.name] = "izzo2025:app-a2.modp"
            continue
        else:
            want = (lambda v: bool(t.f(v))) if t.kind == "language" else t.f
            got = ((lambda v, w=w: unit_accepts(w, v.count("a"), v.count("b"))) if w is not None
                   else (lambda v, c=c: exact_forward(c.model, v)[-1, -1]))
            if t.kind == "language" and w is None:
                got = lambda v, c=c: exact_forward(c.model, v)[-1, -1] > 0  # noqa: E731
            word = _search(lambda v, got=got, want=want: got(v) != want(v), t.alphabet, max_len)
        if word is None:
            raise InferenceProofError(f"{c.name} is neither shown equal to {t.name} nor separated up to {max_len}")
        if not differs_exactly(c, t, word):
            raise InferenceProofError(f"{c.name}: the witness {word!r} does not separate it from {t.name} exactly")
        res.witnesses[c.name] = word
    for x in sorted(ladder_xs):
        res.ladder_families[x] = _ladder_family(x, t, max_len)
    return res
