"""The bump family's argument (docstring of bounds/lower.py, ``izzo2025:lower.bump``) as kernel steps, for all
parameters.

From the pair's output ``f - g = 4K (t - t0)_+`` with ``t = n_b/(n_b + 1)`` (the hardmax average over ``$`` and the
b's at residue-0 prefix positions), ``q = eps (1 + xi)/(4K) < 1``, ``t1 = 1 - q`` and ``t0 = t1 - delta/(4K)``
(z3 over the reals and integers):

1. ``|f - g| <= delta`` iff ``t <= t1``;
2. ``t <= t1`` iff ``n_b <= (1 - q)/q``, i.e. ``n_b <= N_b = floor((1 - q)/q)`` for an integer count;
3. an input with ``n_b = N_b + 1`` b's at residue-0 prefix positions has length ``>= 1 + (N_b + 1) Delta + w``, so
   every input of length ``<= (N_b + 1) Delta + w`` agrees;
4. ``sup |f - g| = 4K (1 - t0) = delta + eps (1 + xi) > delta + eps``, and a count n with ``n/(n + 1) > 1 - q_w``
   (``q_w = eps xi/(4K)``) differs by more than ``delta + eps``.

What stays on instances (verify/tests/izzo2025/test_lower.py): that the built pair computes that output and lies in
the class.  Negative controls: t1 without q, the count bound with floor + 1, the length one period short, and the
witness with ``q_w`` doubled.
"""

from __future__ import annotations

import z3

from verify.kernel import Proof, z3_with_control

CLAIM = "izzo2025:lower.bump"


def proof() -> Proof:
    K, eps, delta, xi, q, t, t0, t1, qw = z3.Reals("K eps delta xi q t t0 t1 q_w")
    par = [K > 0, eps > 0, delta >= 0, xi > 0, q == eps * (1 + xi) / (4 * K), q < 1, t1 == 1 - q,
           t0 == t1 - delta / (4 * K), t >= 0, t < 1]
    diff = 4 * K * z3.If(t - t0 > 0, t - t0, 0)
    nb = z3.Int("n_b")
    nbr = z3.ToReal(nb)
    D, w, length, Nb = z3.Ints("Delta w length N_b")
    return Proof(CLAIM, "the bump family's agreement length, for all parameters", (
        z3_with_control(CLAIM, "|f - g| <= delta iff t <= t1", par, (diff <= delta) == (t <= t1),
                        neg_goal=(diff <= delta) == (t <= 1)),
        z3_with_control(CLAIM, "t = n_b/(n_b + 1) <= t1 iff n_b <= floor((1 - q)/q)", par[:7] + [nb >= 0],
                        (nbr / (nbr + 1) <= t1) == (nb <= z3.ToInt((1 - q) / q)),
                        neg_goal=(nbr / (nbr + 1) <= t1) == (nb <= z3.ToInt((1 - q) / q) + 1)),
        z3_with_control(CLAIM, "N_b + 1 b's at residue-0 prefix positions need length >= 1 + (N_b + 1) Delta + w",
                        [D >= 1, w >= 1, Nb >= 0, length >= 1 + (Nb + 1) * D + w], length > (Nb + 1) * D + w,
                        neg_goal=length > (Nb + 2) * D + w),
        z3_with_control(CLAIM, "the witness: n/(n + 1) > 1 - q_w with q_w = eps xi/(4K) gives f - g > delta + eps",
                        par[:8] + [qw == eps * xi / (4 * K), t > 1 - qw], diff > delta + eps,
                        neg_hypotheses=par[:8] + [qw == eps * xi / (2 * K), t > 1 - qw]),
    ))
