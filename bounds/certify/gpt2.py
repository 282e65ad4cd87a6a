"""One-layer GPT-2 models with no positions (NoPE) or a periodic position table, and a BOS token: the form the
certificate reads, and its import.

Huang et al. (huang2024) sec. 5 / App. E.3 train GPT-2 decoders from scratch; their NoPE variant replaces the
position table ``wpe`` by zeros (as :mod:`bounds.experiments.training.decoders` builds it).  A one-layer such model
computes, at the last position of ``BOS x_1 ... x_n``::

    h   = wte[x_n]                                      (no position term)
    x1  = h + c_proj(Attn(ln_1(h), ln_1(wte[BOS]), ln_1(wte[x_1]), ..., ln_1(wte[x_n]))) (causal: all positions)
    x2  = x1 + mlp_proj(act(c_fc(ln_2(x1))))
    out = head(ln_f(x2))                                 (the compared logits)

with scores ``q . k / sqrt(d_head)`` (``scale_attn_weights``; a constant, not Izzo et al.'s log n).  Keys and values
depend only on the token of a position, so the output depends only on the last token, the count of each token and
n (:mod:`bounds.certify.gpt2_enclosure` encloses that function).

A position table that repeats with a period P (``wpe[i] = wpe[i - P]`` for every row i >= P, :func:`table_period`)
is kept as its first P rows and read periodically at every length, ``wpe[i mod P]`` (beyond its R rows the saved
model itself is undefined; the certificate is about this periodic reading, which agrees with the saved model on
every input of at most R positions): then a position's class is (token, position mod P), and the output depends on
the last position's class and the counts per class (the periodic case of :mod:`bounds.certify.gpt2_enclosure`).
Any other nonzero table (a learned absolute table of R rows) is refused in one line (:func:`position_refusal`),
unless it is read with ``absolute=True`` (the pair certificate does): then it is kept whole, as a table of period R
that agrees with the model on the only inputs the model reads (at most R positions), and ``defined_up_to = R``
tells the certificate to claim nothing beyond.

:func:`load` reads a Hugging Face ``save_pretrained`` directory or a PyTorch state_dict file with its declared
``config.json``; :class:`Gpt2Form` holds the float64 parameters and the torch model (float64) used to check the
reading (:func:`import_check`) and to re-check failing inputs.  Anything outside the form is refused with
:class:`FormError`, one line naming what.  torch and transformers are imported inside the functions only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np

ACTIVATIONS = ("gelu_new", "gelu_pytorch_tanh", "gelu")  # tanh approximation (GPT-2's default), exact erf GELU
MAX_ALPHABET = 8  # the attention enclosure enumerates the 2^(|alphabet| + 1) vertices of a mass box
MAX_WIDTH = 1024
MAX_TABLE_CLASSES = 4096  # an absolute table of R rows: k R classes (enclosed without the vertex enumeration)
LAYER_PREFIXES = ("transformer.", "body.", "model.")
HEAD_KEYS = ("lm_head", "token_head", "score", "head")


class FormError(ValueError):
    """A model outside the supported one-layer NoPE GPT-2 form (the message names what)."""


@dataclass(eq=False)
class Gpt2Form:
    """Float64 parameters of a one-layer NoPE GPT-2 with a linear head (``Conv1D`` weights: ``y = x @ W + b``)."""

    wte: np.ndarray  # (vocab, d)
    ln1: tuple  # (gamma, beta)
    attn_w: np.ndarray  # (d, 3d): q, k, v
    attn_b: np.ndarray
    proj_w: np.ndarray  # (d, d)
    proj_b: np.ndarray
    ln2: tuple
    fc_w: np.ndarray  # (d, m)
    fc_b: np.ndarray
    mproj_w: np.ndarray  # (m, d)
    mproj_b: np.ndarray
    lnf: tuple
    head_w: np.ndarray  # (outputs, d)
    head_b: np.ndarray  # (outputs,)
    n_head: int
    ln_eps: float
    activation: str
    scale_attn: bool
    bos: int
    alphabet: tuple  # token ids an input may contain (BOS excluded)
    torch_model: object = field(default=None, repr=False)  # callable ids -> last-position logits (float64)
    wpe: np.ndarray | None = None  # (P, d): a position table read periodically, wpe[i mod P] (None: NoPE)
    defined_up_to: int | None = None  # an absolute table's R rows: the model reads at most R positions (None: all)

    @property
    def d(self) -> int:
        return self.wte.shape[1]

    @property
    def period(self) -> int:
        """P of the periodic position table (1 for NoPE)."""
        return 1 if self.wpe is None else len(self.wpe)

    @property
    def positions(self) -> str:
        """How the model reads positions, in words."""
        if self.defined_up_to is not None:
            return f"absolute positions (a table of {self.defined_up_to} rows)"
        return "NoPE" if self.wpe is None else f"periodic positions (period {self.period})"

    def classes(self) -> list:
        """The (token id, residue) classes of the class reduction (:mod:`bounds.certify.gpt2_enclosure`): BOS at
        residue 0 first, then letter i at residue r as class ``1 + i P + r``."""
        return [(self.bos, 0)] + [(a, r) for a in self.alphabet for r in range(self.period)]

    def class_embeddings(self):
        """Enclosure (lo, hi), each (K, d), of the residual input ``wte[a] + wpe[r]`` of each class: exact (lo =
        hi) where no position term is added, else the double sum widened one ulp each way (a correctly rounded
        sum is within one ulp of the real one)."""
        classes = self.classes()
        tok = self.wte[[a for a, _ in classes]]
        if self.wpe is None:
            return tok, tok
        pos = self.wpe[[r for _, r in classes]]
        s = tok + pos
        exact = pos == 0
        return np.where(exact, tok, np.nextafter(s, -np.inf)), np.where(exact, tok, np.nextafter(s, np.inf))

    def at_period(self, period: int) -> Gpt2Form:
        """The same model with its classes at ``period``, a multiple of its own (its table repeated; a NoPE model
        gets a zero table): the pair of two models is reduced at the least common multiple of their periods."""
        if period % self.period:
            raise FormError(f"period {period} is not a multiple of the model's period {self.period}")
        if period == self.period:
            return self
        table = np.zeros((period, self.d)) if self.wpe is None else np.tile(self.wpe, (period // self.period, 1))
        return self.with_params(wpe=table)

    def position_rows(self, length: int) -> np.ndarray | None:
        """The position rows the model adds at positions 0..length - 1 (BOS at 0): ``wpe[p mod P]`` (an absolute
        table: ``wpe[p]``, refused beyond its R rows, where the model is undefined); None for NoPE.  Reading a
        table at a multiple of its period (:meth:`at_period`, the pair's lcm) gives the same rows."""
        if self.wpe is None:
            return None
        if self.defined_up_to is not None and length > self.defined_up_to:
            raise FormError(f"an input of {length} positions is longer than the position table's "
                            f"{self.defined_up_to} rows: the model is undefined there")
        return self.wpe[np.arange(length) % self.period]

    def torch_logits(self, ids) -> np.ndarray:
        """The torch forward (float64) at the last position of ``BOS ids``."""
        if self.torch_model is None:
            raise FormError("no torch model attached to this form")
        return self.torch_model([self.bos, *ids])

    def with_params(self, **changes) -> Gpt2Form:
        """A copy with some parameters replaced (its torch model rebuilt from them)."""
        kw = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "torch_model"}
        kw.update(changes)
        form = Gpt2Form(**kw)
        form.torch_model = _torch_from_form(form)
        return form


