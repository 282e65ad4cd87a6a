"""Benchmark: ``to_torch(model)`` against the numpy float path ``forward``.

    python scripts/bench_torch.py [NAME ...] [--batch 1000] [--length 200] [--device cpu|cuda] [--repeat 3] [--threads 1]

For each compiled C-RASP benchmark program, and a random dense model with content-dependent heads: the
best-of-``--repeat`` wall time of ``forward(model, ids, positions="last")`` and of the torch module on the
same token ids (float64, ``torch.inference_mode``), their ratio (target: torch/forward <= 2 on CPU), and
whether the outputs agree (rtol 1e-9).  Both are timed in the same run, one after the other.
"""

import argparse
import time

import numpy as np
import torch

from constructions.crasp.compiler import compile_program
from constructions.crasp.programs import BENCHMARKS, get
from constructions.limit_transformer import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
    forward,
)
from constructions.limit_transformer.torch_export import to_torch


def dense_model(rng, d=16, depth=2, heads=2) -> LimitTransformer:
    """A random model whose heads all read content (K^T Q != 0): the O(n^2) attention path."""
    def m(r, c):
        return rng.integers(-2, 3, (r, c))
    layers = [Layer([Head(m(4, d), m(4, d), m(d, d), LocalPhi((1, -1))) for _ in range(heads)],
                    MLP(m(8, d), m(1, 8)[0], m(d, 8), ("relu",) * 4 + ("heaviside",) * 4)) for _ in range(depth)]
    return LimitTransformer(("a", "b"), m(3, d), layers, m(2, d), PeriodicPositions(m(3, d)), precision_bits=4,
                            name="random dense")


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--length", type=int, default=200)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1,
                    help="torch intra-op threads (default 1, like numpy's elementwise ops; on a loaded 2-core "
                         "machine 2 threads were 15x slower from oversubscription)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, device {args.device}; "
          f"batch {args.batch} x length {args.length}")
    print(f"{'model':<28}{'forward s':>10}{'torch s':>9}{'ratio':>7}  outputs")
    models = [(nm, compile_program(get(nm).program())) for nm in (args.names or list(BENCHMARKS))]
    if not args.names:
        models.append(("random dense (n=100)", dense_model(rng)))
    ratios = []
    for name, model in models:
        length = 100 if name.startswith("random") else args.length
        batch = min(args.batch, 100) if name.startswith("random") else args.batch
        ids = np.concatenate([np.zeros((batch, 1), int), rng.integers(1, len(model.alphabet) + 1, (batch, length))], 1)
        ref, t_np = best(lambda: forward(model, ids, positions="last"), args.repeat)  # noqa: B023
        mod = to_torch(model, device=args.device)
        tids = torch.as_tensor(ids, device=args.device)

        def run():
            with torch.inference_mode():
                out = mod(tids, positions="last")  # noqa: B023
            if args.device.startswith("cuda"):
                torch.cuda.synchronize()
            return out

        got, t_torch = best(run, args.repeat)
        same = np.allclose(ref, got.cpu().numpy(), rtol=1e-9, atol=1e-9)
        ratios.append(t_torch / t_np)
        print(f"{name:<28}{t_np:>10.3f}{t_torch:>9.3f}{t_torch / t_np:>7.2f}  {'agree' if same else 'DIFFER'}",
              flush=True)
    print(f"torch/forward ratio: median {np.median(ratios):.2f}, max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
