"""The true threshold of a pair: the smallest N for which agreement up to N is enough.

For a fixed pair (f, g), agreement error delta and tolerance eps, a training length N *suffices* when
``|f - g| <= delta`` on every input of length <= N implies ``|f - g| <= delta + eps`` on every input.  With
``T = the first length with max |f - g| > delta`` and ``D* = sup over all inputs of |f - g|``:

* ``D* > delta + eps``: N suffices iff N >= T (below T the premise holds and the conclusion fails; from T on the
  premise fails), so the true threshold is exactly T and every sound bound must be >= T;
* ``D* <= delta + eps``: every N suffices; the true threshold is 1.

Method (exact, no floats).  One-layer models under the izzo precision model in the hardmax regime depend on an
input only through the (token, residue) class counts outside the tau-window and the window
(:func:`bounds.auxiliary.hardmax_output`); :func:`max_disagreement` enumerates, for each model length n, every
such configuration (per residue the compositions of its positions over the alphabet, times every window), which
is exactly the set of inputs of length n up to the order of keys outside the window, and evaluates both models
in Fractions.  Up to ``max_length`` this gives ``max |f - g|`` per length exactly, hence T when T <= max_length,
and a witness with ``|f - g| > delta + eps`` decides the first case exactly.  The second case is decided by
:func:`certified_sup`, a certified upper bound of ``D*`` over every length (interval arithmetic over the convex hull
of the value vectors): when it is <= delta + eps the true threshold is exactly 1.  What it does NOT give: ``D*``
itself over lengths beyond ``max_length`` (the supremum over the closure of the class proportions is a difference of
two linear-fractional functions with different denominators, piecewise by ReLU pattern, a non-convex program that
is not implemented), so when neither test decides, the result is reported as undetermined (``1`` if
``D* <= delta + eps``, else ``> max_length``, or ``T`` when T was seen).  Lengths below the hardmax threshold
are refused (the izzo softmax there has irrational weights), as are enumerations above ``max_configs``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from bounds.margin import BoundsError
from constructions.limit_transformer.precision import flushes
from lengthgen_cli import progress

if TYPE_CHECKING:  # imported where used: the estimate reads MAX_CONFIGS without loading the class models
    from bounds.auxiliary import ClassModel

MAX_CONFIGS = 50_000  # configurations evaluated in one call (about 3000 per second on one core); larger is refused


def _compositions(total: int, parts: int):
    """Every tuple of ``parts`` nonnegative integers summing to ``total``."""
    for cuts in itertools.combinations(range(total + parts - 1), parts - 1):
        prev, out = -1, []
        for c in (*cuts, total + parts - 1):
            out.append(c - prev - 1)
            prev = c
        yield tuple(out)


def positions_per_residue(M: int, delta: int) -> list[int]:
    """How many of the positions 2..M (after ``$``) have residue r = (position - 1) mod Delta, for r = 0..Delta-1
    (arithmetic only: M may be far beyond what a ``range`` holds)."""
    return [max(0, (M - first) // delta + 1) for first in (2 + (r - 1) % delta for r in range(delta))]


def _layout(n: int, delta: int, tau: int):
    """(prefix positions per residue available to symbols, window residues, whether the window holds $)."""
    w = min(n, tau + 1)
    M = n - w
    per = positions_per_residue(M, delta)
    window_res = [(M + s) % delta for s in range(w)]
    return per, window_res, M == 0


def count_configurations(n: int, sigma: int, delta: int, tau: int) -> int:
    per, window_res, has_bos = _layout(n, delta, tau)
    total = sigma ** (len(window_res) - (1 if has_bos else 0))
    for p in per:
        total *= comb(p + sigma - 1, sigma - 1)
    return total


def configurations(n: int, sigma: int, delta: int, tau: int):
    """Every (counts, window) of model length n (classes c = token id * Delta + residue, ``$`` = token 0)."""
    per, window_res, has_bos = _layout(n, delta, tau)
    for comps in itertools.product(*(list(_compositions(p, sigma)) for p in per)):
        counts = {} if has_bos else {0: 1}
        for r, comp in enumerate(comps):
            for t, k in enumerate(comp, 1):
                if k:
                    counts[t * delta + r] = k
        free = window_res[1:] if has_bos else window_res
        for toks in itertools.product(range(1, sigma + 1), repeat=len(free)):
            window = ((0,) if has_bos else ()) + tuple(t * delta + r for t, r in zip(toks, free, strict=True))
            yield counts, window


def witness_string(counts: dict, window: tuple, delta: int, alphabet: tuple) -> str:
    """A string (without ``$``) with these class counts outside the window and this window."""
    pools = {r: [c // delta for c in sorted(counts) if c % delta == r and c for _ in range(counts[c])]
             for r in range(delta)}
    M = sum(counts.values())
    toks = [pools[(i - 1) % delta].pop() for i in range(2, M + 1)]
    toks += [c // delta for c in window if c]
    return "".join(alphabet[t - 1] for t in toks)


def _short(x: Fraction) -> str:
    """A rational as written, or as a float (6 digits) when its text is long."""
    return str(x) if len(str(x)) <= 24 else f"{float(x):.6g}"


@dataclass
class LengthRow:
    length: int
    configurations: int
    max_disagreement: Fraction
    witness: str


@dataclass
class TrueThreshold:
    delta: Fraction
    eps: Fraction
    max_length: int
    rows: list = field(default_factory=list)
    first_above_delta: int | None = None  # T, when seen
    violation: LengthRow | None = None  # a length with max |f - g| > delta + eps

    sup_upper: Fraction | None = None  # certified upper bound of sup |f - g| over every length (certified_sup)
    # sup |f - g| over every length >= long_from, bracketed by z3 (bounds.sup_z3.refine_true_threshold):
    long_from: int | None = None
    long_lower: Fraction | None = None  # attained by an exactly evaluated input (long_witness)
    long_upper: Fraction | None = None
    long_witness: str | None = None

    @property
    def _long_violation(self) -> bool:
        return self.long_lower is not None and self.long_lower > self.delta + self.eps

    @property
    def _long_within(self) -> bool:
        return (self.long_upper is not None and self.long_upper <= self.delta + self.eps
                and self.long_from is not None and self.long_from <= self.max_length + 1 and self.violation is None)

    @property
    def exact(self) -> int | None:
        """The true threshold when it is determined: T with a violation seen (up to max_length, or by z3 beyond it
        when T itself was seen), 1 when the supremum over every length is within delta + eps (interval bound, or
        the enumeration up to max_length and z3 beyond)."""
        if self.violation is not None or (self._long_violation and self.first_above_delta is not None):
            return self.first_above_delta
        if (self.sup_upper is not None and self.sup_upper <= self.delta + self.eps) or self._long_within:
            return 1
        return None

    def describe(self) -> str:
        if self.exact == 1 and self._long_within:
            return (f"1 (exact: |f - g| <= delta + eps on every input up to length {self.max_length} by enumeration, "
                    f"and sup over lengths >= {self.long_from} <= {self.long_upper} by z3)")
        if self.exact == 1 and self.violation is None:
            return (f"1 (exact: sup |f - g| over every length <= {self.sup_upper} <= delta + eps, certified by "
                    "interval bounds over the convex hull of the value vectors)")
        if self.exact is not None and self.violation is None:
            return (f"{self.exact} (exact: |f - g| <= {self.delta} up to length {self.exact - 1}; z3 and exact "
                    f"evaluation give |f - g| = {_short(self.long_lower)} > delta + eps at {self.long_witness})")
        if self.exact is not None:
            v = self.violation
            before = (f"|f - g| <= {self.delta} up to length {self.exact - 1}, and " if self.exact > 1 else "")
            return (f"{self.exact} (exact: {before}|f - g| = {_short(v.max_disagreement)} > delta + eps at length "
                    f"{v.length}, string {v.witness!r})")
        if self._long_violation:
            return (f"undetermined: above {self.max_length} (|f - g| <= {self.delta} up to there; z3 and exact "
                    f"evaluation give |f - g| = {_short(self.long_lower)} > delta + eps at {self.long_witness})")
        if self.first_above_delta is not None:
            return (f"undetermined: 1 if sup |f - g| <= delta + eps, else {self.first_above_delta} "
                    f"(no |f - g| > delta + eps up to length {self.max_length})")
        return (f"undetermined: 1 if sup |f - g| <= delta + eps, else > {self.max_length} "
                f"(|f - g| <= delta on every input up to length {self.max_length})")


def smallest_gap(cm: ClassModel) -> Fraction | None:
    """The smallest positive difference of two logits any query class can see (every key class, every phi
    offset, phi = 0 beyond the window), over every head: if ``n^gap >= 2^p`` for it, every input of length n is in
    the hardmax regime."""
    best = None
    for logits, _, phi in cm.heads:
        offsets = sorted(set(phi) | {Fraction(0)})
        for row in logits:
            vals = sorted({a + o for a in row for o in offsets})
            for a, b in itertools.pairwise(vals):
                best = b - a if best is None or b - a < best else best
    return best


def _interval_mlp_readout(model, lo: np.ndarray, hi: np.ndarray):
    """Exact rational interval bounds of U (Y + B psi(A Y + b)) for Y in the box [lo, hi] (ReLU or Heaviside)."""
    def affine(M, lo, hi, bias=None):
        pos = np.where(M > 0, M, 0)
        neg = np.where(M < 0, M, 0)
        a, b = pos.dot(lo) + neg.dot(hi), pos.dot(hi) + neg.dot(lo)
        return (a + bias, b + bias) if bias is not None else (a, b)

    mlp = model.layers[0].mlp
    if mlp is not None:
        plo, phi = affine(mlp.A, lo, hi, mlp.b)
        heav = mlp.heaviside_mask
        alo = np.array([Fraction(int(x >= 0)) if h else max(x, Fraction(0)) for x, h in zip(plo, heav, strict=True)],
                       dtype=object)
        ahi = np.array([Fraction(int(x >= 0)) if h else max(x, Fraction(0)) for x, h in zip(phi, heav, strict=True)],
                       dtype=object)
        blo, bhi = affine(mlp.B, alo, ahi)
        lo, hi = lo + blo, hi + bhi
    return affine(model.unembedding, lo, hi)


def certified_sup(f, g) -> Fraction:
    """A certified upper bound of sup over EVERY input (any length, any precision model) of max |f - g|.

    Any softmax weighting, flushed or not, is a convex combination, so each head's output lies in the convex hull
    of the value vectors ``V y_c`` of all classes c and Y in ``y_q + sum_h hull_h``; exact rational interval
    arithmetic over that box, per query class q (shared by f and g), bounds both outputs.
    """
    from bounds.auxiliary import ClassModel, pair_period

    D = pair_period(f, g)
    cms = (ClassModel.of(f, D), ClassModel.of(g, D))
    best = Fraction(0)
    for q in range(cms[0].inputs.shape[0]):
        if q // D == 0 and q % D != 0:
            continue  # $ only at position 1 (residue 0)
        bounds = []
        for cm in cms:
            lo = cm.inputs[q] + sum((h[1].min(axis=0) for h in cm.heads), np.zeros(cm.inputs.shape[1], dtype=object))
            hi = cm.inputs[q] + sum((h[1].max(axis=0) for h in cm.heads), np.zeros(cm.inputs.shape[1], dtype=object))
            bounds.append(_interval_mlp_readout(cm.model, lo, hi))
        (flo, fhi), (glo, ghi) = bounds
        for a, b, c, d in zip(flo, fhi, glo, ghi, strict=True):
            best = max(best, b - c, d - a)
    return best


def max_disagreement(f, g, n: int, cms=None) -> LengthRow:
    """max |f - g| (every output coordinate, last position) over every input of model length n, exactly."""
    from bounds.auxiliary import ClassModel, in_hardmax, pair_period, readout, residual_input

    delta = pair_period(f, g)
    tau = max(f.tau, g.tau)
    cms = cms or (ClassModel.of(f, delta), ClassModel.of(g, delta))
    sure = [flushes(g, n, cm.model.precision_bits) if g is not None else True
            for cm, g in ((cm, smallest_gap(cm)) for cm in cms)]
    configs, Ys = [], ([], [])
    for counts, window in configurations(n, len(f.alphabet), delta, tau):
        for cm, ok, ys in zip(cms, sure, Ys, strict=True):
            if not ok and not in_hardmax(cm, counts, window):
                raise BoundsError(f"length {n} is below the hardmax threshold of {cm.model.name or 'a model'} "
                                  "(irrational softmax weights): the true threshold is computed in the hardmax "
                                  "regime only")
            ys.append(residual_input(cm, counts, window))
        configs.append((counts, window))
    outs = [readout(cm, np.array(ys, dtype=object)) for cm, ys in zip(cms, Ys, strict=True)]
    diffs = [max(abs(a - b) for a, b in zip(x, y, strict=True)) for x, y in zip(*outs, strict=True)]
    i = max(range(len(diffs)), key=diffs.__getitem__)
    best, arg, k = diffs[i], configs[i], len(configs)
    return LengthRow(n, k, best, witness_string(*arg, delta, f.alphabet))


def true_threshold(f, g, delta=0, eps=Fraction(1, 10), max_length: int = 10,
                   max_configs: int = MAX_CONFIGS) -> TrueThreshold:
    """Enumerate lengths 1..max_length (module docstring); stops at the first violation of delta + eps."""
    from bounds.auxiliary import ClassModel, pair_period, require

    delta, eps = Fraction(delta), Fraction(eps)
    require(f, g, ("one_layer", "periodic", "local_translation_invariant", "same_alphabet", "hardmax_regime_exists"),
            "the true threshold", BoundsError)
    D, tau = pair_period(f, g), max(f.tau, g.tau)
    total = sum(count_configurations(n, len(f.alphabet), D, tau) for n in range(1, max_length + 1))
    if total > max_configs:
        raise BoundsError(f"lengths up to {max_length} have {total} input configurations, above the limit "
                          f"{max_configs}; lower the maximum length")
    out = TrueThreshold(delta, eps, max_length, sup_upper=certified_sup(f, g))
    cms = (ClassModel.of(f, D), ClassModel.of(g, D))
    for n in progress(range(1, max_length + 1), desc="true threshold: lengths", unit="length"):
        row = max_disagreement(f, g, n, cms)
        out.rows.append(row)
        if out.first_above_delta is None and row.max_disagreement > delta:
            out.first_above_delta = n
        if row.max_disagreement > delta + eps:
            out.violation = row
            break
    return out
