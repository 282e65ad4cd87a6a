"""Two one-layer GPT-2 models of Huang et al.'s Majority APE cell shape (App. E.3: 1 layer, 2 heads, d = 256; the
harness's vocabulary of 29 tokens and table of 154 rows, :func:`bounds.experiments.huang2024.run_cell`), written as
Hugging Face directories for the measured example of ``python -m bounds.certify --task`` on absolute tables
(docs/certify.md, "Absolute positions (APE) within their table").

Run ``python scripts/ape_task_models.py --out DIR [--rows R]`` (R: the table's rows, default 154); it writes

* ``DIR/untrained``: the harness's GPT-2 config (:func:`bounds.experiments.training.decoders._gpt2_config`) at its
  random initialisation (torch seed 0): an APE seed before training;
* ``DIR/counting``: the same shape built to count (Huang et al.'s majority program, uniform attention): letter c
  embedded as 3 e_c, queries and keys zero (uniform attention), values the letters' coordinates of ln_1, output
  projection 4 I, no MLP, a random position table of scale 0.05, the head tied to the embedding; the most frequent
  letter's coordinate of the stream leads at every length, so its argmax is the answer wherever one letter
  dominates.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

D, HEADS, VOCAB, ROWS = 256, 2, 29, 154


def main() -> None:
    import torch
    from transformers import GPT2LMHeadModel

    from bounds.experiments.training.decoders import ModelSpec, _gpt2_config

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--rows", type=int, default=ROWS, choices=range(3, 1025), metavar="R")
    args = ap.parse_args()
    cfg = _gpt2_config(ModelSpec("ape", 1, HEADS, D, VOCAB, args.rows, "gelu_pytorch_tanh"))
    torch.manual_seed(0)
    GPT2LMHeadModel(cfg).save_pretrained(os.path.join(args.out, "untrained"))
    m = GPT2LMHeadModel(cfg)
    with torch.no_grad():
        for p in m.parameters():
            p.zero_()
        t = m.transformer
        letters = range(1, 27)  # a..z in the task's input_vocab ($ 0, letters, # 27, EOS 28)
        for i in letters:
            t.wte.weight[i, i] = 3.0
        t.wte.weight[0, 100] = t.wte.weight[27, 101] = t.wte.weight[28, 102] = 1.0
        t.wpe.weight.copy_(0.05 * torch.randn(args.rows, D))
        for ln in (t.h[0].ln_1, t.h[0].ln_2, t.ln_f):
            ln.weight.fill_(1.0)
        for i in letters:
            t.h[0].attn.c_attn.weight[i, 2 * D + i] = 1.0
        t.h[0].attn.c_proj.weight.copy_(4.0 * torch.eye(D))
    m.save_pretrained(os.path.join(args.out, "counting"))
    print(f"wrote {args.out}/untrained and {args.out}/counting")


if __name__ == "__main__":
    main()
