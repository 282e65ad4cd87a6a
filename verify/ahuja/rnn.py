"""Theorem 9 of ahuja2024 (vanilla RNN h_t = sigma(Lambda h_{t-1} + B x_t), y_t = sigma(A h_t)), eqs. (28)-(41),
with Lemma 15 (derivatives of the sigmoid) and Lemma 16 (A x = 0 on a set with interior => A = 0).

Statement.  A10 (A, B, Lambda square invertible, sigma = sigmoid), f in H, A2, T >= 2.  Every minimiser
satisfies A~ = A Pi, B~ = Pi^T B, Lambda~ = Pi^T Lambda Pi and h_k = Pi h~_k for a permutation Pi.

Chain (:func:`proof`):
  (29)-(30) y = B~ x: B x = V y with V = B B~^{-1}, so sigma(V y) = U sigma(y), U = A^{-1} A~;
  (32) support step: v_i != 0, u_i = 0 gives sigma'(v.y) v_i = 0, impossible as sigma' = S(1 - S) with
       S in (0,1);  (33) symmetric;
  (34) p = 2: d^2/dy1 dy2 sigma(v1 y1 + v2 y2) = v1 v2 sigma''(s) while the right side has no mixed
       term; sigma'' = S(1-S)(1-2S) vanishes only at S = 1/2, a single point (p = 3 likewise; general p via
       Lemma 15 and analyticity, cited);
  scalar step: sigma(v y) = u sigma(y) on an interval; clear denominators to g(y) = 1 + e^{-y} - u - u e^{-vy},
       g = g' = g'' = 0 at a point force v = 1, u = 1;
  permutation step: rows with one entry 1 and an invertible matrix form a permutation (all 27 such 3x3);
  (35) Pi sigma(z) = sigma(Pi z) for all 6 permutations of 3 coordinates;
  (36) + Lemma 16: Pi Lambda~ Pi^T = Lambda => Lambda~ = Pi^T Lambda Pi;
  (37)-(41) induction h_k = Pi h~_k: base and step with the hypothesis substituted (symbolic, n = 2), and
       y~_k = sigma(A Pi h~_k) = y_k.  The control of the step is the paper's eq. (40) as printed, with x_k
       in place of x_{k+1}: it does not give h_{k+1}.
"""

from __future__ import annotations

import functools
import itertools

import sympy
import z3

from verify.ahuja._common import (
    Elementwise,
    Sig,
    enum_step,
    ground,
    key,
    linalg_step,
    rat_matrix,
    sigmoid,
    sympy_step,
    z3_step,
)
from verify.kernel import CitedLemma, Proof

CLAIM = "thm9"


def sig_vec(v: sympy.Matrix) -> sympy.Matrix:
    """An arbitrary function applied coordinate-wise (arguments expanded so equal arguments are equal).

    Steps (35)-(41) use only that sigma acts coordinate-wise, so they are checked for every such function.
    """
    return v.applyfunc(lambda e: Elementwise(sympy.expand(e)))


def perm_matrix(p) -> sympy.Matrix:
    n = len(p)
    return sympy.Matrix(n, n, lambda i, j: 1 if p[i] == j else 0)


def _gen(name: str, n: int = 2) -> sympy.Matrix:
    return sympy.Matrix(n, n, sympy.symbols(f"{name}0:{n * n}"))


def _one_hot_rows(n: int):
    for rows in itertools.product(range(n), repeat=n):
        yield sympy.Matrix(n, n, lambda i, j, r=rows: 1 if r[i] == j else 0)


def _is_perm(m: sympy.Matrix) -> bool:
    return all(sum(m[:, j]) == 1 for j in range(m.cols)) and all(sum(m[i, :]) == 1 for i in range(m.rows))


