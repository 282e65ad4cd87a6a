"""Certified sup of ``|f - g|`` over every input: exact enumeration up to N0, interval branch-and-bound beyond.

Setting: Izzo et al. Theorem 4.1's models (one layer, Delta-periodic positions, tau-local phi), evaluated at the
class level (:mod:`bounds.certify.class_softmax`).  An input of model length n > w = tau + 1 is (k, window, counts): its
*phase* ``k = (n - w) mod Delta`` fixes how many of the positions 2..n-w carry each residue,
``count_r = m_r(rho) n`` with ``m_r(rho) = 1/Delta + rho d_(r,k)`` affine in ``rho = 1/n``
(:func:`bounds.true_threshold.positions_per_residue`), and the window's residues.  Per residue r the tokens share
``count_r`` in proportions ``theta_(t,r)`` (a simplex: the first |Sigma| - 1 are the box's free coordinates).  So
every input longer than N0 is a point of the compact domain

    rho in [0, 1/(N0 + 1)],  theta in prod_r simplex,  (k, window) finite,

and each of its boxes gets certified bounds of ``f - g`` (:func:`bounds.certify.class_softmax.bound_D`).  Branch-and-bound
keeps the boxes in a heap by their upper bound of ``|f - g|``, splits the worst (rho geometrically, ``[0, r]`` at
``r^2``: the weights are ``rho^G``), drops boxes that hold no length of their phase and boxes whose upper bound is
below the best *realized* lower bound: a box's centre rounded to a real input (n, counts), evaluated with the
certified evaluator.  ``U`` (the largest upper bound of an open box) is a certified upper bound of
``sup |f - g|`` over every length > N0; the realized input attaining ``L`` is the witness.

Up to N0 every configuration (:func:`bounds.true_threshold.configurations`) is evaluated: the max of ``|f - g|``
per length, certified to about 1e-11 (exact where the weights are rational: the hardmax regime).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from bounds.certify.class_softmax import (
    LIBM_REL,
    PairEvaluator,
    Window,
    _down,
    _head_spec,
    _up,
    bound_D,
    check_model,
    izzo_keep,
    log_bounds,
    weight_box,
)
from bounds.certify.horizon import find_horizon
from bounds.certify.weight_ratios import (
    log_ratio_bounds,
    ratio_box,
    reference,
    rho_mass,
    slope_difference_upper,
    split_candidates,
    transfer,
)
from bounds.float_enclosures import TINY, U
from bounds.margin import BoundsError
from bounds.true_threshold import configurations, count_configurations, positions_per_residue, witness_string

MAX_FREE = 24  # free coordinates of the branch-and-bound domain (Delta (|Sigma| - 1)); larger is refused
MAX_WINDOWS = 4096  # (phase, window) pieces of the domain
MAX_CONFIGS_PER_LENGTH = 400_000  # enumeration below N0
BATCH = 48  # boxes split per step
MAX_BOXES = 2_000_000  # boxes split by branch-and-bound (default of --max-boxes)
FIRST_LENGTH = 2  # smallest model length certified by default: the empty input ($ alone) is never trained


class CertifyError(BoundsError):
    """The pair is outside what the certifier handles, or a size is beyond its limits (named)."""


#: the certifier's clock (seconds); tests replace it with one that advances per unit of work
clock = time.perf_counter


class Deadline:
    """The time budget of a whole certificate: every phase (the enumeration of the short lengths, the first pass
    over the pieces, the splits, the local search) asks :meth:`expired` before each unit of work, so the command
    ends within its budget plus one unit."""

    def __init__(self, budget_s: float):
        self.t0 = clock()
        self.end = self.t0 + budget_s

    def expired(self) -> bool:
        return clock() >= self.end

    def left(self) -> float:
        return max(0.0, self.end - clock())

    def elapsed(self) -> float:
        return clock() - self.t0

    @classmethod
    def within(cls, budget_s: float, deadline: Deadline | None = None) -> Deadline:
        """A phase's deadline: ``budget_s`` seconds from now, or ``deadline`` (the whole command's) when it ends
        first."""
        own = cls(budget_s)
        return deadline if deadline is not None and deadline.end < own.end else own


# ------------------------------------------------------------------------------------------- targets
@dataclass
class Target:
    """A task's true function as a class-level function: ``map(z)``, ``z`` the mean over the entries of the support
    classes (prefix classes and window slots) of the value of their SYMBOL; 0 when the support is empty (the tasks'
    empty-class convention).  ModP (Izzo et al. sec. 5): support = task positions ``t = k (mod p)`` (a class of
    residue r mod Delta holds task positions t = r mod Delta, so p must divide the pair's period: the pair is
    evaluated at ``lcm(Delta, p)``), value = [symbol is '1'], map = identity; SimpleTask: support = symbols '0',
    '1' at every position, value +1 / -1, map = sin(omega z).

    A target is stated in symbols; :meth:`bind` maps them to a model's token ids (``alphabet[i]`` is token
    ``i + 1``) and its residues to the pair's period.  The model's alphabet must be the task's symbols."""

    name: str
    period: int | None  # the task's period p (None: every position)
    index: int  # support positions t = index (mod period)
    symbols: dict  # symbol -> value (symbols absent: not in the support)
    alphabet: tuple  # the task's alphabet
    omega: float | None = None  # None: identity map
    values: dict = field(default_factory=dict)  # bound: token id -> value
    residues: frozenset | None = None  # bound: support residues mod the pair's period (None: every residue)

    def bind(self, alphabet, delta: int) -> Target:
        """The target on a model with this ``alphabet`` and classes at period ``delta`` (a multiple of the task's
        period); a one-line :class:`CertifyError` when the alphabet is not the task's symbols."""
        if sorted(alphabet) != sorted(self.alphabet) or len(set(alphabet)) != len(alphabet):
            raise CertifyError(f"the model's alphabet {list(alphabet)} is not the task's symbols "
                               f"{list(self.alphabet)}: the target reads symbols by name")
        if self.period is not None and delta % self.period:
            raise CertifyError(f"the pair's period {delta} is not a multiple of the task's period {self.period}")
        values = {alphabet.index(sym) + 1: v for sym, v in self.symbols.items()}
        residues = None if self.period is None else frozenset(
            r for r in range(delta) if r % self.period == self.index % self.period)
        return Target(self.name, self.period, self.index, self.symbols, self.alphabet, self.omega, values, residues)

    def _z(self, win: Window, lo, hi, ratio=None):
        from bounds.certify.class_softmax import lf_max

        sup = np.array([t in self.values and (self.residues is None or r in self.residues)
                        for t, r in zip(win.token, win.residue, strict=True)])
        vals = np.broadcast_to(np.array([self.values.get(int(t), 0.0) for t in win.token], dtype=float), lo.shape)
        lo2, hi2 = np.where(sup, lo, 0.0), np.where(sup, hi, 0.0)
        zmax, empty = lf_max(vals, lo2, hi2)
        zmin, _ = lf_max(-vals, lo2, hi2)
        if ratio is not None:  # the masses up to a common factor (bounds.certify.weight_ratios): the better bound
            r_lo, r_hi = np.where(sup, ratio[0], 0.0), np.where(sup, ratio[1], 0.0)
            zmax = np.minimum(zmax, lf_max(vals, r_lo, r_hi)[0])
            zmin = np.minimum(zmin, lf_max(-vals, r_lo, r_hi)[0])
        maybe_empty = ~((lo2 > 0).any(axis=1))
        return -zmin, zmax, maybe_empty, empty

    def bounds(self, win: Window, lo, hi, ratio=None):
        """Enclosure (B,) of the target over boxes of entry masses [lo, hi] (and, optionally, of the masses up to a
        common factor per box: ``ratio = (lo, hi)``, where the support is known to occur)."""
        zmin, zmax, maybe_empty, empty = self._z(win, lo, hi, ratio)
        if self.omega is None:
            tlo, thi = zmin, zmax
        else:
            tlo, thi = _sin_range(self.omega * zmin, self.omega * zmax)
        tlo = np.where(maybe_empty, np.minimum(tlo, 0.0), tlo)
        thi = np.where(maybe_empty, np.maximum(thi, 0.0), thi)
        return np.where(empty, 0.0, tlo), np.where(empty, 0.0, thi)


