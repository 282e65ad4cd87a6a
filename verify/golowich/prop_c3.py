"""Proposition C.3 of golowich2025 (App. C.2): the witnesses for dropped relativity and dropped coverage, for every
training length L >= 3 and every test length l > L (z3, L and l symbolic).

Both witnesses (counterexamples/golowich/witnesses.py) have k = 2, V = {1, 2}, mu = delta_1, Q^voc = delta_(2,2),
g1 = g* = [x = (2, 2)] and keys with values 0 / -inf (weights 1 / 0); a sample of P_l is fixed by its planted set
S* = {s1 < s2}: X_i = 2 on S*, 1 elsewhere, Y = 1.  A pair S = {a < b} is encoded by (a, b).

Reduction to finitely many cases (shared steps):
  tokens: X_a = X_b = 2 iff (a, b) = S*, so g1(X_S) = [S = S*] and a (2, 2)-key scores no other set;
  attention: over Sets_2([l]) in any order, the partial sums keep N = seen w*, G = seen, D = seen w* + cnt, where
    w* is S*'s weight and cnt counts the other sets of weight 1 (induction over the sets); at the end seen = 1, so
    h = w* / (w* + cnt) when D > 0 and, by footnote 6, h = G / C(l, 2) = 1 / C(l, 2) when D = 0;
  risk: when the loss |h - Y| is the same for every S* in the support, the risk (its expectation) equals it.
Witness 'relative' (C.3(b)): Q_l uniform on the l - 1 adjacent pairs; g00 = [(2,2), span 1], g01 = g00 or [span 2,
  max S > L].  Local with L_local = 2, realizable by h_{g00,g1} (risk 0 at every l), coverage with eta_l = l - 1
  < 2 l, not relative (S = (L - 1, L + 1) and its shift by -1); h_{g01,g1} equals h_{g00,g1} at l <= L (a minimiser),
  and at l > L it also scores the l - L pairs (m - 2, m), L < m <= l (counted by induction on l), so its risk is
  (l - L)/(l - L + 1): >= 1/2 for l >= L + 1 and >= 3/4 for l >= 2 L >= 6.
Witness 'coverage' (C.3(d)): Q_l uniform on adjacent pairs for l <= L and on span-2 pairs for l > L;
  g00 = [(2,2), span 1], g01 = [(2,2), span 1 or 2].  Local, relative, realizable by h_{g01,g1}; coverage fails for
  every eta (l = L + 1, l' = L, S* = {1, 3}: Q_L(S*) = 0 < Q_{L+1}(S*)); h_{g00,g1} has risk 0 at l <= L (a
  minimiser) and at l > L scores nothing, so h = 1 / C(l, 2) and its risk is 1 - 2/(l(l - 1)) >= 5/6.
"""

from __future__ import annotations

import sympy as sp
import z3

from verify.kernel import Proof, z3_with_control

KEY = "golowich2025:prop-c3"


def tok(i, s1, s2):
    """X_i of the sample with planted set {s1, s2}."""
    return z3.If(z3.Or(i == s1, i == s2), 2, 1)


def is22(a, b, s1, s2):
    return z3.And(tok(a, s1, s2) == 2, tok(b, s1, s2) == 2)


# witness keys, as z3 predicates of the pair (a, b), its tokens' (2,2)-ness and L (True = score 0, weight 1)
def relative_g00(a, b, x22, L):
    return z3.And(x22, b - a == 1)


def relative_g01(a, b, x22, L):
    return z3.Or(z3.And(x22, b - a == 1), z3.And(b - a == 2, b > L))


def coverage_g00(a, b, x22, L):
    return z3.And(x22, b - a == 1)


def coverage_g01(a, b, x22, L):
    return z3.And(x22, z3.Or(b - a == 1, b - a == 2))


RULES = {"relative": {"g00": relative_g00, "g01": relative_g01},
         "coverage": {"g00": coverage_g00, "g01": coverage_g01}}


