"""Benchmark: 8 seeds trained as one batched model (bounds.experiments.training.loop) against 8 sequential runs.

    python scripts/bench_training.py [--seeds 8] [--steps 200] [--n 16] [--batch 64] [--device auto] [--threads 1]
    python scripts/bench_training.py --widths 4,16,64,256 --steps 40   # where batching pays: the MLP width swept


Both sides run the same code path (``bounds.experiments.training.train.fit``: same model, data, loss and optimizer, no early
stop), in the same process, interleaved (sequential, batched, sequential, batched) so that a change in machine
load hits both; the ratio is the speed-up.  The process's CPU time is reported too (with one torch thread it
is the work done, whatever else runs on the machine).  The load average before and after is printed (the machine may be
shared).

Why 3x is out of reach here, and where it pays (``--widths``): a step of S models batched costs ``f + S c``
against ``S (f + c)`` sequentially, with f the fixed per-step cost (Python, autograd bookkeeping, optimizer
loop, kernel launches) and c the arithmetic of one model; the speed-up ``S (f + c) / (f + S c)`` reaches 3x for
S = 8 only when f >= 3.2 c (compute share c / (f + c) <= 0.24).  The sweep prints, per MLP width, the CPU
speed-up and the compute share it implies, ``(S / speed-up - 1) / (S - 1)``: the default model (d = 16, width
256) is compute-bound on one CPU thread, so batching saves only f; narrow models are overhead-bound and
approach S.  On a GPU the per-step arithmetic of these models is far below what one kernel launch costs, so the
batched step is overhead-bound there at every width of the sweep: on one H200, 8 seeds batched ran 5.8-6.5x
faster than sequential at widths 16-4096 (docs/measured_thresholds.md, "Throughput").
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--period", type=int, default=3)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--widths", help="comma-separated MLP widths: sweep them (CPU speed-up and compute share)")
    args = ap.parse_args()
    if args.widths:
        return sweep(args, [int(w) for w in args.widths.split(",")])
    import torch

    from bounds.experiments.training.train import RunConfig, fit, make_task, resolve_device

    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    cfg = RunConfig(max_steps=args.steps, batch=args.batch, train_loss_target=1e-30)  # never stops early
    task, label = make_task("modp", {"period": args.period})
    seeds = list(range(args.seeds))
    load0 = os.getloadavg()
    seq, bat, seq_cpu, bat_cpu = [], [], [], []
    fit(task, label, args.n, [0], RunConfig(max_steps=5, batch=args.batch), device)  # warm-up
    for _ in range(args.repeats):
        t, c = time.perf_counter(), time.process_time()
        for s in seeds:
            fit(task, label, args.n, [s], cfg, device)
        seq.append(time.perf_counter() - t)
        seq_cpu.append(time.process_time() - c)
        t, c = time.perf_counter(), time.process_time()
        fit(task, label, args.n, seeds, cfg, device)
        bat.append(time.perf_counter() - t)
        bat_cpu.append(time.process_time() - c)
    load1 = os.getloadavg()
    print(f"device {device}, torch {torch.__version__}, {args.threads} thread(s); ModP p={args.period}, N={args.n}, "
          f"batch {args.batch}, {args.steps} steps, {args.seeds} seeds")
    print(f"sequential: {' '.join(f'{x:.2f}' for x in seq)} s   batched: {' '.join(f'{x:.2f}' for x in bat)} s")
    print(f"speed-up (best of {args.repeats} each): {min(seq) / min(bat):.2f}x   "
          f"(sum: {sum(seq) / sum(bat):.2f}x)")
    print(f"CPU time of this process: sequential {' '.join(f'{x:.2f}' for x in seq_cpu)} s, batched "
          f"{' '.join(f'{x:.2f}' for x in bat_cpu)} s; CPU-time speed-up {sum(seq_cpu) / sum(bat_cpu):.2f}x "
          "(insensitive to other processes' load)")
    print(f"load average (1/5/15 min) before {load0[0]:.2f}/{load0[1]:.2f}/{load0[2]:.2f}, "
          f"after {load1[0]:.2f}/{load1[1]:.2f}/{load1[2]:.2f}, {os.cpu_count()} CPUs")


def sweep(args, widths) -> None:
    """Per MLP width: CPU and wall seconds of S sequential runs and of one batched run (best of --repeats,
    interleaved); on a GPU the wall columns are the ones that count (the CPU waits on the device)."""
    import torch

    from bounds.experiments.training.train import RunConfig, fit, make_task, resolve_device

    torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    task, label = make_task("modp", {"period": args.period})
    seeds = list(range(args.seeds))
    S = len(seeds)
    print(f"device {device}, {args.threads} thread(s), {S} seeds, {args.steps} steps, N = {args.n}, batch "
          f"{args.batch}; load average {os.getloadavg()[0]:.2f}")
    print("| MLP width | sequential CPU s | batched CPU s | speed-up | implied compute share c/(f+c) "
          "| sequential wall s | batched wall s | wall speed-up |")
    print("|---|---|---|---|---|---|---|---|")
    for width in widths:
        cfg = RunConfig(max_steps=args.steps, batch=args.batch, train_loss_target=1e-30, width=width)
        fit(task, label, args.n, [0], RunConfig(max_steps=3, batch=args.batch, width=width), device)  # warm-up
        seq, bat, seq_wall, bat_wall = [], [], [], []
        for _ in range(args.repeats):
            c, t = time.process_time(), time.perf_counter()
            for s in seeds:
                fit(task, label, args.n, [s], cfg, device)
            seq.append(time.process_time() - c)
            seq_wall.append(time.perf_counter() - t)
            c, t = time.process_time(), time.perf_counter()
            fit(task, label, args.n, seeds, cfg, device)
            bat.append(time.process_time() - c)
            bat_wall.append(time.perf_counter() - t)
        speed = min(seq) / min(bat)
        print(f"| {width} | {min(seq):.2f} | {min(bat):.2f} | {speed:.2f}x | {(S / speed - 1) / (S - 1):.2f} "
              f"| {min(seq_wall):.2f} | {min(bat_wall):.2f} | {min(seq_wall) / min(bat_wall):.2f}x |", flush=True)
    print(f"3x needs a compute share <= {(S / 3 - 1) / (S - 1):.2f}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
