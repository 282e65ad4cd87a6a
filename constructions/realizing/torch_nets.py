"""Torch twins of the realizing networks (Ahuja & Mansouri, sec. 4 and 4.5), built from the same parameters.

Every exact class of :mod:`constructions.realizing` has a ``torch.nn.Module`` here with the same parameters and
the same forward map, on batches ``x`` of shape ``(batch, T, n)`` (output ``(batch, T, k)``: the label of every
prefix, causal):

=========================  ==================================================  ===============================
exact class                torch module                                        hidden representation
=========================  ==================================================  ===============================
``DeepSet``                :class:`DeepSetNet` ``rho(pool_j phi(x_j))``        ``phi(x_j)`` per token
``AttentionTransformer``   :class:`PairAttentionNet` ``rho(pool psi(x_i,x_j))`` pooled vector at i
``HeadsTransformer``       :class:`HeadsNet` (sigmoid / relu / linear /        pooled heads at i
                           softmax score, relative lags, several heads)
``LinearSSM``              :class:`SSMNet` ``rho(sum_j Lam^j B x_{i-j})``      ``h_i``
``RNN``                    :class:`RNNNet` ``rho(h_i)``, ``h_i = s(Lam h + B x)``  ``h_i``
=========================  ==================================================  ===============================

``from_exact(model)`` builds the twin of an exact model (Fractions become float64); the tests check the two
agree.  The twins also allow what the exact classes cannot hold: the sigmoid (the paper's activation after
every MLP layer, App. B) and the sigmoid / softmax attention scores.  ``module.hidden(x)`` returns the hidden
representation the identification results are about (Theorems 4-9; R^2 of sec. 4.5.1).

:func:`paper_network` builds an App. B instance with the paper's initialisation: MLP weights and biases
N(0, 0.6^2); Lambda, B orthogonal (SSMs, RNNs); attention Q, K, V N(0, 1/n) (not stated in the paper).  A
teacher (the labelling function f) and a student (the learner h) are two draws of the same class under
different seeds (:func:`teacher_student`).

torch is imported at module level here and nowhere else in :mod:`constructions`, so the exact classes import
without torch.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from constructions.realizing.errors import RealizingError

ACTIVATIONS = ("linear", "relu", "sigmoid", "hard_sigmoid")
SCORES = ("linear", "relu", "sigmoid", "hard_sigmoid", "softmax")
ARCHITECTURES = ("deepset", "transformer", "ssm", "rnn")
PAPER_STD = 0.6


def _act(name: str, z):
    if name == "linear":
        return z
    if name == "relu":
        return torch.relu(z)
    if name == "sigmoid":
        return torch.sigmoid(z)
    if name == "hard_sigmoid":
        return torch.clamp(z / 4 + 0.5, 0.0, 1.0)
    raise RealizingError(f"activation {name!r} not in {ACTIVATIONS}")


def _tensor(m, dtype=torch.float64):
    return torch.tensor([[float(v) for v in row] for row in m], dtype=dtype)


# ------------------------------------------------------------------------------------------------ MLPs
class TorchMLP(nn.Module):
    """Layers ``z <- act_k(W_k z + b_k)``; ``dims = [in, hidden..., out]``, ``acts`` one per layer."""

    def __init__(self, dims, acts):
        super().__init__()
        if len(acts) != len(dims) - 1:
            raise RealizingError(f"{len(dims) - 1} layers but {len(acts)} activations")
        for a in acts:
            if a not in ACTIVATIONS:
                raise RealizingError(f"activation {a!r} not in {ACTIVATIONS}")
        self.acts = tuple(acts)
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:], strict=True))

    def forward(self, z):
        for layer, a in zip(self.layers, self.acts, strict=True):
            z = _act(a, layer(z))
        return z

    @staticmethod
    def from_exact(mlp) -> TorchMLP:
        """The twin of an exact :class:`~constructions.realizing.mlp.MLP` (float64)."""
        dims = [mlp.in_dim] + [len(w) for w, _, _ in mlp.layers]
        net = TorchMLP(dims, [act for _, _, act in mlp.layers]).double()
        with torch.no_grad():
            for layer, (w, b, _) in zip(net.layers, mlp.layers, strict=True):
                layer.weight.copy_(_tensor(w))
                layer.bias.copy_(torch.tensor([float(v) for v in b], dtype=torch.float64))
        return net


def _pool(z, pooling: str, dim: int):
    """Causal prefix pooling along ``dim``: running sums, or running means (weight 1/i)."""
    s = torch.cumsum(z, dim=dim)
    if pooling == "sum":
        return s
    if pooling == "mean":
        shape = [1] * z.dim()
        shape[dim] = z.shape[dim]
        return s / torch.arange(1, z.shape[dim] + 1, dtype=z.dtype, device=z.device).view(shape)
    raise RealizingError(f"pooling must be 'sum' or 'mean', got {pooling!r}")


# ------------------------------------------------------------------------------------------- deep sets
class DeepSetNet(nn.Module):
    """``y_t = rho(pool_{j <= t} phi(x_j))`` (sec. 4.1; Assumptions 1, 3 with sum pooling)."""

    def __init__(self, phi: TorchMLP, rho: TorchMLP, pooling: str = "sum"):
        super().__init__()
        self.phi, self.rho, self.pooling = phi, rho, pooling

    def hidden(self, x):
        return self.phi(x)

    def forward(self, x):
        return self.rho(_pool(self.phi(x), self.pooling, dim=-2))

    @staticmethod
    def from_exact(model) -> DeepSetNet:
        return DeepSetNet(TorchMLP.from_exact(model.phi), TorchMLP.from_exact(model.rho), "sum")


# ---------------------------------------------------------------------------------------- transformers
class PairAttentionNet(nn.Module):
    """``y_i = rho(pool_{j <= i} psi(x_i, x_j[, [i = j]]))`` with an MLP psi (sec. 4.2, Assumptions 5, 6, 12)."""

    def __init__(self, psi: TorchMLP, rho: TorchMLP, pooling: str = "mean", relative: bool = False):
        super().__init__()
        self.psi, self.rho, self.pooling, self.relative = psi, rho, pooling, relative

    def hidden(self, x):
        T = x.shape[-2]
        xi = x.unsqueeze(-2).expand(*x.shape[:-1], T, x.shape[-1])   # [.., i, j, :] = x_i
        xj = x.unsqueeze(-3).expand(*x.shape[:-2], T, T, x.shape[-1])  # [.., i, j, :] = x_j
        parts = [xi, xj]
        if self.relative:
            eye = torch.eye(T, dtype=x.dtype, device=x.device).expand(*x.shape[:-2], T, T).unsqueeze(-1)
            parts.append(eye)
        e = self.psi(torch.cat(parts, dim=-1))
        mask = torch.tril(torch.ones(T, T, dtype=x.dtype, device=x.device)).unsqueeze(-1)
        s = (e * mask).sum(dim=-2)
        if self.pooling == "mean":
            s = s / torch.arange(1, T + 1, dtype=x.dtype, device=x.device).unsqueeze(-1)
        return s

    def forward(self, x):
        return self.rho(self.hidden(x))

    @staticmethod
    def from_exact(model) -> PairAttentionNet:
        return PairAttentionNet(TorchMLP.from_exact(model.psi), TorchMLP.from_exact(model.rho), model.pooling,
                                model.relative)


class HeadsNet(nn.Module):
    """``y_i = rho(concat_h (1/i) sum_{j<=i} s(q_i . k_j + b_h[i-j]) V_h x_j)``; softmax: ``softmax_j`` instead of
    ``s(.)/i`` (sec. 4.2, Assumptions 5, 12; the Fig. 3 transformer).  ``max_lag`` > 0 adds the relative
    lag scores ``b_h[0..max_lag-1]`` (zero beyond)."""

    def __init__(self, n: int, rho: TorchMLP, heads: int = 1, d_k: int | None = None, d_v: int | None = None,
                 score: str = "sigmoid", max_lag: int = 0):
        super().__init__()
        if score not in SCORES:
            raise RealizingError(f"score {score!r} not in {SCORES}")
        d_k, d_v = d_k or n, d_v or n
        self.score, self.max_lag = score, max_lag
        self.Q = nn.Parameter(torch.randn(heads, d_k, n) / math.sqrt(n))
        self.K = nn.Parameter(torch.randn(heads, d_k, n) / math.sqrt(n))
        self.V = nn.Parameter(torch.randn(heads, d_v, n) / math.sqrt(n))
        self.rel = nn.Parameter(torch.zeros(heads, max_lag)) if max_lag else None
        self.rho = rho

    def hidden(self, x):
        T = x.shape[-2]
        q = torch.einsum("hkn,...tn->...htk", self.Q, x)
        k = torch.einsum("hkn,...tn->...htk", self.K, x)
        v = torch.einsum("hvn,...tn->...htv", self.V, x)
        s = q @ k.transpose(-1, -2)  # (..., h, i, j)
        lag = torch.arange(T, device=x.device).view(T, 1) - torch.arange(T, device=x.device).view(1, T)
        if self.rel is not None:
            idx = lag.clamp(0, self.max_lag - 1)
            b = self.rel[:, idx] * ((lag >= 0) & (lag < self.max_lag)).to(x.dtype)  # (h, i, j)
            s = s + b
        causal = lag >= 0
        if self.score == "softmax":
            w = torch.softmax(s.masked_fill(~causal, float("-inf")), dim=-1)
        else:
            w = _act(self.score, s) * causal.to(x.dtype)
            w = w / torch.arange(1, T + 1, dtype=x.dtype, device=x.device).view(T, 1)
        pooled = w @ v  # (..., h, i, d_v)
        return pooled.transpose(-3, -2).flatten(-2)  # (..., i, h * d_v)

    def forward(self, x):
        return self.rho(self.hidden(x))

    @staticmethod
    def from_exact(model) -> HeadsNet:
        h0 = model.heads[0]
        n, d_k, d_v = len(h0.Q[0]), len(h0.Q), len(h0.V)
        lags = max(len(h.rel) for h in model.heads)
        net = HeadsNet(n, TorchMLP.from_exact(model.rho), len(model.heads), d_k, d_v, model.score, lags).double()
        with torch.no_grad():
            for i, h in enumerate(model.heads):
                net.Q[i].copy_(_tensor(h.Q))
                net.K[i].copy_(_tensor(h.K))
                net.V[i].copy_(_tensor(h.V))
                for k in range(lags):
                    net.rel[i, k] = float(h.lag_score(k))
        return net


# ------------------------------------------------------------------------------------------ SSMs, RNNs
class _Recurrent(nn.Module):
    def __init__(self, Lam, B, rho: TorchMLP):
        super().__init__()
        self.Lam, self.B, self.rho = nn.Parameter(Lam), nn.Parameter(B), rho

    def _step(self, pre):  # pragma: no cover - overridden
        raise NotImplementedError

    def hidden(self, x):
        h = torch.zeros(*x.shape[:-2], self.Lam.shape[0], dtype=x.dtype, device=x.device)
        u = x @ self.B.T
        out = []
        for t in range(x.shape[-2]):
            h = self._step(h @ self.Lam.T + u[..., t, :])
            out.append(h)
        return torch.stack(out, dim=-2)

    def forward(self, x):
        return self.rho(self.hidden(x))


class SSMNet(_Recurrent):
    """``h_i = Lam h_{i-1} + B x_i = sum_j Lam^j B x_{i-j}``, ``y_i = rho(h_i)`` (sec. 4.3, Assumption 8)."""

    def _step(self, pre):
        return pre

    @staticmethod
    def from_exact(model) -> SSMNet:
        return SSMNet(_tensor(model.Lam), _tensor(model.B), TorchMLP.from_exact(model.rho))


class RNNNet(_Recurrent):
    """``h_i = s(Lam h_{i-1} + B x_i)``, ``y_i = rho(h_i)`` (sec. 4.4, eq. (28), Assumption 10)."""

    def __init__(self, Lam, B, rho: TorchMLP, act: str = "sigmoid"):
        super().__init__(Lam, B, rho)
        if act not in ACTIVATIONS:
            raise RealizingError(f"activation {act!r} not in {ACTIVATIONS}")
        self.act = act

    def _step(self, pre):
        return _act(self.act, pre)

    @staticmethod
    def from_exact(model) -> RNNNet:
        return RNNNet(_tensor(model.Lam), _tensor(model.B), TorchMLP.from_exact(model.rho), model.act)


def from_exact(model) -> nn.Module:
    """The torch twin (float64) of an exact realizing network."""
    from constructions.realizing import RNN, AttentionTransformer, DeepSet, LinearSSM
    from constructions.realizing.attention_heads import HeadsTransformer

    for cls, twin in ((DeepSet, DeepSetNet), (AttentionTransformer, PairAttentionNet),
                      (HeadsTransformer, HeadsNet), (LinearSSM, SSMNet), (RNN, RNNNet)):
        if isinstance(model, cls):
            return twin.from_exact(model)
    raise RealizingError(f"no torch twin for {type(model).__name__}")


# ----------------------------------------------------------------------------------- App. B instances
def paper_mlp(n: int, hidden_layers: int, out_act: str = "sigmoid", act: str = "sigmoid",
              std: float = PAPER_STD, in_dim: int | None = None) -> TorchMLP:
    """An App. B MLP: ``hidden_layers`` hidden layers of width n, output n, input ``in_dim`` (default n),
    weights and biases N(0, std^2)."""
    net = TorchMLP([in_dim or n] + [n] * (hidden_layers + 1), [act] * hidden_layers + [out_act])
    with torch.no_grad():
        for layer in net.layers:
            layer.weight.normal_(0.0, std)
            layer.bias.normal_(0.0, std)
    return net


def paper_network(arch: str, n: int = 20, hidden_layers: int = 2, score: str = "sigmoid", heads: int = 1,
                  max_lag: int = 0, out_act: str = "sigmoid", psi_layers: int | None = None) -> nn.Module:
    """One App. B network of architecture ``arch`` (in :data:`ARCHITECTURES`), freshly drawn (seed torch first).

    ``hidden_layers``: of rho (and of phi for deep sets, unless ``psi_layers`` is given)."""
    rho = paper_mlp(n, hidden_layers, out_act, in_dim=n * heads if arch == "transformer" else n)
    if arch == "deepset":
        phi = paper_mlp(n, hidden_layers if psi_layers is None else psi_layers)
        return DeepSetNet(phi, rho, "sum")
    if arch == "transformer":
        return HeadsNet(n, rho, heads=heads, score=score, max_lag=max_lag)
    if arch in ("ssm", "rnn"):
        Lam, B = torch.empty(n, n), torch.empty(n, n)
        nn.init.orthogonal_(Lam)
        nn.init.orthogonal_(B)
        return SSMNet(Lam, B, rho) if arch == "ssm" else RNNNet(Lam, B, rho, "sigmoid")
    raise RealizingError(f"unknown architecture {arch!r}; use one of {ARCHITECTURES}")


def teacher_student(arch: str, teacher_seed: int, student_seed: int, **kw) -> tuple[nn.Module, nn.Module]:
    """Two independent draws of :func:`paper_network` (the labelling f and the learner h of sec. 4.5)."""
    if teacher_seed == student_seed:
        raise RealizingError("teacher and student need different seeds")
    torch.manual_seed(teacher_seed)
    teacher = paper_network(arch, **kw)
    torch.manual_seed(student_seed)
    return teacher, paper_network(arch, **kw)
