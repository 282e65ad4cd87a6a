"""A Limit Transformer as a ``torch.nn.Module`` (needs the ``train`` extra: ``pip install torch==2.13.0``).

``to_torch(model, device=None, dtype=torch.float64)`` returns a :class:`TorchLimitTransformer` computing what
:func:`~constructions.limit_transformer.evaluate.forward` computes (eqs. (1)-(4), (6); Huang et al.
Definition 2, Izzo et al. sec. 3.1-3.2): ``y^(0) = E_{x_i} + p_{i+o}``; attention logits
``(K y_j).(Q y_i) + phi(j, i)`` scaled by ``log|x|`` with the softmax of the model's precision model
(``izzo``: flush terms ``<= 2^-p``; ``huang``: round logits and ``n^a`` to p fractional bits); the MLP
``y + B psi(A y + b)`` with per-unit ReLU or Heaviside ``[z >= -HEAVISIDE_ATOL]``; output ``U y^(L)``.

It keeps the float path's structure: heads and MLPs touch only the coordinates they read and write, and a
positional-only head (``K^T Q = 0``, Local or no phi) is an O(n) prefix sum whose softmax terms, which do
not depend on the input, are computed by the library's
:func:`~constructions.limit_transformer.evaluate.positional_terms` and moved to the device.  Content heads
use :func:`torch_terms`, the torch transcription of
:func:`~constructions.limit_transformer.precision.float_terms` (same tolerances).  Parameters are buffers
(``module.to(device)`` moves them); nothing here is trained.

This module imports torch; the rest of :mod:`constructions` does not.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from constructions.limit_transformer.errors import InputError
from constructions.limit_transformer.evaluate import HEAVISIDE_ATOL, _phi_matrix, positional_terms
from constructions.limit_transformer.model import ArbitraryPositions, LimitTransformer
from constructions.limit_transformer.precision import BOUNDARY_RTOL


def _round_half_even(v: torch.Tensor) -> torch.Tensor:
    """As ``precision.round_half_even_float``: values within rtol 1e-12 of a half-integer are ties."""
    lower = torch.floor(v)
    tie = torch.abs(v - lower - 0.5) <= BOUNDARY_RTOL * torch.clamp(torch.abs(v), min=1.0)
    even = torch.where(torch.remainder(lower, 2) == 0, lower, lower + 1)
    return torch.where(tie, even, torch.round(v))


def torch_terms(logits: torch.Tensor, mask: torch.Tensor, n: int, p: int, model: str) -> torch.Tensor:
    """Unnormalized softmax terms along the last axis (0 where ``mask`` is False); see ``float_terms``."""
    logn = math.log(n) if n > 1 else 0.0
    neg_inf = torch.tensor(-math.inf, dtype=logits.dtype, device=logits.device)
    if model == "izzo":
        a = torch.where(mask, logits, neg_inf)
        top = a.max(dim=-1, keepdim=True).values
        expo = logn * (a - top)
        keep = mask & (expo > -p * math.log(2) * (1 - BOUNDARY_RTOL))
        return torch.where(keep, torch.exp(torch.where(keep, expo, 0.0)), 0.0)
    if model == "huang":
        a = _round_half_even(logits * 2.0**p) / 2.0**p
        expo = torch.where(mask, logn * a, neg_inf)
        top = expo.max(dim=-1, keepdim=True).values
        rounded = _round_half_even(torch.exp(expo) * 2.0**p) / 2.0**p
        shifted = torch.where(expo >= -(p + 1) * math.log(2), torch.exp(expo - top), 0.0)
        return torch.where(mask, torch.where(top > 700, shifted, rounded), 0.0)
    raise ValueError(f"unknown precision model {model!r}")


class TorchLimitTransformer(nn.Module):
    """``forward(ids, offset=0, positions="all")``: ids (B, n) with the ``$`` id 0 first -> (B, n, m) or
    (B, m) for ``positions="last"``.  ``encode(strings)`` gives the ids of strings (on the module's device)."""

    def __init__(self, model: LimitTransformer, dtype=torch.float64):
        super().__init__()
        self.model = model
        self.dtype = dtype
        fp = model.float_params

        def buf(name, arr, kind=None):
            self.register_buffer(name, torch.as_tensor(np.asarray(arr), dtype=kind or dtype), persistent=False)

        buf("E", fp["E"])
        buf("ET", fp["E"].T.copy())
        buf("U", fp["U"])
        if model.positions is not None and not isinstance(model.positions, ArbitraryPositions):
            buf("P", model.positions.float_table)
            buf("PT", model.positions.float_table.T.copy())
        self.layer_specs = []
        self.mlps = {}
        for l, ((heads, mlp), layer) in enumerate(zip(fp["layers"], model.layers, strict=True)):
            hs = []
            for h, (fh, head) in enumerate(zip(heads, layer.heads, strict=True)):
                key = f"l{l}h{h}"
                for nm, arr, kind in (("Q", fh.Q, None), ("K", fh.K, None), ("V", fh.V_sub, None),
                                      ("rows", fh.rows, torch.long), ("cols", fh.cols, torch.long)):
                    buf(f"{key}_{nm}", arr, kind)
                hs.append((key, fh, head.phi))
            if mlp is not None:
                key = f"l{l}mlp"
                for nm, arr, kind in (("Acols", mlp.A_cols, torch.long), ("A", mlp.A_sub, None), ("b", mlp.b, None),
                                      ("Brows", mlp.B_rows, torch.long), ("B", mlp.B_sub, None),
                                      ("heaviside", mlp.heaviside, torch.bool)):
                    buf(f"{key}_{nm}", arr, kind)
            self.layer_specs.append((hs, None if mlp is None else f"l{l}mlp"))
            if mlp is not None:
                self.mlps[f"l{l}mlp"] = mlp

    def encode(self, strings) -> torch.Tensor:
        return torch.as_tensor(self.model.encode(strings), device=self.E.device)

    def _t(self, name):
        return getattr(self, name)

    def forward(self, ids: torch.Tensor, offset: int = 0, positions: str = "all") -> torch.Tensor:
        if positions not in ("all", "last"):
            raise InputError(f"positions must be 'all' or 'last', got {positions!r}")
        if offset < 0:
            raise InputError(f"offset must be >= 0, got {offset}")
        ids = torch.as_tensor(ids, device=self.E.device)
        n = ids.shape[1]
        model = self.model
        pos = np.arange(1, n + 1) + offset
        y = self.ET[:, ids]  # feature-first (d, B, n), as the float path: row operations are contiguous
        if isinstance(model.positions, ArbitraryPositions):
            y += torch.as_tensor(model.positions.float_vectors(pos).T, dtype=self.dtype, device=y.device)[:, None, :]
        elif model.positions is not None:
            y += self.PT[:, torch.as_tensor((pos - 1) % model.period, device=y.device)][:, None, :]
        for l, (heads, mlp) in enumerate(self.layer_specs):
            y = self._layer(y, heads, mlp, n, last=l == len(self.layer_specs) - 1 and positions == "last")
        if positions == "last":
            y = y[:, :, -1:]
        out = _apply(self.U, y).permute(1, 2, 0)
        return out[:, -1] if positions == "last" else out

    def _layer(self, y, heads, mlp, n, last):
        """One layer on (d, B, n); with ``last`` only the last query (as ``forward(..., positions="last")``)."""
        yq = y[:, :, -1:] if last else y
        Y = yq.clone() if last else y  # updated in place after every head has read y
        q0 = n - 1 if last else 0
        updates = []
        for key, fh, phi_exact in heads:
            if len(fh.rows) == 0:
                continue
            vals = _apply(self._t(f"{key}_V"), y.index_select(0, self._t(f"{key}_cols")))  # (r, B, n)
            if fh.positional:
                out = self._positional(vals, fh.phi, q0, n)
            else:
                Q, K = self._t(f"{key}_Q"), self._t(f"{key}_K")
                logits = torch.einsum("rbq,rbk->bqk", _apply(Q, yq), _apply(K, y))
                phi = _phi_matrix(phi_exact, n)
                if phi is not None:
                    logits = logits + torch.as_tensor(phi[q0:], dtype=self.dtype, device=y.device)
                q = torch.arange(q0, n, device=y.device)
                mask = torch.arange(n, device=y.device)[None, :] <= q[:, None]
                s = torch_terms(logits, mask.expand_as(logits), n, self.model.precision_bits, self.model.precision)
                total = s.sum(dim=-1, keepdim=True)
                w = torch.where(total > 0, s / torch.where(total > 0, total, 1.0), 0.0)
                out = torch.einsum("bqk,rbk->rbq", w, vals)
            updates.append((fh.rows, out))
        for rows, out in updates:
            _add_rows(Y, rows, out)
        if mlp is not None:
            spec = self.mlps[mlp]
            h = _apply(self._t(f"{mlp}_A"), Y.index_select(0, self._t(f"{mlp}_Acols")))
            h += self._t(f"{mlp}_b")[:, None, None]
            for k, heaviside in enumerate(spec.heaviside):
                if heaviside:
                    h[k] = h[k] >= -HEAVISIDE_ATOL
                else:
                    h[k].clamp_(min=0)
            _add_rows(Y, spec.B_rows, _apply(self._t(f"{mlp}_B"), h))
        return Y

    def _positional(self, vals, phi, q0, n):
        """Positional-only head for queries q0..n-1 by prefix sums (as ``evaluate.positional_head``)."""
        s_np, count_far = positional_terms(phi, q0, n, n, self.model)
        dev = vals.device
        s = torch.as_tensor(np.array(s_np), dtype=self.dtype, device=dev)  # a writable copy (rows may be shared)
        tau = s.shape[1] - 2
        q = np.arange(q0, n)
        den = s[:, 0] * torch.as_tensor(count_far, dtype=self.dtype, device=dev)
        num = 0.0
        if np.any(s_np[:, 0] != 0):  # far keys 0..q-tau-1 (their term s[:, 0] is 0 where there are none)
            if len(q) == 1:
                far = vals[:, :, : max(0, n - tau - 1)].sum(dim=2, keepdim=True)
            else:
                far = torch.nn.functional.pad(torch.cumsum(vals[:, :, : max(0, n - tau - 1)], dim=2), (tau + 1, 0))
            num = s[:, 0] * far
        for off in range(tau + 1):
            if not np.any(s_np[:, off + 1] != 0):
                continue
            if q0 - off >= 0:
                window = vals[:, :, q0 - off : n - off]
            else:  # queries before the key at offset off exist: its term is 0 there (s = 0), any value will do
                window = torch.nn.functional.pad(vals[:, :, : n - off], (off, 0))
            num = num + s[:, off + 1] * window
            den = den + s[:, off + 1]
        if not torch.is_tensor(num):
            return torch.zeros(vals.shape[0], vals.shape[1], len(q), dtype=self.dtype, device=dev)
        return num * torch.where(den > 0, 1.0 / torch.where(den > 0, den, 1.0), 0.0)


def _add_rows(Y: torch.Tensor, rows, upd: torch.Tensor) -> None:
    """``Y[rows] += upd`` in place, one row at a time (no scatter)."""
    for k, r in enumerate(rows):
        Y[int(r)] += upd[k]


def _apply(M: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """``M`` (r x c) applied to feature-first ``X`` (c, ...): (r, ...), one matrix product."""
    return (M @ X.reshape(X.shape[0], math.prod(X.shape[1:]))).reshape((M.shape[0],) + X.shape[1:])  # c may be 0


def to_torch(model: LimitTransformer, device=None, dtype=torch.float64) -> TorchLimitTransformer:
    """A ``torch.nn.Module`` reproducing ``forward(model, ...)``; ``device`` e.g. ``"cuda"`` (default: CUDA
    when available, else CPU).  float64 by default: float32 loses the exactness margins of compiled models."""
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return TorchLimitTransformer(model, dtype=dtype).to(device)