def sigmoid_steps(claim: str) -> list:
    s, y1, y2, y3, v1, v2, v3 = sympy.symbols("s y1 y2 y3 v1 v2 v3")
    S = Sig(s)
    d2 = sympy.diff(S, s, 2)
    d3 = sympy.diff(S, s, 3)
    u = [sympy.Symbol(f"u{i}") for i in range(3)]
    rhs3 = sum(ui * Sig(y) for ui, y in zip(u, (y1, y2, y3), strict=True))
    return [
        sympy_step(claim, "sigma' = sigma (1 - sigma) for sigma(s) = 1/(1 + e^{-s}) (the rule carried by Sig)",
                   sympy.diff(sigmoid(s), s), sigmoid(s) * (1 - sigmoid(s)), neg_rhs=sigmoid(s) * (1 - sigmoid(s)) + 1),
        sympy_step(claim, "(34) p = 2: d^2/dy1 dy2 sigma(v1 y1 + v2 y2) = v1 v2 sigma''(v1 y1 + v2 y2)",
                   sympy.diff(Sig(v1 * y1 + v2 * y2), y1, y2), v1 * v2 * d2.subs(s, v1 * y1 + v2 * y2),
                   neg_rhs=v1 * v2 * d2.subs(s, v1 * y1 + v2 * y2) + v1 * v2),
        sympy_step(claim, "(34) p = 3: the mixed third partial of sigma(v.y) - u.sigma(y) is v1 v2 v3 sigma'''",
                   sympy.diff(Sig(v1 * y1 + v2 * y2 + v3 * y3) - rhs3, y1, y2, y3),
                   v1 * v2 * v3 * d3.subs(s, v1 * y1 + v2 * y2 + v3 * y3),
                   neg_rhs=v1 * v2 * v3 * d3.subs(s, v1 * y1 + v2 * y2 + v3 * y3) + u[0]),
        sympy_step(claim, "sigma'' = S (1 - S)(1 - 2 S), S = sigma(s)", d2, S * (1 - S) * (1 - 2 * S),
                   neg_rhs=S * (1 - S)),
    ]


def _scalar_steps() -> list:
    y, u, v = sympy.symbols("y u v")
    cleared = (sigmoid(v * y) - u * sigmoid(y)) * (1 + sympy.exp(-y)) * (1 + sympy.exp(-v * y))
    E1, Ev, uu, vv = z3.Reals("E1 Ev u v")
    g = 1 + E1 - uu - uu * Ev
    g1 = -E1 + uu * vv * Ev
    g2 = E1 - uu * vv * vv * Ev
    at_v1 = z3.Implies(vv == 1, Ev == E1)      # e^{-v y} at v = 1 is e^{-y}
    gd = sympy.Matrix([sympy.diff(1 + sympy.exp(-y) - u - u * sympy.exp(-v * y), y, k) for k in (1, 2)])
    return [
        sympy_step(CLAIM, "scalar: clearing denominators, sigma(v y) = u sigma(y) iff 1 + e^{-y} = u + u e^{-v y}",
                   cleared, (1 + sympy.exp(-y)) - u * (1 + sympy.exp(-v * y)), neg_rhs=(1 + sympy.exp(-y)) - u * (1 + sympy.exp(-v * y)) + u),
        linalg_step(CLAIM, "scalar: g' and g'' of g = 1 + e^{-y} - u - u e^{-v y}",
                    lambda: gd - sympy.Matrix([-sympy.exp(-y) + u * v * sympy.exp(-v * y),
                                               sympy.exp(-y) - u * v**2 * sympy.exp(-v * y)]),
                    lambda: ground(gd - sympy.Matrix([-sympy.exp(-y), sympy.exp(-y)]))),
        CitedLemma(key(CLAIM), "derivatives on an interval", statement=(
            "if g = 0 on an open interval then g' = g'' = 0 there"), source="elementary"),
        z3_step(CLAIM, "scalar: g = g' = g'' = 0 at a point, e^{-y}, e^{-v y} > 0 => v = 1 and u = 1",
                [E1 > 0, Ev > 0, g == 0, g1 == 0, g2 == 0, at_v1], z3.And(vv == 1, uu == 1),
                neg_hypotheses=[E1 > 0, Ev > 0, g == 0, g1 == 0, at_v1]),
    ]


