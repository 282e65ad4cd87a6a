"""Theorem 4.3 of golowich2025 (Appendix C.1): every inequality of the proof on small exact instances.

An :class:`Instance` is a k-sparse planted ensemble (exact), a finite local and relative key class (weights
w(S, x) = exp(g0), a function of the shape S - min S and the tokens, 0 beyond span L_local) and a finite
value class.  :func:`proof_quantities` evaluates, for every minimiser h_hat of (3), both sides of each step:

  eq7      risk_l(h_hat) <= L delta                                   for l in [L/2, L]
  com1     P_{L-2Ll}(X_{1:L-2Ll}, S) prod mu / P_L(X, S) <= eta_L     (first change-of-measure display)
  com2     P_{L-2Ll}(..) prod_{L-2Ll < i <= L-Ll} mu / P_{L-Ll}(X, S) <= eta_L   (corrected index)
  eq8, eq9 E_{P_{L-2Ll} x mu} |g* - h_hat(X_{1:L})|, |g* - h_hat(X_{1:L-Ll})| <= eta_L L delta
  eq10     E |h_hat(X_{1:L}) - h_hat(X_{1:L-Ll})| <= 2 eta_L L delta
  hyp14    the two hypotheses of Lemma C.1 with eps = 2 eta_L L delta
  blocks   sum_i A_i / sum_i B_i = h_hat on every sequence with B_0 > 0
  eq11     E |r(Z_0) - r(prefix t0 blocks, Z_0, suffix)| <= 6 eta_L L delta (t0 + t1 + 2)
  eq13     P_Lbar(X, S) / P_{L-2Ll,t0,t1}(X, S) <= eta_Lbar   (local S, t0 with S - t0 Ll in [L - 2Ll])
  final    risk_Lbar(h_hat) <= eta_L eta_Lbar L Lbar^2 delta

delta is computed as min_h max_{L_local <= l <= Lbar} risk_l(h): a lower bound of the paper's delta (which
ranges over all l), so every check here is at least as strict as the paper's.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from constructions.golowich.assumptions import INF, coverage_eta_of
from constructions.golowich.model import Planted, attention, random_shift_Q, sets_k, span


@dataclass
class Instance:
    ens: Planted
    Lloc: int
    L: int
    Lbar: int
    keys: dict          # name -> table {(shape, tokens): weight}; shape = tuple(S - min S)
    vals: dict          # name -> table {tokens: label}
    cache: dict = field(default_factory=dict)

    def w(self, name):
        tab = self.keys[name]

        def W(S, xs):
            if span(S) > self.Lloc:
                return 0
            return tab.get((tuple(i - S[0] for i in S), xs), 0)
        return W

    def h(self, key, val):
        """h_{g0,g1} as a cached function of the token tuple."""
        ck = (key, val)
        if ck not in self.cache:
            W, tab, k, Lloc = self.w(key), self.vals[val], self.ens.k, self.Lloc
            self.cache[ck] = lru_cache(maxsize=None)(
                lambda x: attention(W, lambda xs: tab[xs], x, k, local=Lloc))  # W = 0 beyond span Lloc
        return self.cache[ck]


def lengths(inst):
    return range(max(inst.Lloc, inst.ens.k), inst.Lbar + 1)


def mixed(ens: Planted, ell: int, pre: int, post: int):
    """(X, S*, p) for (X_{1:ell}, S*) ~ P_ell with pre background tokens prepended, post appended."""
    bg = [(t, p) for t, p in ens.mu.items() if p]
    for x, S, p in ens.joint(ell):
        for left in itertools.product(bg, repeat=pre):
            for right in itertools.product(bg, repeat=post):
                q = p
                for _, pt in left + right:
                    q *= pt
                yield (tuple(t for t, _ in left) + x + tuple(t for t, _ in right), tuple(i + pre for i in S), q)


def proof_quantities(inst: Instance) -> dict:
    """All steps' (lhs, rhs) for every minimiser; returns {'delta', 'eta', 'minimisers', 'steps': {...}}."""
    ens, Ll, L, Lbar, k = inst.ens, inst.Lloc, inst.L, inst.Lbar, inst.ens.k
    H = [(a, b) for a in inst.keys for b in inst.vals]
    risks = {hb: {ell: ens.risk(inst.h(*hb), ell) for ell in lengths(inst)} for hb in H}
    delta = min(max(r.values()) for r in risks.values())
    train = range(math.ceil(L / 2), L + 1)
    obj = {hb: sum(risks[hb][ell] for ell in train) for hb in H}
    best = min(obj.values())
    mins = [hb for hb in H if obj[hb] == best]
    eta = {ell: coverage_eta_of(ens.Q, k, Ll, ell)[0] for ell in (L - Ll, L, Lbar)}
    etaL, etaLb = eta[L], eta[Lbar]
    steps: dict = {}

    def put(name, lhs, rhs):
        steps.setdefault(name, []).append((lhs, rhs))

    # change of measure (independent of h_hat)
    PL = {(x, S): p for x, S, p in ens.joint(L)}
    PL1 = {(x, S): p for x, S, p in ens.joint(L - Ll)}
    for x, S, p in mixed(ens, L - 2 * Ll, 0, 2 * Ll):
        den = PL.get((x, S), 0)
        put("com1", INF if not den else p / den, etaL)
    for x, S, p in mixed(ens, L - 2 * Ll, 0, Ll):
        den = PL1.get((x, S), 0)
        put("com2", INF if not den else p / den, etaL)                 # as printed: eta_L
        put("com2fix", INF if not den else p / den, eta[L - Ll])       # what (ii) at l = L - Ll gives
    N = (Lbar - L) // Ll
    for h in mins:
        f = inst.h(*h)
        for ell in train:
            put("eq7", risks[h][ell], L * delta)
        e8 = e9 = e10 = h01 = Fraction(0)
        for x, S, p in mixed(ens, L - 2 * Ll, 0, 2 * Ll):
            y = ens.gstar(tuple(x[i - 1] for i in S))
            a, b, c = f(x), f(x[:L - Ll]), f(x[:L - 2 * Ll])
            e8 += p * abs(y - a)
            e9 += p * abs(y - b)
            e10 += p * abs(a - b)
            h01 += p * abs(c - b)
        put("eq8", e8, etaL * L * delta)
        put("eq9", e9, etaL * L * delta)
        put("eq10", e10, 2 * etaL * L * delta)
        put("hyp14a", h01, 2 * etaL * L * delta)
        put("hyp14b", e10, 2 * etaL * L * delta)
        # (11): prefix t0 blocks and suffix so that the total length is L + Ll (t0 + t1)
        for t0 in range(0, N + 3):  # t0 >= 0, t1 = N - t0 >= -2
            t1 = N - t0
            tot = Fraction(0)
            for x, _S, p in mixed(ens, L - 2 * Ll, t0 * Ll, (t1 + 2) * Ll):
                c = f(x[t0 * Ll: t0 * Ll + L - 2 * Ll])
                tot += p * abs(c - f(x))
            put("eq11", tot, 6 * etaL * L * delta * (t0 + t1 + 2))
        test = risks[h][Lbar] if Lbar in risks[h] else ens.risk(f, Lbar)
        put("final", test, etaL * etaLb * L * Lbar**2 * delta)
    # (13): for local S* at Lbar, some t0 with S - t0 Ll in Sets_k([L - 2 Ll]) and the density ratio <= eta_Lbar
    PLb = {(x, S): p for x, S, p in ens.joint(Lbar)}
    shifted = {}
    for t0 in range(0, N + 3):
        for x, S, p in mixed(ens, L - 2 * Ll, t0 * Ll, (N - t0 + 2) * Ll):
            shifted[(t0, x, S)] = p
    for (x, S), p in PLb.items():
        if span(S) > Ll:
            continue
        ok = [t0 for t0 in range(N + 3) if min(S) - t0 * Ll >= 1 and max(S) - t0 * Ll <= L - 2 * Ll]
        if not ok:
            put("eq13", INF, etaLb)
            continue
        put("eq13", min(p / shifted[(t0, x, S)] if shifted.get((t0, x, S)) else INF for t0 in ok), etaLb)
    return {"delta": delta, "eta": eta, "minimisers": mins, "steps": steps, "risks": risks}


