"""Chain-of-thought results of ahuja2024: Theorems 18-20 (App. A.5) and the main-text ReLU claim (Sec. 4.1).

Theorem 18 (deep sets, A16).  The CoT term forces sum_{j<=i} psi = sum_{j<=i} phi for i <= T; i = 1 gives
  psi = phi on supp X_1 directly (the gradient step of the paper is not needed); the labels give omega = rho
  on supp(sum phi) = R^k (cited), hence equality at every length.  Finding: with bounded tokens (the main-text
  CoT paragraph, the paper's U[0,1] experiments) the second clause of A16 fails and the claim does too: the
  learner psi = phi, omega = a^{-1} (a the cubic bump of :mod:`verify.ahuja.cauchy`) has zero CoT and label
  risk for t <= 2 and is wrong at t = 3.
Theorem 19 (SSM, A17).  CoT gives [Lambda - Lambda~, B - B~] [h_{t-1}; x_t] = 0 (the paper writes the
  transposed product, dimensionally wrong); rank k + n data force equality (exact nullity on data from a
  rational SSM, k = 2, n = 1); with fewer columns a different (Lambda~, B~) fits every CoT target and errs on a
  new input.  A17's controllability clause is off by one: rank [B, Lambda B] = k does not make h_1 = B x_1
  span R^k (witness).
Theorem 20 (RNN, A18).  logit of the CoT targets gives the same linear system; (A - A~) h_t = 0 with rank-k
  states gives A~ = A (exact on rational states in (0,1)^k).
Main-text claim (Sec. 4.1): "a learner with access to the intermediate layer outputs h_i = ReLU(W_i x + b_i)
  ends up learning the true W_i, b_i".  Refuted by a dead unit: truth (w, b) = (1, -2) on x in [0,1] is
  never active; (w~, b~) = (-5, 0) reproduces every CoT target and differs at x = -1.
"""

from __future__ import annotations

import sympy
import z3

from verify.ahuja._common import enum_step, key, linalg_step, rank_is, rat_matrix, sympy_step, z3_step
from verify.ahuja.cauchy import bounded_support_steps
from verify.kernel import CitedLemma, Proof


def _nullity(Z: sympy.Matrix, rows: int) -> int:
    """Dimension of {R (rows x Z.rows) : R Z = 0}."""
    rs = sympy.symbols(f"r0:{rows * Z.rows}")
    R = sympy.Matrix(rows, Z.rows, rs)
    M = sympy.Matrix([[sympy.diff(e, r) for r in rs] for e in R * Z])
    return len(rs) - M.rank()


def thm18_proof() -> Proof:
    c = "thm18"
    ps = z3.Reals("psi1 psi2 psi3")
    fs = z3.Reals("phi1 phi2 phi3")
    cot = [ps[0] == fs[0], ps[0] + ps[1] == fs[0] + fs[1]]
    return Proof(key(c), "Theorem 18: CoT for deep sets", (
        z3_step(c, "CoT at i = 1, 2 (h_0 = 0): psi(x_1) = phi(x_1) and psi(x_2) = phi(x_2)", cot,
                z3.And(ps[0] == fs[0], ps[1] == fs[1]), neg_hypotheses=cot[1:]),
        z3_step(c, "any length (here 3): psi = phi pointwise => the CoT sums agree", [p == f for p, f in zip(ps, fs, strict=True)],
                z3.Sum(ps) == z3.Sum(fs), neg_hypotheses=[ps[0] == fs[0], ps[1] == fs[1]]),
        CitedLemma(key(c), "omega = rho", statement=(
            "omega(h) = rho(h) for h in supp(sum_{j<=t} phi(x_j)) = R^k (A16, second clause; a.e. equality extended "
            "by Lemma 3)"), source="ahuja2024 Thm 18 proof"),
    ))


def thm18_findings() -> Proof:
    return Proof(key("thm18.bounded-tokens"), "CoT for deep sets fails with bounded tokens",
                 tuple(bounded_support_steps("thm18.bounded-tokens")))


# A rational SSM (k = 2, n = 1) and its CoT data.
LAM = rat_matrix([["1/2", "1/3"], ["1/4", "-1/2"]])
B = rat_matrix([[1], [2]])


def ssm_cot_data(seqs):
    """Columns [h_{t-1}; x_t] for every step of the given token sequences (h_0 = 0)."""
    cols = []
    for seq in seqs:
        h = sympy.zeros(2, 1)
        for x in seq:
            xv = sympy.Matrix([sympy.Rational(x)])
            cols.append(h.col_join(xv))
            h = LAM * h + B * xv
    return sympy.Matrix.hstack(*cols)