# --------------------------------------------------------------------------------------------- reading
def _config_checks(cfg: dict) -> None:
    if cfg.get("model_type", "gpt2") != "gpt2":
        raise FormError(f"model_type {cfg.get('model_type')!r} is not gpt2 (only one-layer GPT-2 is supported)")
    if cfg.get("n_layer") != 1:
        raise FormError(f"{cfg.get('n_layer')} layers: only one-layer GPT-2 models are supported")
    act = cfg.get("activation_function", "gelu_new")
    if act not in ACTIVATIONS:
        raise FormError(f"activation {act!r} is not supported (supported: {', '.join(ACTIVATIONS)})")
    if cfg.get("add_cross_attention"):
        raise FormError("cross-attention is not supported")
    d, h = cfg.get("n_embd"), cfg.get("n_head")
    if not isinstance(d, int) or not isinstance(h, int) or d < 1 or h < 1 or d % h:
        raise FormError(f"n_embd {d} and n_head {h} must be positive with n_head dividing n_embd")
    if d > MAX_WIDTH:
        raise FormError(f"width {d} exceeds MAX_WIDTH = {MAX_WIDTH}")


def _strip(sd: dict) -> dict:
    out = {}
    for k, v in sd.items():
        for p in LAYER_PREFIXES:
            if k.startswith(p):
                k = k[len(p):]
                break
        out[k] = v
    return out


