"""Exact, vectorized C-RASP interpreter (Definition 8 semantics; reference section 3.1).

Strings of equal length are evaluated together as an integer array ``X`` of shape ``(B, n)`` (symbol
indices into the program's alphabet).  Every operation becomes an array of shape ``(B, n)``: column
``i - 1`` holds its value at the 1-based position ``i``.  Counts are exact integers: cumulative sums in
int64, and, when a static bound on a count's magnitude could reach 2**62 (large constants, deep sums),
Python integers (object arrays).  A program accepts ``w`` iff its output is true at position ``|w|``.
The empty word is outside Definition 8 and raises :class:`InputError`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

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
from constructions.crasp.errors import CraspError, InputError

__all__ = ["encode", "evaluate", "accepts", "accepts_array", "accepts_one", "all_strings", "trace", "Trace"]

_BIG = 2**62
_CHUNK_CELLS = 1 << 19  # cells (B * n) per evaluation chunk


def encode(prog: Program, strings: Sequence[str]) -> np.ndarray:
    """Symbol indices ``(B, n)`` of equal-length nonempty strings; :class:`InputError` otherwise."""
    index = {a: k for k, a in enumerate(prog.alphabet)}
    if not strings:
        return np.zeros((0, 0), dtype=np.int8)
    n = len(strings[0])
    out = np.empty((len(strings), n), dtype=np.int16)
    for b, s in enumerate(strings):
        if len(s) != n:
            raise InputError(f"encode: strings of different lengths in one batch ({n} and {len(s)})")
        if n == 0:
            raise InputError("the empty word is outside Definition 8 (no last position); it has no C-RASP value")
        for k, ch in enumerate(s):
            v = index.get(ch)
            if v is None:
                raise InputError(f"symbol {ch!r} in {s!r} is not in the alphabet {' '.join(prog.alphabet)!r} of {prog.name or 'the program'}")
            out[b, k] = v
    return out


def _bounds(ops: list[Node], n: int) -> dict[Node, int]:
    """A static bound on |value| of every Count operation at positions <= n."""
    bd: dict[Node, int] = {}
    for op in ops:
        if isinstance(op, Count):
            bd[op] = n
        elif isinstance(op, CountConst):
            bd[op] = abs(op.value)
        elif isinstance(op, (Add, Sub)):
            bd[op] = bd[op.left] + bd[op.right]
        elif isinstance(op, Conditional):
            bd[op] = max(bd[op.then], bd[op.orelse])
    return bd


def evaluate(prog: Program, X: np.ndarray, keep: Iterable[Node] | None = None, all_defs: bool = False) -> dict[Node, np.ndarray]:
    """Evaluate the operations of ``prog`` on the batch ``X`` (B, n); return the arrays of ``keep``
    (default: the output only).  ``all_defs`` also evaluates definitions the output does not use."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise InputError(f"evaluate: expected a (batch, length) array, got shape {X.shape}")
    B, n = X.shape
    if n == 0:
        raise InputError("the empty word is outside Definition 8 (no last position); it has no C-RASP value")
    ops = prog.operations(all_defs=all_defs)
    keep_set = set(keep) if keep is not None else {prog.output}
    last_use: dict[Node, int] = {}
    for k, op in enumerate(ops):
        for ch in op.children():
            last_use[ch] = k
    bd = _bounds(ops, n)
    index = {a: k for k, a in enumerate(prog.alphabet)}
    pos = np.arange(1, n + 1)
    val: dict[Node, np.ndarray] = {}
    for k, op in enumerate(ops):
        if isinstance(op, Initial):
            v = X == index[op.symbol]
        elif isinstance(op, BoolConst):
            v = np.full((B, n), op.value, dtype=bool)
        elif isinstance(op, Positional):
            row = np.isin(pos % op.phi.period, list(op.phi.residues))
            v = np.broadcast_to(row, (B, n)).copy()
        elif isinstance(op, Not):
            v = ~val[op.arg]
        elif isinstance(op, And):
            v = val[op.left] & val[op.right]
        elif isinstance(op, Comparison):
            v = np.asarray(val[op.left] <= val[op.right], dtype=bool)
        elif isinstance(op, Count):
            p = val[op.arg]
            if op.psi is None:
                v = np.cumsum(p, axis=1, dtype=np.int64)
            else:
                v = np.zeros((B, n), dtype=np.int64)
                for c in op.psi.offsets:
                    if c < n:
                        v[:, c:] += p[:, : n - c]
        elif isinstance(op, CountConst):
            v = np.full((B, n), op.value, dtype=object if bd[op] >= _BIG else np.int64)
        elif isinstance(op, (Add, Sub)):
            a, b = val[op.left], val[op.right]
            if bd[op] >= _BIG:
                a, b = a.astype(object), b.astype(object)
            v = a + b if isinstance(op, Add) else a - b
        elif isinstance(op, Conditional):
            a, b = val[op.then], val[op.orelse]
            if a.dtype != b.dtype:
                a, b = a.astype(object), b.astype(object)
            v = np.where(val[op.cond], a, b)
        else:  # pragma: no cover
            raise CraspError(f"evaluate: unknown node type {type(op).__name__}")
        val[op] = v
        for ch in set(op.children()):
            if last_use.get(ch) == k and ch not in keep_set:
                del val[ch]
    return {op: val[op] for op in keep_set}


