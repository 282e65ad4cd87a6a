"""Foundation benchmark: rerun with ``python scripts/bench_foundation.py [--repeat R]``.

Prints, for this machine:
1. wall time of ``python -m bounds.estimate --task modp`` (a fresh interpreter; target < 1 s);
2. the counting evaluator on one ModP input of length 10^6 (positions="last", exact; target < 0.5 s);
3. the vectorized float64 path on 10^4 ModP inputs of length 1000 (positions="last"; target < 5 s);
4. all positions of one ModP input of length 10^4: a naive O(N^2) per-position evaluation (written here, float64,
   izzo precision model) against the counting evaluator (exact and float), with the ratio.
Times are the minimum over ``--repeat`` runs (default 3); the machine's load is printed with them.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time

import numpy as np


def _best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def naive_all_positions(model, ids: np.ndarray) -> np.ndarray:
    """O(N^2): for every query i recompute all logits over keys 1..i, the izzo softmax, the MLP and U (float64).

    Reads the model's exact parameters directly (independent of the library's float evaluators)."""
    from constructions.limit_transformer.rationals import to_float

    layer = model.layers[0]
    heads = [(to_float(h.query), to_float(h.key), to_float(h.value),
              [float(v) for v in h.phi.values] if h.phi is not None else None) for h in layer.heads]
    mlp = None
    if layer.mlp is not None:
        mlp = (to_float(layer.mlp.A), to_float(layer.mlp.b), to_float(layer.mlp.B), layer.mlp.heaviside_mask)
    E, U = to_float(model.embedding), to_float(model.unembedding)
    n = len(ids)
    pos = model.positions.float_vectors(np.arange(1, n + 1)) if model.positions is not None else 0.0
    y = E[ids] + pos
    p = model.precision_bits
    logn = math.log(n)
    out = np.empty((n, U.shape[0]))
    for i in range(n):
        Y = y[i].copy()
        for Q, K, V, phi in heads:
            a = (y[: i + 1] @ K.T) @ (Q @ y[i])
            if phi is not None:
                for off, v in enumerate(phi):
                    if off <= i:
                        a[i - off] += v
            e = logn * (a - a.max())
            s = np.where(e > -p * math.log(2), np.exp(e), 0.0)
            Y = Y + (s / s.sum()) @ (y[: i + 1] @ V.T)
        if mlp is not None:
            A, b, B, heav = mlp
            h = A @ Y + b
            Y = Y + B @ np.where(heav, (h >= 0).astype(float), np.maximum(h, 0.0))
        out[i] = U @ Y
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    from constructions.limit_transformer import counting_forward, forward
    from constructions.tasks import ModPTask

    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; python {sys.version.split()[0]}")
    task = ModPTask(5, 2)
    model = task.limit_transformer()
    rng = np.random.default_rng(0)

    # 1. the CLI in a fresh interpreter
    cmd = [sys.executable, "-m", "bounds.estimate", "--task", "modp"]
    t_cli, _ = _best(lambda: subprocess.run(cmd, check=True, capture_output=True), args.repeat)
    t_py, _ = _best(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.repeat)
    print(f"1. python -m bounds.estimate --task modp: {t_cli:.3f} s wall (target < 1 s; bare interpreter start "
          f"{t_py:.3f} s)")

    # 2. counting evaluator, one input of length 10^6
    s6 = task.sample(rng, 10**6, 1)[0]
    t_cnt, val = _best(lambda: counting_forward(model, s6, positions="last"), args.repeat)
    assert val[0] == task.target(s6)
    print(f"2. counting_forward, ModP length 10^6, positions='last' (exact Fraction): {t_cnt:.3f} s (target < 0.5 s)")

    # 3. vectorized path, 10^4 inputs of length 1000
    ids = task.sample_ids(rng, 1000, 10**4)
    t_vec, out = _best(lambda: forward(model, ids, positions="last"), args.repeat)
    assert out.shape == (10**4, 1)
    print(f"3. forward, 10^4 ModP inputs of length 1000, positions='last': {t_vec:.3f} s (target < 5 s)")

    # 4. all positions at length 10^4: naive O(N^2) vs counting
    s4 = task.sample(rng, 10**4, 1)[0]
    ids4 = model.encode(s4)[0]
    t_naive, naive = _best(lambda: naive_all_positions(model, ids4), 1)
    t_cf, cf = _best(lambda: counting_forward(model, s4, positions="all", exact=False), args.repeat)
    t_ce, ce = _best(lambda: counting_forward(model, s4, positions="all", exact=True), 1)
    targets = np.array([float(v) for v in task.prefix_targets(s4)])
    assert np.abs(naive[:, 0] - targets).max() < 1e-12 and np.abs(cf[:, 0] - targets).max() < 1e-12
    assert list(ce[:, 0]) == task.prefix_targets(s4)
    print(f"4. all positions, ModP length 10^4: naive O(N^2) {t_naive:.3f} s; counting float {t_cf:.4f} s "
          f"(ratio {t_naive / t_cf:.0f}x); counting exact {t_ce:.3f} s (ratio {t_naive / t_ce:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
