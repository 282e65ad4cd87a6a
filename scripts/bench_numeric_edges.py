"""Numeric-edge benchmark: ``PYTHONPATH=. python scripts/bench_numeric_edges.py [--repeat R]``.

Prints, for this machine, the exact precision primitives against the former algorithms (written here as the
baseline, run on sizes they can finish), each the minimum over ``--repeat`` runs, with the machine's load:
1. ``rounded_power`` at p = 8, 12, 14, 16, 24 with a p-bit non-integer exponent: former integer root of
   ``2^(p v) n^u`` (O(2^p) Newton steps; run up to p = 12) vs the certified interval path;
2. ``exact_weights`` (huang) of 20 non-integer logits at p = 24 (target < 0.1 s);
3. ``flushes`` near the boundary: gap 1 - 2^-k at n = 2 (former ``n^u >= 2^(p v)`` up to k = 20; it exhausts
   memory at k = 41) and gaps within 10^-d of the irrational boundary at n = 3 (certified interval path).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from fractions import Fraction


def _best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def former_iroot(a: int, k: int) -> int:
    """The former iroot: Newton from 2^ceil(b/k), O(k) steps for large k."""
    if a < 2 or k == 1:
        return a
    x = 1 << -(-a.bit_length() // k)
    while True:
        y = ((k - 1) * x + a // x ** (k - 1)) // k
        if y >= x:
            break
        x = y
    while x**k > a:
        x -= 1
    while (x + 1) ** k <= a:
        x += 1
    return x


def former_rounded_power(n: int, a: Fraction, p: int) -> Fraction:
    u, v = a.numerator, a.denominator
    num, den = (2 ** (p * v)) * n**u, 1
    if u < 0:
        num, den = 2 ** (p * v), n ** (-u)
    m = former_iroot(num // den, v)
    lhs, rhs = num * 2**v, den * (2 * m + 1) ** v
    if lhs > rhs or (lhs == rhs and m % 2 == 1):
        m += 1
    return Fraction(m, 2**p)


def main() -> None:
    from constructions.limit_transformer.precision import exact_weights, flushes, rounded_power

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import constructions

    print(f"load average: {os.getloadavg()}; package: {os.path.dirname(constructions.__file__)}")
    print("1. rounded_power(7, a, p), a a non-integer p-bit rational")
    for p in (8, 12, 14, 16, 24):
        a = Fraction(2**p - 3, 2**p) + 1
        rounded_power.cache_clear()
        t_new, x_new = _best(lambda p=p, a=a: (rounded_power.cache_clear(), rounded_power(7, a, p))[1], args.repeat)
        if p <= 12:
            t_old, x_old = _best(lambda p=p, a=a: former_rounded_power(7, a, p), 1)
            assert x_old == x_new, (p, x_old, x_new)
            print(f"   p = {p:2d}: former {t_old:9.4f} s   new {t_new:.5f} s   ratio {t_old / t_new:9.0f}x   (equal)")
        else:
            print(f"   p = {p:2d}: former    (skipped: 62 s at p = 14, > 300 s at p = 16)   new {t_new:.5f} s")
    rng = random.Random(1)
    logits = [Fraction(rng.randint(-10**9, 10**9), 3 * 10**8 + 7) for _ in range(20)]

    def weights():
        rounded_power.cache_clear()
        return exact_weights(logits, 1000, 24, "huang")

    t, w = _best(weights, args.repeat)
    print(f"2. exact_weights, 20 non-integer logits, n = 1000, p = 24: {t:.4f} s (target < 0.1 s), sum {sum(w)}")
    print("3a. flushes(1 - 2^-k, n = 2, p = 1) (exact integer comparison of exponents)")
    for k in (16, 20, 41, 200):
        gap = 1 - Fraction(1, 2**k)
        t_new, got = _best(lambda gap=gap: flushes(gap, 2, 1), args.repeat)
        if k <= 20:
            u, v = gap.numerator, gap.denominator
            t_old, want = _best(lambda u=u, v=v: 2**u >= 2**v, 1)
            assert want == got
            print(f"   k = {k:3d}: former {t_old:8.4f} s   new {t_new:.6f} s   ratio {t_old / t_new:10.0f}x")
        else:
            print(f"   k = {k:3d}: former (2^(2^k): unbounded memory)   new {t_new:.6f} s")
    print("3b. flushes(gap, n = 3, p = 1) with gap within 10^-d of the irrational boundary log_3 2 (certified path)")
    import mpmath

    mpmath.mp.dps = 400
    boundary = mpmath.log(2) / mpmath.log(3)
    for d in (12, 40, 100, 300):
        gap = Fraction(int(mpmath.floor(boundary * 10**d)), 10**d)
        t_new, got = _best(lambda gap=gap: flushes(gap, 3, 1), args.repeat)
        assert got is False
        print(f"   d = {d:3d}: former (3^(10^d): infeasible)   new {t_new:.6f} s")


if __name__ == "__main__":
    main()