def violations(q: dict) -> dict:
    """Steps with some lhs > rhs (name -> worst (lhs, rhs))."""
    out = {}
    for name, pairs in q["steps"].items():
        bad = [(a, b) for a, b in pairs if a > b]
        if bad:
            out[name] = max(bad, key=lambda ab: (ab[0] == INF, ab[0] - ab[1] if ab[0] != INF else 0))
    return out


def blocks_check(inst: Instance, key: str, val: str, seqs) -> bool:
    """Step 'blocks': sum A_i / sum B_i over blocks equals h (B_0 > 0), A_i depends on (Z_i, tail of Z_{i-1})."""
    Ll, L, k = inst.Lloc, inst.L, inst.ens.k
    W, tab = inst.w(key), inst.vals[val]
    for x in seqs:
        n0 = L - 2 * Ll
        A, B = [], []
        ends = [n0] + list(range(n0 + Ll, len(x) + 1, Ll))
        prev = 0
        for e in ends:
            a = b = Fraction(0)
            for S in sets_k(e, k):
                if max(S) > prev:
                    ws = W(S, tuple(x[i - 1] for i in S))
                    a += ws * tab[tuple(x[i - 1] for i in S)]
                    b += ws
            A.append(a)
            B.append(b)
            prev = e
        if B[0] == 0:
            continue
        if sum(A) / sum(B) != inst.h(key, val)(x):
            return False
        # the same block function f: A_i for i >= 1 depends only on the block and the previous Ll tokens
        for i in range(1, len(ends)):
            lo = ends[i - 1]
            window = x[lo - Ll: ends[i]]
            a = Fraction(0)
            for S in sets_k(len(window), k):
                if max(S) > Ll:
                    ws = W(S, tuple(window[j - 1] for j in S))
                    a += ws * tab[tuple(window[j - 1] for j in S)]
            if a != A[i]:
                return False
    return True


