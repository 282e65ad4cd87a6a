"""Izzo et al. Appendix A.1, eq. (1), as kernel steps (verify/kernel.py), for every number of symbols and all counts.

Statement: for the argmax items A_f of f on the tau-prefix, with n_s of them carrying symbol s in S_f
(``sum_s n_s = |A_f|``), ``m_s = floor(n_s/|A_f| * tau/eps)`` and ``|S_f| eps/tau <= 1/2``:
``|m_s / sum_s' m_s' - n_s/|A_f|| <= 2 |Sigma| eps/tau`` for every s in S_f.

Write ``T = tau/eps`` and ``q_s = n_s/|A_f|`` (so ``sum_s q_s = 1``, ``0 <= q_s <= 1``) and k = |S_f| <= |Sigma|.

1. the floor: ``q T - 1 <= m_s <= q T`` and ``m_s >= 0`` (z3's ToInt is the floor);
2. the sum by induction over the symbols: a partial sum of j floors lies in ``[Q T - j, Q T]`` for the partial sum Q
   of their q (base j = 0, and the step adding one symbol), so at j = k, Q = 1: ``T - k <= sum m <= T``;
3. the bound: from 1, 2, ``2 k <= T`` and ``k <= |Sigma|``, ``|m_s / sum m - q_s| <= 2 |Sigma| / T``
   (the paper's chain: lower ``q - 1/T``, upper ``q T/(T - k) <= q + 2k/T``).

Negative controls: a floor bounded the wrong way, an induction step without the lower bound of the new term, the
bound with ``|Sigma|`` in place of ``2 |Sigma|``, and the bound without ``|S_f| eps/tau <= 1/2``.
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_with_control

CLAIM = "izzo2025:eq1"


def proof() -> Proof:
    q, T, r = z3.Reals("q T r")
    m = z3.ToInt(r)
    floor_hyps = [r >= 0]
    floor_step = z3_with_control(CLAIM, "floor: r - 1 <= floor(r) <= r and floor(r) >= 0 for r >= 0", floor_hyps,
                                 z3.And(r - 1 <= m, m <= r, m >= 0), neg_goal=z3.And(r <= m, m <= r))

    P, Q, j, mm, qq = z3.Reals("P Q j m q")
    part = [P >= Q * T - j, P <= Q * T, T > 0, j >= 0, mm >= qq * T - 1, mm <= qq * T]
    goal = z3.And(P + mm >= (Q + qq) * T - (j + 1), P + mm <= (Q + qq) * T)
    step = z3_with_control(CLAIM, "sum of floors (induction step): [Q T - j, Q T] grows to [(Q + q) T - (j + 1), "
                           "(Q + q) T]", part, goal, neg_hypotheses=[h for h in part if not z3.eq(h, part[4])])
    base = z3_with_control(CLAIM, "sum of floors (base j = 0): the empty sum 0 lies in [0 T - 0, 0 T]",
                           [T > 0], z3.And(0 >= 0 * T - 0, 0 <= 0 * T), neg_goal=0 >= 0 * T + 1)

    M, k, sigma, ms = z3.Reals("M k sigma m_s")
    hyps = [T > 0, k >= 1, k <= sigma, 2 * k <= T,          # |S_f| <= |Sigma|, |S_f| eps/tau <= 1/2
            M >= T - k, M <= T,                              # step 2 at Q = sum q = 1, j = k
            ms >= q * T - 1, ms <= q * T, ms >= 0,           # step 1
            q >= 0, q <= 1]
    bound = z3.Abs(ms / M - q) <= 2 * sigma / T
    final = z3_with_control(CLAIM, "eq. (1): |m_s / sum m - n_s/|A_f|| <= 2 |Sigma| eps/tau", hyps, bound,
                            neg_goal=z3.Abs(ms / M - q) <= sigma / T)
    no_half = z3_with_control(CLAIM, "eq. (1) needs |S_f| eps/tau <= 1/2 (control: without it the bound fails)",
                              hyps, bound, neg_hypotheses=[h for h in hyps if not z3.eq(h, hyps[3])] + [M > 0])
    return Proof(CLAIM, "Appendix A.1, eq. (1): the rescaled counts m_s", (floor_step, base, step, final, no_half))
