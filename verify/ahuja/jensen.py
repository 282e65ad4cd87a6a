"""Theorem 7 of ahuja2024 (attention averaged over the other tokens, C^1-diffeomorphic head), App. A.2.2,
eqs. (60)-(67): the midpoint (Jensen) form and its reduction to Cauchy additivity.

Statement.  H follows Assumption 6 (h = omega((1/(i-1)) sum_{j<i} psi(x_i, x_j)), omega a C^1-diffeomorphism
with omega(0) = 0), f in H, Assumptions 2 and 7, T >= 3.  Every minimiser equals f on [0,1]^{nt}.

Chain (:func:`proof`), a = omega^{-1} o rho modelled (m = 2) by uninterpreted z3 functions:
  (61)   i = 2: psi(x, y) = a(phi(x, y));
  (62)-(63) i = 3 with x_3 = x, x_2 = y, x_1 = z, then (61) at (x, y) and (x, z): the midpoint form
         J(alpha, beta): (a(alpha) + a(beta))/2 = a((alpha + beta)/2);
  a(0) = 0 from omega(0) = 0 = rho(0) (A6 and f in H);
  (64)   substitute (alpha, beta) -> (2 alpha, 0): a(2 alpha) = 2 a(alpha);
  (65)   substitute (alpha, beta) -> (2 alpha, 2 beta), then (64) at alpha, beta: additivity H(alpha, beta);
  then the Cauchy chain of :mod:`verify.ahuja.cauchy` on the derived instances, continuity cited,
  (66)-(67) omega = rho o C, h = f at every length (exact, generic 2x2 C).
The instances consumed are J(2 alpha, 0) and J(2 alpha, 2 beta): the support of the pair must be closed under
doubling, hence R^{2m}.

Findings (:func:`findings`).  Dropping omega(0) = 0: the affine a(z) = z + 1 satisfies the midpoint form
for all alpha, beta, yet a(2 alpha) != 2 a(alpha) -- the hypothesis is needed for (64); with the averaged
class the affine offset cancels at every length (psi = phi + c, omega = rho(. - c)), so the conclusion
survives (exact identity).  The "labels at length T only" remark (T odd) reproduces (61) and (62) exactly.
Assumption 7 has the same compact-image problem as Assumption 4 (see :mod:`verify.ahuja.cauchy`).
"""

from __future__ import annotations

import sympy
import z3

from verify.ahuja._common import key, linalg_step, sympy_step, z3_step
from verify.ahuja.cauchy import ZERO, H, a, add, chain_steps, scale, veq
from verify.kernel import CitedLemma, Proof

CLAIM = "thm7"

_al = z3.Reals("al0 al1")
_be = z3.Reals("be0 be1")


def half(v):
    return scale(z3.RealVal(1) / 2, v)


def J(u, v):
    """The midpoint hypothesis at (u, v): (a(u) + a(v))/2 = a((u + v)/2)."""
    return veq(half(add(a(u), a(v))), a(half(add(u, v))))


def proof() -> Proof:
    al, be = _al, _be
    psy, psz, phy, phz = (z3.Reals(f"{n}0 {n}1") for n in ("psy", "psz", "phy", "phz"))
    i2 = [veq(psy, a(phy)), veq(psz, a(phz))]
    i3 = veq(half(add(psy, psz)), a(half(add(phy, phz))))
    a0 = veq(a(ZERO), ZERO)
    dbl = lambda v: veq(a(scale(2, v)), scale(2, a(v)))  # noqa: E731
    w = z3.Function("omega", z3.RealSort(), z3.RealSort())
    winv = z3.Function("omega_inv", z3.RealSort(), z3.RealSort())
    rho0 = z3.Real("rho0")
    steps = [
        CitedLemma(key(CLAIM), "lemma3", statement="h = f on supp(X_{<=i}) for i <= T (Lemma 3, first part)",
                   source="ahuja2024 eq. (60)"),
        z3_step(CLAIM, "(62)-(63) i = 3 (x3 = x, x2 = y, x1 = z) and (61) at (x,y), (x,z): midpoint form J(phi(x,y), phi(x,z))",
                [*i2, i3], J(phy, phz), neg_hypotheses=[i2[0], i3]),
        z3_step(CLAIM, "a(0) = 0: rho(0) = 0 and omega(0) = 0, a = omega^{-1} o rho (coordinate 0)",
                [rho0 == 0, w(0) == 0, winv(w(0)) == 0], winv(rho0) == 0, neg_hypotheses=[rho0 == 0]),
        z3_step(CLAIM, "(64) substitute (alpha, beta) -> (2 alpha, 0): a(2 alpha) = 2 a(alpha)",
                [J(scale(2, al), ZERO), a0], dbl(al), neg_hypotheses=[J(scale(2, al), ZERO)]),
        z3_step(CLAIM, "(65) substitute (alpha, beta) -> (2 alpha, 2 beta), then (64) at alpha, beta: H(alpha, beta)",
                [J(scale(2, al), scale(2, be)), dbl(al), dbl(be)], H(al, be),
                neg_hypotheses=[J(scale(2, al), scale(2, be)), dbl(al)]),
        *chain_steps(CLAIM),
        _conclusion(),
    ]
    return Proof(key(CLAIM), "Theorem 7: the midpoint form with a(0) = 0 makes a linear", tuple(steps))


