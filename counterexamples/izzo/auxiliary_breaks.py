"""Witnesses where a step of Izzo et al. App. A.1, executed by :mod:`bounds.auxiliary`, fails as written.

The proof reduces positions to (token, residue) classes ("Including positional embedding vectors") but keeps the
constants it derived for tokens: ``|Sigma|`` in eq. (1) and in the case-2 ratio bounds comes from
``|S_f| <= |Sigma|``, and after the reduction ``|S_f|`` counts classes (up to ``(|Sigma| + 1) Delta``).

* :func:`eq1_classes_witness` -- eq. (1) ``|m_s/sum m - n_s/|A_f|| <= 2|Sigma| eps/tau`` fails (premise
  ``|S_f| eps/tau <= 1/2`` holds): Sigma = {a, b}, Delta = 6, tau = 1, eps = 1/14, f attends to every ``a``;
  x has 100 ``a`` at residue 0 and 10 ``a`` at each other residue (the rest ``b``); every small class rounds to 0,
  so ``m_{a,0}/sum m = 1`` against ``n/|A_f| = 2/3``: difference 1/3 > 4/14.  With ``|S_f| = 6`` it holds.
* :func:`ratio_classes_witness` -- the case-2 bound ``m_s/m_{s*} >= n_s/n_{s*} - |Sigma| eps/tau`` fails:
  Sigma = {a}, Delta = 2, tau = 1, eps = 1/10, both models attend uniformly; x = ``a^23``: ``m_s/m_{s*} = 4/5``
  against ``10/11 - 1/10``.
* :func:`hardmax_z_witness` -- z is below the hardmax threshold: at p = 20 bits and integer logits the threshold
  is 2^20, x is longer, and the proof's z (length O(tau/eps^2)) is not in the hardmax regime, so "f(z) = g(z)
  within delta" is not the hardmax computation the proof uses.
"""

from __future__ import annotations

from fractions import Fraction

from constructions.limit_transformer.model import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)


def _model(alphabet, key_scores, period, name, readout=1, precision_bits=1):
    """One head whose key score is ``key_scores[token id]`` (query-independent), value = the key's one-hot token
    plus its residue coordinate, a one-unit ReLU MLP reading both and a scalar readout; tau = 1, phi = 0."""
    V = len(alphabet) + 1
    d = V + period + 1  # token one-hot, residue one-hot, constant
    E = [[int(j == t) for j in range(V)] + [0] * period + [1] for t in range(V)]
    P = [[0] * V + [int(j == r) for j in range(period)] + [0] for r in range(period)]
    query = [[0] * (d - 1) + [1]]
    key = [list(key_scores) + [0] * period + [0]]
    value = [[int(i == j and i < V + period) for j in range(d)] for i in range(d)]
    A = [list(range(V)) + [V + r for r in range(period)] + [0]]  # reads the token and residue proportions
    B = [[0]] * (d - 1) + [[readout]]
    return LimitTransformer(alphabet=tuple(alphabet), embedding=E,
                            layers=(Layer(heads=(Head(query, key, value, LocalPhi((0, 0))),),
                                          mlp=MLP(A, [Fraction(-1, 2)], B)),),
                            unembedding=[[1] * d], positions=PeriodicPositions(P), precision_bits=precision_bits,
                            precision="izzo", name=name)


def eq1_classes_witness():
    """(f, g, counts, window, eps) of the module docstring (classes c = token id * Delta + residue)."""
    delta = 6
    f = _model("ab", (0, 1, 0), delta, "attend-a")
    g = _model("ab", (0, 1, 0), delta, "attend-a'", readout=2)
    per = 101  # prefix positions per residue (606 = 6 * 101)
    counts = {0: 1, 1 * delta + 0: per - 1}
    for r in range(1, delta):
        counts[1 * delta + r] = 10
        counts[2 * delta + r] = per - 10
    window = (2 * delta + 0, 2 * delta + 1)  # positions 607, 608: residues 0, 1
    return f, g, counts, window, Fraction(1, 14)


def ratio_classes_witness():
    delta = 2
    f = _model("a", (0, 0), delta, "uniform")
    g = _model("a", (0, 0), delta, "uniform'", readout=2)
    counts = {0: 1, 2: 10, 3: 11}  # $, a at residue 0 (positions 3..21), a at residue 1: prefix length 22
    window = (2, 3)  # positions 23, 24
    return f, g, counts, window, Fraction(1, 10)


