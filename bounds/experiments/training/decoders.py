"""Decoder-only transformers for the trained reproductions, built from Hugging Face configs (no download).

The papers' models are standard architectures, so the bodies are ``transformers`` modules built from a config
(:func:`build_model`), not hand-written blocks:

* **APE** (Huang et al. §5 / App. E.3: GPT-2 from scratch, learned absolute positions ``wpe``, LayerNorm,
  GELU MLP of width 4d, token head tied to the input embedding, dropout 0): :class:`transformers.GPT2Model`.
* **NoPE** (Huang et al.: "``wpe`` replaced by a module that returns 0"): the same GPT-2 with ``wpe``
  replaced by a parameter-free module returning zeros.  ``transformers`` has no config switch for NoPE; a
  zeroed-and-frozen table would not survive the shared loop, which trains every stacked parameter.
* **RoPE** (Golowich et al. §5.1 / App. E: GPT-NeoX with rotary embeddings): :class:`transformers.GPTNeoXModel`
  with ``rotary_pct = 1`` and an untied token head (NeoX's default).  **PoSE** (Zhu et al. 2024, Golowich
  §2.2) is a training-time choice of position ids (:func:`pose_position_ids`), not an architecture.
* **Position coupling** (Cho et al. 2024; Golowich §2.1, §5.2): APE GPT-2 fed the coupled ids as
  ``position_ids``.  ``coupled`` adds the **predictive** head of Golowich §5.2: a linear map to the next
  token's position id, so at inference the model supplies the ids it is fed next.

``model(x)`` takes ``x = pack(input_ids, position_ids)`` of shape ``(batch, 2, length)`` (one tensor, so the
shared loop :func:`bounds.experiments.training.loop.train_models` can vmap it over seeds) and returns token logits
``(batch, length, vocab)``; ``coupled`` returns ``(token_logits, next_position_logits)``.  Attention is the
``eager`` implementation because vmap has no batching rule for fused SDPA.  torch and transformers are
imported inside the functions only (the ``reproduce`` extra).
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass

POSITIONS = ("ape", "nope", "rope", "coupled")
ACTIVATIONS = ("gelu_new", "gelu_pytorch_tanh", "gelu")
ATTENTION = "eager"  # plain matmul attention: torch.func.vmap (the shared loop's seed batching) has no SDPA rule


class ModelConfigError(ValueError):
    """An impossible model specification (unknown positions, heads not dividing the width, ...)."""


@dataclass(frozen=True)
class ModelSpec:
    """Depth, heads, width and positional scheme of one model."""

    positions: str  # one of POSITIONS
    n_layer: int
    n_head: int
    d_model: int
    vocab: int
    n_positions: int  # table size for APE / coupled IDs; maximum length for NoPE and RoPE
    # None: the body's own default (GPT-2 "gelu_new", GPT-NeoX "gelu"); "gelu_pytorch_tanh" is GPT-2's
    # tanh approximation in one fused kernel (same function, about 2x faster on a CPU)
    activation: str | None = None

    def __post_init__(self):
        if self.positions not in POSITIONS:
            raise ModelConfigError(f"positions must be one of {', '.join(POSITIONS)}, not {self.positions!r}")
        if self.activation is not None and self.activation not in ACTIVATIONS:
            raise ModelConfigError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {self.activation!r}")
        for name in ("n_layer", "n_head", "d_model", "vocab", "n_positions"):
            if getattr(self, name) < 1:
                raise ModelConfigError(f"{name} must be positive, not {getattr(self, name)}")
        if self.d_model % self.n_head:
            raise ModelConfigError(f"d_model {self.d_model} is not divisible by n_head {self.n_head}")

    def to_json(self) -> dict:
        return asdict(self)


def _gpt2_config(spec: ModelSpec):
    from transformers import GPT2Config

    return GPT2Config(vocab_size=spec.vocab, n_positions=spec.n_positions, n_embd=spec.d_model,
                      n_layer=spec.n_layer, n_head=spec.n_head, resid_pdrop=0.0, embd_pdrop=0.0,
                      attn_pdrop=0.0, bos_token_id=0, eos_token_id=0, attn_implementation=ATTENTION,
                      activation_function=spec.activation or "gelu_new")


def _neox_config(spec: ModelSpec):
    from transformers import GPTNeoXConfig

    return GPTNeoXConfig(vocab_size=spec.vocab, hidden_size=spec.d_model, num_hidden_layers=spec.n_layer,
                         num_attention_heads=spec.n_head, intermediate_size=4 * spec.d_model,
                         max_position_embeddings=spec.n_positions, rotary_pct=1.0, hidden_dropout=0.0,
                         attention_dropout=0.0, bos_token_id=0, eos_token_id=0, use_cache=False,
                         hidden_act=spec.activation or "gelu",
                         attn_implementation=ATTENTION)


@functools.cache
def _model_class():
    import torch
    from torch import nn
    from transformers import GPT2Model, GPTNeoXModel

    class ZeroPositions(nn.Module):
        """NoPE: stands in for GPT-2's ``wpe`` and returns 0 for every position (no parameters)."""

        def __init__(self, d_model: int):
            super().__init__()
            self.d_model = d_model

        def forward(self, position_ids):
            zeros = torch.zeros_like(position_ids, dtype=torch.float32).unsqueeze(-1)
            return zeros.expand(*position_ids.shape, self.d_model)

    class SequenceModel(nn.Module):
        """A Hugging Face decoder body with a token head (tied to the input embedding for GPT-2) and, for
        ``coupled``, a next-position-ID head.  ``forward(x)``: ``x[:, 0]`` token ids, ``x[:, 1]`` position ids."""

        def __init__(self, spec: ModelSpec):
            super().__init__()
            self.spec = spec
            if spec.positions == "rope":
                self.body = GPTNeoXModel(_neox_config(spec))
                self.token_head = nn.Linear(spec.d_model, spec.vocab, bias=False)
            else:
                self.body = GPT2Model(_gpt2_config(spec))
                if spec.positions == "nope":
                    self.body.wpe = ZeroPositions(spec.d_model)
            if spec.positions == "coupled":
                self.position_head = nn.Linear(spec.d_model, spec.n_positions, bias=False)

        def forward(self, x):
            ids, position_ids = x[:, 0], x[:, 1]
            # an explicit all-ones mask: without it transformers reads non-consecutive position ids (PoSE,
            # coupled ids) as packed separate documents and cuts attention between them
            h = self.body(input_ids=ids, position_ids=position_ids,
                          attention_mask=torch.ones_like(ids)).last_hidden_state
            if self.spec.positions == "rope":
                logits = self.token_head(h)
            else:
                logits = nn.functional.linear(h, self.body.wte.weight)
            if self.spec.positions == "coupled":
                return logits, self.position_head(h)
            return logits

    return SequenceModel


