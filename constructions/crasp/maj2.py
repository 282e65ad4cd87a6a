"""MAJ_2[<, +1, MOD] (Huang et al. Definition 30): two-variable first-order logic over words with the majority
quantifier, as formulas and an exact evaluator.

Formulas are tuples over the variables ``"x"`` and ``"y"`` (positions 1..n of the word):

``("Q", a, v)``           letter predicate Q_a(v): the letter at v is a;
``("<", u, v)``            u < v;                        ``("+1", u, v)``   u = v + 1;
``("mod", v, r, m)``       v = r (mod m);
``("not", f)``, ``("and", f, g)``, ``("or", f, g)``;
``("exists", v, f)``, ``("forall", v, f)``;
``("maj", v, f)``          M v. f: more than half of the positions i <= |w| satisfy f[v := i] (``> |w|/2``).

MAJ_2[<] is the fragment without ``"+1"`` and ``"mod"`` (:func:`fragment`).  A sentence (no free variable) defines
the language of the words that satisfy it (:func:`accepts`).
"""

from __future__ import annotations

VARIABLES = ("x", "y")


class FormulaError(ValueError):
    """A malformed MAJ_2 formula: unknown operator, a variable other than x and y, or a free variable."""


def _pos(env: dict, v: str) -> int:
    if v not in VARIABLES:
        raise FormulaError(f"variable {v!r}: MAJ_2 has only {VARIABLES}")
    if v not in env:
        raise FormulaError(f"variable {v!r} is free here")
    return env[v]


def holds(word: str, f: tuple, env: dict | None = None) -> bool:
    """Whether ``word`` satisfies ``f`` under the assignment ``env`` (variable -> position in 1..len(word))."""
    env = env or {}
    op = f[0]
    if op == "Q":
        return word[_pos(env, f[2]) - 1] == f[1]
    if op == "<":
        return _pos(env, f[1]) < _pos(env, f[2])
    if op == "+1":
        return _pos(env, f[1]) == _pos(env, f[2]) + 1
    if op == "mod":
        return _pos(env, f[1]) % f[3] == f[2] % f[3]
    if op == "not":
        return not holds(word, f[1], env)
    if op == "and":
        return holds(word, f[1], env) and holds(word, f[2], env)
    if op == "or":
        return holds(word, f[1], env) or holds(word, f[2], env)
    if op in ("exists", "forall", "maj"):
        if f[1] not in VARIABLES:
            raise FormulaError(f"variable {f[1]!r}: MAJ_2 has only {VARIABLES}")
        sat = sum(holds(word, f[2], {**env, f[1]: i}) for i in range(1, len(word) + 1))
        return {"exists": sat > 0, "forall": sat == len(word), "maj": 2 * sat > len(word)}[op]
    raise FormulaError(f"unknown operator {op!r}")


def accepts(word: str, sentence: tuple) -> bool:
    return holds(word, sentence, {})


def fragment(f: tuple) -> str:
    """``"MAJ2[<]"`` when f uses neither +1 nor MOD, else ``"MAJ2[<,+1,MOD]"``."""
    def ops(g):
        yield g[0]
        for a in g[1:]:
            if isinstance(a, tuple):
                yield from ops(a)
    return "MAJ2[<]" if not {"+1", "mod"} & set(ops(f)) else "MAJ2[<,+1,MOD]"