# ----------------------------------------------------------------------------------------------- instances


def marker_instance(p_missing=Fraction(1, 10), L=8, Lbar=10, Lloc=2):
    """k = 2, V = {0, 1, 2}; mu uniform on {0, 1}; planted (m, b) with m = 2 (marker) w.p. 1 - p_missing,
    else m = 0; b uniform; g*(m, b) = b.  Adjacent planted pairs, random shift of {1, 2}.
    Keys: 'marker' (adjacent, first token 2), 'marker+noise' (also weight 1/100 on adjacent (0, 0)).
    Values: 'second' (b), 'first01' (1 if first token is 1)."""
    mu = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    Q = random_shift_Q({(1, 2): Fraction(1)}, Lloc)
    Qvoc = {(2, 0): (1 - p_missing) / 2, (2, 1): (1 - p_missing) / 2, (0, 0): p_missing / 2, (0, 1): p_missing / 2}
    ens = Planted(2, mu, Q, {z: q for z, q in Qvoc.items() if q}, lambda z: Fraction(z[1]))
    toks = (0, 1, 2)
    keys = {"marker": {((0, 1), (2, b)): Fraction(1) for b in toks},
            "marker+noise": {((0, 1), (2, b)): Fraction(1) for b in toks} | {((0, 1), (0, 0)): Fraction(1, 100)}}
    vals = {"second": {xs: Fraction(xs[1] % 2) for xs in itertools.product(toks, repeat=2)},
            "first01": {xs: Fraction(int(xs[0] == 1)) for xs in itertools.product(toks, repeat=2)}}
    return Instance(ens, Lloc, L, Lbar, keys, vals)


