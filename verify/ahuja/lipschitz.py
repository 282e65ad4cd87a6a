"""The Lipschitz constants of ahuja2024 Sec. 5.2: one transformer / deep-set block (eq. 42), the one-block SSM
claim, and the RNN derivation (eqs. 43-47).

Chains (:func:`proof`):
  (42) the averaging step M_omega (1/t) sum ||dpsi_j|| <= M_omega L_psi ||dtheta_psi|| (ground t = 4; with the
       released code's *sum* pooling the same bound fails -- the control), and the final Cauchy-Schwarz step via
       Lagrange's identity (a^2 + b^2)(p^2 + q^2) - (a p + b q)^2 = (a q - b p)^2;
  (43) triangle inequality; (44)-(45) the recursion d_t <= rho d_{t-1} + alpha with 0 <= rho < 1 keeps
       d_t <= alpha / (1 - rho) (induction step, z3); the final three-term Cauchy-Schwarz of (46);
  (47) the state bound as corrected for sigma(0) != 0: |h_t| <= (|sigma(0)| + L_sigma B x)/(1 - L_sigma Lambda);
  SSM: sum_{j=1}^N j rho^{j-1} = (1 - (N+1) rho^N + N rho^{N+1})/(1 - rho)^2 <= 1/(1 - rho)^2 (N = 6), and
       Lambda^3 - Lambda'^3 = sum_k Lambda^k (Lambda - Lambda') Lambda'^{2-k} (generic 2x2, non-commuting).
Universal chains (:func:`universal`): the same claims for every length, number of keys and parameter value,
each norm step from the norm axioms (triangle inequality, sub-multiplicativity) and the Lipschitz hypotheses
as instantiated z3 hypotheses:
  (42) the averaging over any number t >= 1 of keys by induction on the partial sums (base, step, division by
       t), then the whole block bound ||dy|| <= sqrt(L_omega^2 + M_omega^2 L_psi^2) ||dtheta|| with the square
       roots as variables (K^2 = L_omega^2 + M_omega^2 L_psi^2, N^2 = ||dtheta_omega||^2 + ||dtheta_psi||^2);
  (43) triangle inequality of the norm between (h, theta), (h, theta') and (h', theta');
  (44) Lambda h - Lambda' h' = Lambda (h - h') + (Lambda - Lambda') h' (matrix symbols, any size), then sigma's
       Lipschitz constant, the triangle inequality, sub-multiplicativity and ||h'||, ||x|| <= h_sup, x_sup;
  (45) induction base d_0 = 0 (both recursions start at h_0 = 0) and the step above;
  SSM (sec. 5.2): for every N, sum_{j=1}^N j rho^(j-1) = (1 - (N+1) rho^N + N rho^(N+1))/(1 - rho)^2 (induction
       on N) <= 1/(1 - rho)^2 (z3 with P = rho^N >= 0) and sum_{j=0}^{N} rho^j <= 1/(1 - rho);
       Lambda^(k+1) - Lambda'^(k+1) = Lambda (Lambda^k - Lambda'^k) + (Lambda - Lambda') Lambda'^k (non-commuting
       symbols, symbolic k), hence ||Lambda^k - Lambda'^k|| <= k rho^(k-1) ||dLambda|| by induction; the state
       h_t = sum_j Lambda^j B x_{t-j} then moves by at most x_sup (B_sup ||dLambda||/(1 - rho)^2 + ||dB||/(1 - rho)),
       a constant independent of t (Assumption 11).

Findings (:func:`findings`):
  (46) the final constant sqrt(L_sigma^2 + gamma_1^2 + gamma_2^2) should be sqrt(L_omega^2 + ...): a scalar RNN
       with sigma(z) = z/2 (L_sigma = 1/2, sigma(0) = 0), Lambda = 1/2, B = 1, |x| <= 1/10 and
       omega(h; theta_omega) = theta_omega + h (L_omega = M_omega = 1) has |dy| / |dtheta| = 1 when only
       theta_omega moves, above the printed constant sqrt(2077/8100);
  (47) assumes sigma(0) = 0, which excludes the sigmoid of Theorem 9 and the experiments: with x = 0,
       h_1 = sigma(0) = 1/2 > h_sup = 0;
  the experiments' SSM has orthogonal Lambda (||Lambda|| = 1): for Lambda = 1, B = 1, x_j = 1 the
       parameter derivative of h_t is t(t-1)/2, unbounded in t, so A11 fails there.
"""