def accepts_array(prog: Program, X: np.ndarray) -> np.ndarray:
    """Acceptance (bool array of shape (B,)) of the equal-length batch ``X`` of symbol indices."""
    X = np.asarray(X)
    B, n = X.shape
    if B == 0:
        return np.zeros(0, dtype=bool)
    step = max(1, _CHUNK_CELLS // max(n, 1))
    out = np.empty(B, dtype=bool)
    for s in range(0, B, step):
        out[s : s + step] = evaluate(prog, X[s : s + step])[prog.output][:, -1]
    return out


def accepts(prog: Program, strings: Sequence[str]) -> np.ndarray:
    """Acceptance of each string (any lengths; grouped by length and vectorized)."""
    strings = list(strings)
    out = np.empty(len(strings), dtype=bool)
    by_len: dict[int, list[int]] = {}
    for k, s in enumerate(strings):
        by_len.setdefault(len(s), []).append(k)
    for _n, ks in by_len.items():
        X = encode(prog, [strings[k] for k in ks])
        out[ks] = accepts_array(prog, X)
    return out


def accepts_one(prog: Program, s: str) -> bool:
    return bool(accepts(prog, [s])[0])


def all_strings(k: int, n: int) -> np.ndarray:
    """All ``k**n`` strings of length ``n`` over ``k`` symbols, as an index array (lexicographic)."""
    if n == 0:
        return np.zeros((1, 0), dtype=np.int16)
    idx = np.arange(k**n, dtype=np.int64)
    powers = k ** np.arange(n - 1, -1, -1, dtype=np.int64)
    return ((idx[:, None] // powers[None, :]) % k).astype(np.int16)


# --------------------------------------------------------------------------------------------- trace
@dataclass(frozen=True)
class Trace:
    """Per-position values of a program's operations on one string (1-based positions)."""

    program: Program
    string: str
    rows: tuple[tuple[str, str, tuple], ...]  # (label, sort, values at positions 1..n)
    accepted: bool

    def text(self) -> str:
        """A plain-text table: one row per operation, one column per position."""
        n = len(self.string)
        cells = [["i", *[str(i) for i in range(1, n + 1)]], ["w_i", *self.string]]
        for label, sort, vals in self.rows:
            cells.append([label, *[("T" if v else ".") if sort == "bool" else str(v) for v in vals]])
        w0 = max(len(r[0]) for r in cells)
        widths = [max(len(r[c]) for r in cells) for c in range(1, n + 1)]
        lines = []
        for r in cells:
            lines.append(r[0].ljust(w0) + " | " + " ".join(x.rjust(w) for x, w in zip(r[1:], widths, strict=True)))
        lines.insert(2, "-" * len(lines[0]))
        lines.append(f"accepted: {self.accepted}  (output {self.program.output_name} at position {n})")
        return "\n".join(lines)

    def html(self) -> str:
        """A standalone HTML table (true cells shaded, the acceptance cell outlined)."""
        n = len(self.string)
        esc = html.escape
        out = [
            "<table class='crasp-trace' style='border-collapse:collapse;font-family:monospace'>",
            "<tr><th>i</th>" + "".join(f"<th>{i}</th>" for i in range(1, n + 1)) + "</tr>",
            "<tr><th>w<sub>i</sub></th>" + "".join(f"<th>{esc(c)}</th>" for c in self.string) + "</tr>",
        ]
        for r, (label, sort, vals) in enumerate(self.rows):
            tds = []
            for i, v in enumerate(vals):
                style = "border:1px solid #ccc;padding:2px 6px;text-align:right"
                if sort == "bool" and v:
                    style += ";background:#cfe8cf"
                if r == len(self.rows) - 1 and i == n - 1:
                    style += ";outline:2px solid #333"
                text = ("T" if v else "F") if sort == "bool" else str(v)
                tds.append(f"<td style='{style}'>{text}</td>")
            out.append(f"<tr><th style='text-align:left'>{esc(label)}</th>{''.join(tds)}</tr>")
        out.append("</table>")
        out.append(f"<p>accepted: {str(self.accepted).lower()}</p>")
        return "\n".join(out)


def trace(prog: Program, s: str, all_ops: bool = False) -> Trace:
    """Trace every definition (and with ``all_ops`` every anonymous sub-operation) on ``s``."""
    from constructions.crasp.ast import format_expr

    X = encode(prog, [s])
    names = prog.names()
    ops = prog.operations(all_defs=True)
    keep = ops if all_ops else [d for _, d in prog.defs]
    vals = evaluate(prog, X, keep=keep, all_defs=True)
    rows = []
    if all_ops:
        for op in ops:
            label = names.get(op) or format_expr(op, {k: v for k, v in names.items() if k != op})
            rows.append((label, op.sort, tuple(_py(x) for x in vals[op][0])))
        last = prog.output
        rows = [r for r in rows if r[0] != names[last]] + [(prog.output_name, "bool", tuple(_py(x) for x in vals[last][0]))]
    else:
        for nm, d in prog.defs:
            rows.append((nm, d.sort, tuple(_py(x) for x in vals[d][0])))
    return Trace(prog, s, tuple(rows), bool(vals[prog.output][0, -1]))


def _py(x):
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    return int(x)
