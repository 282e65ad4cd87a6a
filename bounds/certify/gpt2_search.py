"""The every-length certificate for two one-layer GPT-2 forms: ``max_j |f_j - g_j| <= eps`` on every input.

Izzo et al. Theorem 4.1 concerns agreement of two models at every length; this module decides it for a concrete
pair of one-layer GPT-2 models with no positions (NoPE) or periodic positions (:mod:`bounds.certify.gpt2`) through
the class reduction of :mod:`bounds.certify.gpt2_enclosure`: the logits at the last position of ``BOS x_1 ... x_n``
are a function F_t(rho, pi) of the last position's class t, rho = 1/(n + 1) and the shares pi_c = count_c / (n + 1)
of the classes c = (token, position mod P) (P = 1: the tokens).  The pair is reduced at the least common multiple
of the two periods (a table of period P is also periodic with every multiple of P).

* **Lengths 1..N0**: every class configuration (count vector with the last position's class counted; with P > 1
  per residue r a composition of the N_r positions of that residue, :func:`configurations`) is enclosed on its
  point box; the largest certified lower end of ``|f - g|`` is attained by a concrete input (its string).
* **Every length > N0**: the closure of the shares of those inputs, ``rho in [0, 1/(N0 + 2)]``, ``rho + sum pi =
  1``, ``pi_t >= rho`` and (P > 1) ``|sum_a pi_(a,r) - 1/P| <= rho`` per residue, is covered by boxes, refined by
  branch-and-bound (the box of largest bound split at the midpoint of the coordinate along which the affine form
  of its residual stream varies most, :func:`bounds.certify.gpt2_affine.smear_split`, else of its widest
  coordinate, widths relative to the initial box; the constraints propagated into the bounds, with a margin for their rounding: :func:`propagate`);
  each class t is a root (the residue ``n mod P`` of a long input is its last class's, so every input lies in the
  boxes of its t); the centres of split boxes are realized as concrete long inputs (of a length whose residue is
  t's) for the lower bound.

**Absolute positions** (a table of R rows that is not periodic, read with ``absolute=True``,
:mod:`bounds.certify.gpt2`): the model reads at most R positions, where it equals the model whose table is read with
period R (every position its own residue, so a class is (token, position)); the lengths 1..R - 1 tokens are
enumerated (up to ``max_length`` and as many as MAX_CONFIGURATIONS allows: k^n inputs of n tokens), no
branch-and-bound runs, and nothing is
claimed beyond R (``defined_up_to``; Izzo et al.'s certificate does the same for its trained absolute-position
models, :func:`bounds.certify.trained.absolute_as_periodic`).  ``certified`` then means every input of at most R
positions, ``undetermined`` that the enumeration stopped at N0 + 1 < R (H says how far it certified).

Verdict: ``certified`` when the largest bound U over the enumerated lengths and the open boxes is <= eps (then
``|f - g| <= U`` at every length), ``fails`` when a concrete input's certified lower end exceeds eps (its torch
forward is re-checked where it has at most 8191 tokens), else ``undetermined`` with the gap [L, U].  The witness
record holds the input's token ids without and with the BOS token (``ids``, ``model_ids``: what the model
consumes), the logit j of largest torch ``|f_j - g_j|`` (``output``) and the signed torch ``f_j - g_j``.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from bounds.certify.gpt2 import MAX_ALPHABET, MAX_TABLE_CLASSES
from bounds.certify.gpt2_difference import PairDifference
from bounds.certify.gpt2_enclosure import point_box
from bounds.certify.horizon import WITNESS_STRING_LIMIT, find_horizon
from bounds.certify.search import Deadline
from bounds.true_threshold import positions_per_residue

MAX_CONFIGURATIONS = 200_000  # enumerated class configurations over all lengths 1..N0
TORCH_CHECK_LIMIT = 8191
CHUNK = 1024  # configurations evaluated per call (one unit of work between deadline checks)
MAX_REALIZED_LENGTH = 10**12  # longest input the branch-and-bound realizes (tokens)


@dataclass
class Gpt2Certificate:
    verdict: str
    upper: float
    lower: float
    eps: float
    N0: int
    witness: dict
    torch_difference: float | None  # max_j |f_j - g_j| of the torch forwards on the witness (None if too long)
    lengths: list = field(default_factory=list)  # per enumerated length: [lower, upper]
    boxes_split: int = 0
    boxes_open: int = 0
    seconds: float = 0.0
    horizon: object = None  # bounds.certify.horizon.Horizon (model lengths)
    reached: dict = field(default_factory=dict)  # how far each phase got (all of it unless the deadline passed)
    period: int = 1  # the classes' period (1: NoPE)
    defined_up_to: int | None = None  # an absolute table's rows: nothing is claimed about longer inputs

    @property
    def gap(self) -> float:
        return max(0.0, self.upper - self.lower)

    def record(self) -> dict:
        return {"verdict": self.verdict, "upper": self.upper, "lower": self.lower, "gap": self.gap,
                "eps": self.eps, "N0": self.N0, "witness": self.witness, "torch_difference": self.torch_difference,
                "lengths": self.lengths, "boxes_split": self.boxes_split, "boxes_open": self.boxes_open,
                "seconds": self.seconds, "delta": [0.0, 0.0], "train_length": None, "reached": self.reached,
                "period": self.period, "defined_up_to": self.defined_up_to,
                "horizon": None if self.horizon is None else
                {**self.horizon.record(), "lengths": "model lengths: the input's tokens plus BOS"}}


def all_compositions(n: int, k: int) -> np.ndarray:
    """Every count vector of k letters summing to n, as rows of an int array."""
    rows = [c for c in itertools.combinations(range(n + k - 1), k - 1)]
    out = np.empty((len(rows), k), dtype=np.int64)
    for i, bars in enumerate(rows):
        prev = -1
        for j, b in enumerate(bars):
            out[i, j] = b - prev - 1
            prev = b
        out[i, k - 1] = n + k - 2 - prev
    return out


def compositions(n: int, k: int, t: int) -> np.ndarray:
    """Every count vector of k letters summing to n with letter t present, as rows of an int array."""
    out = all_compositions(n, k)
    return out[out[:, t] >= 1]


def residue_totals(n: int, period: int) -> list[int]:
    """N_r: how many of the token positions 1..n (BOS at 0) have residue r = position mod P, r = 0..P-1 (Izzo et
    al.'s count of the positions after ``$`` per residue, :func:`bounds.true_threshold.positions_per_residue`)."""
    return positions_per_residue(n + 1, period)


def configurations(n: int, k: int, t: int, period: int = 1) -> np.ndarray:
    """Every class count vector (k P classes, class ``i P + r``) of an input of n tokens whose last position has
    class t, as rows of an int array: per residue r a composition of N_r over the k letters, class t present, t's
    residue the last position's ``n mod P`` (none otherwise).  P = 1: :func:`compositions`."""
    P = period
    if P == 1:
        return compositions(n, k, t)
    if t % P != n % P:
        return np.empty((0, k * P), dtype=np.int64)
    out = np.zeros((1, k * P), dtype=np.int64)
    for r, m in enumerate(residue_totals(n, P)):  # the product over residues, one residue at a time
        c = all_compositions(m, k)
        out = np.repeat(out, len(c), axis=0)
        out[:, r::P] = np.tile(c, (len(out) // len(c), 1))
    return out[out[:, t] >= 1]


def configuration_count(n: int, k: int, period: int = 1) -> int:
    """An upper bound of the number of configurations of n tokens over every last class (k P classes)."""
    total = k
    for m in residue_totals(n, period):
        total *= math.comb(m + k - 1, k - 1)
    return total


def max_enumerated_length(k: int, wanted: int, period: int = 1) -> int:
    """The largest N0 <= wanted whose configurations (all lengths 1..N0) fit MAX_CONFIGURATIONS."""
    total, n0 = 0, 0
    for n in range(1, wanted + 1):
        total += configuration_count(n, k, period)
        if total > MAX_CONFIGURATIONS:
            break
        n0 = n
    return max(n0, 1)


def _abs_bounds(lo, hi):
    """Per box: upper and certified lower end of max_j |D_j| from the enclosures of D."""
    upper = np.maximum(np.abs(lo), np.abs(hi)).max(axis=1)
    lower = np.maximum(np.maximum(lo, -hi), 0.0).max(axis=1)
    return upper, lower


def id_runs(alphabet, counts, t: int) -> list:
    """The input of :func:`string_of` (NoPE) as (token id, repeat) runs: the letters in alphabet order, one
    alphabet[t] moved to the end (so a long input can be written without building it)."""
    runs = [(int(a), int(c) - (i == t)) for i, (a, c) in enumerate(zip(alphabet, counts, strict=True))]
    return [r for r in runs if r[1] > 0] + [(int(alphabet[t]), 1)]


def string_of(alphabet, counts, t: int, period: int = 1) -> list:
    """An input with these class counts whose last position has class t.  NoPE: the letters in alphabet order,
    one alphabet[t] last (the order of the others is immaterial).  Period P: position i (1..n) takes the next
    letter (alphabet order) of its residue ``i mod P``, the last one t's letter."""
    P = period
    if P == 1:
        return [a for a, r in id_runs(alphabet, counts, t) for _ in range(r)]
    left = [int(c) for c in counts]
    left[t] -= 1
    n = sum(int(c) for c in counts)
    pools = [[int(alphabet[c // P]) for c in range(r, len(left), P) for _ in range(left[c])][::-1] for r in range(P)]
    return [pools[i % P].pop() for i in range(1, n)] + [int(alphabet[t // P])]


def count_labels(alphabet, period: int = 1) -> list:
    """The names of the classes in records: the token id (NoPE), ``id@r`` (token id at residue r) with P > 1."""
    return [str(a) for a in alphabet] if period == 1 else [f"{a}@{r}" for a in alphabet for r in range(period)]


def _groups(k: int, P: int) -> list:
    return [np.arange(r, k * P, P) for r in range(P)]


def propagate(t: int, r_lo, r_hi, p_lo, p_hi, period: int = 1):
    """Tighten boxes by rho + sum pi = 1, pi_t >= rho and (P > 1) ``|sum_a pi_(a,r) - 1/P| <= rho`` per residue r
    (the module docstring of :mod:`bounds.certify.gpt2_enclosure`); returns the bounds and a mask of nonempty boxes."""
    kP = p_lo.shape[1]
    marg = (kP + 3) ** 2 * 2.0**-52  # covers the rounding of the sums below (all terms in [0, 1])
    ok = np.ones(len(r_lo), dtype=bool)
    if period > 1:
        p_lo, p_hi = p_lo.copy(), p_hi.copy()
        g_lo = (1 / period - r_hi - marg)[:, None]
        g_hi = (1 / period + r_hi + marg)[:, None]
        for idx in _groups(kP // period, period):
            s_lo, s_hi = p_lo[:, idx].sum(axis=1, keepdims=True), p_hi[:, idx].sum(axis=1, keepdims=True)
            ok &= (s_lo <= g_hi)[:, 0] & (s_hi >= g_lo)[:, 0]
            p_lo[:, idx] = np.maximum(p_lo[:, idx], g_lo - (s_hi - p_hi[:, idx]) - marg)
            p_hi[:, idx] = np.minimum(p_hi[:, idx], g_hi - (s_lo - p_lo[:, idx]) + marg)
    s_lo, s_hi = p_lo.sum(axis=1, keepdims=True), p_hi.sum(axis=1, keepdims=True)
    n_lo = np.maximum(p_lo, 1 - r_hi[:, None] - (s_hi - p_hi) - marg)
    n_hi = np.minimum(p_hi, 1 - r_lo[:, None] - (s_lo - p_lo) + marg)
    n_lo[:, t] = np.maximum(n_lo[:, t], r_lo)
    nr_hi = np.minimum(np.minimum(r_hi, 1 - n_lo.sum(axis=1) + marg), n_hi[:, t])
    nr_lo = np.maximum(r_lo, 1 - n_hi.sum(axis=1) - marg)
    ok &= np.all(n_lo <= n_hi, axis=1) & (nr_lo <= nr_hi)
    return nr_lo, nr_hi, np.maximum(n_lo, 0.0), n_hi, ok


def _split(total: int, share: np.ndarray, keep: int | None) -> np.ndarray:
    """``total`` split in proportion to ``share`` (floors, the rest by largest remainders), entry ``keep`` >= 1."""
    share = share / max(share.sum(), 1e-300)
    counts = np.floor(share * total).astype(np.int64)
    if keep is not None:
        counts[keep] = max(counts[keep], 1)
    while counts.sum() > total:
        j = int(np.argmax(counts - (np.arange(len(counts)) == keep)))
        counts[j] -= 1
    rest = total - int(counts.sum())
    if rest:
        order = np.argsort(-(share * total - counts))
        for j in order[:rest]:
            counts[j] += 1
    return counts


def _realize(t: int, r_mid: float, p_mid: np.ndarray, n_min: int, n_max: int = MAX_REALIZED_LENGTH,
             period: int = 1):
    """A concrete length and class count vector near a box centre (n >= n_min, class t present, n mod P = t's
    residue); None when ``n_min..n_max`` holds no length of that residue."""
    P = period
    L = int(min(max(n_min + 1, round(1 / max(r_mid, 1e-300))), n_max + 1))
    n = L - 1
    if P == 1:
        return n, _split(n, p_mid, t)
    n += (t % P - n) % P
    if n > n_max:
        n -= P
    if n < n_min:
        return None
    counts = np.zeros(len(p_mid), dtype=np.int64)
    for r, (idx, m) in enumerate(zip(_groups(len(p_mid) // P, P), residue_totals(n, P), strict=True)):
        counts[idx] = _split(m, p_mid[idx] + 1e-300, t // P if r == t % P else None)
    return n, counts


@dataclass
class Row:
    """One enumerated length: model length (tokens + BOS), the certified [lower, upper] of max_j |f_j - g_j| over
    its inputs, and the input attaining the lower end (``witness``: its token ids; ``n``, ``counts``, ``t``)."""

    length: int
    lower: float
    upper: float
    witness: list
    n: int
    counts: list
    t: int


@dataclass
class Long:
    """Branch-and-bound over a range of lengths: the certified ``upper`` bound (inf where a part of the range was
    not bounded), the best realized ``lower`` end and its ``witness`` ``(n, counts, t)`` (None: none)."""

    upper: float
    lower: float
    witness: tuple | None
    boxes_split: int
    boxes_open: int


def enumerate_length(pd: PairDifference, k: int, n: int, deadline: Deadline, period: int = 1) -> Row | None:
    """Every configuration of n tokens (model length n + 1), CHUNK at a time; None when the deadline passes first."""
    best = (-1.0, None, None)
    upper = 0.0
    L = float(n + 1)
    for t in range(k * period):
        cs = configurations(n, k, t, period)
        if not len(cs):
            continue
        r_lo, r_hi, _, _ = point_box(cs[0], n)
        for a in range(0, len(cs), CHUNK):
            if deadline.expired():
                return None
            c = cs[a:a + CHUNK]
            B = len(c)
            up, low = _abs_bounds(*pd.difference(t, np.repeat(r_lo, B), np.repeat(r_hi, B),
                                                 np.nextafter(c / L, -np.inf), np.nextafter(c / L, np.inf)))
            i = int(np.argmax(low))
            if low[i] > best[0]:
                best = (float(low[i]), [int(x) for x in c[i]], t)
            upper = max(upper, float(up.max()))
    return Row(n + 1, max(best[0], 0.0), upper, None, n, best[1], best[2])


def branch_and_bound(pd: PairDifference, k: int, n_min: int, n_max: int | None, eps: float, deadline: Deadline,
                     budget_s: float, max_boxes: int, batch: int = 64, stop_above: bool = True,
                     tick=None, upper_short: float = 0.0, lower_start: float = 0.0, period: int = 1) -> Long:
    """The module docstring's branch-and-bound over every length n in ``n_min..n_max`` (None: every length >=
    n_min), i.e. rho in [1/(n_max + 1), 1/(n_min + 1)], until every open box is within eps, a realized input
    exceeds eps (``stop_above``; ``lower_start``: a failure already known elsewhere), ``max_boxes`` boxes are
    split, or ``budget_s`` or the deadline is spent."""
    own = Deadline.within(budget_s, deadline)
    P = period
    kP = k * P
    r0 = float(np.nextafter(1 / (n_min + 1), np.inf))
    r_min = 0.0 if n_max is None else float(np.nextafter(1 / (n_max + 1), -np.inf))
    scale = np.array([r0 - r_min] + [1.0] * kP)
    heap, serial, split = [], itertools.count(), 0
    best = {"lower": 0.0, "w": None}
    cap = 10**12 if n_max is None else n_max

    def push(t, r_lo, r_hi, p_lo, p_hi):
        r_lo, r_hi, p_lo, p_hi, ok = propagate(t, r_lo, r_hi, p_lo, p_hi, P)
        if not ok.any():
            return
        r_lo, r_hi, p_lo, p_hi = r_lo[ok], r_hi[ok], p_lo[ok], p_hi[ok]
        lo, hi, split = pd.difference_and_split(t, r_lo, r_hi, p_lo, p_hi)
        up, _ = _abs_bounds(lo, hi)
        for i in range(len(up)):
            j = -1 if split is None else int(split[i])
            heapq.heappush(heap, (-float(up[i]), next(serial), t, float(r_lo[i]), float(r_hi[i]),
                                  p_lo[i].copy(), p_hi[i].copy(), j))
        # realize the centres as concrete inputs of the range
        rs, cs = [], []
        for i in range(len(up)):
            got = _realize(t, (r_lo[i] + r_hi[i]) / 2, (p_lo[i] + p_hi[i]) / 2, n_min, cap, P)
            if got is not None:
                rs.append(got[0])
                cs.append(got[1])
        if not rs:
            return
        cs = np.array(cs)
        Ls = np.array(rs, dtype=np.float64)[:, None] + 1
        _, low = _abs_bounds(*pd.difference(t, np.nextafter(1 / Ls[:, 0], -np.inf), np.nextafter(1 / Ls[:, 0], np.inf),
                                             np.nextafter(cs / Ls, -np.inf), np.nextafter(cs / Ls, np.inf)))
        i = int(np.argmax(low))
        if low[i] > best["lower"]:
            best.update(lower=float(low[i]), w=(int(rs[i]), [int(c) for c in cs[i]], t))

    pushed = 0
    for t in range(kP):
        if own.expired():
            break
        push(t, np.array([r_min]), np.array([r0]), np.zeros((1, kP)), np.ones((1, kP)))
        pushed += 1
    while pushed == kP and heap and -heap[0][0] > eps and not (stop_above and max(best["lower"], lower_start) > eps) \
            and not own.expired() and split < max_boxes:
        popped = [heapq.heappop(heap) for _ in range(min(batch, len(heap))) if heap and -heap[0][0] > eps]
        by_t = {}
        for _, _, t, r_lo, r_hi, p_lo, p_hi, j in popped:
            lo = np.concatenate([[r_lo], p_lo])
            hi = np.concatenate([[r_hi], p_hi])
            if j < 0 or not hi[j] > lo[j]:  # no smear (no affine forms): the relatively widest coordinate
                j = int(np.argmax((hi - lo) / scale))
            mid = lo[j] + (hi[j] - lo[j]) / 2
            for a, b in ((lo, np.where(np.arange(kP + 1) == j, mid, hi)),
                         (np.where(np.arange(kP + 1) == j, mid, lo), hi)):
                by_t.setdefault(t, []).append((a, b))
            split += 1
        for t, kids in by_t.items():
            lo = np.array([a for a, _ in kids])
            hi = np.array([b for _, b in kids])
            push(t, lo[:, 0], hi[:, 0], lo[:, 1:], hi[:, 1:])
        if tick is not None:
            tick(split, max(upper_short, -heap[0][0] if heap else 0.0), best["lower"])
    upper = math.inf if pushed < kP else (-heap[0][0] if heap else 0.0)
    return Long(upper, best["lower"], best["w"], split, len(heap))


def _ids_text(ids: list) -> str:
    return f"token ids {ids}" if len(ids) <= 60 else f"{len(ids)} token ids (--json carries them)"


def _row_witness(alphabet, period: int = 1):
    labels = count_labels(alphabet, period)

    def describe(r: Row) -> dict:
        ids = string_of(alphabet, r.counts, r.t, period)
        return {"length": r.length, "string": ids, "counts": dict(zip(labels, r.counts, strict=True)),
                "window": [], "last": int(alphabet[r.t // period]), "class": r.t, "description": _ids_text(ids)}
    return describe


def _long_witness(alphabet, period: int = 1):
    labels = count_labels(alphabet, period)

    def describe(w: tuple) -> dict:
        n, counts, t = w
        ids = string_of(alphabet, counts, t, period) if n <= WITNESS_STRING_LIMIT else None
        text = _ids_text(ids) if ids is not None else \
            f"the input of {n} tokens with counts {dict(zip(labels, counts, strict=True))} (last class {labels[t]})"
        return {"length": n + 1, "string": ids, "counts": dict(zip(labels, counts, strict=True)),
                "window": [], "last": int(alphabet[t // period]), "class": t, "description": text}
    return describe


def certify_pair(f, g, eps: float, max_length: int = 16, budget_s: float = 30.0, batch: int = 64,
                 max_boxes: int = 1_000_000, tick=None, deadline: Deadline | None = None,
                 horizon: bool = True, affine: bool = True) -> Gpt2Certificate:
    """The verdict of the module docstring for two forms with the same BOS and alphabet, then (``horizon``) the
    certified horizon H and the shortest failure X (:func:`bounds.certify.horizon.find_horizon`; model lengths,
    the tokens plus BOS, from 2).  Every phase stops at the deadline (``budget_s`` seconds, or ``deadline`` when it
    ends first: the whole command's): lengths 1..N0 are enumerated CHUNK configurations at a time, the
    branch-and-bound over every longer length gets half of what is left, the horizon the rest.  A length or
    range not reached is not claimed (U = inf, never "certified"); ``reached`` says how far each phase got.
    ``affine=False`` leaves out the affine forms (:mod:`bounds.certify.gpt2_affine`; for comparison)."""
    own = Deadline.within(budget_s, deadline)
    deadline = own
    P = math.lcm(f.period, g.period)
    R = min((x.defined_up_to for x in (f, g) if x.defined_up_to is not None), default=None)
    limit, name = (MAX_ALPHABET, "MAX_ALPHABET") if R is None else (MAX_TABLE_CLASSES, "MAX_TABLE_CLASSES")
    if len(f.alphabet) * P > limit:
        raise ValueError(f"the pair's classes at period {P} (the lcm of {f.period} and {g.period}): "
                         f"{len(f.alphabet)} tokens x {P} residues exceed {name} = {limit}")
    f, g = f.at_period(P), g.at_period(P)
    pd = PairDifference(f, g, affine=affine)
    alphabet = f.alphabet
    k = len(alphabet)
    target = max_enumerated_length(k, max_length if R is None else min(max_length, R - 1), P)
    rows: list[Row] = []
    for n in range(1, target + 1):
        row = enumerate_length(pd, k, n, deadline, P)
        if row is None:
            break
        rows.append(row)
    N0 = len(rows)
    upper_short = max((r.upper for r in rows), default=0.0)
    if R is not None:  # the model reads at most R positions: every length up to it enumerated, none beyond claimed
        long = Long(0.0 if N0 == R - 1 else math.inf, 0.0, None, 0, 0)
    elif N0 < target:
        long = Long(math.inf, 0.0, None, 0, 0)
    else:
        long = branch_and_bound(pd, k, N0 + 1, None, eps, deadline, 0.5 * deadline.left() if horizon else
                                deadline.left(), max_boxes, batch, tick=tick, upper_short=upper_short,
                                lower_start=max((r.lower for r in rows), default=0.0), period=P)
    hz = None
    if horizon:
        def extend(m: int):
            n = m - 1
            if configuration_count(n, k, P) > MAX_CONFIGURATIONS:
                return None
            row = enumerate_length(pd, k, n, deadline, P)
            if row is not None:
                row.witness = string_of(alphabet, row.counts, row.t, P)
            return row

        def probe_range(lo: int, M: int, seconds: float) -> Long:
            return branch_and_bound(pd, k, lo, M - 1, eps, deadline, seconds, max_boxes, batch, period=P)

        for r in rows:
            r.witness = string_of(alphabet, r.counts, r.t, P)
        hz = find_horizon(None, rows, long if N0 == target and R is None else None, eps, eps, deadline.left(), 2,
                          probe_range, MAX_REALIZED_LENGTH + 1 if R is None else R, None,
                          extend if R is None else None, _row_witness(alphabet, P), _long_witness(alphabet, P))
    best = max(rows, key=lambda r: r.lower, default=None)
    cand = [(best.lower, best.n, best.counts, best.t)] if best is not None else []
    if long.witness is not None:
        cand.append((long.lower, *long.witness))
    if hz is not None and hz.X is not None and hz.witness.get("counts"):
        w = hz.witness
        cand.append((hz.x_value, w["length"] - 1, [w["counts"][c] for c in count_labels(alphabet, P)], w["class"]))
    lower, wn, wc, wt = max(cand, key=lambda c: c[0], default=(0.0, None, None, None))
    if lower <= 0:  # no input is known to differ: no witness
        wn = wc = wt = None
    upper = max(upper_short, long.upper)
    verdict = "fails" if lower > eps else ("certified" if upper <= eps else "undetermined")
    witness = {"length": wn, "counts": wc, "last": None if wt is None else int(alphabet[wt // P]), "ids": None,
               "model_ids": None, "output": None, "f_minus_g": None}
    torch_diff = None
    if wn is not None and wn <= TORCH_CHECK_LIMIT:
        ids = string_of(alphabet, wc, wt, P)
        witness.update(ids=ids, model_ids=[int(f.bos), *ids])
        if f.torch_model is not None and g.torch_model is not None:
            diff = f.torch_logits(ids) - g.torch_logits(ids)
            j = int(np.argmax(np.abs(diff)))
            torch_diff = float(abs(diff[j]))
            witness.update(output=j, f_minus_g=float(diff[j]))
    reached = {"enumerated_to": N0, "enumeration_target": target,
               "budget_spent": N0 < target or (verdict == "undetermined" and long.boxes_split < max_boxes
                                               and deadline.expired())}
    return Gpt2Certificate(verdict, float(upper), float(lower), float(eps), N0, witness, torch_diff,
                           [[r.lower, r.upper] for r in rows], long.boxes_split, long.boxes_open,
                           deadline.elapsed(), horizon=hz, reached=reached, period=P, defined_up_to=R)
