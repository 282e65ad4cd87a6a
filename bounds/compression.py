"""The auxiliary input of the corrected bound's proof (bounds/corrected.py), built and checked exactly.

Given a pair (f, g) of one-layer models and a long input x by its (token, residue) class counts outside the
window (``$`` included, class 0) and its window, :func:`compress` builds the z of the proof in
:mod:`bounds.corrected`: the intervals ``I_h = [max(1, theta T_h), T_h]`` of every head's argmax set, their
components, the map F_s, ``m_c = ceil(F_s(n_c))``, the residue padding (at a class no head attends where the residue
has one, else at its most frequent class), and (when z would be below the hardmax threshold H) the stretch s found by
exact bisection.  Every inequality of the proof is returned as a :class:`~bounds.auxiliary.Claim` with exact rational
sides, so a test (``verify/tests/izzo2025/test_compression.py``) can check them on random pairs and inputs with
counts far beyond anything a string evaluation reaches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

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
    """F_s of the proof: continuous, non-decreasing, F(v) <= v, ratio-preserving on every component, and
    ``max(F(b_m), min(v, sG))`` above the last component."""

    comps: tuple  # ((a_i, b_i), ...)
    starts: tuple  # F(a_i)
    cap: Fraction  # s G

    @classmethod
    def build(cls, comps, G: int, s: Fraction) -> Compressor:
        starts, prev_F = [], Fraction(1)  # F(b_0) = F(1) = 1
        for a, b in comps:
            Fa = max(prev_F, min(a, s * G))
            starts.append(Fa)
            prev_F = Fa * b / a
        return cls(tuple(comps), tuple(starts), s * G)

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
        return max(prev_F, min(v, self.cap))  # above b_m: classes no head attends


# ------------------------------------------------------------------------------------------ construction
def _residue_sums(counts: dict, delta: int) -> list[int]:
    sums = [0] * delta
    for c, k in counts.items():
        if c != 0:
            sums[c % delta] += k
    return sums


def _scaled(counts: dict, F) -> dict:
    return {c: (1 if c == 0 else math.ceil(F(k))) for c, k in counts.items() if k}


def _pad(x_counts: dict, m: dict, delta: int, w: int, min_length: int, attended: frozenset) -> tuple[dict, dict]:
    """Add keys so that every residue count is x's plus one common j (the smallest j giving at least
    ``min_length``): at the most frequent class no head attends where the residue has one, else at its most frequent
    class; returns z's counts and {padded class: amount}."""
    Sx, Sm = _residue_sums(x_counts, delta), _residue_sums(m, delta)
    j = max(sm - sx for sm, sx in zip(Sm, Sx, strict=True))
    total = sum(Sx) + delta * j + 1 + w
    if total < min_length:
        j += -(-(min_length - total) // delta)
    pads = {}
    z = dict(m)
    for r, (sm, sx) in enumerate(zip(Sm, Sx, strict=True)):
        if sx + j - sm:
            present = [c for c in x_counts if c != 0 and c % delta == r and x_counts[c]]
            free = [c for c in present if c not in attended]
            star = max(free or present, key=lambda c: (x_counts[c], -c))
            pads[star] = sx + j - sm
            z[star] += pads[star]
    return z, pads


def _sets(cms, counts: dict, window: tuple) -> list[tuple[frozenset, tuple]]:
    return [(a.classes, a.slots) for cm in cms for a in (attend(cm, counts, window, h) for h in range(len(cm.heads)))]


def _set_total(counts: dict, classes: frozenset, slots: tuple) -> int:
    return sum(counts[c] for c in classes) + len(slots)


def _distribution(counts: dict, classes: frozenset, slots: tuple) -> dict:
    T = _set_total(counts, classes, slots)
    out = {("c", c): Fraction(counts[c], T) for c in classes}
    out.update({("w", s): Fraction(1, T) for s in slots})
    return out


def _l1(p: dict, q: dict) -> Fraction:
    return sum((abs(p.get(k, 0) - q.get(k, 0)) for k in p.keys() | q.keys()), Fraction(0))


def compress(f, g, counts: dict, window: tuple, eps, *, constants: ProofConstants | None = None) -> Compression:
    """Build z for x = (``counts``, ``window``) as in the proof of :mod:`bounds.corrected` and check every step.

    ``constants`` replaces the proof's (theta, G, ...) (used by the tests' negative controls); by default they are
    :func:`bounds.corrected.proof_constants` of the pair with k = heads of f and g.
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
    heads = len(f.layers[0].heads) + len(g.layers[0].heads)
    bound = corrected_bound(combine(ingredients(f, mode="exact"), ingredients(g, mode="exact")), eps, heads)
    if bound.N.exact is None or bound.hardmax.exact is None:
        raise NotApplicableError("the bound is astronomically large; the construction needs it materialized")
    pc = constants or bound.constants
    N, H = bound.N.exact, bound.hardmax.exact
    n_x = sum(counts.values()) + w
    if n_x <= N:
        raise NotApplicableError(f"x has length {n_x} <= N = {N}: the theorem needs no z")
    cms = (ClassModel.of(f, delta), ClassModel.of(g, delta))
    sets = _sets(cms, counts, window)
    L0 = n_x - 1 - w

    attended = frozenset(c for classes, _ in sets for c in classes)
    if pc.trivial:
        s = Fraction(1)
        z, pads = _pad(counts, {c: 1 for c in counts}, delta, w, H, attended)
    else:
        comps = components([(max(Fraction(1), pc.theta * T), Fraction(T)) for T in
                            (_set_total(counts, cl, sl) for cl, sl in sets)])

        def attempt(s):
            F = Compressor.build(comps, pc.G, s)
            m = _scaled(counts, F)
            return F, m, _pad(counts, m, delta, w, 0, attended)

        s = Fraction(1)
        F, m, (z, pads) = attempt(s)
        if sum(z.values()) + w < H:
            s = _stretch(comps, pc, counts, delta, Fraction(H - 1 - w, delta) + 1)
            F, m, (z, pads) = attempt(s)

    out = Compression(pc, N, H, s, z, tuple(window))
    cl = out.claims
    cl.append(Claim("same present classes", Fraction(len(z.keys() ^ counts.keys())), "==", Fraction(0)))
    per = positions_per_residue(out.length - w, delta)
    sz = _residue_sums(z, delta)
    cl.append(Claim("residue counts fit positions 2..|z|-w", Fraction(sum(abs(a - b) for a, b in zip(per, sz,
                                                                                                      strict=True))),
                    "==", Fraction(0)))
    cl.append(Claim("|z| = |x| (mod Delta)", Fraction((out.length - n_x) % delta), "==", Fraction(0)))
    cl.append(Claim("|z| <= N", Fraction(out.length), "<=", Fraction(N)))
    cl.append(Claim("|z| >= H", Fraction(H), "<=", Fraction(out.length)))
    if not pc.trivial:
        _proof_claims(out, counts, m, F, sets, pads, attended, L0, delta)
    budget = Fraction(2) if pc.trivial else pc.a * pc.theta + Fraction(pc.b, pc.G)
    worst = Fraction(0)
    for i, (classes, slots) in enumerate(sets):
        d = _l1(_distribution(counts, classes, slots), _distribution(z, classes, slots))
        worst = max(worst, d)
        cl.append(Claim(f"||pi(x) - pi(z)||_1 <= a theta + b/G [set {i}]", d, "<=", budget))
    if pc.eta is not None:
        cl.append(Claim("a theta + b/G <= eta = eps/(2K)", budget, "<=", pc.eta))
    _output_claims(out, cms, counts, worst, eps)
    return out


def _residue_mass(counts: dict, F, delta: int) -> Fraction:
    """Phi = max over residues of sum_c F(n_c) (the classes of that residue)."""
    sums = [Fraction(0)] * delta
    for c, k in counts.items():
        if c != 0:
            sums[c % delta] += F(k)
    return max(sums)


def _stretch(comps, pc: ProofConstants, counts: dict, delta: int, target: Fraction) -> Fraction:
    """An s >= 1 with target <= Phi(s) <= target + 1/2 (exact bisection; Phi is continuous and non-decreasing in
    s, Phi(1) < target, and Phi = max_r S_r(x) >= target once sG exceeds every count)."""
    def phi(s):
        return _residue_mass(counts, Compressor.build(comps, pc.G, s), delta)

    lo, hi = Fraction(1), Fraction(max(max(counts.values()), max(b for _, b in comps))) / pc.G + 1
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
    raise NotApplicableError("the stretch bisection did not converge")  # pragma: no cover - Phi is Lipschitz in s


def _proof_claims(out: Compression, x: dict, m: dict, F: Compressor, sets, pads: dict, attended: frozenset,
                  L0: int, delta: int) -> None:
    """The intermediate inequalities of the proof (module docstring of bounds.corrected)."""
    pc, cl = out.constants, out.claims
    Q, G, theta, sigma = pc.items, pc.G, pc.theta, pc.sigma
    a_m, b_m = F.comps[-1]
    Fb, D = F(b_m), F.divisor(len(F.comps) - 1)
    cl.append(Claim("F(b_m) <= s G theta^-k", Fb, "<=", out.stretch * G * (1 / theta) ** pc.heads))
    top = max(F(k) for c, k in x.items() if c != 0)
    cl.append(Claim("max_c F(n_c) <= max(F(b_m), sG)", top, "<=", max(Fb, out.stretch * G)))
    if D > 1:
        cl.append(Claim("F(b_m) >= G when D_m > 1", Fraction(G), "<=", Fb))
        cl.append(Claim("F(a_m) <= theta F(b_m) when D_m > 1", F(a_m), "<=", theta * Fb))
    for i, (classes, slots) in enumerate(sets):
        T = _set_total(x, classes, slots)
        Dh = F.divisor(F.component_of(Fraction(T)))
        if Dh == 1:
            kept = all(m[c] == x[c] for c in classes)
            cl.append(Claim(f"D = 1 keeps every count [set {i}]", Fraction(0 if kept else 1), "==", Fraction(0)))
            continue
        u = {c: Fraction(x[c], 1) / Dh for c in classes}
        u.update({("w", s): 1 / Dh for s in slots})
        mm = {c: Fraction(m[c]) for c in classes}
        mm.update({("w", s): Fraction(1) for s in slots})
        U = sum(u.values(), Fraction(0))
        cl.append(Claim(f"||m - u||_1 <= U ((Q+1)/G + Q theta) [set {i}]",
                        sum((abs(mm[k] - u[k]) for k in u), Fraction(0)), "<=", U * (Fraction(Q + 1, G) + Q * theta)))
        for c in classes:
            if c != 0 and x[c] >= theta * T:
                cl.append(Claim(f"significant class has u >= G [set {i}, class {c}]", Fraction(G), "<=", u[c]))
    rho = Fraction(2 * delta * sigma * (sigma + 1), G) + 2 * delta * sigma**2 * theta
    share = Fraction(1, 2 * delta * sigma)
    for c, p in pads.items():
        if c not in attended:
            continue  # a class no head attends: no distribution moves
        # every class of the residue is attended: the most frequent one has n_c >= (L_0/Delta - 1)/|Sigma|
        cl.append(Claim(f"padded attended class is frequent [class {c}]", share * L0, "<=", Fraction(x[c])))
        cl.append(Claim(f"padding <= rho m [class {c}]", Fraction(p), "<=", rho * m[c]))
        cl.append(Claim(f"attended padding only when D_m > 1 [class {c}]", Fraction(0 if D > 1 else 1), "==",
                        Fraction(0)))


def _output_claims(out: Compression, cms, x: dict, worst: Fraction, eps: Fraction) -> None:
    """|m(x) - m(z)|_2 <= K max_h ||pi_h(x) - pi_h(z)||_1 <= eps/2, z in the hardmax regime, and the triangle."""
    outs = []
    for cm in cms:
        fx, fz = hardmax_output(cm, x, out.window), hardmax_output(cm, out.counts, out.window)
        outs.append((fx, fz))
        tag = cm.model.name or "model"
        diff2 = sum((Fraction(v) ** 2 for v in np.ravel(fx - fz)), Fraction(0))
        out.claims.append(Claim(f"|m(x) - m(z)|_2^2 <= (K max_h ||pi_h(x) - pi_h(z)||_1)^2 [{tag}]", diff2, "<=",
                                (out.constants.K * worst) ** 2))
        out.claims.append(Claim(f"|m(x) - m(z)|_inf <= eps/2 [{tag}]", max(abs(Fraction(v)) for v in fx - fz), "<=",
                                eps / 2))
        out.claims.append(Claim(f"z in the hardmax regime [{tag}]", Fraction(0), "==",
                                Fraction(0 if in_hardmax(cm, out.counts, out.window) else 1)))
    (fx, fz), (gx, gz) = outs
    lhs = max(abs(v) for v in fx - gx)
    out.claims.append(Claim("|f(x) - g(x)| <= |f(z) - g(z)| + eps", lhs, "<=", max(abs(v) for v in fz - gz) + eps))