@functools.cache
def proof() -> Proof:
    S, Si, vi, ui = z3.Reals("S Si vi ui")
    Bs, Bt = _gen("b"), _gen("bt")
    x = sympy.Matrix(sympy.symbols("x0 x1"))
    Bq, Btq, xq = rat_matrix([[1, 2], [0, 1]]), rat_matrix([[2, 1], [1, 1]]), rat_matrix([[1], [3]])
    z = sympy.Matrix(sympy.symbols("z0 z1 z2"))
    perms = [perm_matrix(p) for p in itertools.permutations(range(3))]
    Lt = _gen("lt", 3)
    cyc = perm_matrix((1, 2, 0))
    # induction (n = 2, Pi = swap)
    Pi = perm_matrix((1, 0))
    Lam, Bm = _gen("l"), _gen("b")
    ht = sympy.Matrix(sympy.symbols("ht0 ht1"))
    xk, xk1 = sympy.Matrix(sympy.symbols("xk0 xk1")), sympy.Matrix(sympy.symbols("xn0 xn1"))
    Lt2, Bt2 = Pi.T * Lam * Pi, Pi.T * Bm
    hk = Pi * ht                                             # induction hypothesis h_k = Pi h~_k
    steps = [
        CitedLemma(key(CLAIM), "lemma3", statement="h = f on supp(X_{<=i}) for i <= T (Lemma 3, first part)",
                   source="ahuja2024 eq. (29)"),
        CitedLemma(key(CLAIM), "(29) sigma injective", statement="sigma(A a) = sigma(A~ b) => A a = A~ b (as in Thm 4)",
                   source="ahuja2024 eq. (29)"),
        linalg_step(CLAIM, "(29)-(30) y = B~ x: B x = V y with V = B B~^{-1} (B adj(B~) B~ x = det(B~) B x)",
                    lambda: (Bs * Bt.adjugate() * Bt * x - Bt.det() * Bs * x).applyfunc(sympy.expand),
                    lambda: Btq.inv() * Bq * Btq * xq - Bq * xq),
        z3_step(CLAIM, "(32) support: v_i != 0, u_i = 0 gives sigma'(v.y) v_i = 0 with sigma' = S(1-S), 0 < S < 1",
                [0 < S, S < 1, vi != 0, S * (1 - S) * vi == 0], z3.BoolVal(False),
                neg_hypotheses=[vi != 0, S * (1 - S) * vi == 0]),
        z3_step(CLAIM, "(33) support: u_i != 0, v_i = 0 gives 0 = u_i sigma'(y_i), 0 < S_i < 1",
                [0 < Si, Si < 1, ui != 0, ui * Si * (1 - Si) == 0], z3.BoolVal(False),
                neg_hypotheses=[ui != 0, ui * Si * (1 - Si) == 0]),
        *sigmoid_steps(CLAIM),
        z3_step(CLAIM, "(34) p = 2: sigma''(s) = 0 only at S = 1/2, a single point (no open set)",
                [0 < S, S < 1, S * (1 - S) * (1 - 2 * S) == 0], S == z3.RealVal("1/2"),
                neg_hypotheses=[S * (1 - S) * (1 - 2 * S) == 0]),
        CitedLemma(key(CLAIM), "(34) general p", statement=(
            "sigma^{(p)} is real analytic; if it vanishes on a set with non-empty interior it vanishes "
            "identically, contradicting Lemma 15"), source="Mityagin 2015; ahuja2024 eq. (34)"),
        *_scalar_steps(),
        enum_step(CLAIM, "permutation: a 3x3 matrix with a single 1 per row is invertible iff it is a permutation "
                  "(all 27); rows of U and V share supports and values, so U = V = Pi",
                  lambda: list(_one_hot_rows(3)), lambda m: (m.det() != 0) == _is_perm(m),
                  neg_predicate=lambda m: _is_perm(m)),
        linalg_step(CLAIM, "(35) Pi sigma(z) = sigma(Pi z) for all 6 permutations of 3 coordinates",
                    lambda: sympy.Matrix.hstack(*[P * sig_vec(z) - sig_vec(P * z) for P in perms]),
                    lambda: ground(cyc * sig_vec(z) - sig_vec(cyc.T * z))),
        CitedLemma(key(CLAIM), "(36) open image", statement=(
            "sigma o B is a homeomorphism of R^n onto its image, so sigma(B supp(X_1)) has non-empty interior "
            "when supp(X_1) has (invariance of domain); Lemma 16 then gives Pi Lambda~ Pi^T = Lambda"),
            source="ahuja2024 eq. (36)"),
        linalg_step(CLAIM, "(36) Pi Lambda~ Pi^T = Lambda => Lambda~ = Pi^T Lambda Pi (Pi^T Pi = I, all 6 perms)",
                    lambda: sympy.Matrix.hstack(*[P.T * (P * Lt * P.T) * P - Lt for P in perms]),
                    lambda: ground(cyc * (cyc * Lt * cyc.T) * cyc.T - Lt)),
        linalg_step(CLAIM, "(39) base: h~_1 = sigma(Pi^T B x_1) = Pi^T sigma(B x_1) = Pi^T h_1",
                    lambda: sig_vec(Bt2 * xk1) - Pi.T * sig_vec(Bm * xk1),
                    lambda: ground(sig_vec(Bt2 * xk1) - sig_vec(Bm * xk1))),
        linalg_step(CLAIM, "(40) step: Pi sigma(Lambda~ h~_k + B~ x_{k+1}) = sigma(Lambda h_k + B x_{k+1}) with "
                    "h_k = Pi h~_k substituted (control: eq. (40) as printed, x_k for x_{k+1})",
                    lambda: Pi * sig_vec(Lt2 * ht + Bt2 * xk1) - sig_vec(Lam * hk + Bm * xk1),
                    lambda: ground(Pi * sig_vec(Lt2 * ht + Bt2 * xk) - sig_vec(Lam * hk + Bm * xk1))),
        linalg_step(CLAIM, "(41) outputs: A~ h~_k = A Pi h~_k = A h_k, so y~_k = y_k",
                    lambda: (Lam * Pi) * ht - Lam * hk, lambda: ground(Lam * ht - Lam * hk)),
    ]
    return Proof(key(CLAIM), "Theorem 9: RNN permutation identification", tuple(steps))


