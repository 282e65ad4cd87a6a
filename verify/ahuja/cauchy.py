"""Theorem 5 of ahuja2024 (deep sets with a C^1-diffeomorphic head): Cauchy additivity, eqs. (13)-(18).

Statement.  H follows Assumption 3 (h = omega(sum_j psi(x_j)), omega a C^1-diffeomorphism), f in H,
Assumptions 2 and 4 (supp(X_j) = [0,1]^n and supp([phi(X_1), phi(X_2)]) = R^{2m}), T >= 2.  Every
minimiser equals f on [0,1]^{nt} for all t.

Chain (:func:`proof`).  a = omega^{-1} o rho : R^m -> R^m is modelled, for m = 2, by two uninterpreted z3
functions a_0, a_1 of two real arguments; every use of the hypothesis H(alpha, beta):
a(alpha + beta) = a(alpha) + a(beta) is a ground instance written out, exactly as the paper substitutes:
  (14)-(16) i = 1 gives psi = a(phi); i = 2 then gives H(phi(x), phi(y));
  a(0) = 0                from H(0, 0);
  a(-alpha) = -a(alpha)   from H(alpha, -alpha);
  a(p alpha) = p a(alpha) from H(alpha, (k-1) alpha), k = 2..p (ground, p = 5) and the symbolic induction
                          step k -> k + 1; negative p through a(-alpha);
  a(alpha/q) = a(alpha)/q from the integer case at the point alpha/q (q = 3), then p/q = 2/3;
  continuity and density of Q give real homogeneity (cited);
  (17)-(18) a(z) = A z, A invertible, omega = rho o A^{-1}: h = f at every length (exact, generic 2x2 A).
The instances consumed are H(0,0), H(alpha,-alpha), H(alpha, k alpha), H(alpha/q, k alpha/q): the support of
[phi(X_1), phi(X_2)] must contain every rational multiple of every point, which is where R^{2m} comes from.

Findings (:func:`findings`, catalog A-T5-SUPP).  (i) For phi continuous on the closed cube, phi([0,1]^n) is
compact, so the second clause of Assumption 4 fails; it can hold only for phi unbounded on the open cube,
e.g. phi = logit (exhibited), where Lemma 3's C^1-on-the-closed-support hypothesis fails.  (ii) The clause is
load-bearing: with n = m = 1, tokens on [0,1], phi(x) = x, rho = id and the C^1 diffeomorphism
a(z) = z (z <= T), z + (z - T)^3 (z > T), the learner psi = phi, omega = a^{-1} fits every length t <= T = 2
exactly and is wrong at t = 3 on x = (1, 1, 1).
"""

from __future__ import annotations

import sympy
import z3

from verify.ahuja._common import key, linalg_step, sigmoid, sympy_step, z3_step
from verify.kernel import CitedLemma, Proof

CLAIM = "thm5"

_A = [z3.Function(f"a{k}", z3.RealSort(), z3.RealSort(), z3.RealSort()) for k in range(2)]


def a(v):
    """a applied to a 2-vector of z3 terms: a tuple of two terms."""
    return tuple(f(v[0], v[1]) for f in _A)


def add(u, v):
    return (u[0] + v[0], u[1] + v[1])


def scale(c, v):
    return (c * v[0], c * v[1])


def veq(u, v):
    return z3.And(u[0] == v[0], u[1] == v[1])


def H(u, v):
    """The additivity hypothesis instantiated at the pair (u, v): a(u + v) = a(u) + a(v)."""
    return veq(a(add(u, v)), add(a(u), a(v)))


_al = z3.Reals("al0 al1")
_be = z3.Reals("be0 be1")
ZERO = (z3.RealVal(0), z3.RealVal(0))


def integer_homogeneity_instances(p: int, point=_al) -> list:
    """H(point, (k-1) point) for k = 2..p: what a(p point) = p a(point) consumes."""
    return [H(point, scale(k - 1, point)) for k in range(2, p + 1)]


