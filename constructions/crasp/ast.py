"""Typed, immutable abstract syntax of C-RASP (Huang et al., Definition 8; reference section 3.1).

Positions are **1-based** as in the paper: a word is ``w = w_1 ... w_n`` and every operation denotes a
function of the position ``i in 1..n``.  A program accepts ``w`` iff its output (last) Boolean
definition is true at ``i = n``.  The empty word is outside Definition 8 (reference section 3.1); the
interpreter rejects it with :class:`~constructions.crasp.errors.InputError`.

Two sorts.  Every node is an instance of exactly one of :class:`BoolExpr` or :class:`CountExpr`.

Boolean nodes (:class:`BoolExpr`)
    ``Initial(symbol)``            Q_a(i): ``w_i == symbol``
    ``Not(arg)``                   not arg(i)
    ``And(left, right)``           left(i) and right(i)
    ``BoolConst(value)``           constant (Definition 8 has only True; False is kept as a node too)
    ``Positional(phi)``            phi(i) with ``phi`` a :class:`PeriodicRelation`
    ``Comparison(left, right)``    ``left(i) <= right(i)`` on Counts (integers)

Count nodes (:class:`CountExpr`), values in Z
    ``Count(arg, psi=None)``       ``#[j <= i, psi(i, j)] arg(j)``; ``psi`` is ``None`` (the relation
                                   True) or a :class:`LocalRelation` (a set of offsets ``i - j``)
    ``Conditional(cond, then, orelse)``   ``then(i) if cond(i) else orelse(i)``
    ``Add(left, right)`` / ``Sub(left, right)``
    ``CountConst(value)``          any integer constant (the paper has 1; ``c = 1 + ... + 1``)

Relations
    ``PeriodicRelation(period, residues)``: ``phi(i) = (i mod period) in residues`` for 1-based i.
    ``LocalRelation(offsets)``: ``psi(i, j) = (i - j) in offsets``; offsets are integers in
    ``0..tau`` with ``tau = max(offsets)`` the locality.  Every local translation-invariant relation
    has this form (reference section 3.1).

Everything else (Or, <, =, >=, >, !=, exists, ``c * C``, ``#[j <= i - c]``) is sugar: the helper
functions below build it from the core nodes, so a consumer (the compiler, the interpreters) only ever
sees the eleven node classes above.  Nodes compare and hash structurally (hash cached), so equal
sub-expressions are one operation; :meth:`Program.operations` lists the distinct operations in an
order where every operation comes after its operands (the straight-line program of Definition 8).

Embedded DSL: ``Q("a")``, ``~P``, ``P & R``, ``P | R``, ``count(P)``, ``count(P, offsets={1})``,
``C1 <= C2``, ``C1 < C2``, ``eq(C1, C2)``, ``C1 + C2``, ``C1 - 3``, ``ite(P, C1, C2)``,
``phi(2, {0})``, ``exists(P)``, ``prev(P)``.  Python ints are coerced to :class:`CountConst`; Python
bools to :class:`BoolConst`.  Using a node as a Python truth value (``and``/``or``/``if``) raises
:class:`CraspTypeError`.

Type errors raise :class:`CraspTypeError` (wrong sort), :class:`NotPeriodicError` (a phi that is not
a :class:`PeriodicRelation`) and :class:`NotLocalError` (a psi that is not a :class:`LocalRelation`),
each naming the operation.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields

from constructions.crasp.errors import (
    CraspError,
    CraspTypeError,
    NotLocalError,
    NotPeriodicError,
    ProgramError,
)

__all__ = [
    "PeriodicRelation", "LocalRelation", "Node", "BoolExpr", "CountExpr",
    "Initial", "Not", "And", "BoolConst", "Positional", "Comparison",
    "Count", "Conditional", "Add", "Sub", "CountConst", "Program",
    "Q", "TRUE", "FALSE", "NOT", "AND", "OR", "implies", "leq", "lt", "geq", "gt", "eq", "neq",
    "count", "exists", "ite", "const", "phi", "psi", "prev", "scale", "count_upto_minus",
    "RESERVED_WORDS", "program", "iter_nodes", "check_name", "BOOL_NODES", "COUNT_NODES", "format_expr",
]


# ------------------------------------------------------------------------------------------ relations
@dataclass(frozen=True)
class PeriodicRelation:
    """Periodic unary relation: ``phi(i) = (i mod period) in residues``, i 1-based (period Delta)."""

    period: int
    residues: frozenset[int]

    def __post_init__(self):
        if isinstance(self.period, bool) or not isinstance(self.period, int) or self.period < 1:
            raise NotPeriodicError(f"Positional: period must be an integer >= 1, got {self.period!r}")
        try:
            res = frozenset(int(r) for r in self.residues)
        except (TypeError, ValueError) as e:
            raise NotPeriodicError(f"Positional: residues must be integers, got {self.residues!r}") from e
        bad = sorted(r for r in res if not 0 <= r < self.period)
        if bad:
            raise NotPeriodicError(f"Positional: residue {bad[0]} is not in 0..{self.period - 1} (period {self.period})")
        object.__setattr__(self, "residues", res)

    def __call__(self, i: int) -> bool:
        return (i % self.period) in self.residues

    @classmethod
    def from_function(cls, fn: Callable[[int], bool], period: int, check_up_to: int = 256) -> PeriodicRelation:
        """Tabulate ``fn`` over one period; raise :class:`NotPeriodicError` naming the first ``i <=
        check_up_to`` with ``fn(i) != fn(i + period)``."""
        if isinstance(period, bool) or not isinstance(period, int) or period < 1:
            raise NotPeriodicError(f"Positional: period must be an integer >= 1, got {period!r}")
        for i in range(1, check_up_to + 1):
            if bool(fn(i)) != bool(fn(i + period)):
                raise NotPeriodicError(f"Positional: phi is not periodic with period {period}: phi({i}) != phi({i + period})")
        return cls(period, frozenset(i % period for i in range(1, period + 1) if fn(i)))


@dataclass(frozen=True)
class LocalRelation:
    """Local translation-invariant binary relation ``psi(i, j) = (i - j) in offsets``, offsets in 0..tau."""

    offsets: frozenset[int]

    def __post_init__(self):
        try:
            offs = frozenset(int(c) for c in self.offsets)
        except (TypeError, ValueError) as e:
            raise NotLocalError(f"Counting: psi offsets must be integers, got {self.offsets!r}") from e
        if not offs:
            raise NotLocalError("Counting: psi has no offsets (it is always false); use the constant 0 instead")
        neg = sorted(c for c in offs if c < 0)
        if neg:
            raise NotLocalError(f"Counting: psi offset i - j = {neg[0]} is negative; counting only sees j <= i")
        object.__setattr__(self, "offsets", offs)

    @property
    def tau(self) -> int:
        """The locality: psi(i, j) implies 0 <= i - j <= tau."""
        return max(self.offsets)

    def __call__(self, i: int, j: int) -> bool:
        return (i - j) in self.offsets

    @classmethod
    def from_function(cls, fn: Callable[[int, int], bool], tau: int, check_up_to: int = 64) -> LocalRelation:
        """Tabulate ``fn`` as offsets in 0..tau; raise :class:`NotLocalError` if, for some ``1 <= j <= i
        <= check_up_to``, ``fn`` is not a function of ``i - j`` or is true at distance ``> tau``."""
        if isinstance(tau, bool) or not isinstance(tau, int) or tau < 0:
            raise NotLocalError(f"Counting: locality tau must be an integer >= 0, got {tau!r}")
        table: dict[int, bool] = {}
        for i in range(1, check_up_to + 1):
            for j in range(1, i + 1):
                v = bool(fn(i, j))
                if i - j > tau and v:
                    raise NotLocalError(f"Counting: psi is not {tau}-local: psi({i}, {j}) is true at distance {i - j}")
                if table.setdefault(i - j, v) != v:
                    raise NotLocalError(f"Counting: psi is not translation-invariant: psi({i}, {j}) differs from another pair at offset {i - j}")
        return cls(frozenset(c for c, v in table.items() if v and c <= tau))


# -------------------------------------------------------------------------------------------- nodes
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields_of(cls) -> tuple[str, ...]:
    f = _FIELDS.get(cls)
    if f is None:
        f = _FIELDS[cls] = tuple(x.name for x in fields(cls) if not x.name.startswith("_"))
    return f


class Node:
    """Base of all C-RASP expressions (immutable; structural equality and cached hash)."""

    sort: str = ""  # "bool" or "count"
    op: str = ""  # the name of the Definition 8 operation (used in error messages)

    def field_values(self) -> tuple:
        return tuple(getattr(self, f) for f in _fields_of(type(self)))

    def children(self) -> tuple[Node, ...]:
        """The operand nodes, in field order."""
        return tuple(v for v in self.field_values() if isinstance(v, Node))

    def __hash__(self) -> int:
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((type(self).__name__, *self.field_values()))
            object.__setattr__(self, "_hash", h)
        return h

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if type(self) is not type(other) or hash(self) != hash(other):
            return False
        return self.field_values() == other.field_values()

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __bool__(self):
        raise CraspTypeError(
            f"{self.op}: a C-RASP expression has no Python truth value; use ~, &, | (not 'not', 'and', 'or') "
            "and eq(...) instead of =="
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {format_expr(self)}>"


class BoolExpr(Node):
    """A Boolean-valued operation."""

    sort = "bool"

    def __invert__(self) -> BoolExpr:
        return Not(self)

    def __and__(self, other) -> BoolExpr:
        return And(self, _as_bool(other, "And"))

    def __rand__(self, other) -> BoolExpr:
        return And(_as_bool(other, "And"), self)

    def __or__(self, other) -> BoolExpr:
        return OR(self, other)

    def __ror__(self, other) -> BoolExpr:
        return OR(other, self)


class CountExpr(Node):
    """A Count-valued (integer) operation."""

    sort = "count"

    def __add__(self, other) -> CountExpr:
        return Add(self, _as_count(other, "Addition"))

    def __radd__(self, other) -> CountExpr:
        return Add(_as_count(other, "Addition"), self)

    def __sub__(self, other) -> CountExpr:
        return Sub(self, _as_count(other, "Subtraction"))

    def __rsub__(self, other) -> CountExpr:
        return Sub(_as_count(other, "Subtraction"), self)

    def __neg__(self) -> CountExpr:
        return Sub(CountConst(0), self)

    def __le__(self, other) -> BoolExpr:
        return Comparison(self, _as_count(other, "Comparison"))

    def __ge__(self, other) -> BoolExpr:
        return Comparison(_as_count(other, "Comparison"), self)

    def __lt__(self, other) -> BoolExpr:
        return lt(self, other)

    def __gt__(self, other) -> BoolExpr:
        return gt(self, other)


def _as_bool(x, op: str) -> BoolExpr:
    if isinstance(x, BoolExpr):
        return x
    if isinstance(x, bool):
        return BoolConst(x)
    if isinstance(x, CountExpr):
        raise CraspTypeError(f"{op}: expected a Boolean operand, got a Count ({x!r})")
    raise CraspTypeError(f"{op}: expected a Boolean operand, got {type(x).__name__} {x!r}")


def _as_count(x, op: str) -> CountExpr:
    if isinstance(x, CountExpr):
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        return CountConst(x)
    if isinstance(x, BoolExpr):
        raise CraspTypeError(f"{op}: expected a Count operand, got a Boolean ({x!r})")
    raise CraspTypeError(f"{op}: expected a Count operand, got {type(x).__name__} {x!r}")


# Boolean operations ---------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False, repr=False)
class Initial(BoolExpr):
    """Q_a(i): the symbol at position i is ``symbol``."""

    symbol: str
    op = "Initial"

    def __post_init__(self):
        if not isinstance(self.symbol, str) or len(self.symbol) != 1 or self.symbol.isspace():
            raise CraspTypeError(f"Initial: a symbol is one non-space character, got {self.symbol!r}")
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class Not(BoolExpr):
    """Negation."""

    arg: BoolExpr
    op = "Not"

    def __post_init__(self):
        object.__setattr__(self, "arg", _as_bool(self.arg, "Not"))
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class And(BoolExpr):
    """Conjunction."""

    left: BoolExpr
    right: BoolExpr
    op = "And"

    def __post_init__(self):
        object.__setattr__(self, "left", _as_bool(self.left, "And"))
        object.__setattr__(self, "right", _as_bool(self.right, "And"))
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class BoolConst(BoolExpr):
    """Boolean constant (Definition 8's ``P(i) := T``; ``False`` is allowed as a node for convenience)."""

    value: bool
    op = "Constant"

    def __post_init__(self):
        if not isinstance(self.value, bool):
            raise CraspTypeError(f"Constant: a Boolean constant is True or False, got {self.value!r}")
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class Positional(BoolExpr):
    """phi(i) for a periodic unary relation phi."""

    phi: PeriodicRelation
    op = "Positional"

    def __post_init__(self):
        if not isinstance(self.phi, PeriodicRelation):
            raise NotPeriodicError(
                f"Positional: phi must be a PeriodicRelation (period, residues); got {type(self.phi).__name__}. "
                "C-RASP[periodic,local] admits only periodic unary relations (use PeriodicRelation.from_function)"
            )
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class Comparison(BoolExpr):
    """``left(i) <= right(i)`` (integer comparison of two Counts)."""

    left: CountExpr
    right: CountExpr
    op = "Comparison"

    def __post_init__(self):
        object.__setattr__(self, "left", _as_count(self.left, "Comparison"))
        object.__setattr__(self, "right", _as_count(self.right, "Comparison"))


# Count operations -----------------------------------------------------------------------------------
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class Count(CountExpr):
    """``#[j <= i, psi(i, j)] arg(j)``; ``psi=None`` is the always-true relation."""

    arg: BoolExpr
    psi: LocalRelation | None = None
    op = "Counting"

    def __post_init__(self):
        object.__setattr__(self, "arg", _as_bool(self.arg, "Counting"))
        if self.psi is not None and not isinstance(self.psi, LocalRelation):
            raise NotLocalError(
                f"Counting: psi must be None or a LocalRelation (a finite set of offsets i - j); got "
                f"{type(self.psi).__name__}. C-RASP[periodic,local] admits only local translation-invariant psi "
                "(use LocalRelation.from_function)"
            )
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class Conditional(CountExpr):
    """``cond(i) ? then(i) : orelse(i)``."""

    cond: BoolExpr
    then: CountExpr
    orelse: CountExpr
    op = "Conditional"

    def __post_init__(self):
        object.__setattr__(self, "cond", _as_bool(self.cond, "Conditional"))
        object.__setattr__(self, "then", _as_count(self.then, "Conditional"))
        object.__setattr__(self, "orelse", _as_count(self.orelse, "Conditional"))
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class Add(CountExpr):
    """``left(i) + right(i)``."""

    left: CountExpr
    right: CountExpr
    op = "Addition"

    def __post_init__(self):
        object.__setattr__(self, "left", _as_count(self.left, "Addition"))
        object.__setattr__(self, "right", _as_count(self.right, "Addition"))
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class Sub(CountExpr):
    """``left(i) - right(i)``."""

    left: CountExpr
    right: CountExpr
    op = "Subtraction"

    def __post_init__(self):
        object.__setattr__(self, "left", _as_count(self.left, "Subtraction"))
        object.__setattr__(self, "right", _as_count(self.right, "Subtraction"))
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


@dataclass(frozen=True, eq=False, repr=False)
class CountConst(CountExpr):
    """An integer constant count (the paper's constant 1; any integer is sugar for 1 + ... + 1)."""

    value: int
    op = "Constant count"

    def __post_init__(self):
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise CraspTypeError(f"Constant count: expected an integer, got {self.value!r}")
        hash(self)  # eager, bottom-up: deep programs never recurse when hashing


BOOL_NODES = (Initial, Not, And, BoolConst, Positional, Comparison)
COUNT_NODES = (Count, Conditional, Add, Sub, CountConst)


# ------------------------------------------------------------------------------------- DSL / sugar
def Q(symbol: str) -> BoolExpr:
    """Initial Q_a."""
    return Initial(symbol)


TRUE = BoolConst(True)
FALSE = BoolConst(False)


def NOT(p) -> BoolExpr:
    return Not(_as_bool(p, "Not"))


def AND(*ps) -> BoolExpr:
    """Left-nested conjunction; ``AND()`` is True."""
    if not ps:
        return TRUE
    out = _as_bool(ps[0], "And")
    for p in ps[1:]:
        out = And(out, _as_bool(p, "And"))
    return out


def OR(*ps) -> BoolExpr:
    """Disjunction, sugar for ``~(~p1 & ~p2 & ...)``; ``OR()`` is False."""
    if not ps:
        return FALSE
    if len(ps) == 1:
        return _as_bool(ps[0], "Or")
    return Not(AND(*(Not(_as_bool(p, "Or")) for p in ps)))


def implies(p, r) -> BoolExpr:
    return OR(NOT(p), r)


def leq(c1, c2) -> BoolExpr:
    return Comparison(_as_count(c1, "Comparison"), _as_count(c2, "Comparison"))


def geq(c1, c2) -> BoolExpr:
    return leq(c2, c1)


def lt(c1, c2) -> BoolExpr:
    """``c1 < c2`` := ``~(c2 <= c1)``."""
    return Not(leq(c2, c1))


def gt(c1, c2) -> BoolExpr:
    return lt(c2, c1)


def eq(c1, c2) -> BoolExpr:
    """``c1 = c2`` := ``(c1 <= c2) & (c2 <= c1)``."""
    return And(leq(c1, c2), leq(c2, c1))


def neq(c1, c2) -> BoolExpr:
    return Not(eq(c1, c2))


def psi(offsets: Iterable[int]) -> LocalRelation:
    """The local relation ``i - j in offsets``."""
    return LocalRelation(frozenset(offsets))


def phi(period: int, residues: Iterable[int]) -> BoolExpr:
    """Positional ``(i mod period) in residues`` (1-based i)."""
    return Positional(PeriodicRelation(period, frozenset(residues)))


def count(p, offsets: Iterable[int] | LocalRelation | None = None) -> CountExpr:
    """``#[j <= i] p(j)``, or with ``offsets`` ``#[j <= i, i - j in offsets] p(j)``."""
    rel = offsets if (offsets is None or isinstance(offsets, LocalRelation)) else psi(offsets)
    return Count(_as_bool(p, "Counting"), rel)


def exists(p, offsets: Iterable[int] | LocalRelation | None = None) -> BoolExpr:
    """``E[j <= i, psi] p(j)`` := ``1 <= #[j <= i, psi] p(j)``."""
    return leq(CountConst(1), count(p, offsets))


def prev(p, c: int = 1) -> BoolExpr:
    """``p(i - c)`` (false for i <= c) := ``E[j <= i, j = i - c] p(j)``."""
    return exists(p, {c})


def ite(cond, then, orelse) -> CountExpr:
    return Conditional(_as_bool(cond, "Conditional"), _as_count(then, "Conditional"), _as_count(orelse, "Conditional"))


def const(value: int) -> CountExpr:
    return CountConst(value)


def scale(k: int, c) -> CountExpr:
    """``k * c`` by repeated doubling (depth O(log k)); ``0 * c`` is the constant 0, ``k < 0`` negates."""
    c = _as_count(c, "Addition")
    if k < 0:
        return Sub(CountConst(0), scale(-k, c))
    if k == 0:
        return CountConst(0)
    if k == 1:
        return c
    half = scale(k // 2, c)
    out = Add(half, half)
    return Add(out, c) if k % 2 else out


def count_upto_minus(p, c: int) -> CountExpr:
    """``#[j <= i - c] p(j)`` (Proposition 39) := ``#[j <= i] p - sum_{k<c} #[j <= i, j = i-k] p``."""
    p = _as_bool(p, "Counting")
    if c <= 0:
        return count(p)
    return Sub(count(p), count(p, range(c)))


# ------------------------------------------------------------------------------------------ program
RESERVED_WORDS = frozenset({"true", "false", "i", "j", "phi", "exists", "alphabet", "in"})
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check_name(name: str) -> None:
    """Raise :class:`ProgramError` unless ``name`` can name a definition."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ProgramError(f"definition name {name!r} is not an identifier [A-Za-z_][A-Za-z0-9_]*")
    if name in RESERVED_WORDS or keyword.iskeyword(name):
        raise ProgramError(f"definition name {name!r} is a reserved word")
    if name.startswith("Q_"):
        raise ProgramError(f"definition name {name!r} starts with 'Q_', which is reserved for Initial Q_a")


def iter_nodes(roots: Iterable[Node]) -> list[Node]:
    """Distinct nodes reachable from ``roots`` in post-order (operands before their operation)."""
    seen: set[Node] = set()
    out: list[Node] = []
    for root in roots:
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if node in seen:
                continue
            if expanded:
                seen.add(node)
                out.append(node)
                continue
            stack.append((node, True))
            for ch in reversed(node.children()):
                if ch not in seen:
                    stack.append((ch, False))
    return out


@dataclass(frozen=True, eq=False)
class Program:
    """A C-RASP program: an alphabet and named definitions; the last definition is the (Boolean) output.

    ``defs`` is a tuple of ``(name, node)``; names label operations for traces and printing, and
    references between definitions are shared nodes.  ``name``/``description`` are metadata.
    """

    alphabet: tuple[str, ...]
    defs: tuple[tuple[str, Node], ...]
    name: str = ""
    description: str = ""

    def __post_init__(self):
        alpha = tuple(self.alphabet)
        if not alpha:
            raise ProgramError("program: the alphabet is empty")
        for a in alpha:
            if not isinstance(a, str) or len(a) != 1 or a.isspace():
                raise ProgramError(f"program: alphabet symbol {a!r} is not one non-space character")
        if len(set(alpha)) != len(alpha):
            raise ProgramError(f"program: alphabet {alpha!r} repeats a symbol")
        object.__setattr__(self, "alphabet", alpha)
        defs = tuple((str(n), d) for n, d in self.defs)
        if not defs:
            raise ProgramError("program: no definitions")
        names = set()
        for n, d in defs:
            check_name(n)
            if n in names:
                raise ProgramError(f"program: definition {n!r} is defined twice")
            names.add(n)
            if not isinstance(d, Node):
                raise ProgramError(f"program: definition {n!r} is not a C-RASP expression ({type(d).__name__})")
        if defs[-1][1].sort != "bool":
            raise ProgramError(f"program: the output (last definition {defs[-1][0]!r}) must be Boolean, it is a Count")
        object.__setattr__(self, "defs", defs)
        for node in iter_nodes(d for _, d in defs):
            if isinstance(node, Initial) and node.symbol not in alpha:
                raise ProgramError(f"program: Initial Q_{node.symbol} uses a symbol outside the alphabet {''.join(alpha)!r}")

    @property
    def output(self) -> BoolExpr:
        return self.defs[-1][1]

    @property
    def output_name(self) -> str:
        return self.defs[-1][0]

    def operations(self, all_defs: bool = False) -> list[Node]:
        """Distinct operations reachable from the output (or from every definition), operands first."""
        roots = [d for _, d in self.defs] if all_defs else [self.output]
        return iter_nodes(roots)

    def names(self) -> dict[Node, str]:
        """Node -> the first definition name bound to it."""
        out: dict[Node, str] = {}
        for n, d in self.defs:
            out.setdefault(d, n)
        return out

    def _ops_all(self) -> list[Node]:
        return self.operations(all_defs=True)

    @property
    def period(self) -> int:
        """lcm of the periods of all Positional relations (1 if none)."""
        return math.lcm(1, *(n.phi.period for n in self._ops_all() if isinstance(n, Positional)))

    @property
    def locality(self) -> int:
        """max offset tau of all local relations (0 if none)."""
        return max([0, *(n.psi.tau for n in self._ops_all() if isinstance(n, Count) and n.psi is not None)])

    @property
    def uses_periodic(self) -> bool:
        return any(isinstance(n, Positional) for n in self._ops_all())

    @property
    def uses_local(self) -> bool:
        return any(isinstance(n, Count) and n.psi is not None for n in self._ops_all())

    @property
    def fragment(self) -> str:
        """``C-RASP`` (no positional relations), ``C-RASP[periodic]``, ``C-RASP[local]`` or ``C-RASP[periodic,local]``."""
        parts = [p for p, used in (("periodic", self.uses_periodic), ("local", self.uses_local)) if used]
        return "C-RASP" + (f"[{','.join(parts)}]" if parts else "")

    def with_meta(self, name: str = "", description: str = "") -> Program:
        return Program(self.alphabet, self.defs, name or self.name, description or self.description)


def program(alphabet: Iterable[str] | str, defs: Iterable[tuple[str, Node]] | dict, name: str = "", description: str = "") -> Program:
    """Build a :class:`Program`; ``defs`` is a dict or a sequence of ``(name, node)`` (output last)."""
    items = list(defs.items()) if isinstance(defs, dict) else list(defs)
    return Program(tuple(alphabet), tuple(items), name, description)


# ------------------------------------------------------------------------------------------ printing
# Precedence levels of the text syntax (constructions/crasp/syntax.py), loosest first.
_P_TERN, _P_OR, _P_AND, _P_NOT, _P_CMP, _P_SUM, _P_ATOM = range(7)


def _prec(node: Node) -> int:
    if isinstance(node, Conditional):
        return _P_TERN
    if isinstance(node, And):
        return _P_AND
    if isinstance(node, Not):
        return _P_NOT
    if isinstance(node, Comparison):
        return _P_CMP
    if isinstance(node, (Add, Sub)):
        return _P_SUM
    return _P_ATOM


def _fmt_set(xs) -> str:
    return "{" + ", ".join(str(x) for x in sorted(xs)) + "}"


def _fmt(node: Node, names: dict[Node, str], ctx: int, top: bool = False) -> str:
    name = names.get(node)
    if name is not None:
        return name
    if isinstance(node, Initial):
        s = f"Q_{node.symbol}"
    elif isinstance(node, BoolConst):
        s = "true" if node.value else "false"
    elif isinstance(node, Positional):
        s = f"phi[i % {node.phi.period} in {_fmt_set(node.phi.residues)}]"
    elif isinstance(node, Not):
        arg_ctx = _P_ATOM if isinstance(node.arg, Comparison) and node.arg not in names else _P_NOT
        s = "!" + _fmt(node.arg, names, arg_ctx)
    elif isinstance(node, And):
        s = f"{_fmt(node.left, names, _P_AND)} & {_fmt(node.right, names, _P_NOT)}"
    elif isinstance(node, Comparison):
        s = f"{_fmt(node.left, names, _P_SUM)} <= {_fmt(node.right, names, _P_SUM)}"
    elif isinstance(node, Count):
        rel = "" if node.psi is None else f", i - j in {_fmt_set(node.psi.offsets)}"
        s = f"#[j <= i{rel}] {_fmt(node.arg, names, _P_ATOM)}"
    elif isinstance(node, (Add, Sub)):
        op = "+" if isinstance(node, Add) else "-"
        s = f"{_fmt(node.left, names, _P_SUM)} {op} {_fmt(node.right, names, _P_ATOM)}"
    elif isinstance(node, Conditional):
        s = f"{_fmt(node.cond, names, _P_OR)} ? {_fmt(node.then, names, _P_SUM)} : {_fmt(node.orelse, names, _P_SUM)}"
    elif isinstance(node, CountConst):
        s = str(node.value)
    else:  # pragma: no cover - exhaustive over the node classes
        raise CraspError(f"cannot print node of type {type(node).__name__}")
    return f"({s})" if _prec(node) < ctx else s


def format_expr(node: Node, names: dict[Node, str] | None = None) -> str:
    """One expression in the text syntax (sub-expressions in ``names`` are printed as their name)."""
    return _fmt(node, names or {}, _P_TERN)

