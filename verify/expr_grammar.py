"""The grammar of an activation expression in ``x`` (``--activation "x/(1+exp(-x))"``): text -> sympy.

User text is never handed to ``sympify``, ``eval`` or ``parse_expr``: a tokenizer and a recursive-descent
parser build the sympy expression directly, node by node, from an explicit whitelist::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("+" | "-") unary | power
    power  := atom (("**" | "^") unary)?            (right-associative: 2**3**2 = 2**9)
    atom   := NUMBER | NAME | FUNC "(" expr ("," expr)* ")" | "(" expr ")"
    NUMBER := digits ["." digits] | "." digits      (exact: "0.25" is the rational 1/4, never a float)
    NAME   := "x" | "pi" | "E" | "I"
    FUNC   := a key of FUNCTIONS

The characters are ASCII letters, digits, ``+ - * / ^ ( ) . ,``, spaces and tabs; anything else (quotes,
brackets, ``_``, ``@``, non-ASCII letters) is refused at the position it occurs, as is any name outside
the whitelist (``open``, ``lambda``, ``factorial``, ``__import__``...).  Every limit is checked before the
expression is built, so no evaluation ever starts on an over-large input; each refusal is one line naming
the limit (:class:`ExpressionLimitError`):

* :data:`MAX_TEXT` characters, :data:`MAX_NODES` numbers, names, operators and calls, :data:`MAX_DEPTH`
  levels of nesting (brackets, arguments, signs, exponents), :data:`MAX_CALL_NESTING` functions applied
  inside one another (``exp(exp(exp(exp(x))))`` has 4; the exact Taylor expansion of a deep composition
  is what takes minutes);
* integer literals up to :data:`MAX_INTEGER`, decimals with at most :data:`MAX_DIGITS` digits;
* a power with a rational exponent p/q needs ``|p|, q <= MAX_EXPONENT``, and, when its base is a rational
  number (so sympy computes the power at once), a result of at most :data:`MAX_BITS` bits
  (``9**9**9`` is refused: 9**9 = 387420489 > MAX_EXPONENT).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy

#: the variable of an activation expression (real, so that sympy's positivity assumptions apply)
X = sympy.Symbol("x", real=True)
MAX_TEXT = 400
MAX_NODES = 200
MAX_DEPTH = 24
MAX_CALL_NESTING = 3
MAX_INTEGER = 10**9
MAX_DIGITS = 18
MAX_EXPONENT = 64
MAX_BITS = 4096

#: function name -> (sympy function, least and most number of arguments); sqrt is the power 1/2
FUNCTIONS = {
    "exp": (sympy.exp, 1, 1), "log": (sympy.log, 1, 1), "sqrt": (None, 1, 1),
    "sin": (sympy.sin, 1, 1), "cos": (sympy.cos, 1, 1), "tan": (sympy.tan, 1, 1),
    "sinh": (sympy.sinh, 1, 1), "cosh": (sympy.cosh, 1, 1), "tanh": (sympy.tanh, 1, 1),
    "atan": (sympy.atan, 1, 1), "asinh": (sympy.asinh, 1, 1), "erf": (sympy.erf, 1, 1),
    "erfc": (sympy.erfc, 1, 1), "Abs": (sympy.Abs, 1, 1), "abs": (sympy.Abs, 1, 1),
    "Max": (sympy.Max, 2, 4), "Min": (sympy.Min, 2, 4),
}
#: constant names -> sympy values (x is the variable)
NAMES = {"x": X, "pi": sympy.pi, "E": sympy.E, "I": sympy.I}

_TOKEN = re.compile(r"(?:(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)|(?P<name>[A-Za-z][A-Za-z0-9]*)|(?P<op>\*\*|[-+*/^(),]))")
_BLANK = re.compile(r"[ \t]*")


class ExpressionError(ValueError):
    """The text is not an expression of the grammar (one line, position named)."""


class ExpressionLimitError(ExpressionError):
    """The text exceeds a limit of the grammar (one line, limit named)."""


@dataclass(frozen=True)
class _Token:
    kind: str  # "num", "name", "op", "end"
    text: str
    at: int


def tokens(text: str) -> list[_Token]:
    """The tokens of ``text``; refuses a character outside the grammar and over-long text or token counts."""
    if len(text) > MAX_TEXT:
        raise ExpressionLimitError(f"expression of {len(text)} characters exceeds verify.expr_grammar.MAX_TEXT = "
                                   f"{MAX_TEXT}")
    out, i = [], 0
    while True:
        blank = _BLANK.match(text, i)
        i = blank.end()
        if i == len(text):
            break
        m = _TOKEN.match(text, i)
        if m is None and text[i].isascii() and (text[i].isalnum() or text[i] in "+-*/^().,"):
            raise ExpressionError(f"{text[i:i + 12]!r} at position {i + 1} starts no number, name or operator")
        if m is None or not text[i].isascii():
            raise ExpressionError(f"character {text[i]!r} at position {i + 1} is not part of the grammar (ASCII "
                                  "letters, digits, + - * / ^ ( ) . , spaces and tabs)")
        kind = m.lastgroup
        out.append(_Token(kind, m.group(kind), m.start(kind)))
        i = m.end()
        if len(out) > MAX_NODES:
            raise ExpressionLimitError(f"expression has more than verify.expr_grammar.MAX_NODES = {MAX_NODES} "
                                       "numbers, names and operators")
    out.append(_Token("end", "", len(text)))
    return out


def _number(tok: _Token) -> sympy.Rational:
    whole, _, frac = tok.text.partition(".")
    digits = (whole + frac).lstrip("0")
    if len(digits) > MAX_DIGITS:
        raise ExpressionLimitError(f"number {tok.text} has more than verify.expr_grammar.MAX_DIGITS = {MAX_DIGITS} "
                                   "digits")
    value = sympy.Rational(int(whole or "0") * 10 ** len(frac) + int(frac or "0"), 10 ** len(frac))
    if abs(value) > MAX_INTEGER:
        raise ExpressionLimitError(f"number {tok.text} exceeds verify.expr_grammar.MAX_INTEGER = {MAX_INTEGER}")
    return value


def _bits(r: sympy.Rational) -> int:
    return max(abs(int(r.p)).bit_length(), int(r.q).bit_length())


def _bounded(e: sympy.Expr, at: int) -> sympy.Expr:
    if e.is_Rational and _bits(e) > MAX_BITS:
        raise ExpressionLimitError(f"number built at position {at + 1} has more than verify.expr_grammar.MAX_BITS = "
                                   f"{MAX_BITS} bits")
    return e


def _power(base: sympy.Expr, exponent: sympy.Expr, at: int) -> sympy.Expr:
    if exponent.is_Rational:
        if abs(int(exponent.p)) > MAX_EXPONENT or int(exponent.q) > MAX_EXPONENT:
            raise ExpressionLimitError(f"exponent {exponent} at position {at + 1} exceeds verify.expr_grammar."
                                       f"MAX_EXPONENT = {MAX_EXPONENT} (numerator and denominator)")
        if base.is_Rational and _bits(base) * abs(int(exponent.p)) > MAX_BITS:
            raise ExpressionLimitError(f"power {base}**{exponent} at position {at + 1} would have more than "
                                       f"verify.expr_grammar.MAX_BITS = {MAX_BITS} bits")
    return sympy.Pow(base, exponent)


class _Parser:
    def __init__(self, text: str):
        self.toks = tokens(text)
        self.i = 0
        self.depth = 0
        self.calls = 0

    @property
    def tok(self) -> _Token:
        return self.toks[self.i]

    def _fail(self, what: str):
        t = self.tok
        found = "the end of the text" if t.kind == "end" else repr(t.text)
        raise ExpressionError(f"{what} expected at position {t.at + 1}, found {found}")

    def _take(self, op: str) -> bool:
        if self.tok.kind == "op" and self.tok.text == op:
            self.i += 1
            return True
        return False

    def _enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionLimitError(f"expression nests deeper than verify.expr_grammar.MAX_DEPTH = {MAX_DEPTH} "
                                       f"(at position {self.tok.at + 1})")

    def parse(self) -> sympy.Expr:
        e = self.expr()
        if self.tok.kind != "end":
            self._fail("an operator")
        return e

    def expr(self) -> sympy.Expr:
        e = self.term()
        while self.tok.kind == "op" and self.tok.text in "+-":
            sign, at = self.tok.text, self.tok.at
            self.i += 1
            t = self.term()
            e = _bounded(sympy.Add(e, t if sign == "+" else sympy.Mul(-1, t)), at)
        return e

    def term(self) -> sympy.Expr:
        e = self.unary()
        while self.tok.kind == "op" and self.tok.text in ("*", "/"):
            op, at = self.tok.text, self.tok.at
            self.i += 1
            f = self.unary()
            e = _bounded(sympy.Mul(e, f if op == "*" else _power(f, sympy.Integer(-1), at)), at)
        return e

    def unary(self) -> sympy.Expr:
        if self.tok.kind == "op" and self.tok.text in "+-":
            sign = self.tok.text
            self._enter()
            self.i += 1
            e = self.unary()
            self.depth -= 1
            return e if sign == "+" else sympy.Mul(-1, e)
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        if self.tok.kind == "op" and self.tok.text in ("**", "^"):
            at = self.tok.at
            self._enter()
            self.i += 1
            exponent = self.unary()
            self.depth -= 1
            return _power(base, exponent, at)
        return base

    def atom(self) -> sympy.Expr:
        t = self.tok
        if t.kind == "num":
            self.i += 1
            return _number(t)
        if t.kind == "name":
            self.i += 1
            if t.text in FUNCTIONS:
                return self.call(t)
            if t.text in NAMES:
                return NAMES[t.text]
            raise ExpressionError(f"name {t.text!r} at position {t.at + 1} is not in the grammar: the variable x, "
                                  f"the constants pi, E, I, or a function {', '.join(FUNCTIONS)}")
        if self._take("("):
            self._enter()
            e = self.expr()
            if not self._take(")"):
                self._fail("')'")
            self.depth -= 1
            return e
        self._fail("a number, x, a constant, a function or '('")

    def call(self, name: _Token) -> sympy.Expr:
        func, least, most = FUNCTIONS[name.text]
        if not self._take("("):
            self._fail(f"'(' after the function {name.text}")
        self._enter()
        self.calls += 1
        if self.calls > MAX_CALL_NESTING:
            raise ExpressionLimitError(f"function {name.text} at position {name.at + 1}: more than verify."
                                       f"expr_grammar.MAX_CALL_NESTING = {MAX_CALL_NESTING} functions applied "
                                       "inside one another")
        args = [self.expr()]
        while self._take(","):
            args.append(self.expr())
        if not self._take(")"):
            self._fail("',' or ')'")
        self.calls -= 1
        self.depth -= 1
        if not least <= len(args) <= most:
            count = str(least) if least == most else f"{least} to {most}"
            raise ExpressionError(f"function {name.text} at position {name.at + 1} takes {count} argument(s), "
                                  f"got {len(args)}")
        if name.text == "sqrt":
            return _power(args[0], sympy.Rational(1, 2), name.at)
        return func(*args)


def parse(text: str) -> sympy.Expr:
    """The sympy expression of ``text`` under the grammar of this module (never evaluated as Python)."""
    return _Parser(text).parse()