def _sin_range(a, b):
    """Enclosure of sin over [a, b] (float arrays; a <= b), with 2^-40 padding for the libm."""
    a, b = _down(a), _up(b)
    lo = np.minimum(np.sin(a), np.sin(b)) - 2 * LIBM_REL - TINY
    hi = np.maximum(np.sin(a), np.sin(b)) + 2 * LIBM_REL + TINY
    k_max = np.ceil((a - np.pi / 2) / (2 * np.pi) - 1e-9)  # a peak pi/2 + 2 pi k inside [a, b]
    has_max = np.pi / 2 + 2 * np.pi * k_max <= b + 1e-9
    k_min = np.ceil((a + np.pi / 2) / (2 * np.pi) - 1e-9)
    has_min = -np.pi / 2 + 2 * np.pi * k_min <= b + 1e-9
    return np.where(has_min, -1.0, np.maximum(lo, -1.0)), np.where(has_max, 1.0, np.minimum(hi, 1.0))


def task_target(kind: str, params: dict) -> Target:
    """The true function of a ModP / SimpleTask (App. A.2's tasks) as a :class:`Target`."""
    from constructions.tasks.modp import ALPHABET as MODP_ALPHABET
    from constructions.tasks.simple import ALPHABET as SIMPLE_ALPHABET

    if kind == "modp":
        p, k = int(params["period"]), int(params.get("index", 0))
        return Target(f"modp(p={p},k={k}) target", p, k % p, {"0": 0.0, "1": 1.0}, MODP_ALPHABET)
    if kind == "simple":
        return Target(f"simple(omega={params['omega']}) target", None, 0, {"0": 1.0, "1": -1.0}, SIMPLE_ALPHABET,
                      float(Fraction(str(params["omega"]))))
    raise CertifyError(f"no target function for task {kind!r}")


# --------------------------------------------------------------------------------------------- the pair
class Problem:
    """f against g (a model or None) and optionally a :class:`Target` (then ``D = f - target``; g must be None)."""

    def __init__(self, f, g=None, semantics=("softmax", "softmax"), target: Target | None = None, fast: bool = True):
        if g is not None and target is not None:
            raise CertifyError("give either a model g or a target function, not both")
        for m in (f, g):  # the limits below, before the exact class tables are built (the work)
            if m is not None:
                check_model(m)
        periods = [f.period or 1, (g.period or 1) if g is not None else 1,
                   target.period if target is not None and target.period else 1]
        self.delta = math.lcm(*periods)
        self.tau = max(f.tau, g.tau) if g is not None else f.tau
        self.sigma = len(f.alphabet)
        # the target reads symbols by name, at the residues of the task's period within the pair's (a multiple)
        self.target = target.bind(tuple(f.alphabet), self.delta) if target is not None else None
        self.w = self.tau + 1
        self.free = self.delta * (self.sigma - 1)
        if self.free > MAX_FREE:
            raise CertifyError(f"the domain has {self.free} free coordinates (Delta (|Sigma| - 1)), above the limit "
                               f"MAX_FREE = {MAX_FREE}")
        pieces = self.delta * self.sigma**self.w
        if pieces > MAX_WINDOWS:
            raise CertifyError(f"{pieces} (phase, window) pieces (Delta |Sigma|^(tau+1)), above the limit "
                               f"MAX_WINDOWS = {MAX_WINDOWS}")
        self.ev = PairEvaluator(f, g, semantics, target.period if target is not None else None)
        self.fast = fast  # concrete inputs by bound_D's fast path (False: the earlier path, kept to compare)
        assert (self.ev.delta, self.ev.tau, self.ev.sigma) == (self.delta, self.tau, self.sigma)

    def heads(self, window: tuple) -> list:
        """The attention heads (:class:`bounds.certify.class_softmax.HeadSpec`) of the difference network on a window."""
        return self.ev.nets(tuple(window))[1][0][0].heads

    # D = f - g (- target) over a batch, as (lower, upper) of |D|
    def evaluate(self, win: Window, lo, hi, s_lo, s_hi, keep=None):
        weights = [weight_box(h, win, lo, hi, s_lo, s_hi, None if keep is None else keep[i])
                   for i, h in enumerate(self.heads(win.window))]
        return self.bound_abs(win, weights, lo, hi)

    def specs(self, window: tuple) -> list:
        """The heads of :meth:`heads`, then, with a target, the target as a head whose weights are the masses (every
        logit 0; :mod:`bounds.certify.weight_ratios`)."""
        heads = self.heads(window)
        if self.target is None:
            return heads
        win = self.ev.nets(tuple(window))[0]
        return heads + [_head_spec([Fraction(0)] * win.E, "softmax", 0)]

    def bound_abs(self, win: Window, weights: list, lo, hi, target_ratio=None):
        """(lower, upper) of max |D| over boxes given each head's weight enclosures (``bound_D``) and the entry
        masses [lo, hi] (for the target; ``target_ratio``: the masses up to a common factor)."""
        net_pairs = self.ev.nets(win.window)[1]
        Dl, Dh = [], []
        for net, neg in net_pairs:
            a, b = bound_D(net, neg, weights, self.fast)
            Dl.append(a)
            Dh.append(b)
        Dl, Dh = np.stack(Dl, axis=1), np.stack(Dh, axis=1)
        if self.target is not None:
            tl, th = self.target.bounds(win, lo, hi, target_ratio)
            Dl, Dh = _down(Dl - th[:, None]), _up(Dh - tl[:, None])
        abs_hi = np.maximum(Dh, -Dl).max(axis=1)
        abs_lo = np.maximum(np.maximum(Dl, -Dh), 0.0).max(axis=1)
        return abs_lo, abs_hi

    # ---- concrete inputs
    def point(self, counts: list, window: tuple, n: int):
        """Certified (lower, upper) of max |D| at concrete inputs (one window, model length n)."""
        win = self.ev.nets(tuple(window))[0]
        lo, hi, present = self.ev.masses(win, counts, n)
        s = math.log(n)
        B = len(counts)
        s_lo, s_hi = np.full(B, s * (1 - 2 * LIBM_REL) - TINY), np.full(B, s * (1 + 2 * LIBM_REL) + TINY)
        heads = self.ev.nets(tuple(window))[1][0][0].heads
        keep = None
        if any(h.semantics == "izzo" for h in heads):
            keep = [None if h.semantics != "izzo" else _keep_cached(h, present, n) for h in heads]
        return self.evaluate(win, lo, hi, s_lo, s_hi, keep)