def build_model(spec: ModelSpec):
    """A freshly initialised model for ``spec`` (seed torch first); see the module docstring."""
    return _model_class()(spec)


def pack(input_ids, position_ids):
    """The model input: token ids and position ids (each ``(batch, length)``) stacked to ``(batch, 2, length)``."""
    import torch

    return torch.stack([torch.as_tensor(input_ids), torch.as_tensor(position_ids)], dim=-2)


def pose_position_ids(lengths, max_position: int, rng, chunks: int = 2):
    """PoSE position IDs (Zhu et al. 2024): split ``0..n-1`` into ``chunks`` contiguous pieces and add to
    each a nondecreasing random skip, so the IDs stay increasing, keep their relative order inside each
    piece and span up to ``max_position``.  ``lengths``: one length per row; returns a list of int lists.
    Raises :class:`ModelConfigError` if a length exceeds ``max_position``."""
    out = []
    for n in lengths:
        if n > max_position:
            raise ModelConfigError(f"sequence length {n} exceeds the position range {max_position}")
        pieces = max(1, min(chunks, n))
        cuts = sorted(int(c) for c in rng.integers(1, n, size=pieces - 1)) if pieces > 1 else []
        bounds = [0, *cuts, n]
        skips = sorted(int(s) for s in rng.integers(0, max_position - n + 1, size=pieces))
        ids = []
        for piece, skip in enumerate(skips):
            ids.extend(range(bounds[piece] + skip, bounds[piece + 1] + skip))
        out.append(ids)
    return out


def parameter_count(model) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
