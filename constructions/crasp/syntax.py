"""Text syntax of C-RASP programs: :func:`parse` and :func:`format_program` (see docs/crasp.md); one
expression prints with :func:`constructions.crasp.ast.format_expr`.

A program text is a sequence of lines::

    -- MAJORITY over {a, b}            (comments start with --)
    alphabet: a b
    C_a := #[j <= i] Q_a
    C_b := #[j <= i] Q_b
    M := C_b <= C_a                     (the last definition is the output; it must be Boolean)

Expressions, loosest binding first::

    P ? C1 : C2                         Conditional (right-associative)
    P | R                               Or (sugar: !(!P & !R))
    P & R                               And
    !P                                  Not
    C1 <= C2   (also <, >=, >, =, ==, !=: sugar over <=)
    C1 + C2,  C1 - C2                   Addition, Subtraction (left-associative)
    atoms: 3, -3, true, false, Q_a (Q_ then one symbol character), NAME, ( expr ),
           #[j <= i] P            #[j <= i, i - j in {0, 2}] P      #[j <= i, j = i - 1] P
           exists[j <= i] P       (sugar: 1 <= #[j <= i] P; same relations as #)
           phi[i % 4 in {1, 3}]   phi[i % 2 = 0]    (positions are 1-based)

:func:`format_program` prints only core operations (sugar is expanded by the parser), names every
sub-expression that equals an earlier definition, and is a fixed point: ``format_program(parse(t)) == t``
for every ``t`` that it printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from constructions.crasp.ast import (
    RESERVED_WORDS,
    Add,
    And,
    BoolConst,
    Comparison,
    Conditional,
    Count,
    CountConst,
    Initial,
    LocalRelation,
    Node,
    Not,
    PeriodicRelation,
    Positional,
    Program,
    Sub,
    check_name,
    eq,
    exists,
    format_expr,
    gt,
    lt,
    neq,
)
from constructions.crasp.errors import CraspError, ParseError

__all__ = ["parse", "parse_file", "format_program"]


# ------------------------------------------------------------------------------------------ printing
def format_program(prog: Program, header: bool = False) -> str:
    """The canonical text of ``prog`` (core operations only; see the module docstring)."""
    lines = []
    if header and (prog.name or prog.description):
        if prog.name:
            lines.append(f"-- {prog.name}")
        for d in prog.description.splitlines():
            lines.append(f"-- {d}".rstrip())
    lines.append("alphabet: " + " ".join(prog.alphabet))
    names: dict[Node, str] = {}
    for n, d in prog.defs:
        lines.append(f"{n} := {format_expr(d, names)}")
        names.setdefault(d, n)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------- lexing
@dataclass(frozen=True)
class Tok:
    kind: str  # NAME, INT, SYM (Q_x), OP, END
    text: str
    line: int
    col: int


_OPS = [":=", "<=", ">=", "==", "!=", "<", ">", "=", "+", "-", "!", "&", "|", "?", ":", "(", ")", "[", "]", "{", "}", ",", "#", "%"]
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"[0-9]+")


def _lex_line(text: str, lineno: int) -> list[Tok]:
    toks: list[Tok] = []
    k = 0
    n = len(text)
    while k < n:
        c = text[k]
        if c.isspace():
            k += 1
            continue
        if text.startswith("--", k):
            break
        col = k + 1
        if text.startswith("Q_", k):
            if k + 2 >= n or text[k + 2].isspace():
                raise ParseError("'Q_' must be followed by one alphabet symbol, e.g. Q_a", lineno, col)
            sym = text[k + 2]
            if (sym.isalnum() or sym == "_") and k + 3 < n and (text[k + 3].isalnum() or text[k + 3] == "_"):
                m = _IDENT.match(text, k)
                raise ParseError(f"{m.group(0)!r}: Q_ takes exactly one symbol character; names may not start with 'Q_'", lineno, col)
            toks.append(Tok("SYM", sym, lineno, col))
            k += 3
            continue
        m = _IDENT.match(text, k)
        if m:
            toks.append(Tok("NAME", m.group(0), lineno, col))
            k = m.end()
            continue
        m = _INT.match(text, k)
        if m:
            toks.append(Tok("INT", m.group(0), lineno, col))
            k = m.end()
            continue
        for op in _OPS:
            if text.startswith(op, k):
                toks.append(Tok("OP", op, lineno, col))
                k += len(op)
                break
        else:
            raise ParseError(f"unexpected character {c!r}", lineno, col)
    toks.append(Tok("END", "", lineno, len(text.rstrip()) + 1))
    return toks


# ------------------------------------------------------------------------------------------ parsing
class _Parser:
    def __init__(self, toks: list[Tok], env: dict[str, Node], alphabet: tuple[str, ...] = ()):
        self.toks = toks
        self.k = 0
        self.env = env
        self.alphabet = alphabet

    # token helpers
    @property
    def cur(self) -> Tok:
        return self.toks[self.k]

    def err(self, msg: str, tok: Tok | None = None) -> ParseError:
        t = tok or self.cur
        return ParseError(msg, t.line, t.col)

    def at(self, text: str, kind: str = "OP") -> bool:
        return self.cur.kind == kind and self.cur.text == text

    def take(self, text: str, kind: str = "OP") -> Tok:
        if not self.at(text, kind):
            got = "end of line" if self.cur.kind == "END" else repr(self.cur.text)
            raise self.err(f"expected {text!r}, found {got}")
        t = self.cur
        self.k += 1
        return t

    def take_int(self) -> int:
        neg = False
        if self.at("-"):
            self.k += 1
            neg = True
        if self.cur.kind != "INT":
            raise self.err(f"expected an integer, found {self.cur.text or 'end of line'!r}")
        v = int(self.cur.text)
        self.k += 1
        return -v if neg else v

    def build(self, tok: Tok, fn, *args):
        try:
            return fn(*args)
        except CraspError as e:
            raise self.err(str(e), tok) from None

    # typed wrappers
    def want(self, node: Node, sort: str, tok: Tok, what: str) -> Node:
        if node.sort != sort:
            kind = "Boolean" if sort == "bool" else "Count"
            other = "Count" if sort == "bool" else "Boolean"
            raise self.err(f"{what}: expected a {kind}, got a {other}", tok)
        return node

    # grammar
    def expr(self) -> Node:
        start = self.cur
        c = self.or_()
        if self.at("?"):
            q = self.take("?")
            self.want(c, "bool", start, "Conditional condition")
            t_tok = self.cur
            t = self.want(self.expr(), "count", t_tok, "Conditional branch")
            self.take(":")
            e_tok = self.cur
            e = self.want(self.expr(), "count", e_tok, "Conditional branch")
            return self.build(q, Conditional, c, t, e)
        return c

    def or_(self) -> Node:
        start = self.cur
        left = self.and_()
        while self.at("|"):
            op = self.take("|")
            self.want(left, "bool", start, "Or")
            r_tok = self.cur
            right = self.want(self.and_(), "bool", r_tok, "Or")
            left = self.build(op, lambda a, b: Not(And(Not(a), Not(b))), left, right)
        return left

    def and_(self) -> Node:
        start = self.cur
        left = self.not_()
        while self.at("&"):
            op = self.take("&")
            self.want(left, "bool", start, "And")
            r_tok = self.cur
            right = self.want(self.not_(), "bool", r_tok, "And")
            left = self.build(op, And, left, right)
        return left

    def not_(self) -> Node:
        if self.at("!"):
            op = self.take("!")
            a_tok = self.cur
            arg = self.want(self.not_(), "bool", a_tok, "Not")
            return self.build(op, Not, arg)
        return self.cmp()

    _CMP = {"<=": lambda a, b: Comparison(a, b), ">=": lambda a, b: Comparison(b, a), "<": lt, ">": gt,
            "=": eq, "==": eq, "!=": neq}

    def cmp(self) -> Node:
        start = self.cur
        left = self.sum()
        if self.cur.kind == "OP" and self.cur.text in self._CMP:
            op = self.cur
            self.k += 1
            self.want(left, "count", start, f"Comparison {op.text}")
            r_tok = self.cur
            right = self.want(self.sum(), "count", r_tok, f"Comparison {op.text}")
            return self.build(op, self._CMP[op.text], left, right)
        return left

    def sum(self) -> Node:
        start = self.cur
        left = self.unary()
        while self.at("+") or self.at("-"):
            op = self.cur
            self.k += 1
            what = "Addition" if op.text == "+" else "Subtraction"
            self.want(left, "count", start, what)
            r_tok = self.cur
            right = self.want(self.unary(), "count", r_tok, what)
            left = self.build(op, Add if op.text == "+" else Sub, left, right)
        return left

    def unary(self) -> Node:
        if self.at("-"):
            op = self.take("-")
            if self.cur.kind == "INT":
                v = int(self.cur.text)
                self.k += 1
                return CountConst(-v)
            a_tok = self.cur
            arg = self.want(self.atom(), "count", a_tok, "Negation")
            return self.build(op, Sub, CountConst(0), arg)
        return self.atom()

    def atom(self) -> Node:
        t = self.cur
        if t.kind == "INT":
            self.k += 1
            return CountConst(int(t.text))
        if t.kind == "SYM":
            if self.alphabet and t.text not in self.alphabet:
                raise self.err(f"Q_{t.text} uses a symbol outside the alphabet {' '.join(self.alphabet)!r}", t)
            self.k += 1
            return self.build(t, Initial, t.text)
        if t.kind == "NAME":
            if t.text == "true" or t.text == "false":
                self.k += 1
                return BoolConst(t.text == "true")
            if t.text == "phi":
                return self.positional()
            if t.text == "exists":
                self.k += 1
                rel = self.count_range()
                a_tok = self.cur
                arg = self.want(self.atom(), "bool", a_tok, "exists")
                return self.build(t, exists, arg, rel)
            if t.text in RESERVED_WORDS:
                raise self.err(f"unexpected keyword {t.text!r}")
            if t.text not in self.env:
                raise self.err(f"undefined name {t.text!r} (definitions must come before their use)")
            self.k += 1
            return self.env[t.text]
        if self.at("("):
            self.take("(")
            e = self.expr()
            self.take(")")
            return e
        if self.at("#"):
            self.take("#")
            rel = self.count_range()
            a_tok = self.cur
            arg = self.want(self.atom(), "bool", a_tok, "Counting")
            return self.build(t, Count, arg, rel)
        got = "end of line" if t.kind == "END" else repr(t.text)
        raise self.err(f"expected an expression, found {got}")

    def int_set(self) -> list[int]:
        self.take("{")
        xs: list[int] = []
        if not self.at("}"):
            xs.append(self.take_int())
            while self.at(","):
                self.take(",")
                xs.append(self.take_int())
        self.take("}")
        return xs

    def count_range(self) -> LocalRelation | None:
        """``[j <= i]``, ``[j <= i, i - j in {..}]`` or ``[j <= i, j = i - c]``."""
        self.take("[")
        self.take("j", "NAME")
        self.take("<=")
        self.take("i", "NAME")
        rel = None
        if self.at(","):
            self.take(",")
            r_tok = self.cur
            if self.at("i", "NAME"):
                self.take("i", "NAME")
                self.take("-")
                self.take("j", "NAME")
                self.take("in", "NAME")
                offs = self.int_set()
            elif self.at("j", "NAME"):
                self.take("j", "NAME")
                if self.at("=="):
                    self.take("==")
                else:
                    self.take("=")
                self.take("i", "NAME")
                c = 0
                if self.at("-"):
                    self.take("-")
                    c = self.take_int()
                offs = [c]
            else:
                raise self.err("expected a local relation 'i - j in {...}' or 'j = i - c'")
            rel = self.build(r_tok, LocalRelation, frozenset(offs))
        self.take("]")
        return rel

    def positional(self) -> Node:
        t = self.take("phi", "NAME")
        self.take("[")
        self.take("i", "NAME")
        self.take("%")
        p_tok = self.cur
        period = self.take_int()
        if self.at("in", "NAME"):
            self.take("in", "NAME")
            residues = self.int_set()
        else:
            if self.at("=="):
                self.take("==")
            else:
                self.take("=")
            residues = [self.take_int()]
        self.take("]")
        rel = self.build(p_tok, PeriodicRelation, period, frozenset(residues))
        return self.build(t, Positional, rel)


def parse(text: str, name: str = "", description: str = "") -> Program:
    """Parse a program text; raises :class:`ParseError` (with line and column) on any error."""
    alphabet: tuple[str, ...] | None = None
    env: dict[str, Node] = {}
    defs: list[tuple[str, Node]] = []
    last_line = last_def_line = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        last_line = lineno
        stripped = raw.split("--", 1)[0].strip()
        if not stripped:
            continue
        col0 = len(raw) - len(raw.lstrip()) + 1
        if re.match(r"alphabet\s*:", stripped):
            if alphabet is not None:
                raise ParseError("the alphabet is declared twice", lineno, col0)
            if defs:
                raise ParseError("the alphabet must be declared before the definitions", lineno, col0)
            body = raw.split("--", 1)[0].split(":", 1)[1]
            syms = body.split()
            if not syms:
                raise ParseError("empty alphabet", lineno, col0)
            for s in syms:
                if len(s) != 1:
                    col = raw.index(s, raw.index(":")) + 1
                    raise ParseError(f"alphabet symbol {s!r} is not a single character (separate symbols by spaces)", lineno, col)
            if len(set(syms)) != len(syms):
                raise ParseError(f"alphabet {' '.join(syms)!r} repeats a symbol", lineno, col0)
            alphabet = tuple(syms)
            continue
        toks = _lex_line(raw, lineno)
        if alphabet is None:
            raise ParseError("expected 'alphabet: ...' before the first definition", lineno, col0)
        if toks[0].kind != "NAME" or len(toks) < 2 or not (toks[1].kind == "OP" and toks[1].text == ":="):
            raise ParseError("expected a definition 'NAME := expression'", lineno, toks[0].col)
        nm = toks[0].text
        try:
            check_name(nm)
        except CraspError as e:
            raise ParseError(str(e), lineno, toks[0].col) from None
        if nm in env:
            raise ParseError(f"{nm!r} is defined twice", lineno, toks[0].col)
        p = _Parser(toks, env, alphabet)
        p.k = 2
        node = p.expr()
        if p.cur.kind != "END":
            raise p.err(f"unexpected {p.cur.text!r} after the expression")
        env[nm] = node
        defs.append((nm, node))
        last_def_line = lineno
    if alphabet is None:
        raise ParseError("no 'alphabet: ...' line", max(last_line, 1), 1)
    if not defs:
        raise ParseError("no definitions", max(last_line, 1), 1)
    if defs[-1][1].sort != "bool":
        raise ParseError(f"the output (last definition {defs[-1][0]!r}) must be Boolean, it is a Count", last_def_line, 1)
    return Program(alphabet, tuple(defs), name, description)


def parse_file(path: str) -> Program:
    """Parse a ``.crasp`` file; leading ``--`` comment lines become the description."""
    import os

    with open(path, encoding="utf-8") as f:
        text = f.read()
    desc = []
    for raw in text.splitlines():
        s = raw.strip()
        if s.startswith("--"):
            desc.append(s[2:].strip())
        elif s:
            break
    name = os.path.splitext(os.path.basename(path))[0]
    return parse(text, name=name, description="\n".join(desc))


