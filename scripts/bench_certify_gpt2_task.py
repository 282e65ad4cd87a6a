"""Benchmark of a one-layer GPT-2 against its task (docs/certify.md, "A GPT-2 model against its task").

Run ``python scripts/bench_certify_gpt2_task.py [--d 16] [--steps 1500] [--seed 0] [--budget 60]``.  One one-layer
NoPE GPT-2 (Huang et al.'s App. E.3 Binary Majority cell: 1 layer, 1 head, d = 16; GPT-2's tanh GELU) is trained
on Binary Majority with the package's harness (:func:`bounds.experiments.training.sequences.train_sequences` on
:mod:`constructions.tasks.huang2024`'s ``$ x # y EOS`` examples, lengths 1..50, AdamW, lr 3e-3, batch 32), saved as
a state_dict with its config, read back by :func:`bounds.certify.gpt2.load`, and certified against the task
(:func:`bounds.certify.gpt2_task.certify_task`) at the margins 1/2, 1/10, 1/50, 1/100, 1/200, 1/1000.

Printed: the training loss, the exact-match accuracy on 200 inputs per bin [1, 50], [51, 100], [101, 150], and per
margin the verdict, the certified gap bound or the failing input (length, margin, torch gap), the certified
horizon (H, and X the shortest failing input found, in model lengths), boxes split and seconds (wall clock on
the machine it runs on; the load average is printed beside it).  ``--budget`` is the whole certificate's per
margin: the enumeration, the branch-and-bound (half of what is left) and the horizon.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MARGINS = [Fraction(1, 2), Fraction(1, 10), Fraction(1, 50), Fraction(1, 100), Fraction(1, 200), Fraction(1, 1000)]


def encode(task, ex):
    tok = {t: i for i, t in enumerate(task.input_vocab)}
    cls = {c: i for i, c in enumerate(task.classes)}
    tokens = [tok[t] for t in ex.tokens]
    return tokens, list(range(len(tokens))), [cls[c] if c is not None else -1 for c in ex.targets]


def train(d: int, steps: int, seed: int, folder: str):
    import torch

    from bounds.experiments.training.decoders import ModelSpec, build_model
    from bounds.experiments.training.sequences import train_sequences
    from constructions.tasks.huang2024 import make_task

    torch.set_num_threads(1)
    task = make_task("binary_majority")
    spec = ModelSpec("nope", 1, 1, d, len(task.input_vocab), 64, "gelu_pytorch_tanh")
    lengths = task.lengths(1, 50)
    torch.manual_seed(seed)
    res = train_sequences(lambda: build_model(spec), lambda rng: encode(task, task.sample(int(rng.choice(lengths)),
                                                                                           rng)),
                          [seed], 32, 3e-3, steps, None, "cpu", weight_decay=0.01)
    sd = {k: v[0].detach().clone() for k, v in res.params.items()}
    torch.save(sd, os.path.join(folder, "model.pt"))
    cfg = {"model_type": "gpt2", "n_layer": 1, "n_head": 1, "n_embd": d, "vocab_size": len(task.input_vocab),
           "activation_function": "gelu_pytorch_tanh", "bos_token_id": 0, "layer_norm_epsilon": 1e-5}
    with open(os.path.join(folder, "config.json"), "w") as fh:
        json.dump(cfg, fh)
    return task, res.final_loss[0]


def accuracy(form, task, lo: int, hi: int, samples: int = 200, seed: int = 2) -> float:
    """Exact match of the first answer token (argmax at '#') on random inputs of lengths lo..hi."""
    rng = np.random.default_rng(seed)
    right = 0
    for _ in range(samples):
        ex = task.sample(int(rng.integers(lo, hi + 1)), rng)
        tokens, _, targets = encode(task, ex)
        sep = tokens.index(task.input_vocab.index("#"))
        right += int(np.argmax(form.torch_logits(tokens[1:sep + 1])) == targets[sep])
    return right / samples


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=60.0)
    args = ap.parse_args()
    from bounds.certify.gpt2 import load
    from bounds.certify.gpt2_targets import TARGETS
    from bounds.certify.gpt2_task import certify_task

    target = TARGETS["binary_majority"]
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        task, loss = train(args.d, args.steps, args.seed, folder)
        print(f"trained d = {args.d}, {args.steps} steps, seed {args.seed}: loss {loss:.2e} "
              f"({time.perf_counter() - t0:.0f} s)")
        ids = target.token_ids(None)
        form = load(os.path.join(folder, "model.pt"), config=os.path.join(folder, "config.json"), bos=ids["$"],
                    alphabet=[ids["0"], ids["1"], ids["#"]])
    print("exact match (first answer token) on [1, 50] / [51, 100] / [101, 150]: "
          + " / ".join(f"{accuracy(form, task, a, b):.3f}" for a, b in ((1, 50), (51, 100), (101, 150))))
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| margin | verdict | gap bound or failing input | horizon | boxes split | seconds |\n"
          "|---|---|---|---|---|---|")
    for mu in MARGINS:
        c = certify_task(form, target, mu, budget_s=args.budget)
        w = c.witness
        what = (f"gap >= {c.lower:.3g}" if c.verdict == "certified" else
                f"length {w['length']}, margin {w['margin']}, answer {w['answer']}, torch gap {w['torch_gap']:.3g}"
                if c.verdict == "fails" else f"[{c.lower:.3g}, {c.upper:.3g}]")
        h = c.record()["horizon"]
        reach = ("every length" if h["every_length"] else f"H = {h['H']}") + ("" if h["X"] is None else f", X = {h['X']}")
        print(f"| {mu} | {c.verdict} | {what} | {reach} | {c.boxes_split} | {c.seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
