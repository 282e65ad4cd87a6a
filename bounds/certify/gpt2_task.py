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
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from bounds.certify.gpt2_centred import CentredEnclosure, _centred, intersect, mul, normalize_jacobian_times
from bounds.certify.gpt2_enclosure import Enclosure, _bounds, _to_ball, layer_norm, point
from bounds.certify.gpt2_search import TORCH_CHECK_LIMIT, compositions, max_enumerated_length, string_of
from bounds.float_enclosures import Ball, add, matmul, sub

READOUTS = ("argmax", "classes")


class GapEnclosure:
    """Enclosures (lo, hi), each (B, labels), of ``gap_l`` for every label l on boxes (module docstring).

    ``centred`` (default): each difference ``logit_l - logit_j`` is also enclosed by its centred form
    ``D(c) + (m - c) J_D`` over the box's masses m (centre c), with ``J_D = J_z diag(gamma_f) (W_l - W_j)^T`` and J_z
    the interval Jacobian of ln_f's normalized output from :class:`bounds.certify.gpt2_centred.CentredEnclosure`
    (mean-value theorem per coordinate, proof there), and the two enclosures intersected."""

    def __init__(self, form, outputs, readout: str = "argmax", centred: bool = True):
        if readout not in READOUTS:
            raise ValueError(f"readout must be one of {', '.join(READOUTS)}")
        n_out = form.head_w.shape[0]
        if max(outputs) >= n_out:
            raise ValueError(f"the head has {n_out} outputs: no logit for answer token {max(outputs)}")
        self.enc = CentredEnclosure(form) if centred else Enclosure(form)
        self.centred = centred
        self.outputs = list(outputs)
        self.maps = []
        for o in self.outputs:
            comp = [j for j in (range(n_out) if readout == "argmax" else self.outputs) if j != o]
            w = sub(point(form.head_w[o][None, :]), point(form.head_w[comp]))  # (|J|, d)
            b = sub(point(form.head_b[o:o + 1]), point(form.head_b[comp]))
            self.maps.append((Ball(w.mid.T, w.rad.T), b, comp))

    def gaps(self, t: int, r_lo, r_hi, p_lo, p_hi):
        f = self.enc.form
        tr = self.enc.trace(t, r_lo, r_hi, p_lo, p_hi)
        x2 = _bounds(tr["x2"])
        y = _to_ball(*layer_norm(*x2, f.lnf, f.ln_eps))
        if self.centred:
            yc = _to_ball(*layer_norm(*_bounds(tr["centre"]["x2"]), f.lnf, f.ln_eps))
            with np.errstate(invalid="ignore", over="ignore"):  # an unbounded Jacobian leaves the plain enclosure
                jy = mul(normalize_jacobian_times(*x2, tr["jac_x2"], f.ln_eps), point(f.lnf[0]))
        lo, hi = [], []
        for w, b, _ in self.maps:
            d = _bounds(add(matmul(y, w), b))
            if self.centred:
                with np.errstate(invalid="ignore", over="ignore"):
                    d = intersect(d, _centred(_bounds(add(matmul(yc, w), b)), tr["dm"], matmul(jy, w)))
            lo.append(d[0].min(axis=1))
            hi.append(d[1].min(axis=1))
        return np.stack(lo, axis=1), np.stack(hi, axis=1)


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

    def record(self) -> dict:
        return {"verdict": self.verdict, "task": self.task, "margin": str(self.mu), "margin_float": float(self.mu),
                "logit_margin": self.delta, "readout": self.readout, "gap_lower": self.lower,
                "gap_upper": self.upper, "N0": self.N0, "witness": self.witness, "lengths": self.lengths,
                "boxes_split": self.boxes_split, "boxes_open": self.boxes_open,
                "boxes_discarded": self.boxes_discarded, "seconds": self.seconds}


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


