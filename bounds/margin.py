"""Ingredients of Izzo et al. Theorem 4.1 for a one-layer Limit Transformer: gamma, L, tau, Delta, |Sigma|, 2^{p/gamma}.

Logit margin (sec. 3.2, ``izzo2025:def-gamma``).  For a query token y in Sigma at residue i (mod Delta) the paper
collects the logits it can observe,

    printed:   A_(y,i) = { A_(y,i),(z,i-k) + phi(1, k+1) : z in Sigma, k = 0..tau },

with ``A_(y,i),(z,j) = (E_z + p_j)^T K^T Q (E_y + p_i)`` (the paper prints ``(E_z + p_i)^T K^T Q (E_y + p_j)``, which
pairs each token with the other side's residue; we use the evident intent: key z at residue j, query y at residue i),
and ``gamma(f) = min_{(y,i)} min {a - a' > 0 : a, a' in A_(y,i)}`` (min of the empty set = +inf).

The printed set only has the keys inside the tau-window.  Keys farther than tau (phi = 0, ANY residue mod Delta)
and the ``$`` key are observed too, so the printed gamma can exceed every real gap (for the ModP construction,
tau = 0, it is +inf) and the sec. 3.2 hardmax claim "N >= 2^{p/gamma} => hardmax" fails for it (witness in
docs/gaps.md).  ``definition="completed"`` (the default) adds

* far keys: ``A_(y,i),(z,j)`` for every z in Sigma and every residue j (no phi), and
* the ``$`` key (model position 1, residue ``offset mod Delta``): ``A_(y,i),($,o)`` plus ``phi`` at each window
  offset k = 0..tau with ``k = i - o (mod Delta)``, and without phi (``$`` farther than tau).

Both sets also keep the printed offset-0 entries with z != y (unobservable: the offset-0 key is the query itself);
extra entries can only lower gamma, so the completed gamma is a valid (conservative) margin.  Queries are tokens of
Sigma (a ``$`` query sees only itself).  Multi-head layers: gamma is the min over heads.

Hardmax threshold (sec. 3.2, ``izzo2025:sec3.2-hardmax``).  Under the ``izzo`` precision model (shift the max logit to
0, flush post-exp terms <= 2^-p) a sub-maximal term is ``N^{-(a* - a)} <= N^{-gamma}``, flushed iff
``N^{gap} >= 2^p``.  :func:`hardmax_threshold` (defined in :mod:`constructions.limit_transformer.hardmax`) returns the smallest integer N with ``N^gamma >= 2^p``, exactly for
rational gamma = u/v (``N^u >= 2^{p v}`` by integer roots); 1 for gamma = +inf.  N is the model input length |x|
(``$`` included).  The ``huang`` precision model never flushes, so the threshold does not apply to it.

Norm L (sec. 4, ``izzo2025:thm4.1``).  ``L = max_s ||A||_F ||B||_F ||V E_s||``.  App. A.1 handles positional vectors
by making each (token, residue) a token, so ``definition="completed"`` (default) uses ``max_{s,r} ||V (E_s + p_r)||``
over s in Sigma and ``$`` and every residue r (``$`` can be attended); ``"printed"`` uses ``max_{s in Sigma} ||V E_s||``.
L^2 is an exact rational; L is returned as a float (and as a sympy sqrt by :meth:`NormL.exact`).  L omits the
unembedding U and the residual path (see docs/bounds.md); :attr:`NormL.unembedding_f2` records ||U||_F^2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from constructions.limit_transformer import hardmax
from constructions.limit_transformer.model import LimitTransformer, LocalPhi

INF = math.inf
DEFINITIONS = ("completed", "printed")
MODES = ("auto", "exact", "interval")
EXACT_WORK_LIMIT = 200_000  # exact mode when (classes * d + classes^2) * r stays below this
EXACT_WORK_REFUSED = 50 * EXACT_WORK_LIMIT  # forced exact mode beyond this would run for minutes
EXACT_DENOMINATOR_BITS = 256  # ... and every parameter's denominator has at most this many bits


class BoundsError(ValueError):
    """Base class of the errors of :mod:`bounds`."""


class UnsupportedModelError(BoundsError):
    """The model is outside Theorem 4.1's setting (not one layer, not Periodic and Local, no attention head)."""


