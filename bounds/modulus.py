"""How far a one-layer model's output moves when its attention distributions move: the moduli kappa of the corrected
bound (bounds/corrected.py), exact.

**Lemma M.**  Let m be a one-layer model (ReLU or no MLP) and x, z two inputs in the hardmax regime with the same
window, query and present classes, so that every head h attends to the same items with distributions pi_h(x),
pi_h(z).  Then for every output coordinate j

    |m_j(x) - m_j(z)| <= sum_h kappa_{j,h} ||pi_h(x) - pi_h(z)||_1

for either of the two choices of kappa below (each valid on its own; :func:`modulus` keeps, per coordinate, the one
with the smaller sum over heads).

*Directional ranges* (any model).  With ``v_{h,c} = V_h y_c`` over every class c (token or ``$``, residue) and
``omega_h(u) = (max_c u.v_{h,c} - min_c u.v_{h,c}) / 2``:

    kappa_{j,h} = omega_h(U_j) + sum_i |(U B)_{j,i}| omega_h(A_i).

Proof.  The head output moves by ``Delta a_h = sum_c Delta pi_c v_{h,c}`` with ``sum_c Delta pi_c = 0``, so for any
vector u, ``|u . Delta a_h| = |sum_c Delta pi_c (u.v_{h,c} - mid)| <= ||Delta pi_h||_1 omega_h(u)`` (mid the centre
of the range).  The output is ``U_j (y + a) + sum_i (U B)_{j,i} relu(A_i (y + a) + b_i)`` with ``a = sum_h a_h`` and
the query's y fixed; relu is 1-Lipschitz, so
``|Delta out_j| <= |U_j . Delta a| + sum_i |(UB)_{j,i}| |A_i . Delta a|`` and each term splits over the heads.  []

*Along a line* (every head's values on one common line ``p_h + s w``; e.g. SimpleTask's construction).  The MLP's
input is then ``y + sum_h p_h + s w`` with ``s = sum_h s_h`` and ``s_h`` in ``[min_c s_{h,c}, max_c s_{h,c}]``; the
output is a piecewise-linear function of s whose largest slope on that segment, over every query class, is
``Lip_j`` (computed exactly from the ReLU breakpoints), and

    kappa_{j,h} = Lip_j (max_c s_{h,c} - min_c s_{h,c}) / 2.

Proof.  ``|Delta out_j| <= Lip_j |sum_h Delta s_h|`` and ``|Delta s_h| <= ||Delta pi_h||_1 (max - min)/2`` as above.  []

Both are exact rationals (no square roots).  They replace ``||U||_F (1 + ||A||_F ||B||_F) max_c ||V y_c||`` of the
earlier statement, which is always at least as large (Cauchy-Schwarz), and is kept for interval-mode models
(:func:`norm_modulus`), where exact products would be too slow.  The queries are every non-``$`` class (``$`` is the
query only of the input of length 1, never a long input).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from bounds.class_model import ClassModel
from constructions.limit_transformer.model import LimitTransformer


@dataclass(frozen=True)
class Modulus:
    """kappa[j][h] (exact rational upper bounds) of one model, and which lemma gave each output coordinate."""

    kappa: tuple  # per output coordinate: per head
    method: tuple  # per output coordinate: "directional", "line" or "norms"

    @property
    def per_output(self) -> tuple:
        """K_j = sum_h kappa_{j,h}."""
        return tuple(sum(row, Fraction(0)) for row in self.kappa)

    @property
    def K(self) -> Fraction:
        """max_j K_j."""
        return max(self.per_output, default=Fraction(0))

    @property
    def uniform(self) -> bool:
        """One row standing for every output coordinate (the interval-mode bound)."""
        return self.method == ("norms",)


def pair_modulus(a: Modulus, b: Modulus) -> Fraction:
    """max_j (K_j(f) + K_j(g)): the coefficient of the per-set l1 budget in the corrected bound's triangle step."""
    fa, fb = a.per_output, b.per_output
    if a.uniform or b.uniform or len(fa) != len(fb):
        return a.K + b.K
    return max((x + y for x, y in zip(fa, fb, strict=True)), default=Fraction(0))


def _classes(cm: ClassModel) -> list[int]:
    """Every class that can be an item: ``$`` at residue 0 (position 1) and each (token, residue)."""
    d = cm.delta
    return [0] + [t * d + r for t in range(1, len(cm.model.alphabet) + 1) for r in range(d)]


def _half_range(values) -> Fraction:
    return (max(values) - min(values)) / 2


def _directional(cm: ClassModel, classes: list[int]) -> list[list[Fraction]]:
    model = cm.model
    mlp = model.layers[0].mlp
    U = model.unembedding
    UB = U.dot(mlp.B) if mlp is not None else None
    out = [[Fraction(0)] * len(cm.heads) for _ in range(U.shape[0])]
    for h, (_, values, _) in enumerate(cm.heads):
        V = values[classes]  # items x d
        omega_U = [_half_range(list(V.dot(U[j]))) for j in range(U.shape[0])]
        omega_A = [_half_range(list(V.dot(mlp.A[i]))) for i in range(mlp.A.shape[0])] if mlp is not None else []
        for j in range(U.shape[0]):
            acc = omega_U[j]
            if UB is not None:
                acc += sum((abs(UB[j, i]) * omega_A[i] for i in range(len(omega_A)) if UB[j, i] != 0 and omega_A[i]),
                           Fraction(0))
            out[j][h] = acc
    return out


