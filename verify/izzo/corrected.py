"""The proof of the corrected Theorem 4.1 (docstring of bounds/corrected.py) as kernel steps (verify/kernel.py).

Every step is a z3 or sympy obligation over symbolic parameters (all k, |Sigma|, Delta, w, lambda, theta, eps, counts),
each with a negative control the same method rejects.  Statements about sums over any number of items (the
normalization lemma, Lemma M's split over items, heads and ReLU units, the l1 error of a set) are proved by
induction: the base case and the inductive step are both obligations, so they hold for every number of terms.  No
step is cited: the stretch, which an intermediate value argument would give, is a discrete search whose success is
proved (below).

* the hardmax regime: at length >= H = ceil(2^{p/gamma}) a sub-maximal term (gap >= gamma, the completed margin) is
  flushed, a maximal one survives, and the surviving weights average V y over the argmax items (the monotonicity of
  ln and exp is used by name);
* Lemma M (bounds/modulus.py): one item's share of a head's move, the centering identity, ReLU and a weighted unit are
  1-Lipschitz, the triangle step of every sum, a piecewise-linear function is Lip-Lipschitz across a breakpoint;
* the map F: each piece keeps F(v) <= v, F(v)/v non-increasing and monotonicity, continuity at a component start
  (from the invariant "F(b) = b or F(b) >= L"), the invariant's propagation, F(b_i) <= L prod of ratios, merging two
  intervals, one interval's ratio <= 1/theta, (F5) and (F6);
* one set: U >= L/theta, insignificant and fixed items, the normalization lemma (per coordinate and summed),
  scaling by factors in [1, 1 + rho] moves <= rho, rounding, and the set's total ``<= a theta + rho``;
* padding: E_r - W_r, the lower bound on W_r, rho_r decreasing in X, rho_r < rho*, and the D_m = 1 case;
* the budget: the code's ``a`` and ``rho*`` (``bounds.corrected.ProofConstants``, read symbolically) are the
  proof's, and ``a theta + rho* <= eta`` for the theta the code chooses;
* positions: the residue counts of one length differ by at most 1, and a length shorter by Delta has one position
  fewer in every residue (integer arithmetic);
* the length: residue counts between Phi - 1 and Phi + |Sigma| + 2, N_1 at s = 1, N_H after the stretch, the stretch
  target reachable, |z| >= H; N_1 and N_H are the code's (``ProofConstants.length_at`` and ``hardmax_side`` called
  on the proof's symbols, and ``compression_length`` rounding lambda theta^-k up on the code's own constants);
* the stretch: F at ``t L`` lies between F and t F (``t >= 1``; induction over the rules defining F, then summed over
  classes and maximized over residues), F is the identity once L passes every count, and on the grid
  ``s_j = 1 + j/(2 Phi*)`` the first point with ``Phi >= Phi*`` has ``Phi <= Phi* + 1/2`` (an induction over the
  finitely many grid points);
* the output: the triangle ``|f(x) - g(x)| <= delta + eps``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy
import z3

from verify.kernel import (
    EnumerationStep,
    Proof,
    SympyStep,
    Z3Step,
    sympy_with_control,
    z3_max,
    z3_min,
    z3_with_control,
)

CLAIM = "izzo2025:thm4.1.corrected"


def _z3(name: str, hypotheses, goal, **control) -> Z3Step:
    return z3_with_control(CLAIM, name, hypotheses, goal, **control)


def _sympy(name: str, lhs, rhs, neg_rhs) -> SympyStep:
    return sympy_with_control(CLAIM, name, lhs, rhs, neg_rhs=neg_rhs)


def _relu(u):
    return z3.If(u > 0, u, 0)


def _drop(hyps, bad):
    return [h for h in hyps if not z3.eq(h, bad)]


def _lemma_m():
    dp, s, smin, smax = z3.Reals("dp s smin smax")
    mid = (smin + smax) / 2
    item = [smin <= s, s <= smax]
    S, T, P, d = z3.Reals("S T P d")
    X, Y, x, y = z3.Reals("X Y x y")
    tri = [z3.Abs(X) <= Y, z3.Abs(x) <= y]
    u, u2, c = z3.Reals("u u2 c")
    fa, fb, fc, a, b, cc, Lip, sig = z3.Reals("fa fb fc a b cc Lip sigma")
    piece = [a <= b, fb - fa == sig * (b - a), z3.Abs(sig) <= Lip]
    cross = [a <= cc, cc <= b, z3.Abs(fc - fa) <= Lip * (cc - a), z3.Abs(fb - fc) <= Lip * (b - cc), Lip >= 0]
    return (
        _z3("Lemma M, one item: |dp (s - mid)| <= |dp| (max - min)/2 for min <= s <= max", item,
            z3.Abs(dp * (s - mid)) <= z3.Abs(dp) * (smax - smin) / 2,
            neg_goal=z3.Abs(dp * (s - mid)) <= z3.Abs(dp) * (smax - smin) / 4),
        _z3("Lemma M, centering (induction step): S - T = mid P is kept when an item (d, s) is added",
            [S - T == mid * P], (S + d * s) - (T + d * (s - mid)) == mid * (P + d),
            neg_goal=(S + d * s) - (T + d * s) == mid * (P + d)),
        _z3("sums (induction step): |X| <= Y and |x| <= y => |X + x| <= Y + y", tri, z3.Abs(X + x) <= Y + y,
            neg_goal=z3.Abs(X + x) <= z3_max(Y, y)),
        _z3("ReLU is 1-Lipschitz", [], z3.Abs(_relu(u) - _relu(u2)) <= z3.Abs(u - u2),
            neg_goal=z3.Abs(_relu(u) - _relu(u2)) <= z3.Abs(u - u2) / 2),
        _z3("a unit moves by |c| |A_i . Delta a|: |c (relu(u) - relu(u'))| <= |c| |u - u'|", [],
            z3.Abs(c * (_relu(u) - _relu(u2))) <= z3.Abs(c) * z3.Abs(u - u2),
            neg_goal=z3.Abs(c * (_relu(u) - _relu(u2))) <= z3.Abs(u - u2)),
        _z3("along a line, one piece: slope |sigma| <= Lip => |f(b) - f(a)| <= Lip (b - a)", piece,
            z3.Abs(fb - fa) <= Lip * (b - a), neg_hypotheses=piece[:2]),
        _z3("along a line, across a breakpoint (induction step): Lip-Lipschitz on [a, c] and [c, b] => on [a, b]",
            cross, z3.Abs(fb - fa) <= Lip * (b - a), neg_goal=z3.Abs(fb - fa) <= Lip * (b - a) / 2),
    )


def _map():
    v, v2, a, b, Fa, bp, Fp, L = z3.Reals("v v2 a b Fa bp Fp L")
    comp = [1 <= a, a <= v, v <= v2, v2 <= b, 1 <= Fa, Fa <= a]
    Fv, Fv2 = Fa * v / a, Fa * v2 / a
    gap = [1 <= bp, bp < v, v <= v2, v2 <= a, 1 <= Fp, Fp <= bp, Fp <= Fa, Fa <= a]
    Gv, Gv2 = z3_min(Fp * v / bp, Fa), z3_min(Fp * v2 / bp, Fa)
    inv = z3.Or(Fp == bp, Fp >= L)
    start = [1 <= bp, bp < a, L >= 1, 1 <= Fp, Fp <= bp, inv, Fa == z3_max(Fp, z3_min(a, L))]
    Fb = Fa * b / a
    prop = start + [a <= b]
    P, r = z3.Reals("P r")
    grow = [L >= 1, P >= 1, r >= 1, Fp <= L * P, Fa == z3_max(Fp, z3_min(a, L)), Fa <= z3_max(Fp, L)]
    a1, b1, a2, b2, T, th = z3.Reals("a1 b1 a2 b2 T theta")
    merge = [a1 >= 1, a1 <= a2, a2 <= b1, b1 <= b2]
    nested = [a1 >= 1, a1 <= a2, a2 <= b2, b2 <= b1]
    one = [th > 0, th < 1, T >= 1]
    Dm, am, bm, Fam, Fbm = z3.Reals("Dm am bm Fam Fbm")
    f5 = [am >= 1, am <= bm, Fam >= 1, Fam < am, Fam >= L, Fbm == Fam * bm / am, v > bm, L >= 1]
    f6 = [th > 0, T >= 1, am == z3_max(1, th * T), T <= bm, Fam >= 1, Fam < am, Fam >= L, Fbm == Fam * bm / am]
    return (
        _z3("on a component: F(v) = F(a) v/a keeps F(v) <= v, F monotone and F(v)/v constant", comp,
            z3.And(Fv <= v, Fv <= Fv2, Fv * v2 == Fv2 * v), neg_hypotheses=_drop(comp, Fa <= a)),
        _z3("on a gap: F(v) = min(F(b') v/b', F(a)) keeps F(v) <= v, F monotone and F(v)/v non-increasing", gap,
            z3.And(Gv <= v, Gv <= Gv2, Gv * v2 >= Gv2 * v), neg_hypotheses=_drop(gap, Fp <= bp)),
        _z3("continuity at a component start: the gap's formula reaches F(a) at v = a (given F(b') = b' or "
            "F(b') >= L)", start, z3_min(Fp * a / bp, Fa) == Fa, neg_hypotheses=_drop(start, inv)),
        _z3("(F3) D > 1 forces F(a) >= L, and D = 1 keeps the identity: F(b) = b or F(b) >= L", prop,
            z3.And(z3.Implies(Fa < a, Fa >= L), z3.Or(Fb == b, Fb >= L)), neg_goal=z3.Or(Fb == b, Fb >= 2 * L)),
        _z3("(F4) induction step: F(b') <= L P => F(b) = F(a) r <= L P r", grow, Fa * r <= L * P * r,
            neg_goal=Fa * r <= P * r),
        _z3("(F4) two overlapping intervals merge into one of ratio <= the product of ratios", merge,
            b2 / a1 <= (b1 / a1) * (b2 / a2), neg_goal=b2 / a1 <= b2 / a2),
        _z3("(F4) a nested interval adds a factor >= 1", nested, b1 / a1 <= (b1 / a1) * (b2 / a2),
            neg_goal=b1 / a1 <= b2 / a2),
        _z3("(F4) one interval [max(1, theta T), T] has ratio <= 1/theta", one, T / z3_max(1, th * T) <= 1 / th,
            neg_goal=T / z3_max(1, th * T) <= 1 / (2 * th)),
        _z3("(F5) above b_m with D_m > 1: F(v) = max(F(b_m), min(v, L)) = F(b_m) <= v/D_m", f5,
            z3.And(z3_max(Fbm, z3_min(v, L)) == Fbm, Fbm <= v * Fam / am),
            neg_hypotheses=_drop(f5, Fam >= L)),
        _z3("(F6) D_m > 1: a_m <= theta b_m, F(a_m) <= theta F(b_m) and F(b_m) >= L/theta", f6,
            z3.And(am <= th * bm, Fam <= th * Fbm, Fbm >= L / th), neg_hypotheses=_drop(f6, Fam < am)),
    )


def _one_set():
    T, D, th, L, Fa, ai, U = z3.Reals("T D theta L Fa ai U")
    big = [th > 0, ai > 1, ai <= th * T, Fa >= L, Fa < ai, D == ai / Fa, U == T / D, L >= 1]
    n, v, u, Fth = z3.Reals("n v u Fth")
    ins = [D >= 1, U > 0, n >= 1, n < th * T, u == n / D, u <= v, v <= Fth, Fth == th * T / D, U == T / D]
    m, M, q, Q = z3.Reals("m M q Q")
    pos = [M > 0, Q > 0, m >= 0, q >= 0]
    E, Y, mm, qq = z3.Reals("E Y mm qq")
    summed = [E >= 0, Y >= 0, M > 0, Q > 0, z3.Abs(Q - M) <= Y, E <= Y / M + z3.Abs(Q - M) / M]
    p, P, rr, rho, Z = z3.Reals("p P rr rho Z")
    scale = [P > 0, rho >= 0, Z >= P, Z <= P * (1 + rho), p >= 0, p <= P, rr >= 0, rr <= rho]
    S, Dl, w, lam, dist1, dist2, dist3, qv = z3.Reals("Sigma Delta w lambda d1 d2 d3 qv")
    total = [S >= 1, Dl >= 1, w >= 1, lam >= 1, th > 0, U >= lam / th, rho >= 0, qv <= S * Dl, qv >= 0,
             dist1 <= 2 * (qv * th + (1 + w) / U), dist2 <= rho, dist3 <= 2 * qv / U]
    a = 2 * (S * Dl * (1 + 1 / lam) + (1 + w) / lam)
    fl, xr, mr = z3.ToReal(z3.Int("fl")), z3.Real("x"), z3.Real("m")
    return (
        _z3("D > 1: U = T/D >= F(a_i)/theta >= L/theta (a_i <= theta T)", big, U >= L / th,
            neg_goal=U >= 2 * L / th),
        _z3("an insignificant class: u <= v = F(n) <= F(theta T) = theta U, so |v - u| <= theta U", ins,
            z3.Abs(v - u) <= th * U, neg_goal=z3.Abs(v - u) <= th * U / 2),
        _z3("normalization, per coordinate: |m/M - q/Q| <= |m - q|/M + q |Q - M|/(Q M)", pos,
            z3.Abs(m / M - q / Q) <= z3.Abs(m - q) / M + q * z3.Abs(Q - M) / (Q * M),
            neg_goal=z3.Abs(m / M - q / Q) <= z3.Abs(m - q) / M),
        _z3("normalization, summed (the coordinates' bounds added; the same with M and Q swapped): sum_i q_i = Q "
            "and |Q - M| <= ||m - q||_1 = Y give ||m/M - q/Q||_1 <= 2Y/M",
            summed, E <= 2 * Y / M, neg_goal=E <= Y / M),
        _z3("scaling by factors in [1, 1 + rho]: each coordinate moves by <= rho p/P (so the l1 moves <= rho)",
            scale + [mm == p * (1 + rr) / Z], z3.Abs(mm - p / P) <= rho * p / P,
            neg_goal=z3.Abs(mm - p / P) <= rho * p / (2 * P)),
        _z3("one set: the insignificance, padding and rounding moves add up to <= a theta + rho", total,
            dist1 + dist2 + dist3 <= a * th + rho, neg_goal=dist1 + dist2 + dist3 <= a * th / 2 + rho),
        _z3("rounding by largest remainders: m = floor(x), or floor(x) + 1 only for x > floor(x) (the remainder R "
            "is the sum of fractional parts, so the R largest are positive) => |m - x| < 1",
            [fl <= xr, xr < fl + 1, z3.Or(mr == fl, z3.And(mr == fl + 1, xr > fl))], z3.Abs(mr - xr) < 1,
            neg_hypotheses=[fl <= xr, xr < fl + 1, z3.Or(mr == fl, mr == fl + 1)]),
    )


def _padding():
    S, Fam, Dm, Sr, Sr0, nr0, nr, t, t0, E, W = z3.Reals("Sigma Fam Dm Sr Sr0 need0 need t t0 E W")
    excess = [S >= 1, Fam >= 0, Dm >= 1, z3.Abs(Sr - Sr0) <= 1, Sr >= 0, Sr0 >= 0, nr0 <= Sr0 / Dm + S * (Fam + 1),
              nr >= Sr / Dm, t0 < nr0 + 1, t <= t0 + 1]
    L0, bm, w, Dl, X, th, am = z3.Reals("L0 bm w Delta X theta am")
    wlow = [Dl >= 1, w >= 1, S >= 1, th > 0, Dm >= 1, bm <= L0 + 1 + w, Sr >= (L0 - Dl + 1) / Dl, am <= th * bm,
            X == bm / Dm, W > (Sr - S * am) / Dm]
    X1, X2, c = z3.Reals("X1 X2 c")
    num = lambda x: Dl * (S * th * x + S + 3)  # noqa: E731
    den = lambda x: x * (1 - Dl * S * th) - w - Dl  # noqa: E731
    mono = [Dl >= 1, S >= 1, th > 0, w >= 1, X1 > 0, X1 <= X2, den(X1) > 0]
    lam, rho = z3.Reals("lambda rho")
    Xm = lam / th
    star = [Dl >= 1, S >= 1, th > 0, w >= 1, lam >= 1, X >= Xm, den(Xm) > 0, rho < num(X) / den(X)]
    rho_star = Dl * th * (S * lam + S + 3) / (lam * (1 - Dl * S * th) - th * (w + Dl))
    one = [E - W < 1, W > (X * (1 - S * th) - w - 1), X >= Xm, lam * (1 - S * th) - th * (w + 1) > 0, th > 0,
           lam >= 1, S >= 1, w >= 1]
    aL, Lb, Sx = z3.Reals("aL Lb Sx")
    d1 = [aL <= lam, bm <= aL * c, c >= 1, Sx <= S * bm, L0 <= Dl * (Sx + 1), S >= 1, Dl >= 1, lam >= 1]
    return (
        _z3("E_r - W_r = t_r - need_r < |Sigma| F(a_m) + |Sigma| + 3", excess, t - nr < S * Fam + S + 3,
            neg_goal=t - nr < S * Fam + S + 2),
        _z3("W_r > (X (1 - Delta |Sigma| theta) - w - Delta)/Delta with X = F(b_m) = b_m/D_m", wlow,
            W > (X * (1 - Dl * S * th) - w - Dl) / Dl, neg_hypotheses=_drop(wlow, am <= th * bm)),
        _z3("the padding bound Delta (|Sigma| theta X + |Sigma| + 3)/(X (1 - Delta |Sigma| theta) - w - Delta) "
            "decreases in X", mono, num(X2) * den(X1) <= num(X1) * den(X2),
            neg_goal=num(X2) * den(X1) <= num(X1) * den(X2) - 1),
        _z3("rho_r < rho* = Delta theta c/den at X >= lambda/theta (c = |Sigma| lambda + |Sigma| + 3)",
            star + [num(Xm) * den(X) >= num(X) * den(Xm)], rho < rho_star,
            neg_goal=rho < rho_star / 2),
        _z3("Delta = 1: E_r - W_r < 1 and W_r > X (1 - |Sigma| theta) - w - 1 give rho_r < theta/den", one,
            (E - W) / W < th / (lam * (1 - S * th) - th * (w + 1)),
            neg_goal=(E - W) / W < th / (2 * (lam * (1 - S * th) - th * (w + 1)))),
        _z3("D_m = 1 with a residue whose classes are all attended: |x| <= 1 + w + Delta (|Sigma| L theta^-k + 1)",
            d1 + [Lb == lam * c], L0 + 1 + w <= 1 + w + Dl * (S * Lb + 1),
            neg_goal=L0 + 1 + w <= 1 + w + Dl * S * Lb),
    )


def _budget():
    from bounds.corrected import ProofConstants

    S, Dl, w, k, K, eta, lam, th = sympy.symbols("Sigma Delta w k K eta lambda theta", positive=True)
    pc = ProofConstants(S, Dl, w, k, K, eta, lam, th)  # the code's a and rho*, read symbolically
    a_proof = 2 * (S * Dl * (1 + 1 / lam) + (1 + w) / lam)
    rho_proof = Dl * th * (S * lam + S + 3) / (lam * (1 - Dl * S * th) - th * (w + Dl))
    return (
        _sympy("the code's a is the proof's 2 (|Sigma| Delta (1 + 1/lambda) + (1 + w)/lambda)", pc.a, a_proof,
               neg_rhs=a_proof - 2 * (1 + w) / lam),
        _sympy("the code's budget (Delta > 1) is the proof's a theta + Delta theta (|Sigma| lambda + |Sigma| + 3)/den",
               pc.budget(th), a_proof * th + rho_proof, neg_rhs=a_proof * th + rho_proof * (S * lam + S + 2) /
               (S * lam + S + 3)),
        _sympy("the code's growth of N_1 is the proof's lambda theta^-k (F4)", pc.growth(), lam / th**k,
               neg_rhs=lam / th ** (k - 1)),
    )


def _positions():
    """Prefix positions per residue: positions 2..M of residue r number floor((M - first_r)/Delta) + 1 with first_r
    in [2, Delta + 1]; as integers q_r with q_r Delta <= M - first_r < (q_r + 1) Delta."""
    M, D, f1, f2, q1, q2, q3 = z3.Ints("M D first1 first2 q1 q2 q3")
    base = [D >= 1, 2 <= f1, f1 <= D + 1, 2 <= f2, f2 <= D + 1, M >= D + 1,
            q1 * D <= M - f1, M - f1 < (q1 + 1) * D, q2 * D <= M - f2, M - f2 < (q2 + 1) * D]
    shift = [D >= 1, 2 <= f1, f1 <= D + 1, M >= 2 * D + 1, q1 * D <= M - f1, M - f1 < (q1 + 1) * D,
             q3 * D <= M - D - f1, M - D - f1 < (q3 + 1) * D]
    return (
        _z3("residue counts of one length differ by at most 1", base, z3.Abs(q1 - q2) <= 1,
            neg_goal=q1 == q2),
        _z3("a length shorter by Delta has one position fewer in every residue", shift, q3 == q1 - 1,
            neg_goal=q3 == q1),
    )


def _code_constants(S, Dl, w, k, th, lam):
    """The code's :class:`bounds.corrected.ProofConstants` on symbols: its N_1 (``length_at``) and N_H
    (``hardmax_side``) are computed by the code's own functions, so a change there changes the proof's goals."""
    from bounds.corrected import ProofConstants

    return ProofConstants(S, Dl, w, k, None, None, lam, th)


def _length():
    Phi, S, w, Dl, zl, H, t, n0, L, P, T, th = z3.Reals("Phi Sigma w Delta z H t need0 L P top theta")
    pc = _code_constants(S, Dl, w, 1, th, L)
    tr = [S >= 1, n0 <= Phi + S, t < n0 + 2]
    upper = [w >= 1, Dl >= 1, S >= 1, zl < 1 + w + Dl * (Phi + S + 2)]
    s1 = upper + [Phi <= S * L * P, L >= 1, P >= 1, T >= L * P]
    N1 = pc.length_at(T)  # the code's N_1 at top = ceil(lambda theta^-k) >= lambda theta^-k
    sH = upper + [Phi <= (H - 1 - w) / Dl + 1 + z3.RealVal("1/2")]
    low = [w >= 1, Dl >= 1, zl >= 1 + w + Dl * (Phi - 1), Phi >= (H - 1 - w) / Dl + 1]
    L0, Smax = z3.Reals("L0 Smax")
    reach = [w >= 1, Dl >= 1, S >= 1, H >= 1, L0 + 1 + w > H + Dl * (S + 4), Smax >= L0 / Dl]
    d1 = [w >= 1, Dl >= 1, S >= 1, H >= 1, Phi <= (H - 1 - w) / Dl + 1 + z3.RealVal("1/2"),
          Phi >= (L0 - Dl + 1) / Dl]
    return (
        _z3("residue counts of z: t_r < need_r0 + 2 <= Phi + |Sigma| + 2", tr, t < Phi + S + 2,
            neg_goal=t < Phi + S + 1),
        _z3("length at s = 1: |z| < 1 + w + Delta (|Sigma| (ceil(lambda theta^-k) + 1) + 2) = N_1 (the code's "
            "length_at)", s1, zl < N1, neg_goal=zl < 1 + w + Dl * S * L * P),
        EnumerationStep(CLAIM, "the code's N_1 is length_at(top) with top >= lambda theta^-k, the least integer",
                        _n1_instances, _n1_rounds_up, negative=EnumerationStep(
                            CLAIM, "control: a top one below", _n1_instances,
                            lambda pc: pc.compression_length() == pc.length_at(math.ceil(pc.growth()) - 1))),
        _z3("length after the stretch: |z| < H + Delta (|Sigma| + 4) = N_H (the code's hardmax_side)", sH,
            zl < pc.hardmax_side(H), neg_goal=zl < H + Dl * (S + 3)),
        _z3("the stretch target is reachable: |x| > N_H => max_r S_r(x) >= (H - 1 - w)/Delta + 1", reach,
            Smax >= (H - 1 - w) / Dl + 1,
            neg_hypotheses=_drop(reach, L0 + 1 + w > H + Dl * (S + 4)) + [L0 + 1 + w > H]),
        _z3("the stretched z reaches the hardmax threshold: |z| >= H", low, zl >= H, neg_goal=zl >= H + 1),
        _z3("after the stretch D_m = 1 with an attended residue forces |x| <= H + 3 Delta < N_H", d1,
            L0 + 1 + w <= H + 3 * Dl, neg_goal=L0 + 1 + w <= H + Dl),
    )


def _n1_instances():
    """The code's constants for a few quantities (|Sigma|, Delta, w, k, K, eps), theta chosen by the code."""
    from bounds.corrected import proof_constants

    for q in ((2, 1, 2, 1, 1, "1/10"), (3, 2, 3, 2, 2, "1/20"), (2, 3, 4, 1, "3/2", "1/7"), (4, 2, 2, 3, 1, "1/3")):
        pc = proof_constants(*q[:4], Fraction(q[4]), Fraction(q[5]))
        if not pc.trivial:
            yield pc


