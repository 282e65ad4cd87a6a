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