def hardmax_z_witness():
    f, g, counts, window, eps = ratio_classes_witness()
    f2 = _model("a", (0, 1), 2, "uniform-p20", precision_bits=20)
    g2 = _model("a", (0, 1), 2, "uniform-p20'", readout=2, precision_bits=20)
    big = 1 << 21
    return f2, g2, {0: 1, 2: big - 1, 3: big}, window, eps


# ------------------------------------------------------------------------------------------------ search
def random_input(rng, sigma: int, delta: int, tau: int, n: int) -> tuple[dict, tuple]:
    """Class counts outside the window and the window of a random input of model length n (skewed token mix per
    residue, so that some classes are rare)."""
    w, M = tau + 1, n - tau - 1
    counts = {0: 1}
    for r in range(delta):
        slots = len(range(r, M, delta)) - (r == 0)
        weights = [rng.random() ** 3 for _ in range(sigma)]
        left = slots
        for t in range(1, sigma + 1):
            k = left if t == sigma else min(left, round(slots * weights[t - 1] / sum(weights)))
            counts[t * delta + r] = counts.get(t * delta + r, 0) + k
            left -= k
    return counts, tuple(rng.randint(1, sigma) * delta + (M + s) % delta for s in range(w))


def search_auxiliary(seed: int, cases: int, printed_sigma: bool = True) -> dict:
    """Run App. A.1 (bounds.auxiliary) on random pairs of the search family (|Sigma| <= 3, Delta <= 3, tau in
    {1, 2}) and random long inputs (lengths 50 .. 10^5, eps in {1/2, 1/4, 1/10, 1/20}).

    Returns the tally of failed claims whose premise holds (name without the class index: count and the first
    case), the cases per proof case, and the largest ``|m(x) - m(z)| / (K eps)`` with
    ``K = Lambda max_c ||V y_c||`` (float, for the record; the proof's O(L eps) has no constant to compare with).
    """
    import math
    import random

    from bounds.auxiliary import (
        ClassModel,
        NotApplicableError,
        auxiliary,
        hardmax_output,
        lipschitz_bound2,
        pair_period,
    )
    from counterexamples.izzo.search import GROUPS, Spec, build, draw_group, perturb

    rng = random.Random(seed)

    def draw(lo, hi):
        return rng.randint(lo, hi)

    out = {"failed": {}, "cases": {}, "not_applicable": 0, "max_ratio": 0.0}
    for i in range(cases):
        sigma, delta, tau = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 2)
        spec = Spec(sigma, delta, tau)
        spec.params = {k: draw_group(draw, spec, k) for k in GROUPS}
        f, g = build(spec, "f"), build(perturb(draw, spec), "g")
        n = rng.choice([50, 200, 1000, 10**5])
        counts, window = random_input(rng, sigma, delta, tau, n)
        eps = rng.choice([Fraction(1, 2), Fraction(1, 4), Fraction(1, 10), Fraction(1, 20)])
        D = pair_period(f, g)
        try:
            aux = auxiliary(f, g, counts, window, eps,
                            alphabet_constant=None if printed_sigma else (sigma + 1) * D)
        except NotApplicableError:
            out["not_applicable"] += 1
            continue
        out["cases"][aux.case] = out["cases"].get(aux.case, 0) + 1
        for c in aux.failed():
            key = c.name.split(" [")[0].split("[s=")[0]
            entry = out["failed"].setdefault(key, {"count": 0, "first": (seed, i, sigma, delta, tau, str(eps), n)})
            entry["count"] += 1
        for m in (f, g):
            mlp = m.layers[0].mlp
            if mlp is not None and mlp.heaviside_mask.any():
                continue
            cm = ClassModel.of(m, D)
            R = max(math.sqrt(float(sum(Fraction(v) ** 2 for v in row))) for row in cm.heads[0][1])
            K = math.sqrt(float(lipschitz_bound2(m))) * R
            if K:
                d = max(abs(v) for v in hardmax_output(cm, counts, window) - hardmax_output(cm, aux.counts, window))
                out["max_ratio"] = max(out["max_ratio"], float(d) / (K * float(eps)))
    return out