def _n1_rounds_up(pc) -> bool:
    """N_1 = length_at(top) with top the least integer >= lambda theta^-k (exact rationals)."""
    g, n1 = pc.growth(), pc.compression_length()
    tops = [t for t in range(max(0, math.floor(g) - 1), math.floor(g) + 3) if pc.length_at(t) == n1]
    return len(tops) == 1 and tops[0] >= g > tops[0] - 1


def _hardmax():
    """The hardmax regime: at model length n >= |x| >= H = ceil(2^{p/gamma}) every sub-maximal term n^{-gap}
    (gap >= gamma, the completed margin of bounds.margin) is flushed and every maximal term exp(0) = 1 survives, so the
    head's weights are 1/|argmax| on its argmax positions: it averages V y over its argmax items.  In the log domain
    (ln and exp increasing: elementary): n >= 2^{p/gamma} gives ln n >= (p/gamma) ln 2, and the term is flushed iff
    gap ln n >= p ln 2."""
    gap, gamma, p, ln2, lnn, two_p = z3.Reals("gap gamma p ln2 ln_n two_p")
    flush = [gamma > 0, gap >= gamma, p >= 1, ln2 > 0, lnn * gamma >= p * ln2]
    keep = [p >= 1, two_p >= 2]  # 2^p >= 2 for p >= 1 bits
    k, y1, y2, wsum = z3.Reals("k y1 y2 wsum")
    return (
        _z3("hardmax: a sub-maximal term n^{-gap}, gap >= gamma, is flushed at n >= 2^{p/gamma} (gap ln n >= p ln 2)",
            flush, gap * lnn >= p * ln2, neg_hypotheses=_drop(flush, gap >= gamma)),
        _z3("hardmax: a maximal term exp(0) = 1 is above 2^-p (p >= 1), so it survives the flush", keep,
            1 > 1 / two_p, neg_hypotheses=[p >= 0, two_p >= 1]),
        _z3("hardmax: k surviving terms of 1 normalize to weights 1/k, the average of V y over the argmax items "
            "(induction step of the weighted sum: sum (1/k) y_j = (sum y_j)/k)", [k >= 1, wsum * k == y1],
            wsum + y2 / k == (y1 + y2) / k, neg_goal=wsum + y2 / k == (y1 + y2) / (k + 1)),
    )