def from_state_dict(sd: dict, cfg: dict, *, bos: int | None = None, alphabet=None,
                    absolute: bool = False) -> Gpt2Form:
    """The form of a one-layer GPT-2 state_dict (keys of ``GPT2Model``, optionally under ``transformer.`` /
    ``body.``, and a head ``lm_head`` / ``token_head`` / ``score`` / ``head``, else tied to ``wte``) with its
    declared config (a ``GPT2Config`` dict).  A nonzero position table that is not periodic is refused
    (:func:`position_refusal`) unless ``absolute``: then it is kept whole as a table of period R (its rows) with
    ``defined_up_to = R`` (the model is defined on inputs of at most R positions, where the periodic reading is the
    model itself; nothing beyond is claimed: :func:`bounds.certify.gpt2_search.certify_pair`)."""
    _config_checks(cfg)
    sd = {k: np.asarray(v.detach().double().cpu().numpy() if hasattr(v, "detach") else v, dtype=np.float64)
          for k, v in _strip(sd).items()}
    layers = sorted({k.split(".")[1] for k in sd if k.startswith("h.")})
    if layers != ["0"]:
        raise FormError(f"{len(layers)} layers in the state_dict ({', '.join(layers)}): only one layer is supported")
    wpe = sd.get("wpe.weight")
    wpe = None if wpe is None or not np.any(wpe) else wpe
    if wpe is not None and table_period(wpe) is None and not absolute:
        raise FormError(position_refusal(wpe))
    try:
        wte = sd["wte.weight"]
        p = "h.0."
        head_w = head_b = None
        for name in HEAD_KEYS:
            if f"{name}.weight" in sd:
                head_w = sd[f"{name}.weight"]
                head_b = sd.get(f"{name}.bias")
                break
        if head_w is None:
            head_w = wte
        form = Gpt2Form(
            wte=wte, ln1=(sd[p + "ln_1.weight"], sd[p + "ln_1.bias"]),
            attn_w=sd[p + "attn.c_attn.weight"], attn_b=sd[p + "attn.c_attn.bias"],
            proj_w=sd[p + "attn.c_proj.weight"], proj_b=sd[p + "attn.c_proj.bias"],
            ln2=(sd[p + "ln_2.weight"], sd[p + "ln_2.bias"]),
            fc_w=sd[p + "mlp.c_fc.weight"], fc_b=sd[p + "mlp.c_fc.bias"],
            mproj_w=sd[p + "mlp.c_proj.weight"], mproj_b=sd[p + "mlp.c_proj.bias"],
            lnf=(sd["ln_f.weight"], sd["ln_f.bias"]), head_w=head_w,
            head_b=np.zeros(head_w.shape[0]) if head_b is None else head_b,
            n_head=cfg["n_head"], ln_eps=float(cfg.get("layer_norm_epsilon", 1e-5)),
            activation=cfg.get("activation_function", "gelu_new"),
            scale_attn=bool(cfg.get("scale_attn_weights", True)), bos=-1, alphabet=())
    except KeyError as e:
        raise FormError(f"the state_dict has no {e.args[0]!r}: not a GPT-2 layer") from None
    d, vocab = form.d, wte.shape[0]
    if wte.shape[1] != cfg["n_embd"] or form.attn_w.shape != (d, 3 * d) or head_w.shape[1] != d:
        raise FormError(f"parameter shapes do not match n_embd = {cfg['n_embd']}")
    if not all(np.all(np.isfinite(a)) for a in sd.values()):
        raise FormError("the state_dict holds a non-finite parameter")
    bos = cfg.get("bos_token_id") if bos is None else bos
    if not isinstance(bos, int) or not 0 <= bos < vocab:
        raise FormError(f"BOS token id {bos} is not in the vocabulary 0..{vocab - 1} (give --bos)")
    alphabet = tuple(i for i in range(vocab) if i != bos) if alphabet is None else tuple(int(a) for a in alphabet)
    if not alphabet or len(set(alphabet)) != len(alphabet) or bos in alphabet \
            or not all(0 <= a < vocab for a in alphabet):
        raise FormError(f"alphabet {list(alphabet)} must be distinct token ids in 0..{vocab - 1} other than BOS {bos}")
    if len(alphabet) > MAX_ALPHABET:
        raise FormError(f"alphabet of {len(alphabet)} tokens exceeds MAX_ALPHABET = {MAX_ALPHABET}")
    if wpe is not None and table_period(wpe) is None:  # absolute: each position its own residue
        if len(alphabet) * len(wpe) > MAX_TABLE_CLASSES:
            raise FormError(f"absolute positions: {len(alphabet)} tokens x {len(wpe)} table rows = "
                            f"{len(alphabet) * len(wpe)} classes exceed MAX_TABLE_CLASSES = {MAX_TABLE_CLASSES}")
        form.wpe, form.defined_up_to = wpe.copy(), len(wpe)
    elif wpe is not None:
        period = table_period(wpe)
        if len(alphabet) * period > MAX_ALPHABET:
            raise FormError(f"the position table repeats with period {period}: {len(alphabet)} tokens x {period} "
                            f"residues = {len(alphabet) * period} classes exceed MAX_ALPHABET = {MAX_ALPHABET} (the "
                            "attention enclosure enumerates 2^(classes + 1) vertices)")
        form.wpe = wpe[:period].copy()
    form.bos, form.alphabet = bos, alphabet
    form.torch_model = _torch_from_form(form)
    return form