def edge_instance(q4: Fraction, q3: Fraction) -> Instance:
    """An instance on which (7), (8) and (10) are nearly tight: each fails without its factor L, eta_L or 2.

    k = 2, L_local = 1, L = Lbar = 4; background token 0 (mu = delta_0), planted pair (1, 2) with
    g* = 1/2; Q_2 = {1, 2}, Q_3 = {1, 2} w.p. q3 else {2, 3}, Q_4 = {1, 2} w.p. q4 else {2, 3}.  One
    key 'edge' (adjacent pairs, weights (0,1): 97, (1,2): 1, (2,0): 2, (0,0): 6) and two value tables:
    'edge' (0 on (2, 0), 1 on (0, 0), else 1/2) and 'const' (17/30, risk 1/15 at every length).

    h_{edge,edge} is (nearly) right away from the left edge ((1, 2), (0, 1, 2): 1/2; (0, 1, 2, 0): 49/100),
    but reads (1, 2, 0) as 1/6 and (1, 2, 0, 0) as 13/18: its error sits on the set {1, 2} that the change
    of measure of (8)-(10) favours, in opposite directions at lengths 3 and 4.
    * q4, q3 = 1/2, 1/4 (eta_3 = 4 > eta_4 = 2): h_{edge,edge} is the minimiser (training sum 359/1800 <
      3/15) though delta = 1/15 comes from 'const'; risk_4 = 209/1800 > delta (7 needs more than delta),
      (8)'s side is 2/9 > eta_4 delta, and (10)'s side is 5/9 > eta_4 L delta.  The factor 2 of (10) can
      only matter here: e10 <= eta_L risk_L + eta_{L-Lloc} risk_{L-Lloc} and the two risks sum to at most
      (floor(L/2) + 1) delta, so without eta_{L-Lloc} > eta_L (the refuted second change-of-measure
      display, com2) the bound holds without the 2.
    * q4, q3 = 1/8, 1/8 (eta_4 = 8): h_{edge,edge} is minimiser and realiser (delta = 1/24) and (8)'s side
      is 2/9 > L delta: the factor eta_L is needed.
    """
    def Q(ell):
        return {2: {(1, 2): Fraction(1)}, 3: {(1, 2): q3, (2, 3): 1 - q3}, 4: {(1, 2): q4, (2, 3): 1 - q4}}.get(ell, {})

    ens = Planted(2, {0: Fraction(1)}, Q, {(1, 2): Fraction(1)}, lambda z: Fraction(1, 2))
    pairs = list(itertools.product((0, 1, 2), repeat=2))
    weights = {(0, 1): Fraction(97), (1, 2): Fraction(1), (2, 0): Fraction(2), (0, 0): Fraction(6)}
    edge = {(2, 0): Fraction(0), (0, 0): Fraction(1)}
    keys = {"edge": {((0, 1), xs): w for xs, w in weights.items()}}
    vals = {"edge": {xs: edge.get(xs, Fraction(1, 2)) for xs in pairs},
            "const": {xs: Fraction(17, 30) for xs in pairs}}
    return Instance(ens, 1, 4, 4, keys, vals)


def random_k1_instance(rng, L=4, Lbar=6):
    """k = 1, L_local = 1, V = {0, 1, 2}: arbitrary per-length position laws Q_l (full support, so eta is
    finite), random mu, Qvoc, g*, and random key/value tables.  Cheap enough for a bounded search."""
    def rnd_law(n):
        ws = [rng.randint(1, 6) for _ in range(n)]
        return [Fraction(w, sum(ws)) for w in ws]
    Qs = {ell: {(i + 1,): p for i, p in enumerate(rnd_law(ell))} for ell in range(1, Lbar + 1)}
    mu_p = rnd_law(2)
    mu = {0: mu_p[0], 1: mu_p[1]}
    vp = rnd_law(3)
    Qvoc = {(t,): vp[t] for t in range(3)}
    g = {t: Fraction(rng.randint(0, 2), 2) for t in range(3)}
    ens = Planted(1, mu, lambda ell, Qs=Qs: Qs.get(ell, {}), Qvoc, lambda z, g=g: g[z[0]])
    keys = {f"k{j}": {((0,), (t,)): Fraction(rng.choice((0, 1, 2, 10, 100))) for t in range(3)} for j in range(2)}
    vals = {"gstar": {(t,): g[t] for t in range(3)},
            "v1": {(t,): Fraction(rng.randint(0, 2), 2) for t in range(3)}}
    return Instance(ens, 1, L, Lbar, keys, vals)


