"""The four witnesses of Proposition C.3 (Golowich et al. 2025, App. C.2), as data, with exact re-checks.

Common setup (all four): k = 2, V = {1, 2}, Y = [0, 1], loss |Y - Y'|, mu = delta_1, Q^voc = delta_(2,2),
g1(2,2) = 1 and g1 = 0 otherwise, g* = g1 (so Y = 1), L_local = 2.

``build(name, L)`` returns a :class:`Witness`; ``recheck(w, lbar_max)`` re-checks it exactly:
the three kept assumptions, the dropped one (expected violated), every training-risk minimiser, and the
test risk of the failing minimiser at every Lbar in the claimed range up to ``lbar_max``.

Names: ``locality``, ``relative``, ``realizability`` (as printed in the paper), ``realizability-repaired``
(span-2 mass 1/10 at training lengths too, so that coverage holds), ``coverage``, and ``thm43-literal``
(a counterexample to Theorem 4.3 as stated, which does not require span(S*) <= L_local under P_Lbar).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from constructions.golowich.assumptions import (
    Verdict,
    check_coverage,
    check_local,
    check_planted_local,
    check_realizable,
    check_relative,
)
from constructions.golowich.model import (
    NEG_INF,
    AttentionClass,
    Ensemble,
    KeyFunction,
    ModelError,
    ValueFunction,
    minimizers,
    point_ensemble,
    risk,
    span,
    uniform,
)

V = (1, 2)
K = 2
ZERO = Fraction(0)
G1 = ValueFunction("g1", {(1, 1): ZERO, (1, 2): ZERO, (2, 1): ZERO, (2, 2): Fraction(1)})
NAMES = ("locality", "relative", "realizability", "realizability-repaired", "coverage", "thm43-literal")


class WitnessError(ModelError):
    """Unknown witness name or invalid L."""


@dataclass(frozen=True)
class Witness:
    name: str
    dropped: str  # locality | relative | realizability | coverage | none
    H: AttentionClass
    ens: Ensemble
    L: int
    L_local: int
    bad: tuple[str, str]  # (key name, value name) of the failing minimiser
    realizer: tuple[str, str] | None
    test_from: int  # the claim is for every Lbar >= test_from
    eta_factor: Fraction = Fraction(2)  # coverage is checked with eta_l = eta_factor * l
    note: str = ""


def _adjacent(l):
    return [(i, i + 1) for i in range(1, l)]


def _span2(l):
    return [(i, i + 2) for i in range(1, l - 1)]


def _key(name, rule):
    return KeyFunction(name, lambda S, x: ZERO if rule(S, tuple(x)) else NEG_INF)


def _mix(parts):
    """sum_i w_i * uniform(family_i), exact."""
    out = {}
    for w, fam in parts:
        for S, p in uniform(fam).items():
            out[S] = out.get(S, ZERO) + w * p
    return out


def build(name: str, L: int) -> Witness:
    """The witness ``name`` for training length L (L >= 3 so that every training length is >= k = 2)."""
    if name not in NAMES:
        raise WitnessError(f"unknown witness {name!r}; choose one of {', '.join(NAMES)}")
    if not isinstance(L, int) or L < 3:
        raise WitnessError(f"L must be an integer >= 3 (training lengths [L/2, L] must be >= k = 2), got {L!r}")
    is22 = (2, 2)
    if name == "locality":
        g00 = _key("g00", lambda S, x: x == is22 or span(S) >= L)
        g01 = _key("g01", lambda S, x: x == is22)

        def q(l):
            fam = _adjacent(l) + ([(j, j + L) for j in range(1, l - L + 1)] if l > L else [])
            return uniform(fam)

        ens = point_ensemble(V, K, 1, is22, 1, q, "C.3(a)")
        return Witness(name, "locality", AttentionClass((g00, g01), (G1,), K), ens, L, 2, ("g00", "g1"),
                       ("g01", "g1"), 2 * L,
                       note="paper says h_{g00,g1} is the realizer; it is h_{g01,g1} (g00 errs at l > L)")
    if name == "relative":
        g00 = _key("g00", lambda S, x: x == is22 and span(S) == 1)
        g01 = _key("g01", lambda S, x: (x == is22 and span(S) == 1) or (span(S) == 2 and S[-1] > L))
        ens = point_ensemble(V, K, 1, is22, 1, lambda l: uniform(_adjacent(l)), "C.3(b)")
        return Witness(name, "relative", AttentionClass((g00, g01), (G1,), K), ens, L, 2, ("g01", "g1"),
                       ("g00", "g1"), L + 1, note="paper checks coverage with L_local = 1 (Q_1 undefined); we use 2")
    if name in ("realizability", "realizability-repaired"):
        g00 = _key("g00", lambda S, x: x == is22 and span(S) == 1)
        g01 = _key("g01", lambda S, x: x == is22 and span(S) == 2)
        tenth = Fraction(1, 10)
        if name == "realizability":
            def q(l):
                if l <= L:
                    return uniform(_adjacent(l))
                return _mix([(tenth, _adjacent(l)), (1 - tenth, _span2(l))])
            note = "as printed (eq. 15): violates coverage (Q_l'(S*-Delta) = 0 for span-2 S*)"
        else:
            def q(l):
                if l == 2:
                    return uniform(_adjacent(l))
                w = 1 - tenth if l <= L else tenth
                return _mix([(w, _adjacent(l)), (1 - w, _span2(l))])
            note = "repair: span-2 pairs get mass 1/10 at training lengths too"
        ens = point_ensemble(V, K, 1, is22, 1, q, "C.3(c)" + ("" if name == "realizability" else "-repaired"))
        return Witness(name, "realizability", AttentionClass((g00, g01), (G1,), K), ens, L, 2, ("g00", "g1"),
                       None, L + 1, eta_factor=Fraction(10), note=note)
    if name == "coverage":
        g00 = _key("g00", lambda S, x: x == is22 and span(S) == 1)
        g01 = _key("g01", lambda S, x: x == is22 and span(S) in (1, 2))
        ens = point_ensemble(V, K, 1, is22, 1, lambda l: uniform(_adjacent(l) if l <= L else _span2(l)), "C.3(d)")
        return Witness(name, "coverage", AttentionClass((g00, g01), (G1,), K), ens, L, 2, ("g00", "g1"),
                       ("g01", "g1"), L + 1, note="paper writes h_{g0,g1} for both the realizer and the failing h")
    # thm43-literal: every assumption of Theorem 4.3 holds, yet a minimiser fails (S* not local at test)
    Lloc = max(1, L // 4)
    gall = _key("g_all", lambda S, x: span(S) <= Lloc)
    g22 = _key("g_22", lambda S, x: x == is22 and span(S) <= Lloc)
    one = ValueFunction("one", {x: Fraction(1) for x in ((1, 1), (1, 2), (2, 1), (2, 2))})

    def q(l):
        return uniform(_adjacent(l) + ([(j, j + L) for j in range(1, l - L + 1)] if l > L else []))

    ens = point_ensemble(V, K, 1, is22, 1, q, "thm4.3-literal")
    return Witness(name, "none", AttentionClass((gall, g22), (one, G1), K), ens, L, Lloc, ("g_22", "g1"),
                   ("g_all", "one"), 2 * L,
                   note="all hypotheses of Thm 4.3 hold (L >= 4 L_local when L >= 4); span(S*) = L at test")


def recheck(w: Witness, lbar_max: int | None = None) -> dict:
    """Independent exact re-check of a witness; returns a report dict (Fractions kept exact).

    ``ok`` is True iff: every kept assumption holds (bounded: positions/lengths <= lbar_max), the dropped
    one is violated, the failing hypothesis is a training-risk minimiser, and its test risk is >= the
    recorded ``c`` (> 0) at every Lbar in [test_from, lbar_max].
    """
    lbar_max = lbar_max or 2 * w.L + 2
    if lbar_max < w.test_from:
        raise WitnessError(f"lbar_max = {lbar_max} < first test length {w.test_from}")
    lengths = list(range(K, lbar_max + 1))
    keys = w.H.keys
    verdicts: dict[str, Verdict] = {
        "locality": check_local(keys, V, K, w.L_local, lbar_max),
        "relative": check_relative(keys, V, K, lbar_max),
        "realizability": check_realizable(w.H, w.ens, lengths),
        "coverage": check_coverage(w.ens, w.L_local, lengths, lambda l: w.eta_factor * l),
    }
    best, mins, train = minimizers(w.H, w.ens, w.L)
    names = [(g0.name, g1.name) for g0, g1 in mins]
    g0 = next(g for g in keys if g.name == w.bad[0])
    g1 = next(g for g in w.H.values if g.name == w.bad[1])
    test = {lb: risk(g0, g1, w.ens, lb) for lb in range(w.test_from, lbar_max + 1)}
    c = min(test.values())
    kept = [a for a in verdicts if a != w.dropped]
    ok = (all(verdicts[a].holds for a in kept) and (w.dropped == "none" or not verdicts[w.dropped].holds)
          and w.bad in names and c > 0)
    return {
        "name": w.name, "dropped": w.dropped, "L": w.L, "L_local": w.L_local,
        "verdicts": verdicts, "kept_hold": all(verdicts[a].holds for a in kept),
        "dropped_violated": None if w.dropped == "none" else not verdicts[w.dropped].holds,
        "planted_local": check_planted_local(w.ens, w.L_local, lengths),
        "train_risks": train, "min_train_risk": best, "minimizers": names, "bad_is_minimizer": w.bad in names,
        "test_risks": test, "c": c, "ok": ok, "note": w.note,
    }
