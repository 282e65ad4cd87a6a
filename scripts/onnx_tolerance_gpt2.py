"""float32 ONNX graph against the float64 model: the tolerance of ``--write-onnx`` (docs/certify.md, "One-layer
GPT-2 models").

Run ``python scripts/onnx_tolerance_gpt2.py [--d 64] [--heads 1] [--lengths 2,17,128,1024,4096] [--table
periodic:P | absolute:R]``.  The benchmark's model (:func:`scripts.bench_certify_gpt2.build`: d = 64, one head,
alphabet {1, 2}, BOS 0, each activation; with ``--table``, its 256-row position table replaced by random rows of
scale 0.3 that repeat with period P, or R random rows, read as the certificate reads them), and
the pair (f, f with one ``ln_1`` weight + 1): per activation and input length (BOS included, random tokens), the
largest ``|Y32 - torch| / max(1, |torch|)`` over the outputs of f's graph and of the pair's f - g graph, evaluated by
``onnx.reference.ReferenceEvaluator``, and the float64 graph's largest absolute difference (onnx.reference's Erf
works in float32, which bounds the ``gelu`` row); the seconds of the float32 evaluation.  With a table, "torch" is
the saved Hugging Face model's own forward within its rows, and beyond them (a periodic table) the model the
periodic table defines (``Gpt2Form.torch_logits``); an absolute table's lengths beyond R are skipped (refused).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--heads", type=int, default=1)
    ap.add_argument("--lengths", default="2,17,128,1024,4096")
    ap.add_argument("--table", default=None, metavar="periodic:P|absolute:R",
                    help="a random position table: rows repeating with period P, or R rows (default: NoPE)")
    args = ap.parse_args()
    table = None
    if args.table is not None:
        kind, _, size = args.table.partition(":")
        if kind not in ("periodic", "absolute") or not size.isdigit() or not 1 <= int(size) <= 256:
            ap.error("--table is periodic:P or absolute:R with 1 <= P, R <= 256")
        table = (kind, int(size))
    import json

    from transformers.utils import logging as hf_logging

    from bounds.certify import gpt2
    from bounds.certify.gpt2_onnx import FLOAT32_TOLERANCE, evaluate, graph, onehot
    from scripts.bench_certify_gpt2 import build

    hf_logging.disable_progress_bar()
    rng = np.random.default_rng(0)
    worst = 0.0
    for act in gpt2.ACTIVATIONS:
        with tempfile.TemporaryDirectory() as tmp:
            build(args.d, args.heads, tmp)
            cfg = os.path.join(tmp, "config.json")
            with open(cfg) as fh:
                c = json.load(fh)
            c["activation_function"] = act
            with open(cfg, "w") as fh:
                json.dump(c, fh)
            saved = _with_table(tmp, table) if table is not None else None
            f = gpt2.load(tmp, alphabet=[1, 2], absolute=True)
        g = f.with_params(ln1=(f.ln1[0] + np.eye(f.d)[0], f.ln1[1]))
        for L in (int(x) for x in args.lengths.split(",")):
            if f.defined_up_to is not None and L > f.defined_up_to:
                print(f"{act:>17} L = {L:>5}: beyond the absolute table's {f.defined_up_to} rows (refused)")
                continue
            ids = [f.bos, *(int(a) for a in rng.choice(f.alphabet, size=L - 1))]
            ref = f.torch_model(ids) if saved is None or L > len(saved.transformer.wpe.weight) else _hf(saved, ids)
            diff = ref - g.torch_model(ids)
            t = time.perf_counter()
            y32 = evaluate(graph(f, L), onehot(f, ids))
            secs = time.perf_counter() - t
            d32 = evaluate(graph(f, L, g), onehot(f, ids))
            y64 = evaluate(graph(f, L, dtype=np.float64), onehot(f, ids, np.float64))
            rel = max(float(np.max(np.abs(y32 - ref) / np.maximum(1, np.abs(ref)))),
                      float(np.max(np.abs(d32 - diff) / np.maximum(1, np.abs(diff)))))
            worst = max(worst, rel)
            print(f"{act:>17} L = {L:>5}: float32 relative {rel:.2e}, float64 absolute "
                  f"{float(np.max(np.abs(y64 - ref))):.2e}, max |f - g| {float(np.max(np.abs(diff))):.3g}, "
                  f"{secs:.2f} s")
    print(f"largest float32 relative difference {worst:.2e} (FLOAT32_TOLERANCE = {FLOAT32_TOLERANCE})")


def _with_table(path: str, table):
    """Replace the saved model's position table by random rows (``("periodic", P)``: its 256 rows repeat with
    period P; ``("absolute", R)``: R rows), save it again, and return it (float64, the reference forward)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    kind, size = table
    m = GPT2LMHeadModel.from_pretrained(path)
    gen = torch.Generator().manual_seed(1)
    if kind == "absolute":
        cfg = GPT2Config.from_pretrained(path)
        cfg.n_positions = size
        sd = m.state_dict()
        sd["transformer.wpe.weight"] = 0.3 * torch.randn(size, cfg.n_embd, generator=gen)
        m = GPT2LMHeadModel(cfg)
        m.load_state_dict(sd)
    else:
        rows = 0.3 * torch.randn(size, m.config.n_embd, generator=gen)
        with torch.no_grad():
            w = m.transformer.wpe.weight
            w.copy_(rows.repeat(len(w) // size + 1, 1)[:len(w)])
    m.save_pretrained(path)
    return m.double().eval()


def _hf(model, ids) -> np.ndarray:
    import torch

    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0, -1].numpy()


if __name__ == "__main__":
    main()
