"""The regularizer R (Huang et al. Definition 5, eq. (8)), R^- (Definition 16) and R_infinity (Definition 50).

The body of Definition 5 is lost in our text copy; reference section 2.5 fixes only some of its terms.  Our
choices (documented in docs/huang_theta.md, each reported as a separate ingredient so that any other reading
can be recomputed from the report):

============  ===================================================================================
``size``      ``L + H``: depth plus the largest number of heads of a layer.
``p``         the model's precision ``p`` (every parameter has at most p fractional bits; logits and
              softmax terms are rounded / flushed at p bits).
``rank``      ``max_{l,h} rank(V_{l,h})``.  We do NOT include ``rank(K^T Q)``: Lemma 47's construction
              realises phi by a banded Toeplitz block (rank >= n - tau) and exact self-attention by
              ``lambda I_n``, so a rank of ``K^T Q`` in R would make R(T_n) grow like n, contradicting
              eq. (12).  K^T Q enters through its norm and through (8).
``units``     the largest number of active MLP units of a layer (a unit with a nonzero row of A or
              column of B) -- the quantity the proof of Lemma 52 bounds "in terms of R".
``norm``      the largest of ``nu(M)`` over K^T Q, V, A, B, U and ``||v||_1`` over b, E_sigma, p_i,
              where ``nu(M) = max(max row sum, max column sum of |M|)``.  Both are exact rationals and
              upper bounds of the spectral / l2 norms the reference names (``||M||_2 <=
              sqrt(||M||_1 ||M||_inf) <= nu(M)``; ``||v||_2 <= ||v||_1``); for a banded Toeplitz Phi,
              ``nu(Phi) <= sum |g|``, the bound of eq. (24).
``eq8``       ``sum_{l,h} sum_{j=1}^{n} (p_1^T K_{l,h}^T Q_{l,h} p_j)^2``: key position 1, query j (the
              reference's index choice), squared.
============  ===================================================================================

``R = size + p + rank + units + norm + eq8`` and ``R^- = R - eq8``.  The width ``d`` does not enter.

Definition 50 (``R_infinity`` of a Limit Transformer; items 1 and 4 UNCERTAIN): ``d + L + H + p + norm + Delta
+ tau + mass`` with ``mass = sum_{l,h} sum_j phi_{l,h}(1, j)^2`` (the analogue of (8)), the norm term as above
over all parameters including one period of ``p_i`` and the phi values; ``tau`` is reported separately
(``r_inf_without_tau``) because under the footnote's reading (tau included) Lemma 52's bound fails
(docs/gaps.md, huang2024:lem52.tau).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from constructions.huang.finite import FiniteTransformer
from constructions.limit_transformer import LimitTransformer, LocalPhi, PeriodicPositions


def exact_rank(m: np.ndarray) -> int:
    """Rank of an exact (Fraction) matrix by Gaussian elimination on its nonzero rows and columns."""
    rows = np.nonzero(np.any(m != 0, axis=1))[0]
    cols = np.nonzero(np.any(m != 0, axis=0))[0]
    a = [list(r) for r in m[np.ix_(rows, cols)]]
    rank, ncols = 0, len(cols)
    for c in range(ncols):
        piv = next((r for r in range(rank, len(a)) if a[r][c] != 0), None)
        if piv is None:
            continue
        a[rank], a[piv] = a[piv], a[rank]
        for r in range(len(a)):
            if r != rank and a[r][c] != 0:
                f = a[r][c] / a[rank][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[rank], strict=True)]
        rank += 1
    return rank


def nu(m: np.ndarray) -> Fraction:
    """``max(max row sum, max column sum)`` of ``|m|``: an exact rational upper bound on the spectral norm."""
    nz = m.astype(bool) if m.size else np.zeros(m.shape, dtype=bool)
    rows, cols = np.nonzero(nz.any(axis=1))[0], np.nonzero(nz.any(axis=0))[0]
    if len(rows) == 0:
        return Fraction(0)
    a = np.abs(m[np.ix_(rows, cols)])  # zero rows and columns contribute nothing
    return max(max(a.sum(axis=1)), max(a.sum(axis=0)))


def l1(v: np.ndarray) -> Fraction:
    return sum((abs(x) for x in np.asarray(v).flat), Fraction(0))


def _common_norms(model: LimitTransformer, vectors: list) -> dict:
    norms = {"E": max(l1(e) for e in model.embedding), "U": nu(model.unembedding)}
    for l, layer in enumerate(model.layers, 1):
        for h, head in enumerate(layer.heads, 1):
            norms[f"KQ{l},{h}"] = nu(head.bilinear)
            norms[f"V{l},{h}"] = nu(head.value)
        if layer.mlp is not None:
            norms[f"A{l}"], norms[f"B{l}"], norms[f"b{l}"] = nu(layer.mlp.A), nu(layer.mlp.B), l1(layer.mlp.b)
    if vectors:
        norms["p"] = max(l1(v) for v in vectors)
    return norms


def _structure(model: LimitTransformer) -> dict:
    ranks = [exact_rank(h.value) for layer in model.layers for h in layer.heads]
    units = [int(np.sum(np.any(layer.mlp.A != 0, axis=1) | np.any(layer.mlp.B != 0, axis=0)))
             for layer in model.layers if layer.mlp is not None]
    return {"L": model.depth, "H": model.n_heads, "rank": max(ranks, default=0), "units": max(units, default=0)}


@dataclass(frozen=True)
class Regularizer:
    """Every ingredient of R(T) (Definition 5 as read in this module) and the totals."""

    L: int
    H: int
    p: int
    rank: int
    units: int
    norm: Fraction
    norm_argmax: str
    eq8: Fraction

    @property
    def r_minus(self) -> Fraction:
        """R^-(T) = R(T) - (8) (Definition 16)."""
        return self.L + self.H + self.p + self.rank + self.units + self.norm

    @property
    def total(self) -> Fraction:
        return self.r_minus + self.eq8

    def as_dict(self) -> dict:
        return {"L": self.L, "H": self.H, "p": self.p, "rank": self.rank, "units": self.units, "norm": self.norm,
                "norm_of": self.norm_argmax, "eq8": self.eq8, "R-": self.r_minus, "R": self.total}


def positional_term(T: FiniteTransformer) -> Fraction:
    """Eq. (8): ``sum_{l,h} sum_{j=1}^n (p_1^T K^T Q p_j)^2`` (key position 1, query position j)."""
    P = T.table
    total = Fraction(0)
    for layer in T.model.layers:
        for head in layer.heads:
            kq = head.bilinear
            if not np.any(kq != 0):
                continue
            row = P[0].dot(kq)  # p_1^T K^T Q
            total += sum((row.dot(P[j]) ** 2 for j in range(T.n)), Fraction(0))
    return total


def regularizer(T: FiniteTransformer) -> Regularizer:
    """R(T) with every ingredient (see the module docstring for the choices)."""
    norms = _common_norms(T.model, list(T.table))
    arg = max(norms, key=norms.get)
    s = _structure(T.model)
    return Regularizer(s["L"], s["H"], T.model.precision_bits, s["rank"], s["units"], norms[arg], arg,
                       positional_term(T))


@dataclass(frozen=True)
class LimitComplexity:
    """R_infinity of a Limit Transformer (Definition 50) with every ingredient."""

    d: int
    L: int
    H: int
    p: int
    norm: Fraction
    period: int
    tau: int
    mass: Fraction

    @property
    def r_inf_without_tau(self) -> Fraction:
        return self.d + self.L + self.H + self.p + self.norm + self.period + self.mass

    @property
    def total(self) -> Fraction:
        return self.r_inf_without_tau + self.tau


def limit_complexity(model: LimitTransformer) -> LimitComplexity:
    """R_infinity (Definition 50) of a Periodic and Local Limit Transformer."""
    period, tau = model.require_periodic_and_local("R_infinity")
    vectors = list(model.positions.table) if isinstance(model.positions, PeriodicPositions) else []
    norms = _common_norms(model, vectors)
    mass = Fraction(0)
    for layer in model.layers:
        for head in layer.heads:
            if isinstance(head.phi, LocalPhi):
                norms["phi"] = max(norms.get("phi", Fraction(0)), max(abs(v) for v in head.phi.values))
                mass += sum((v * v for v in head.phi.values), Fraction(0))  # phi(1, j) = values[j - 1]
    s = _structure(model)
    return LimitComplexity(model.d, s["L"], s["H"], model.precision_bits, max(norms.values()), period, tau, mass)