def chain_steps(claim: str) -> list:
    """The Cauchy chain a(0) = 0 ... rational homogeneity, each step from ground instances of H.

    Theorem 7 reuses it after deriving H from the midpoint form (eq. 65).
    """
    al = _al
    zero_h = [H(ZERO, ZERO)]
    neg_h = [H(al, scale(-1, al))]
    k = z3.Real("k")
    p, q = 5, 3
    third = scale(z3.RealVal(1) / q, al)
    steps = [
        z3_step(claim, "a(0) = 0: substitute alpha = beta = 0", zero_h, veq(a(ZERO), ZERO), neg_hypotheses=[]),
        z3_step(claim, "a(-alpha) = -a(alpha): substitute beta = -alpha", zero_h + neg_h,
                veq(a(scale(-1, al)), scale(-1, a(al))), neg_hypotheses=zero_h),
        z3_step(claim, f"a({p} alpha) = {p} a(alpha): substitute beta = (k-1) alpha, k = 2..{p}",
                integer_homogeneity_instances(p), veq(a(scale(p, al)), scale(p, a(al))),
                neg_hypotheses=integer_homogeneity_instances(p)[:-1]),
        z3_step(claim, "induction step: a(k alpha) = k a(alpha) and H(alpha, k alpha) => a((k+1) alpha) = (k+1) a(alpha)",
                [veq(a(scale(k, al)), scale(k, a(al))), H(al, scale(k, al))],
                veq(a(add(al, scale(k, al))), scale(k + 1, a(al))),
                neg_hypotheses=[H(al, scale(k, al))]),
        sympy_step(claim, "induction step: alpha + k alpha = (k + 1) alpha",
                   sympy.Symbol("alpha") + sympy.Symbol("k") * sympy.Symbol("alpha"),
                   (sympy.Symbol("k") + 1) * sympy.Symbol("alpha"), neg_rhs=sympy.Symbol("k") + 1),
        z3_step(claim, f"a(-{p} alpha) = -{p} a(alpha): integer case at -alpha, then a(-alpha) = -a(alpha)",
                zero_h + neg_h + integer_homogeneity_instances(p, scale(-1, al)),
                veq(a(scale(-p, al)), scale(-p, a(al))),
                neg_hypotheses=integer_homogeneity_instances(p, scale(-1, al))),
        z3_step(claim, f"a(alpha/{q}) = a(alpha)/{q}: integer case a({q} (alpha/{q})) = {q} a(alpha/{q})",
                integer_homogeneity_instances(q, third), veq(a(third), scale(z3.RealVal(1) / q, a(al))),
                neg_hypotheses=integer_homogeneity_instances(q, third)[:-1]),
        z3_step(claim, "a(2/3 alpha) = 2/3 a(alpha): a(2 (alpha/3)) = 2 a(alpha/3) and the 1/q case",
                integer_homogeneity_instances(q, third) + integer_homogeneity_instances(2, third),
                veq(a(scale(z3.RealVal(2) / 3, al)), scale(z3.RealVal(2) / 3, a(al))),
                neg_hypotheses=integer_homogeneity_instances(2, third)),
        CitedLemma(key(claim), "real homogeneity", statement=(
            "a continuous and a(c alpha) = c a(alpha) for all rational c imply it for all real c "
            "(take rationals q_n -> c; a(c alpha) = lim a(q_n alpha) = lim q_n a(alpha))"),
            source="ahuja2024 Thm 5 proof; a = omega^{-1} o rho is continuous"),
        CitedLemma(key(claim), "linear map", statement="an additive, R-homogeneous a: R^m -> R^m is a(z) = A z",
                   source="definition of a linear map"),
    ]
    return steps


def _substitution_steps() -> list:
    psx, psy, phx, phy = (z3.Reals(f"{n}0 {n}1") for n in ("psx", "psy", "phx", "phy"))
    i1 = [veq(psx, a(phx)), veq(psy, a(phy))]
    i2 = veq(add(psx, psy), a(add(phx, phy)))
    return [
        z3_step(CLAIM, "(14)-(15) i = 1 gives psi = a(phi) at x and y; i = 2 then gives H(phi(x), phi(y))",
                [*i1, i2], H(phx, phy), neg_hypotheses=[i1[0], i2]),
    ]


def eq16_vector_space() -> Proof:
    """(14)-(16) in an abstract vector space (every dimension m): i = 1 gives psi = a(phi) at x and y, i = 2
    gives psi(x) + psi(y) = a(phi(x) + phi(y)), hence a(alpha) + a(beta) = a(alpha + beta) at alpha = phi(x),
    beta = phi(y) -- every pair (alpha, beta) when supp([phi(X_1), phi(X_2)]) = R^{2m} (Assumption 4)."""
    from verify.ahuja._common import VectorSpace

    V = VectorSpace("V16")
    av = V.fn("a16")
    psx, psy, phx, phy = (V.vec(n) for n in ("psi_x", "psi_y", "phi_x", "phi_y"))
    i1 = [psx == av(phx), psy == av(phy)]
    i2 = V.add(psx, psy) == av(V.add(phx, phy))
    return Proof(key("eq16"), "(16) in every dimension", (
        z3_step("eq16", "(14)-(16) i = 1 and i = 2 give a(phi(x)) + a(phi(y)) = a(phi(x) + phi(y)) (any m)",
                [*i1, i2], V.add(av(phx), av(phy)) == av(V.add(phx, phy)), neg_hypotheses=[i1[0], i2]),
        CitedLemma(key("eq16"), "support R^{2m}", statement=(
            "(phi(x), phi(y)) ranges over supp([phi(X_1), phi(X_2)]) = R^{2m} (Assumption 4), so the identity "
            "holds for every alpha, beta in R^m"), source="ahuja2024 Assumption 4"),
    ))