def _shared_steps(key: str) -> tuple:
    a, b, s1, s2, l = z3.Ints("a b s1 s2 l")
    pair = [1 <= a, a < b, b <= l, 1 <= s1, s1 < s2, s2 <= l]
    tokens = z3_with_control(key, "tokens: X_a = X_b = 2 iff (a, b) = S* (only S* holds 2s)", pair,
                             is22(a, b, s1, s2) == z3.And(a == s1, b == s2),
                             neg_goal=is22(a, b, s1, s2) == (a == s1))
    N, D, G, seen, cnt, cnt1, ws, star, wj, gj = z3.Reals("N D G seen cnt cnt1 w_star star w_j g_j")
    bit = [z3.Or(v == 0, v == 1) for v in (star, seen, wj, ws)]
    hyp = [N == seen * ws, G == seen, D == seen * ws + cnt, *bit, seen + star <= 1,
           z3.Implies(star == 1, wj == ws), cnt1 == cnt + z3.If(star == 1, 0, wj)]
    goal = z3.And(N + wj * gj == (seen + star) * ws, G + gj == seen + star, D + wj == (seen + star) * ws + cnt1)
    attn = z3_with_control(key, "attention, induction over the sets: (N, G, D) = (seen w*, seen, seen w* + cnt) with "
                           "g1(X_S) = [S = S*]", hyp + [gj == star], goal, neg_hypotheses=hyp + [gj == 1])
    h, C, ll = z3.Reals("h C l_real")
    out_h = [N == ws, G == 1, D == ws + cnt, cnt >= 0, z3.Or(ws == 0, ws == 1), C == ll * (ll - 1) / 2, ll >= 2,
             h == z3.If(D > 0, N / D, G / C)]
    out = z3_with_control(key, "all sets summed (S* came once): h = w*/(w* + cnt) if some set scores, else "
                          "1/C(l, 2) (footnote 6)", out_h,
                          z3.And(z3.Implies(D > 0, h * (ws + cnt) == ws), z3.Implies(D == 0, h * C == 1)),
                          neg_hypotheses=out_h[:-1] + [h == N / (D + 1)])
    E, W, p, K = z3.Reals("E W p K")
    expect = z3_with_control(key, "risk: a loss K equal for every S* in the support has expectation K (partial sums "
                             "keep E = K W; W = 1 at the end)", [E == K * W], E + p * K == K * (W + p),
                             neg_goal=E + p * K == K * W)
    return tokens, attn, out, expect


def _key_facts(key: str, name: str, g: str, span_ok) -> tuple:
    """Locality (span > 2 => weight 0) and relativity (shift invariance) of one key, for every L, S, shift."""
    rule = RULES[name][g]
    a, b, i, L = z3.Ints("a b i L")
    x22 = z3.Bool("x22")
    local = z3_with_control(key, f"{name}/{g} is local: weight 0 when span > 2", [a < b, b - a > 2, L >= 3],
                            z3.Not(rule(a, b, x22, L)), neg_hypotheses=[a < b, L >= 3])
    if span_ok:
        rel = z3_with_control(key, f"{name}/{g} is relative: the score of S + i equals that of S",
                              [a < b, a >= 1, a + i >= 1, L >= 3],
                              rule(a, b, x22, L) == rule(a + i, b + i, x22, L),
                              neg_goal=rule(a, b, x22, L) == rule(a + i, b + i, z3.Not(x22), L))
    else:
        rel = z3_with_control(key, f"{name}/{g} is not relative: S = (L - 1, L + 1) scores, S - 1 does not",
                              [L >= 3, a == L - 1, b == L + 1, i == -1, z3.Not(x22)],
                              z3.And(rule(a, b, x22, L), z3.Not(rule(a + i, b + i, x22, L))),
                              neg_hypotheses=[L >= 3, a == L - 1, b == L + 1, i == 0, z3.Not(x22)])
    return local, rel


def closed_form_step(key: str, name: str, derived):
    """The risk a proof derives, ``derived(L, l)`` (sympy), equals the code's closed form
    ``counterexamples.golowich.closed_forms.RISK[name]`` for all L and l: one home for the risk, so a change of the
    closed form fails the proof (control: the closed form plus 1/1000 is rejected)."""
    import sympy as sp

    from counterexamples.golowich.closed_forms import RISK
    from verify.kernel import SympyStep, negated

    L_, l_ = sp.symbols("L l", positive=True, integer=True)
    code = RISK[name](L_, l_)
    step = SympyStep(key, f"the derived risk is the closed form RISK[{name!r}] of counterexamples.golowich."
                     "closed_forms", derived(L_, l_), code)
    return SympyStep(**{**step.__dict__, "negative": negated(step, rhs=code + sp.Rational(1, 1000))})