def certify_task(form, target, mu: Fraction, delta: float = 0.0, readout: str = "argmax", max_length: int = 16,
                 budget_s: float = 30.0, batch: int = 64, max_boxes: int = 1_000_000, tick=None,
                 vocab: dict | None = None) -> TaskCertificate:
    """The verdict of the module docstring.  ``form.alphabet`` must be the target's letters' token ids then the
    separator's (:meth:`Target.token_ids` of ``vocab``: a tokenizer's symbol -> id, else the package's)."""
    start = time.monotonic()
    mu = Fraction(mu)
    ids = target.token_ids(vocab)
    outputs = [ids[c] for c in target.classes]
    k = len(target.letters)
    if tuple(form.alphabet) != (*[ids[c] for c in target.letters], ids[target.sep]):
        raise ValueError(f"the model's alphabet {list(form.alphabet)} is not the letters then the separator of "
                         f"{target.name}")
    ge = GapEnclosure(form, outputs, readout)
    N0 = max_enumerated_length(k, max_length)
    best = {"hi": np.inf, "counts": None, "label": None, "lo": None}
    low_all = np.inf

    def consider(letters, labels, lo, hi):
        i = int(np.argmin(hi))
        if hi[i] < best["hi"]:
            best.update(hi=float(hi[i]), lo=float(lo[i]), counts=[int(c) for c in letters[i]], label=int(labels[i]))

    lengths = []
    for n in range(1, N0 + 1):
        rows = compositions(n + 1, k + 1, k)
        letters = rows[rows[:, k] == 1][:, :k]
        labels, ok = target.decide(letters, mu)
        if not ok.any():
            lengths.append([0, None, None])
            continue
        letters, labels = letters[ok], labels[ok]
        lo, hi = ge.gaps(k, *_point_boxes(letters))
        sel = np.arange(len(labels))
        lo, hi = lo[sel, labels], hi[sel, labels]
        consider(letters, labels, lo, hi)
        low_all = min(low_all, float(lo.min()))
        lengths.append([int(len(labels)), float(lo.min()), float(hi.min())])

    # every n > N0: branch-and-bound over the closure of the shares
    r0 = float(np.nextafter(1 / (N0 + 3), np.inf))
    scale = np.array([r0] + [1.0] * k)
    mu_f = float(mu)
    heap, serial = [], itertools.count()
    counter = {"split": 0, "discarded": 0}

    def push(r_lo, r_hi, p_lo, p_hi):
        r_lo, r_hi, p_lo, p_hi, ok = propagate(r_lo, r_hi, p_lo, p_hi)
        labs = target.labels_on_box(p_lo, p_hi, mu_f) & ok[:, None]
        keep = labs.any(axis=1)
        counter["discarded"] += int((~keep).sum())
        if not keep.any():
            return
        r_lo, r_hi, p_lo, p_hi, labs = r_lo[keep], r_hi[keep], p_lo[keep], p_hi[keep], labs[keep]
        lo, _ = ge.gaps(k, *_boxes(r_lo, r_hi, p_lo, p_hi))
        value = delta - np.where(labs, lo, np.inf).min(axis=1)
        for i in range(len(value)):
            heapq.heappush(heap, (-float(value[i]), next(serial), float(r_lo[i]), float(r_hi[i]), p_lo[i].copy(),
                                  p_hi[i].copy()))
        cs = np.array([_realize((r_lo[i] + r_hi[i]) / 2, (p_lo[i] + p_hi[i]) / 2, N0 + 1) for i in range(len(value))])
        clab, cok = target.decide(cs, mu)
        if cok.any():
            cs, clab = cs[cok], clab[cok]
            clo, chi = ge.gaps(k, *_point_boxes(cs))
            sel = np.arange(len(clab))
            consider(cs, clab, clo[sel, clab], chi[sel, clab])

    push(np.array([0.0]), np.array([r0]), np.zeros((1, k)), np.ones((1, k)))
    while heap and -heap[0][0] >= 0 and best["hi"] >= delta and time.monotonic() - start < budget_s \
            and counter["split"] < max_boxes:
        popped = [heapq.heappop(heap) for _ in range(min(batch, len(heap))) if heap and -heap[0][0] >= 0]
        kids = []
        for _, _, r_lo, r_hi, p_lo, p_hi in popped:
            lo = np.concatenate([[r_lo], p_lo])
            hi = np.concatenate([[r_hi], p_hi])
            j = int(np.argmax((hi - lo) / scale))
            mid = lo[j] + (hi[j] - lo[j]) / 2
            at = np.arange(k + 1) == j
            kids += [(lo, np.where(at, mid, hi)), (np.where(at, mid, lo), hi)]
            counter["split"] += 1
        lo = np.array([a for a, _ in kids])
        hi = np.array([b for _, b in kids])
        push(lo[:, 0], hi[:, 0], lo[:, 1:], hi[:, 1:])
        if tick is not None:
            tick(counter["split"], -heap[0][0] if heap else 0.0, best["hi"])
    top = -heap[0][0] if heap else -np.inf
    lower = min(low_all, delta - top)
    if best["hi"] < delta:
        verdict = "fails"
    elif low_all > delta and top < 0:
        verdict = "certified"
    else:
        verdict = "undetermined"
    witness = _witness(form, target, ids, outputs, best, readout)
    open_boxes = sum(1 for e in heap if -e[0] >= 0)
    return TaskCertificate(verdict, target.name, mu, float(delta), readout, float(lower), float(best["hi"]), N0,
                           witness, lengths, counter["split"], open_boxes, counter["discarded"],
                           time.monotonic() - start)


def _witness(form, target, ids, outputs, best, readout) -> dict:
    """The concrete input of smallest certified upper gap: its ids (with the separator), margin, answer, torch."""
    if best["counts"] is None:
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
