"""A one-layer NoPE GPT-2 against its task at every length: on every input whose task margin is at least mu, the
right answer's logit exceeds every competitor's by more than a logit margin delta >= 0.

**Statement.**  For a target of :mod:`bounds.certify.gpt2_targets` (Huang et al.'s Figure 1 format ``$ x_1 ... x_n
#``, the answer read at ``#``) and every n >= 1 and input x in letters^n with ``margin(x) >= mu`` (ties excluded),

    gap(x) = logit_y(x) - max_{j in J, j != y} logit_j(x) > delta,

y the task's answer, J every output (``readout="argmax"``: the model's argmax is the answer, Huang et al.'s
exact-match read-out of the first answer token) or the answers' outputs only (``readout="classes"``: accept vs
reject token).  A continuous model cannot be right on both sides of an exact tie, so mu is part of the statement.

**Proof sketch.**  The logits at ``#`` are F_t(rho, pi) with t = ``#``, rho = 1/(n + 2), pi_# = rho and the letter
shares pi_c = count_c / (n + 2), ``2 rho + sum_c pi_c = 1`` (:mod:`bounds.certify.gpt2_enclosure`).
``gap_y = min_{j} (logit_y - logit_j)`` and each difference is the linear functional ``(W_y - W_j) . ln_f(x2) + b_y
- b_j`` of the final normalized stream, enclosed as one interval matmul (so the logits' common part cancels); the
min of enclosures is enclosed by the min of lower ends and the min of upper ends (:class:`GapEnclosure`).

1. *n = 1..N0*: every letter-count vector of length n is enumerated; its label and whether margin >= mu are decided
   in integers (:meth:`Target.decide`), and its gap enclosed on its point box.
2. *n > N0*: rho lies in [0, 1/(N0 + 3)], pi_# = rho, and the letter shares in the closure of
   ``sum pi = 1 - 2 rho``.  Boxes covering that set are refined by branch-and-bound; each is first tightened by the
   equality (:func:`propagate`, a margin for rounding), then the labels its statement-inputs may have are bounded
   by :meth:`Target.labels_on_box` (a superset).  A box with no label holds no input of the statement and is
   discarded; otherwise its value is ``delta - min_l gap_lo_l`` over its labels l, and the box is closed when the
   value is < 0 (every statement-input in it, whatever its label among l, has gap > delta, since the enclosure
   holds on the whole box).  Boxes straddling the margin's boundary keep every label and are split.
3. Every input of the statement lies in case 1 or in a box of case 2 that was closed or discarded, so *certified*
   (no open box, every enumerated gap > delta) proves the statement, with the certified lower bound ``min`` of the
   gaps' lower ends.  *fails*: a concrete input of the statement (enumerated, or the centre of a split box realized
   as counts with its margin checked exactly) whose gap's certified *upper* end is < delta, re-run through the torch
   forward (where it has at most 8191 tokens).  Else *undetermined*.
4. *Horizon* (:func:`task_horizon`, :mod:`bounds.certify.horizon`): H = the largest model length (letters + ``#``
   + BOS, as the pair certificate counts; one letter is model length 3) such that every input of the statement of
   model length 3..H has gap > delta, certified, and X = the shortest input of the statement found whose certified
   upper gap is < delta.  The lengths 1..N0 are scanned in increasing order (a failure there makes X = H + 1
   exact); beyond, the branch-and-bound of case 2 already proves every length L with 1/L above the rho of its
   open boxes (:attr:`TaskRange.proved`: closed boxes cover every input of those lengths); then lengths are
   enumerated further while they fit and the time lasts, and ranges of lengths are bisected, each by case 2's
   branch-and-bound restricted to ``rho in [1/(M + 2), 1/(m + 2)]`` (m..M letters; a closed range proves it; a failure
   realized there lowers X).  The branch-and-bound of case 2 gets half of the time left after the enumeration and
   the horizon the rest (as for pairs); a length not reached is not claimed.  A smaller margin's statement holds a larger one's inputs, so its H is at most the larger's and its X
   too (:func:`monotone_horizons`; ``larger=`` hands the larger margin's failure down).
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from bounds.certify.gpt2_affine import Affine, AffineEnclosure, linear
from bounds.certify.gpt2_centred import CentredEnclosure, _centred, intersect, mul, normalize_jacobian_times
from bounds.certify.gpt2_enclosure import Enclosure, _bounds, _to_ball, layer_norm, point
from bounds.certify.gpt2_search import (
    MAX_CONFIGURATIONS,
    TORCH_CHECK_LIMIT,
    compositions,
    max_enumerated_length,
    string_of,
)
from bounds.certify.horizon import WITNESS_STRING_LIMIT, Horizon, find_horizon
from bounds.certify.search import Deadline
from bounds.float_enclosures import Ball, add, matmul, sub

READOUTS = ("argmax", "classes")


class GapEnclosure:
    """Enclosures (lo, hi), each (B, labels), of ``gap_l`` for every label l on boxes (module docstring).

    ``centred`` (default): each difference ``logit_l - logit_j`` is also enclosed by its centred form
    ``D(c) + (m - c) J_D`` over the box's masses m (centre c), with ``J_D = J_z diag(gamma_f) (W_l - W_j)^T`` and J_z
    the interval Jacobian of ln_f's normalized output from :class:`bounds.certify.gpt2_centred.CentredEnclosure`
    (mean-value theorem per coordinate, proof there), and the two enclosures intersected.

    ``affine`` (default, with ``centred``): the trace is :class:`bounds.certify.gpt2_affine.AffineEnclosure`'s
    (every intermediate intersected with the range of its affine form over the box's symbols), and each difference
    is also enclosed by the range of its own affine form: the difference is the linear functional ``y (W_l -
    W_j)^T + b_l - b_j`` of ln_f's output y, and :func:`bounds.certify.gpt2_affine.linear` of y's form
    (:meth:`~bounds.certify.gpt2_affine.AffineEnclosure.final_form`) with that (ball) matrix is a form of it (proof
    there).  All three enclosures hold the difference at every point of the box, so their intersection does.
    Point boxes (single inputs) get the centred trace alone."""

    def __init__(self, form, outputs, readout: str = "argmax", centred: bool = True, affine: bool = True):
        if readout not in READOUTS:
            raise ValueError(f"readout must be one of {', '.join(READOUTS)}")
        n_out = form.head_w.shape[0]
        if max(outputs) >= n_out:
            raise ValueError(f"the head has {n_out} outputs: no logit for answer token {max(outputs)}")
        self.affine = affine and centred
        self.enc = AffineEnclosure(form) if self.affine else CentredEnclosure(form) if centred else Enclosure(form)
        self.centred = centred
        self.outputs = list(outputs)
        self.maps = []
        for o in self.outputs:
            comp = [j for j in (range(n_out) if readout == "argmax" else self.outputs) if j != o]
            w = sub(point(form.head_w[o][None, :]), point(form.head_w[comp]))  # (|J|, d)
            b = sub(point(form.head_b[o:o + 1]), point(form.head_b[comp]))
            self.maps.append((Ball(w.mid.T, w.rad.T), b, comp))

    def gaps(self, t: int, r_lo, r_hi, p_lo, p_hi):
        return self.gaps_and_split(t, r_lo, r_hi, p_lo, p_hi)[:2]

    def gaps_and_split(self, t: int, r_lo, r_hi, p_lo, p_hi):
        """:meth:`gaps` and, per box, the branch-and-bound coordinate (0 = rho, 1 + i = letter i's share) the gaps'
        affine forms vary most along (:func:`gap_smear`), -1 where none (no forms, or no variation)."""
        f = self.enc.form
        tr = self.enc.trace(t, r_lo, r_hi, p_lo, p_hi)
        x2 = _bounds(tr["x2"])
        y = _to_ball(*layer_norm(*x2, f.lnf, f.ln_eps))
        if self.centred:
            yc = _to_ball(*layer_norm(*_bounds(tr["centre"]["x2"]), f.lnf, f.ln_eps))
            with np.errstate(invalid="ignore", over="ignore"):  # an unbounded Jacobian leaves the plain enclosure
                jy = mul(normalize_jacobian_times(*x2, tr["jac_x2"], f.ln_eps), point(f.lnf[0]))
        forms = self.forms(tr)
        lo, hi, smear = [], [], np.zeros((len(r_lo), len(p_lo[0]))) if forms else None
        for i, (w, b, _) in enumerate(self.maps):
            d = _bounds(add(matmul(y, w), b))
            if self.centred:
                with np.errstate(invalid="ignore", over="ignore"):
                    d = intersect(d, _centred(_bounds(add(matmul(yc, w), b)), tr["dm"], matmul(jy, w)))
            if forms:
                with np.errstate(invalid="ignore"):
                    d = intersect(d, forms[i].bounds())
                smear += gap_smear(forms[i], len(p_lo[0]))
            lo.append(d[0].min(axis=1))
            hi.append(d[1].min(axis=1))
        if forms:
            split = np.where(smear.max(axis=1) > 0, np.argmax(smear, axis=1), -1)
        else:
            split = np.full(len(r_lo), -1)
        return np.stack(lo, axis=1), np.stack(hi, axis=1), split


    def forms(self, trace: dict) -> list | None:
        """Per answer (the order of ``outputs``), the affine form (B, |J|) of the differences ``logit_l - logit_j``
        over its competitors j on the boxes of an :class:`~bounds.certify.gpt2_affine.AffineEnclosure` trace, or
        None where the trace has no forms (point boxes, or ``affine=False``)."""
        if not (self.affine and "affine" in trace):
            return None
        with np.errstate(invalid="ignore", over="ignore"):
            y = self.enc.final_form(trace)
            return [linear(y, w, b) for w, b, _ in self.maps]


def gap_smear(g: Affine, k: int) -> np.ndarray:
    """Per box (B, k) and box coordinate of the branch-and-bound (rho, then the k - 1 letters' shares; the model's
    masses are rho, the letters and the separator's, whose share is rho again), how far the gap forms ``g`` (B, S,
    J) move along it: ``sum_j |G_sj|`` over the model symbols s of that coordinate (Hansen's "smear"; G_s already
    carries the half-width).  Non-finite entries count 0."""
    s = np.sum(np.abs(g.G[:, :k + 1]), axis=2)
    s = np.where(np.isfinite(s), s, 0.0)
    return np.concatenate([s[:, :1] + s[:, k:k + 1], s[:, 1:k]], axis=1)


def split_coordinate(lo: np.ndarray, hi: np.ndarray, scale: np.ndarray, smear: int) -> int:
    """The coordinate a box [lo, hi] of the branch-and-bound is halved along: the gap's smear coordinate
    (:meth:`GapEnclosure.gaps_and_split`) where it has one and the box has width there, else the relatively
    widest (widths divided by ``scale``)."""
    if smear < 0 or not hi[smear] > lo[smear]:
        return int(np.argmax((hi - lo) / scale))
    return int(smear)


def torch_gap(form, ids, outputs, label: int, readout: str) -> tuple[float, int]:
    """The gap of the torch forward (float64) on ``BOS ids`` and the output it predicts (its argmax over J)."""
    logits = form.torch_logits(ids)
    o = outputs[label]
    comp = [j for j in (range(len(logits)) if readout == "argmax" else outputs) if j != o]
    pool = list(range(len(logits))) if readout == "argmax" else list(outputs)
    return float(logits[o] - max(logits[j] for j in comp)), int(pool[int(np.argmax(logits[pool]))])


@dataclass
class TaskCertificate:
    verdict: str
    task: str
    mu: Fraction
    delta: float
    readout: str
    lower: float  # certified lower end of the gap over the statement's inputs examined (all of them if certified)
    upper: float  # smallest certified upper end of the gap among the concrete inputs met
    N0: int
    witness: dict
    lengths: list = field(default_factory=list)  # per n <= N0: [inputs in the statement, min gap lo, min gap hi]
    boxes_split: int = 0
    boxes_open: int = 0
    boxes_discarded: int = 0
    seconds: float = 0.0
    horizon: Horizon | None = None  # model lengths (letters + separator + BOS): :func:`task_horizon`
    witness_from_margin: str | None = None  # the witness is a larger margin's (its statement is a subset)

    def record(self) -> dict:
        rec = {"verdict": self.verdict, "task": self.task, "margin": str(self.mu), "margin_float": float(self.mu),
               "logit_margin": self.delta, "readout": self.readout, "gap_lower": self.lower,
               "gap_upper": self.upper, "N0": self.N0, "witness": self.witness, "lengths": self.lengths,
               "boxes_split": self.boxes_split, "boxes_open": self.boxes_open,
               "boxes_discarded": self.boxes_discarded, "seconds": self.seconds,
               "horizon": None if self.horizon is None else horizon_record(self.horizon)}
        if self.witness_from_margin is not None:
            rec["witness_from_margin"] = self.witness_from_margin
        return rec


@dataclass
class TaskRow:
    """One enumerated length n as :func:`bounds.certify.horizon.find_horizon` reads it (a larger value is worse):
    model length n + 2, ``upper`` = -(certified lower end of the smallest gap over the length's inputs of the
    statement), ``lower`` = -(the smallest certified upper end), both -inf when the length has none; ``best`` the
    input of that smallest upper end ({counts, label, lo, hi})."""

    length: int
    lower: float
    upper: float
    count: int
    best: dict | None


@dataclass
class TaskRange:
    """The branch-and-bound over the letters ``n_min..n_max`` (None: every length >= n_min): ``gap_lower`` the
    certified lower end of the gap over every input of the statement there (inf: none; the smallest over the
    boxes left, so > delta only when every box is closed), ``best`` the realized input of smallest certified upper
    gap (None: none), ``proved`` the model lengths certified so far (every input of model length n_min + 2 ..
    proved has gap > delta: the open boxes' rho lies below 1/L for each such L; n_min + 1: none)."""

    gap_lower: float
    best: dict | None
    proved: int
    boxes_split: int = 0
    boxes_open: int = 0
    boxes_discarded: int = 0
    top: float = -np.inf  # delta - gap_lower over the boxes left (the verdict's form)

    @property
    def upper(self) -> float:  # find_horizon's convention: -gap, larger is worse
        return -self.gap_lower

    @property
    def lower(self) -> float:
        return -np.inf if self.best is None else -self.best["hi"]

    @property
    def witness(self):
        return self.best


def propagate(r_lo, r_hi, p_lo, p_hi):
    """Tighten boxes (rho, letter shares) by ``2 rho + sum pi = 1``; the bounds and a mask of nonempty boxes."""
    k = p_lo.shape[1]
    marg = (k + 4) ** 2 * 2.0**-52  # covers the rounding of the sums below (all terms in [0, 1])
    s_lo, s_hi = p_lo.sum(axis=1, keepdims=True), p_hi.sum(axis=1, keepdims=True)
    n_lo = np.maximum(p_lo, 1 - 2 * r_hi[:, None] - (s_hi - p_hi) - marg)
    n_hi = np.minimum(p_hi, 1 - 2 * r_lo[:, None] - (s_lo - p_lo) + marg)
    nr_hi = np.minimum(r_hi, (1 - n_lo.sum(axis=1)) / 2 + marg)
    nr_lo = np.maximum(r_lo, (1 - n_hi.sum(axis=1)) / 2 - marg)
    ok = np.all(n_lo <= n_hi, axis=1) & (nr_lo <= nr_hi)
    return np.maximum(nr_lo, 0.0), nr_hi, np.maximum(n_lo, 0.0), n_hi, ok


def _boxes(r_lo, r_hi, p_lo, p_hi):
    """Model-input boxes (rho, letters + separator share = rho) from (rho, letter) boxes."""
    return r_lo, r_hi, np.concatenate([p_lo, r_lo[:, None]], axis=1), np.concatenate([p_hi, r_hi[:, None]], axis=1)


def _point_boxes(letters: np.ndarray):
    """Point boxes (up to rounding) of inputs with these letter counts (B, k) and the separator."""
    L = letters.sum(axis=1).astype(np.float64) + 2
    full = np.concatenate([letters, np.ones((len(letters), 1), dtype=np.int64)], axis=1) / L[:, None]
    r = 1 / L
    return np.nextafter(r, -np.inf), np.nextafter(r, np.inf), np.nextafter(full, -np.inf), np.nextafter(full, np.inf)


def _realize(r_mid: float, p_mid: np.ndarray, n_min: int, n_max: int = 10**12) -> np.ndarray:
    """Letter counts (n >= n_min letters) near a box centre."""
    L = int(min(max(n_min + 2, round(1 / max(r_mid, 1e-300))), n_max + 2))
    n = L - 2
    share = p_mid / max(p_mid.sum(), 1e-300)
    counts = np.floor(share * n).astype(np.int64)
    rest = n - int(counts.sum())
    for j in np.argsort(-(share * n - counts))[:rest]:
        counts[j] += 1
    return counts


def _letters_of(n: int, k: int) -> np.ndarray:
    """Every letter-count vector (k letters) of an input of n letters (the separator last)."""
    rows = compositions(n + 1, k + 1, k)
    return rows[rows[:, k] == 1][:, :k]


def enumerate_length(ge: GapEnclosure, target, mu: Fraction, n: int) -> TaskRow:
    """Every input of n letters with margin >= mu (decided in integers), each on its point box."""
    k = len(target.letters)
    letters = _letters_of(n, k)
    labels, ok = target.decide(letters, mu)
    if not ok.any():
        return TaskRow(n + 2, -np.inf, -np.inf, 0, None)
    letters, labels = letters[ok], labels[ok]
    lo, hi = ge.gaps(k, *_point_boxes(letters))
    sel = np.arange(len(labels))
    lo, hi = lo[sel, labels], hi[sel, labels]
    i = int(np.argmin(hi))
    best = {"hi": float(hi[i]), "lo": float(lo[i]), "counts": [int(c) for c in letters[i]], "label": int(labels[i])}
    return TaskRow(n + 2, -best["hi"], -float(lo.min()), int(len(labels)), best)


def _proved(open_r_hi: float | None, L_min: int, L_max: int) -> int:
    """The largest model length L <= L_max such that every length L_min..L has 1/L > open_r_hi (None: no open
    box: L_max), exactly (the float as a Fraction); L_min - 1 when none."""
    if open_r_hi is None:
        return L_max
    if open_r_hi <= 0:
        return L_min - 1
    q = 1 / Fraction(open_r_hi)  # L < q
    return max(L_min - 1, min(L_max, -(-q.numerator // q.denominator) - 1))


def branch_and_bound(ge: GapEnclosure, target, mu: Fraction, delta: float, n_min: int, n_max: int | None,
                     deadline: Deadline, budget_s: float, max_boxes: int, batch: int = 64, known_hi: float = np.inf,
                     tick=None) -> TaskRange:
    """Case 2 of the module docstring over the inputs of n_min..n_max letters (None: every length >= n_min), i.e.
    rho = 1/(n + 2) in [1/(n_max + 2), 1/(n_min + 2)], until every box is closed, a realized input has certified
    upper gap < delta (or ``known_hi`` < delta: a failure already known elsewhere), ``max_boxes`` boxes are split,
    or ``budget_s`` or the deadline is spent."""
    own = Deadline.within(budget_s, deadline)
    k = len(target.letters)
    cap = 10**12 if n_max is None else n_max
    r0 = float(np.nextafter(1 / (n_min + 2), np.inf))
    r_min = 0.0 if n_max is None else float(np.nextafter(1 / (n_max + 2), -np.inf))
    scale = np.array([r0 - r_min] + [1.0] * k)
    mu_f = float(mu)
    heap, serial = [], itertools.count()
    state = {"split": 0, "discarded": 0, "best": None}

    def consider(letters, labels, lo, hi):
        i = int(np.argmin(hi))
        if state["best"] is None or hi[i] < state["best"]["hi"]:
            state["best"] = {"hi": float(hi[i]), "lo": float(lo[i]), "counts": [int(c) for c in letters[i]],
                             "label": int(labels[i])}

    def best_hi():
        return min(known_hi, np.inf if state["best"] is None else state["best"]["hi"])

    def push(r_lo, r_hi, p_lo, p_hi):
        r_lo, r_hi, p_lo, p_hi, ok = propagate(r_lo, r_hi, p_lo, p_hi)
        labs = target.labels_on_box(p_lo, p_hi, mu_f) & ok[:, None]
        keep = labs.any(axis=1)
        state["discarded"] += int((~keep).sum())
        if not keep.any():
            return
        r_lo, r_hi, p_lo, p_hi, labs = r_lo[keep], r_hi[keep], p_lo[keep], p_hi[keep], labs[keep]
        lo, _, axis = ge.gaps_and_split(k, *_boxes(r_lo, r_hi, p_lo, p_hi))
        g = np.where(labs, lo, np.inf).min(axis=1)  # the box is closed when g > delta
        g = np.where(np.isnan(g), -np.inf, g)  # an enclosure that broke down: open, split first
        for i in range(len(g)):
            heapq.heappush(heap, (float(g[i]), next(serial), float(r_lo[i]), float(r_hi[i]), p_lo[i].copy(),
                                  p_hi[i].copy(), int(axis[i])))
        cs = np.array([_realize((r_lo[i] + r_hi[i]) / 2, (p_lo[i] + p_hi[i]) / 2, n_min, cap) for i in range(len(g))])
        clab, cok = target.decide(cs, mu)
        if cok.any():
            cs, clab = cs[cok], clab[cok]
            clo, chi = ge.gaps(k, *_point_boxes(cs))
            sel = np.arange(len(clab))
            consider(cs, clab, clo[sel, clab], chi[sel, clab])

    if own.expired():
        return TaskRange(-np.inf, None, n_min + 1)
    push(np.array([r_min]), np.array([r0]), np.zeros((1, k)), np.ones((1, k)))
    while heap and heap[0][0] <= delta and best_hi() >= delta and not own.expired() and state["split"] < max_boxes:
        popped = [heapq.heappop(heap) for _ in range(min(batch, len(heap))) if heap and heap[0][0] <= delta]
        kids = []
        for _, _, r_lo, r_hi, p_lo, p_hi, axis in popped:
            lo = np.concatenate([[r_lo], p_lo])
            hi = np.concatenate([[r_hi], p_hi])
            j = split_coordinate(lo, hi, scale, axis)
            mid = lo[j] + (hi[j] - lo[j]) / 2
            at = np.arange(k + 1) == j
            kids += [(lo, np.where(at, mid, hi)), (np.where(at, mid, lo), hi)]
            state["split"] += 1
        lo = np.array([a for a, _ in kids])
        hi = np.array([b for _, b in kids])
        push(lo[:, 0], hi[:, 0], lo[:, 1:], hi[:, 1:])
        if tick is not None:
            tick(state["split"], delta - heap[0][0] if heap else 0.0, best_hi())
    open_r = [e[3] for e in heap if e[0] <= delta]
    gap_lower = heap[0][0] if heap else np.inf
    proved = _proved(max(open_r) if open_r else None, n_min + 2, cap + 2)
    return TaskRange(float(gap_lower), state["best"], proved, state["split"], len(open_r), state["discarded"],
                     delta - gap_lower)


def task_ids(form, target, vocab: dict | None = None) -> tuple[dict, list, int]:
    """The target's token ids (``vocab``, a tokenizer's symbol -> id, else the package's), its answers' output ids
    and its number of letters, after checking that the model's alphabet is the letters then the separator."""
    ids = target.token_ids(vocab)
    if tuple(form.alphabet) != (*[ids[c] for c in target.letters], ids[target.sep]):
        raise ValueError(f"the model's alphabet {list(form.alphabet)} is not the letters then the separator of "
                         f"{target.name}")
    return ids, [ids[c] for c in target.classes], len(target.letters)

def certify_task(form, target, mu: Fraction, delta: float = 0.0, readout: str = "argmax", max_length: int = 16,
                 budget_s: float = 30.0, batch: int = 64, max_boxes: int = 1_000_000, tick=None,
                 vocab: dict | None = None, deadline: Deadline | None = None, horizon: bool = True,
                 larger: TaskCertificate | None = None) -> TaskCertificate:
    """The verdict of the module docstring, then (``horizon``) the certified horizon H and the shortest failure X
    of the statement (:func:`task_horizon`).  As for pairs (:func:`bounds.certify.gpt2_search.certify_pair`),
    lengths 1..N0 are enumerated, the branch-and-bound over every longer length gets half of what is left when
    the horizon runs (all of it without), and the horizon the rest: a branch-and-bound that does not close within
    its half leaves the horizon time to enumerate further lengths, and a verdict ``certified`` at every length
    costs nothing more (the horizon then has nothing to do).  ``form.alphabet`` must be the target's
    letters' token ids then the separator's (:meth:`Target.token_ids` of ``vocab``: a tokenizer's symbol -> id,
    else the package's).  ``larger``: the certificate of a larger margin of the same model (largest first): when
    it fails, its witness (margin >= its mu > mu) refutes this statement too and no branch-and-bound runs; its
    failure bounds X from above.  The budget is ``budget_s`` seconds, or ``deadline`` when it ends first."""
    own = Deadline.within(budget_s, deadline)
    mu = Fraction(mu)
    ids, outputs, k = task_ids(form, target, vocab)
    if larger is not None and larger.mu < mu:
        raise ValueError(f"larger: margin {larger.mu} is not larger than {mu}")
    ge = GapEnclosure(form, outputs, readout)
    target_N0 = max_enumerated_length(k, max_length)
    rows = []
    for n in range(1, target_N0 + 1):  # one enclosure evaluation per length
        if own.expired():
            break
        rows.append(enumerate_length(ge, target, mu, n))
    N0 = len(rows)
    best = None
    for r in rows:
        if r.best is not None and (best is None or r.best["hi"] < best["hi"]):
            best = r.best
    low_all = min((-r.upper for r in rows if r.count), default=np.inf)
    lengths = [[r.count, None, None] if not r.count else [r.count, -r.upper, -r.lower] for r in rows]
    given = None
    if larger is not None and larger.verdict == "fails":
        given = _best_of(target, larger.witness)
        long = TaskRange(-np.inf, given, N0 + 2)  # nothing claimed beyond N0
    elif N0 < target_N0:  # the budget ended in the enumeration: nothing claimed beyond
        long = TaskRange(-np.inf, None, N0 + 2)
    else:
        long = branch_and_bound(ge, target, mu, delta, N0 + 1, None, own,
                                0.5 * own.left() if horizon else own.left(), max_boxes, batch,
                                np.inf if best is None else best["hi"], tick)
    from_margin = None
    if given is not None and (best is None or given["hi"] <= best["hi"]):
        best, from_margin = given, str(larger.mu)
    elif long.best is not None and (best is None or long.best["hi"] < best["hi"]):
        best = long.best
    hz = None
    if horizon:
        hz = task_horizon(ge, form, target, mu, delta, readout, rows, long, own, max_boxes, batch, vocab)
        if hz.X is not None and (best is None or hz.witness["gap_upper"] < min(delta, best["hi"])):
            best, from_margin = _best_of(target, hz.witness), None
    lower = low_all if given is not None else min(low_all, long.gap_lower)  # given: nothing beyond N0 examined
    best_hi = np.inf if best is None else best["hi"]
    if best_hi < delta:
        verdict = "fails"
    elif low_all > delta and long.gap_lower > delta:
        verdict = "certified"
    else:
        verdict = "undetermined"
    witness = _witness(form, target, ids, outputs, best, readout)
    return TaskCertificate(verdict, target.name, mu, float(delta), readout, float(lower), float(best_hi), N0,
                           witness, lengths, long.boxes_split, long.boxes_open, long.boxes_discarded,
                           own.elapsed(), hz, from_margin)


def _best_of(target, w: dict) -> dict:
    """The search's form {counts, label, lo, hi} of a witness record (a certificate's or a horizon's)."""
    return {"counts": [int(w["counts"][c]) for c in target.letters], "label": target.classes.index(w["answer"]),
            "lo": w["gap_lower"], "hi": w["gap_upper"]}


# ------------------------------------------------------------------------------------------------ horizon
TASK_LENGTHS = "model lengths: the input's letters plus the separator # and BOS $ (n letters: model length n + 2)"
FIRST_LENGTH = 3  # one letter


def task_horizon(ge: GapEnclosure, form, target, mu: Fraction, delta: float, readout: str, rows: list,
                 long: TaskRange, deadline: Deadline, max_boxes: int, batch: int = 64,
                 vocab: dict | None = None) -> Horizon:
    """The certified horizon of the task statement (:mod:`bounds.certify.horizon`, model lengths, from 3 = one
    letter): H = the largest model length such that every input of margin >= mu and model length 3..H has gap >
    delta, certified (the enumerated ``rows`` by their certified lower gap per length; then the lengths ``long``
    (the branch-and-bound over every n > N0) proved, :attr:`TaskRange.proved`; then lengths enumerated further
    and ranges of lengths bisected, each by :func:`branch_and_bound` restricted to the range); X = the shortest
    input of the statement found whose certified upper gap is < delta (its margin decided exactly; its ids, and
    the torch forward where it has at most TORCH_CHECK_LIMIT tokens).  find_horizon reads -gap (a larger value is
    worse): a length is within when -gap's upper end is < -delta, an input fails when -gap's lower end exceeds
    -delta.  The search stops at ``deadline``; a length not reached is not claimed."""
    ids = target.token_ids(vocab)
    outputs = [ids[c] for c in target.classes]
    k = len(target.letters)

    def witness(best: dict) -> dict:
        return _horizon_witness(form, target, ids, outputs, best, readout)

    def extend(m: int):
        n = m - 2
        if math.comb(n + k, k) > MAX_CONFIGURATIONS or deadline.expired():  # math.comb: _letters_of rows
            return None
        return enumerate_length(ge, target, mu, n)

    def probe_range(lo: int, M: int, seconds: float) -> TaskRange:
        return branch_and_bound(ge, target, mu, delta, lo - 1, M - 2, deadline, seconds, max_boxes, batch)

    t_cert, t_fail = float(np.nextafter(-delta, -np.inf)), -float(delta)
    return find_horizon(None, rows, long, t_cert, t_fail, deadline.left(), FIRST_LENGTH, probe_range,
                        10**12 + 2, None, extend, lambda r: witness(r.best), witness, proved=long.proved)


def horizon_record(hz: Horizon) -> dict:
    """The horizon's record for a task certificate: the pair's (:meth:`Horizon.record`) with the failing input's
    certified upper gap ``gap_upper`` in place of ``x_value`` (-gap there) and the task's model lengths."""
    rec = hz.record()
    rec.pop("x_value")
    return {**rec, "gap_upper": None if hz.X is None else hz.witness["gap_upper"], "lengths": TASK_LENGTHS}


def monotone_horizons(records: list) -> None:
    """Records of one model at several margins: a smaller margin's statement holds every input of a larger one's,
    so its certified H is one of the larger margin's too.  Raises each record's H to the largest H of a smaller
    margin (``H_from_margin`` names it; ``every_length`` likewise), in place; records without a horizon are left."""
    with_h = sorted((r for r in records if r.get("horizon")), key=lambda r: Fraction(r["margin"]))
    best = None  # (H or inf, record) of the smaller margins so far
    for r in with_h:
        h = r["horizon"]
        mine = np.inf if h["every_length"] else h["H"]
        if best is not None and best[0] > mine:
            src = best[1]["horizon"]
            h.update(H=src["H"], every_length=src["every_length"], H_from_margin=best[1]["margin"])
            h["X_minus_H"] = None if h["X"] is None or h["H"] is None else h["X"] - h["H"]
            h["exact"] = h["X"] is not None and h["H"] is not None and h["X"] == h["H"] + 1
        elif best is None or mine > best[0]:
            best = (mine, r)


def scan_summary(records: list) -> dict:
    """The smallest certified margin (every larger one is certified too: its statement covers fewer inputs) and the
    largest refuted one (every smaller one is refuted by the same input)."""
    cert = [r["margin"] for r in records if r["verdict"] == "certified"]
    fails = [r["margin"] for r in records if r["verdict"] == "fails"]
    return {"smallest_certified_margin": cert[-1] if cert else None,
            "largest_refuted_margin": fails[0] if fails else None}


def scan_line(scan: dict) -> str:
    c, f = scan["smallest_certified_margin"], scan["largest_refuted_margin"]
    return ("margins: " + (f"certified for every margin >= {c}" if c is not None else "no margin certified") + "; "
            + (f"refuted for every margin <= {f}" if f is not None else "no margin refuted"))


def _witness(form, target, ids, outputs, best, readout) -> dict:
    """The concrete input of smallest certified upper gap: its ids (with the separator), margin, answer, torch."""
    if best is None:
        return {"ids": None}
    counts, label = best["counts"], best["label"]
    n = sum(counts)
    w = {"length": n, "counts": dict(zip(target.letters, counts, strict=True)), "margin": str(target.margin(counts)),
         "answer": target.classes[label], "answer_id": outputs[label], "gap_lower": best["lo"],
         "gap_upper": best["hi"], "ids": None, "torch_gap": None, "torch_prediction": None}
    if n + 1 <= TORCH_CHECK_LIMIT:
        seq = string_of(form.alphabet, [*counts, 1], len(counts))
        w["ids"] = seq
        if form.torch_model is not None:
            w["torch_gap"], w["torch_prediction"] = torch_gap(form, seq, outputs, label, readout)
    return w


def _horizon_witness(form, target, ids, outputs, best, readout) -> dict:
    """The horizon's failing input: :func:`_witness`'s record with ``length`` the model length (letters + 2, as
    find_horizon counts), ``letters`` = n, ``symbols`` (the letters in order, then the separator) and
    ``description`` (horizon_line's words for it)."""
    w = _witness(form, target, ids, outputs, best, readout)
    n = w["length"]
    sym = None
    if n <= WITNESS_STRING_LIMIT:
        sym = "".join(c * int(best["counts"][i]) for i, c in enumerate(target.letters)) + target.sep
    if sym is not None and len(sym) <= 60:
        text = f"`{sym}`"
    else:
        text = f"the input of {n} letters with counts {w['counts']} (--json: ids)"
    return {**w, "length": n + 2, "letters": n, "string": w["ids"], "symbols": sym, "window": [],
            "description": text}