def eq63_65_vector_space() -> Proof:
    """(63)-(65) in an abstract vector space (every dimension m): the midpoint form J and a(0) = 0 give
    a(2 alpha) = 2 a(alpha) (substitute (2 alpha, 0)) and additivity (substitute (2 alpha, 2 beta))."""
    from verify.ahuja._common import VectorSpace

    V = VectorSpace("V63")
    av = V.fn("a63")
    al, be = V.vec("alpha"), V.vec("beta")
    half = lambda v: V.sc(z3.RealVal(1) / 2, v)  # noqa: E731
    two = lambda v: V.sc(2, v)  # noqa: E731

    def Jv(u, v):
        return half(V.add(av(u), av(v))) == av(half(V.add(u, v)))

    def halves(v):  # (1/2)(2 v) = v and 2 ((1/2) v) = v
        return [V.sc_sc(z3.RealVal(1) / 2, 2, v), V.sc_one(v), V.sc_sc(2, z3.RealVal(1) / 2, v)]

    a0 = av(V.zero) == V.zero
    dbl = lambda v: av(two(v)) == two(av(v))  # noqa: E731
    s64 = [Jv(two(al), V.zero), a0, V.add_zero(two(al)), V.add_zero(av(two(al))), *halves(al),
           *halves(av(two(al)))]
    s65 = [Jv(two(al), two(be)), dbl(al), dbl(be), V.sc_add(2, al, be), V.sc_add(2, av(al), av(be)),
           *halves(V.add(al, be)), *halves(V.add(av(al), av(be)))]
    return Proof(key("eq63-65"), "(63)-(65) in every dimension", (
        z3_step("eq63-65", "(64) J(2 alpha, 0) and a(0) = 0 give a(2 alpha) = 2 a(alpha) (any m)", s64, dbl(al),
                neg_hypotheses=[h for h in s64 if h is not a0]),
        z3_step("eq63-65", "(65) J(2 alpha, 2 beta) and (64) at alpha, beta give a(alpha + beta) = a(alpha) + "
                "a(beta) (any m)", s65, av(V.add(al, be)) == V.add(av(al), av(be)),
                neg_hypotheses=[h for h in s65 if not z3.eq(h, dbl(be))]),
    ))


def _conclusion():
    c11, c12, c21, c22, s1, s2 = sympy.symbols("c11 c12 c21 c22 s1 s2")
    C = sympy.Matrix([[c11, c12], [c21, c22]])
    s = sympy.Matrix([s1, s2])      # (1/(t-1)) sum_j phi(x_t, x_j)
    # psi = C^{-1} phi, omega = rho o C: rho's argument is C (1/(t-1)) sum psi = (1/(t-1)) sum phi.
    # C^{-1} = adj(C)/det(C): the identity C adj(C) s = det(C) s is polynomial, checked expanded.
    return linalg_step(CLAIM, "(66)-(67) psi = C^{-1} phi, omega = rho o C: rho's argument is the true average "
                       "(C adj(C) s = det(C) s, generic 2x2 C)",
                       lambda: (C * (C.adjugate() * s) - C.det() * s).applyfunc(sympy.expand),
                       lambda: (C * (C.adjugate() * s) - s).applyfunc(sympy.expand))


def findings() -> Proof:
    x, y = z3.Reals("x y")
    aff = lambda z: z + 1  # noqa: E731
    t, c, ph = sympy.symbols("t c phi")
    steps = [
        z3_step("asm6", "omega(0) = 0 is needed for (64): a(z) = z + 1 satisfies the midpoint form for all alpha, beta",
                [], (aff(x) + aff(y)) / 2 == aff((x + y) / 2), neg_goal=(x * x + y * y) / 2 == ((x + y) / 2) ** 2),
        z3_step("asm6", "... and violates a(2 alpha) = 2 a(alpha) (at every alpha)", [], aff(2 * x) != 2 * aff(x),
                neg_goal=aff(2 * x) == 2 * aff(x)),
        sympy_step("asm6", "with averaging the affine offset cancels: psi = phi + c, omega = rho(. - c) gives "
                   "rho's argument (1/(t-1)) sum (phi + c) - c = mean phi at every length t",
                   ((t - 1) * (ph + c)) / (t - 1) - c, ph, neg_lhs=((t - 1) * (ph + c)) - c),
        _odd_t_remark(),
    ]
    return Proof(key(CLAIM), "Theorem 7: the role of omega(0) = 0 and the odd-T remark", tuple(steps))


def _odd_t_remark():
    T = 5
    py, pz = sympy.symbols("psi_xy psi_xz")
    keys = [py if j % 2 == 1 else pz for j in range(1, T)]    # x_{2j-1} = y, x_{2j} = z
    avg = sum(keys) / (T - 1)
    return sympy_step(CLAIM, "remark (label at length T only, T = 5 odd): keys y, z alternating give "
                      "(psi(x,y) + psi(x,z))/2, the left side of (62)", avg, (py + pz) / 2,
                      neg_lhs=sum(keys[:-1]) / (T - 2))
