"""Hypothesis as a second, randomized search (independent of z3).

* :func:`random_witness` draws instances from the same bounded space as the z3 search (point-mass mu
  and Q^voc, 0/-inf keys, 0/1 values) with *shift-uniform* position laws Q_l(S) proportional to
  w(shape(S)) (one shape-weight vector for l <= L and one for l > L), and asks ``hypothesis.find`` for one
  that the exact re-check (:func:`..search.recheck_data`) accepts; Hypothesis shrinks it.
* :func:`thm43_random_check` draws instances satisfying all the hypotheses of Theorem 4.3 with delta >= 0
  and records, for each, the worst test risk of a training-risk minimiser against the Theorem 4.3 bound
  eta_L eta_Lbar L Lbar^2 delta (eta_l = the exact smallest coverage constant).  A violation is returned.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from constructions.golowich.assumptions import (
    check_coverage,
    check_local,
    check_relative,
    coverage_eta,
    realizability_delta,
)
from constructions.golowich.model import minimizers, risk, sets_k, shape, span

from .search import Params, planted_choices, recheck_data, witness_objects


def _shapes(k, max_span):
    return sorted({shape(S) for S in sets_k(max_span + 1, k)})


def _qpos(k, Lmin, Lmax, L, w_train, w_test, anchored=False):
    out = {}
    for l in range(Lmin, Lmax + 1):
        w = w_train if l <= L else w_test
        cells = [(S, w.get(shape(S), 0) if (S[0] == 1 or not anchored) else 0) for S in sets_k(l, k)]
        tot = sum(c for _, c in cells)
        if tot == 0:  # no weighted shape fits in [l]: put the mass on the contiguous shape
            cells = [(S, 1 if span(S) == k - 1 else 0) for S in sets_k(l, k)]
            tot = sum(c for _, c in cells)
        out[str(l)] = [[list(S), str(Fraction(c, tot))] for S, c in cells if c]
    return out


@st.composite
def instances(draw, p: Params, same_support: bool):
    """Witness data (the format of the z3 search) drawn at random."""
    k, vocab = p.k, p.vocab
    xs = list(itertools.product(range(1, vocab + 1), repeat=k))
    b, z = draw(st.sampled_from(planted_choices(vocab, k)))
    key_span = p.Lbar - 1 if p.drop == "locality" else p.L_local
    kind = "table" if p.drop == "relative" else "shape"
    idxs = _shapes(k, key_span) if kind == "shape" else [S for S in sets_k(p.Lbar, k) if span(S) <= key_span]
    cells = [(list(i), list(x)) for i in idxs for x in xs]
    m = draw(st.integers(1, p.keys))
    n = draw(st.integers(2 if m == 1 else 1, p.values))
    keys = [{"name": f"g0_{j}", "kind": kind,
             "active": [list(c) for c in draw(st.lists(st.sampled_from(cells), max_size=6, unique_by=str))]}
            for j in range(m)]
    menu = [{x: int(x == z) for x in xs}, {x: 1 for x in xs}]
    values = []
    for i in range(n):
        tab = draw(st.one_of(st.sampled_from(menu), st.fixed_dictionaries({x: st.integers(0, 1) for x in xs})))
        values.append({"name": f"g1_{i}", "table": {"".join(map(str, x)): v for x, v in tab.items()}})
    shapes = _shapes(k, p.L_local)
    wtr = {s: draw(st.integers(0, 3)) for s in shapes}
    if not any(wtr.values()):
        wtr[shapes[0]] = 1
    if same_support:
        wte = {s: (draw(st.integers(1, 9)) if c else 0) for s, c in wtr.items()}
    else:
        wte = {s: draw(st.integers(0, 3)) for s in shapes}
        if not any(wte.values()):
            wte[shapes[-1]] = 1
    z_s = "".join(map(str, z))
    return {"vocab": vocab, "k": k, "L": p.L, "Lbar": p.Lbar, "L_local": p.L_local, "drop": p.drop,
            "mu": {str(b): "1"}, "qvoc": {z_s: "1"}, "gstar": {z_s: "1"},
            "qpos": _qpos(k, k, p.Lbar, p.L, wtr, wte, draw(st.booleans())), "keys": keys, "values": values,
            "bad": ["g0_0", "g1_0"], "eta_factor": str(p.eta_factor), "c": str(p.c), "literal": False}


def random_witness(p: Params, max_examples: int = 2000, seed: int = 0):
    """A verified witness found by Hypothesis (shrunk), or None if none was met in max_examples draws."""
    p = p.resolved()
    cfg = settings(max_examples=max_examples, database=None, derandomize=True, deadline=None,
                   phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    strat = instances(p, same_support=p.drop != "coverage")
    try:
        w = find(strat, lambda w: recheck_data(_worst_minimiser(w))["verified"], settings=cfg)
    except NoSuchExample:
        return None
    return _worst_minimiser(w)


def _worst_minimiser(w: dict) -> dict:
    """The same data with ``bad`` set to the training-risk minimiser of largest risk at Lbar."""
    H, ens = witness_objects(w)
    _, mins, _ = minimizers(H, ens, w["L"])
    g0, g1 = max(mins, key=lambda h: risk(h[0], h[1], ens, w["Lbar"]))
    return {**w, "bad": [g0.name, g1.name]}


def thm43_random_check(p: Params, max_examples: int = 300):
    """Random instances satisfying every hypothesis of Theorem 4.3 (delta may be > 0).

    Returns (violation or None, stats) with stats = {"instances", "max_error", "max_ratio" (error/bound over
    nonvacuous bounds < 1), "min_bound"}.
    """
    p = p.resolved()
    stats = {"instances": 0, "max_error": Fraction(0), "max_ratio": Fraction(0), "min_bound": None}
    lens = list(range(p.k, p.Lbar + 1))
    vocab = tuple(range(1, p.vocab + 1))

    def violates(w):
        H, ens = witness_objects(w)
        if not (check_local(H.keys, vocab, p.k, p.L_local, p.Lbar) and check_relative(H.keys, vocab, p.k, p.Lbar)):
            return False
        if not check_coverage(ens, p.L_local, lens, lambda l_: Fraction(10 ** 9)):
            return False
        delta, _, _ = realizability_delta(H, ens, lens)
        etaL, _ = coverage_eta(ens, p.L_local, p.L)
        etaB, _ = coverage_eta(ens, p.L_local, p.Lbar)
        bound = etaL * etaB * p.L * p.Lbar ** 2 * delta
        _, mins, _ = minimizers(H, ens, p.L)
        err = max(risk(g0, g1, ens, p.Lbar) for g0, g1 in mins)
        stats["instances"] += 1
        stats["max_error"] = max(stats["max_error"], err)
        if bound < 1:
            stats["min_bound"] = bound if stats["min_bound"] is None else min(stats["min_bound"], bound)
            if bound > 0:
                stats["max_ratio"] = max(stats["max_ratio"], err / bound)
        return err > bound

    cfg = settings(max_examples=max_examples, database=None, derandomize=True, deadline=None,
                   phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    try:
        return find(instances(Params(**{**p.__dict__, "drop": "none"}), True), violates, settings=cfg), stats
    except NoSuchExample:
        return None, stats