def com2_witness():
    """The third random k = 1 instance of seed 11 (as drawn by the tests): Assumption 4.2 holds with the
    minimal eta (eta_3 = 9, eta_4 = 18/5), yet Q_2(S)/Q_3(S) = 9/2 > eta_4 for some S: the second
    change-of-measure display, bounded by eta_L in the paper, needs eta_{L - L_local}."""
    import random

    rng = random.Random(11)
    for _ in range(3):
        inst = random_k1_instance(rng)
    return inst


def search_k1(count=40, seed=0):
    """Bounded random search over k = 1 instances: which proof steps are ever violated (exact)."""
    import random

    rng = random.Random(seed)
    found: dict = {}
    for idx in range(count):
        inst = random_k1_instance(rng)
        v = violations(proof_quantities(inst))
        for name, worst in v.items():
            found.setdefault(name, (idx, worst))
    return found


def is_local_relative(W, k: int, Lloc: int, vocab, Lmax: int = 8) -> bool:
    """Assumption 3.3 for one key given by its weights W(S, x) (0 = score -inf), over S in Sets_k([Lmax]) and x in
    V^k, decided by the library's checkers (constructions.golowich.assumptions.check_local, check_relative): the
    proof's instances are held to the same definition as every witness."""
    from constructions.golowich.assumptions import check_local, check_relative
    from constructions.golowich.model import NEG_INF, KeyFunction

    key = KeyFunction("W", lambda S, x: NEG_INF if W(S, x) == 0 else Fraction(W(S, x)))
    return check_local([key], vocab, k, Lloc, Lmax).holds and check_relative([key], vocab, k, Lmax).holds


def proof_chain_bound(L, Lbar, Lloc, etaL, etaLbar, delta):
    """The bound the proof actually yields: eta_Lbar * sum over the N + 3 values of t0 of (12)'s bound
    L delta + 6 eta_L L delta (t0 + t1 + 2), with t0 + t1 = N = (Lbar - L) / Lloc."""
    N = (Lbar - L) // Lloc
    return etaLbar * (N + 3) * (L * delta + 6 * etaL * L * delta * (N + 2))


def reverse_shift_ratio(p, L, Lloc):
    """Left extension needs Q_{L-2Ll}(S) / Q_{L-Ll}(S + Ll) bounded; for Q_l = {1,2} w.p. 1 - p, else a
    uniform adjacent pair, that ratio at S = {1, 2} is returned together with eta_{L-Ll}, eta_L."""
    def Q(ell):
        out = {(s, s + 1): p / (ell - 1) for s in range(1, ell)}
        out[(1, 2)] += 1 - p
        return out
    S = (1, 2)
    r = Q(L - 2 * Lloc)[S] / Q(L - Lloc)[(1 + Lloc, 2 + Lloc)]
    return r, coverage_eta_of(Q, 2, Lloc, L - Lloc)[0], coverage_eta_of(Q, 2, Lloc, L)[0]


def literal_counterexample(L: int = 8, Lbar: int = 10, Lloc: int = 2) -> Instance:
    """Theorem 4.3 as stated is false (independent re-derivation of the counterexamples module's witness
    'thm43-literal', docs/gaps.md): Assumption 4.2 does not force the planted set
    to be local at the test length.  V = {1, 2}, mu = delta_1, Qvoc = delta_(2,2), g* = 1; Q_l uniform on
    adjacent pairs for l <= L, on adjacent pairs and {j, j + L} for l > L.  Keys: 'all' (weight 1 on every
    set of span <= L_local), '22' (weight 1 iff x = (2, 2) and span <= L_local); values 'one' = 1 and
    'ind22' = 1[x = (2, 2)].  delta = 0 (h_{all,one}), yet h_{22,ind22} also has training risk 0."""
    def Q(ell):
        if ell < 2:
            return {}
        sets = [(s, s + 1) for s in range(1, ell)]
        if ell > L:
            sets += [(j, j + L) for j in range(1, ell - L + 1)]
        return {S: Fraction(1, len(sets)) for S in sets}

    ens = Planted(2, {1: Fraction(1)}, Q, {(2, 2): Fraction(1)}, lambda z: Fraction(1))
    shapes = [(0, d) for d in range(1, Lloc + 1)]
    toks = list(itertools.product((1, 2), repeat=2))
    keys = {"all": {(sh, xs): Fraction(1) for sh in shapes for xs in toks},
            "22": {(sh, (2, 2)): Fraction(1) for sh in shapes}}
    vals = {"one": {xs: Fraction(1) for xs in toks}, "ind22": {xs: Fraction(int(xs == (2, 2))) for xs in toks}}
    return Instance(ens, Lloc, L, Lbar, keys, vals)


