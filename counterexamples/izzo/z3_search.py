"""z3 searches for pairs of one-layer models that break a training-length bound.

The random searches of :mod:`counterexamples.izzo.search` draw integer parameters and test them; here z3 is asked
directly for the parameters: "is there a pair in the family that agrees within delta on every input of length
<= N and differs by more than ``allowed`` on some input of length in (N, N + extra]?", N being the attacked bound
for that pair.  Every answer ``sat`` is turned into a real pair and checked exactly (:func:`verify_break`: the
bound recomputed from the built pair with the package's public functions, exact class-count enumeration of every
input); only checked breaks are reported.  ``unknown`` (timeout) is counted, never read as "no break".

**Family encoded** (Izzo et al. Theorem 4.1's setting; every structural choice enumerated):

* alphabet of 1..``max_sigma`` symbols, Delta in 1..``max_delta``, tau in 0..``max_tau``, one head per model,
  p = 1 bit, the izzo precision model;
* fixed: E = one-hot of the token (``$`` included), positions = one-hot of the residue (Delta > 1), query Q = 1 on
  every token coordinate, the key K and phi from a menu (:func:`attention_menu`: uniform, one token, one residue;
  phi = 0 or +-1 at one offset).  The logits are integers, so every strictly sub-maximal softmax term is flushed
  from length 2 on, and the printed gamma is fixed by the menu choice;
* free (z3 Reals in [-R, R], W and beta in [-R_v, R_v]), per model: ``u`` (U on the base coordinates), ``W`` (the row U V), and, with a
  one-unit ReLU MLP, ``alpha`` (A on the base), ``beta`` (A V), ``b`` and ``c`` (U B).  Realized in width
  base + 2 as ``V = e1 W^T + e2 beta^T``, ``U = u + e1``, ``A = alpha + e2``, ``B = c e1``, so the last-position
  output is ``u.y_q + W.avg + c relu(alpha.y_q + beta.avg + b)``, avg the head's hardmax average of the inputs
  y (a fixed rational vector per input, since the logits are fixed).

What it does not cover: free embeddings or attention scores (the logits are from the menu), more than one head,
wider MLPs, Heaviside units.

**Targets** (:class:`Target`).  N is computed before the search through the public functions only
(:func:`bounds.corrected.published_bound`, :func:`bounds.corrected.corrected_bound`), from the pair's fixed
ingredients (gamma, tau, Delta, |Sigma|, p) and, for the norms, their maxima over the parameter box
(:func:`box_norms`); the constraints stay linear in the parameters (LRA without an MLP):

* ``published`` (``max{2^{p/gamma}, tau Delta L^2/eps^2}``, printed gamma and L, O(.) constant 1).  With no MLP, or
  with ``token_values_zero`` (V E_s = 0 for every symbol s), the printed L is 0, N does not depend on eps, and
  ``gap`` is a fixed disagreement: a break for every eps;
* ``corrected`` (the package's default bound), ``allowed = eps`` (delta = 0).  A pair found agrees up to the box's
  N, which is at least its own N when the bound grows with the norms; :func:`verify_break` recomputes the pair's
  own N either way.  "Nothing found" means: no pair of the box agrees up to the box's N and differs by more than
  eps within ``extra`` lengths after it.  When the box's ``eta = eps / (2K) >= 2`` the corrected N depends on the
  structure only (presence, window, residues, H), so every pair of the box has exactly the box's N and the search
  is complete for the box (up to ``extra``);
* ``fixed`` (controls): a given N; with N too small the same encoding must find breaks (it does: the tests), so
  "nothing found" at the corrected N is not an artefact of the box.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction

from bounds.auxiliary import ClassModel, attend
from bounds.true_threshold import configurations, count_configurations, max_disagreement
from constructions.limit_transformer.model import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)

ALPHABET = "ab"
MAX_AGREEMENT_CONFIGS = 20_000  # inputs (as class configurations) encoded per query; larger N is skipped


@dataclass(frozen=True)
class Attention:
    """A menu entry: the key (("uniform",), ("token", t) or ("residue", r)) and phi on offsets 0..tau."""

    key: tuple
    phi: tuple


def attention_menu(sigma: int, delta: int, tau: int) -> list[Attention]:
    keys = [("uniform",)] + [("token", t) for t in range(1, sigma + 1)]
    keys += [("residue", r) for r in range(delta)] if delta > 1 else []
    phis = [(0,) * (tau + 1)] + [tuple(s if i == o else 0 for i in range(tau + 1)) for o in range(tau + 1)
                                 for s in (1, -1)]
    return [Attention(k, p) for k in keys for p in phis]


def _base(sigma: int, delta: int) -> int:
    return sigma + 1 + (delta if delta > 1 else 0)


def build(sigma: int, delta: int, attention: Attention, params: dict, name: str = "") -> LimitTransformer:
    """The model of the family with these (exact rational) parameters; ``params`` has u, W and, with an MLP,
    alpha, beta, b, c (lists over the base coordinates / scalars)."""
    base = _base(sigma, delta)
    d = base + 2
    e1, e2 = base, base + 1
    E = [[int(i == t) for i in range(d)] for t in range(sigma + 1)]
    positions = (PeriodicPositions([[int(i == sigma + 1 + r) for i in range(d)] for r in range(delta)])
                 if delta > 1 else None)
    Q = [[int(i <= sigma) for i in range(d)]]
    kind = attention.key[0]
    K = [[0] * d] if kind == "uniform" else [[int(i == (attention.key[1] if kind == "token" else
                                                      sigma + 1 + attention.key[1])) for i in range(d)]]
    V = [[0] * d for _ in range(d)]
    V[e1][:base] = params["W"]
    mlp = None
    if "alpha" in params:
        V[e2][:base] = params["beta"]
        A = [list(params["alpha"]) + [0, 1]]
        B = [[0] for _ in range(d)]
        B[e1][0] = params["c"]
        mlp = MLP(A, [params["b"]], B)
    U = [list(params["u"]) + [1, 0]]
    return LimitTransformer(alphabet=tuple(ALPHABET[:sigma]), embedding=E,
                            layers=(Layer(heads=(Head(Q, K, V, LocalPhi(attention.phi)),), mlp=mlp),),
                            unembedding=U, positions=positions, precision_bits=1, precision="izzo", name=name)


def skeleton(sigma: int, delta: int, attention: Attention, mlp: bool = False) -> LimitTransformer:
    """The family's model with every free parameter 0: its attention (averages, gamma) and shape are what the
    encoding reads."""
    zero = [0] * _base(sigma, delta)
    return build(sigma, delta, attention, {"u": zero, "W": zero, **({"alpha": zero, "beta": zero, "b": 0, "c": 0}
                                                                     if mlp else {})})


@dataclass(frozen=True)
class Target:
    """An attacked bound: ``kind`` "published", "corrected" or "fixed" (controls: N given), eps, the disagreement
    asked for (``gap``, default eps), the parameter box radius R (``value_radius`` for W and beta, the attention's
    paths: default R), and ``token_values_zero`` (V E_s = 0 for every symbol s, so the printed L is 0)."""

    kind: str
    eps: Fraction
    gap: Fraction | None = None
    radius: Fraction = Fraction(2)
    token_values_zero: bool = False
    N: int | None = None
    value_radius: Fraction | None = None
    shift: int = 0  # controls: attack N + shift instead of N (shift < 0: a break is not a break of the bound)

    @property
    def value_box(self) -> Fraction:
        return self.radius if self.value_radius is None else self.value_radius

    @property
    def allowed(self) -> Fraction:
        return self.gap if self.gap is not None else self.eps


def box_norms(target: Target, base: int, delta: int, mlp: bool) -> dict:
    """Upper bounds of the squared norms over the parameter box (module docstring's realization):
    ||U||^2 = |u|^2 + 1, ||A||^2 = |alpha|^2 + 1, ||B||^2 = c^2, ||V y_c||^2 = (W.y_c)^2 + (beta.y_c)^2 with y_c
    one token and (Delta > 1) one residue coordinate, and the printed L^2 = ||A||^2 ||B||^2 max_s ||V E_s||^2."""
    r2, v2 = Fraction(target.radius) ** 2, Fraction(target.value_box) ** 2
    ones = 2 if delta > 1 else 1
    channels = 2 if mlp else 1
    A2, B2 = (1 + base * r2, r2) if mlp else (Fraction(0), Fraction(0))
    zero_tokens = target.token_values_zero or not mlp
    return {"U_f2": 1 + base * r2, "A_f2": A2, "B_f2": B2, "head_value_max2": (channels * ones**2 * v2,),
            "L2": Fraction(0) if zero_tokens else A2 * B2 * channels * v2}


def target_length(target: Target, f: LimitTransformer, g: LimitTransformer, budgets: bool = True) -> int | None:
    """The attacked N for the pair: from its own ingredients (``budgets=False``, used to check a found pair) or with
    the box's norm bounds (:func:`box_norms`) in place of the norms (``budgets=True``, used for the encoding)."""
    if target.kind == "fixed":
        return target.N
    N = _bound_length(target, f, g, budgets)
    return None if N is None else N + target.shift


def _bound_length(target: Target, f: LimitTransformer, g: LimitTransformer, budgets: bool) -> int | None:
    from bounds.corrected import NoBoundError, corrected_bound, published_bound
    from bounds.margin import combine, ingredients

    mlp = f.layers[0].mlp is not None
    box = box_norms(target, f.embedding.shape[1] - 2, f.period or 1, mlp)
    if target.kind == "published":
        pr = combine(ingredients(f, definition="printed", mode="exact"),
                     ingredients(g, definition="printed", mode="exact"))
        if budgets:
            pr = dataclasses.replace(pr, L2=box["L2"])
        try:
            return published_bound(pr, target.eps).N.exact
        except NoBoundError:
            return None
    ing = combine(ingredients(f, mode="exact"), ingredients(g, mode="exact"))
    if budgets:  # the box's worst case: the norm form of Lemma M bounds every pair in it (bounds/modulus.py)
        from bounds.modulus import norm_modulus

        norms = {k: v for k, v in box.items() if k != "L2"}
        ing = dataclasses.replace(ing, **norms, moduli=(norm_modulus(**norms),) * 2, head_signatures=None)
    try:
        return corrected_bound(ing, target.eps).N.exact
    except NoBoundError:
        return None


@dataclass(frozen=True)
class Break:
    target: str
    N: int
    length: int
    string: str
    difference: Fraction
    f: LimitTransformer
    g: LimitTransformer


@dataclass
class SearchLog:
    """What one search covered: queries by answer, skipped structures (N too long to encode), checked breaks."""

    queries: int = 0
    sat: int = 0
    unsat: int = 0
    unknown: int = 0
    skipped: list = field(default_factory=list)
    rejected: int = 0  # z3 models that did not survive exact checking
    breaks: list = field(default_factory=list)
    seconds: float = 0.0
    lengths: set = field(default_factory=set)  # the N's encoded

    def describe(self) -> str:
        return (f"{self.queries} z3 queries ({self.sat} sat, {self.unsat} unsat, {self.unknown} unknown), "
                f"{len(self.breaks)} checked breaks, {self.rejected} rejected models, {len(self.skipped)} skipped "
                f"(N too long), N encoded in {sorted(self.lengths)}, {self.seconds:.1f} s")


def _averaging(cm: ClassModel, base: int) -> ClassModel:
    """The class model with the head's values replaced by the inputs y (base coordinates): attend() then returns
    the hardmax average of the inputs."""
    logits, _, phi = cm.heads[0]
    inputs = cm.inputs[:, :base]
    return ClassModel(cm.model, cm.delta, inputs, ((logits, inputs, phi),))


def _class_data(cm: ClassModel, counts: dict, window: tuple):
    return cm.inputs[window[-1]], attend(cm, counts, window).output


def _inputs(cms, n_lo: int, n_hi: int, sigma: int, delta: int, tau: int) -> dict:
    """{(y_q, avg_f, avg_g) as tuples: (length, counts, window)} over every input of model length n_lo..n_hi."""
    out = {}
    for n in range(n_lo, n_hi + 1):
        for counts, window in configurations(n, sigma, delta, tau):
            (yq, af), (_, ag) = (_class_data(cm, counts, window) for cm in cms)
            out.setdefault((tuple(yq), tuple(af), tuple(ag)), (n, counts, window))
    return out


def _real(value) -> Fraction:
    import z3

    if isinstance(value, z3.RatNumRef):
        return Fraction(value.as_fraction())
    return Fraction(value.approx(30).as_fraction())  # an algebraic number: verified exactly afterwards anyway


class _Encoding:
    def __init__(self, base: int, mlp: bool, bound, value_bound, tag: str):
        import z3

        self.vars = {"u": [z3.Real(f"{tag}u{i}") for i in range(base)], "W": [z3.Real(f"{tag}W{i}") for i in
                                                                            range(base)]}
        if mlp:
            self.vars.update(alpha=[z3.Real(f"{tag}al{i}") for i in range(base)],
                             beta=[z3.Real(f"{tag}be{i}") for i in range(base)], b=z3.Real(f"{tag}b"),
                             c=z3.Real(f"{tag}c"))
        self.box = [z3.And(x >= -r, x <= r) for k, v in self.vars.items()
                    for r in [value_bound if k in ("W", "beta") else bound]
                    for x in (v if isinstance(v, list) else [v])]

    def output(self, yq, avg):
        import z3

        def dot(xs, vec):
            terms = [x * z3.RealVal(str(Fraction(a))) for x, a in zip(xs, vec, strict=True) if a != 0]
            return z3.Sum(terms) if terms else z3.RealVal(0)

        out = dot(self.vars["u"], yq) + dot(self.vars["W"], avg)
        if "alpha" in self.vars:
            pre = dot(self.vars["alpha"], yq) + dot(self.vars["beta"], avg) + self.vars["b"]
            out = out + self.vars["c"] * z3.If(pre > 0, pre, z3.RealVal(0))
        return out

    def token_zero(self, sigma: int) -> list:
        """V E_s = 0 for every symbol s (the printed L is then 0)."""
        v = self.vars
        return [v[k][s] == 0 for k in ("W", "beta") if k in v for s in range(1, sigma + 1)]

    def value(self, model) -> dict:
        out = {}
        for k, v in self.vars.items():
            ev = [_real(model.eval(x, model_completion=True)) for x in (v if isinstance(v, list) else [v])]
            out[k] = ev if isinstance(v, list) else ev[0]
        return out


def verify_break(target: Target, f: LimitTransformer, g: LimitTransformer, delta=0, extra: int = 3) -> Break | None:
    """Exact check: the pair's own N for the target, |f - g| <= delta on every input up to N, and > allowed on
    some input of length N + 1 .. N + extra (class-count enumeration, bounds.true_threshold.max_disagreement)."""
    N = target_length(target, f, g, budgets=False)
    if N is None:
        return None
    if any(max_disagreement(f, g, n).max_disagreement > delta for n in range(1, N + 1)):
        return None
    for n in range(N + 1, N + extra + 1):
        row = max_disagreement(f, g, n)
        if row.max_disagreement > target.allowed:
            return Break(target.kind, N, n, row.witness, row.max_disagreement, f, g)
    return None


def search_structure(target: Target, sigma: int, delta: int, tau: int, mlp: bool, af: Attention, ag: Attention,
                     log: SearchLog, extra: int = 3, agree=Fraction(0),
                     timeout_ms: int = 10_000) -> Break | None:
    """One z3 query: a pair with these fixed structures breaking the target, checked exactly."""
    import z3

    fs, gs = skeleton(sigma, delta, af, mlp), skeleton(sigma, delta, ag, mlp)
    N = target_length(target, fs, gs)
    if N is None:
        return None
    total = sum(count_configurations(n, sigma, delta, tau) for n in range(1, N + extra + 1))
    if total > MAX_AGREEMENT_CONFIGS:
        log.skipped.append((sigma, delta, tau, mlp, N, total))
        return None
    log.lengths.add(N)
    cms = tuple(_averaging(ClassModel.of(m, delta), _base(sigma, delta)) for m in (fs, gs))
    early, late = _inputs(cms, 1, N, sigma, delta, tau), _inputs(cms, N + 1, N + extra, sigma, delta, tau)
    R, Rv = z3.RealVal(str(target.radius)), z3.RealVal(str(target.value_box))
    ef, eg = (_Encoding(_base(sigma, delta), mlp, R, Rv, tag) for tag in "fg")
    s = z3.SolverFor("QF_NRA" if mlp else "QF_LRA")
    s.set("timeout", timeout_ms)
    s.add(*ef.box, *eg.box)
    if target.token_values_zero:
        s.add(*ef.token_zero(sigma), *eg.token_zero(sigma))
    lim = z3.RealVal(str(agree))
    for yq, af_, ag_ in early:
        d = ef.output(yq, af_) - eg.output(yq, ag_)
        s.add(d <= lim, -d <= lim)
    gap = z3.RealVal(str(target.allowed))
    s.add(z3.Or([z3.Or(d > gap, -d > gap) for d in (ef.output(yq, a) - eg.output(yq, b) for yq, a, b in late)]))
    log.queries += 1
    r = s.check()
    if r == z3.unsat:
        log.unsat += 1
        return None
    if r != z3.sat:
        log.unknown += 1
        return None
    log.sat += 1
    m = s.model()
    f = build(sigma, delta, af, ef.value(m), "z3-f")
    g = build(sigma, delta, ag, eg.value(m), "z3-g")
    found = verify_break(target, f, g, agree, extra)
    if found is None:
        log.rejected += 1
    else:
        log.breaks.append(found)
    return found


def search(target: Target, max_sigma: int = 2, max_delta: int = 2, max_tau: int = 1, mlp=(False, True),
           max_breaks: int | None = None, **kw) -> SearchLog:
    """Every structure of the family (unordered menu pairs, f's menu index <= g's) against the target."""
    from lengthgen_cli import progress

    log, start = SearchLog(), time.monotonic()
    jobs = [(sigma, delta, tau, has_mlp, a, b)
            for sigma, delta, tau in itertools.product(range(1, max_sigma + 1), range(1, max_delta + 1),
                                                       range(max_tau + 1))
            for menu in [attention_menu(sigma, delta, tau)]
            for has_mlp in mlp
            for a, b in itertools.combinations_with_replacement(menu, 2)]
    for sigma, delta, tau, has_mlp, a, b in progress(jobs, desc=f"z3 search ({target.kind})", unit="pair"):
        search_structure(target, sigma, delta, tau, has_mlp, a, b, log, **kw)
        if max_breaks is not None and len(log.breaks) >= max_breaks:
            break
    log.seconds = time.monotonic() - start
    return log


def describe_break(b: Break) -> str:
    def head(m):
        h = m.layers[0].heads[0]
        return f"K = {[str(x) for x in h.key[0]]}, phi = {[str(x) for x in h.phi.values]}"

    return (f"{b.target}: N = {b.N}, |f - g| = {b.difference} at length {b.length} ({b.string!r}); |Sigma| = "
            f"{len(b.f.alphabet)}, Delta = {b.f.period or 1}, MLP = {b.f.layers[0].mlp is not None}; f: {head(b.f)}; "
            f"g: {head(b.g)}")