def lemma15_polys(kmax: int = 7) -> list:
    """P_2, ..., P_{kmax+1}: d^k sigma/ds^k = P_{k+1}(sigma), by P_{k+1} = P_k'(S) (S - S^2)."""
    S = sympy.Symbol("S")
    polys = [S - S**2]
    for _ in range(kmax - 1):
        polys.append(sympy.expand(sympy.diff(polys[-1], S) * (S - S**2)))
    return polys


def lemma15_proof() -> Proof:
    c = "lem15"
    s, S = sympy.symbols("s S")
    P = sympy.Function("P")
    polys = lemma15_polys()
    fam = list(enumerate(polys, start=1))
    p4 = polys[2]
    return Proof(key(c), "Lemma 15: sigma^{(k)} = P_{k+1}(sigma), not identically zero", (
        sympy_step(c, "chain rule: d/ds P(sigma(s)) = P'(sigma) sigma (1 - sigma)",
                   sympy.diff(P(sigmoid(s)), s).subs(sympy.Derivative(P(S), S), sympy.Symbol("dP")),
                   sympy.Subs(sympy.Derivative(P(S), S), S, sigmoid(s)).doit() * sigmoid(s) * (1 - sigmoid(s)),
                   neg_rhs=sympy.Subs(sympy.Derivative(P(S), S), S, sigmoid(s)).doit() * sigmoid(s) * (1 - sigmoid(s)) + 1),
        sympy_step(c, "k = 3 by differentiating sigma three times with sigma' = sigma (1 - sigma): P_4(sigma)",
                   sympy.diff(Sig(s), s, 3), p4.subs(S, Sig(s)), neg_rhs=polys[1].subs(S, Sig(s))),
        enum_step(c, "k = 1..7: deg P_{k+1} = k + 1, leading coefficient (-1)^k k!",
                  lambda: fam, lambda kp: sympy.Poly(kp[1], S).degree() == kp[0] + 1
                  and sympy.Poly(kp[1], S).LC() == (-1) ** kp[0] * sympy.factorial(kp[0]),
                  neg_predicate=lambda kp: sympy.Poly(kp[1], S).LC() == sympy.factorial(kp[0])),
        enum_step(c, "not identically zero on sigma(R) = (0,1): P_{k+1}(S) != 0 at some S in {1/3, 1/4} (k = 1..7)",
                  lambda: fam, lambda kp: any(kp[1].subs(S, sympy.Rational(1, q)) != 0 for q in (3, 4)),
                  neg_predicate=lambda kp: kp[1].subs(S, sympy.Rational(1, 2)) != 0),   # sigma''(0) = 0
        CitedLemma(key(c), "finitely many roots", statement=(
            "a non-zero polynomial of degree k + 1 has at most k + 1 roots, while sigma(R) = (0,1) is infinite"),
            source="catalog A-L15 (d)"),
    ))