def _keep_cached(head, present, n):
    cache: dict = {}
    out = np.zeros(present.shape, dtype=bool)
    for b in range(present.shape[0]):
        key = present[b].tobytes()
        if key not in cache:
            cache[key] = izzo_keep(head, present[b], n)
        out[b] = cache[key]
    return out


# ------------------------------------------------------------------------------------ lengths up to N0
@dataclass
class LengthRow:
    length: int
    configurations: int
    lower: float  # max over inputs of the certified lower end of |f - g| (attained by ``witness``)
    upper: float  # certified upper bound of max |f - g| at this length
    witness: str


CHUNK = 1024  # configurations evaluated per call (one unit of work between deadline checks)


def enumerate_length(prob: Problem, n: int, deadline: Deadline | None = None) -> LengthRow:
    """max |f - g| over every input of model length n (every class configuration), certified.  When ``deadline``
    expires first, the row is partial: its lower end is still attained by its witness, its upper end is ``inf``
    (``configurations`` then counts the inputs evaluated)."""
    groups: dict = {}
    for counts, window in configurations(n, prob.sigma, prob.delta, prob.tau):
        groups.setdefault(window, []).append(counts)
    best_lo, best_hi, arg = -1.0, 0.0, None
    total = 0
    for window, cs in groups.items():
        for s in range(0, len(cs), CHUNK):
            if deadline is not None and deadline.expired():
                return LengthRow(n, total, max(best_lo, 0.0), math.inf, "" if arg is None else
                                 witness_string(arg[0], arg[1], prob.delta, prob.ev.f.alphabet))
            chunk = cs[s:s + CHUNK]
            lo, hi = prob.point(chunk, window, n)
            total += len(chunk)
            i = int(np.argmax(lo))
            if lo[i] > best_lo:
                best_lo, arg = float(lo[i]), (chunk[i], window)
            best_hi = max(best_hi, float(hi.max()))
    return LengthRow(n, total, max(best_lo, 0.0), best_hi,
                     witness_string(arg[0], arg[1], prob.delta, prob.ev.f.alphabet))


def check_enumeration(prob: Problem, first: int, last: int) -> None:
    """Refuse, before any work, lengths ``first..last`` that must be enumerated but hold more configurations than
    ``MAX_CONFIGS_PER_LENGTH`` (counted by formula)."""
    for n in range(first, last + 1):
        count = count_configurations(n, prob.sigma, prob.delta, prob.tau)
        if count > MAX_CONFIGS_PER_LENGTH:
            raise CertifyError(f"length {n} has {count} input configurations, above the limit MAX_CONFIGS_PER_LENGTH "
                               f"= {MAX_CONFIGS_PER_LENGTH}; the lengths up to {last} must be enumerated "
                               "(Delta + tau + 2, the training length or --max-length)")


def enumerate_lengths(prob: Problem, budget_s: float, min_length: int, max_length: int | None = None,
                      progress=None, first: int = 1, deadline: Deadline | None = None) -> list[LengthRow]:
    """Rows for n = 1, 2, ... up to ``max_length`` if given, else while the next length's estimated time fits the
    budget (and at least up to ``min_length``); never past ``deadline`` (the last row is then partial: upper end
    ``inf``)."""
    rows: list[LengthRow] = []
    t0 = clock()
    rate = None  # seconds per configuration
    n = first
    while True:
        if max_length is not None and n > max_length:
            break
        if deadline is not None and deadline.expired():
            break
        count = count_configurations(n, prob.sigma, prob.delta, prob.tau)
        if count > MAX_CONFIGS_PER_LENGTH:
            if n <= min_length or (max_length is not None):
                raise CertifyError(f"length {n} has {count} input configurations, above the limit "
                                   f"MAX_CONFIGS_PER_LENGTH = {MAX_CONFIGS_PER_LENGTH}; lower the length")
            break
        if max_length is None and n > min_length and rate is not None:
            if clock() - t0 + rate * count > budget_s:
                break
        t1 = clock()
        rows.append(enumerate_length(prob, n, deadline))
        if rows[-1].upper == math.inf:
            break
        dt = clock() - t1
        rate = max(dt / max(count, 1), 1e-6)
        if progress:
            progress(n)
        n += 1
    return rows


# --------------------------------------------------------------------------------------- branch and bound
@dataclass
class Piece:
    """One (phase, window) piece of the long-input domain."""

    k: int
    window: tuple
    win: Window
    d: np.ndarray  # (Delta,): m_r(rho) = 1/Delta + rho d_r


def pieces(prob: Problem, deadline: Deadline | None = None) -> list[Piece]:
    """Every (phase, window) piece (``Delta |Sigma|^(tau+1)``); fewer when ``deadline`` expires first."""
    D, w, sig = prob.delta, prob.w, prob.sigma
    out = []
    for k in range(D):
        M0 = k + 10 * D
        per = positions_per_residue(M0, D)
        d = np.array([per[r] - (M0 - k) / D - (w + k) / D for r in range(D)])
        for toks in itertools.product(range(1, sig + 1), repeat=w):
            if deadline is not None and deadline.expired():
                return out
            window = tuple(t * D + (k + s) % D for s, t in enumerate(toks))
            out.append(Piece(k, window, prob.ev.nets(window)[0], d))
    return out


def box_masses(prob: Problem, piece: Piece, r_lo, r_hi, th_lo, th_hi):
    """Entry masses [lo, hi] (B, E) and ln n bounds of boxes of one piece; a feasibility mask (B,)."""
    D, sig = prob.delta, prob.sigma
    win = piece.win
    B = len(r_lo)
    m_a = 1.0 / D + r_lo[:, None] * piece.d[None, :]
    m_b = 1.0 / D + r_hi[:, None] * piece.d[None, :]
    m_lo, m_hi = _down(np.minimum(m_a, m_b)), _up(np.maximum(m_a, m_b))
    lo, hi = np.zeros((B, win.E)), np.zeros((B, win.E))
    feasible = np.all(th_hi >= th_lo, axis=1)
    for r in range(D):
        cols = slice(r * (sig - 1), (r + 1) * (sig - 1))
        tl, th = th_lo[:, cols], th_hi[:, cols]
        rest_lo = np.maximum(_down(1.0 - th.sum(axis=1) - 4 * U * sig), 0.0)
        rest_hi = np.minimum(_up(1.0 - tl.sum(axis=1) + 4 * U * sig), 1.0)
        feasible &= rest_hi >= 0
        for t in range(1, sig + 1):
            e = 1 + (t - 1) * D + r  # entry index of prefix class (t, r) (Window.prefix order)
            a, b = (tl[:, t - 1], th[:, t - 1]) if t < sig else (rest_lo, rest_hi)
            lo[:, e] = np.maximum(_down(m_lo[:, r] * a), 0.0)
            hi[:, e] = np.maximum(_up(m_hi[:, r] * b), 0.0)
    lo[:, 0], hi[:, 0] = r_lo, r_hi  # $: count 1
    P = len(win.prefix)
    lo[:, P:], hi[:, P:] = r_lo[:, None], r_hi[:, None]
    with np.errstate(divide="ignore"):
        s_lo = np.maximum(_down(-np.log(r_hi) * (1 - 2 * LIBM_REL)), 0.0)
        s_hi = np.where(r_lo > 0, _up(-np.log(np.where(r_lo > 0, r_lo, 1.0)) * (1 + 2 * LIBM_REL)), np.inf)
    return lo, hi, s_lo, s_hi, feasible


