"""The proof of the corrected Theorem 4.1 (docstring of bounds/corrected.py) as kernel steps (verify/kernel.py).

Every algebraic step is a z3 or sympy obligation over symbolic parameters (all k, |Sigma|, Delta, eps, counts), each
with a negative control the same method rejects; the steps resting on analysis or on other claims are cited:

* one head: the normalization lemma per coordinate, the rounding of significant items (u >= G), the
  insignificant items (n < theta T), their sum ``||m - u||_1 <= U ((Q+1)/G + Q theta)``;
* residues: the padding needed per residue, its relative size rho, F above the last component, no padding of an
  attended residue when D_m = 1;
* the budget: ``2 ((Q+1)/G + Q theta) + 2 rho = a theta + b/G`` (identity), the choice of theta and G meets eta,
  and theta <= 1/Q (the largest item is significant);
* the map F at a component start: continuity, and D > 1 forces F >= sG; one component's growth, two overlapping
  intervals merging;
* the length: residue counts of z between Phi - 1 and Phi + |Sigma| + 1, N_1 at s = 1, N_H and |z| >= H after the
  stretch;
* the output: per-head Lipschitz sum, K eta = eps/2, and the final triangle inequality.

bounds.compression checks the same inequalities on concrete inputs (verify/tests/izzo2025/test_compression.py).
"""

from __future__ import annotations

import sympy
import z3

from verify.kernel import CitedLemma, Proof, SympyStep, Z3Step, sympy_with_control, z3_with_control

CLAIM = "izzo2025:thm4.1.corrected"


def _z3(name: str, hypotheses, goal, **control) -> Z3Step:
    return z3_with_control(CLAIM, name, hypotheses, goal, **control)


def _sympy(name: str, lhs, rhs, neg_rhs) -> SympyStep:
    return sympy_with_control(CLAIM, name, lhs, rhs, neg_rhs=neg_rhs)


def _one_head():
    m, u, M, U, G, th, Fn, Q, q, Ssig, Sins = z3.Reals("m u M U G theta Fn Q q Ssig Sins")
    pos = [M > 0, U > 0]
    sig = [u >= G, G >= 1, u <= m, m < u + 1]
    ins = [0 <= u, u <= th * U, 0 < m, m <= Fn + 1, Fn <= th * U, U >= G, G >= 1, th > 0]
    total = [Ssig <= U / G, Sins <= q * (th * U + U / G), 0 <= q, q <= Q, U > 0, G >= 1, th > 0]
    return (
        _z3("normalization, per coordinate: |m_i/M - u_i/U| <= |m_i - u_i|/U + m_i |U - M|/(M U)",
            pos + [m >= 0, u >= 0],
            z3.Abs(m / M - u / U) <= z3.Abs(m - u) / U + m * z3.Abs(U - M) / (M * U),
            neg_goal=z3.Abs(m / M - u / U) <= z3.Abs(m - u) / U),
        CitedLemma(CLAIM, "normalization, summed", statement="sum_i m_i = M and |U - M| <= sum_i |m_i - u_i| turn the "
                   "per-coordinate bound into ||m/M - u/U||_1 <= 2 ||m - u||_1 / U", source="triangle inequality"),
        _z3("significant item: u >= G, m = ceil(u) => |m - u| <= u/G", sig, z3.Abs(m - u) <= u / G,
            neg_hypotheses=sig[1:]),
        _z3("insignificant item: n < theta T, m <= F(theta T) + 1, U >= G => |m - u| <= theta U + U/G", ins,
            z3.Abs(m - u) <= th * U + U / G, neg_hypotheses=[h for h in ins if not z3.eq(h, U >= G)]),
        _z3("one set: ||m - u||_1 <= U ((Q+1)/G + Q theta)", total, Ssig + Sins <= U * ((Q + 1) / G + Q * th),
            neg_goal=Ssig + Sins <= U * (Q / G + Q * th)),
    )


