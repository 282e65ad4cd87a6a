"""Identification measured on trained networks (Ahuja & Mansouri, sec. 4.5.1, Tables 1-2; Theorem 9).

The identification theorems (4-9) say that a learner matching the labelling f on a diverse support has a
hidden representation that is a linear transform of f's (deep sets, attention, SSMs) or a permutation of it
(sigmoid RNNs, Theorem 9: ``A~ = A Pi``, ``B~ = Pi^T B``, ``Lambda~ = Pi^T Lambda Pi``).  This module measures
both on arrays (numpy / scipy; no torch):

* :func:`linear_fit`: the least-squares affine map from the learned to the true hidden states (the released
  code's direction, ``LinearRegression().fit(learned, true)``), its R^2 (1 - SS_res/SS_tot per true
  coordinate, averaged uniformly, as sklearn's default), the relative residual and the condition number of
  the fitted linear part (an ill-conditioned map means a near-degenerate identification even at high R^2);
* :func:`readout_metric` and :func:`weighted_r2`: the same affine fit scored in the metric of the labels,
  ``M = E[J^T J]`` with ``J`` the Jacobian of the teacher's readout rho at its input.  Plain R^2 weighs every
  coordinate of the representation alike, also directions the labels hardly depend on (which no amount of
  fitting the labels can identify); the weighted R^2 is ``1 - tr(M C_res) / tr(M C_true)`` (C: covariances of
  the fit's residual and of the true representation), the share of the representation's label-relevant
  variation that the learned representation explains.  M's spectrum says how many directions the labels expose;
* :func:`recover_permutation`: Pi from the weights by an assignment (``scipy.optimize.linear_sum_assignment``)
  on the rows of B, the columns of the readout A and the diagonal of Lambda, and the relative distance of the
  learned weights to the permuted teacher;
* :func:`permutation_from_states`: the same Pi read off the hidden states (max |correlation| assignment), a
  cross-check that needs no weights.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment


class IdentificationError(ValueError):
    """Arrays of the wrong shape or too few samples for the regression."""


@dataclass(frozen=True)
class LinearFit:
    r2: float  # mean over true coordinates of 1 - SS_res / SS_tot
    relative_residual: float  # ||Y - fit||_F / ||Y - mean(Y)||_F
    condition: float  # 2-norm condition number of the fitted linear part (learned -> true)
    samples: int

    def as_dict(self) -> dict:
        return asdict(self)


def _rows(a, name: str) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim < 2:
        raise IdentificationError(f"{name} must have shape (..., dim), got {a.shape}")
    return a.reshape(-1, a.shape[-1])


def linear_fit(learned, true) -> LinearFit:
    """Regress ``true`` on ``learned`` (affine, least squares); arrays ``(..., d)`` with matching leading dims."""
    X, Y = _rows(learned, "learned"), _rows(true, "true")
    if X.shape[0] != Y.shape[0]:
        raise IdentificationError(f"{X.shape[0]} learned samples but {Y.shape[0]} true samples")
    if X.shape[0] <= X.shape[1] + 1:
        raise IdentificationError(f"need more than {X.shape[1] + 1} samples for an affine fit, got {X.shape[0]}")
    X1 = np.hstack([X, np.ones((X.shape[0], 1))])
    coef, *_ = np.linalg.lstsq(X1, Y, rcond=None)
    res = Y - X1 @ coef
    centred = Y - Y.mean(axis=0)
    ss_tot = (centred**2).sum(axis=0)
    ss_res = (res**2).sum(axis=0)
    ok = ss_tot > 0
    r2 = float(np.mean(1 - ss_res[ok] / ss_tot[ok])) if ok.any() else float("nan")
    sv = np.linalg.svd(coef[:-1], compute_uv=False)
    cond = float(sv[0] / sv[-1]) if sv[-1] > 0 else float("inf")
    rel = float(np.linalg.norm(res) / np.linalg.norm(centred)) if np.linalg.norm(centred) > 0 else float("nan")
    return LinearFit(r2, rel, cond, int(X.shape[0]))


def readout_metric(jacobians) -> np.ndarray:
    """``M = mean_s J_s^T J_s`` from Jacobians ``(..., out, d)`` of the teacher's readout at its inputs."""
    J = np.asarray(jacobians, dtype=np.float64)
    if J.ndim < 2:
        raise IdentificationError(f"jacobians must have shape (..., out, d), got {J.shape}")
    J = J.reshape(-1, *J.shape[-2:])
    return np.einsum("soi,soj->ij", J, J) / J.shape[0]