FULL = [[1, 0, 2], [0, 1]]            # 5 columns, rank 3 = k + n
SHORT = [[1, 2]]                      # 2 columns, rank 2 < 3


def thm19_proof() -> Proof:
    c = "thm19"
    Z = ssm_cot_data(FULL)
    return Proof(key(c), "Theorem 19: CoT for SSMs", (
        enum_step("asm17", "A17 rank clause on data: [h_{t-1}; x_t] over a 5-step sample has rank k + n = 3",
                  lambda: [Z], rank_is(3), neg_instances=lambda: [ssm_cot_data(SHORT)]),
        enum_step(c, "[Lambda - Lambda~, B - B~] Z = 0 => difference 0 (the map R -> R Z is injective)",
                  lambda: [Z], lambda m: _nullity(m, 2) == 0, neg_instances=lambda: [ssm_cot_data(SHORT)]),
        enum_step("asm17", "controllability: rank [B, Lambda B] = k = 2 for the instance",
                  lambda: [B.row_join(LAM * B)], rank_is(2), neg_instances=lambda: [B.row_join(2 * B)]),
        CitedLemma(key(c), "support of h_t", statement=(
            "if supp X_i = R^n and [B, Lambda B, ..., Lambda^{t-1} B] has rank k then h_t = sum_j Lambda^j B x_{t-j} "
            "has support R^k, so omega = rho there"), source="ahuja2024 Thm 19 proof"),
    ))


def thm19_findings() -> Proof:
    c = "thm19"
    Zs = ssm_cot_data(SHORT)
    # a nonzero R = [dLam, dB] with R Zs = 0: the learner Lambda~ = Lambda - dLam, B~ = B - dB fits the CoT data.
    ns = (Zs.T).nullspace()[0].T
    R = sympy.Matrix.vstack(ns, sympy.zeros(1, 3))
    z_new = sympy.Matrix([1, 1, 0])
    e1 = rat_matrix([[1], [0]])
    swap = rat_matrix([[0, 1], [1, 0]])
    return Proof(key(c), "Theorem 19: the rank conditions are load-bearing", (
        linalg_step(c, "rank-deficient data (2 columns): a nonzero [dLambda, dB] with [dLambda, dB] Z = 0 fits "
                    "every CoT target", lambda: R * Zs, lambda: R * ssm_cot_data(FULL)),
        enum_step(c, "... and the two learners' next states differ on the new input [h; x] = [1; 1; 0]",
                  lambda: [R * z_new], lambda v: any(e != 0 for e in v), neg_instances=lambda: [R * Zs]),
        enum_step("asm17", "A17 off by one: rank [B, Lambda B] = 2 = k (B = e1, Lambda = swap) but h_1 = B x_1 "
                  "spans a line", lambda: [(e1.row_join(swap * e1), e1)],
                  lambda p: p[0].rank() == 2 and p[1].rank() == 1,
                  neg_predicate=lambda p: p[1].rank() == 2),
    ))


def thm20_proof() -> Proof:
    c = "thm20"
    # states in (0,1)^2 and tokens (n = 1); any h in (0,1)^k is sigma(z) for z = logit(h)
    H = rat_matrix([["1/2", "1/3", "1/4", "2/3"], ["1/5", "1/2", "3/4", "1/3"]])
    X = rat_matrix([[1, 0, 2, 1]])
    Z = H.col_join(X)
    return Proof(key(c), "Theorem 20: CoT for RNNs", (
        CitedLemma(key(c), "logit", statement="sigma is a bijection onto (0,1): sigma(a) = sigma(b) => a = b",
                   source="ahuja2024 Thm 20 proof"),
        enum_step("asm18", "A18 rank clauses on data: rank [h_{t-1}; x_t] = k + n = 3 and rank [h_t] = k = 2",
                  lambda: [(Z, 3), (H, 2)], lambda p: p[0].rank() == p[1],
                  neg_instances=lambda: [(Z[:, :2], 3)]),
        enum_step(c, "[Lambda - Lambda~, B - B~] Z = 0 => equality; (A - A~) H = 0 => A~ = A",
                  lambda: [(Z, 2), (H, 2)], lambda p: _nullity(p[0], p[1]) == 0,
                  neg_instances=lambda: [(H[:, :1], 2)]),
    ))