def eq7_universal():
    """(7) for every ensemble, class and L >= 2: the minimiser's risks sum to at most h*'s over the
    n = floor(L/2) + 1 training lengths (Definition 3.1), h*'s are <= delta each (realizability, summed by
    induction), the other risks are >= 0, and n <= L (the count step of the tests)."""
    import z3

    from verify.kernel import Proof, z3_with_control

    key = "golowich2025:thm4.3.eq7"
    k, Sstar, r, d, Sh, rj, rest, n, L = z3.Reals("k Sstar r delta Sh r_j rest n L")
    return Proof(key, "(7) for every instance", (
        z3_with_control(key, "realizability summed: sum_{l<=k} risk_l(h*) <= k delta and risk(h*) <= delta keep it",
                        [k >= 0, Sstar <= k * d, r <= d], Sstar + r <= (k + 1) * d,
                        neg_hypotheses=[k >= 0, Sstar <= k * d]),
        z3_with_control(key, "(7): sum risk(h_hat) <= sum risk(h*) <= n delta, risk_j = sum - (others >= 0), "
                        "n <= L, delta >= 0 => risk_j(h_hat) <= L delta",
                        [Sh <= Sstar, Sstar <= n * d, Sh == rj + rest, rest >= 0, n <= L, d >= 0], rj <= L * d,
                        neg_hypotheses=[Sh <= Sstar, Sstar <= n * d, Sh == rj + rest, n <= L, d >= 0]),
    ))


def eq10_universal():
    """(10) from (8) and (9) for every instance: the laws are finite (a finite vocabulary, finite lengths), so each
    expectation is a finite weighted sum and its facts are proved by induction over the support (base and step).

    1. the triangle inequality pointwise, ``|a - b| <= |g - a| + |g - b|`` (the norm's triangle inequality and
       symmetry; scalars in z3);
    2. expectations keep a pointwise inequality: partial sums with weights ``w >= 0`` (induction step; base 0 <= 0);
    3. (9)'s expectation is over X_{1:L-Lloc} only, (10)'s over X_{1:L}: a function of the first coordinates has the
       same expectation under the product with mu^{Lloc} (for each x: ``sum_y p mu(y) f = p f sum_y mu(y)`` by
       induction over y, and ``sum_y mu(y) = 1``);
    4. (8) + (9) <= eta_L L delta + eta_L L delta = 2 eta_L L delta.
    """
    import z3

    from verify.kernel import Proof, z3_with_control

    key = "golowich2025:thm4.3.eq10"
    a, b, g = z3.Reals("a b g")
    tri = z3_with_control(key, "pointwise triangle: |a - b| <= |g - a| + |g - b|", [],
                          z3.Abs(a - b) <= z3.Abs(g - a) + z3.Abs(g - b),
                          neg_goal=z3.Abs(a - b) <= z3.Abs(g - a))
    Su, Sv, Sw, w, u, v, x = z3.Reals("S_u S_v S_w w u v x")
    mono_h = [Su <= Sv + Sw, u <= v + x, w >= 0]
    mono = z3_with_control(key, "expectation keeps u <= v + x (induction step over the support, weights >= 0)",
                           mono_h, Su + w * u <= (Sv + w * v) + (Sw + w * x), neg_hypotheses=mono_h[:2])
    empty = [Su == 0, Sv == 0, Sw == 0]
    mono0 = z3_with_control(key, "expectation keeps u <= v + x (base: the empty sums)", empty, Su <= Sv + Sw,
                            neg_goal=Su < Sv + Sw)
    T, p, f, M, m = z3.Reals("T p f M mu")
    marg_h = [T == p * f * M]
    marg = z3_with_control(key, "marginal (induction step over y): sum_y p mu(y) f = p f sum_y mu(y)", marg_h,
                           T + p * m * f == p * f * (M + m), neg_goal=T + p * m * f == p * f * M)
    marg1 = z3_with_control(key, "marginal: with sum_y mu(y) = 1 the product law gives (9)'s expectation",
                            [T == p * f * M, M == 1], T == p * f, neg_hypotheses=[T == p * f * M])
    E8, E9, E10, eta, L, d = z3.Reals("E8 E9 E10 eta L delta")
    fin_h = [E10 <= E8 + E9, E8 <= eta * L * d, E9 <= eta * L * d, E8 >= 0, E9 >= 0]
    fin = z3_with_control(key, "(10): E|h_L - h_{L-Lloc}| <= (8) + (9) <= 2 eta_L L delta", fin_h,
                          E10 <= 2 * eta * L * d, neg_goal=E10 <= eta * L * d)
    return Proof(key, "(10) for every instance", (tri, mono0, mono, marg, marg1, fin))


