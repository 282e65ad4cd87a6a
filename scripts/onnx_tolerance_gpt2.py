"""float32 ONNX graph against the float64 model: the tolerance of ``--write-onnx`` (docs/certify.md, "One-layer
GPT-2 models").

Run ``python scripts/onnx_tolerance_gpt2.py [--d 64] [--heads 1] [--lengths 2,17,128,1024,4096]``.  The benchmark's
model (:func:`scripts.bench_certify_gpt2.build`: d = 64, one head, alphabet {1, 2}, BOS 0, each activation), and
the pair (f, f with one ``ln_1`` weight + 1): per activation and input length (BOS included, random tokens), the
largest ``|Y32 - torch| / max(1, |torch|)`` over the outputs of f's graph and of the pair's f - g graph, evaluated by
``onnx.reference.ReferenceEvaluator``, and the float64 graph's largest absolute difference (onnx.reference's Erf
works in float32, which bounds the ``gelu`` row); the seconds of the float32 evaluation.
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
    args = ap.parse_args()
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
            f = gpt2.load(tmp, alphabet=[1, 2])
        g = f.with_params(ln1=(f.ln1[0] + np.eye(f.d)[0], f.ln1[1]))
        for L in (int(x) for x in args.lengths.split(",")):
            ids = [f.bos, *(int(a) for a in rng.choice(f.alphabet, size=L - 1))]
            ref = f.torch_model(ids)
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


if __name__ == "__main__":
    main()