def relative_universal() -> Proof:
    key = f"{KEY}.relative"
    a, b, s1, s2, l, L, m = z3.Ints("a b s1 s2 l L m")
    cnt, cnt1, h, risk = z3.Reals("cnt cnt1 h risk")
    lr, Lr = z3.ToReal(l), z3.ToReal(L)
    st = [1 <= s1, s2 == s1 + 1, s2 <= l]                                      # Q_l: adjacent pairs only
    pair = [1 <= a, a < b, b <= l, z3.Or(a != s1, b != s2)]
    x22 = is22(a, b, s1, s2)
    ql, qlp, lp, eta = z3.Reals("Q_l Q_lp lp eta")
    cov_h = [ql == 1 / (lr - 1), qlp == 1 / (lp - 1), 2 <= lp, lp <= lr, eta == lr - 1]
    return Proof(key, "C.3(b) for every L >= 3 and l > L", (
        *_shared_steps(key),
        *_key_facts(key, "relative", "g00", True),
        *_key_facts(key, "relative", "g01", False),
        z3_with_control(key, "coverage with eta_l = l - 1 < 2 l: Q_l = 1/(l - 1) on adjacent pairs, both ratios for "
                        "every l' in [2, l]", cov_h + [l >= 2],
                        z3.And(ql / qlp <= eta, qlp / ql <= eta, eta < 2 * lr),
                        neg_hypotheses=cov_h[:4] + [eta == lr - 2, l >= 2]),
        z3_with_control(key, "realizable: h_{g00,g1} scores only S* (adjacent), so h = 1 = Y at every l",
                        st + pair + [L >= 3], z3.And(relative_g00(s1, s2, True, L), z3.Not(relative_g00(a, b, x22, L))),
                        neg_hypotheses=[1 <= s1, s2 == s1 + 2, s2 <= l] + pair + [L >= 3]),
        z3_with_control(key, "training lengths l <= L: g01 scores the same sets as g00 (risk 0, a minimiser)",
                        [1 <= a, a < b, b <= l, l <= L, L >= 3],
                        relative_g01(a, b, x22, L) == relative_g00(a, b, x22, L),
                        neg_hypotheses=[1 <= a, a < b, b <= l, l <= L + 1, L >= 3]),
        z3_with_control(key, "test lengths l > L: besides S*, g01 scores exactly the pairs (m - 2, m), L < m <= l",
                        st + pair + [L >= 3, l > L],
                        relative_g01(a, b, x22, L) == z3.And(b - a == 2, b > L),
                        neg_goal=relative_g01(a, b, x22, L) == z3.And(b - a == 2, b >= L)),
        z3_with_control(key, "count, induction on l: |{m : L < m <= l + 1}| = cnt + 1 with m - 2 >= 1 (L >= 3)",
                        [L >= 3, l >= L, cnt == l - L, cnt1 == cnt + 1, m == l + 1, m > L],
                        z3.And(cnt1 == (l + 1) - L, m - 2 >= 1),
                        neg_hypotheses=[L >= 3, l >= L, cnt == l - L, cnt1 == cnt, m == l + 1, m > L]),
        z3_with_control(key, "test risk: h = 1/(1 + l - L), loss (l - L)/(l - L + 1): >= 1/2 for l > L, >= 3/4 for "
                        "l >= 2 L", [L >= 3, l > L, h == 1 / (1 + (lr - Lr)), risk == 1 - h],
                        z3.And(risk == (lr - Lr) / (lr - Lr + 1), risk >= z3.RealVal(1) / 2,
                               z3.Implies(l >= 2 * L, risk >= z3.RealVal(3) / 4)),
                        neg_goal=risk >= z3.RealVal(3) / 4),
        closed_form_step(key, "relative", lambda L_, l_: (l_ - L_) / (l_ - L_ + 1)),
    ))


