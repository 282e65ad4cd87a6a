"""Satisfiability of the hypothesis-class assumptions of ahuja2024 not exhibited elsewhere (A5, A6, A13).

Each step exhibits a member of the class and checks the defining property exactly:
  A5: the sigmoid attention of eq. (19) with n = k = d = 1, psi(x, y) = sigma(x y) y, is differentiable with
      d psi/dy = sigma(x y) + x y sigma(x y)(1 - sigma(x y)) (the head sigma o A is a C^1 bijection: Theorem 4);
  A6: omega = id is a C^1-diffeomorphism with omega(0) = 0;
  A13: psi_k(x, y) = (y - 1/2) g_k(x) has, for every x, the zero y = 1/2 in [0,1] (and psi_k = 0 for
      k > T_max - 1 by definition).
and Definition 2's "uniform distribution" on a support R^n does not exist (a constant density on R^n has
infinite mass), so it is read as a.e. equality on the product support.
The remaining assumptions are exhibited in the modules of their theorems (see the registry evidence).
"""

from __future__ import annotations

import sympy
import z3

from verify.ahuja._common import Sig, key, sympy_step, z3_step
from verify.kernel import Proof


def proof() -> Proof:
    x, y = sympy.symbols("x y")
    zx, zy, g, cc, rr = z3.Reals("x y g c R")
    psi = Sig(x * y) * y
    ident = lambda z: z  # noqa: E731
    return Proof(key("asm5"), "instances of A5, A6, A13", (
        sympy_step("asm5", "A5 instance psi(x, y) = sigma(x y) y: d psi/dy = sigma + x y sigma (1 - sigma)",
                   sympy.diff(psi, y), Sig(x * y) + x * y * Sig(x * y) * (1 - Sig(x * y)),
                   neg_rhs=Sig(x * y) + x * y * Sig(x * y) * (1 - Sig(x * y)) + 1),
        z3_step("asm6", "A6 instance omega = id: omega(0) = 0 and omega is injective", [ident(zx) == ident(zy)],
                z3.And(zx == zy, ident(z3.RealVal(0)) == 0), neg_hypotheses=[]),
        z3_step("def2", "Definition 2: no uniform density on R^n -- a constant density c > 0 on [-R, R] (n = 1) "
                "has mass 2 R c > 1 once R = 1/c", [cc > 0, rr == 1 / cc], 2 * rr * cc > 1,
                neg_hypotheses=[cc > 0, rr == 1 / (4 * cc)]),
        z3_step("asm13", "A13 instance psi_k(x, y) = (y - 1/2) g(x): for every x the zero y = 1/2 lies in [0,1]",
                [zy == z3.RealVal("1/2")], z3.And((zy - z3.RealVal("1/2")) * g == 0, 0 <= zy, zy <= 1),
                neg_hypotheses=[zy == 1]),
    ))
