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