from __future__ import annotations

import sympy
import z3

from verify.ahuja._common import ground, key, linalg_step, sigmoid, sympy_step, z3_step
from verify.kernel import CitedLemma, Proof


def proof() -> Proof:
    a, b, p, q = sympy.symbols("a b p q", real=True)
    ds = z3.Reals("d1 d2 d3 d4")
    Lpsi, dth = z3.Reals("Lpsi dth")
    x1, x2, x3 = z3.Reals("u v w")
    rho, al, dprev, d = z3.Reals("rho alpha dprev d")
    Ls, lam, Bs, xs, s0, hprev, h = z3.Reals("Ls lam Bs xs s0 hprev h")
    r, N = sympy.Symbol("rho"), 6
    partial = sum(j * r ** (j - 1) for j in range(1, N + 1))
    closed = (1 - (N + 1) * r**N + N * r ** (N + 1)) / (1 - r) ** 2
    Lm = sympy.Matrix(2, 2, sympy.symbols("l0:4", commutative=True))
    Lp = sympy.Matrix(2, 2, sympy.symbols("k0:4", commutative=True))
    tele = Lm**3 - Lp**3 - sum((Lm**k * (Lm - Lp) * Lp ** (2 - k) for k in range(3)), sympy.zeros(2, 2))
    g1, g2, g3, t1, t2, t3 = sympy.symbols("g1 g2 g3 t1 t2 t3", real=True)
    lag3 = (g1**2 + g2**2 + g3**2) * (t1**2 + t2**2 + t3**2) - (g1 * t1 + g2 * t2 + g3 * t3) ** 2
    sos3 = (g1 * t2 - g2 * t1) ** 2 + (g1 * t3 - g3 * t1) ** 2 + (g2 * t3 - g3 * t2) ** 2
    bounded = [0 <= dd for dd in ds] + [dd <= Lpsi * dth for dd in ds]
    return Proof(key("eq42"), "Lipschitz constants (42)-(47)", (
        z3_step("eq42", "(42) averaging: ||dpsi_j|| <= L_psi ||dtheta_psi|| for each of t = 4 keys => mean <= L_psi ||dtheta_psi||",
                bounded, z3.Sum(ds) / 4 <= Lpsi * dth, neg_goal=z3.Sum(ds) <= Lpsi * dth),   # sum pooling grows with t
        sympy_step("eq42", "(42) Cauchy-Schwarz: (a^2 + b^2)(p^2 + q^2) - (a p + b q)^2 = (a q - b p)^2",
                   (a**2 + b**2) * (p**2 + q**2) - (a * p + b * q) ** 2, (a * q - b * p) ** 2,
                   neg_rhs=(a * q - b * p) ** 2 + 2 * a * b * p * q),
        CitedLemma(key("eq42"), "sqrt monotone", statement="0 <= u^2 <= v^2, v >= 0 => u <= v", source="elementary"),
        z3_step("eq43", "(43) triangle inequality |a - c| <= |a - b| + |b - c|", [],
                z3.Abs(x1 - x3) <= z3.Abs(x1 - x2) + z3.Abs(x2 - x3), neg_goal=z3.Abs(x1 - x3) <= z3.Abs(x1 - x2)),
        z3_step("eq45", "(44)-(45) induction: 0 <= rho < 1, d_{t-1} <= alpha/(1 - rho), d_t <= rho d_{t-1} + alpha "
                "=> d_t <= alpha/(1 - rho) (multiplied out)",
                [0 <= rho, rho < 1, al >= 0, dprev >= 0, dprev * (1 - rho) <= al, d <= rho * dprev + al],
                d * (1 - rho) <= al, neg_goal=d <= al),
        sympy_step("eq46", "(46) three-term Cauchy-Schwarz (Lagrange identity) for (||dtheta_omega||, ||dLambda||_F, ||dB||_F)",
                   lag3, sos3, neg_rhs=sos3 + g1 * t1),
        z3_step("eq47", "(47) corrected state bound: |h_{t-1}| <= (|s0| + Ls B x)/(1 - Ls lam), |h_t| <= |s0| + "
                "Ls (lam |h_{t-1}| + B x) => same bound for |h_t| (s0 = sigma(0))",
                [0 <= Ls, 0 <= lam, Ls * lam < 1, 0 <= Bs, 0 <= xs, s0 >= 0, hprev >= 0,
                 hprev * (1 - Ls * lam) <= s0 + Ls * Bs * xs, h <= s0 + Ls * (lam * hprev + Bs * xs)],
                h * (1 - Ls * lam) <= s0 + Ls * Bs * xs, neg_goal=h * (1 - Ls * lam) <= Ls * Bs * xs),
        sympy_step("sec5.2-ssm", f"SSM: sum_(j=1..{N}) j rho^(j-1) in closed form (<= 1/(1 - rho)^2 for 0 <= rho < 1)",
                   partial, closed, neg_rhs=1 / (1 - r) ** 2),
        linalg_step("sec5.2-ssm", "SSM: Lambda^3 - Lambda'^3 = sum_k Lambda^k (Lambda - Lambda') Lambda'^(2-k)",
                    lambda: tele.applyfunc(sympy.expand),
                    lambda: ground(Lm**3 - Lp**3 - 3 * Lp**2 * (Lm - Lp))),
    ))


