"""Benchmark: the float64 forward of a one-layer model over all positions against a naive numpy forward.

    python scripts/bench_float.py [--n 4000] [--repeat 5] [--d 16] [--heads 2]

The model: one layer, content-dependent heads (query and key matrices with random small dyadic entries, a
tau-local phi), a ReLU MLP, Delta-periodic positions, the ``izzo`` precision model; one random string of length
N.  The naive forward (written here from the exact parameters, independent of the library) materializes the
N x N logits, masks the causal upper triangle with -inf, flushes the terms <= 2^-p of the izzo softmax,
normalizes and multiplies by the values: the textbook numpy program.  ``forward(model, s, positions="all")``
must give the same outputs (checked) in at most the naive program's time: both are timed in the same process,
interleaved, best of ``--repeat``, with one BLAS thread each (wall and CPU seconds, and the load average).
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings
from fractions import Fraction

import numpy as np


def random_model(d: int, heads: int, sigma: int, period: int, tau: int, width: int, seed: int = 0):
    from constructions.limit_transformer import (
        MLP,
        Head,
        Layer,
        LimitTransformer,
        LocalPhi,
        PeriodicPositions,
    )

    rng = np.random.default_rng(seed)

    def mat(r, c, scale=8):
        return [[Fraction(int(x), scale) for x in row] for row in rng.integers(-8, 9, size=(r, c))]

    hs = tuple(Head(mat(d, d, 16), mat(d, d, 16), mat(d, d, 64), LocalPhi([Fraction(int(v), 4) for v in
                                                                            rng.integers(-4, 5, tau + 1)]))
               for _ in range(heads))
    mlp = MLP(mat(width, d), [Fraction(int(v), 8) for v in rng.integers(-8, 9, width)], mat(d, width, 32),
              ["relu"] * width)
    return LimitTransformer(tuple("abcdefgh"[:sigma]), mat(sigma + 1, d), (Layer(hs, mlp),),
                            mat(1, d), PeriodicPositions(mat(period, d)), precision="izzo", precision_bits=8)


def naive_forward(model, ids: np.ndarray) -> np.ndarray:
    """The textbook numpy forward of a one-layer model, all positions (float64, izzo precision model)."""
    from constructions.limit_transformer.rationals import to_float

    layer = model.layers[0]
    E, U = to_float(model.embedding), to_float(model.unembedding)
    n = len(ids)
    y = E[ids] + model.positions.float_vectors(np.arange(1, n + 1))
    causal = np.tril(np.ones((n, n), dtype=bool))
    bound = -model.precision_bits * math.log(2)
    Y = y.copy()
    for h in layer.heads:
        Q, K, V = to_float(h.query), to_float(h.key), to_float(h.value)
        a = (y @ Q.T) @ (y @ K.T).T
        for off, v in enumerate(h.phi.values):
            i = np.arange(off, n)
            a[i, i - off] += float(v)
        a = np.where(causal, a, -np.inf)
        e = math.log(n) * (a - a.max(axis=1, keepdims=True))
        s = np.where(e > bound, np.exp(e), 0.0)
        w = s / s.sum(axis=1, keepdims=True)
        Y = Y + w @ (y @ V.T)
    A, b, B = to_float(layer.mlp.A), to_float(layer.mlp.b), to_float(layer.mlp.B)
    Y = Y + np.maximum(Y @ A.T + b, 0.0) @ B.T
    return Y @ U.T


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--heads", type=int, default=2)
    args = ap.parse_args()
    from constructions.blas import one_blas_thread
    from constructions.limit_transformer import forward

    model = random_model(args.d, args.heads, sigma=4, period=4, tau=2, width=args.d)
    rng = np.random.default_rng(1)
    s = "".join(rng.choice(list(model.alphabet), args.n))
    ids = model.encode(s)[0]
    times = {"forward": [], "naive": []}
    load0 = os.getloadavg()[0]
    with one_blas_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a random model may meet a flush boundary; both sides decide it alike
        ours, ref = forward(model, s)[0], naive_forward(model, ids)
        for _ in range(args.repeat):
            for name, fn in (("naive", lambda: naive_forward(model, ids)), ("forward", lambda: forward(model, s))):
                w, c = time.perf_counter(), time.process_time()
                fn()
                times[name].append((time.perf_counter() - w, time.process_time() - c))
    err = float(np.max(np.abs(ours - ref)))
    best = {k: (min(t[0] for t in v), min(t[1] for t in v)) for k, v in times.items()}
    print(f"one layer, d = {args.d}, {args.heads} content heads, tau = 2, N = {args.n}, all positions; "
          f"best of {args.repeat}, one BLAS thread; load average {load0:.2f} -> {os.getloadavg()[0]:.2f}")
    print(f"  naive numpy forward:             {best['naive'][0]:.3f} s wall, {best['naive'][1]:.3f} s CPU")
    print(f"  forward(model, s) (library):     {best['forward'][0]:.3f} s wall, {best['forward'][1]:.3f} s CPU")
    print(f"  forward / naive: {best['forward'][0] / best['naive'][0]:.2f} wall, "
          f"{best['forward'][1] / best['naive'][1]:.2f} CPU (target <= 1.0); max |difference| {err:.2e}")
    assert err < 1e-9, "forward and the naive program disagree"


if __name__ == "__main__":
    main()