def table_period(wpe: np.ndarray) -> int | None:
    """The least P <= rows / 2 with ``wpe[i] = wpe[i - P]`` for every row i >= P (None: the table is not periodic)."""
    rows = len(wpe)
    return next((p for p in range(1, rows // 2 + 1) if np.array_equal(wpe[p:], wpe[:-p])), None)


def position_refusal(wpe: np.ndarray) -> str:
    """Why a model whose position table ``wpe`` is nonzero and not periodic is refused (one line).  A learned
    absolute table of R rows defines the model on inputs of at most R positions only (model lengths: the tokens plus
    BOS), and the certificate's statement is about every length (a table that repeats with period P, :func:`table_period`,
    is read periodically at every length and certified: :mod:`bounds.certify.gpt2_enclosure`)."""
    rows = len(wpe)
    return (f"absolute positions are used (wpe nonzero, max |wpe| = {np.abs(wpe).max():.3g}, not periodic): its "
            f"{rows} rows define the model on inputs of at most {rows} positions, and the certificate's statement "
            "is about every length; only NoPE (wpe = 0 or absent) and position tables that repeat with a period "
            "(wpe[i] = wpe[i - P]) are certified at every length (a pair certificate states what holds within the "
            "table)")


def _tokenizer(path: str):
    """The tokenizer saved beside the model (None where there is none)."""
    if not os.path.isdir(path) or not any(os.path.exists(os.path.join(path, f)) for f in (
            "tokenizer.json", "vocab.json", "tokenizer_config.json")):
        return None
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path)


def tokenizer_vocab(path: str) -> dict | None:
    """Token string -> id of the tokenizer saved beside the model (None where there is none)."""
    tok = _tokenizer(path)
    return None if tok is None else dict(tok.get_vocab())


def _tokenizer_ids(path: str):
    """BOS id and the alphabet from a tokenizer saved beside the model (None where there is none)."""
    tok = _tokenizer(path)
    if tok is None:
        return None, None
    bos = tok.bos_token_id
    special = set(tok.all_special_ids)
    return bos, tuple(sorted(i for i in tok.get_vocab().values() if i not in special))


def load(path: str, *, config: str | None = None, bos: int | None = None, alphabet=None,
         absolute: bool = False) -> Gpt2Form:
    """A Hugging Face ``save_pretrained`` directory, or a state_dict file (``torch.save``) with ``config`` (a
    GPT2Config JSON).  BOS and alphabet: the options, else the tokenizer saved beside the model, else the config's
    ``bos_token_id`` and every other id."""
    if os.path.isdir(path):
        cfg_path = os.path.join(path, "config.json")
        if not os.path.isfile(cfg_path):
            raise FormError(f"{path} has no config.json (not a save_pretrained directory)")
        cfg = _read_json(cfg_path)
        _config_checks(cfg)
        from transformers import GPT2Model

        try:
            from transformers import AutoModel

            model = AutoModel.from_pretrained(path) if cfg.get("architectures") is None else None
            if model is None:
                import transformers

                arch = cfg["architectures"][0]
                if not arch.startswith("GPT2"):
                    raise FormError(f"architecture {arch} is not a GPT-2 model")
                model = getattr(transformers, arch).from_pretrained(path)
        except (OSError, AttributeError) as e:
            raise FormError(f"cannot read the model in {path}: {str(e).splitlines()[0]}") from None
        sd = model.state_dict()
        if isinstance(model, GPT2Model):
            sd = {f"transformer.{k}": v for k, v in sd.items()}
        tb, ta = _tokenizer_ids(path)
        return from_state_dict(sd, cfg, bos=bos if bos is not None else tb, alphabet=alphabet or ta,
                               absolute=absolute)
    if config is None:
        raise FormError(f"{path} is a state_dict file: give its GPT2Config JSON (--config)")
    cfg = _read_json(config)
    _config_checks(cfg)
    import torch

    try:
        sd = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises many kinds on a bad file
        raise FormError(f"cannot read the state_dict {path}: {str(e).splitlines()[0]}") from None
    if not isinstance(sd, dict):
        raise FormError(f"{path} does not hold a state_dict")
    return from_state_dict(sd, cfg, bos=bos, alphabet=alphabet, absolute=absolute)


def _read_json(path: str) -> dict:
    try:
        with open(path) as fh:
            cfg = json.load(fh)
    except (OSError, json.JSONDecodeError) as e:
        raise FormError(f"cannot read the config {path}: {str(e).splitlines()[0]}") from None
    if not isinstance(cfg, dict):
        raise FormError(f"{path} is not a JSON object")
    return cfg


# --------------------------------------------------------------------------------------------- torch
def _torch_from_form(form: Gpt2Form):
    """A float64 ``transformers`` GPT2Model built from the form's parameters with the linear head: the reference
    forward, its 8192-row position table zero (NoPE) or the form's periodic rows repeated (``wpe[i mod P]``: the
    model read periodically at every length).  Returns ``ids -> last-position logits``."""
    import torch
    from transformers import GPT2Config, GPT2Model

    d, vocab = form.d, form.wte.shape[0]
    cfg = GPT2Config(vocab_size=vocab, n_positions=8192, n_embd=d, n_layer=1, n_head=form.n_head,
                     n_inner=form.fc_w.shape[1], activation_function=form.activation,
                     layer_norm_epsilon=form.ln_eps, scale_attn_weights=form.scale_attn, resid_pdrop=0.0,
                     bos_token_id=form.bos, eos_token_id=form.bos, pad_token_id=form.bos,
                     embd_pdrop=0.0, attn_pdrop=0.0, attn_implementation="eager")
    body = GPT2Model(cfg).double().eval()
    t = lambda a: torch.tensor(np.asarray(a), dtype=torch.float64)  # noqa: E731
    table = np.zeros((8192, d)) if form.wpe is None else np.tile(form.wpe, (8192 // form.period + 1, 1))[:8192]
    sd = {"wte.weight": t(form.wte), "wpe.weight": t(table),
          "h.0.ln_1.weight": t(form.ln1[0]), "h.0.ln_1.bias": t(form.ln1[1]),
          "h.0.attn.c_attn.weight": t(form.attn_w), "h.0.attn.c_attn.bias": t(form.attn_b),
          "h.0.attn.c_proj.weight": t(form.proj_w), "h.0.attn.c_proj.bias": t(form.proj_b),
          "h.0.ln_2.weight": t(form.ln2[0]), "h.0.ln_2.bias": t(form.ln2[1]),
          "h.0.mlp.c_fc.weight": t(form.fc_w), "h.0.mlp.c_fc.bias": t(form.fc_b),
          "h.0.mlp.c_proj.weight": t(form.mproj_w), "h.0.mlp.c_proj.bias": t(form.mproj_b),
          "ln_f.weight": t(form.lnf[0]), "ln_f.bias": t(form.lnf[1])}
    missing = body.load_state_dict(sd, strict=False)
    if [k for k in missing.missing_keys if not k.endswith("attn.bias") and not k.endswith("masked_bias")]:
        raise FormError(f"cannot rebuild the torch model: missing {missing.missing_keys}")
    hw, hb = t(form.head_w), t(form.head_b)

    def forward(ids):
        if len(ids) > 8192:
            raise FormError(f"input of {len(ids)} positions exceeds the torch check's 8192")
        with torch.no_grad():
            x = torch.tensor([list(ids)], dtype=torch.long)
            h = body(input_ids=x, attention_mask=torch.ones_like(x)).last_hidden_state[0, -1]
            return (h @ hw.T + hb).numpy()

    return forward


def import_check(form: Gpt2Form, samples: int = 32, max_length: int = 24, seed: int = 0) -> dict:
    """Agreement of the class-reduced enclosure with the torch forward (float64) on random inputs: the largest
    ``|torch - enclosure midpoint|`` and the largest distance of the torch value outside the enclosure (the
    torch forward rounds, so this is ~1e-15, not 0)."""
    from bounds.certify.gpt2_enclosure import Enclosure, class_counts, point_box

    rng = np.random.default_rng(seed)
    enc = Enclosure(form)
    worst_mid = worst_out = 0.0
    if form.defined_up_to is not None:
        max_length = min(max_length, form.defined_up_to - 1)
    for _ in range(samples):
        n = int(rng.integers(1, max_length + 1))
        ids = [int(a) for a in rng.choice(form.alphabet, size=n)]
        ref = form.torch_logits(ids)
        counts, last = class_counts(ids, form.alphabet, form.period)
        lo, hi = enc.logits(last, *point_box(counts, n))
        lo, hi = lo[0], hi[0]
        worst_mid = max(worst_mid, float(np.max(np.abs(ref - (lo + hi) / 2))))
        worst_out = max(worst_out, float(np.max(np.maximum(lo - ref, ref - hi).clip(0))))
    return {"samples": samples, "max_abs_difference": worst_mid, "max_outside_enclosure": worst_out}
