"""Class-level softmax evaluation of one-layer Limit Transformers, with certified float64 enclosures.

Setting (Izzo et al. sec. 3.1-3.2 and App. A.1 "Including positional embedding vectors").  For a one-layer model
with Delta-periodic positions and tau-local phi, the last-position output on an input of model length n depends
only on the window (the last ``w = tau + 1`` classes, query last), the counts ``N_c`` of the (token, residue)
classes among the other positions (``$`` once, at residue 0) and n.  Head h weighs key j by ``n^(a_j)``, so with
``rho = 1/n``, ``pi_c = N_c / n`` (a window slot is an *entry* of mass ``rho``) and ``G_e = a_max - a_e >= 0``
the gap of entry e to the largest logit of its query (over every entry that may occur), the head output is

    sum_e u_e V y_e / sum_e u_e,        u_e = pi_e * rho^(G_e)                       (``softmax`` semantics)

(the exact-exponential softmax a trained network computes).  Under the ``izzo`` precision model (sec. 3.2) a term
is flushed when ``n^(g_e) >= 2^p``, g_e the gap to the largest logit *present*; the kept terms weigh as above.
Both models at once, and a target function, are handled as one *difference network* per window and output
coordinate: ``D = f - g = kappa + sum_h lambda_h . ell_h + sum_j w_j relu(z_j)`` with pre-activations
``z_j = alpha_j + sum_h lambda_h . beta_hj`` linear in the normalized weights ``lambda_h = u_h / sum u_h``.  When f and g
read the same residual stream (equal class inputs, heads and semantics), their heads are shared and hidden units
with equal ``(A_j, b_j)`` merge, so a model against itself gives ``D = 0`` exactly.

Certified bounds over a box of weights ``u in [lo, hi]`` (a relaxation of a box of (rho, pi)):

* ``max_u sum u P / sum u`` is attained at a threshold vertex (``u_e = hi_e`` for the largest P_e, ``lo_e`` for the
  rest; Dinkelbach), so :func:`lf_max` sorts P and scans the prefixes: every pre-activation's exact range per head;
* the ReLUs are replaced by linear bounds on their ranges (the chord above, ``a z`` with a in {0, 1} below: the
  relaxation of CROWN, Zhang et al. 2018), so D is bounded above by a linear function of the lambdas, whose maximum
  is again a sorted scan.

Floating point is outward-rounded by a priori error bounds: a sum of k products is within ``gamma_k`` times the sum
of magnitudes (Higham 2002, Lemma 3.1; :mod:`bounds.float_enclosures`), every radius is padded, exact rational parameters
enter as :class:`bounds.float_enclosures.Ball` s, and numpy's ``exp`` and ``log`` are trusted to a relative error of
``LIBM_REL = 2^-40`` (IEEE 754 libraries document <= 4 ulp = 2^-50; the tests compare with mpmath at 60 digits).
Logit ties and izzo flush decisions are exact (``Fraction`` logits; :func:`constructions.limit_transformer.precision.flushes`
at a concrete length).  numpy (vectorized over boxes) was chosen over mpmath.iv and python-flint's arb, which
evaluate one interval per Python call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from bounds.auxiliary import ClassModel, pair_period
from bounds.float_enclosures import TINY, Ball, U, add, ball, gamma_n, matmul
from bounds.margin import BoundsError
from constructions.limit_transformer.precision import flushes

SEMANTICS = ("softmax", "izzo")
LIBM_REL = 2.0**-40  # trusted relative error of numpy's exp and log (documented <= 4 ulp)
FLOOR = 2.0**-1000  # upper bounds of positive weights never go below this (no underflow to a false 0)
MAX_MAGNITUDE = 2**128  # exact model quantities (weights, class inputs, logits, values) above this are refused:
# the float64 enclosures multiply a few of them, so every product stays far inside the double range


class ClassModelError(BoundsError):
    """The model is outside what the class-level evaluator handles (the reason is named)."""


# ------------------------------------------------------------------------------------- rigorous helpers
def _up(x):
    return x + (np.abs(x) * (2 * U) + TINY)


def _down(x):
    return x - (np.abs(x) * (2 * U) + TINY)


def exp_bounds(x_lo, x_hi):
    """Enclosure of exp over [x_lo, x_hi] (-inf allowed): (lower, upper), upper never a false 0."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        lo = np.where(np.isneginf(x_lo), 0.0, np.exp(x_lo) * (1 - 2 * LIBM_REL))
        lo = np.where(lo < FLOOR, 0.0, lo)
        hi = np.where(np.isneginf(x_hi), 0.0, np.maximum(np.exp(x_hi) * (1 + 2 * LIBM_REL), FLOOR))
    return lo, hi


def log_bounds(lo, hi):
    """Enclosure of log over [lo, hi] (0 gives -inf)."""
    with np.errstate(divide="ignore"):
        a, b = np.log(lo), np.log(hi)
    pa = np.where(np.isfinite(a), np.abs(a), 0.0) * 2 * LIBM_REL + TINY
    pb = np.where(np.isfinite(b), np.abs(b), 0.0) * 2 * LIBM_REL + TINY
    return np.where(np.isneginf(a), -np.inf, a - pa), np.where(np.isneginf(b), -np.inf, b + pb)