# ------------------------------------------------------------------------------------------ helpers
def hardmax_threshold(gamma, precision_bits: int) -> int:
    """:func:`constructions.limit_transformer.hardmax.hardmax_threshold`, with its errors as :class:`BoundsError`."""
    try:
        return hardmax.hardmax_threshold(gamma, precision_bits)
    except hardmax.HardmaxError as e:
        raise BoundsError(str(e)) from e


def require_one_layer(model: LimitTransformer, what: str = "Theorem 4.1") -> tuple[int, int]:
    """(Delta, tau) of a one-layer Periodic and Local model with at least one head, else UnsupportedModelError."""
    if model.depth != 1:
        raise UnsupportedModelError(f"{what} is about one-layer Limit Transformers; this model has {model.depth} layers")
    if not model.layers[0].heads:
        raise UnsupportedModelError(f"{what} needs an attention head; layer 1 has none")
    try:
        return model.require_periodic_and_local(what)
    except ValueError as e:  # NotPeriodicError / NotLocalError
        raise UnsupportedModelError(str(e)) from e


def choose_mode(model: LimitTransformer, mode: str = "auto") -> str:
    """'exact' (Fractions) when the exact computation stays small, else 'interval' (:mod:`bounds.float_enclosures`)."""
    if mode not in MODES:
        raise BoundsError(f"unknown arithmetic mode {mode!r}; use one of {MODES}")
    delta, _ = require_one_layer(model)
    classes = (len(model.alphabet) + 1) * delta
    r = max(h.query.shape[0] for h in model.layers[0].heads)
    work = (classes * model.d + classes**2) * r * len(model.layers[0].heads)
    if mode == "exact" and work > EXACT_WORK_REFUSED:
        raise BoundsError(f"exact arithmetic refused: (classes d + classes^2) r heads = {work} exceeds "
                          f"{EXACT_WORK_REFUSED}; use --mode interval or auto")
    if mode != "auto":
        return mode
    if work > EXACT_WORK_LIMIT:
        return "interval"
    layer = model.layers[0]
    arrays = [model.embedding, model.unembedding] + [a for h in layer.heads for a in (h.query, h.key, h.value)]
    arrays += [model.positions.table] if model.positions is not None else []
    arrays += [layer.mlp.A, layer.mlp.B, layer.mlp.b] if layer.mlp is not None else []
    bits = max((x.denominator.bit_length() for a in arrays for x in a.flat), default=0)
    return "exact" if bits <= EXACT_DENOMINATOR_BITS else "interval"


def _class_vectors(model: LimitTransformer, delta: int) -> np.ndarray:
    """y^(0) of every class (token id t, residue r), index t * Delta + r (object array of Fractions)."""
    table = model.positions.table if model.positions is not None else None
    rows = []
    for t in range(len(model.alphabet) + 1):
        for r in range(delta):
            v = model.embedding[t].copy()
            if table is not None:
                v = v + table[r]
            rows.append(v)
    return np.array(rows, dtype=object)


# ------------------------------------------------------------------------------------------- gamma
@dataclass(frozen=True)
class Margin:
    """gamma and a witness: the query class and the two logits a > a' realizing the smallest gap."""

    gamma: object  # Fraction or INF; in interval mode a certified lower bound (0 when unresolved)
    head: int | None = None
    query_token: str | None = None
    query_residue: int | None = None
    top: Fraction | float | None = None
    below: Fraction | float | None = None
    mode: str = "exact"
    unresolved: bool = False  # interval mode: a near-tie within rounding error could not be decided


def _sparse_rows_dot(X: np.ndarray, M: np.ndarray) -> list:
    """Rows of X M^T (exact), skipping zero entries: X is classes x d, M is r x d."""
    cols = [[(j, M[a, j]) for j in range(M.shape[1]) if M[a, j] != 0] for a in range(M.shape[0])]
    return [[sum((x[j] * v for j, v in col if x[j] != 0), Fraction(0)) for col in cols] for x in X]


