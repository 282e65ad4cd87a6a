"""Compile C-RASP[periodic, local] programs into Limit Transformers (Huang et al. Theorem 9 / 27, App. B.6).

``compile_program(program)`` returns a :class:`~constructions.limit_transformer.LimitTransformer` ``T``
with exact dyadic parameters such that for every non-empty word ``w``: ``program`` accepts ``w`` iff the
last output dimension of ``T`` at the last position of ``$w`` is ``> 0`` (it is ``+1`` or ``-1``).
``describe(T)`` reports depth, heads, width, precision ``p``, period ``Delta``, locality ``tau``.

Indexing.  The model reads ``$ w_1 .. w_n``: model position ``t = i + 1`` holds word position ``i``
(``$`` is model position 1, "word position 0").  The prefix ending at word position ``i`` has
``t = i + 1`` model positions.

Invariant (reference section 3.5, "T simulates P").  Every *nonlinear* operation owns one residual
coordinate; at every model position ``t``

* a Boolean ``P`` is stored as ``P(i) in {0, 1}`` and is ``0`` at ``$``;
* a Count ``C`` is stored as ``C(i) / (i + 1) = C(i) / t`` (the paper's normalisation).

Linear operations own no coordinate: ``Not P = top - P``, ``C1 + C2``, ``C1 - C2``, ``c`` (constant
count ``c * one``), ``True = top``, ``Initial``/``Positional`` are *linear forms* over coordinates, folded
into whichever matrix reads them.  The fixed coordinates are

* ``sos``  = ``[t = 1]`` (token embedding of ``$``),
* ``top``  = ``[t > 1]`` (1 in every alphabet symbol's embedding, 0 in ``$``'s) -- the Boolean ``True``,
* ``one``  = ``1 / t`` (layer-1 uniform head reading ``sos``) -- the stored form of the count ``1``,
* ``Q_a``  (token embedding) and ``phi`` coordinates (periodic positional table, period
  ``Delta = lcm`` of the program's periods; ``E_$`` holds ``-phi(0)`` so the coordinate is 0 at ``$``).

Operations (``H(z) = [z >= 0]``):

==================  ==========================================================================
Counting ``#P``      uniform head (``K = Q = 0``), value reads ``P``: output ``sum_j P(j) / t``.
Comparison           one Heaviside unit ``H(C2 - C1 + one/2 - K*sos)``: the ``one/2`` term is a
``C1 <= C2``         margin (``C1 <= C2  <=>  C2 - C1 > -1/2``) so that float evaluation decides ties
                     with margin ``1/(2t)``; ``K = M1 + M2 + 1`` forces 0 at ``$``.
And                  ``ReLU(P1 + ... + Pk - (k - 1))`` over the leaves of a conjunction tree (an And
                     used only by Ands is inlined, so a chain of k conjunctions costs one layer).
Conditional          ``ReLU(y - M(1-x)) - ReLU(-y - M(1-x)) + ReLU(z - Mx) - ReLU(-z - Mx)`` with
                     ``M >= |stored value|`` a static bound (Counting 1, constants ``|c|``, sums add).
Local counting       ``#[j <= i, i - j in S] P(j) = sum_{c in S} [i >= c] P(i - c)``.  Offset 0 is
                     ``ReLU(one + P - 1)``.  Offset ``c >= 1``: a head with ``K = Q = 0`` and
                     ``phi(j, i) = lambda [i - j = c]``, value reads ``P``; a Heaviside unit
                     ``b_c = H(attn - 1/2)``; a guard ``g_c = H(thr_c - one) = [i >= c]`` (layer-1
                     MLP, dyadic ``thr_c in [1/(c+1), 1/c)``); the count adds
                     ``ReLU(one + b_c + g_c - 2) = [b_c and g_c] / t``.
==================  ==========================================================================

``lambda`` defaults to ``p + 1`` so that under the ``izzo`` precision model every local head is in the
hardmax regime (``n^lambda >= 2^p``) already at ``n = 2``: the compiled model is then *exact* (every
attention weight rational, every stored value exactly as above) at every length under both precision
models.  Any ``lambda >= 1`` decides correctly in real arithmetic (weight on ``i - c`` is
``n^lambda / (n^lambda + i) > 1/2`` since ``i < n``); see ``docs/crasp_compiler.md`` for the exactness
statement and its boundary.

Scheduling: operations are placed as early as possible (ASAP) on sublayers (attention of layer ``l`` is
stage ``2l - 1``, its MLP stage ``2l``); depth is the number of layers needed, not the program length.
Heads of one layer with identical logits (all uniform counting heads; local heads with the same offset)
are merged into one head whose value matrix writes all their outputs, so a layer has at most
``1 + #offsets`` heads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

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
from constructions.crasp.errors import CraspError
from constructions.limit_transformer import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)

__all__ = ["CompileError", "compile_program", "describe", "compiled_accepts", "required_bits", "CompileOptions"]

HALF = Fraction(1, 2)


class CompileError(CraspError):
    """The program cannot be compiled with the requested options (e.g. precision too small)."""


@dataclass(frozen=True)
class CompileOptions:
    """Knobs of the construction (defaults give the exact-at-every-length model).

    ``precision``: ``'izzo'`` or ``'huang'`` (the model's softmax precision model).
    ``precision_bits``: ``p``; ``None`` = the least ``p`` that represents every parameter.
    ``local_logit``: ``lambda`` of the local heads; ``None`` = ``p + 1``.
    ``margin``: add the ``one/2`` tie margin to comparisons (exact either way; float robustness).
    """

    precision: str = "izzo"
    precision_bits: int | None = None
    local_logit: Fraction | int | None = None
    margin: bool = True


def _frac_bits(x: Fraction) -> int:
    """Fractional bits of a dyadic rational (raises CompileError for a non-dyadic one)."""
    den = x.denominator
    if den & (den - 1):
        raise CompileError(f"internal: parameter {x} is not dyadic")
    return den.bit_length() - 1


def guard_threshold(c: int) -> Fraction:
    """A dyadic ``thr`` with ``1/(c+1) < thr < 1/c`` and margin >= a quarter of the gap (c >= 1)."""
    lo, hi = Fraction(1, c + 1), Fraction(1, c)
    gap = hi - lo
    mid = (lo + hi) / 2
    q = 0
    while True:
        thr = Fraction(round(mid * 2**q), 2**q)
        if lo + gap / 4 <= thr <= hi - gap / 4:
            return thr
        q += 1


# ------------------------------------------------------------------------------------------ builder
@dataclass
class _Unit:
    act: str
    form: dict
    bias: Fraction
    out: int
    coef: Fraction


@dataclass
class _Head:
    value: dict  # form read by the value matrix
    out: int
    offset: int | None  # None = uniform head; c = phi at offset c


@dataclass
class _Builder:
    program: Program
    opts: CompileOptions
    names: list = field(default_factory=list)
    stage: list = field(default_factory=list)
    heads: dict = field(default_factory=dict)  # layer -> [_Head]
    units: dict = field(default_factory=dict)  # layer -> [_Unit]
    forms: dict = field(default_factory=dict)  # node -> form
    bounds: dict = field(default_factory=dict)  # count node -> M with |stored| <= M
    bits: dict = field(default_factory=dict)  # (P form key, c) -> coord of b_c
    guards: dict = field(default_factory=dict)  # c -> coord of g_c
    phi_coords: dict = field(default_factory=dict)  # PeriodicRelation -> coord
    symbol_coords: dict = field(default_factory=dict)

    def coord(self, name: str, stage: int) -> int:
        self.names.append(name)
        self.stage.append(stage)
        return len(self.names) - 1

    def form_stage(self, form: dict) -> int:
        return max((self.stage[k] for k in form), default=0)

    # -- placement
    @staticmethod
    def attn_layer(stage: int) -> int:
        return stage // 2 + 1

    @staticmethod
    def mlp_layer(stage: int) -> int:
        return max(1, (stage + 2) // 2)

    def add_head(self, value: dict, name: str, offset: int | None, min_layer: int = 1) -> int:
        layer = max(min_layer, self.attn_layer(self.form_stage(value)))
        out = self.coord(name, 2 * layer - 1)
        self.heads.setdefault(layer, []).append(_Head(value, out, offset))
        return out

    def add_units(self, name: str, specs: list) -> int:
        """specs: [(act, form, bias, coef)] all writing one new coordinate, placed in one MLP."""
        st = max(self.form_stage(f) for _, f, _, _ in specs)
        layer = self.mlp_layer(st)
        out = self.coord(name, 2 * layer)
        for act, form, bias, coef in specs:
            self.units.setdefault(layer, []).append(_Unit(act, form, Fraction(bias), out, Fraction(coef)))
        return out


def _lin(*terms) -> dict:
    """Linear combination of forms: _lin((coef, form), ...)."""
    out: dict = {}
    for coef, form in terms:
        for k, v in form.items():
            out[k] = out.get(k, Fraction(0)) + Fraction(coef) * v
    return {k: v for k, v in out.items() if v != 0}


def _key(form: dict) -> tuple:
    return tuple(sorted(form.items()))


# ------------------------------------------------------------------------------------------ compile
def compile_program(program: Program, options: CompileOptions | None = None, **kw) -> LimitTransformer:
    """Theorem 9: a Limit Transformer (Periodic and Local; NoPE for plain C-RASP) simulating ``program``.

    Keyword arguments override :class:`CompileOptions` fields.  Raises :class:`CompileError` when the
    requested ``precision_bits`` cannot represent a parameter, or ``local_logit`` is below 1 (outside the
    range the construction is proven for).
    """
    if not isinstance(program, Program):
        raise CompileError(f"compile_program needs a Program, got {type(program).__name__}")
    opts = options or CompileOptions()
    if kw:
        opts = CompileOptions(**{**opts.__dict__, **kw})
    if opts.precision not in ("izzo", "huang"):
        raise CompileError(f"unknown precision model {opts.precision!r}; use 'izzo' or 'huang'")
    b = _Builder(program, opts)
    sos = b.coord("sos", 0)
    top = b.coord("top", 0)
    for a in program.alphabet:
        b.symbol_coords[a] = b.coord(f"Q_{a}", 0)
    ops = program.operations()
    # an And used only by other Ands is inlined: a conjunction tree becomes one ReLU unit over its leaves
    parents: dict = {}
    for n in ops:
        for ch in n.children():
            parents.setdefault(ch, set()).add(type(n))
    inlined = {n for n in ops if isinstance(n, And) and n is not program.output and parents.get(n) == {And}}

    def conjuncts(node):
        for ch in (node.left, node.right):
            if ch in inlined:
                yield from conjuncts(ch)
            else:
                yield b.forms[ch]

    needs_one = any(isinstance(n, Comparison | CountConst) or (isinstance(n, Count) and n.psi is not None)
                    for n in ops)
    one = b.add_head({sos: Fraction(1)}, "one", None) if needs_one else None
    names = program.names()

    def label(node: Node, default: str) -> str:
        return names.get(node, default)

    def guard(c: int) -> int:
        if c not in b.guards:
            thr = guard_threshold(c)
            b.guards[c] = b.add_units(f"guard[i>={c}]", [("heaviside", {one: Fraction(-1)}, thr, 1)])
        return b.guards[c]

    for k, node in enumerate(ops):
        nm = label(node, f"op{k}")
        if isinstance(node, Initial):
            form = {b.symbol_coords[node.symbol]: Fraction(1)}
        elif isinstance(node, BoolConst):
            form = {top: Fraction(1)} if node.value else {}
        elif isinstance(node, Positional):
            rel = node.phi
            if rel not in b.phi_coords:
                b.phi_coords[rel] = b.coord(f"phi[{rel.period}:{sorted(rel.residues)}]", 0)
            form = {b.phi_coords[rel]: Fraction(1)}
        elif isinstance(node, Not):
            form = _lin((1, {top: Fraction(1)}), (-1, b.forms[node.arg]))
        elif isinstance(node, And):
            if node in inlined:
                continue
            leaves = list(conjuncts(node))
            f = _lin(*((1, lf) for lf in leaves))
            form = {b.add_units(nm, [("relu", f, 1 - len(leaves), 1)]): Fraction(1)}
        elif isinstance(node, Comparison):
            lf, rf = b.forms[node.left], b.forms[node.right]
            big = b.bounds[node.left] + b.bounds[node.right] + 1
            terms = [(1, rf), (-1, lf), (-big, {sos: Fraction(1)})]
            if opts.margin:
                terms.append((HALF, {one: Fraction(1)}))
            form = {b.add_units(nm, [("heaviside", _lin(*terms), 0, 1)]): Fraction(1)}
        elif isinstance(node, CountConst):
            form = {one: Fraction(node.value)} if node.value else {}
            b.bounds[node] = abs(node.value)
        elif isinstance(node, Add | Sub):
            sign = 1 if isinstance(node, Add) else -1
            form = _lin((1, b.forms[node.left]), (sign, b.forms[node.right]))
            b.bounds[node] = b.bounds[node.left] + b.bounds[node.right]
        elif isinstance(node, Conditional):
            x, y, z = b.forms[node.cond], b.forms[node.then], b.forms[node.orelse]
            M = max(b.bounds[node.then], b.bounds[node.orelse], 1)
            form = {b.add_units(nm, [
                ("relu", _lin((1, y), (M, x)), -M, 1),
                ("relu", _lin((-1, y), (M, x)), -M, -1),
                ("relu", _lin((1, z), (-M, x)), 0, 1),
                ("relu", _lin((-1, z), (-M, x)), 0, -1),
            ]): Fraction(1)}
            b.bounds[node] = M
        elif isinstance(node, Count):
            pf = b.forms[node.arg]
            b.bounds[node] = 1
            if node.psi is None:
                form = {b.add_head(pf, nm, None): Fraction(1)}
            else:
                specs = []
                for c in sorted(node.psi.offsets):
                    if c == 0:
                        specs.append(("relu", _lin((1, {one: Fraction(1)}), (1, pf)), -1, 1))
                        continue
                    key = (_key(pf), c)
                    if key not in b.bits:
                        att = b.add_head(pf, f"attn[{nm}@{c}]", c)
                        b.bits[key] = b.add_units(f"bit[{nm}@{c}]", [("heaviside", {att: Fraction(1)}, -HALF, 1)])
                    g = guard(c)
                    specs.append(("relu", _lin((1, {one: Fraction(1)}), (1, {b.bits[key]: Fraction(1)}),
                                               (1, {g: Fraction(1)})), -2, 1))
                form = {b.add_units(nm, specs): Fraction(1)}
        else:  # pragma: no cover - the AST has exactly the node classes above
            raise CompileError(f"cannot compile node {type(node).__name__}")
        b.forms[node] = form
    return _assemble(b, sos, top)


def _assemble(b: _Builder, sos: int, top: int) -> LimitTransformer:
    prog, opts = b.program, b.opts
    d = len(b.names)
    depth = max([0, *b.heads.keys(), *b.units.keys()])
    # precision: every parameter must be dyadic with <= p fractional bits
    params: list[Fraction] = [Fraction(1), HALF if opts.margin else Fraction(1)]
    for units in b.units.values():
        for u in units:
            params += [u.bias, u.coef, *u.form.values()]
    for hs in b.heads.values():
        for h in hs:
            params += list(h.value.values())
    need = max(_frac_bits(x) for x in params)
    p = opts.precision_bits if opts.precision_bits is not None else max(1, need)
    if p < need:
        raise CompileError(f"precision_bits={p} cannot represent every parameter: {need} fractional bits needed")
    lam = Fraction(opts.local_logit) if opts.local_logit is not None else Fraction(p + 1)
    if lam < 1:
        raise CompileError(f"local_logit must be >= 1, got {lam}: the local heads are proven correct only for "
                           "lambda >= 1 (weight n^lambda / (n^lambda + i) > 1/2 needs n^lambda > i for i < n)")
    if lam.denominator != 1 and _frac_bits(lam) > p:
        raise CompileError(f"local_logit {lam} needs more than p={p} fractional bits")

    # embeddings (row 0 is '$')
    E = np.zeros((len(prog.alphabet) + 1, d), dtype=object)
    E.fill(Fraction(0))
    E[0, sos] = Fraction(1)
    for r, a in enumerate(prog.alphabet, 1):
        E[r, top] = Fraction(1)
        E[r, b.symbol_coords[a]] = Fraction(1)
    positions = None
    if b.phi_coords:
        delta = prog.period
        table = np.zeros((delta, d), dtype=object)
        table.fill(Fraction(0))
        for rel, k in b.phi_coords.items():
            for r in range(delta):  # p_t = table[(t-1) mod Delta], word position i = t - 1
                table[r, k] = Fraction(int(rel(r)))
            E[0, k] = -Fraction(int(rel(0)))  # cancel phi(0) at '$' (offset 0)
        positions = PeriodicPositions(table)

    layers = []
    for l in range(1, depth + 1):
        # heads with the same logits (all uniform ones; local ones with the same offset) are merged into
        # one head whose value matrix writes all their outputs: identical attention, fewer heads
        groups: dict = {}
        for h in b.heads.get(l, []):
            groups.setdefault(h.offset, []).append(h)
        heads = []
        for offset in sorted(groups, key=lambda o: -1 if o is None else o):
            V = np.zeros((d, d), dtype=object)
            V.fill(Fraction(0))
            for h in groups[offset]:
                for k, v in h.value.items():
                    V[h.out, k] = v
            zero = np.zeros((1, d), dtype=object)
            zero.fill(Fraction(0))
            phi = None if offset is None else LocalPhi(tuple([Fraction(0)] * offset + [lam]))
            heads.append(Head(zero, zero.copy(), V, phi))
        mlp = None
        units = b.units.get(l, [])
        if units:
            k = len(units)
            A = np.zeros((k, d), dtype=object)
            A.fill(Fraction(0))
            B = np.zeros((d, k), dtype=object)
            B.fill(Fraction(0))
            bias = np.array([u.bias for u in units], dtype=object)
            for r, u in enumerate(units):
                for c, v in u.form.items():
                    A[r, c] = v
                B[u.out, r] = u.coef
            mlp = MLP(A, bias, B, tuple(u.act for u in units))
        layers.append(Layer(tuple(heads), mlp))

    m = len(prog.alphabet)
    U = np.zeros((m, d), dtype=object)
    U.fill(Fraction(0))
    for k, v in b.forms[prog.output].items():  # last row: 2 * out - top  (+1 accept / -1 reject)
        U[m - 1, k] += 2 * v
    U[m - 1, top] -= 1
    meta = {
        "compiled_from": prog.name or "program",
        "fragment": prog.fragment,
        "coordinates": list(b.names),
        "local_logit": str(lam),
        "margin": opts.margin,
        "accept": "last output dimension at the last position > 0",
        "count_bounds": sorted({int(v) for v in b.bounds.values()}) or [0],
    }
    return LimitTransformer(prog.alphabet, E, tuple(layers), U, positions, precision_bits=p,
                            precision=opts.precision, name=f"compiled:{prog.name or 'program'}", metadata=meta)


def required_bits(model: LimitTransformer) -> int:
    """The least p such that every parameter of ``model`` is dyadic with <= p fractional bits."""
    vals = [*model.embedding.flat, *model.unembedding.flat]
    if isinstance(model.positions, PeriodicPositions):
        vals += list(model.positions.table.flat)
    for layer in model.layers:
        for h in layer.heads:
            vals += [*h.query.flat, *h.key.flat, *h.value.flat]
            if isinstance(h.phi, LocalPhi):
                vals += list(h.phi.values)
        if layer.mlp is not None:
            vals += [*layer.mlp.A.flat, *layer.mlp.b.flat, *layer.mlp.B.flat]
    return max([0, *(_frac_bits(Fraction(v)) for v in vals)])


def describe(model: LimitTransformer) -> dict:
    """Size and positional parameters of a (compiled) Limit Transformer.

    depth L, max heads per layer H, total heads, width d, MLP hidden sizes, precision p (and the bits
    actually used), period Delta (1 for NoPE / None if not periodic), locality tau, NoPE flag.
    """
    return {
        "depth": model.depth,
        "heads_per_layer": [len(layer.heads) for layer in model.layers],
        "max_heads": model.n_heads,
        "total_heads": sum(len(layer.heads) for layer in model.layers),
        "width": model.d,
        "mlp_hidden": [0 if layer.mlp is None else layer.mlp.A.shape[0] for layer in model.layers],
        "precision_bits": model.precision_bits,
        "bits_used": required_bits(model),
        "precision_model": model.precision,
        "period": model.period,
        "locality": model.tau,
        "nope": model.is_nope,
        "local_logit": model.metadata.get("local_logit"),
        "fragment": model.metadata.get("fragment"),
    }


def compiled_accepts(model: LimitTransformer, strings, *, exact: bool = False) -> list[bool]:
    """Acceptance of each (non-empty) string by a compiled model: last output dim at the last position > 0.

    ``exact=True`` uses the exact evaluator (one string at a time; O(n) per compiled head); otherwise the float64 vectorized
    path, batching strings by length.
    """
    from constructions.limit_transformer import exact_forward, forward

    strings = [strings] if isinstance(strings, str) else list(strings)
    out: list[bool | None] = [None] * len(strings)
    if exact:
        for k, s in enumerate(strings):
            out[k] = bool(exact_forward(model, s, positions="last")[-1] > 0)
        return out  # type: ignore[return-value]
    by_len: dict[int, list[int]] = {}
    for k, s in enumerate(strings):
        by_len.setdefault(len(s), []).append(k)
    for _, idx in sorted(by_len.items()):
        res = forward(model, [strings[k] for k in idx], positions="last")
        for k, r in zip(idx, res[:, -1], strict=True):
            out[k] = bool(r > 0)
    return out  # type: ignore[return-value]