def coverage_universal() -> Proof:
    key = f"{KEY}.coverage"
    a, b, s1, s2, l, L = z3.Ints("a b s1 s2 l L")
    h, risk, C = z3.Reals("h risk C")
    lr, Lr = z3.ToReal(l), z3.ToReal(L)
    pair = [1 <= a, a < b, b <= l, z3.Or(a != s1, b != s2)]
    x22 = is22(a, b, s1, s2)
    supp = [1 <= s1, s2 <= l, z3.If(l <= L, s2 == s1 + 1, s2 == s1 + 2)]      # Q_l's support
    q_L1 = z3.Real("Q_L1_13")
    return Proof(key, "C.3(d) for every L >= 3 and l > L", (
        *_shared_steps(key),
        *_key_facts(key, "coverage", "g00", True),
        *_key_facts(key, "coverage", "g01", True),
        z3_with_control(key, "realizable: h_{g01,g1} scores exactly S* (span 1 or 2 at every l), so h = 1 = Y",
                        supp + pair + [L >= 3],
                        z3.And(coverage_g01(s1, s2, True, L), z3.Not(coverage_g01(a, b, x22, L))),
                        neg_hypotheses=[1 <= s1, s2 <= l, s2 == s1 + 3] + pair + [L >= 3]),
        z3_with_control(key, "coverage fails for every eta: S* = {1, 3} has Q_(L+1)(S*) = 1/(L - 1) > 0 and lies in "
                        "[L] with Q_L(S*) = 0 (L's support is adjacent pairs)",
                        [L >= 3, q_L1 == 1 / (Lr + 1 - 2)], z3.And(3 <= L, 3 - 1 != 1, L + 1 > L, q_L1 > 0),
                        neg_hypotheses=[L >= 2, q_L1 == 1 / (Lr + 1 - 2)]),
        z3_with_control(key, "training lengths l <= L: h_{g00,g1} scores S* and nothing else (h = 1, risk 0: a "
                        "minimiser)", supp + pair + [L >= 3, l <= L],
                        z3.And(coverage_g00(s1, s2, True, L), z3.Not(coverage_g00(a, b, x22, L))),
                        neg_hypotheses=supp + pair + [L >= 3, l <= L + 1]),
        z3_with_control(key, "test lengths l > L: h_{g00,g1} scores no set (S* has span 2)", supp + pair + [L >= 3, l > L],
                        z3.And(z3.Not(coverage_g00(s1, s2, True, L)), z3.Not(coverage_g00(a, b, x22, L))),
                        neg_hypotheses=supp[:2] + pair + [L >= 3, l > L]),
        z3_with_control(key, "test risk: h = 1/C(l, 2), loss 1 - 2/(l(l - 1)) >= 5/6 for l >= L + 1 >= 4",
                        [L >= 3, l > L, C == lr * (lr - 1) / 2, h * C == 1, risk == 1 - h],
                        z3.And(risk == 1 - 2 / (lr * (lr - 1)), risk >= z3.RealVal(5) / 6),
                        neg_goal=risk >= z3.RealVal(6) / 7),
        closed_form_step(key, "coverage", lambda L_, l_: 1 - 2 / (l_ * (l_ - 1))),
    ))


def locality_g00(a, b, x22, L):
    return z3.Or(x22, b - a >= L)


def locality_g01(a, b, x22, L):
    return x22


RULES["locality"] = {"g00": locality_g00, "g01": locality_g01}


def _locality_family(l, L, a, b):
    """Q_l's support in C.3(a): adjacent pairs, and for l > L also the pairs {j, j + L}."""
    return z3.And(1 <= a, b <= l, z3.Or(b - a == 1, z3.And(l > L, b - a == L)))


def _locality_n(l, L):
    """|supp Q_l| (Q_l is uniform on it): l - 1 adjacent pairs, plus l - L pairs {j, j + L} when l > L."""
    return z3.If(l <= L, l - 1, 2 * l - L - 1)