def lemma15_induction() -> Proof:
    """Lemma 15 for every k >= 1 by induction on k: P_2 = S - S^2, and if P_(k+1) = a S^(k+1) + R with
    deg R <= k then P_(k+2) = P_(k+1)' (S - S^2) = -(k+1) a S^(k+2) + (terms of degree <= k + 1), so the leading
    coefficient (-1)^k k! becomes (-1)^(k+1) (k+1)!; a non-zero polynomial has finitely many roots, (0,1) does not."""
    c = "lem15"
    S, a = sympy.symbols("S a")
    k = sympy.Symbol("k", integer=True, nonnegative=True)
    dR, kz = z3.Ints("dR k")
    step = sympy.expand(sympy.diff(a * S ** (k + 1), S) * (S - S**2))
    lc = lambda j: (-1) ** j * sympy.factorial(j)  # noqa: E731
    return Proof(key(c), "Lemma 15 for every k (induction)", (
        sympy_step(c, "base k = 1: sigma' = P_2(sigma) with P_2 = S - S^2 (degree 2), leading coefficient -1 = (-1)^1 1!",
                   sympy.Poly(lemma15_polys(1)[0], S).LC(), lc(1), neg_rhs=1),
        sympy_step(c, "step: (a S^(k+1))' (S - S^2) = (k+1) a S^(k+1) - (k+1) a S^(k+2) (symbolic k)",
                   step, (k + 1) * a * S ** (k + 1) - (k + 1) * a * S ** (k + 2),
                   neg_rhs=(k + 1) * a * S ** (k + 1) + (k + 1) * a * S ** (k + 2)),
        z3_step(c, "step: deg R <= k => deg(R' (S - S^2)) <= k + 1 < k + 2 (the leading term is not cancelled)",
                [kz >= 1, dR <= kz], dR - 1 + 2 < kz + 2, neg_hypotheses=[kz >= 1, dR <= kz + 1]),
        sympy_step(c, "step: -(k+1) (-1)^k k! = (-1)^(k+1) (k+1)! (symbolic k)", -(k + 1) * lc(k), lc(k + 1),
                   neg_rhs=-lc(k + 1)),
        CitedLemma(key(c), "finitely many roots", statement=(
            "a non-zero polynomial of degree k + 1 has at most k + 1 roots, while sigma(R) = (0,1) is infinite"),
            source="elementary algebra"),
    ))


def lemma16_general() -> Proof:
    """Lemma 16 for every size: a set with non-empty interior holds theta +- (r/2) e_j for a ball B(theta, r);
    A(theta + alpha e_j) - A(theta + beta e_j) = (alpha - beta) A e_j with non-commuting A, theta, e_j (any sizes),
    so every column A e_j vanishes (coordinate-wise z3 step)."""
    c = "lem16"
    A, th, e = sympy.symbols("A theta e_j", commutative=False)
    al, be = sympy.symbols("alpha beta")
    r, x, y = z3.Reals("r x y")
    aj, d = z3.Reals("aj d")
    return Proof(key(c), "Lemma 16 for every size", (
        sympy_step(c, "(75) A(theta + alpha e_j) - A(theta + beta e_j) = (alpha - beta) A e_j (non-commuting)",
                   A * (th + al * e) - A * (th + be * e), (al - be) * A * e, neg_rhs=al * A * e),
        z3_step(c, "interior: B(theta, r), r > 0, holds theta + alpha e_j and theta + beta e_j with alpha = r/2, "
                "beta = -r/2 (||alpha e_j|| = |alpha| < r) and alpha != beta",
                [r > 0, x == r / 2, y == -r / 2], z3.And(z3.Abs(x) < r, z3.Abs(y) < r, x != y),
                neg_hypotheses=[r >= 0, x == r / 2, y == -r / 2]),
        z3_step(c, "(alpha - beta) a = 0 with alpha != beta => a = 0, for every entry a of the column A e_j",
                [d != 0, aj * d == 0], aj == 0, neg_hypotheses=[aj * d == 0]),
    ))


