"""The trained model: one layer, one softmax head scaled by log|x|, a ReLU MLP, a scalar readout (App. B).

Izzo et al. App. B: "one layer of a single self-attention head followed by an MLP", embedding dimension
d = 16, MLP width 256, muP initialization, Adam with learning rate 1e-2/d for the hidden layers and 1e-2
for the embeddings.  The forward pass follows the one-layer Limit Transformer of sec. 3 (Huang et al.):

    x_i   = E[token_i] + P[pos_i]
    a_ij  = log(i) * (Q x_i) . (K x_j) / sqrt(d)      causal, j <= i   (log|x| scaling, |x| = i incl. $)
    Y_i   = x_i + sum_j softmax_j(a_ij) V x_j
    y_i   = Y_i + B relu(A Y_i + b)
    out_i = U y_i                                      (scalar regression output for the prefix x_{1:i})

Exactly the one-layer Limit Transformer computation of :mod:`constructions.limit_transformer` (no bias in B or
U, no bias in Q, K, V; the hidden bias b is the Limit Transformer's), so :mod:`bounds.certify.trained` turns
a trained model into a ``LimitTransformer`` that computes the same outputs up to float rounding: position i of
this model is the Limit Transformer's last position on the prefix ``$ x_1 .. x_{i-1}`` (|x| = i, so its
``log|x|`` is this model's ``log(i)``), with 1/sqrt(d) folded into Q.

Positional embeddings (the paper does not state which it used; we say what we use): ``periodic`` (default)
is a learned table of ``pos_period`` rows, row ``(i - 1) mod pos_period`` at model position i — a Delta-periodic
Limit Transformer encoding (Delta = p for ModP, 1 = no positional information for SimpleTask);
``absolute`` is a learned table of ``max_len`` rows (rows beyond the training length are never trained: the
negative control of docs/measured_thresholds.md).

Initialization (a muP-style reading of App. B; Yang et al. 2022 recommend zero query and zero readout):
embeddings N(0, 1); K, V, A, B N(0, 1/fan_in); b = 0; Q = 0 (attention starts uniform); U = 0.  Softmax attention is smooth: the paper's hardmax
(sec. 3.2, finite precision) is not imposed.  torch is imported inside :func:`build_model` only.
"""

from __future__ import annotations

import functools

D_MODEL = 16
MLP_WIDTH = 256


def build_model(vocab: int, positions: str, pos_period: int, max_len: int, d: int = D_MODEL,
                width: int = MLP_WIDTH):
    """A fresh torch module (see the module docstring); call after seeding torch."""
    return one_layer_class()(vocab, positions, pos_period, max_len, d, width)


@functools.cache
def one_layer_class():
    """The torch module class (defined on first use, so that importing this module does not import torch)."""
    import math

    import torch
    from torch import nn

    class OneLayer(nn.Module):
        def __init__(self, vocab, positions, pos_period, max_len, d, width):
            super().__init__()
            self.positions, self.pos_period, self.d = positions, pos_period, d
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(pos_period if positions == "periodic" else max_len, d)
            self.q = nn.Linear(d, d, bias=False)
            self.k = nn.Linear(d, d, bias=False)
            self.v = nn.Linear(d, d, bias=False)
            self.A = nn.Linear(d, width)
            self.B = nn.Linear(width, d, bias=False)
            self.U = nn.Linear(d, 1, bias=False)
            with torch.no_grad():
                for emb in (self.tok, self.pos):
                    emb.weight.normal_(0.0, 1.0)
                for lin in (self.q, self.k, self.v, self.A, self.B):
                    lin.weight.normal_(0.0, 1.0 / math.sqrt(lin.in_features))
                    if lin.bias is not None:
                        lin.bias.zero_()
                self.q.weight.zero_()  # muP: zero query, so attention starts uniform
                self.U.weight.zero_()  # muP: zero readout

        def embed(self, ids):
            n = ids.shape[1]
            idx = torch.arange(n, device=ids.device)
            if self.positions == "periodic":
                idx = idx % self.pos_period
            elif n > self.pos.num_embeddings:
                raise ValueError(f"absolute positions cover {self.pos.num_embeddings} positions, input has {n}")
            return self.tok(ids) + self.pos(idx)[None]

        def attention(self, x):
            """Post-softmax attention weights (batch, n, n) of embedded inputs x, causal, logits scaled by
            log(i)/sqrt(d) at query position i (1-based)."""
            n = x.shape[1]
            i = torch.arange(1, n + 1, device=x.device, dtype=x.dtype)
            logits = (self.q(x) @ self.k(x).transpose(1, 2)) * (torch.log(i)[:, None] / math.sqrt(self.d))
            mask = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
            return torch.softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)

        def forward(self, ids):
            x = self.embed(ids)
            h = x + self.attention(x) @ self.v(x)
            y = h + self.B(torch.relu(self.A(h)))
            return self.U(y).squeeze(-1)

        def attention_of_ids(self, ids):
            """Attention weights (batch, n, n) on token ids (Figure 3)."""
            return self.attention(self.embed(ids))

    return OneLayer


def lr_scale(name: str, d: int = D_MODEL, qk_lr_scale: float = 1.0) -> float:
    """App. B: learning rate lr for the embeddings (``tok``, ``pos``), lr / d for every hidden parameter; the
    query and key matrices get ``qk_lr_scale * lr / d``.

    ``qk_lr_scale < 1`` is our fix for SimpleTask omega >= 4 (docs/measured_thresholds.md): at lr / d the
    attention sharpens onto one token class within ~100 steps, before the MLP reads the counts, and stays
    there (train MSE stuck at 0.27 for omega = 4, N = 16, whatever the schedule, batch 64-512 or bias init);
    with the attention fixed to the ideal pattern the same MLP fits in ~450 steps."""
    top = name.split(".")[0]
    if top in ("tok", "pos"):
        return 1.0
    return (qk_lr_scale if top in ("q", "k") else 1.0) / d
