"""The chain family's argument (docstring of bounds/lower.py, ``izzo2025:lower.chain``) as kernel steps, for every
number of heads h and all parameters.

From the pair's output ``f - g = (4K/h)(nu - sum_i (1 - t_i))_+`` with ``1 - t_i = (1 + n_i)/(1 + n_i + n_(i+1))``,
``nu = nu1 + h delta/(4K)``, ``nu1 = h eps (1 + xi)/(4K) < 1`` and ``rho = 1/nu1 - 1`` (z3 over the reals and integers):

1. ``|f - g| > delta`` forces ``sum_i (1 - t_i) < nu1``, so every term is ``< nu1`` (a sum of non-negative terms
   bounds each, by induction over the terms);
2. a term ``< nu1`` is ``n_(i+1) > (1 + n_i) rho``;
3. by induction over i (base ``n_1 >= 0``, step with ``sigma_i = rho + rho sigma_(i-1)``):
   ``n_(i+1) > rho + ... + rho^i = sigma_i``, so ``n_(i+1) >= floor(sigma_i) + 1`` (an integer above sigma_i);
4. the residue-0 prefix positions then number at least S, so the input is longer than ``S Delta + tau + 1``;
5. the witness ``n_i = c^(i-1) - 1`` with ``c > h/nu2`` has every term ``<= 1/c``, so the sum is ``< nu2`` and
   ``f - g > delta + eps``.

What stays on instances (verify/tests/izzo2025/test_lower.py): that the built pair computes that output (hardmax
attention on ``$``, b_i and b_(i+1) at residue 0; the unit's weights) and lies in the class.

Negative controls: the sum bound with ``nu``'s delta part doubled, the step without ``rho > 0``, the integer step with
``floor(sigma)`` in place of ``floor(sigma) + 1``, and the witness with ``c = h/nu2``.
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_with_control

CLAIM = "izzo2025:lower.chain"


def proof() -> Proof:
    K, h, eps, delta, xi, X, nu1, nu = z3.Reals("K h eps delta xi X nu1 nu")
    par = [K > 0, h >= 1, eps > 0, delta >= 0, xi > 0, nu1 == h * eps * (1 + xi) / (4 * K), nu1 < 1,
           nu == nu1 + h * delta / (4 * K), X >= 0]
    diff = (4 * K / h) * z3.If(nu - X > 0, nu - X, 0)
    S_, x = z3.Reals("partial term")
    ni, nj, rho, sig_prev, sig = z3.Reals("n_i n_next rho sigma_prev sigma")
    r = [nu1 > 0, nu1 < 1, rho == 1 / nu1 - 1, ni >= 0, nj >= 0]
    ind = [rho > 0, ni > sig_prev, nj > (1 + ni) * rho, sig == rho + rho * sig_prev]
    n_int, s_real = z3.Int("n"), z3.Real("s")
    cnt, D, w, length = z3.Ints("S Delta w length")
    c, Xc, nu2 = z3.Reals("c X nu2")
    return Proof(CLAIM, "the chain family's agreement length, for every number of heads", (
        z3_with_control(CLAIM, "|f - g| > delta forces sum (1 - t_i) < nu1", par + [diff > delta], X < nu1,
                        neg_hypotheses=[p for p in par if not z3.eq(p, par[7])] + [nu == nu1 + h * delta / (2 * K),
                                                                                    diff > delta]),
        z3_with_control(CLAIM, "a sum of non-negative terms bounds each (induction step: partial + term)",
                        [S_ >= 0, x >= 0], z3.And(S_ <= S_ + x, x <= S_ + x), neg_goal=S_ + x <= x),
        z3_with_control(CLAIM, "a term (1 + n_i)/(1 + n_i + n_(i+1)) < nu1 is n_(i+1) > (1 + n_i) rho", r,
                        ((1 + ni) / (1 + ni + nj) < nu1) == (nj > (1 + ni) * rho),
                        neg_goal=((1 + ni) / (1 + ni + nj) < nu1) == (nj > ni * rho)),
        z3_with_control(CLAIM, "induction base: n_2 > (1 + n_1) rho >= rho = sigma_1 (n_1 >= 0)",
                        [rho > 0, ni >= 0, nj > (1 + ni) * rho], nj > rho, neg_hypotheses=[nj > (1 + ni) * rho]),
        z3_with_control(CLAIM, "induction step: n_i > sigma_(i-1) gives n_(i+1) > rho + rho sigma_(i-1) = sigma_i", ind,
                        nj > sig, neg_hypotheses=ind[1:]),
        z3_with_control(CLAIM, "an integer above sigma is at least floor(sigma) + 1",
                        [z3.ToReal(n_int) > s_real], n_int >= z3.ToInt(s_real) + 1,
                        neg_goal=n_int >= z3.ToInt(s_real) + 2),
        z3_with_control(CLAIM, "S residue-0 prefix positions (the S-th at 1 + S Delta) and the window: the input is "
                        "longer than S Delta + tau + 1 (w = tau + 1)",
                        [D >= 1, w >= 1, cnt >= 1, length >= 1 + cnt * D + w], length > cnt * D + w,
                        neg_goal=length > cnt * D + w + 1),
        z3_with_control(CLAIM, "the witness n_i = c^(i-1) - 1: each term X/(X + c X - 1) <= 1/c (X = c^(i-1) >= 1)",
                        [c > 1, Xc >= 1], Xc / (Xc + c * Xc - 1) <= 1 / c, neg_hypotheses=[c > 1, Xc > 0]),
        z3_with_control(CLAIM, "the witness differs: sum (1 - t_i) <= h/c < nu2 = h eps xi/(4K) gives f - g > delta + eps",
                        par[:8] + [nu2 == h * eps * xi / (4 * K), c > h / nu2, X >= 0, X <= h / c],
                        diff > delta + eps,
                        neg_hypotheses=par[:8] + [nu2 == h * eps * xi / (4 * K), c == h / nu2, X >= 0, X <= h / c]),
    ))
