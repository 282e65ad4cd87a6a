"""Lemmas C.1 and C.2 of golowich2025 (Appendix C.1), by exact computation.

Lemma C.2 (ratio sums): b > 0, p_i > 0, ||a/b - (a+q_i)/(b+p_i)|| = eps_i  =>
||a/b - (a + sum q_i)/(b + sum p_i)|| <= sum eps_i.  Holds (z3 proof for d = 1, exact random instances
for d <= 3 in l1 / l_inf); p_i >= 0 suffices; it FAILS without positivity (the letter of Lemma C.1 lets
g, g_0 take any real value).  :func:`c2_universal` proves it for every dimension, every norm and every
number of terms: (a + Q)/(b + P) - a/b = sum_i w_i D_i with D_i = (a + q_i)/(b + p_i) - a/b and weights
w_i = (b + p_i)/(b + P) in (0, 1] (sympy identities per coordinate, the sum by induction on the number of
terms), then the norm's triangle inequality and homogeneity by induction (z3).

Lemma C.1 (hybrid argument): Z_0, Z_1, ... independent, Z_1, Z_2, ... i.i.d.; A_i = f(Z_i, Z_{i-1}),
B_i = g(Z_i, Z_{i-1}) (i >= 1), A_0 = f_0(Z_1, Z_0), B_0 = g_0(Z_1, Z_0); r_{0..i} = sum A / sum B.
Claim: E|r_0 - r_01| <= eps and E|r_01 - r_012| <= eps  =>  E|r_0 - r_{0..i}| <= 3 i eps.
REFUTED by :func:`c1_witness` (positive weights, d = 1, |Omega| = 3, i = 3): the proof's step
E|r_01 - r_{01i}| <= 3 eps fails because A_i = f(Z_i, Z_{i-1}) with Z_{i-1} independent of Z_1 is not
covered by the two hypotheses (which only see pairs adjacent to Z_1).
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

# ----------------------------------------------------------------------------------------------- Lemma C.2


def c2_universal():
    """Lemma C.2 for every dimension, norm and number of terms (see the module docstring)."""
    import sympy
    import z3

    from verify.kernel import Proof, sympy_with_control, z3_with_control

    key = "golowich2025:lem-c2"
    a, b, q, p, P, Q = sympy.symbols("a b q p P Q")  # one coordinate of a, q_i; P, Q the sums so far
    w = (b + p) / (b + P)
    D = (a + q) / (b + p) - a / b
    N, N1, wz, e, Sw, S, bz, pz, Pz, rest = z3.Reals("N N1 w eps Sw S b p P rest")
    return Proof(key, "Lemma C.2 for every dimension, norm and number of terms", (
        sympy_with_control(key, "term: w_i D_i = (b q_i - a p_i)/(b (b + P)) with w_i = (b + p_i)/(b + P)",
                           w * D, (b * q - a * p) / (b * (b + P)), neg_rhs=(b * q - a * p) / (b * (b + p))),
        sympy_with_control(key, "whole: (a + Q)/(b + P) - a/b = (b Q - a P)/(b (b + P))", (a + Q) / (b + P) - a / b,
                           (b * Q - a * P) / (b * (b + P)), neg_rhs=(b * Q - a * P) / (b * b)),
        sympy_with_control(key, "induction on the terms: (b Q - a P) + (b q - a p) = b (Q + q) - a (P + p)",
                           (b * Q - a * P) + (b * q - a * p), b * (Q + q) - a * (P + p),
                           neg_rhs=b * (Q + q) - a * P),
        z3_with_control(key, "weights: b > 0, p_i >= 0, P = p_i + (others >= 0) => 0 < w_i <= 1",
                        [bz > 0, pz >= 0, rest >= 0, Pz == pz + rest], z3.And(0 < (bz + pz) / (bz + Pz),
                                                                           (bz + pz) / (bz + Pz) <= 1),
                        neg_hypotheses=[bz > 0, pz >= 0, Pz == pz + rest]),
        z3_with_control(key, "norm step (triangle inequality, homogeneity for w >= 0): ||x|| <= S_k, ||D|| = eps "
                        "=> ||x + w D|| <= S_k + w eps", [N <= S, wz >= 0, N1 <= N + wz * e], N1 <= S + wz * e,
                        neg_hypotheses=[N <= S, wz >= 0]),
        z3_with_control(key, "sum step: sum_{i<=k} w_i eps_i <= sum_{i<=k} eps_i and w <= 1, eps >= 0 keep it",
                        [Sw <= S, wz <= 1, e >= 0], Sw + wz * e <= S + e, neg_hypotheses=[Sw <= S, e >= 0]),
    ))



def norm(v, kind: str = "l1") -> Fraction:
    return sum(abs(x) for x in v) if kind == "l1" else max(abs(x) for x in v)


def ratio(a, b):
    return tuple(Fraction(x) / b for x in a)


def sub(u, v):
    return tuple(x - y for x, y in zip(u, v, strict=True))


def add(u, v):
    return tuple(x + y for x, y in zip(u, v, strict=True))


def c2_sides(a, b, qs, ps, kind="l1"):
    """(lhs, sum eps_i) of Lemma C.2 for vectors a, q_i and scalars b, p_i (exact)."""
    base = ratio(a, b)
    eps = [norm(sub(base, ratio(add(a, q), b + p)), kind) for q, p in zip(qs, ps, strict=True)]
    tot_q = a
    for q in qs:
        tot_q = add(tot_q, q)
    lhs = norm(sub(base, ratio(tot_q, b + sum(ps))), kind)
    return lhs, sum(eps, Fraction(0))


def c2_instances(count=300, seed=0, allow_zero_p=True, negative_p=False):
    """Random exact instances (d in 1..3, L in 1..5, entries in [-10, 10], b in (0, 10], p_i in [0, 10])."""
    rng = random.Random(seed)

    def fr(lo, hi):
        return Fraction(rng.randint(lo * 8, hi * 8), 8)

    for _ in range(count):
        d, L = rng.randint(1, 3), rng.randint(1, 5)
        a = tuple(fr(-10, 10) for _ in range(d))
        b = Fraction(rng.randint(1, 80), 8)
        qs = [tuple(fr(-10, 10) for _ in range(d)) for _ in range(L)]
        if negative_p:
            ps = [-b / 2 - Fraction(rng.randint(1, 8), 8) * b / 4 for _ in range(L)]
            ps[0] = Fraction(rng.randint(1, 80), 8)  # keep b + sum p away from 0 in most draws
        else:
            ps = [fr(0, 10) if allow_zero_p else Fraction(rng.randint(1, 80), 8) for _ in range(L)]
        if b + sum(ps) == 0 or any(b + p == 0 for p in ps):
            continue
        yield a, b, qs, ps, rng.choice(("l1", "linf"))


def c2_negative_witness():
    """p_1 = -9/10 < 0 (b + p_1 > 0): eps_1 = 0, eps_2 = 1/10, combined = 1.  d = 1, l1."""
    a, b = (Fraction(0),), Fraction(1)
    qs = [(Fraction(0),), (Fraction(1, 10),)]
    ps = [Fraction(-9, 10), Fraction(0)]
    return a, b, qs, ps, "l1"


# ----------------------------------------------------------------------------------------------- Lemma C.1


def c1_quantities(law0: dict, law: dict, f0, g0, f, g, i: int):
    """Exact E over Z_0 ~ law0, Z_1..Z_i iid ~ law of the Lemma C.1 quantities (d = 1, |.| norm).

    Returns dict with eps1 = E|r0 - r01|, eps2 = E|r01 - r012|, lhs = E|r0 - r_{0..i}|,
    hybrid = E|r01 - r_{0,1,i}| (the proof's intermediate claim, i >= 3; A_i = f(Z_i, Z_{i-1})).
    """
    out = {"eps1": Fraction(0), "eps2": Fraction(0), "lhs": Fraction(0), "hybrid": Fraction(0)}
    m = max(i, 2)
    for z0, p0 in law0.items():
        for zs in itertools.product(list(law.items()), repeat=m):
            p = p0
            for _, pz in zs:
                p *= pz
            if not p:
                continue
            Z = [z0] + [z for z, _ in zs]
            A = [Fraction(f0(Z[1], Z[0]))] + [Fraction(f(Z[j], Z[j - 1])) for j in range(1, m + 1)]
            B = [Fraction(g0(Z[1], Z[0]))] + [Fraction(g(Z[j], Z[j - 1])) for j in range(1, m + 1)]

            def r(idx, A=A, B=B):
                return sum(A[j] for j in idx) / sum(B[j] for j in idx)

            out["eps1"] += p * abs(r([0]) - r([0, 1]))
            out["eps2"] += p * abs(r([0, 1]) - r([0, 1, 2]))
            out["lhs"] += p * abs(r([0]) - r(range(i + 1)))
            if i >= 3:
                out["hybrid"] += p * abs(r([0, 1]) - r([0, 1, i]))
    out["eps"] = max(out["eps1"], out["eps2"])
    return out


def c1_witness(M: int = 100):
    """Counterexample to Lemma C.1 (positive weights).  Omega = {x, y, z}; Z_0 = z a.s.; Z_i ~ Unif{x, y}.

    A_0 = 0, B_0 = 1 (so r_0 = 0).  Next to Z_0: f(., z) = 0, g(x, z) = 1, g(y, z) = M (a y right after
    Z_0 carries a huge weight with value 0 and masks what follows).  Elsewhere f(y, y) = g(y, y) = 1 (the
    'deviant' pair, value 1) and f = 0, g = 1 on the other pairs.  Then eps1 = 0, eps2 = 1/(4(M+2)),
    but on Z_1 = x, Z_2 = Z_3 = y: r_{0123} = 1/4 (probability 1/8), so E|r_0 - r_{0123}| >= 1/32.
    """
    law0 = {"z": Fraction(1)}
    law = {"x": Fraction(1, 2), "y": Fraction(1, 2)}

    def f0(z1, z0):
        return 0

    def g0(z1, z0):
        return 1

    def f(cur, prev):
        return 1 if (cur, prev) == ("y", "y") else 0

    def g(cur, prev):
        return M if (cur, prev) == ("y", "z") else 1

    return law0, law, f0, g0, f, g


def c1_random_instances(count=200, seed=1, omega=3, weights=(1, 2, 5, 20)):
    """Random positive-weight instances of Lemma C.1 (for the bounded search)."""
    rng = random.Random(seed)
    pts = list(range(omega))
    for _ in range(count):
        law0 = {0: Fraction(1)} if rng.random() < 0.5 else {z: Fraction(1, omega) for z in pts}
        probs = [rng.randint(1, 4) for _ in pts]
        law = {z: Fraction(p, sum(probs)) for z, p in zip(pts, probs, strict=True)}
        F = {(a, b): rng.choice((0, 1)) for a in pts for b in pts}
        G = {(a, b): rng.choice(weights) for a in pts for b in pts}
        F0, G0 = rng.choice((0, 1)), rng.choice(weights)
        yield (law0, law, (lambda z1, z0, F0=F0: F0), (lambda z1, z0, G0=G0: G0),
               (lambda c, p, F=F, G=G: F[(c, p)] * G[(c, p)]), (lambda c, p, G=G: G[(c, p)]))


def c1_search(count=200, seed=1, i=3):
    """Bounded search: instances where E|r_0 - r_{0..i}| > 3 i eps (returns the worst ratio and instance)."""
    worst = (Fraction(0), None)
    for idx, inst in enumerate(c1_random_instances(count, seed)):
        q = c1_quantities(*inst, i)
        if q["eps"] == 0:
            if q["lhs"] > 0:
                return (float("inf"), idx)
            continue
        rho = q["lhs"] / (3 * i * q["eps"])
        if rho > worst[0]:
            worst = (rho, idx)
    return worst
