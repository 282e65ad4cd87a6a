"""Decoder-only transformers for the trained reproductions, built from Hugging Face configs (no download).

The papers' models are standard architectures, so we build them with ``transformers`` rather than by hand:

* **APE** (Huang et al. §5 / App. E.3: ``GPT2LMHeadModel`` from scratch, learned absolute positions ``wpe``,
  LayerNorm, GELU MLP of width 4d, tied embeddings, dropout 0): :class:`transformers.GPT2LMHeadModel`.
* **NoPE** (Huang et al.: "``wpe`` replaced by a module that returns 0"): the same GPT-2 with ``wpe`` set to
  zero and frozen (``requires_grad = False``), so ``E_x + p_i = E_x`` at every position; AdamW's decoupled
  weight decay never moves a parameter without a gradient.  ``transformers`` has no config switch for
  this; zeroing the table is the reference implementation's choice.
* **RoPE** (Golowich et al. §5.1 / App. E: GPT-NeoX with rotary embeddings):
  :class:`transformers.GPTNeoXForCausalLM` with ``rotary_pct = 1``.  **PoSE** (Zhu et al. 2024, Golowich
  §2.2) is a training-time choice of ``position_ids`` (see :func:`pose_position_ids`), not an architecture.
* **Position coupling** (Cho et al. 2024; Golowich §2.1, §5.2): APE GPT-2 fed explicit ``position_ids``
  (the coupled IDs).  **Predictive position coupling** (Golowich §5.2) adds a second linear head that
  predicts the *next* token's position ID (the coupled model), so at inference the model supplies the IDs
  it will be fed next.

Every model takes ``input_ids`` of shape ``(batch, length)`` and optional ``position_ids`` and returns token
logits ``(batch, length, vocab)`` (plus next-position logits for the coupled model, built by :func:`build_lm` with ``positions="coupled"``).  torch and transformers
are imported inside the builders only (the ``reproduce`` extra).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

POSITIONS = ("ape", "nope", "rope", "coupled")


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

    def __post_init__(self):
        if self.positions not in POSITIONS:
            raise ModelConfigError(f"positions must be one of {', '.join(POSITIONS)}, not {self.positions!r}")
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
                      attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)


def build_lm(spec: ModelSpec):
    """A freshly initialised causal LM for ``spec`` (seed torch first); ``model(input_ids, position_ids).logits``."""
    import torch

    if spec.positions == "rope":
        from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

        cfg = GPTNeoXConfig(vocab_size=spec.vocab, hidden_size=spec.d_model, num_hidden_layers=spec.n_layer,
                            num_attention_heads=spec.n_head, intermediate_size=4 * spec.d_model,
                            max_position_embeddings=spec.n_positions, rotary_pct=1.0, hidden_dropout=0.0,
                            attention_dropout=0.0, bos_token_id=0, eos_token_id=0, use_cache=False)
        return GPTNeoXForCausalLM(cfg)
    if spec.positions == "coupled":
        return _coupled_module()(spec)
    from transformers import GPT2LMHeadModel

    model = GPT2LMHeadModel(_gpt2_config(spec))
    if spec.positions == "nope":
        wpe = model.transformer.wpe.weight
        with torch.no_grad():
            wpe.zero_()
        wpe.requires_grad_(False)
    return model


def _coupled_module():
    import torch
    from torch import nn
    from transformers import GPT2Model

    class _CoupledLM(nn.Module):
        """GPT-2 body (APE fed coupled IDs) with a token head and a next-position-ID head (Golowich §5.2)."""

        def __init__(self, spec: ModelSpec):
            super().__init__()
            self.spec = spec
            self.body = GPT2Model(_gpt2_config(spec))
            self.token_head = nn.Linear(spec.d_model, spec.vocab, bias=False)
            self.position_head = nn.Linear(spec.d_model, spec.n_positions, bias=False)

        def forward(self, input_ids: torch.Tensor, position_ids: torch.Tensor):
            h = self.body(input_ids=input_ids, position_ids=position_ids).last_hidden_state
            return self.token_head(h), self.position_head(h)

    return _CoupledLM


def token_logits(model, input_ids, position_ids=None):
    """Token logits of any model built here (HF LMs return an output object, the coupled model a pair)."""
    out = model(input_ids=input_ids, position_ids=position_ids)
    return out[0] if isinstance(out, tuple) else out.logits


def pose_position_ids(lengths, max_position: int, rng, chunks: int = 2):
    """PoSE position IDs (Zhu et al. 2024): split ``0..n-1`` into ``chunks`` contiguous pieces and add to
    each a nondecreasing random skip, so the IDs stay increasing, keep their relative order inside each
    piece and span up to ``max_position``.  ``lengths``: one length per row; returns a list of int lists.
    Raises :class:`ModelConfigError` if a length exceeds ``max_position``."""
    out = []
    for n in lengths:
        if n > max_position:
            raise ModelConfigError(f"sequence length {n} exceeds the position range {max_position}")
        cuts = sorted(int(c) for c in rng.integers(1, max(n, 2), size=chunks - 1)) if n > 1 else []
        bounds = [0, *cuts, n]
        slack = max_position - n
        skips = sorted(int(s) for s in rng.integers(0, slack + 1, size=chunks))
        ids = []
        for piece, skip in enumerate(skips):
            ids.extend(range(bounds[piece] + skip, bounds[piece + 1] + skip))
        out.append(ids)
    return out


def parameter_count(model) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
