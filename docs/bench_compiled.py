"""Benchmark: compiled C-RASP benchmark programs on the float64 paths of the Limit Transformer core.

    python docs/bench_compiled.py [NAME ...] [--batch 10000] [--length 500] [--stream 1000000]

For each program: depth, width, heads; wall time of ``forward(model, ids, positions="last")`` on a batch of
random strings (issue target: 10^4 strings of length 500 in under 10 s) and of ``stream_forward`` on one
random string of length 10^6; and, as a check, that the batch verdicts equal the exact interpreter's.
"""

import argparse
import time

import numpy as np

from constructions.crasp.compiler import compile_program
from constructions.crasp.interpreter import accepts
from constructions.crasp.programs import BENCHMARKS, get
from constructions.limit_transformer import forward, stream_forward


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--length", type=int, default=500)
    ap.add_argument("--stream", type=int, default=1_000_000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'program':<28}{'depth':>6}{'width':>6}{'heads':>6}{'batch s':>9}{'stream s':>10}  verdicts")
    for name in args.names or list(BENCHMARKS):
        prog = get(name).program()
        model = compile_program(prog)
        k = len(model.alphabet)
        ids = np.concatenate([np.zeros((args.batch, 1), int), rng.integers(1, k + 1, (args.batch, args.length))], 1)
        t = time.perf_counter()
        out = forward(model, ids, positions="last")
        t_batch = time.perf_counter() - t
        strings = ["".join(model.alphabet[i - 1] for i in row[1:]) for row in ids[:200]]
        same = bool(np.array_equal(out[:200, -1] > 0, np.asarray(accepts(prog, strings))))
        s = "".join(rng.choice(list(model.alphabet), args.stream))
        t = time.perf_counter()
        stream_forward(model, s)
        t_stream = time.perf_counter() - t
        heads = sum(len(layer.heads) for layer in model.layers)
        print(f"{name:<28}{model.depth:>6}{model.d:>6}{heads:>6}{t_batch:>9.2f}{t_stream:>10.2f}  "
              f"{'agree' if same else 'DISAGREE'}", flush=True)


if __name__ == "__main__":
    main()