def locality_bound_certificate(c=None):
    """The lower bound risk >= c for every L >= 3 and l >= 2 L: with L = 3 + u, l = 2 L + t, risk - c = num/den with
    num, den polynomials in (u, t) whose coefficients are all >= 0 (den's constant term > 0), so num/den >= 0 for
    u, t >= 0 (counterexamples.golowich.closed_forms.prove_lower_bound's certificate, here as kernel steps)."""
    import sympy as sp

    from counterexamples.golowich.closed_forms import RISK, uniform_c
    from verify.kernel import EnumerationStep, SympyStep, negated

    key = f"{KEY}.locality"
    u, t = sp.symbols("u t", nonnegative=True, integer=True)
    c = uniform_c("locality") if c is None else sp.Rational(c)
    L_, l_ = 3 + u, 2 * (3 + u) + t
    N_ = (l_ - L_) * (l_ - L_ + 1) / 2
    A_, W_ = l_ - 1, l_ - L_
    derived = (A_ * N_ / (N_ + 1) + W_ * (N_ - 1) / N_) / (A_ + W_)     # the risk derived in locality_universal

    def coeffs(cc):
        num, den = sp.fraction(sp.together(derived - cc))
        return sp.Poly(sp.expand(num), u, t).coeffs() + sp.Poly(sp.expand(den), u, t).coeffs()

    same = SympyStep(key, "the derived risk is the closed form of counterexamples.golowich.closed_forms",
                     derived, RISK["locality"](L_, l_))
    same = SympyStep(**{**same.__dict__, "negative": negated(same, rhs=RISK["locality"](L_, l_) + sp.Rational(1, 1000))})
    cert = EnumerationStep(key, f"certificate: every coefficient of risk - {c} (numerator and denominator, L = 3 + u, "
                           "l = 2L + t) is >= 0", lambda: coeffs(c), lambda co: co >= 0)
    cert = EnumerationStep(**{**cert.__dict__, "negative": negated(cert, instances=lambda: coeffs(c + sp.Rational(1, 1000)))})
    return same, cert