def _logit_table(model: LimitTransformer, head_index: int, delta: int, tau: int):
    """Integer logits scaled by a common factor S: returns (G, phi, S) with G[query class, key class] / S the exact
    logit without phi and phi[k] / S the phi table (class = token id * Delta + residue).  Integers keep the sets
    and gaps exact and fast."""
    head = model.layers[0].heads[head_index]
    X = _class_vectors(model, delta)
    QX, KX = _sparse_rows_dot(X, head.query), _sparse_rows_dot(X, head.key)
    phi = _phi_table(head, tau)
    dens = [v.denominator for row in QX + KX for v in row] + [v.denominator for v in phi]
    D = math.lcm(*dens) if dens else 1
    dq = math.lcm(*[v.denominator for row in QX for v in row] or [1])
    dk = math.lcm(*[v.denominator for row in KX for v in row] or [1])
    Qi = np.array([[int(v * dq) for v in row] for row in QX], dtype=object).reshape(len(X), -1)
    Ki = np.array([[int(v * dk) for v in row] for row in KX], dtype=object).reshape(len(X), -1)
    factor = D * D  # logits scaled by D^2 (so that every product and phi is an integer)
    G = Qi.dot(Ki.T) * (factor // (dq * dk)) if Qi.shape[1] else np.zeros((len(X), len(X)), dtype=object)
    return G, tuple(int(v * factor) for v in phi), factor


def _logit_set(G, phi, delta, tau, n_sigma, query_token, query_residue, definition, offset) -> set:
    row = G[query_token * delta + query_residue]

    def logit(t, r):
        return row[t * delta + (r % delta)]

    sigma = range(1, n_sigma + 1)
    out = {logit(z, query_residue - k) + phi[k] for z in sigma for k in range(tau + 1)}
    if definition == "completed":
        out |= {logit(z, r) for z in sigma for r in range(delta)}
        bos_r = offset % delta
        out.add(logit(0, bos_r))
        out |= {logit(0, bos_r) + phi[k] for k in range(tau + 1) if (query_residue - k - bos_r) % delta == 0}
    return out


def _phi_table(head, tau: int) -> tuple:
    phi = tuple(head.phi.values) if isinstance(head.phi, LocalPhi) else ()
    return phi + (Fraction(0),) * (tau + 1 - len(phi))


def observable_logits(model: LimitTransformer, head_index: int, query_token: int, query_residue: int,
                      definition: str = "completed", offset: int = 0) -> set:
    """The logit set A_(y,i) of ``definition`` for query token id y (1..|Sigma|) at residue i, head ``head_index``."""
    if definition not in DEFINITIONS:
        raise BoundsError(f"unknown margin definition {definition!r}; use one of {DEFINITIONS}")
    delta, tau = require_one_layer(model, "the logit margin")
    G, phi, scale = _logit_table(model, head_index, delta, tau)
    vals = _logit_set(G, phi, delta, tau, len(model.alphabet), query_token, query_residue, definition, offset)
    return {Fraction(int(v), scale) for v in vals}


def logit_margin(model: LimitTransformer, definition: str = "completed", offset: int = 0,
                 mode: str = "auto") -> Margin:
    """gamma(f) of sec. 3.2 (exact Fraction, or INF) with a witness; see the module docstring for the definitions.

    ``mode="interval"`` (chosen by ``"auto"`` for large models or huge denominators) returns a certified lower
    bound (:mod:`bounds.interval_margin`); ``Margin.mode`` says which was used."""
    if definition not in DEFINITIONS:
        raise BoundsError(f"unknown margin definition {definition!r}; use one of {DEFINITIONS}")
    delta, tau = require_one_layer(model, "the logit margin")
    if choose_mode(model, mode) == "interval":
        from bounds.interval_margin import interval_margin
        from bounds.interval_model import from_model

        im = interval_margin(from_model(model), definition, offset, exact_model=model)
        g = INF if im.gamma_lower is None else im.gamma_lower
        return Margin(g, im.head, im.query_token, im.query_residue, im.top, im.below, "interval", im.unresolved)
    best = Margin(INF)
    for h in range(len(model.layers[0].heads)):
        G, phi, scale = _logit_table(model, h, delta, tau)
        for y in range(1, len(model.alphabet) + 1):
            for i in range(delta):
                vals = sorted(_logit_set(G, phi, delta, tau, len(model.alphabet), y, i, definition, offset))
                for lo, hi in zip(vals, vals[1:], strict=False):
                    gap = Fraction(int(hi - lo), scale)
                    if best.gamma == INF or gap < best.gamma:
                        best = Margin(gap, h, model.alphabet[y - 1], i, Fraction(int(hi), scale),
                                      Fraction(int(lo), scale))
    return best


# ----------------------------------------------------------------------------------------------- L
@dataclass(frozen=True)
class NormL:
    """L^2 = ||A||_F^2 ||B||_F^2 max ||V y||^2 exactly, with its factors and the maximizing class."""

    L2: Fraction
    A_f2: Fraction
    B_f2: Fraction
    value_max2: Fraction
    argmax: tuple  # (head, symbol, residue or None)
    unembedding_f2: Fraction
    has_heaviside: bool
    head_value_max2: tuple = ()  # per head: max over the classes of ||V y||^2
    mode: str = "exact"  # "interval": every field is a certified upper bound (exact rational endpoint)

    @property
    def L(self) -> float:
        """sqrt(L2) as a float (+inf beyond the double range; L2 is the exact value)."""
        try:
            return math.sqrt(self.L2)
        except OverflowError:
            return math.inf

    def exact(self):
        """L as a sympy expression sqrt(L^2) (imports sympy)."""
        import sympy

        return sympy.sqrt(sympy.Rational(self.L2.numerator, self.L2.denominator))


def _sparse_matvec(M: np.ndarray, y: np.ndarray) -> dict:
    """M y as {row: value} over its nonzero rows (exact; skips zero entries of M and y)."""
    nz = [j for j, v in enumerate(y) if v != 0]
    out = {}
    for i in range(M.shape[0]):
        acc = sum((M[i, j] * y[j] for j in nz if M[i, j] != 0), Fraction(0))
        if acc:
            out[i] = acc
    return out


def _interval_norm_L(im, definition: str) -> NormL:
    from bounds.interval_margin import interval_norms

    n = interval_norms(im, definition)
    up = Fraction  # floats are exact rationals; the bounds are already rounded upward
    heads = tuple(up(v) for v in n.value_max2)
    best = max(heads, default=Fraction(0))
    return NormL(up(n.A_f2) * up(n.B_f2) * best, up(n.A_f2), up(n.B_f2), best, (None, None, None), up(n.U_f2),
                 im.heaviside, heads, "interval")


def norm_L(model: LimitTransformer, definition: str = "completed", mode: str = "auto") -> NormL:
    """L of Theorem 4.1 for one model (Theorem 4.1 takes the max over the pair f, g); in interval mode (large
    models, see :func:`choose_mode`) certified upper bounds."""
    if definition not in DEFINITIONS:
        raise BoundsError(f"unknown L definition {definition!r}; use one of {DEFINITIONS}")
    delta, _ = require_one_layer(model, "the norm L")
    if choose_mode(model, mode) == "interval":
        from bounds.interval_model import from_model

        return _interval_norm_L(from_model(model), definition)
    layer = model.layers[0]
    sq = lambda arr: sum((x * x for x in np.asarray(arr, dtype=object).flat), Fraction(0))  # noqa: E731
    a2 = sq(layer.mlp.A) if layer.mlp is not None else Fraction(0)
    b2 = sq(layer.mlp.B) if layer.mlp is not None else Fraction(0)
    best, arg = Fraction(-1), None
    names = ("$",) + model.alphabet
    table = model.positions.table if model.positions is not None else None
    per_head = []
    for h, head in enumerate(layer.heads):
        head_best = Fraction(0)
        # V (E_t + p_r) = V E_t + V p_r: two small exact products, combined per class (sparse-aware)
        VE = [_sparse_matvec(head.value, model.embedding[t]) for t in range(len(names))]
        VP = [_sparse_matvec(head.value, table[r]) if table is not None else None for r in range(delta)]
        for t in range(len(names)):
            if definition == "printed" and t == 0:
                continue
            residues = range(delta) if definition == "completed" else [None]
            for r in residues:
                v = VE[t] if r is None or VP[r] is None else {k: VE[t].get(k, 0) + VP[r].get(k, 0)
                                                              for k in VE[t].keys() | VP[r].keys()}
                v2 = sum((x * x for x in v.values()), Fraction(0))
                head_best = max(head_best, v2)
                if v2 > best:
                    best, arg = v2, (h, names[t], r)
        per_head.append(head_best)
    heav = bool(layer.mlp is not None and layer.mlp.heaviside_mask.any())
    return NormL(a2 * b2 * best, a2, b2, best, arg, sq(model.unembedding), heav, tuple(per_head))


# ------------------------------------------------------------------------------------- ingredients
@dataclass(frozen=True)
class Ingredients:
    """Everything Theorem 4.1 (and the corrected bound of :mod:`bounds.corrected`) reads off a one-layer model,
    or the worse of a pair.  In interval mode gamma is a certified lower bound and the squared norms certified
    upper bounds (exact rational endpoints)."""

    gamma: object
    L2: Fraction
    tau: int
    period: int
    alphabet_size: int
    precision_bits: int
    precision: str
    has_heaviside: bool = False
    U_f2: Fraction = Fraction(0)  # ||U||_F^2
    A_f2: Fraction = Fraction(0)
    B_f2: Fraction = Fraction(0)
    head_value_max2: tuple = ()  # per head: max over the classes of ||V y||^2
    mode: str = "exact"
    gamma_unresolved: bool = False
    heads: int = 1
    moduli: tuple = ()  # one bounds.modulus.Modulus per model (f, or f and g)
    head_signatures: tuple | None = None  # per head: argmax signature or "count-free"; None when unknown

    @property
    def L(self) -> float:
        """sqrt(L2) as a float (+inf beyond the double range; L2 is the exact value)."""
        try:
            return math.sqrt(self.L2)
        except OverflowError:
            return math.inf

    @property
    def hardmax_exponent(self) -> Fraction | None:
        """k with hardmax threshold ceil(2^k) (k = p / gamma); None when no threshold is certified."""
        if self.gamma_unresolved or (self.gamma != INF and self.gamma <= 0):
            return None
        return hardmax.hardmax_exponent(self.gamma, self.precision_bits)

    @property
    def hardmax_length(self) -> int:
        return hardmax_threshold(self.gamma, self.precision_bits)


def ingredients(model: LimitTransformer, precision_bits: int | None = None, definition: str = "completed",
                offset: int = 0, mode: str = "auto") -> Ingredients:
    """gamma, norms, tau, Delta, |Sigma|, p of a one-layer Periodic and Local model (exact or interval mode)."""
    delta, tau = require_one_layer(model)
    p = model.precision_bits if precision_bits is None else precision_bits
    mode = choose_mode(model, mode)
    nl = norm_L(model, definition, mode)
    mg = logit_margin(model, definition, offset, mode)
    if mode == "exact" and not nl.has_heaviside:
        from bounds.modulus import modulus

        mod, sigs = modulus(model, delta), head_signatures(model)
    else:
        mod, sigs = _norm_modulus(nl), None
    return Ingredients(mg.gamma, nl.L2, tau, delta, len(model.alphabet), p, model.precision, nl.has_heaviside,
                       nl.unembedding_f2, nl.A_f2, nl.B_f2, nl.head_value_max2, mode, mg.unresolved,
                       len(model.layers[0].heads), (mod,), sigs)


def interval_ingredients(im, precision_bits: int | None = None, definition: str = "completed",
                         offset: int = 0) -> Ingredients:
    """:func:`ingredients` of an :class:`~bounds.interval_model.IntervalModel` (a large model read straight from
    its file), always in interval mode."""
    from bounds.interval_margin import interval_margin

    if im.depth != 1:
        raise UnsupportedModelError(f"Theorem 4.1 is about one-layer Limit Transformers; this model has {im.depth} "
                                    "layers")
    if not im.heads:
        raise UnsupportedModelError("Theorem 4.1 needs an attention head; layer 1 has none")
    p = im.precision_bits if precision_bits is None else precision_bits
    nl = _interval_norm_L(im, definition)
    mg = interval_margin(im, definition, offset)
    g = INF if mg.gamma_lower is None else mg.gamma_lower
    return Ingredients(g, nl.L2, im.tau, im.period, len(im.alphabet), p, im.precision, im.heaviside, nl.unembedding_f2,
                       nl.A_f2, nl.B_f2, nl.head_value_max2, "interval", mg.unresolved, len(im.heads),
                       (_norm_modulus(nl),), None)


def _larger_value_sum(a: tuple, b: tuple) -> tuple:
    """The tuple with the larger sum_h sqrt(v_h) (certified with mpmath intervals); both concatenated (a sound
    upper bound) when the enclosures overlap."""
    from mpmath import iv

    iv.prec = 256
    sa = sum((iv.sqrt(iv.mpf(Fraction(v).numerator) / Fraction(v).denominator) for v in a), iv.mpf(0))
    sb = sum((iv.sqrt(iv.mpf(Fraction(v).numerator) / Fraction(v).denominator) for v in b), iv.mpf(0))
    if sa.a >= sb.b:
        return a
    if sb.a >= sa.b:
        return b
    return a + b


def _norm_modulus(nl: NormL):
    from bounds.modulus import norm_modulus

    return norm_modulus(nl.unembedding_f2, nl.A_f2, nl.B_f2, nl.head_value_max2)


def head_signatures(model: LimitTransformer) -> tuple:
    """Per head: ``"count-free"`` when, for every query class, some fixed item (``$`` or a window slot, whatever
    token it holds) has a larger logit than every token class, so the argmax never holds a count-carrying class;
    otherwise the weak order (dense ranks) of the logits of every item (each class as a prefix key, each window slot
    with each token it can hold) for every query class.  Heads with equal signatures have the same argmax set on
    every input (bounds/corrected.py, the nesting depth k)."""
    delta, tau = require_one_layer(model)
    n_sigma = len(model.alphabet)
    out = []
    for h in range(len(model.layers[0].heads)):
        G, phi, _ = _logit_table(model, h, delta, tau)
        rows, free = [], True
        for t in range(1, n_sigma + 1):
            for r in range(delta):
                q = t * delta + r
                prefix = [G[q, c] for c in range(len(G))]
                slots = [[G[q, q] + phi[0]]] + [[G[q, u * delta + (r - o) % delta] + phi[o] for u in range(1, n_sigma + 1)]
                                                for o in range(1, tau + 1)]
                fixed_low = max([prefix[0]] + [min(sl) for sl in slots])
                if fixed_low <= max(prefix[delta:]):
                    free = False
                values = prefix + [v for sl in slots for v in sl]
                ranks = {v: i for i, v in enumerate(sorted(set(values)))}
                rows.append(tuple(ranks[v] for v in values))
        out.append("count-free" if free else tuple(rows))
    return tuple(out)


def combine(a: Ingredients, b: Ingredients) -> Ingredients:
    """Theorem 4.1's pair quantities: min gamma, max L, max tau, lcm of the periods, max |Sigma| and p; the
    per-model quantities of the corrected bound are kept as the worse of the two."""
    return Ingredients(min(a.gamma, b.gamma), max(a.L2, b.L2), max(a.tau, b.tau), math.lcm(a.period, b.period),
                       max(a.alphabet_size, b.alphabet_size), max(a.precision_bits, b.precision_bits),
                       a.precision if a.precision == b.precision else f"{a.precision}/{b.precision}",
                       a.has_heaviside or b.has_heaviside, max(a.U_f2, b.U_f2), max(a.A_f2, b.A_f2),
                       max(a.B_f2, b.B_f2), _larger_value_sum(a.head_value_max2, b.head_value_max2),
                       "interval" if "interval" in (a.mode, b.mode) else "exact",
                       a.gamma_unresolved or b.gamma_unresolved, a.heads + b.heads, a.moduli + b.moduli,
                       a.head_signatures + b.head_signatures
                       if a.head_signatures is not None and b.head_signatures is not None
                       and (a.period, a.tau, a.alphabet_size) == (b.period, b.tau, b.alphabet_size) else None)
