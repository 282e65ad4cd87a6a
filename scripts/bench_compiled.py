"""Benchmark: compiled C-RASP benchmark programs on the float64 paths of the Limit Transformer core.

    python scripts/bench_compiled.py [NAME ...] [--batch 10000] [--length 500] [--stream 1000000] [--repeat 3]
                                  [--stream-only]

For each program: depth, width, heads; wall time of ``forward(model, ids, positions="last")`` on a batch of
random strings (target: 10^4 strings of length 500 in under 10 s) and of ``stream_forward`` on one random string
of length 10^6 (target: under 1 s for every program), with its CPU time and, as the baseline measured in the same
run, the time of ``model.encode`` on that string (the tokenization every path does); and, as a check, that the
batch verdicts equal the exact interpreter's.  Stream times are the best of ``--repeat`` runs, each on a
freshly compiled model (compiled outside the timing; its float parameters are built inside it); the load average is printed.
"""

import argparse
import os
import time

import numpy as np

from constructions.crasp.compiler import compile_program
from constructions.crasp.interpreter import accepts
from constructions.crasp.programs import BENCHMARKS, get
from constructions.limit_transformer import forward, stream_forward


def _best(fn, repeat, setup=lambda: None):
    wall = cpu = float("inf")
    for _ in range(repeat):
        arg = setup()
        w, c = time.perf_counter(), time.process_time()
        fn(arg)
        wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--length", type=int, default=500)
    ap.add_argument("--stream", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--stream-only", action="store_true", help="skip the batch forward")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"load average {os.getloadavg()[0]:.2f}; stream: best of {args.repeat}, length {args.stream}")
    print(f"{'program':<28}{'depth':>6}{'width':>6}{'heads':>6}{'batch s':>9}{'stream s':>10}{'CPU s':>8}"
          f"{'encode s':>10}{'ratio':>7}  verdicts")
    worst = 0.0
    for name in args.names or list(BENCHMARKS):
        prog = get(name).program()
        model = compile_program(prog)
        k = len(model.alphabet)
        t_batch, same = float("nan"), None
        if not args.stream_only:
            ids = np.concatenate([np.zeros((args.batch, 1), int), rng.integers(1, k + 1, (args.batch, args.length))],
                                 1)
            t = time.perf_counter()
            out = forward(model, ids, positions="last")
            t_batch = time.perf_counter() - t
            strings = ["".join(model.alphabet[i - 1] for i in row[1:]) for row in ids[:200]]
            same = bool(np.array_equal(out[:200, -1] > 0, np.asarray(accepts(prog, strings))))
        s = "".join(rng.choice(list(model.alphabet), args.stream))
        base, _ = _best(lambda _: model.encode(s), args.repeat)  # noqa: B023
        wall, cpu = _best(lambda m: stream_forward(m, s), args.repeat, lambda: compile_program(prog))  # noqa: B023
        worst = max(worst, wall)
        heads = sum(len(layer.heads) for layer in model.layers)
        verdict = "" if same is None else ("agree" if same else "DISAGREE")
        print(f"{name:<28}{model.depth:>6}{model.d:>6}{heads:>6}{t_batch:>9.2f}{wall:>10.3f}{cpu:>8.3f}"
              f"{base:>10.3f}{wall / base:>7.1f}  {verdict}", flush=True)
    print(f"slowest stream_forward: {worst:.3f} s wall (target < 1 s); load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