def thm20_general() -> Proof:
    """Theorem 20 for every k, n and number of data points (non-commuting symbols for the matrices).

    CoT gives sigma(Lambda~ H + B~ X) = sigma(Lambda H + B X) on the data (H the k x N states h_{t-1}, X the n x N
    tokens); sigma's injectivity (cited) gives D = (Lambda~ - Lambda) H + (B~ - B) X = 0.  [H; X] of rank k + n has a
    right inverse [R_H, R_X] (H R_H = I, H R_X = 0, X R_H = 0, X R_X = I; elementary), so D R_H = Lambda~ - Lambda and
    D R_X = B~ - B vanish.  The labels give (A~ - A) H' = 0 on rank-k states H' (right inverse R': H' R' = I), so
    A~ = A.  Equal parameters give h~_t = h_t and y~_t = y_t at every length (induction on t; z3 over an abstract
    sort of states with uninterpreted sigma, products and sums, so every size).
    """
    c = "thm20"
    Lt, L, Bt, B, H, X, RH, RX, At, A, Hp, Rp = sympy.symbols(
        "Lambda_t Lambda B_t B H X R_H R_X A_t A Hp Rp", commutative=False)
    D = (Lt - L) * H + (Bt - B) * X
    inverse = {H * RH: 1, H * RX: 0, X * RH: 0, X * RX: 1}
    half = {H * RH: 1, H * RX: 0}                  # only H has a right inverse: rank k < k + n
    V, M = z3.DeclareSort("State"), z3.DeclareSort("Mat")
    app, add, sig = (z3.Function("app", M, V, V), z3.Function("add", V, V, V), z3.Function("sig", V, V))
    Lz, Ltz, Bz, Btz, Az, Atz = z3.Consts("L Lt B Bt A At", M)
    h, ht, x = z3.Consts("h ht x", V)
    step_h = [Ltz == Lz, Btz == Bz, ht == h]
    nxt = sig(add(app(Ltz, ht), app(Btz, x))) == sig(add(app(Lz, h), app(Bz, x)))
    return Proof(key(c), "Theorem 20 for every size", (
        CitedLemma(key(c), "sigmoid injective", statement="sigma(a) = sigma(b) => a = b entrywise (exp is strictly "
                   "increasing), so the CoT equality gives D = 0 on the data", source="ahuja2024 Thm 20 proof"),
        CitedLemma(key(c), "right inverse", statement="a matrix with r rows and rank r has a right inverse",
                   source="elementary linear algebra"),
        sympy_step(c, "D R_H = Lambda~ - Lambda ([H; X] of rank k + n, non-commuting)",
                   sympy.expand(D * RH).subs(inverse), Lt - L, neg_lhs=sympy.expand(D * RH).subs(half)),
        sympy_step(c, "D R_X = B~ - B", sympy.expand(D * RX).subs(inverse), Bt - B,
                   neg_lhs=sympy.expand(D * RX).subs(half)),
        sympy_step(c, "labels: (A~ - A) H' R' = A~ - A for rank-k states H' (H' R' = I)",
                   sympy.expand((At - A) * Hp * Rp).subs({Hp * Rp: 1}), At - A,
                   neg_lhs=sympy.expand((At - A) * Hp * Rp)),
        z3_step(c, "length generalization, induction on t: equal parameters and h~_(t-1) = h_(t-1) give h~_t = h_t",
                step_h, nxt, neg_hypotheses=step_h[:1] + step_h[2:]),
        z3_step(c, "... and y~_t = sigma(A~ h~_t) = sigma(A h_t) = y_t", [Atz == Az, ht == h],
                sig(app(Atz, ht)) == sig(app(Az, h)), neg_hypotheses=[ht == h]),
    ))


def relu_cot_findings() -> Proof:
    c = "sec4.1-cot-relu"
    w, b, x = z3.Reals("w b x")
    wit = [w == -5, b == 0]
    relu = lambda z: z3.If(z > 0, z, 0)  # noqa: E731
    return Proof(key(c), "Sec. 4.1 CoT claim for ReLU MLPs: dead units", (
        z3_step(c, "dead unit: (w~, b~) = (-5, 0) reproduces the CoT target ReLU(x - 2) = 0 on x in [0,1]",
                [*wit, 0 <= x, x <= 1], relu(w * x + b) == relu(x - 2),
                neg_hypotheses=[*wit, 0 <= x, x <= 3]),
        z3_step(c, "... is not the true unit and differs at x = -1 (ReLU(5) = 5 vs 0)", wit,
                z3.And(z3.Or(w != 1, b != -2), relu(-w + b) != relu(z3.RealVal(-1) - 2)),
                neg_goal=relu(-w + b) == relu(z3.RealVal(-1) - 2)),
        z3_step(c, "repair: a unit active at two training points is identified (w x + b = x - 2 at x = 2, 3)",
                [2 * w + b == 0, 3 * w + b == 1], z3.And(w == 1, b == -2), neg_hypotheses=[2 * w + b == 0]),
    ))
