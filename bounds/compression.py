"""The auxiliary input of the corrected bound's proof (bounds/corrected.py), built and checked exactly.

Given a pair (f, g) of one-layer models and a long input x by its (token, residue) class counts outside the
window (``$`` included, class 0) and its window, :func:`compress` builds the z of the proof in
:mod:`bounds.corrected`: the non-trivial argmax sets of every head and their intervals ``[max(1, theta T_h), T_h]``,
the components, the map F_s (:class:`Compressor`), the counts (``ceil(F(n_c))``, free classes, the padded classes of
residues without a free class rounded by largest remainders), the length (the smallest one of x's residue class mod
Delta that holds every residue's need) and, when z would be below the hardmax threshold H, the stretch s found by
exact bisection.  Every inequality of the proof is returned as a :class:`~bounds.auxiliary.Claim` with exact rational
sides, so a test (``verify/tests/izzo2025/test_compression.py``) can check them on random pairs and inputs with
counts far beyond anything a string evaluation reaches; Lemma M (:mod:`bounds.modulus`) is checked on the same
inputs with the actual distances of every head.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from bounds.auxiliary import (
    Claim,
    ClassModel,
    NotApplicableError,
    attend,
    hardmax_output,
    in_hardmax,
    pair_period,
    require,
)
from bounds.corrected import ProofConstants, corrected_bound
from bounds.margin import combine, ingredients
from bounds.true_threshold import positions_per_residue

_BISECTION_STEPS = 10_000


@dataclass
class Compression:
    constants: ProofConstants
    N: int  # the bound's N (materialized)
    H: int  # the hardmax threshold
    stretch: Fraction  # s (1 unless z had to be stretched to reach H)
    counts: dict  # z's class counts outside the window ($ included)
    window: tuple
    claims: list = field(default_factory=list)

    @property
    def length(self) -> int:
        return sum(self.counts.values()) + len(self.window)

    def failed(self) -> list:
        return [c for c in self.claims if not c.holds]


# --------------------------------------------------------------------------------------------- the map F
def components(intervals: list[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
    """The connected components of a union of closed intervals, in increasing order."""
    out: list[list[Fraction]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


@dataclass(frozen=True)
class Compressor:
    """F_s of the proof with ``L = lambda s``: ``F(a_i) = max(F(b_{i-1}), min(a_i, L))``, ratio-preserving on every
    component, ``min(F(b_{i-1}) v / b_{i-1}, F(a_i))`` between components and ``max(F(b_m), min(v, L))`` above the
    last one."""

    comps: tuple  # ((a_i, b_i), ...)
    starts: tuple  # F(a_i)
    cap: Fraction  # L = lambda s

    @classmethod
    def build(cls, comps, L: Fraction) -> Compressor:
        starts, prev_F = [], Fraction(1)  # F(b_0) = F(1) = 1
        for a, b in comps:
            Fa = max(prev_F, min(a, L))
            starts.append(Fa)
            prev_F = Fa * b / a
        return cls(tuple(comps), tuple(starts), Fraction(L))

    def divisor(self, i: int) -> Fraction:
        return self.comps[i][0] / self.starts[i]

    def component_of(self, v: Fraction) -> int | None:
        return next((i for i, (a, b) in enumerate(self.comps) if a <= v <= b), None)

    def __call__(self, v) -> Fraction:
        v = Fraction(v)
        prev_b, prev_F = Fraction(1), Fraction(1)
        for (a, b), Fa in zip(self.comps, self.starts, strict=True):
            if v < a:
                return min(prev_F * v / prev_b, Fa)
            if v <= b:
                return Fa * v / a
            prev_b, prev_F = b, Fa * b / a
        return max(prev_F, min(v, self.cap))  # above b_m: classes no non-trivial set holds


# ------------------------------------------------------------------------------------------ construction
def _ceil(x: Fraction) -> int:
    return -(-x.numerator // x.denominator)


@dataclass(frozen=True)
class ArgmaxSet:
    classes: frozenset  # prefix classes ($ = 0 included when attended)
    slots: tuple  # attended window slots

    @property
    def variable(self) -> frozenset:
        return self.classes - {0}

    @property
    def nontrivial(self) -> bool:
        """Holds a count-carrying class and at least one more item."""
        return bool(self.variable) and len(self.classes) + len(self.slots) >= 2

    def total(self, counts: dict) -> int:
        return sum(counts[c] for c in self.classes) + len(self.slots)

    def distribution(self, counts: dict) -> dict:
        T = self.total(counts)
        out = {("c", c): Fraction(counts[c], T) for c in self.classes}
        out.update({("w", s): Fraction(1, T) for s in self.slots})
        return out


def _l1(p: dict, q: dict) -> Fraction:
    return sum((abs(p.get(k, 0) - q.get(k, 0)) for k in p.keys() | q.keys()), Fraction(0))


def head_sets(cms, counts: dict, window: tuple) -> list[list[ArgmaxSet]]:
    """Per model, per head, its argmax set on the input."""
    return [[ArgmaxSet(a.classes, a.slots) for a in (attend(cm, counts, window, h) for h in range(len(cm.heads)))]
            for cm in cms]


@dataclass
class _Build:
    """One z for a given stretch s: the map, the scaled values, the padding and the counts."""

    F: Compressor
    v: dict  # class -> F(n_c)
    padded: dict  # residue -> padded classes
    W: dict  # residue -> W_r
    need: list
    t: list  # prefix positions of z per residue
    counts: dict
    rho: dict  # residue -> rho_r


def _residue(c: int, delta: int) -> int:
    return c % delta


def _build(x: dict, sets: list[ArgmaxSet], pc: ProofConstants, delta: int, w: int, s: Fraction) -> _Build:
    comps = components([(max(Fraction(1), pc.theta * st.total(x)), Fraction(st.total(x))) for st in sets])
    F = Compressor.build(comps, pc.lam * s)
    a_m = comps[-1][0] if comps else Fraction(1)
    present = [c for c in x if c != 0]
    held = {c for st in sets for c in st.variable}
    v = {c: F(x[c]) for c in present}
    by_res = {r: [c for c in present if _residue(c, delta) == r] for r in range(delta)}
    padded, W, need = {}, {}, []
    for r in range(delta):
        cls = by_res[r]
        has_free = any(c not in held for c in cls)
        padded[r] = [] if has_free else [c for c in cls if x[c] >= a_m]
        W[r] = sum((v[c] for c in padded[r]), Fraction(0))
        need.append(sum(_ceil(v[c]) for c in cls if c not in padded[r]) + W[r])
    M_x = sum(x.values())  # positions 1..M_x hold $ and the prefix
    per_x = positions_per_residue(M_x, delta)
    j = min(per_x[r] - _ceil(Fraction(need[r])) for r in range(delta))
    M_z = M_x - j * delta
    t = positions_per_residue(M_z, delta)
    counts, rho = {0: 1}, {}
    for r in range(delta):
        cls = by_res[r]
        unpadded = [c for c in cls if c not in padded[r]]
        for c in unpadded:
            counts[c] = _ceil(v[c])
        if not padded[r]:
            free = [c for c in cls if c not in held]
            if free:
                star = max(free, key=lambda c: (x[c], -c))
                counts[star] += t[r] - sum(counts[c] for c in cls)
            continue
        E = t[r] - sum(counts[c] for c in unpadded)
        rho[r] = Fraction(E) / W[r] - 1
        target = {c: v[c] * E / W[r] for c in padded[r]}
        floors = {c: math.floor(target[c]) for c in padded[r]}
        extra = E - sum(floors.values())
        order = sorted(padded[r], key=lambda c: (-(target[c] - floors[c]), c))
        for i, c in enumerate(order):
            counts[c] = floors[c] + (1 if i < extra else 0)
    return _Build(F, v, padded, W, need, t, counts, rho)


def _phi(x: dict, F: Compressor, delta: int) -> Fraction:
    """Phi = max over residues of sum_c F(n_c) (the classes of that residue)."""
    sums = [Fraction(0)] * delta
    for c, k in x.items():
        if c != 0:
            sums[c % delta] += F(k)
    return max(sums)


def _stretch(x: dict, sets, pc: ProofConstants, delta: int, target: Fraction) -> Fraction:
    """An s >= 1 with target <= Phi(s) <= target + 1/2 (exact bisection; Phi(1) < target, Phi = max_r S_r(x) >=
    target once lambda s exceeds every count, and Phi(s) <= Phi(s') <= (s'/s) Phi(s) for s <= s' (module docstring of
    bounds.corrected, the stretch), so the bisection stops once hi/lo <= 1 + 1/(2 target))."""
    comps = components([(max(Fraction(1), pc.theta * st.total(x)), Fraction(st.total(x))) for st in sets])

    def phi(s):
        return _phi(x, Compressor.build(comps, pc.lam * s), delta)

    lo, hi = Fraction(1), Fraction(max(x.values())) / pc.lam + 1
    if phi(hi) < target:
        raise NotApplicableError("x is too short to stretch z to the hardmax threshold: the theorem needs no z")
    for _ in range(_BISECTION_STEPS):
        if phi(hi) <= target + Fraction(1, 2):
            return hi
        mid = (lo + hi) / 2
        if phi(mid) >= target:
            hi = mid
        else:
            lo = mid
    raise NotApplicableError("the stretch bisection did not converge")  # pragma: no cover - Phi(hi) <= (hi/lo) Phi(lo)


def _trivial_z(x: dict, delta: int, w: int, H: int) -> dict:
    """eta >= 2: every present class once, each residue padded at its most frequent class to a common length of x's
    residue class mod Delta, lengthened by Delta until |z| >= H."""
    present = [c for c in x if c != 0]
    by_res = {r: [c for c in present if c % delta == r] for r in range(delta)}
    M_x = sum(x.values())
    per_x = positions_per_residue(M_x, delta)
    j = min(per_x[r] - len(by_res[r]) for r in range(delta))
    M_z = M_x - j * delta
    if M_z + w < H:
        M_z += -(-(H - w - M_z) // delta) * delta
    t = positions_per_residue(M_z, delta)
    counts = {0: 1, **{c: 1 for c in present}}
    for r in range(delta):
        star = max(by_res[r], key=lambda c: (x[c], -c))
        counts[star] += t[r] - len(by_res[r])
    return counts


def exact_bound(f, g, eps) -> tuple[int, int, ProofConstants]:
    """(N, H, constants) of the corrected bound for the pair as exact integers (N_1 and H materialized: H up to
    2^65536, where the log-domain form of the estimate is not needed)."""
    from constructions.limit_transformer.hardmax import HardmaxError, ceil_pow2

    ing = combine(ingredients(f, mode="exact"), ingredients(g, mode="exact"))
    bound = corrected_bound(ing, eps)
    pc = bound.constants
    try:
        H = bound.hardmax.exact if bound.hardmax.exact is not None else ceil_pow2(bound.hardmax.exponent)
    except HardmaxError as e:
        raise NotApplicableError(f"the hardmax threshold is astronomically large: {e}") from None
    return max(pc.compression_length(), pc.hardmax_side(H)), H, pc


def compress(f, g, counts: dict, window: tuple, eps, *, constants: ProofConstants | None = None) -> Compression:
    """Build z for x = (``counts``, ``window``) as in the proof of :mod:`bounds.corrected` and check every step.

    ``constants`` replaces the proof's (theta, lambda, ...) (used by the tests' negative controls); by default they
    are those :func:`bounds.corrected.corrected_bound` chooses for the pair.
    """
    eps = Fraction(eps)
    require(f, g, ("one_layer", "periodic", "local_translation_invariant", "same_alphabet", "hardmax_regime_exists",
                   "relu_mlp"), "the corrected bound")
    delta, tau = pair_period(f, g), max(f.tau, g.tau)
    w = tau + 1
    if len(window) != w:
        raise NotApplicableError(f"the window must hold tau + 1 = {w} classes, got {len(window)}")
    counts = {c: k for c, k in counts.items() if k}
    if counts.get(0) != 1:
        raise NotApplicableError("x has exactly one $ (class 0, count 1)")
    N, H, pc0 = exact_bound(f, g, eps)
    pc = constants or pc0
    n_x = sum(counts.values()) + w
    if n_x <= N:
        raise NotApplicableError(f"x has length {n_x} <= N = {N}: the theorem needs no z")
    cms = (ClassModel.of(f, delta), ClassModel.of(g, delta))
    per_head = head_sets(cms, counts, window)
    sets = list(dict.fromkeys(st for model_sets in per_head for st in model_sets if st.nontrivial))

    if pc.trivial:
        s, build = Fraction(1), None
        z = _trivial_z(counts, delta, w, H)
    else:
        s = Fraction(1)
        build = _build(counts, sets, pc, delta, w, s)
        if sum(build.counts.values()) + w < H:
            s = _stretch(counts, sets, pc, delta, Fraction(H - 1 - w, delta) + 1)
            build = _build(counts, sets, pc, delta, w, s)
        z = build.counts

    out = Compression(pc, N, H, s, z, tuple(window))
    cl = out.claims
    cl.append(Claim("same present classes", Fraction(len(z.keys() ^ counts.keys())), "==", Fraction(0)))
    per = positions_per_residue(out.length - w, delta)
    sz = [sum(k for c, k in z.items() if c and c % delta == r) for r in range(delta)]
    cl.append(Claim("residue counts fit positions 2..|z|-w",
                    Fraction(sum(abs(a - b) for a, b in zip(per, sz, strict=True))), "==", Fraction(0)))
    cl.append(Claim("every present class has a count >= 1", Fraction(sum(1 for k in z.values() if k < 1)), "==",
                    Fraction(0)))
    cl.append(Claim("|z| = |x| (mod Delta)", Fraction((out.length - n_x) % delta), "==", Fraction(0)))
    cl.append(Claim("|z| <= N", Fraction(out.length), "<=", Fraction(N)))
    cl.append(Claim("|z| >= H", Fraction(H), "<=", Fraction(out.length)))
    if not pc.trivial:
        cl.append(Claim("distinct non-trivial argmax sets <= k", Fraction(len(sets)), "<=", Fraction(pc.heads)))
        _proof_claims(out, counts, build, sets, delta, w)
    budget = Fraction(2) if pc.trivial else pc.budget(pc.theta)
    worst = Fraction(0)
    for i, st in enumerate(sets):
        d = _l1(st.distribution(counts), st.distribution(z))
        worst = max(worst, d)
        cl.append(Claim(f"||pi(x) - pi(z)||_1 <= a theta + rho* [set {i}]", d, "<=", budget))
    if not pc.trivial:
        cl.append(Claim("den = lambda (1 - Delta |Sigma| theta) - theta (w + Delta) > 0", Fraction(0), "<=",
                        pc.den(pc.theta) - Fraction(1, 10**30)))
        cl.append(Claim("a theta + rho* <= eta = eps/K", budget, "<=", pc.eta))
    elif pc.heads == 0:  # no count-dependent set: every distribution is the same in x and z
        cl.append(Claim("k = 0: no non-trivial argmax set", Fraction(len(sets)), "==", Fraction(0)))
    elif pc.eta is not None:
        cl.append(Claim("eta >= 2: any z is within budget", Fraction(2), "<=", pc.eta))
    _output_claims(out, cms, per_head, counts, eps)
    return out


def _proof_claims(out: Compression, x: dict, b: _Build, sets: list[ArgmaxSet], delta: int, w: int) -> None:
    """The intermediate inequalities of the proof (module docstring of bounds.corrected)."""
    pc, cl, F = out.constants, out.claims, b.F
    theta, S, L = pc.theta, pc.sigma, pc.lam * out.stretch
    if not F.comps:
        return
    a_m, b_m = F.comps[-1]
    Fb, D_m = F(b_m), F.divisor(len(F.comps) - 1)
    cl.append(Claim("(F4) F(b_m) <= L theta^-k", Fb, "<=", L * (1 / theta) ** pc.heads))
    top = max(F(k) for c, k in x.items() if c != 0)
    cl.append(Claim("(F4) max_c F(n_c) <= max(L, F(b_m))", top, "<=", max(L, Fb)))
    if D_m > 1:
        cl.append(Claim("(F6) F(a_m) <= theta F(b_m) when D_m > 1", F(a_m), "<=", theta * Fb))
        cl.append(Claim("(F6) F(b_m) >= L/theta when D_m > 1", L / theta, "<=", Fb))
    for i, st in enumerate(sets):
        T = st.total(x)
        ci = F.component_of(Fraction(T))
        D = F.divisor(ci)
        if D == 1:
            kept = all(b.counts[c] == x[c] for c in st.variable)
            cl.append(Claim(f"D = 1 keeps every count [set {i}]", Fraction(0 if kept else 1), "==", Fraction(0)))
            continue
        U = Fraction(T) / D
        cl.append(Claim(f"U >= L/theta when D > 1 [set {i}]", L / theta, "<=", U))
        err = Fraction(0)
        for c in st.variable:
            u = Fraction(x[c]) / D
            e = b.v[c] - u
            cl.append(Claim(f"0 <= F(n) - n/D [set {i}, class {c}]", Fraction(0), "<=", e))
            if x[c] >= theta * T:
                cl.append(Claim(f"significant class keeps its ratio [set {i}, class {c}]", e, "==", Fraction(0)))
            else:
                cl.append(Claim(f"insignificant class: F(n) <= theta U [set {i}, class {c}]", b.v[c], "<=",
                                theta * U))
            err += e
        fixed = (1 if 0 in st.classes else 0) + len(st.slots)
        err += fixed * (1 - 1 / D)
        cl.append(Claim(f"||v - u||_1 <= U (|Sigma| Delta theta) + (1 + w) [set {i}]", err, "<=",
                        U * S * delta * theta + (1 + w)))
    rho_star = pc.rho_star(theta)
    for r, rho in b.rho.items():
        cl.append(Claim(f"padding only when D_m > 1 [residue {r}]", Fraction(0 if D_m > 1 else 1), "==", Fraction(0)))
        excess = Fraction(b.t[r]) - b.need[r]
        bound = Fraction(1) if delta == 1 else S * F(a_m) + S + 3
        cl.append(Claim(f"E_r - W_r < |Sigma| F(a_m) + |Sigma| + 3 [residue {r}]", excess, "<=",
                        bound - Fraction(1, 10**30)))
        cl.append(Claim(f"W_r > (F(b_m)(1 - Delta |Sigma| theta) - w - Delta)/Delta [residue {r}]",
                        (Fb * (1 - delta * S * theta) - w - delta) / delta, "<=", b.W[r]))
        cl.append(Claim(f"rho_r <= rho* [residue {r}]", rho, "<=", rho_star))
        for c in b.padded[r]:
            cl.append(Claim(f"|m_c - v_c (1 + rho_r)| < 1 [class {c}]", abs(b.counts[c] - b.v[c] * (1 + rho)), "<=",
                            Fraction(1) - Fraction(1, 10**30)))
    phi = _phi(x, F, delta)
    if out.stretch > 1:  # the stretch step: Phi* <= Phi(s) <= Phi* + 1/2, Phi* = (H - 1 - w)/Delta + 1
        target = Fraction(out.H - 1 - w, delta) + 1
        cl.append(Claim("stretch: Phi(s) >= Phi* = (H - 1 - w)/Delta + 1", target, "<=", phi))
        cl.append(Claim("stretch: Phi(s) <= Phi* + 1/2", phi, "<=", target + Fraction(1, 2)))
    cl.append(Claim("|z| >= 1 + w + Delta (Phi - 1)", 1 + w + delta * (phi - 1), "<=", Fraction(out.length)))
    cl.append(Claim("|z| < 1 + w + Delta (Phi + |Sigma| + 2)", Fraction(out.length), "<=",
                    1 + w + delta * (phi + S + 2) - Fraction(1, 10**30)))


def _output_claims(out: Compression, cms, per_head, x: dict, eps: Fraction) -> None:
    """Lemma M with every head's actual distance, |m(x) - m(z)| <= K eta, z in the hardmax regime, the triangle."""
    from bounds.modulus import modulus

    outs = []
    for cm, sets in zip(cms, per_head, strict=True):
        fx, fz = hardmax_output(cm, x, out.window), hardmax_output(cm, out.counts, out.window)
        outs.append((fx, fz))
        tag = cm.model.name or "model"
        kappa = modulus(cm.model, cm.delta).kappa
        dist = [_l1(st.distribution(x), st.distribution(out.counts)) for st in sets]
        for j, row in enumerate(kappa):
            out.claims.append(Claim(f"Lemma M: |m_j(x) - m_j(z)| <= sum_h kappa_jh ||pi_h(x) - pi_h(z)||_1 [{tag}, "
                                    f"j={j}]", abs(Fraction(fx[j] - fz[j])), "<=",
                                    sum((k * d for k, d in zip(row, dist, strict=True)), Fraction(0))))
        out.claims.append(Claim(f"z in the hardmax regime [{tag}]", Fraction(0), "==",
                                Fraction(0 if in_hardmax(cm, out.counts, out.window) else 1)))
    (fx, fz), (gx, gz) = outs
    lhs = max(abs(v) for v in fx - gx)
    out.claims.append(Claim("|f(x) - g(x)| <= |f(z) - g(z)| + eps", lhs, "<=", max(abs(v) for v in fz - gz) + eps))

