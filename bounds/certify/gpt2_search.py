"""The every-length certificate for two one-layer NoPE GPT-2 forms: ``max_j |f_j - g_j| <= eps`` on every input.

Izzo et al. Theorem 4.1 concerns agreement of two models at every length; this module decides it for a concrete
pair of one-layer NoPE GPT-2 models (:mod:`bounds.certify.gpt2`) through the class reduction of
:mod:`bounds.certify.gpt2_enclosure`: the logits at the last position of ``BOS x_1 ... x_n`` are a function
F_t(rho, pi) of the last token t, rho = 1/(n + 1) and the shares pi_c = count_c / (n + 1).

* **Lengths 1..N0**: every class configuration (count vector with the last token counted) is enclosed on its
  point box; the largest certified lower end of ``|f - g|`` is attained by a concrete input (its string).
* **Every length > N0**: the closure of the shares of those inputs, ``rho in [0, 1/(N0 + 2)]``, ``rho + sum pi =
  1``, ``pi_t >= rho``, is covered by boxes, refined by branch-and-bound (the box of largest bound split at the
  midpoint of its widest coordinate, widths relative to the initial box; ``rho + sum pi = 1`` and ``pi_t >= rho``
  propagated into the bounds, with a margin for their rounding); the centres of split boxes are realized as
  concrete long inputs for the lower bound.

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
import time
from dataclasses import dataclass, field

import numpy as np

from bounds.certify.gpt2_difference import PairDifference
from bounds.certify.gpt2_enclosure import point_box

MAX_CONFIGURATIONS = 200_000  # enumerated class configurations over all lengths 1..N0
TORCH_CHECK_LIMIT = 8191


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

    @property
    def gap(self) -> float:
        return max(0.0, self.upper - self.lower)

    def record(self) -> dict:
        return {"verdict": self.verdict, "upper": self.upper, "lower": self.lower, "gap": self.gap,
                "eps": self.eps, "N0": self.N0, "witness": self.witness, "torch_difference": self.torch_difference,
                "lengths": self.lengths, "boxes_split": self.boxes_split, "boxes_open": self.boxes_open,
                "seconds": self.seconds}


def compositions(n: int, k: int, t: int) -> np.ndarray:
    """Every count vector of k letters summing to n with letter t present, as rows of an int array."""
    rows = [c for c in itertools.combinations(range(n + k - 1), k - 1)]
    out = np.empty((len(rows), k), dtype=np.int64)
    for i, bars in enumerate(rows):
        prev = -1
        for j, b in enumerate(bars):
            out[i, j] = b - prev - 1
            prev = b
        out[i, k - 1] = n + k - 2 - prev
    return out[out[:, t] >= 1]


def max_enumerated_length(k: int, wanted: int) -> int:
    """The largest N0 <= wanted whose configurations (all lengths 1..N0) fit MAX_CONFIGURATIONS."""
    total, n0 = 0, 0
    for n in range(1, wanted + 1):
        total += k * math.comb(n + k - 1, k - 1)
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
    """The input of :func:`string_of` as (token id, repeat) runs: the letters in alphabet order, one alphabet[t]
    moved to the end (so a long input can be written without building it)."""
    runs = [(int(a), int(c) - (i == t)) for i, (a, c) in enumerate(zip(alphabet, counts, strict=True))]
    return [r for r in runs if r[1] > 0] + [(int(alphabet[t]), 1)]


def string_of(alphabet, counts, t: int) -> list:
    """An input with these counts whose last token is alphabet[t] (NoPE: the order of the others is immaterial)."""
    return [a for a, r in id_runs(alphabet, counts, t) for _ in range(r)]


def propagate(t: int, r_lo, r_hi, p_lo, p_hi):
    """Tighten boxes by rho + sum pi = 1 and pi_t >= rho; returns the bounds and a mask of nonempty boxes."""
    k = p_lo.shape[1]
    marg = (k + 3) ** 2 * 2.0**-52  # covers the rounding of the sums below (all terms in [0, 1])
    s_lo, s_hi = p_lo.sum(axis=1, keepdims=True), p_hi.sum(axis=1, keepdims=True)
    n_lo = np.maximum(p_lo, 1 - r_hi[:, None] - (s_hi - p_hi) - marg)
    n_hi = np.minimum(p_hi, 1 - r_lo[:, None] - (s_lo - p_lo) + marg)
    n_lo[:, t] = np.maximum(n_lo[:, t], r_lo)
    nr_hi = np.minimum(np.minimum(r_hi, 1 - n_lo.sum(axis=1) + marg), n_hi[:, t])
    nr_lo = np.maximum(r_lo, 1 - n_hi.sum(axis=1) - marg)
    ok = np.all(n_lo <= n_hi, axis=1) & (nr_lo <= nr_hi)
    return nr_lo, nr_hi, np.maximum(n_lo, 0.0), n_hi, ok


def _realize(t: int, r_mid: float, p_mid: np.ndarray, n_min: int, n_max: int = 10**12):
    """A concrete length and count vector near a box centre (n >= n_min, letter t present)."""
    L = int(min(max(n_min + 1, round(1 / max(r_mid, 1e-300))), n_max + 1))
    n = L - 1
    share = p_mid / max(p_mid.sum(), 1e-300)
    counts = np.floor(share * n).astype(np.int64)
    counts[t] = max(counts[t], 1)
    while counts.sum() > n:
        j = int(np.argmax(counts - (np.arange(len(counts)) == t)))
        counts[j] -= 1
    rest = n - int(counts.sum())
    if rest:
        order = np.argsort(-(share * n - counts))
        for j in order[:rest]:
            counts[j] += 1
    return n, counts


def certify_pair(f, g, eps: float, max_length: int = 16, budget_s: float = 30.0, batch: int = 64,
                 max_boxes: int = 1_000_000, tick=None) -> Gpt2Certificate:
    """The verdict of the module docstring for two forms with the same BOS and alphabet."""
    start = time.monotonic()
    pd = PairDifference(f, g)
    alphabet = f.alphabet
    k = len(alphabet)
    N0 = max_enumerated_length(k, max_length)
    best = {"lower": 0.0, "n": None, "counts": None, "t": None}
    upper_short = 0.0
    lengths = []

    def consider(lower, n, counts, t):
        i = int(np.argmax(lower))
        if lower[i] > best["lower"]:
            best.update(lower=float(lower[i]), n=int(n[i]), counts=[int(c) for c in counts[i]], t=t)

    for n in range(1, N0 + 1):
        row_lo = row_hi = 0.0
        for t in range(k):
            cs = compositions(n, k, t)
            r_lo, r_hi, _, _ = point_box(cs[0], n)
            L = float(n + 1)
            p_lo, p_hi = np.nextafter(cs / L, -np.inf), np.nextafter(cs / L, np.inf)
            B = len(cs)
            up, low = _abs_bounds(*pd.difference(t, np.repeat(r_lo, B), np.repeat(r_hi, B), p_lo, p_hi))
            consider(low, np.full(B, n), cs, t)
            row_lo, row_hi = max(row_lo, float(low.max())), max(row_hi, float(up.max()))
        lengths.append([row_lo, row_hi])
        upper_short = max(upper_short, row_hi)

    # every length > N0: branch-and-bound over the shares' closure
    r0 = float(np.nextafter(1 / (N0 + 2), np.inf))
    scale = np.array([r0] + [1.0] * k)
    heap, serial, split = [], itertools.count(), 0

    def push(t, r_lo, r_hi, p_lo, p_hi):
        r_lo, r_hi, p_lo, p_hi, ok = propagate(t, r_lo, r_hi, p_lo, p_hi)
        if not ok.any():
            return
        r_lo, r_hi, p_lo, p_hi = r_lo[ok], r_hi[ok], p_lo[ok], p_hi[ok]
        up, _ = _abs_bounds(*pd.difference(t, r_lo, r_hi, p_lo, p_hi))
        for i in range(len(up)):
            heapq.heappush(heap, (-float(up[i]), next(serial), t, float(r_lo[i]), float(r_hi[i]),
                                  p_lo[i].copy(), p_hi[i].copy()))
        # realize the centres as concrete long inputs
        rs, cs = [], []
        for i in range(len(up)):
            n, c = _realize(t, (r_lo[i] + r_hi[i]) / 2, (p_lo[i] + p_hi[i]) / 2, N0 + 1)
            rs.append(n)
            cs.append(c)
        cs = np.array(cs)
        Ls = np.array(rs, dtype=np.float64)[:, None] + 1
        low_r = np.nextafter(1 / Ls[:, 0], -np.inf)
        up_r = np.nextafter(1 / Ls[:, 0], np.inf)
        _, low = _abs_bounds(*pd.difference(t, low_r, up_r, np.nextafter(cs / Ls, -np.inf),
                                             np.nextafter(cs / Ls, np.inf)))
        consider(low, np.array(rs), cs, t)

    for t in range(k):
        push(t, np.array([0.0]), np.array([r0]), np.zeros((1, k)), np.ones((1, k)))
    while heap and -heap[0][0] > eps and best["lower"] <= eps and time.monotonic() - start < budget_s \
            and split < max_boxes:
        popped = [heapq.heappop(heap) for _ in range(min(batch, len(heap))) if heap and -heap[0][0] > eps]
        by_t = {}
        for _, _, t, r_lo, r_hi, p_lo, p_hi in popped:
            lo = np.concatenate([[r_lo], p_lo])
            hi = np.concatenate([[r_hi], p_hi])
            j = int(np.argmax((hi - lo) / scale))
            mid = lo[j] + (hi[j] - lo[j]) / 2
            for a, b in ((lo, np.where(np.arange(k + 1) == j, mid, hi)),
                         (np.where(np.arange(k + 1) == j, mid, lo), hi)):
                by_t.setdefault(t, []).append((a, b))
            split += 1
        for t, kids in by_t.items():
            lo = np.array([a for a, _ in kids])
            hi = np.array([b for _, b in kids])
            push(t, lo[:, 0], hi[:, 0], lo[:, 1:], hi[:, 1:])
        if tick is not None:
            tick(split, max(upper_short, -heap[0][0] if heap else 0.0), best["lower"])
    upper_long = -heap[0][0] if heap else 0.0
    upper = max(upper_short, upper_long)
    lower = best["lower"]
    verdict = "fails" if lower > eps else ("certified" if upper <= eps else "undetermined")
    witness = {"length": best["n"], "counts": best["counts"],
               "last": None if best["t"] is None else int(alphabet[best["t"]]), "ids": None, "model_ids": None,
               "output": None, "f_minus_g": None}
    torch_diff = None
    if best["n"] is not None and best["n"] <= TORCH_CHECK_LIMIT:
        ids = string_of(alphabet, best["counts"], best["t"])
        witness.update(ids=ids, model_ids=[int(f.bos), *ids])
        if f.torch_model is not None and g.torch_model is not None:
            diff = f.torch_logits(ids) - g.torch_logits(ids)
            j = int(np.argmax(np.abs(diff)))
            torch_diff = float(abs(diff[j]))
            witness.update(output=j, f_minus_g=float(diff[j]))
    return Gpt2Certificate(verdict, float(upper), float(lower), float(eps), N0, witness, torch_diff, lengths,
                           split, len(heap), time.monotonic() - start)