def _residues():
    e, Sx, Sx2, sc, sc2, S, Fa, pad, G, Dl = z3.Reals("e Sx Sx2 sc sc2 Sigma Fa pad G Delta")
    # e = 1/D_m in (0, 1]; residue r: every class attended (<= b_m), so S_r(m) >= S_r(x) e; any residue r':
    # S_r'(m) < S_r'(x) e + |Sigma| (1 + F(a_m))
    hyp = [e > 0, e <= 1, S >= 1, Fa >= 0, z3.Abs(Sx - Sx2) <= 1, Sx >= 0, Sx2 >= 0, Sx * e <= sc,
           sc2 < Sx2 * e + S * (1 + Fa)]
    need = (sc2 - Sx2) - (sc - Sx)
    L0, D, b, w, th, Fb, mstar, rho = z3.Reals("L0 D b w theta Fb mstar rho")
    rel = [D > 1, Dl >= 1, S >= 1, w >= 1, th > 0, Fb == b / D, Fb >= G, G >= 2 * (Dl + w), L0 >= b - 1 - w,
           pad >= 0, pad <= 1 + S * (1 + th * Fb), mstar >= (L0 - Dl + 1) / (Dl * S * D),
           rho == 2 * Dl * S * (S + 1) / G + 2 * Dl * S * S * th]
    v, cap = z3.Reals("v cap")
    above = [D > 1, b > 0, v > b, Fb == b / D, Fb >= cap, cap > 0]
    F_above = z3.If(Fb >= z3.If(v <= cap, v, cap), Fb, z3.If(v <= cap, v, cap))
    d1, d2, j = z3.Reals("d1 d2 j")
    ident = [d1 == 0, d2 <= 0, j == z3.If(d1 >= d2, d1, d2)]
    return (
        _z3("residue padding: j - d_r < 1 + |Sigma| (1 + F(a_m)) for a residue whose classes are all attended", hyp,
            need < 1 + S * (1 + Fa), neg_goal=need < S * (1 + Fa)),
        _z3("padding is a relative rho of the padded class: m* >= (L_0 - Delta + 1)/(Delta |Sigma| D_m), "
            "L_0 >= b_m - 1 - w, F(b_m) = b_m/D_m >= G >= 2 (Delta + w) => pad <= rho m*", rel, pad <= rho * mstar,
            neg_hypotheses=[h for h in rel if not z3.eq(h, G >= 2 * (Dl + w))] + [G >= 1]),
        _z3("above b_m: F(v) = max(F(b_m), min(v, sG)) <= v / D_m when D_m > 1 (then F(b_m) >= sG)", above,
            F_above <= v / D, neg_hypotheses=[h for h in above if not z3.eq(h, Fb >= cap)]),
        _z3("D_m = 1: the attended residue is kept (d_r = 0), every other d_r' <= 0, so it gets no padding", ident,
            j - d1 == 0, neg_hypotheses=[d1 == 0, j == z3.If(d1 >= d2, d1, d2)]),
    )


def _budget():
    from bounds.corrected import ProofConstants

    G, th, S, Dl, w, k, eta, K = sympy.symbols("G theta Sigma Delta w k eta K", positive=True)
    pc = ProofConstants(S, Dl, w, k, K, eta, th, G)  # the code's a, b and Q, read symbolically
    Q, a, b = pc.items, pc.a, pc.b
    rho = 2 * Dl * S * (S + 1) / G + 2 * Dl * S**2 * th
    zQ, zG, zth, zk, zeta, za, zb = z3.Reals("Q G theta k eta a b")
    choice = [zk >= 1, zeta > 0, za > 0, zb > 0, zth == zk * zeta / ((zk + 1) * za), zG >= (zk + 1) * zb / zeta,
              zG > 0]
    small = [zk >= 1, zeta > 0, zeta < 2, zQ > 0, za >= 2 * zQ, zth == zk * zeta / ((zk + 1) * za)]
    return (
        _sympy("budget: 2((Q+1)/G + Q theta) + 2 rho = a theta + b/G (a, b, Q of bounds.corrected.ProofConstants)",
               2 * ((Q + 1) / G + Q * th) + 2 * rho,
               a * th + b / G, neg_rhs=a * th + b / G - 2 * Dl * S**2 * th),
        _z3("the choice of theta and G meets the budget: a theta + b/G <= eta", choice,
            za * zth + zb / zG <= zeta, neg_hypotheses=[h if not z3.eq(h, zth == zk * zeta / ((zk + 1) * za))
                                                        else zth == zk * zeta / za for h in choice]),
        _z3("theta <= 1/Q when eta < 2 (so the largest item of a set is significant)", small, zth * zQ <= 1,
            neg_hypotheses=[h if not z3.eq(h, za >= 2 * zQ) else za >= zQ for h in small]),
    )