def blocks_universal():
    """The block decomposition of the proof of Theorem 4.3 for every L, L_local, k and block index (integers, z3).

    With ``n_i = L - 2 L_local + i L_local`` (``n_0 = L - 2 L_local``), A_i and B_i sum over the k-sets S with
    ``S subset [n_i]`` and ``S not subset [n_{i-1}]``, i.e. ``n_{i-1} < max S <= n_i``:

    1. the sums telescope: ``sum_{i<=m} A_i`` is the sum over ``Sets_k([n_m])`` (induction step: the sets of
       ``[n_m]`` are those of ``[n_{m-1}]`` and those with ``max S > n_{m-1}``, disjointly), so
       ``sum A_i / sum B_i`` is h at length n_m;
    2. a set with a finite score has span ``max S - min S <= L_local`` (Item 1 of Assumption 3.3; the others add
       exp(-inf) = 0), so every element of a set of block i lies in ``(n_{i-2}, n_i]``: A_i and B_i read only Z_i and
       the last L_local coordinates of Z_{i-1};
    3. the shift ``S -> S + L_local`` maps the sets of block i one-to-one onto those of block i + 1 (and back), and
       g0 is shift-invariant (Item 2) while g1 reads only the values: the same function f for every i >= 1.
    """
    import z3

    from verify.kernel import Proof, z3_with_control

    key = "golowich2025:thm4.3.blocks"
    Sprev, Sm, Am, inprev, innew = z3.Reals("Sigma_prev Sigma_m A_m in_prev in_new")
    tele_h = [Sprev == inprev, Am == innew, Sm == inprev + innew]
    tele = z3_with_control(key, "telescoping (induction step): sum over Sets_k([n_m]) = sum over Sets_k([n_{m-1}]) "
                           "+ A_m", tele_h, Sm == Sprev + Am, neg_hypotheses=tele_h[:2])
    s, mx, mn, nprev, ni, Ll, i, L = z3.Ints("s max min n_prev n_i L_local i L")
    n = lambda j: L - 2 * Ll + j * Ll  # noqa: E731
    blk = [Ll >= 1, i >= 1, nprev == n(i - 1), ni == n(i), nprev < mx, mx <= ni, mn <= s, s <= mx, mx - mn <= Ll]
    window = z3_with_control(key, "locality: every element of a block-i set with span <= L_local lies in "
                             "(n_{i-2}, n_i]", blk, z3.And(n(i - 2) < s, s <= ni),
                             neg_hypotheses=[h for h in blk if not z3.eq(h, blk[-1])])
    fwd = z3_with_control(key, "shift: S + L_local of a block-i set is a block-(i+1) set",
                          blk[:6], z3.And(n(i) < mx + Ll, mx + Ll <= n(i + 1)), neg_goal=mx + Ll <= n(i))
    back = z3_with_control(key, "shift back: S - L_local of a block-(i+1) set is a block-i set (i >= 1)",
                           [Ll >= 1, i >= 1, n(i) < mx, mx <= n(i + 1)], z3.And(n(i - 1) < mx - Ll, mx - Ll <= n(i)),
                           neg_goal=n(i) < mx - Ll)
    return Proof(key, "the block decomposition for every L, L_local, k", (tele, window, fwd, back))