def _stretch():
    """The stretch without the intermediate value theorem: a discrete search whose success is proved.

    Write ``F_L`` for the map F at ``L = lambda s``.  For ``L' = t L`` with ``t >= 1``, ``F_L(v) <= F_L'(v) <=
    t F_L(v)`` for every v (property P), by induction over the definition of F: the base ``F(1) = 1``, then each rule
    (the component start, a component, a gap, above b_m) keeps P given P for the values it reads.  Summed over the
    classes of a residue (induction step) and maximized over residues, ``Phi(L) <= Phi(L') <= t Phi(L)``.  Once L is
    at least every count, F is the identity (base and the same four rules, given F(b') = b'), so Phi = max_r S_r(x)
    >= Phi*.  On the grid ``s_j = 1 + j/(2 Phi*)`` (``t = s_j/s_(j-1) <= 1 + 1/(2 Phi*)``), which passes every
    count / lambda after finitely many steps, the invariant "Phi(s_j) < Phi* or some earlier grid point has Phi in
    [Phi*, Phi* + 1/2]" holds at j = 0 (Phi(1) < Phi*) and is kept by every step; at the last grid point Phi >=
    Phi*, so some grid point has ``Phi* <= Phi(s) <= Phi* + 1/2``."""
    t, L, a, v, bp, r = z3.Reals("t L a v bp r")
    Fp, Fp2, Fa, Fa2 = z3.Reals("Fp Fp' Fa Fa'")

    def P(x, x2):
        return z3.And(x <= x2, x2 <= t * x)

    scal = [t >= 1, L >= 1]
    a_rule = scal + [a >= 1, Fp >= 0, P(Fp, Fp2)]
    comp = scal + [a >= 1, v >= a, Fa >= 0, P(Fa, Fa2)]
    gap = scal + [bp >= 1, v > bp, Fp >= 0, Fa >= 0, P(Fp, Fp2), P(Fa, Fa2)]
    above = scal + [v >= 1, Fp >= 0, P(Fp, Fp2)]
    S, S2, X, X2 = z3.Reals("S S' X X'")
    summed = [t >= 1, S >= 0, X >= 0, P(S, S2), P(X, X2)]
    ident = [L >= 1, bp >= 1, a >= bp, a <= L, Fp == bp, Fa == a]
    phi0, phi1, star, sj = z3.Reals("Phi_prev Phi Phi_star s")
    found0, found1 = z3.Bools("found_prev found")
    inside = z3.And(star <= phi1, phi1 <= star + z3.RealVal("1/2"))
    grid = [star > 0, sj >= 1, t == (sj + 1 / (2 * star)) / sj, z3.Or(found0, phi0 < star), phi0 >= 0,
            phi0 <= phi1, phi1 <= t * phi0, found1 == z3.Or(found0, inside)]
    j, M, lam = z3.Int("J"), z3.Real("max_count"), z3.Real("lambda")
    zl, H, w, Dl = z3.Reals("z H w Delta")
    return (
        _z3("stretch, F at L and t L (base): F(1) = 1 has P: 1 <= 1 <= t", [t >= 1], P(z3.RealVal(1), z3.RealVal(1)),
            neg_hypotheses=[t >= 0]),
        _z3("stretch, P kept at a component start: F(a) = max(F(b'), min(a, L))", a_rule,
            P(z3_max(Fp, z3_min(a, L)), z3_max(Fp2, z3_min(a, t * L))), neg_hypotheses=_drop(a_rule, t >= 1)),
        _z3("stretch, P kept on a component: F(v) = F(a) v/a", comp, P(Fa * v / a, Fa2 * v / a),
            neg_goal=P(Fa * v / a, Fa2 * v / (2 * a))),
        _z3("stretch, P kept on a gap: F(v) = min(F(b') v/b', F(a))", gap,
            P(z3_min(Fp * v / bp, Fa), z3_min(Fp2 * v / bp, Fa2)),
            neg_goal=P(z3_min(Fp * v / bp, Fa), z3_max(Fp2 * v / bp, Fa2))),
        _z3("stretch, P kept above b_m: F(v) = max(F(b_m), min(v, L))", above,
            P(z3_max(Fp, z3_min(v, L)), z3_max(Fp2, z3_min(v, t * L))), neg_hypotheses=_drop(above, t >= 1)),
        _z3("stretch, Phi: a sum of terms with P has P (induction step over the classes of a residue)", summed,
            P(S + X, S2 + X2), neg_goal=S2 + X2 <= t * S + X),
        _z3("stretch, Phi: the max of two values with P has P (induction step over the residues)", summed,
            P(z3_max(S, X), z3_max(S2, X2)), neg_goal=P(z3_max(S, X), z3_min(S2, X2))),
        _z3("stretch, L >= every count: F is the identity at a component start (F(b') = b' <= a <= L)", ident,
            z3_max(Fp, z3_min(a, L)) == a, neg_hypotheses=_drop(ident, a <= L)),
        _z3("stretch, L >= every count: F is the identity on a component (F(a) = a)", ident + [v >= a],
            Fa * v / a == v, neg_goal=Fa * v / a == a),
        _z3("stretch, L >= every count: F is the identity on a gap (F(b') = b' < v <= a = F(a))",
            ident + [v > bp, v <= a], z3_min(Fp * v / bp, Fa) == v, neg_hypotheses=_drop(ident, Fa == a) + [v > bp]),
        _z3("stretch, L >= every count: F is the identity above b_m (F(b_m) = b_m < v <= L)", ident + [v > bp, v <= L],
            z3_max(Fp, z3_min(v, L)) == v, neg_hypotheses=_drop(ident, a <= L) + [v > bp]),
        _z3("stretch, the start: |z| >= 1 + w + Delta (Phi(1) - 1) and |z| < H give Phi(1) < Phi* = (H - 1 - w)/Delta "
            "+ 1", [w >= 1, Dl >= 1, zl >= 1 + w + Dl * (phi0 - 1), zl < H], phi0 < (H - 1 - w) / Dl + 1,
            neg_goal=phi0 < (H - 1 - w) / Dl),
        _z3("stretch, grid step (induction): s -> s + 1/(2 Phi*) keeps 'Phi < Phi* or some grid point has Phi in "
            "[Phi*, Phi* + 1/2]'", grid, z3.Or(found1, phi1 < star),
            neg_hypotheses=_drop(grid, grid[2]) + [t == (sj + 1 / star) / sj]),
        _z3("stretch, the grid ends: s_J = 1 + J/(2 Phi*) >= max count / lambda for J = ceil(2 Phi* (max count/lambda "
            "- 1)), where Phi >= Phi* forces 'found'",
            [star > 0, lam >= 1, M >= 1, z3.ToReal(j) >= 2 * star * (M / lam - 1),
             z3.ToReal(j) < 2 * star * (M / lam - 1) + 1, z3.Or(found1, phi1 < star), phi1 >= star],
            z3.And(1 + z3.ToReal(j) / (2 * star) >= M / lam, found1),
            neg_goal=z3.And(1 + z3.ToReal(j) / (2 * star) >= 2 * M / lam, found1)),
    )


def _output():
    eps, K, Kf, Kg, eta, d, fx, fz, gx, gz, dl = z3.Reals("eps K Kf Kg eta d fx fz gx gz delta")
    hyp = [eps > 0, Kf >= 0, Kg >= 0, K >= Kf + Kg, K > 0, eta == eps / K, d >= 0, d <= eta,
           z3.Abs(fx - fz) <= Kf * d, z3.Abs(gx - gz) <= Kg * d, z3.Abs(fz - gz) <= dl]
    return (
        _z3("triangle with Lemma M: |f(x) - g(x)| <= (K_f + K_g) eta + delta <= delta + eps", hyp,
            z3.Abs(fx - gx) <= dl + eps, neg_goal=z3.Abs(fx - gx) <= dl + eps / 2),
    )


def proof() -> Proof:
    """Every step of the corrected bound's proof, in the order of the docstring of bounds/corrected.py."""
    return Proof(CLAIM, "corrected Theorem 4.1 (bounds/corrected.py)",
                 _hardmax() + _lemma_m() + _map() + _one_set() + _padding() + _budget() + _positions() + _length()
                 + _stretch() + _output())