def _map():
    Fb, b, a, s, G, Fa = z3.Reals("Fb b a s G Fa")
    start = [b >= 1, a > b, s >= 1, G >= 1, Fb >= 1, Fb <= b, z3.Or(Fb == b, Fb >= s * G),
             Fa == z3.If(Fb >= z3.If(a <= s * G, a, s * G), Fb, z3.If(a <= s * G, a, s * G))]
    a1, b1, a2, b2 = z3.Reals("a1 b1 a2 b2")
    merge = [a1 > 0, a1 <= a2, a2 <= b1, b1 <= b2]
    F1, Fprev, r, Fa2 = z3.Reals("F1 Fprev r Fa2")
    grow = [Fprev >= 1, a > 0, s >= 1, G >= 1, r >= 1,
            Fa2 == z3.If(Fprev >= z3.If(a <= s * G, a, s * G), Fprev, z3.If(a <= s * G, a, s * G)), F1 == Fa2 * r]
    return (
        _z3("F is continuous at a component start: F(a_i) <= F(b_{i-1}) a_i / b_{i-1}", start, Fa * b <= Fb * a,
            neg_hypotheses=[h for h in start if not z3.eq(h, z3.Or(Fb == b, Fb >= s * G))]),
        _z3("D_i > 1 forces F(a_i) >= sG", start + [Fa < a], Fa >= s * G,
            neg_goal=Fa >= s * G + 1),
        _z3("two overlapping intervals merge into one of ratio <= the product of ratios", merge,
            b2 / a1 <= (b1 / a1) * (b2 / a2), neg_goal=b2 / a1 <= b2 / a2),
        _z3("one component: F(b_i) <= max(F(b_{i-1}), sG) (b_i / a_i)", grow,
            F1 <= z3.If(Fprev >= s * G, Fprev, s * G) * r, neg_goal=F1 <= Fprev * r),
        CitedLemma(CLAIM, "F_s is monotone, F(v) <= v, F(v)/v non-increasing, and continuous in s",
                   statement="piecewise: slope 1 in log scale on components, slope 1 then 0 on gaps; the steps above "
                   "at each junction", source="bounds/corrected.py docstring; checked pointwise by "
                   "verify/tests/izzo2025/test_compression.py::test_compressor_properties"),
        CitedLemma(CLAIM, "intermediate value theorem for the stretch",
                   statement="Lambda(s) = sum_c F_s(n_c) is continuous in s, Lambda(1) < H - 1 - w <= Lambda(s) for s "
                   "large, so Lambda(s) = H - 1 - w for some s", source="Bolzano"),
    )