def eq36_general() -> Proof:
    """(36) for every size: Pi Lambda~ Pi^T = Lambda and Pi^T Pi = I give Lambda~ = Pi^T Lambda Pi."""
    c = "eq36"
    P, Pt, Lt, Lam = sympy.symbols("Pi Pi_T Lambda_t Lambda", commutative=False)
    conj = Pt * (P * Lt * Pt) * P   # Pi^T Lambda Pi with Lambda = Pi Lambda~ Pi^T substituted
    return Proof(key(c), "(36) for every size", (
        CitedLemma(key(c), "permutation matrices are orthogonal", statement=(
            "Pi^T Pi = I: (Pi^T Pi)_ij = sum_k Pi_ki Pi_kj = [i = j] since every column of Pi holds one 1"),
            source="elementary"),
        sympy_step(c, "(36) Pi^T (Pi Lambda~ Pi^T) Pi = Lambda~ after Pi^T Pi = I (non-commuting symbols)",
                   conj.subs(Pt * P, 1), Lt, neg_lhs=(P * (P * Lt * Pt) * Pt).subs(Pt * P, 1)),
    ))


def lemma16_proof() -> Proof:
    c = "lem16"
    A = _gen("a")
    th = sympy.Matrix(sympy.symbols("t0 t1"))
    al, alt = sympy.symbols("alpha alpha_t")
    e0 = sympy.Matrix([1, 0])
    aj, d = z3.Reals("aj d")
    r = sympy.Rational(1, 4)
    theta = sympy.Matrix([sympy.Rational(1, 2), sympy.Rational(1, 3)])
    nonzero = [rat_matrix(m) for m in ([[1, 0], [0, 0]], [[0, 2], [0, 0]], [[1, -2], [3, 1]], [[0, 0], [-1, 5]])]
    ball_pts = [theta] + [theta + r * sympy.eye(2)[:, j] for j in range(2)]
    # control: a set with empty interior (the segment theta' + alpha e_0, theta' in ker A) kills A != 0
    kernel_A = rat_matrix([[0, 1], [0, 0]])
    seg = [sympy.Matrix([a, 0]) for a in (sympy.Rational(1, 5), sympy.Rational(2, 5))]
    return Proof(key(c), "Lemma 16: A x = 0 on a set with interior forces A = 0", (
        linalg_step(c, "(75) A(theta + alpha e_j) - A(theta + alpha~ e_j) = (alpha - alpha~) a_j",
                    lambda: (A * (th + al * e0) - A * (th + alt * e0) - (al - alt) * A[:, 0]).applyfunc(sympy.expand),
                    lambda: (A * (th + al * e0) - A * (th + alt * e0) - al * A[:, 0]).applyfunc(sympy.expand)),
        z3_step(c, "(alpha - alpha~) a_j = 0 with alpha != alpha~ => a_j = 0 (one coordinate)",
                [d != 0, d * aj == 0], aj == 0, neg_hypotheses=[d * aj == 0]),
        enum_step(c, "for A != 0 some point theta or theta + r e_j of the l_inf ball has A x != 0",
                  lambda: nonzero, lambda M: any(any(v != 0 for v in M * p) for p in ball_pts),
                  neg_instances=lambda: [kernel_A],
                  neg_predicate=lambda M: any(any(v != 0 for v in M * p) for p in seg)),
        enum_step(c, "empty interior is not enough: A = [[0,1],[0,0]] != 0 kills the segment {(alpha, 0)}",
                  lambda: [kernel_A], lambda M: all(all(v == 0 for v in M * p) for p in seg),
                  neg_predicate=lambda M: all(all(v == 0 for v in M * p) for p in ball_pts)),
    ))


def asm10_instance():
    Aq = rat_matrix([[1, 2], [0, 1]])
    Lq = rat_matrix([["1/2", 0], ["1/3", "1/4"]])
    Bq = rat_matrix([[2, 1], [1, 1]])
    return enum_step("asm10", "A10 instance: rational A, Lambda, B invertible (sigma = sigmoid)",
                     lambda: [Aq, Lq, Bq], lambda m: m.det() != 0,
                     neg_instances=lambda: [Aq, rat_matrix([[1, 1], [1, 1]])])