def lf_max(P: np.ndarray, lo: np.ndarray, hi: np.ndarray, order: np.ndarray | None = None):
    """Certified upper bound of ``max sum(u P) / sum(u)`` over ``u in [lo, hi]`` (last axis; u >= 0) and a mask of
    rows where every ``hi`` is 0 (no term: the head outputs 0, the value there is 0).

    ``hi`` may be +inf (a weight unbounded relative to the others): the function is monotone in each coordinate, so
    its supremum is at a vertex with each coordinate at ``lo`` or at the limit ``+inf``, where the weights with an
    infinite coordinate take all the mass (in any proportion among them); hence it is the larger of the bound with
    those coordinates at ``lo`` and the largest P among them.

    ``order``: a precomputed descending argsort of P (P fixed over the boxes); shapes broadcast on the leading axes.
    """
    unbounded = np.isinf(hi)
    if unbounded.any():
        v, empty = lf_max(P, lo, np.where(unbounded, lo, hi), order)
        top = np.where(unbounded, P, -np.inf).max(axis=-1)
        return np.where(unbounded.any(axis=-1), np.maximum(np.where(empty, -np.inf, v), top), v), empty & \
            ~unbounded.any(axis=-1)
    if order is None:
        order = np.argsort(-P, axis=-1, kind="stable")
    shape = np.broadcast_shapes(P.shape, lo.shape, hi.shape, order.shape)
    order = np.broadcast_to(order, shape)
    Ps = np.take_along_axis(np.broadcast_to(P, shape), order, axis=-1)
    lo_s = np.take_along_axis(np.broadcast_to(lo, shape), order, axis=-1)
    hi_s = np.take_along_axis(np.broadcast_to(hi, shape), order, axis=-1)
    E = P.shape[-1]
    hP, lP = np.cumsum(hi_s * Ps, axis=-1), np.cumsum(lo_s * Ps, axis=-1)
    h, lsum = np.cumsum(hi_s, axis=-1), np.cumsum(lo_s, axis=-1)
    N = hP + (lP[..., -1:] - lP)  # the first k + 1 entries at hi, the rest at lo
    D = h + (lsum[..., -1:] - lsum)
    N = np.concatenate([N, lP[..., -1:]], axis=-1)  # and every entry at lo
    D = np.concatenate([D, lsum[..., -1:]], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(D > 0, N / np.where(D > 0, D, 1.0), -np.inf)
    empty = ~(h[..., -1] > 0)
    best = np.where(empty, 0.0, t.max(axis=-1))
    maxP = np.abs(Ps).max(axis=-1)
    pad = 8 * gamma_n(2 * E + 4) * maxP + 4 * U * np.abs(best) + TINY
    out = best + pad
    out = out + 2 * U * np.abs(out) + TINY
    return np.where(empty, 0.0, out), empty


def lf_min(P, lo, hi, order=None):
    v, empty = lf_max(-P, lo, hi, order)
    return -v, empty


def _sum_up(terms: list) -> np.ndarray:
    """Upper bound of an exact sum of float arrays (each already an upper bound)."""
    total = sum(terms[1:], terms[0])
    mag = sum((np.abs(t) for t in terms[1:]), np.abs(terms[0]))
    return total + gamma_n(len(terms) + 1) * mag + TINY


# ------------------------------------------------------------------------------------------ the tables
def check_model(model, what: str = "the class-level evaluator") -> None:
    """Refuse what the evaluator does not handle, naming it."""
    if model.depth != 1:
        raise ClassModelError(f"{what} needs a one-layer model; {model.name or 'this model'} has {model.depth}")
    if model.period is None:
        raise ClassModelError(f"{what} needs periodic positional encodings (or none); this model's are a function")
    if model.tau is None:
        raise ClassModelError(f"{what} needs translation-invariant local phi; this model has a general phi")
    mlp = model.layers[0].mlp
    if mlp is not None and mlp.heaviside_mask.any():
        raise ClassModelError(f"{what} handles ReLU MLPs (or none); this model has Heaviside units")


def _largest(arr) -> Fraction:
    arr = np.asarray(arr, dtype=object).reshape(-1)
    return max((abs(x) for x in arr), default=Fraction(0))


def check_magnitudes(model, cm: ClassModel) -> None:
    """Refuse a model with an exact quantity beyond ``MAX_MAGNITUDE`` (named): its weights, its class inputs, logits
    and values (:class:`bounds.class_model.ClassModel`), phi, MLP and unembedding.  Values below the double range
    are kept (their enclosures never round to a false 0: :func:`bounds.float_enclosures.ball`)."""
    parts = [("a class input (embedding plus position)", cm.inputs), ("the unembedding", model.unembedding)]
    for h, (logits, values, phi) in enumerate(cm.heads):
        parts += [(f"a logit of head {h}", logits), (f"a value vector of head {h}", values),
                  (f"a phi value of head {h}", np.array(phi, dtype=object))]
    mlp = model.layers[0].mlp
    if mlp is not None:
        parts += [("an MLP weight (A)", mlp.A), ("an MLP bias", mlp.b), ("an MLP weight (B)", mlp.B)]
    for what, arr in parts:
        big = _largest(arr)
        if big > MAX_MAGNITUDE:
            raise ClassModelError(f"{what} of {model.name or 'the model'} has magnitude about 10^{_log10(big)}, above "
                                  "the limit MAX_MAGNITUDE = 2^128 of the certified float64 evaluation")


def _log10(x: Fraction) -> int:
    return int((x.numerator.bit_length() - x.denominator.bit_length()) * 0.30103)


def float_bounds_of_int(p: int) -> tuple[float, float]:
    """Doubles (below, above) an integer (``inf`` above for one beyond the double range), for comparisons that
    must err on a stated side (a precision of 10^400 bits is a legal file)."""
    if p.bit_length() <= 53:
        return float(p), float(p)
    if p.bit_length() > 1023:
        return float(2**1023), math.inf
    f = float(p)
    lo = f if int(f) <= p else math.nextafter(f, -math.inf)
    hi = f if int(f) >= p else math.nextafter(f, math.inf)
    return lo, hi


def check_semantics(semantics: str) -> str:
    if semantics not in SEMANTICS:
        raise ClassModelError(f"unknown semantics {semantics!r}; use one of {SEMANTICS}")
    return semantics


@dataclass
class ModelTables:
    """Per-class quantities of one model at the pair period (exact logits, Balls for the rest)."""

    model: object
    semantics: str
    cm: ClassModel  # exact: inputs y_c, per head (logits [q, c], values V y_c, phi)
    Ay: Ball  # classes x J: A y_c + b (the query's pre-activation part)
    Uy: Ball  # classes x m: U y_c
    AV: list  # per head: classes x J (A V y_c)
    UV: list  # per head: classes x m (U V y_c)
    w: Ball  # m x J: U B
    A_rows: np.ndarray | None  # exact (A | b) rows, for merging identical units

    @classmethod
    def of(cls, model, delta: int, semantics: str) -> ModelTables:
        check_model(model)
        cm = ClassModel.of(model, delta)
        check_magnitudes(model, cm)
        X = ball(cm.inputs)
        mlp = model.layers[0].mlp
        Um = ball(model.unembedding)
        Uy = matmul(X, Um.T)
        if mlp is not None:
            A, b, B = ball(mlp.A), ball(mlp.b), ball(mlp.B)
            Ay = add(matmul(X, A.T), Ball(b.mid[None, :], b.rad[None, :]))
            w = matmul(Um, B)
            rows = np.concatenate([mlp.A, mlp.b[:, None]], axis=1)
        else:
            C = cm.inputs.shape[0]
            Ay, w, rows = Ball(np.zeros((C, 0)), np.zeros((C, 0))), Ball(np.zeros((Um.mid.shape[0], 0)),
                                                                          np.zeros((Um.mid.shape[0], 0))), None
            A = None
        AV, UV = [], []
        for _, values, _ in cm.heads:
            Vy = ball(values)
            AV.append(matmul(Vy, A.T) if A is not None else Ball(np.zeros((Vy.mid.shape[0], 0)),
                                                                 np.zeros((Vy.mid.shape[0], 0))))
            UV.append(matmul(Vy, Um.T))
        return cls(model, check_semantics(semantics), cm, Ay, Uy, AV, UV, w, rows)

    @property
    def bits(self) -> int:
        return self.model.precision_bits


def same_stream(a: ModelTables, b: ModelTables) -> bool:
    """True when both models compute the same residual stream Y on every input (equal class inputs, heads, phi and
    attention semantics, exactly)."""
    if a.semantics != b.semantics or (a.semantics == "izzo" and a.bits != b.bits):
        return False
    if a.cm.inputs.shape != b.cm.inputs.shape or not np.all(a.cm.inputs == b.cm.inputs):
        return False
    if len(a.cm.heads) != len(b.cm.heads):
        return False
    for (la, va, pa), (lb, vb, pb) in zip(a.cm.heads, b.cm.heads, strict=True):
        if not (np.all(la == lb) and np.all(va == vb)):
            return False
        if tuple(pa) + (0,) * max(0, len(pb) - len(pa)) != tuple(pb) + (0,) * max(0, len(pa) - len(pb)):
            return False
    return True


@dataclass
class Window:
    """The entries of one window: every prefix class (token t, residue r; ``$`` only at residue 0), then the slots.

    ``classes[e]`` is the class of entry e (a prefix class, or the slot's class); ``slot[e]`` its slot index or -1.
    """

    delta: int
    sigma: int
    window: tuple

    def __post_init__(self):
        prefix = [0] + [t * self.delta + r for t in range(1, self.sigma + 1) for r in range(self.delta)]
        self.prefix = prefix
        self.classes = np.array(prefix + list(self.window), dtype=np.int64)
        self.slot = np.array([-1] * len(prefix) + list(range(len(self.window))), dtype=np.int64)
        self.residue = self.classes % self.delta
        self.token = self.classes // self.delta
        bos_entry = (self.classes == 0) & (self.slot < 0) & (self.window[0] != 0)
        self.always = (self.slot >= 0) | bos_entry  # present on every input with this window

    @property
    def E(self) -> int:
        return len(self.classes)

    @property
    def query(self) -> int:
        return self.window[-1]

    @property
    def has_bos(self) -> bool:
        return self.window[0] == 0


@dataclass
class HeadSpec:
    """One attention head of the network: exact logits per entry, their gaps, the semantics."""

    logits: list  # E Fractions
    gap: Ball  # E x E: logits[a] - logits[b] (exact zeros kept)
    rank: np.ndarray  # E: rank of the exact logit (equal logits equal rank)
    G: Ball  # E: a_max - a_e over every entry
    semantics: str
    bits: int


def _head_spec(logits: list, semantics: str, bits: int) -> HeadSpec:
    E = len(logits)
    gap = np.empty((E, E), dtype=object)
    for i in range(E):
        for j in range(E):
            gap[i, j] = logits[i] - logits[j]
    distinct = sorted(set(logits))
    rank = np.array([distinct.index(a) for a in logits], dtype=np.int64)
    top = max(logits)
    G = ball(np.array([top - a for a in logits], dtype=object))
    gb = ball(gap)
    zero = gap == 0
    gb = Ball(np.where(zero, 0.0, gb.mid), np.where(zero, 0.0, gb.rad))
    G = Ball(np.where(np.array([top == a for a in logits]), 0.0, G.mid),
             np.where(np.array([top == a for a in logits]), 0.0, G.rad))
    return HeadSpec(list(logits), gb, rank, G, semantics, bits)


def _entry_logits(cm: ClassModel, head: int, win: Window) -> list:
    logits, _, phi = cm.heads[head]
    q = win.query
    w = len(win.window)
    out = [logits[q, c] for c in win.prefix]
    for s, c in enumerate(win.window):
        off = w - 1 - s
        out.append(logits[q, c] + (phi[off] if off < len(phi) else 0))
    return out


@dataclass
class DiffNet:
    """``D = kappa + sum_h lambda_h . ell_h + sum_j w_j relu(alpha_j + sum_h lambda_h . beta_hj)`` on one window and
    one output coordinate (module docstring).  ``negated()`` is the network of -D."""

    win: Window
    heads: list  # HeadSpec
    kappa: Ball  # scalar (shape ())
    ell: list  # per head: Ball (E,)
    alpha: Ball  # (J,)
    beta: list  # per head: Ball (J, E)
    w: Ball  # (J,)

    def negated(self) -> DiffNet:
        neg = lambda b: Ball(-b.mid, b.rad)  # noqa: E731
        return DiffNet(self.win, self.heads, neg(self.kappa), [neg(e) for e in self.ell], self.alpha, self.beta,
                       neg(self.w))

    @property
    def is_zero(self) -> bool:
        return (not self.kappa.mid.any() and not self.kappa.rad.any() and all(not e.mid.any() and not e.rad.any()
                                                                             for e in self.ell)
                and not self.w.mid.any() and not self.w.rad.any())


def _sel(b: Ball, idx, col=None) -> Ball:
    if col is None:
        return Ball(b.mid[idx], b.rad[idx])
    return Ball(b.mid[idx, col], b.rad[idx, col])


def diff_net(tf: ModelTables, tg: ModelTables | None, win: Window, out: int) -> DiffNet:
    """The network of ``f - g`` (or of f alone when ``tg`` is None) on window ``win``, output coordinate ``out``."""
    q = win.query
    cls = win.classes
    shared = tg is not None and same_stream(tf, tg)
    heads, ell, betas, alphas, ws = [], [], [], [], []
    E = win.E

    def add_model(t: ModelTables, sign: int, with_heads: bool, head_index: list):
        for h in range(len(t.cm.heads)):
            if with_heads:
                heads.append(_head_spec(_entry_logits(t.cm, h, win), t.semantics, t.bits))
                head_index.append(len(heads) - 1)
                ell.append(Ball(np.zeros(E), np.zeros(E)))
            k = head_index[h]
            uv = _sel(t.UV[h], cls, out)
            ell[k] = add(ell[k], Ball(sign * uv.mid, uv.rad))

    f_idx: list = []
    add_model(tf, 1, True, f_idx)
    g_idx = f_idx if shared else []
    if shared:  # one stream: kappa and ell exactly from U_f - U_g (zero when the unembeddings are equal)
        dx = tf.model.unembedding[out] - tg.model.unembedding[out]
        du = ball(dx)
        zero = not any(v != 0 for v in dx)
        kappa = Ball(np.zeros(()), np.zeros(())) if zero else matmul(ball(tf.cm.inputs[q]), du)
        for h in range(len(tf.cm.heads)):
            ell[f_idx[h]] = Ball(np.zeros(E), np.zeros(E)) if zero else matmul(ball(tf.cm.heads[h][1][cls]), du)
    else:
        kappa = _sel(tf.Uy, q, out)
        if tg is not None:
            add_model(tg, -1, True, g_idx)
            kg = _sel(tg.Uy, q, out)
            kappa = add(kappa, Ball(-kg.mid, kg.rad))

    # hidden units: (alpha, [beta per head], w), merged by exact (A_j | b_j) when the stream is shared
    units: dict = {}
    order: list = []

    def add_units(t: ModelTables, sign: int, idx: list, merge: bool):
        J = t.Ay.mid.shape[1]
        if J == 0:
            return
        alpha = _sel(t.Ay, q)
        mlp = t.model.layers[0].mlp
        for j in range(J):
            key = (tuple(t.A_rows[j]),) if merge else (id(t), j)
            if merge:  # exact weight, so that equal units cancel exactly
                wx = sign * sum((a * b for a, b in zip(t.model.unembedding[out], mlp.B[:, j], strict=True)),
                                Fraction(0))
                if key in units:
                    units[key][3] += wx
                    continue
                units[key] = [Ball(alpha.mid[j], alpha.rad[j]),
                              {idx[h]: Ball(t.AV[h].mid[cls, j], t.AV[h].rad[cls, j]) for h in range(len(t.cm.heads))},
                              None, wx]
                order.append(key)
                continue
            units[key] = [Ball(alpha.mid[j], alpha.rad[j]),
                          {idx[h]: Ball(t.AV[h].mid[cls, j], t.AV[h].rad[cls, j]) for h in range(len(t.cm.heads))},
                          Ball(sign * t.w.mid[out, j], t.w.rad[out, j]), None]
            order.append(key)

    add_units(tf, 1, f_idx, shared)
    if tg is not None:
        add_units(tg, -1, g_idx, shared)
    order = [k for k in order if units[k][2] is not None or units[k][3] != 0]
    for k in order:
        if units[k][2] is None:
            wb = ball(np.array([units[k][3]], dtype=object))
            units[k][2] = Ball(wb.mid[0], wb.rad[0])
    keep = [k for k in order if units[k][2].mid != 0 or units[k][2].rad != 0]
    J = len(keep)
    for _ in heads:
        betas.append(Ball(np.zeros((J, E)), np.zeros((J, E))))
    am, ar, wm, wr = np.zeros(J), np.zeros(J), np.zeros(J), np.zeros(J)
    for j, k in enumerate(keep):
        a, beta, wj, _ = units[k]
        am[j], ar[j], wm[j], wr[j] = a.mid, a.rad, wj.mid, wj.rad
        for h, b in beta.items():
            betas[h].mid[j], betas[h].rad[j] = b.mid, b.rad
    alphas = Ball(am, ar)
    ws = Ball(wm, wr)
    return DiffNet(win, heads, Ball(np.asarray(kappa.mid), np.asarray(kappa.rad)), ell, alphas, betas, ws)


# ------------------------------------------------------------------------------------------- weights
def weight_box(head: HeadSpec, win: Window, pi_lo, pi_hi, s_lo, s_hi, keep=None, present=None):
    """Enclosure [u_lo, u_hi] (B, E) of the normalized weights of one head.

    ``pi_lo/pi_hi`` (B, E): the entries' masses (count / n); ``s_lo/s_hi`` (B,): ln n (``s_hi = inf`` for rho = 0).
    ``keep`` (B, E) bool: exact izzo keep decisions (a concrete input); otherwise izzo decisions are relaxed
    (a term that may or may not be flushed gets lower weight 0); ``present`` (B, E) bool: entries known to occur
    (count >= 1) even where ``pi_lo`` is 0 (used by the izzo relaxation)."""
    lpi_lo, lpi_hi = log_bounds(pi_lo, pi_hi)
    Gl, Gh = head.G.lower, head.G.upper
    Gl = np.where(head.G.mid == 0, 0.0, np.maximum(Gl, 0.0))
    Gh = np.where(head.G.mid == 0, 0.0, Gh)
    with np.errstate(invalid="ignore"):
        t_hi = np.where(Gl[None, :] == 0, 0.0, Gl[None, :] * s_lo[:, None])  # smallest G s
        t_lo = np.where(Gh[None, :] == 0, 0.0, Gh[None, :] * s_hi[:, None])  # largest G s
    t_hi = _down(t_hi)
    t_lo = np.where(np.isinf(t_lo), np.inf, _up(t_lo))
    x_hi = lpi_hi - t_hi
    x_lo = np.where(np.isinf(t_lo), -np.inf, lpi_lo - t_lo)
    finite = np.isfinite(x_hi)
    shift = np.where(finite, x_hi, -np.inf).max(axis=1, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0.0)
    mag_hi = np.where(finite, np.abs(lpi_hi) + np.abs(t_hi), 0.0) + np.abs(shift)
    mag_lo = np.abs(np.where(np.isfinite(lpi_lo), lpi_lo, 0)) + np.abs(np.where(np.isfinite(t_lo), t_lo, 0)) \
        + np.abs(shift)
    pad_hi = 4 * U * mag_hi + TINY
    pad_lo = 4 * U * mag_lo + TINY
    with np.errstate(invalid="ignore"):
        u_lo, u_hi = exp_bounds(x_lo - shift - pad_lo, x_hi - shift + pad_hi)
    if head.semantics == "izzo":
        if keep is not None:
            u_lo, u_hi = np.where(keep, u_lo, 0.0), np.where(keep, u_hi, 0.0)
        else:
            u_lo, u_hi = _izzo_relax(head, win, pi_lo, pi_hi, s_lo, s_hi, u_lo, u_hi, present)
    return u_lo, u_hi


def _izzo_relax(head: HeadSpec, win: Window, pi_lo, pi_hi, s_lo, s_hi, u_lo, u_hi, present=None):
    """Relaxed izzo flush over a box: the present maximum lies between the best surely-present entry and the best
    possibly-present one; a term is surely flushed when even the first gives ``g ln n / ln 2 >= p``, surely kept when
    even the second gives ``< p``, and otherwise weighs anything in [0, u_hi]."""
    rank = head.rank
    surely = (pi_lo > 0) | win.always[None, :]
    if present is not None:
        surely = surely | present
    maybe = (pi_hi > 0) | win.always[None, :]
    # a residue r with surely at least one key: some token of r is present, at least the lowest-ranked possible one
    B, E = pi_lo.shape
    best_lo = np.where(surely, rank[None, :], -1).max(axis=1)
    prefix = win.slot < 0
    for r in range(win.delta):
        sel = prefix & (win.residue == r) & (win.token > 0)
        if not sel.any():
            continue
        mass_lo = pi_lo[:, sel].sum(axis=1)
        cand = np.where(maybe[:, sel], rank[None, sel], np.iinfo(np.int64).max).min(axis=1)
        best_lo = np.where(mass_lo > 0, np.maximum(best_lo, cand), best_lo)
    best_hi = np.where(maybe, rank[None, :], -1).max(axis=1)
    # an entry of each rank (exact logits are equal within a rank)
    rep = np.zeros(rank.max() + 1, dtype=np.int64)
    for e in range(E):
        rep[rank[e]] = e
    e_lo, e_hi = rep[np.maximum(best_lo, 0)], rep[best_hi]
    ln2 = math.log(2)
    g_lo = head.gap.lower[e_lo]  # (B, E): a(best surely present) - a_e, lower bound
    g_hi = head.gap.upper[e_hi]
    g_lo = np.where(head.gap.mid[e_lo] == 0, 0.0, g_lo)
    g_hi = np.where(head.gap.mid[e_hi] == 0, 0.0, g_hi)
    p_lo, p_hi = float_bounds_of_int(head.bits)  # surely flushed above p_hi >= p, surely kept below p_lo <= p
    with np.errstate(invalid="ignore"):
        fl = (best_lo[:, None] >= 0) & (g_lo > 0) & (_down(g_lo * _down(s_lo[:, None] / ln2 * (1 - 2 * LIBM_REL)))
                                                     >= p_hi)
        kept = (g_hi <= 0) | (np.isfinite(s_hi[:, None]) & (_up(g_hi * _up(s_hi[:, None] / ln2
                                                                              * (1 + 2 * LIBM_REL))) < p_lo))
    u_hi = np.where(fl, 0.0, u_hi)
    u_lo = np.where(fl | ~kept, 0.0, u_lo)
    return u_lo, u_hi


def izzo_keep(head: HeadSpec, counts_present: np.ndarray, n: int) -> np.ndarray:
    """Exact izzo keep mask (E,) of one head at a concrete input: entries present (count > 0) and not flushed
    relative to the largest present logit (``flushes``, exact)."""
    top = max(a for a, pr in zip(head.logits, counts_present, strict=True) if pr)
    return np.array([bool(pr) and not flushes(top - a, n, head.bits) for a, pr in
                     zip(head.logits, counts_present, strict=True)])


# ---------------------------------------------------------------------------------------------- bounds
def _alternatives(w) -> list:
    """A head's weight enclosures: one (u_lo, u_hi) or a list of them, each enclosing the weights up to a positive
    factor per box (:mod:`bounds.certify.weight_ratios`)."""
    return [w] if isinstance(w, tuple) else list(w)


def _lf_max_best(P, alts, order=None):
    """min over the enclosures of their certified ``lf_max`` (each bounds the same maximum)."""
    return np.minimum.reduce([lf_max(P, lo, hi, order)[0] for lo, hi in alts])


THIN = 1e-6  # a weight box this thin (relative) is a point: its linear-fractional bounds use interval weights


def _thin_weights(alts: list, fast: bool = False):
    """Interval normalized weights (mid, rad) (B, E) when the head has one enclosure of relative width <= THIN
    (a concrete input), else None.  ``lambda_e = u_e / sum u`` lies in ``[lo_e / sum hi, hi_e / sum lo]``.

    ``fast`` (for :func:`_thin_dot`): a weight that may be at most ``SMALL`` is set to 0 (the products bound
    its part by ``SMALL |P|``) and every other radius is at least ``SMALL``, so that no product of two of
    these numbers is subnormal (subnormal arithmetic is some 30 times slower)."""
    if len(alts) != 1:
        return None
    lo, hi = alts[0]
    if not np.all(hi - lo <= THIN * hi):
        return None
    E = lo.shape[-1]
    s_lo = lo.sum(axis=-1, keepdims=True) * (1 - gamma_n(E + 1))
    s_hi = hi.sum(axis=-1, keepdims=True) * (1 + gamma_n(E + 1)) + TINY
    if not np.all(s_lo > 0):
        return None
    lam_lo = lo / s_hi * (1 - 2 * U)
    lam_hi = hi / s_lo * (1 + 2 * U) + TINY
    mid = (lam_lo + lam_hi) / 2
    rad = (lam_hi - lam_lo) / 2 * (1 + 4 * U) + 2 * U * np.abs(mid) + TINY
    if fast:
        small = mid + rad <= SMALL  # lambda_e in [mid - rad, mid + rad], and lambda_e >= 0
        mid, rad = np.where(small, 0.0, mid), np.where(small, 0.0, np.maximum(rad, SMALL))
    return mid, rad


SMALL = 2.0**-500  # below this, weights and values enter :func:`_thin_dot` through its error term


def _thin_dot(P: np.ndarray, lam) -> np.ndarray:
    """:func:`_lin_max_thin` (B, J) for the thin weights of ``_thin_weights(..., fast=True)``, with no subnormal
    operand: each ``|P_je| <= SMALL`` is set to 0 and bounded by ``SMALL (|mid_e| + rad_e)``; each weight set to 0 is
    bounded by ``SMALL |P_je|`` (both in the error term).  Every remaining product is of two numbers >= SMALL =
    2^-500 in magnitude (or 0), so it is normal.  One product ``[mid | rad] . [P | |P|]`` (2E terms); every error
    term is an outer sum of (B,) and (J,) vectors."""
    mid, rad = lam
    E = P.shape[-1]
    absP0 = np.abs(P)
    P = np.where(absP0 <= SMALL, 0.0, P)
    absP = np.abs(P)
    mag = np.abs(mid) + rad
    v = np.concatenate([mid, rad], axis=-1) @ np.concatenate([P, absP], axis=-1).T
    up = 1 + gamma_n(E + 1)  # the sums of E magnitudes below, rounded up
    msum, pmax, psum = mag.sum(axis=-1) * up, absP.max(axis=-1, initial=0.0), absP0.sum(axis=-1) * up
    # |v| <= msum pmax exactly; the product's rounding <= 2 gamma_(2E+2) msum pmax; the final sum's <= U |v + C|
    C = (((2 * gamma_n(2 * E + 2) + 8 * U) * msum)[:, None] * pmax[None, :]
         + (SMALL * (1 + 8 * U) * (psum[None, :] + msum[:, None]) + 2 * TINY))
    return v + C


def _lin_max_thin(P: np.ndarray, lam) -> np.ndarray:
    """Upper bound (B, J) of ``max lambda . P_j`` over the interval weights ``lam = (mid, rad)`` (B, E), P (J, E):
    ``mid . P + rad . |P|`` plus the rounding of both products (Higham's gamma_E)."""
    mid, rad = lam
    E = P.shape[-1]
    absP = np.abs(P)
    v = mid @ P.T + rad @ absP.T
    err = gamma_n(E + 2) * ((np.abs(mid) + rad) @ absP.T) + TINY
    return v + err


def preactivations(net: DiffNet, weights: list, lams=None):
    """Certified ranges (z_lo, z_hi) (B, J) of the hidden units' pre-activations over the boxes: per head exact
    (sorted scans of :func:`lf_max`), or interval products at concrete inputs (``lams``: per head the thin weights
    of :func:`_thin_weights` or None), summed."""
    weights = [_alternatives(w) for w in weights]
    B = weights[0][0][0].shape[0] if weights else 1
    J = net.alpha.mid.shape[0]
    # pre-activation ranges, per head exact (sorted scans), summed
    z_hi_terms, z_lo_terms = [np.broadcast_to(net.alpha.upper, (B, J))], [np.broadcast_to(-net.alpha.lower,
                                                                                          (B, J))]
    for h, alts in enumerate(weights):
        bh, bl = net.beta[h].upper, net.beta[h].lower
        if not (bh.any() or bl.any()):
            continue
        lam = _thin_weights(alts) if lams is None else lams[h]
        if lam is not None:  # a concrete input: two matrix products instead of J sorted scans
            dot = _lin_max_thin if lams is None else _thin_dot
            z_hi_terms.append(dot(bh, lam))
            z_lo_terms.append(dot(-bl, lam))
            continue
        z_hi_terms.append(_lf_max_best(bh[None, :, :], [(lo[:, None, :], hi[:, None, :]) for lo, hi in alts],
                                       _orders(net, h)[0][None]))
        z_lo_terms.append(_lf_max_best(-bl[None, :, :], [(lo[:, None, :], hi[:, None, :]) for lo, hi in alts],
                                       _orders(net, h)[1][None]))
    return -_sum_up(z_lo_terms), _sum_up(z_hi_terms)


def upper_bound(net: DiffNet, weights: list, fast: bool = False, pre=None) -> np.ndarray:
    """Certified upper bound (B,) of D over the boxes whose per-head weight enclosures are ``weights``
    (a list, one per head of ``net``, of (u_lo, u_hi) or of several such enclosures: the best bound is used).

    ``fast``: at concrete inputs (a head's weights thin, :func:`_thin_weights`) the pre-activations' products avoid
    subnormal operands (:func:`_thin_dot`), and a net and its negation share them; ``pre``: ``(thin weights, (z_lo, z_hi))`` already computed for this batch
    (:func:`fast_pre`; the pre-activations of a net and of its negation are the same)."""
    weights = [_alternatives(w) for w in weights]
    B = weights[0][0][0].shape[0] if weights else 1
    J = net.alpha.mid.shape[0]
    K_terms = [np.broadcast_to(net.kappa.upper, (B,))]
    if fast and pre is None:
        pre = fast_pre(net, weights)
    if J:
        z_lo, z_hi = pre[1] if fast else preactivations(net, weights)
        w_hi = net.w.upper  # (J,)
        active, inactive = z_lo >= 0, z_hi <= 0
        unstable = ~(active | inactive)
        zmag = np.maximum(np.abs(z_lo), np.abs(z_hi))
        if fast and not unstable.any():  # every unit stable (a concrete input, mostly): the same S and T, fewer steps
            S = np.where(active, w_hi[None, :], 0.0)
            T = 2 * U * (np.abs(S) * zmag) + TINY * 4
        else:
            pos = w_hi >= 0
            with np.errstate(divide="ignore", invalid="ignore"):
                chord = np.where(unstable, z_hi / (z_hi - z_lo), 0.0) * (1 + 4 * U)
                chord_t = np.where(unstable, -chord * z_lo, 0.0) * (1 + 2 * U)
            s_up = np.where(active, 1.0, np.where(unstable, chord, 0.0))
            t_up = np.where(unstable, chord_t, 0.0)
            a_low = np.where(active | (unstable & (z_hi >= -z_lo)), 1.0, 0.0)
            S = np.where(pos[None, :], w_hi[None, :] * s_up, w_hi[None, :] * a_low)
            T = np.where(pos[None, :], w_hi[None, :] * t_up, 0.0)
            T = T + 2 * U * (np.abs(S) * zmag + np.abs(T)) + TINY * 4  # rounding of S and T themselves
        Sb = Ball(S, np.zeros_like(S))
        Ka = matmul(Sb, net.alpha)  # (B,)
        K_terms += [Ka.upper, T.sum(axis=1) + gamma_n(J + 1) * np.abs(T).sum(axis=1) + TINY]
    total = [_sum_up(K_terms)]
    for h, alts in enumerate(weights):
        P = Ball(np.broadcast_to(net.ell[h].mid, (B, net.win.E)), np.broadcast_to(net.ell[h].rad, (B, net.win.E)))
        if J:
            P = add(P, matmul(Sb, net.beta[h]))
        total.append(_lf_max_best(P.upper, alts))
    return _sum_up(total)


def _orders(net: DiffNet, h: int):
    cache = net.__dict__.setdefault("_order_cache", {})
    if h not in cache:
        cache[h] = (np.argsort(-net.beta[h].upper, axis=-1, kind="stable"),
                    np.argsort(net.beta[h].lower, axis=-1, kind="stable"))
    return cache[h]


def fast_pre(net: DiffNet, weights: list):
    """(thin weights per head, pre-activation ranges) of :func:`upper_bound`'s fast path, shared by a net and its
    negation."""
    lams = [_thin_weights(_alternatives(w), fast=True) for w in weights]
    return lams, (preactivations(net, weights, lams) if net.alpha.mid.shape[0] else None)


def bound_D(net: DiffNet, neg: DiffNet, weights: list, fast: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Certified (lower, upper) of D over the boxes (``weights`` and ``fast`` as for :func:`upper_bound`)."""
    if net.is_zero:
        B = _alternatives(weights[0])[0][0].shape[0] if weights else 1
        return np.zeros(B), np.zeros(B)
    pre = fast_pre(net, weights) if fast else None
    return -upper_bound(neg, weights, fast, pre), upper_bound(net, weights, fast, pre)


# ------------------------------------------------------------------------------------------ concrete inputs
class PairEvaluator:
    """Certified enclosures of ``f - g`` (or of f) at concrete inputs, per window and output coordinate.

    ``semantics``: (f's, g's), each "softmax" or "izzo" (the model's p).  ``period``: a period the classes must also
    resolve (a target's; the pair's period becomes the least common multiple)."""

    def __init__(self, f, g=None, semantics=("softmax", "softmax"), period: int | None = None):
        self.f, self.g = f, g
        self.delta = pair_period(f, g) if g is not None else (f.period or 1)
        if period is not None:
            self.delta = math.lcm(self.delta, period)
        self.tau = max(f.tau, g.tau) if g is not None else f.tau
        self.sigma = len(f.alphabet)
        if g is not None and g.alphabet != f.alphabet:
            raise ClassModelError(f"the models have different alphabets: {list(f.alphabet)} and {list(g.alphabet)}")
        self.tf = ModelTables.of(f, self.delta, semantics[0])
        self.tg = ModelTables.of(g, self.delta, semantics[1]) if g is not None else None
        self.outputs = f.output_dim
        if g is not None and g.output_dim != f.output_dim:
            raise ClassModelError(f"output sizes differ: {f.output_dim} and {g.output_dim}")
        self._nets: dict = {}

    def nets(self, window: tuple):
        """(Window, [(net, negated net) per output coordinate]) of a window (cached)."""
        if window not in self._nets:
            win = Window(self.delta, self.sigma, tuple(window))
            nets = []
            for o in range(self.outputs):
                net = diff_net(self.tf, self.tg, win, o)
                nets.append((net, net.negated()))
            self._nets[window] = (win, nets)
        return self._nets[window]

    def masses(self, win: Window, counts: list, n: int):
        """Exact masses (count / n) of a batch of count dicts as float enclosures (B, E), and presence."""
        B = len(counts)
        num = np.zeros((B, win.E), dtype=object)
        for b, cnt in enumerate(counts):
            for e, c in enumerate(win.prefix):
                num[b, e] = cnt.get(c, 0)
            num[b, len(win.prefix):] = 1
        present = num != 0
        if n < 2**53:  # counts and n are exact doubles: IEEE division is correctly rounded (relative error <= u)
            q = num.astype(np.float64) / float(n)
            lo, hi = q * (1 - 2 * U), q * (1 + 2 * U) + TINY
        else:
            enc = ball(np.vectorize(lambda k: Fraction(int(k), n), otypes=[object])(num))
            lo, hi = np.maximum(enc.lower, 0.0), enc.upper
        lo, hi = np.where(present, lo, 0.0), np.where(present, hi, 0.0)
        return lo, hi, present

    def enclose(self, counts: list, window: tuple, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Certified (lower, upper) arrays (B, outputs) of ``f - g`` (or f) at the inputs of model length ``n`` with
        window ``window`` and the given class counts outside it (``$`` included as class 0 when not in the window)."""
        win, nets = self.nets(tuple(window))
        lo_m, hi_m, present = self.masses(win, counts, n)
        s = math.log(n)
        s_lo = np.full(len(counts), s * (1 - 2 * LIBM_REL) - TINY)
        s_hi = np.full(len(counts), s * (1 + 2 * LIBM_REL) + TINY)
        weights = []
        for head in nets[0][0].heads:
            keep = None
            if head.semantics == "izzo":
                keep = np.stack([izzo_keep(head, present[b], n) for b in range(len(counts))])
            weights.append(weight_box(head, win, lo_m, hi_m, s_lo, s_hi, keep))
        out_lo, out_hi = [], []
        for net, neg in nets:
            lo, hi = bound_D(net, neg, weights)
            out_lo.append(lo)
            out_hi.append(hi)
        return np.stack(out_lo, axis=1), np.stack(out_hi, axis=1)


def enclose_output(model, counts: dict, window: tuple, n: int, semantics: str = "softmax"):
    """Certified (lower, upper) arrays (outputs,) of one model's last-position output on the input of model length
    ``n`` given by its class counts outside the window and its window (classes c = token * Delta + residue at the
    model's period; ``$`` = class 0)."""
    lo, hi = PairEvaluator(model, None, (semantics, semantics)).enclose([counts], window, n)
    return lo[0], hi[0]