def _common_line(cm: ClassModel, classes: list[int]):
    """(w, per head: (reference value p_h, s-coordinates)) when every head's values lie on lines parallel to one
    rational direction w, else None; w is None when every head's values are constant."""
    w = None
    for _, values, _ in cm.heads:
        ref = values[classes[0]]
        for c in classes[1:]:
            diff = values[c] - ref
            if any(v != 0 for v in diff):
                w = diff
                break
        if w is not None:
            break
    if w is None:
        return None, [(values[classes[0]], [Fraction(0)] * len(classes)) for _, values, _ in cm.heads]
    ww = sum((Fraction(v) * v for v in w), Fraction(0))
    lines = []
    for _, values, _ in cm.heads:
        ref = values[classes[0]]
        s_coords = []
        for c in classes:
            diff = values[c] - ref
            s = sum((Fraction(a) * b for a, b in zip(diff, w, strict=True)), Fraction(0)) / ww
            if any(a != s * b for a, b in zip(diff, w, strict=True)):
                return None
            s_coords.append(s)
        lines.append((ref, s_coords))
    return w, lines


def _max_slope(base, w, s_lo: Fraction, s_hi: Fraction, model: LimitTransformer, j: int) -> Fraction:
    """The largest |slope| of s -> U_j (base + s w + B relu(A (base + s w) + b)) on [s_lo, s_hi] (exact)."""
    U = model.unembedding[j]
    mlp = model.layers[0].mlp
    lin = sum((Fraction(a) * b for a, b in zip(U, w, strict=True)), Fraction(0))
    if mlp is None or s_lo == s_hi:
        return abs(lin)
    UB = [sum((Fraction(U[k]) * mlp.B[k, i] for k in range(len(U)) if U[k] != 0), Fraction(0))
          for i in range(mlp.A.shape[0])]
    units = []
    for i in range(mlp.A.shape[0]):
        if UB[i] == 0:
            continue
        c0 = sum((Fraction(a) * b for a, b in zip(mlp.A[i], base, strict=True)), Fraction(0)) + mlp.b[i]
        c1 = sum((Fraction(a) * b for a, b in zip(mlp.A[i], w, strict=True)), Fraction(0))
        units.append((c0, c1, UB[i] * c1))
    cuts = sorted({-c0 / c1 for c0, c1, _ in units if c1 != 0 and s_lo < -c0 / c1 < s_hi})
    pts = [s_lo, *cuts, s_hi]
    best = Fraction(0)
    for lo, hi in zip(pts, pts[1:], strict=False):
        mid = (lo + hi) / 2
        slope = lin + sum((g for c0, c1, g in units if c0 + c1 * mid > 0), Fraction(0))
        best = max(best, abs(slope))
    return best


def _along_line(cm: ClassModel, classes: list[int]) -> list[list[Fraction]] | None:
    w, lines = _common_line(cm, classes) or (None, None)
    if lines is None:
        return None
    n_out = cm.model.unembedding.shape[0]
    if w is None:  # every head constant: the output never moves
        return [[Fraction(0)] * len(cm.heads) for _ in range(n_out)]
    s_lo = sum((min(s) for _, s in lines), Fraction(0))
    s_hi = sum((max(s) for _, s in lines), Fraction(0))
    offset = sum((ref for ref, _ in lines), np.zeros(len(w), dtype=object) + Fraction(0))
    queries = [c for c in classes if c != 0]
    out = []
    for j in range(n_out):
        lip = max(_max_slope(cm.inputs[q] + offset, w, s_lo, s_hi, cm.model, j) for q in queries)
        out.append([lip * _half_range(s) for _, s in lines])
    return out


def modulus(model: LimitTransformer, delta: int | None = None) -> Modulus:
    """kappa of Lemma M for an exact one-layer model (ReLU or no MLP) on classes mod ``delta`` (default: its own
    period), per output coordinate the smaller of the two lemmas."""
    mlp = model.layers[0].mlp
    if mlp is not None and mlp.heaviside_mask.any():
        raise ValueError("Lemma M needs a ReLU MLP (a Heaviside unit has no Lipschitz constant)")
    cm = ClassModel.of(model, delta or model.period or 1)
    classes = _classes(cm)
    direct = _directional(cm, classes)
    line = _along_line(cm, classes)
    rows, method = [], []
    for j, row in enumerate(direct):
        if line is not None and sum(line[j]) < sum(row):
            rows.append(tuple(line[j]))
            method.append("line")
        else:
            rows.append(tuple(row))
            method.append("directional")
    return Modulus(tuple(rows), tuple(method))


def sqrt_up(x: Fraction) -> Fraction:
    """A rational upper bound of sqrt(x) (within 2^-40 relative)."""
    scale = 1 << 80
    return Fraction(math.isqrt(math.ceil(x * scale * scale)) + 1, scale)


def norm_modulus(U_f2: Fraction, A_f2: Fraction, B_f2: Fraction, head_value_max2: tuple) -> Modulus:
    """The coordinate-free bound ``||U||_F (1 + ||A||_F ||B||_F) max_c ||V_h y_c||`` per head, from certified upper
    bounds of the squared norms (interval mode); square roots rounded up exactly."""
    lam = sqrt_up(U_f2) * (1 + sqrt_up(A_f2 * B_f2))
    return Modulus((tuple(lam * sqrt_up(Fraction(v)) for v in head_value_max2),), ("norms",))