def _induction(claim: str, what: str, partial, term, bound, step_bound, hyps, neg_hyps):
    """Base and step of ``partial_k <= k * bound`` for partial sums of terms each ``<= step_bound``."""
    k, S = z3.Reals("k S")
    return [
        z3_step(claim, f"{what}: base, the empty sum is 0 <= 0 * bound", [partial == 0], partial <= 0 * bound,
                neg_goal=partial < 0 * bound),
        z3_step(claim, f"{what}: step, S_k <= k c and a new term <= c give S_(k+1) <= (k + 1) c",
                [k >= 0, S <= k * bound, *hyps, term <= step_bound], S + term <= (k + 1) * bound,
                neg_hypotheses=[k >= 0, S <= k * bound, *neg_hyps]),
    ]


def universal() -> Proof:
    """The chains of the module docstring's "Universal chains" for every t, N and parameter value."""
    c = z3.Real("c")
    term, part, t, St = z3.Reals("term part t St")
    Lw, Mw, Lp, a, b, K, Nn, dy, m = z3.Reals("Lw Mw Lpsi a b K N dy m")
    n13, n12, n23, dth, dh = z3.Reals("n13 n12 n23 dth dh")
    n, mm, m1, m2, m3, Ls, nL, dL, nh, hs, dB, nx, xs, dprev = z3.Reals(
        "n mm m1 m2 m3 Ls nL dL nh hs dB nx xs dprev")
    rho, P, Q, D, Dn, kk, d0, al = z3.Reals("rho P Q D Dn kk d0 alpha")
    Nv = z3.Real("Nv")
    Lm, Lq, h, hq = sympy.symbols("Lam Lamp h hp", commutative=False)  # matrices and vectors of any size
    r, N = sympy.Symbol("rho"), sympy.Symbol("N", integer=True, positive=True)
    closed = lambda v: (1 - (v + 1) * r**v + v * r ** (v + 1)) / (1 - r) ** 2  # noqa: E731
    geo = lambda v: (1 - r ** (v + 1)) / (1 - r)  # noqa: E731
    Ln, Mn = sympy.symbols("Lambda Lambda_p", commutative=False)
    kv = sympy.Symbol("k", integer=True, nonnegative=True)
    nonneg = [Lw >= 0, Mw >= 0, Lp >= 0, a >= 0, b >= 0, K >= 0, Nn >= 0]
    SJ, SG, dLam, dBv, Bsup, out = z3.Reals("SJ SG dLam dB Bsup out")
    return Proof(key("eq42"), "Lipschitz constants (42)-(45) and the SSM block, for every t, N and parameter", (
        *_induction("eq42", "(42) averaging over any number of keys", part, term, c, c, [term >= 0], []),
        z3_step("eq42", "(42) averaging: S_t <= t c with t >= 1 keys gives the mean S_t / t <= c",
                [t >= 1, St <= t * c], St / t <= c, neg_goal=St <= c),
        z3_step("eq42", "(42) the block: ||dy|| <= L_omega ||dtheta_omega|| + M_omega ||mean dpsi||, ||mean dpsi|| <= "
                "L_psi ||dtheta_psi|| => ||dy|| <= sqrt(L_omega^2 + M_omega^2 L_psi^2) ||(dtheta_omega, dtheta_psi)||",
                [*nonneg, K * K == Lw * Lw + Mw * Mw * Lp * Lp, Nn * Nn == a * a + b * b, dy <= Lw * a + Mw * m,
                 m <= Lp * b], dy <= K * Nn,
                neg_hypotheses=[*nonneg, K * K == Lw * Lw + Lp * Lp, Nn * Nn == a * a + b * b,
                                dy <= Lw * a + Mw * m, m <= Lp * b]),
        z3_step("eq43", "(43) norm triangle inequality between (h, theta), (h, theta'), (h', theta') with omega "
                "L_omega-Lipschitz in theta and M_omega-Lipschitz in h",
                [n13 <= n12 + n23, n12 <= Lw * dth, n23 <= Mw * dh], n13 <= Lw * dth + Mw * dh,
                neg_hypotheses=[n12 <= Lw * dth, n23 <= Mw * dh]),
        sympy_step("eq44", "(44) Lambda h - Lambda' h' = Lambda (h - h') + (Lambda - Lambda') h' (non-commuting "
                   "symbols: any matrix sizes)", Lm * h - Lq * hq, Lm * (h - hq) + (Lm - Lq) * hq,
                   neg_rhs=Lm * (h - hq) + (Lm - Lq) * h),
        z3_step("eq44", "(44) sigma L_sigma-Lipschitz, triangle inequality, sub-multiplicativity, ||h'|| <= h_sup, "
                "||x|| <= x_sup => ||dh_t|| <= L_sigma ||Lambda|| ||dh_(t-1)|| + L_sigma ||dLambda|| h_sup + "
                "L_sigma ||dB|| x_sup",
                [Ls >= 0, nL >= 0, dL >= 0, dB >= 0, dprev >= 0, n <= Ls * mm, mm <= m1 + m2 + m3,
                 m1 <= nL * dprev, m2 <= dL * nh, nh <= hs, m3 <= dB * nx, nx <= xs],
                n <= Ls * nL * dprev + Ls * dL * hs + Ls * dB * xs,
                neg_hypotheses=[Ls >= 0, nL >= 0, dL >= 0, dB >= 0, dprev >= 0, n <= Ls * mm, mm <= m1 + m2 + m3,
                                m1 <= nL * dprev, m2 <= dL * nh, m3 <= dB * nx, nx <= xs]),
        z3_step("eq45", "(45) induction base: d_0 = ||h_0 - h'_0|| = 0 <= alpha/(1 - rho) (multiplied out)",
                [0 <= rho, rho < 1, al >= 0, d0 == 0], d0 * (1 - rho) <= al, neg_goal=d0 * (1 - rho) < al),
        sympy_step("sec5.2-ssm", "SSM: induction on N, closed(N) - closed(N - 1) = N rho^(N-1) for every N",
                   closed(N) - closed(N - 1), N * r ** (N - 1), neg_rhs=(N + 1) * r ** (N - 1)),
        sympy_step("sec5.2-ssm", "SSM: base closed(1) = 1", closed(1), 1, neg_rhs=0),
        z3_step("sec5.2-ssm", "SSM: closed(N) <= 1/(1 - rho)^2 for 0 <= rho < 1, N >= 0 (P = rho^N >= 0)",
                [0 <= rho, rho < 1, Nv >= 0, P >= 0], 1 - (Nv + 1) * P + Nv * rho * P <= 1,
                neg_hypotheses=[0 <= rho, Nv >= 0, P >= 0]),
        sympy_step("sec5.2-ssm", "SSM: geometric sum, geo(N) - geo(N - 1) = rho^N and geo(0) = 1",
                   geo(N) - geo(N - 1) + geo(0), r**N + 1, neg_rhs=r ** (N + 1) + 1),
        z3_step("sec5.2-ssm", "SSM: geo(N) = (1 - rho^(N+1))/(1 - rho) <= 1/(1 - rho) (P = rho^(N+1) >= 0)",
                [0 <= rho, rho < 1, P >= 0], 1 - P <= 1, neg_goal=1 - P <= 1 - rho),
        sympy_step("sec5.2-ssm", "SSM: Lambda^(k+1) - Lambda'^(k+1) = Lambda (Lambda^k - Lambda'^k) + (Lambda - Lambda') "
                   "Lambda'^k (non-commuting, symbolic k)", Ln ** (kv + 1) - Mn ** (kv + 1),
                   Ln * (Ln**kv - Mn**kv) + (Ln - Mn) * Mn**kv, neg_rhs=Ln * (Ln**kv - Mn**kv) + Mn**kv * (Ln - Mn)),
        z3_step("sec5.2-ssm", "SSM: ||Lambda^k - Lambda'^k|| <= k rho^(k-1) ||dLambda|| => the same at k + 1 "
                "(sub-multiplicativity, ||Lambda||, ||Lambda'|| <= rho, ||Lambda'^k|| <= rho^k; Q = rho^(k-1))",
                [0 <= rho, kk >= 1, Q >= 0, dL >= 0, D <= kk * Q * dL, Dn <= rho * D + dL * rho * Q],
                Dn <= (kk + 1) * rho * Q * dL, neg_hypotheses=[0 <= rho, kk >= 1, Q >= 0, dL >= 0,
                                                             D <= kk * Q * dL, Dn <= D + dL * rho * Q]),
        z3_step("sec5.2-ssm", "SSM: ||h_t - h'_t|| <= x_sup (B_sup ||dLambda|| sum_j j rho^(j-1) + ||dB|| sum_j rho^j) "
                "<= x_sup (B_sup ||dLambda||/(1 - rho)^2 + ||dB||/(1 - rho)), independent of t",
                [0 <= rho, rho < 1, xs >= 0, Bsup >= 0, dLam >= 0, dBv >= 0, SJ * (1 - rho) ** 2 <= 1,
                 SG * (1 - rho) <= 1, out <= xs * (Bsup * dLam * SJ + dBv * SG)],
                out * (1 - rho) ** 2 <= xs * (Bsup * dLam + dBv * (1 - rho)),
                neg_hypotheses=[0 <= rho, rho < 1, xs >= 0, Bsup >= 0, dLam >= 0, dBv >= 0, SG * (1 - rho) <= 1,
                                out <= xs * (Bsup * dLam * SJ + dBv * SG)]),
    ))