def locality_universal() -> Proof:
    key = f"{KEY}.locality"
    a, b, s1, s2, l, L, lp, d = z3.Ints("a b s1 s2 l L lp Delta")
    lr, Lr = z3.ToReal(l), z3.ToReal(L)
    N, N1, S, S1, K, KA, KW, ca, cw, ca1, cw1, isA = z3.Reals("N N1 S S1 K K_A K_W c_A c_W c_A1 c_W1 isA")
    pair = [1 <= a, a < b, b <= l, z3.Or(a != s1, b != s2)]
    x22 = is22(a, b, s1, s2)
    star = [_locality_family(l, L, s1, s2), s1 < s2]
    n_l, n_lp = _locality_n(l, L), _locality_n(lp, L)
    cov1_h = [L >= 3, _locality_family(l, L, a, b), d >= 0, 1 <= a - d, b - d <= lp, 2 <= lp, lp <= l]
    cov2_h = [L >= 3, _locality_family(lp, L, a, b), 2 <= lp, lp <= l]
    grp_h = [S == ca * KA + cw * KW, z3.Or(isA == 0, isA == 1), K == z3.If(isA == 1, KA, KW), ca1 == ca + isA,
             cw1 == cw + 1 - isA]
    return Proof(key, "C.3(a) for every L >= 3 and l >= 2 L", (
        *_shared_steps(key),
        *_key_facts(key, "locality", "g00", True)[1:],
        *_key_facts(key, "locality", "g01", True)[1:],
        z3_with_control(key, "locality dropped: g00 scores S = (1, 1 + L), span L > 2 = L_local, with tokens (1, 1)",
                        [L >= 3], z3.And(locality_g00(1, 1 + L, False, L), L > 2),
                        neg_hypotheses=[L == 2]),
        z3_with_control(key, "realizable: h_{g01,g1} scores exactly S* at every l (h = 1 = Y)", star + pair + [L >= 3],
                        z3.And(locality_g01(s1, s2, True, L), z3.Not(locality_g01(a, b, x22, L))),
                        neg_hypotheses=star + [1 <= a, a < b, b <= l, L >= 3]),         # S = S* allowed
        z3_with_control(key, "coverage (i), eta_l = |supp Q_l| < 2l: a shift of a support set that fits in [l'] is in "
                        "Q_l''s support, and |supp Q_l'| <= |supp Q_l|", cov1_h,
                        z3.And(_locality_family(lp, L, a - d, b - d), n_lp <= n_l, n_l < 2 * l, n_lp >= 1),
                        neg_hypotheses=cov1_h[:-1]),                                      # l' > l allowed
        z3_with_control(key, "coverage (ii): supp Q_l' is inside supp Q_l, so Q_l'(S*)/Q_l(S*) = n_l/n_l' <= n_l",
                        cov2_h, z3.And(_locality_family(l, L, a, b), n_lp >= 1), neg_hypotheses=cov2_h[:2] + [1 <= lp]),
        z3_with_control(key, "training lengths l <= L: g00 scores the same sets as g01 (no pair of [l] has span >= L; "
                        "risk 0, a minimiser)", [1 <= a, a < b, b <= l, l <= L, L >= 3],
                        locality_g00(a, b, x22, L) == locality_g01(a, b, x22, L),
                        neg_hypotheses=[1 <= a, a < b, b <= l, l <= L + 1, L >= 3]),
        z3_with_control(key, "test lengths: besides S*, g00 scores exactly the pairs of span >= L", star + pair,
                        locality_g00(a, b, x22, L) == (b - a >= L),
                        neg_goal=locality_g00(a, b, x22, L) == (b - a > L)),
        z3_with_control(key, "count, induction on l: N(l) = (l - L)(l - L + 1)/2 pairs of span >= L, and "
                        "N(l + 1) = N(l) + (l + 1 - L) (the pairs (a, l + 1), a <= l + 1 - L)",
                        [L >= 3, l >= L, N == (lr - Lr) * (lr - Lr + 1) / 2, N1 == N + (lr + 1 - Lr)],
                        N1 == (lr + 1 - Lr) * (lr + 2 - Lr) / 2,
                        neg_hypotheses=[L >= 3, l >= L, N == (lr - Lr) * (lr - Lr + 1) / 2, N1 == N + (lr - Lr)]),
        z3_with_control(key, "losses: adjacent S* is scored with the N span->= L pairs (h = 1/(N + 1)), S* = {j, j + L} "
                        "is one of them (h = 1/N)", [N >= 1, KA == 1 - 1 / (N + 1), KW == 1 - 1 / N],
                        z3.And(KA == N / (N + 1), KW == (N - 1) / N),
                        neg_goal=KW == N / (N + 1)),
        z3_with_control(key, "risk under the uniform Q_l: partial sums over the support grouped by class, "
                        "S = c_A K_A + c_W K_W (c_A = l - 1, c_W = l - L at the end, divided by n_l)", grp_h,
                        S + K == ca1 * KA + cw1 * KW, neg_hypotheses=grp_h[:2] + [K == KA, ca1 == ca + isA,
                                                                                  cw1 == cw + 1 - isA]),
        *locality_bound_certificate(),
    ))


def repair_g00(a, b, x22, L):
    return z3.And(x22, b - a == 1)


def repair_g01(a, b, x22, L):
    return z3.And(x22, b - a == 2)


RULES["realizability-repaired"] = {"g00": repair_g00, "g01": repair_g01}


def _repair_q(l, L, span):
    """Q_l(S*) in C.3(c) repaired, for a pair of span 1 or 2 (0 otherwise): l = 2 only {1, 2}; from l = 3 mass
    w_l = 9/10 (l <= L) or 1/10 (l > L) uniform on the l - 1 adjacent pairs, 1 - w_l on the l - 2 span-2 pairs."""
    lr = z3.ToReal(l)
    w = z3.If(l <= L, z3.RealVal(9) / 10, z3.RealVal(1) / 10)
    return z3.If(l == 2, z3.If(span == 1, z3.RealVal(1), z3.RealVal(0)),
                 z3.If(span == 1, w / (lr - 1), z3.If(span == 2, (1 - w) / (lr - 2), z3.RealVal(0))))