def _conclusion_steps() -> list:
    a11, a12, a21, a22, s1, s2 = sympy.symbols("a11 a12 a21 a22 s1 s2")
    A = sympy.Matrix([[a11, a12], [a21, a22]])
    s = sympy.Matrix([s1, s2])
    # h(x) = omega(sum psi) = rho(A^{-1} sum psi) and sum psi = A sum phi: the argument of rho is sum phi.
    # A^{-1} = adj(A)/det(A): the identity adj(A) A s = det(A) s is polynomial, checked expanded.
    return [linalg_step(CLAIM, "(17)-(18) omega = rho o A^{-1}, psi = A phi: rho's argument is sum phi "
                        "(adj(A) A s = det(A) s, generic 2x2 A)",
                        lambda: (A.adjugate() * (A * s) - A.det() * s).applyfunc(sympy.expand),
                        lambda: (A.adjugate() * (A * s) - s).applyfunc(sympy.expand))]


def proof() -> Proof:
    steps = [
        CitedLemma(key(CLAIM), "lemma3", statement="h = f on supp(X_{<=i}) for i <= T (Lemma 3, first part)",
                   source="ahuja2024 eq. (13)"),
        *_substitution_steps(),
        CitedLemma(key(CLAIM), "support R^{2m}", statement=(
            "by Assumption 4 every (alpha, beta) in R^m x R^m is (phi(x), phi(y)) for some x, y in the support"),
            source="ahuja2024 eq. (16)"),
        *chain_steps(CLAIM),
        *_conclusion_steps(),
    ]
    return Proof(key(CLAIM), "Theorem 5: Cauchy additivity makes a = omega^{-1} o rho linear", tuple(steps))


def _bump_a(z, T):
    """The C^1 diffeomorphism a(z) = z for z <= T, z + (z - T)^3 for z > T, as a z3 term."""
    return z3.If(z <= T, z, z + (z - T) ** 3)


def bounded_support_steps(claim: str) -> list:
    """Theorem 5's conclusion fails once phi is bounded (T = 2, tokens in [0,1], phi = id, rho = id)."""
    T = 2
    x1, x2, x3, y, z = z3.Reals("x1 x2 x3 y z")
    box = [0 <= x1, x1 <= 1, 0 <= x2, x2 <= 1, 0 <= x3, x3 <= 1]
    s_tr = x1 + x2
    return [
        z3_step(claim, "bounded witness: a = id on the training sums s in [0, T] (lengths t <= T = 2), "
                "so omega(sum psi) = a^{-1}(sum phi) = f there", box, _bump_a(s_tr, T) == s_tr,
                neg_goal=_bump_a(s_tr + x3, T) == s_tr + x3),
        z3_step(claim, "bounded witness: a is a C^1 diffeomorphism (a' = 1 + 3 (z - T)^2 >= 1 for z > T, "
                "and a' -> 1 at T)", [z > T], 1 + 3 * (z - T) ** 2 >= 1, neg_goal=1 + 3 * (z - T) ** 2 > 1 + 1),
        z3_step(claim, "bounded witness: at t = 3, x = (1,1,1): h = a^{-1}(3) != 3 = f", [_bump_a(y, T) == 3],
                y != 3, neg_goal=y == 3),
    ]


def findings() -> Proof:
    al = sympy.Symbol("alpha", real=True)
    x = sigmoid(al)        # the token whose logit is alpha
    steps = [
        CitedLemma(key("asm4"), "compact image", statement=(
            "a continuous phi on the compact cube [0,1]^n has a compact image, so supp(phi(X_1)) is bounded "
            "and supp([phi(X_1), phi(X_2)]) != R^{2m}"), source="Heine-Borel"),
        sympy_step("asm4", "A4 is met by phi = logit on tokens uniform on (0,1): logit(sigma(alpha)) = alpha "
                   "for every real alpha", sympy.log(x / (1 - x)), al, neg_lhs=x),
        *bounded_support_steps(CLAIM),
    ]
    return Proof(key(CLAIM), "Assumption 4 needs unbounded phi, and Theorem 5 fails without it", tuple(steps))
