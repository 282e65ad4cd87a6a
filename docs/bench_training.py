"""Benchmark: 8 seeds trained as one batched model (bounds.training.loop) against 8 sequential runs.

    python docs/bench_training.py [--seeds 8] [--steps 200] [--n 16] [--batch 64] [--device auto] [--threads 1]

Both sides run the same code path (``bounds.training.train.fit``: same model, data, loss and optimizer, no early
stop), in the same process, interleaved (sequential, batched, sequential, batched) so that a change in machine
load hits both; the ratio is the speed-up.  The process's CPU time is reported too (with one torch thread it
is the work done, whatever else runs on the machine).  The load average before and after is printed (the machine may be
shared).
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
    args = ap.parse_args()
    import torch

    from bounds.training.train import RunConfig, fit, make_task, resolve_device

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


if __name__ == "__main__":
    main()