def _has_length(piece: Piece, prob: Problem, r_lo: float, r_hi: float) -> bool:
    """Some n in [1/r_hi, 1/r_lo] with n = w + k (mod Delta)."""
    n_min = math.ceil(1 / r_hi - 1e-9)
    n = n_min + ((prob.w + piece.k - n_min) % prob.delta)
    return r_lo == 0 or n <= 1 / r_lo + 1e-9


MAX_REALIZED_LENGTH = 10**300  # realized inputs are described by class counts; 1/n must stay a normal double


def _slope(head, win, a: int, b: int) -> float:
    """Gamma_b - Gamma_a of a head (:mod:`bounds.certify.weight_ratios`), as a float."""
    rm = rho_mass(win)
    return float(head.G.mid[b] - head.G.mid[a] + rm[b] - rm[a])


def _fit_length(prob: Problem, piece: Piece, n: int, n_min: int, n_max: int | None) -> int | None:
    """The length of the piece's phase nearest above ``n`` within ``[n_min, n_max]`` (``n_max`` None: up to
    MAX_REALIZED_LENGTH), or the nearest below when none is above; None when the range holds none."""
    top = MAX_REALIZED_LENGTH if n_max is None else min(n_max, MAX_REALIZED_LENGTH)
    n = min(max(n, n_min), top)
    n += (prob.w + piece.k - n) % prob.delta
    while n > top:
        n -= prob.delta
    return n if n >= n_min else None


def realize(prob: Problem, piece: Piece, rho: float, theta: np.ndarray, n_min: int, state=None, ratios=(),
            n_max: int | None = None):
    """A real input near (rho, theta) of length in ``[n_min, n_max]``: (counts, n), or None when that range holds
    no length of the piece's phase.  ``state`` (E,): entries required present (count >= 1) or absent (count 0);
    ``ratios``: (head, a, b, target) log-ratios ``ln u_b - ln u_a`` aimed at by moving counts within a residue (a
    heuristic: any real input gives a valid lower bound)."""
    D, sig, w = prob.delta, prob.sigma, prob.w
    n = _fit_length(prob, piece, int(round(1 / rho)) if rho > 0 else n_min, n_min, n_max)
    if n is None:
        return None
    M = n - w
    per = positions_per_residue(M, D)
    counts = {0: 1}
    win = piece.win
    entry = {int(c): e for e, c in enumerate(win.prefix)}
    for r in range(D):
        th = list(theta[r * (sig - 1):(r + 1) * (sig - 1)])
        th.append(max(0.0, 1.0 - sum(th)))
        tot = sum(th) or 1.0
        share = [x / tot * per[r] for x in th]
        base = [int(math.floor(x)) for x in share]
        left = per[r] - sum(base)
        for i in sorted(range(sig), key=lambda i: base[i] - share[i])[:left]:
            base[i] += 1
        for t, c in enumerate(base, 1):
            counts[t * D + r] = c
    if state is not None or ratios:
        _adjust_counts(prob, piece, counts, per, n, state, ratios, entry)
    return {c: v for c, v in counts.items() if v}, n


def _adjust_counts(prob, piece, counts, per, n, state, ratios, entry):
    D, sig = prob.delta, prob.sigma
    win = piece.win
    rm = rho_mass(win)

    def fix(c: int, want: int, keep: int | None = None):
        """Set class c's count to ``want`` (clamped by its state and residue), rebalancing its residue."""
        r = c % D
        e = entry[c]
        same = [t * D + r for t in range(1, sig + 1) if t * D + r != c]
        lo = 1 if state is not None and state[e] == PRESENT else 0
        spare = sum(1 for o in same if state is not None and state[entry[o]] == PRESENT)
        want = max(lo, min(int(want), per[r] - spare))
        if state is not None and state[e] == ABSENT:
            want = 0
        diff = want - counts.get(c, 0)
        for o in sorted(same, key=lambda o: (o == keep, -counts.get(o, 0))):
            if not diff:
                break
            olo = 1 if state is not None and state[entry[o]] == PRESENT else 0
            if state is not None and state[entry[o]] == ABSENT and diff < 0:
                continue
            take = min(diff, counts.get(o, 0) - olo) if diff > 0 else diff
            counts[o] = counts.get(o, 0) - take
            diff -= take
        counts[c] = want - diff

    if state is not None:
        for c, e in entry.items():
            if c and state[e] == ABSENT and counts.get(c, 0):
                fix(c, 0)
            elif c and state[e] == PRESENT and not counts.get(c, 0):
                fix(c, 1)
    heads = prob.specs(piece.window)
    s = math.log(n)
    for h, a, b, target in ratios:
        c = _slope(heads[h], win, a, b)
        # ln u_b - ln u_a = x_b - x_a - c s with x = ln(count / n) (x = 0 for $ and window slots)
        want = target + c * s
        if not rm[b]:
            cls = int(win.classes[b])
            base = 0.0 if rm[a] else math.log(max(counts.get(int(win.classes[a]), 0), 1) / n)
            if not rm[a] and int(win.classes[a]) % D == cls % D:  # same residue: solve the split of the two
                tot = counts.get(cls, 0) + counts.get(int(win.classes[a]), 0)
                q = math.exp(min(want, 700.0))
                fix(cls, round(tot * q / (1 + q)), keep=int(win.classes[a]))
            else:
                fix(cls, round(n * math.exp(min(base + want, 0.0))))
        elif not rm[a]:
            cls = int(win.classes[a])
            fix(cls, round(n * math.exp(min(-want, 0.0))))


CLIMB_FACTORS = (0.0, 1e-6, 1e-3, 0.1, 0.5, 2.0, 10.0, 1e3, 1e6)  # count multipliers tried by the local search
LENGTH_FACTORS = ((1, 10**6), (1, 100), (1, 2), (2, 1), (100, 1), (10**6, 1), (10**20, 1))  # length multipliers