GAMMA = dict(Ls=sympy.Rational(1, 2), lam=sympy.Rational(1, 2), B=1, x=sympy.Rational(1, 10), M=1, Lw=1)


def eq46_constants(Ls, lam, B, x, M, Lw):
    """(gamma_1, gamma_2, printed constant^2, corrected constant^2) of eq. (46)."""
    g1 = M * Ls**2 * B * x / (1 - Ls * lam) ** 2
    g2 = M * Ls * x / (1 - Ls * lam)
    return g1, g2, Ls**2 + g1**2 + g2**2, Lw**2 + g1**2 + g2**2


def findings() -> Proof:
    g1, g2, printed, corrected = eq46_constants(**GAMMA)
    dlt, th, hh = z3.Reals("delta theta h")
    ratio = z3.Real("ratio")
    yv = lambda w, hv: w + hv  # noqa: E731   omega(h; theta_omega) = theta_omega + h
    lam_, t = sympy.symbols("lambda t")
    T = 10
    state = sum(lam_**j for j in range(T))                  # h_T with Lambda = lam, B = 1, x_j = 1
    return Proof(key("eq46"), "Lipschitz findings", (
        linalg_step("eq46", "witness constants: gamma_1 = 2/45, gamma_2 = 1/15, printed constant^2 = 2077/8100",
                    lambda: sympy.Matrix([g1 - sympy.Rational(2, 45), g2 - sympy.Rational(1, 15),
                                          printed - sympy.Rational(2077, 8100)]),
                    lambda: sympy.Matrix([corrected - sympy.Rational(2077, 8100)])),
        z3_step("eq46", "witness: moving theta_omega by delta != 0 moves y_t by delta at every t (omega = theta + h)",
                [dlt != 0], z3.Abs(yv(th + dlt, hh) - yv(th, hh)) == z3.Abs(dlt), neg_goal=yv(th + dlt, hh) == yv(th, hh)),
        z3_step("eq46", "witness: ratio 1 exceeds the printed constant sqrt(2077/8100); the corrected L_omega "
                "constant (control) is not exceeded", [ratio == 1], ratio * ratio > z3.RealVal(str(printed)),
                neg_goal=ratio * ratio > z3.RealVal(str(corrected))),
        sympy_step("eq47", "sigma(0) = 1/2 for the sigmoid: with x = 0, h_1 = 1/2 while (47) gives h_sup = 0",
                   sigmoid(0), sympy.Rational(1, 2), neg_rhs=0),
        sympy_step("sec5.2-ssm", "orthogonal Lambda = 1 (experiments): d h_10 / d Lambda = 45 = t(t-1)/2, "
                   "growing with t", sympy.diff(state, lam_).subs(lam_, 1), sympy.Rational(T * (T - 1), 2),
                   neg_rhs=T),
    ))