def _length():
    Sx1, Sx2, m1, m2, F1, F2, S, j, z1 = z3.Reals("Sx1 Sx2 m1 m2 F1 F2 Sigma j z1")
    # two residues: S_r(m) in [sum_c F, sum_c F + |Sigma|), j = max_r (S_r(m) - S_r(x)), z's count S_1(x) + j
    counts = [S >= 1, z3.Abs(Sx1 - Sx2) <= 1, F1 <= m1, m1 < F1 + S, F2 <= m2, m2 < F2 + S,
              j == z3.If(m1 - Sx1 >= m2 - Sx2, m1 - Sx1, m2 - Sx2), z1 == Sx1 + j]
    phi = z3.If(F1 >= F2, F1, F2)
    w, Dl, G, P, Phi, zl, H, Fmax = z3.Reals("w Delta G P Phi z H Fmax")
    upper = [w >= 1, Dl >= 1, S >= 1, G >= 1, P >= 1, zl < 1 + w + Dl * (Phi + S + 1)]
    s1 = upper + [Phi <= S * Fmax, Fmax <= G * P]
    sH = upper + [Phi <= (H - 1 - w) / Dl + 1 + z3.RealVal("1/2")]
    low = [w >= 1, Dl >= 1, zl >= 1 + w + Dl * (Phi - 1), Phi >= (H - 1 - w) / Dl + 1]
    L0, Smax = z3.Reals("L0 Smax")
    reach = [w >= 1, Dl >= 1, S >= 1, H >= 1, L0 >= H + Dl * (S + 3) - w, Smax >= (L0 - Dl + 1) / Dl]
    return (
        _z3("each residue count of z lies in [Phi - 1, Phi + |Sigma| + 1) (two residues; the same for each pair)",
            counts, z3.And(z1 >= phi - 1, z1 < phi + S + 1), neg_goal=z3.And(z1 >= phi, z1 < phi + S + 1)),
        _z3("length at s = 1: |z| < 1 + w + Delta (|Sigma| + 1) + Delta |Sigma| G theta^-k = N_1", s1,
            zl < 1 + w + Dl * (S + 1) + Dl * S * G * P, neg_goal=zl < 1 + w + Dl * S * G * P),
        _z3("length after the stretch: |z| < H + Delta (|Sigma| + 3) = N_H", sH, zl < H + Dl * (S + 3),
            neg_goal=zl < H + Dl * (S + 2)),
        _z3("the stretch target is reachable: |x| > N_H => max_r S_r(x) >= (H - 1 - w)/Delta + 1", reach,
            Smax >= (H - 1 - w) / Dl + 1,
            neg_hypotheses=[h if not z3.eq(h, L0 >= H + Dl * (S + 3) - w) else L0 >= H - w for h in reach]),
        _z3("the stretched z reaches the hardmax threshold: |z| >= H", low, zl >= H, neg_goal=zl >= H + 1),
    )


def _output():
    lam, d1, d2, R1, R2, eta, eps, K, fx, fz, gx, gz, dl = z3.Reals("Lambda d1 d2 R1 R2 eta eps K fx fz gx gz delta")
    heads = [lam >= 0, R1 >= 0, R2 >= 0, d1 <= eta, d2 <= eta, d1 >= 0, d2 >= 0, K >= lam * (R1 + R2), K > 0,
             eta == eps / (2 * K)]
    tri = [z3.Abs(fx - fz) <= eps / 2, z3.Abs(gx - gz) <= eps / 2, z3.Abs(fz - gz) <= dl]
    return (
        CitedLemma(CLAIM, "residual, MLP and unembedding are Lambda-Lipschitz; a head moves by ||dpi||_1 max ||V y||",
                   statement="|U(Y + B relu(AY + b)) - U(Y' + ...)| <= ||U||_F (1 + ||A||_F ||B||_F) |Y - Y'|; "
                   "|sum_i (p_i - q_i) v_i| <= ||p - q||_1 max_i |v_i|",
                   source="izzo2025:app-a1.lip (verified); triangle inequality"),
        CitedLemma(CLAIM, "hardmax regime", statement="for |x| >= H = ceil(2^{p/gamma}) (completed gamma) every head "
                   "averages V y over its argmax items", source="izzo2025:sec3.2-hardmax (completed gamma)"),
        _z3("two heads: Lambda (d_1 R_1 + d_2 R_2) <= K eta = eps/2", heads, lam * (d1 * R1 + d2 * R2) <= eps / 2,
            neg_goal=lam * (d1 * R1 + d2 * R2) <= eps / 4),
        _z3("triangle: |f(x) - g(x)| <= delta + eps", tri, z3.Abs(fx - gx) <= dl + eps,
            neg_goal=z3.Abs(fx - gx) <= dl + eps / 2),
    )


def proof() -> Proof:
    """Every step of the corrected bound's proof, in the order of the docstring of bounds/corrected.py."""
    return Proof(CLAIM, "corrected Theorem 4.1 (bounds/corrected.py)",
                 _one_head() + _residues() + _budget() + _map() + _length() + _output())