def repair_universal() -> Proof:
    key = f"{KEY}.realizability.repair"
    a, b, s1, s2, l, L, lp, sp_ = z3.Ints("a b s1 s2 l L lp span")
    lr = z3.ToReal(l)
    pair = [1 <= a, a < b, b <= l, z3.Or(a != s1, b != s2)]
    x22 = is22(a, b, s1, s2)
    star = [1 <= s1, s2 <= l, z3.Or(s2 - s1 == 1, s2 - s1 == 2)]
    w, C, KA, KW, r00, r01, S0, S1, T0, T1, u0, u1 = z3.Reals("w C K_A K_W r00 r01 S00 S01 S00n S01n t00 t01")
    q, qp, eta = _repair_q(l, L, sp_), _repair_q(lp, L, sp_), 10 * (lr - 1)
    fits = z3.If(sp_ == 1, lp >= 2, lp >= 3)            # a pair of this span fits in [l'] (after a shift)
    cov_h = [L >= 3, 2 <= lp, lp <= l, z3.Or(sp_ == 1, sp_ == 2), fits]
    risk_h = [l >= 3, C == lr * (lr - 1) / 2, r00 == (1 - w) * (1 - 1 / C), r01 == w * (1 - 1 / C)]
    return Proof(key, "C.3(c) repaired, for every L >= 3 and l > L", (
        *_shared_steps(key),
        *_key_facts(key, "realizability-repaired", "g00", True),
        *_key_facts(key, "realizability-repaired", "g01", True),
        z3_with_control(key, "coverage with eta_l = 10 (l - 1) < 10 l: both ratios for every l' in [2, l] and each "
                        "span (a shift keeps the span; a pair of Q_l''s support is in Q_l's)", cov_h,
                        z3.And(q <= eta * qp, qp <= eta * q, eta < 10 * lr, q > 0, qp > 0),
                        neg_hypotheses=cov_h[:-1]),                               # a span-2 pair in [2]: Q_2 = 0
        z3_with_control(key, "outputs: g00 scores exactly an adjacent S*, g01 exactly a span-2 S* (no other set)",
                        star + pair,
                        z3.And(repair_g00(s1, s2, True, L) == (s2 - s1 == 1), repair_g01(s1, s2, True, L) == (s2 - s1 == 2),
                               z3.Not(repair_g00(a, b, x22, L)), z3.Not(repair_g01(a, b, x22, L))),
                        neg_hypotheses=star + [1 <= a, a < b, b <= l]),
        z3_with_control(key, "risks for l >= 3 (loss 0 where the key scores S*, else footnote 6's 1/C(l, 2)): "
                        "r00 = (1 - w_l)(1 - 1/C), r01 = w_l (1 - 1/C); not realizable: at l = 3 <= L both > 0",
                        risk_h + [l == 3, w == z3.RealVal(9) / 10], z3.And(r00 > 0, r01 > 0),
                        neg_hypotheses=risk_h + [l == 3, w == 1]),
        z3_with_control(key, "training lengths 3 <= l <= L: r00 <= r01, strictly (w_l = 9/10); at l = 2 both are 0 "
                        "(C(2, 2) = 1)", risk_h + [w == z3.RealVal(9) / 10], r00 < r01,
                        neg_hypotheses=risk_h + [w == z3.RealVal(1) / 2]),
        z3_with_control(key, "objective (3), induction over the training lengths: sums of termwise <= stay <=, and "
                        "stay < after a strict term (l = L >= 3): g00 is the unique minimiser",
                        [S0 <= S1, u0 <= u1, T0 == S0 + u0, T1 == S1 + u1],
                        z3.And(T0 <= T1, z3.Implies(u0 < u1, T0 < T1), z3.Implies(S0 < S1, T0 < T1)),
                        neg_hypotheses=[S0 <= S1, T0 == S0 + u0, T1 == S1 + u1]),
        z3_with_control(key, "test lengths l > L >= 3 (w_l = 1/10): r00 = (9/10)(1 - 1/C(l, 2)) >= 3/4 and "
                        "r00 - r01 >= 2/3 (eq. 16)", risk_h + [L >= 3, l > L, w == z3.RealVal(1) / 10],
                        z3.And(r00 >= z3.RealVal(3) / 4, r00 - r01 >= z3.RealVal(2) / 3),
                        neg_hypotheses=risk_h + [L >= 2, l > L, w == z3.RealVal(1) / 10]),
        closed_form_step(key, "realizability-repaired", lambda L_, l_: (1 - sp.Rational(1, 10)) * (1 - 2 / (l_ * (l_ - 1)))),
    ))