def weighted_r2(learned, true, metric) -> float:
    """The affine fit of :func:`linear_fit` scored in the metric ``metric`` (d x d, positive semidefinite):
    ``1 - tr(M C_res) / tr(M C_true)``.  With ``M = I`` this is the variance-weighted R^2."""
    X, Y = _rows(learned, "learned"), _rows(true, "true")
    M = np.asarray(metric, dtype=np.float64)
    if X.shape[0] != Y.shape[0] or M.shape != (Y.shape[1], Y.shape[1]):
        raise IdentificationError(f"shapes do not match: learned {X.shape}, true {Y.shape}, metric {M.shape}")
    X1 = np.hstack([X, np.ones((X.shape[0], 1))])
    coef, *_ = np.linalg.lstsq(X1, Y, rcond=None)
    res = Y - X1 @ coef
    centred = Y - Y.mean(axis=0)
    tot = float(np.einsum("si,ij,sj->", centred, M, centred))
    return 1 - float(np.einsum("si,ij,sj->", res, M, res)) / tot if tot > 0 else float("nan")


def per_position_r2(learned, true) -> float:
    """The released code's Table 1 statistic: R^2 fitted separately at each position, then averaged.

    ``learned``, ``true``: arrays ``(batch, T, d)``."""
    L, Y = np.asarray(learned, dtype=np.float64), np.asarray(true, dtype=np.float64)
    if L.ndim != 3 or Y.ndim != 3 or L.shape[:2] != Y.shape[:2]:
        raise IdentificationError(f"expected (batch, T, d) arrays with equal (batch, T), got {L.shape}, {Y.shape}")
    return float(np.mean([linear_fit(L[:, t], Y[:, t]).r2 for t in range(L.shape[1])]))


@dataclass(frozen=True)
class PermutationFit:
    perm: tuple  # perm[k] = the teacher unit matched to learned unit k  (Pi[perm[k], k] = 1)
    distance: float  # ||(A~, B~, Lam~) - (A Pi, Pi^T B, Pi^T Lam Pi)||_F / ||(A, B, Lam)||_F
    distance_identity: float  # the same distance with Pi = I (no matching), for comparison

    def as_dict(self) -> dict:
        return {"perm": list(self.perm), "distance": self.distance, "distance_identity": self.distance_identity}


def _permuted(A, B, Lam, perm):
    p = np.asarray(perm)
    return A[:, p], B[p, :], Lam[np.ix_(p, p)]


def weight_distance(learned: dict, teacher: dict, perm) -> float:
    """Relative Frobenius distance of the learned (A, B, Lam) to the teacher's permuted by ``perm``."""
    A, B, Lam = (np.asarray(teacher[k], dtype=np.float64) for k in ("A", "B", "Lam"))
    At, Bt, Lt = (np.asarray(learned[k], dtype=np.float64) for k in ("A", "B", "Lam"))
    Ap, Bp, Lp = _permuted(A, B, Lam, perm)
    num = np.sqrt(sum(np.linalg.norm(u - v) ** 2 for u, v in ((At, Ap), (Bt, Bp), (Lt, Lp))))
    return float(num / np.sqrt(sum(np.linalg.norm(u) ** 2 for u in (A, B, Lam))))


def recover_permutation(learned: dict, teacher: dict) -> PermutationFit:
    """Theorem 9's Pi from weights: dicts with ``A`` (readout, out x k), ``B`` (k x n), ``Lam`` (k x k).

    Cost of matching learned unit k to teacher unit l: ``||B~_k - B_l||^2 + ||A~_{:,k} - A_{:,l}||^2 +
    (Lam~_kk - Lam_ll)^2``; the off-diagonal of Lambda is then checked by :func:`weight_distance`."""
    A, B, Lam = (np.asarray(teacher[k], dtype=np.float64) for k in ("A", "B", "Lam"))
    At, Bt, Lt = (np.asarray(learned[k], dtype=np.float64) for k in ("A", "B", "Lam"))
    if B.shape != Bt.shape or A.shape != At.shape or Lam.shape != Lt.shape or Lam.shape[0] != B.shape[0]:
        raise IdentificationError("learned and teacher weights must have equal, consistent shapes")
    cost = (((Bt[:, None, :] - B[None, :, :]) ** 2).sum(-1) + ((At.T[:, None, :] - A.T[None, :, :]) ** 2).sum(-1)
            + (np.diag(Lt)[:, None] - np.diag(Lam)[None, :]) ** 2)
    rows, cols = linear_sum_assignment(cost)
    perm = tuple(int(c) for _, c in sorted(zip(rows, cols, strict=True)))
    return PermutationFit(perm, weight_distance(learned, teacher, perm),
                          weight_distance(learned, teacher, range(B.shape[0])))


def permutation_from_states(learned, true) -> tuple:
    """``perm[k]``: the true unit whose state correlates most (in |corr|, one-to-one) with learned unit k."""
    X, Y = _rows(learned, "learned"), _rows(true, "true")
    if X.shape != Y.shape:
        raise IdentificationError(f"state arrays differ in shape: {X.shape} vs {Y.shape}")
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    denom = np.outer(np.linalg.norm(Xc, axis=0), np.linalg.norm(Yc, axis=0))
    corr = np.abs(Xc.T @ Yc) / np.where(denom > 0, denom, 1)
    rows, cols = linear_sum_assignment(-corr)
    return tuple(int(c) for _, c in sorted(zip(rows, cols, strict=True)))