def _neighbours(prob: Problem, piece: Piece, counts: dict, n: int, n_min: int, n_max: int | None = None) -> dict:
    """Real inputs near (counts, n) of one piece, grouped by length: one class's count multiplied (its residue's
    other classes absorbing the difference), or the length multiplied with every count scaled along."""
    D, sig, w = prob.delta, prob.sigma, prob.w
    out: dict = {}
    per = positions_per_residue(n - w, D)
    for r in range(D):
        cls = [t * D + r for t in range(1, sig + 1)]
        for c in cls:
            for m in CLIMB_FACTORS:
                want = min(per[r], max(0, round(counts.get(c, 0) * m) if m else 0))
                if m > 1 and counts.get(c, 0) == 0:
                    want = min(per[r], round(m))
                diff = want - counts.get(c, 0)
                if not diff:
                    continue
                new = dict(counts)
                new[c] = want
                for o in sorted((o for o in cls if o != c), key=lambda o: -new.get(o, 0)):
                    take = min(diff, new.get(o, 0)) if diff > 0 else diff
                    new[o] = new.get(o, 0) - take
                    diff -= take
                    if not diff:
                        break
                out.setdefault(n, []).append({k: v for k, v in new.items() if v})
    for num, den in LENGTH_FACTORS:
        n2 = _fit_length(prob, piece, n * num // den, n_min, n_max)
        if n2 is None or n2 == n:
            continue
        out.setdefault(n2, []).append(rescale(prob, counts, n2))
    return out


def rescale(prob: Problem, counts: dict, n2: int) -> dict:
    """Class counts of an input scaled to model length ``n2`` (same window and phase): per residue, each class keeps
    its share of the residue's positions (rounded down, the rest to the largest)."""
    D, sig, w = prob.delta, prob.sigma, prob.w
    per2 = positions_per_residue(n2 - w, D)
    new = {0: 1}
    for r in range(D):
        cls = [t * D + r for t in range(1, sig + 1)]
        tot = sum(counts.get(c, 0) for c in cls) or 1
        got = [counts.get(c, 0) * per2[r] // tot for c in cls]
        got[int(np.argmax(got))] += per2[r] - sum(got)
        new.update({c: v for c, v in zip(cls, got, strict=True) if v})
    return new


def shortest_rescaled_failure(prob: Problem, witness: tuple, lo: int, threshold: float, steps: int = 400,
                              deadline: Deadline | None = None):
    """The failing input ``witness = (counts, window, n)`` rescaled (:func:`rescale`) to shorter lengths of its phase
    in ``lo + 1 .. n - 1``, bisected on the length for the shortest one whose certified lower end of ``|D|`` still
    exceeds ``threshold`` (a heuristic search: every input it returns is a real, certified failure).  Returns
    ``(value, (counts, window, n'))`` or None when no shorter rescaling fails."""
    counts, window, n = witness
    D = prob.delta
    phase = (n - prob.w) % D

    def fit(m):  # the largest length <= m of the witness's phase
        return m - ((m - prob.w - phase) % D)

    best = None
    a, b = lo, n  # invariant: the rescaling at b fails (or b = n, the witness itself)
    for _ in range(steps):
        if b - a <= D or (deadline is not None and deadline.expired()):
            break
        mid = fit((a + b) // 2 if b < 2 * a + 2 else math.isqrt(max(a, 1) * b))
        if mid <= a:
            mid = fit(b - 1)
            if mid <= a:
                break
        c2 = rescale(prob, counts, mid)
        value = float(prob.point([c2], tuple(window), mid)[0][0])
        if value > threshold:
            best, b = (value, (c2, tuple(window), mid)), mid
        else:
            a = mid
    return best


def local_search(prob: Problem, pcs: list, best: list, n_min: int, budget_s: float, n_max: int | None = None,
                 deadline: Deadline | None = None) -> None:
    """Hill-climb from the best realized input ``best = [value, (counts, window, n)]`` through
    :func:`_neighbours`, each evaluated with the certified evaluator (its lower end: a valid lower bound), while it
    improves and the budget lasts; ``best`` is updated in place."""
    t0 = clock()
    by_window = {p.window: p for p in pcs}
    while best[1] is not None and clock() - t0 < budget_s and not (deadline and deadline.expired()):
        counts, window, n = best[1]
        piece = by_window[tuple(window)]
        improved = False
        for n2, cs in _neighbours(prob, piece, counts, n, n_min, n_max).items():
            if deadline is not None and deadline.expired():
                return
            lo_v, _ = prob.point(cs, window, n2)
            j = int(np.argmax(lo_v))
            if lo_v[j] > best[0]:
                best[0], best[1], improved = float(lo_v[j]), (cs[j], tuple(window), n2), True
        if not improved:
            return


@dataclass
class BnBResult:
    upper: float  # certified sup |f - g| over every length > N0
    lower: float  # realized
    witness: tuple | None  # (counts, window, n)
    boxes_split: int
    boxes_open: int
    seconds: float
    converged: bool
    pieces_bounded: int = 0  # (phase, window) pieces given a first bound (U is inf while any is not)
    pieces: int = 0


MAYBE, PRESENT, ABSENT = 0, 1, 2  # what a box knows of a prefix class: nothing, count >= 1, count = 0


@dataclass
class Box:
    """A box of the long-input domain: rho in [rl, rh], per-residue shares theta in [tl, th], what is known of each
    prefix class's presence (``state``) and branched bounds ``ratios[(head, a, b)] >= ln u_b - ln u_a`` of softmax
    heads (:mod:`bounds.certify.weight_ratios`)."""

    piece: int
    rl: float
    rh: float
    tl: np.ndarray
    th: np.ndarray
    state: np.ndarray
    ratios: dict
    depth: int = 0

    def child(self, **kw) -> Box:
        d = dict(piece=self.piece, rl=self.rl, rh=self.rh, tl=self.tl, th=self.th, state=self.state,
                 ratios=self.ratios, depth=self.depth + 1)
        d.update(kw)
        return Box(**d)

    @property
    def empty(self) -> bool:
        return bool(np.any(self.th < self.tl))


def box_weights(prob: Problem, piece: Piece, boxes: list):
    """Masses, ln n bounds, feasibility and per-head weight enclosures of boxes of one piece; and, per softmax
    head, the closed log-ratio bounds (B, E, E) of :mod:`bounds.certify.weight_ratios`."""
    win = piece.win
    r_lo = np.array([b.rl for b in boxes])
    r_hi = np.array([b.rh for b in boxes])
    tl = np.array([b.tl for b in boxes]).reshape(len(boxes), prob.free)
    th = np.array([b.th for b in boxes]).reshape(len(boxes), prob.free)
    state = np.array([b.state for b in boxes]).reshape(len(boxes), win.E)
    lo, hi, s_lo, s_hi, feas = box_masses(prob, piece, r_lo, r_hi, tl, th)
    absent, present = state == ABSENT, state == PRESENT
    feas &= ~np.any(absent & (lo > 0), axis=1)  # a class of positive share is not absent
    absent = absent | (hi <= 0)  # no mass: absent
    feas &= ~np.any(present & (hi < r_lo[:, None]), axis=1)  # count >= 1: mass >= rho >= rl
    lo = np.where(absent, 0.0, np.where(present, np.maximum(lo, r_lo[:, None]), lo))
    hi = np.where(absent, 0.0, hi)
    with np.errstate(divide="ignore"):
        xlo, xhi = log_bounds(lo, hi)
    heads = prob.heads(piece.window)
    specs = prob.specs(piece.window)
    live_any = present | (lo > 0)
    B = len(boxes)
    K = [np.full((B, win.E, win.E), np.inf) for _ in specs]
    for j, b in enumerate(boxes):  # Lemmas 2 and 4: each branched ratio bound, carried to every head
        for (h, a, e), t in b.ratios.items():
            for k in range(len(specs)):
                d = 0.0 if k == h else _slope_gap(prob, piece, h, k)[a, e]
                K[k][j, a, e] = min(K[k][j, a, e], t + float(transfer(np.array(d), s_lo[j], s_hi[j])))
    weights, H, target_ratio = [], {}, None
    for i, head in enumerate(specs):
        Hi, ok_f, absent_h, live_h = log_ratio_bounds(head, win, xlo, xhi, live_any, absent, s_lo, s_hi, K[i])
        feas &= ok_f
        r_lo_w, r_hi_w, ref = ratio_box(Hi, absent_h, live_h)
        H[i] = (Hi, absent_h, live_h)
        if i == len(heads):  # the target: its weights are the masses
            target_ratio = (r_lo_w, r_hi_w)
            continue
        u = weight_box(head, win, lo, hi, s_lo, s_hi, present=present)
        if head.semantics != "softmax":  # izzo: valid relative to a reference surely present and kept
            ok = u[0][np.arange(B), ref] > 0
            r_lo_w = np.where(ok[:, None] & (u[0] > 0), r_lo_w, 0.0)
            r_hi_w = np.where(ok[:, None], np.where(u[1] > 0, r_hi_w, 0.0), u[1])
            r_lo_w = np.where(ok[:, None], r_lo_w, u[0])
        weights.append([u, (r_lo_w, r_hi_w)])
    return lo, hi, feas, weights, H, target_ratio


def _slope_gap(prob: Problem, piece: Piece, h: int, k: int) -> np.ndarray:
    """Upper bounds (E, E) of ``c_ab(h) - c_ab(k)`` between two heads of a window (the target last), cached."""
    cache = prob.__dict__.setdefault("_slope_gaps", {})
    key = (piece.window, h, k)
    if key not in cache:
        specs = prob.specs(piece.window)
        cache[key] = slope_difference_upper(specs[h], specs[k])
    return cache[key]


def branch_and_bound(prob: Problem, N0: int, tol: float, budget_s: float, max_boxes: int = MAX_BOXES,
                     lower_start: float = 0.0, stop_above: float | None = None, progress=None,
                     n_max: int | None = None, stop_below: float | None = None,
                     deadline: Deadline | None = None) -> BnBResult:
    """Certified sup of |f - g| over every input of model length > N0 (and <= ``n_max`` when given: the lengths
    ``N0 + 1 .. n_max``) (module docstring); stops when the gap is <= tol, the time budget (``budget_s`` from the
    call, and ``deadline``) is spent, (``stop_above``) a realized input exceeds that value, or (``stop_below``) the
    certified bound is at most that value.  The budget holds in every phase: a piece not reached by the first pass
    leaves the bound at ``inf``; boxes popped but not split when it expires stay open with their bounds."""
    t0 = clock()
    own = Deadline.within(budget_s, deadline)
    deadline = own
    rho_max = float(np.nextafter(1.0 / (N0 + 1), 1.0))  # outward: 1/(N0 + 1) itself is inside
    rho_min = 0.0 if n_max is None else float(np.nextafter(1.0 / n_max, 0.0))
    ps = pieces(prob, deadline)
    total = prob.delta * prob.sigma**prob.w
    if len(ps) < total:
        return BnBResult(math.inf, lower_start, None, 0, 0, clock() - t0, False, 0, total)
    F = prob.free
    heap: list = []
    uid = itertools.count()
    best = [lower_start, None]

    def evaluate(piece_idx, boxes):
        piece = ps[piece_idx]
        lo, hi, feas, weights, _, target_ratio = box_weights(prob, piece, boxes)
        _, up = prob.bound_abs(piece.win, weights, lo, hi, target_ratio)
        return np.where(feas & np.array([not b.empty for b in boxes]), up, -np.inf)

    def push(piece_idx, boxes, up):
        piece = ps[piece_idx]
        order = np.argsort(-up)
        for i in order:
            if up[i] > best[0]:
                heapq.heappush(heap, (-float(up[i]), next(uid), boxes[i]))
        cand = [i for i in order[:2] if np.isfinite(up[i])]
        if cand:  # realize the best children: a lower bound attained by a real input
            by_n: dict = {}
            for i in cand:
                b = boxes[i]
                rc = math.sqrt(b.rl * b.rh) if b.rl > 0 else b.rh / 2
                centre = (b.tl + b.th) / 2
                for got in (realize(prob, piece, rc, centre, N0 + 1, n_max=n_max),
                            realize(prob, piece, rc, centre, N0 + 1, b.state, _ratio_targets(b), n_max)):
                    if got is not None and got[0] not in by_n.setdefault(got[1], []):
                        by_n[got[1]].append(got[0])
            before = best[0]
            for n, cs in by_n.items():
                lo_v, _ = prob.point(cs, piece.window, n)
                j = int(np.argmax(lo_v))
                if lo_v[j] > best[0]:
                    best[0], best[1] = float(lo_v[j]), (cs[j], piece.window, n)
            if best[0] > before:
                local_search(prob, ps, best, N0 + 1, max(0.5, budget_s / 50), n_max, deadline)

    E_of = [p.win.E for p in ps]
    bounded = 0
    for i in range(len(ps)):
        if deadline.expired():  # the pieces left have no bound: U = inf
            return BnBResult(math.inf, best[0], best[1], 0, len(heap), clock() - t0, False, bounded, len(ps))
        if not _has_length(ps[i], prob, rho_min, rho_max):
            bounded += 1
            continue
        box = Box(i, rho_min, rho_max, np.zeros(F), np.ones(F), np.zeros(E_of[i], dtype=np.int8), {})
        push(i, [box], evaluate(i, [box]))
        bounded += 1
    split = 0
    converged = False
    while heap:
        upper = -heap[0][0]
        if upper - best[0] <= tol:
            converged = True
            break
        if stop_above is not None and best[0] > stop_above:
            break
        if stop_below is not None and upper <= stop_below:
            break
        if deadline.expired() or split >= max_boxes:
            break
        batch = [heapq.heappop(heap) for _ in range(min(BATCH, len(heap)))]
        groups: dict = {}
        for negup, _, box in batch:
            if -negup <= best[0]:
                continue
            split += 1
            groups.setdefault(box.piece, []).append((-negup, box))
        for gi, (pi, items) in enumerate(list(groups.items())):
            if gi and deadline.expired():  # the popped boxes not split stay open with their bounds
                for _, rest in list(groups.items())[gi:]:
                    for up_b, b in rest:
                        heapq.heappush(heap, (-up_b, next(uid), b))
                break
            parents = [b for _, b in items]
            lo_m, hi_m, _, _, H, _ = box_weights(prob, ps[pi], parents)
            cands = [_candidate_splits(prob, ps[pi], b, {h: tuple(x[j] for x in Hh) for h, Hh in H.items()},
                                       lo_m[j], hi_m[j])
                     for j, b in enumerate(parents)]
            flat = [c for cs in cands for pair in cs for c in pair]
            up = evaluate(pi, flat)
            keep, pos = [], 0
            gap = max(upper - best[0], 0.0)
            for (parent_up, parent), cs in zip(items, cands, strict=True):
                j = _choose_split(parent_up, parent.depth, up[pos:pos + 2 * len(cs)].reshape(len(cs), 2), gap)
                keep += [pos + 2 * j, pos + 2 * j + 1]
                up[pos:pos + 2 * len(cs)] = np.minimum(up[pos:pos + 2 * len(cs)], parent_up)
                pos += 2 * len(cs)
            push(pi, [flat[k] for k in keep], up[np.array(keep)])
        if progress:
            progress(split, -heap[0][0] if heap else best[0], best[0])
    upper = max(-heap[0][0], best[0]) if heap else best[0]
    if not heap:
        converged = True
    return BnBResult(upper, best[0], best[1], split, len(heap), clock() - t0, converged, bounded, len(ps))


def _choose_split(parent_up: float, depth: int, children: np.ndarray, scale: float) -> int:
    """Strong branching with the product score of MIP solvers (Achterberg 2007, sec. 5.2): the split maximizing
    ``max(gain_worse, e) * max(gain_better, e)`` (gains of the children's bounds over the parent's; ``e`` = 1% of
    ``scale``, the current gap U - L), so a split that cuts off much of the box wins over one that shaves a little
    off both halves; when no split gains anything, the candidates take turns by the box's depth."""
    gain = parent_up - np.minimum(children, parent_up)  # (candidates, 2); a child's bound never exceeds its parent's
    gain = np.where(np.isfinite(gain), gain, 1e150)  # an empty child (the product of two stays finite)
    worse, better = gain.min(axis=1), gain.max(axis=1)
    if better.max() <= 1e-12 * max(abs(parent_up), 1.0):
        return depth % len(children)
    e = max(0.01 * scale, 1e-9)
    return int(np.argmax(np.maximum(worse, e) * np.maximum(better, e)))


def _ratio_targets(box: Box) -> list:
    """(head, a, b, target) for the realization of a box: the middle of each branched log-ratio interval (one step
    inside a half-infinite one)."""
    out = []
    for h, a, b in sorted({(h, min(a, b), max(a, b)) for h, a, b in box.ratios}):
        hi, lo = box.ratios.get((h, a, b), np.inf), -box.ratios.get((h, b, a), np.inf)
        if np.isfinite(lo) and np.isfinite(hi):
            target = (lo + hi) / 2
        else:
            target = lo + 1.0 if np.isfinite(lo) else hi - 1.0
        out.append((h, a, b, target))
    return out


PRESENCE_SPLITS = 3  # presence splits tried per box (the prefix classes that weigh most)
RATIO_SPLITS = 2  # log-ratio splits tried per softmax head and box


def _candidate_splits(prob: Problem, piece: Piece, box: Box, H: dict, m_lo, m_hi) -> list:
    """Every way to halve the box, each a pair of children: rho (geometrically; ``[0, r]`` at ``min(r^2, r/2)``),
    each theta coordinate wider than 1e-9, the presence of the prefix classes that weigh most (absent / present),
    and the widest log-ratios of each softmax head (:func:`bounds.certify.weight_ratios.split_candidates`).  A child with no
    length of the piece's phase is replaced by an empty box."""
    out = []
    rl, rh, tl, th = box.rl, box.rh, box.tl, box.th
    mid = math.sqrt(rl * rh) if rl > 0 else min(rh * rh, rh / 2)
    if mid < 1e-300:
        mid = rh / 2
    if rh - rl > 1e-15 * rh:
        pair = []
        for a, b in ((rl, mid), (mid, rh)):
            pair.append(box.child(rl=a, rh=b) if _has_length(piece, prob, a, b) else box.child(rl=a, rh=b, th=tl - 1.0))
        out.append(pair)
    for j in range(len(tl)):
        if th[j] - tl[j] > 1e-9:
            m = (tl[j] + th[j]) / 2
            a_hi, b_lo = th.copy(), tl.copy()
            a_hi[j], b_lo[j] = m, m
            out.append([box.child(th=a_hi), box.child(tl=b_lo)])
    weight = np.full(piece.win.E, -np.inf)  # how much each entry may weigh against a reference
    for h, (Hh, absent_h, live_h) in H.items():
        for a, b, t in split_candidates(Hh, absent_h, live_h, RATIO_SPLITS):
            below, above = dict(box.ratios), dict(box.ratios)
            below[(h, a, b)] = min(below.get((h, a, b), np.inf), t)
            above[(h, b, a)] = min(above.get((h, b, a), np.inf), -t)
            out.append([box.child(ratios=below), box.child(ratios=above)])
        weight = np.maximum(weight, Hh[int(reference(Hh[None], absent_h[None], live_h[None])[0])])
    prefix = (piece.win.slot < 0) & (piece.win.classes != 0)
    maybe = list(np.flatnonzero(prefix & (box.state == MAYBE) & (m_lo == 0) & (m_hi > 0)))
    if not H:  # no softmax head: the izzo heads' top classes first
        weight = -np.array([min(float(h.G.mid[e]) for h in prob.heads(piece.window)) for e in range(piece.win.E)])
    for e in sorted(maybe, key=lambda e: -weight[e])[:PRESENCE_SPLITS]:
        a_st, p_st = box.state.copy(), box.state.copy()
        a_st[e], p_st[e] = ABSENT, PRESENT
        out.append([box.child(state=a_st), box.child(state=p_st)])
    return out or [[box, box.child(th=tl - 1.0)]]


# ------------------------------------------------------------------------------------------------ report
@dataclass
class Certificate:
    semantics: tuple
    eps: float
    delta: tuple  # (lower, upper) of the agreement delta
    N0: int
    rows: list
    long: BnBResult
    upper: float
    lower: float
    witness_length: int
    witness: str | None  # the string, or None when too long to print
    witness_counts: dict
    witness_window: list  # classes of the last tau + 1 positions (query last); empty when the string is given
    verdict: str
    seconds: float
    notes: list = field(default_factory=list)
    horizon: object = None  # bounds.certify.horizon.Horizon
    train_length: int | None = None  # model length
    reached: dict = field(default_factory=dict)  # how far each phase got (all of it unless the budget ran out)

    @property
    def gap(self) -> float:
        return self.upper - self.lower


def describe_witness(prob: Problem, counts: dict, window: tuple, n: int, limit: int = 4096):
    s = witness_string(counts, window, prob.delta, prob.ev.f.alphabet) if n <= limit else None
    return s


def certify(prob: Problem, eps: float, delta: float | None = 0.0, train_length: int | None = None,
            budget_s: float = 60.0, tol: float | None = None, max_length: int | None = None,
            progress=None, first: int = FIRST_LENGTH, defined_up_to: int | None = None,
            max_boxes: int = MAX_BOXES) -> Certificate:
    """The verdict of the module docstring: lengths ``first..N0`` enumerated (N0 within a quarter of the budget, at
    least the training length and Delta + tau + 2), every longer length by branch-and-bound to gap ``tol``
    (default eps/10) within half of the rest of the budget, then the certified horizon H and the shortest failure X
    (:mod:`bounds.certify.horizon`) within what is left.  ``delta`` is the agreement delta; with ``train_length`` it
    is the certified max |f - g| over the lengths up to it (its lower end decides "certified", its upper end
    "fails").  ``first`` (default FIRST_LENGTH = 2) leaves out the empty input (``$`` alone, model length 1), on
    which a trained network is never trained.  ``defined_up_to``: the pair computes
    only inputs up to this model length (a trained model with absolute positions,
    :func:`bounds.certify.trained.absolute_as_periodic`): every length up to it is enumerated, none beyond is
    claimed (no branch-and-bound).  ``max_boxes`` stops branch-and-bound after that many boxes split: with
    ``max_length`` given and a budget that is not reached, the certificate does not depend on the machine's speed."""
    deadline = Deadline(budget_s)
    if defined_up_to is not None:
        max_length = defined_up_to
    tol = eps / 10 if tol is None else tol
    need = max(prob.delta + prob.w + 1, train_length or 0)
    if max_length is not None and max_length < need and defined_up_to is None:
        raise CertifyError(f"--max-length {max_length} is below {need}: the lengths up to the training length and "
                           "Delta + tau + 2 are enumerated before branch-and-bound takes over")
    if max_length is not None and first > max_length:
        raise CertifyError(f"the first length {first} exceeds the largest enumerated length {max_length}")
    if train_length is not None and first > train_length:
        raise CertifyError(f"the first length {first} exceeds the training length {train_length}: delta would "
                           "range over no length")
    check_enumeration(prob, first, max_length if max_length is not None else need)  # before any work
    rows = enumerate_lengths(prob, budget_s / 4, need, max_length, first=first, deadline=deadline)
    complete = [r for r in rows if r.upper != math.inf]
    N0 = complete[-1].length if complete else first - 1  # every length first..N0 is enumerated
    target = max_length if max_length is not None else need
    if train_length is not None:
        part = [r for r in rows if r.length <= train_length]
        d_lo = max((r.lower for r in part), default=0.0)
        d_hi = max(r.upper for r in part) if N0 >= train_length else math.inf  # delta(N) unknown: nothing fails
    else:
        d_lo = d_hi = float(delta or 0.0)
    short_hi = max((r.upper for r in rows), default=0.0)
    short_best = max(rows, key=lambda r: r.lower) if rows else LengthRow(first, 0, 0.0, math.inf, "")
    if N0 < target:  # the budget ran out in the enumeration: nothing beyond it is bounded
        long = BnBResult(math.inf, 0.0, None, 0, 0, 0.0, False)
    elif defined_up_to is None:
        long = branch_and_bound(prob, N0, tol, 0.5 * deadline.left(), max_boxes, lower_start=0.0,
                                progress=progress, deadline=deadline)
    else:
        long = BnBResult(0.0, 0.0, None, 0, 0, 0.0, True)

    def extend(n: int) -> LengthRow | None:
        if count_configurations(n, prob.sigma, prob.delta, prob.tau) > MAX_CONFIGS_PER_LENGTH:
            return None
        row = enumerate_length(prob, n, deadline)
        return row if row.upper != math.inf else None  # the budget ran out within the length

    def shorter(witness: tuple, lo: int):
        return shortest_rescaled_failure(prob, witness, lo, d_hi + eps, deadline=deadline)

    def probe_range(lo: int, M: int, seconds: float) -> BnBResult:
        return branch_and_bound(prob, lo, 1e-12, seconds, max_boxes, stop_above=d_hi + eps, stop_below=d_lo + eps,
                                n_max=M, deadline=deadline)

    horizon = find_horizon(prob, rows, long if defined_up_to is None else None, d_lo + eps, d_hi + eps,
                           deadline.left(), first, probe_range,
                           MAX_REALIZED_LENGTH, shorter, extend if defined_up_to is None else None)
    upper = max(short_hi, long.upper)
    if long.lower > short_best.lower and long.witness is not None:
        counts, window, n = long.witness
        lower, wl, ws, wc, ww = long.lower, n, describe_witness(prob, counts, window, n), counts, list(window)
    else:
        lower, wl, ws, wc, ww = short_best.lower, short_best.length, short_best.witness, {}, []
    if horizon.X is not None and horizon.x_value > lower:  # a probe of the horizon realized a larger value
        lower, wl = horizon.x_value, horizon.X
        ws, wc, ww = horizon.witness["string"], horizon.witness["counts"], horizon.witness["window"]
    if upper <= d_lo + eps:
        verdict = "certified"
    elif lower > d_hi + eps:
        verdict = "fails"
    else:
        verdict = "undetermined"
    reached = {"enumerated_to": N0, "enumeration_target": target,
               "pieces_bounded": long.pieces_bounded, "pieces": prob.delta * prob.sigma**prob.w,
               "budget_spent": N0 < target or (defined_up_to is None and not long.converged
                                               and long.boxes_split < max_boxes)}
    return Certificate((prob.ev.tf.semantics, prob.ev.tg.semantics if prob.ev.tg else None), eps, (d_lo, d_hi),
                       N0, rows, long, upper, lower, wl, ws, {str(k): v for k, v in wc.items()}, ww, verdict,
                       deadline.elapsed(), horizon=horizon, train_length=train_length, reached=reached)


def certificate_record(cert, prob=None) -> dict:
    """A certificate as JSON."""
    long = cert.long
    return {"verdict": cert.verdict, "horizon": cert.horizon.record() if cert.horizon is not None else None,
            "train_length": cert.train_length, "upper": cert.upper, "lower": cert.lower, "gap": cert.gap,
            "eps": cert.eps, "delta": list(cert.delta), "delta_plus_eps": cert.delta[0] + cert.eps,
            "semantics": list(cert.semantics), "N0": cert.N0, "seconds": round(cert.seconds, 3),
            "boxes_split": long.boxes_split, "boxes_open": long.boxes_open, "long_upper": long.upper,
            "long_lower": long.lower, "long_converged": long.converged, "reached": cert.reached,
            "witness": {"length": cert.witness_length, "string": cert.witness, "counts": cert.witness_counts,
                        "window": cert.witness_window},
            "lengths": [{"length": r.length, "configurations": r.configurations, "lower": r.lower, "upper": r.upper,
                         "witness": r.witness} for r in cert.rows]}
