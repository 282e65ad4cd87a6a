"""Definition 4.1, Assumption D.1 and Proposition 4.4 / D.2 (position coupling) of golowich2025, executable.

A coupled token is a tuple of (tag, token) pairs.  ``pc_sequence`` implements eq. (19) for a concrete
choice of the random tags; ``pc_law`` enumerates the exact law of PC[X, S*] (all tags, all backgrounds)
for small l.  ``expand`` and the PC-transformed key/value follow eqs. (17)-(18): sort the pairs of the
chosen coupled tokens by tag, drop duplicate tags, and score only if the result lies in V^k.

Findings (docs/gaps.md): with background tags I ~ Unif([l]) (eq. (19)) the law of a
background coupled token depends on l, so PC[P] is not a planted ensemble (Def. 3.2 needs a fixed mu);
tags exceed [k]; and a background position next to the planted block can *sort in front of* a planted
token, so PC[g0*] is finite on a spurious set: 0-strong realizability of P does not transfer.  With the
background tag fixed to 1 (``tag_mode="fixed"``) the spurious sets vanish on the same instance.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from constructions.golowich.model import attention, sets_k, span

# ----------------------------------------------------------------------------------------------- Def 4.1


def reversal_coupling(ell: int):
    """S* = {j, l+1-j} (j < l+1-j uniform), psi(l+1-j) = j, identity elsewhere.  Yields (S*, psi, prob)."""
    js = [j for j in range(1, ell + 1) if j < ell + 1 - j]
    for j in js:
        psi = {i: i for i in range(1, ell + 1)}
        psi[ell + 1 - j] = j
        yield (j, ell + 1 - j), psi, Fraction(1, len(js))


def identity_coupling(ell: int):
    """Mutated coupling (negative control): psi = identity for the same non-local S*."""
    for S, _, p in reversal_coupling(ell):
        yield S, {i: i for i in range(1, ell + 1)}, p


def gap_coupling(gap: int):
    """S* = {j, j + gap} (j uniform), psi = identity: span psi(S*) = gap at every length, so item 1 of
    Definition 4.1 holds exactly at its boundary for L_local = gap and fails for L_local = gap - 1."""
    def coupling(ell: int):
        js = range(1, ell - gap + 1)
        for j in js:
            yield (j, j + gap), {i: i for i in range(1, ell + 1)}, Fraction(1, len(js))
    return coupling


def check_def41(coupling, ells, Lloc: int) -> str:
    """'' if items 1-3 of Definition 4.1 hold for every l in ells, else the first failure."""
    kprime, pattern_law = None, None
    for ell in ells:
        law: dict = {}
        for S, psi, p in coupling(ell):
            img = {psi[i] for i in S}
            width = span(tuple(sorted(img)))  # the model's span (constructions.golowich.model), one definition
            if width > Lloc:
                return f"item 1 fails at l = {ell}, S* = {S}: span psi(S*) = {width}"
            for i in range(1, ell + 1):
                if i not in S and sum(1 for a in range(1, ell + 1) if psi[a] == psi[i]) != 1:
                    return f"item 2 fails at l = {ell}: index {i} coupled"
            if kprime is None:
                kprime = len(img)
            if len(img) != kprime:
                return f"item 3 fails at l = {ell}: |psi(S*)| = {len(img)} != {kprime}"
            pat = tuple(sorted(tuple(sorted(sorted(S).index(a) + 1 for a in S if psi[a] == i)) for i in img))
            law[pat] = law.get(pat, 0) + p
        if pattern_law is None:
            pattern_law = law
        if law != pattern_law:
            return f"item 3 fails at l = {ell}: rank-pattern law {law} != {pattern_law}"
    return ""


# ----------------------------------------------------------------------------------------------- eq. (17)-(19)


def expand(xbars) -> tuple:
    """Concatenate (tag, token) pairs, sort by tag, remove duplicate tags (keep the first), return tokens."""
    pairs = sorted((p for xb in xbars for p in xb), key=lambda p: p[0])
    out, seen = [], set()
    for tag, tok in pairs:
        if tag not in seen:
            seen.add(tag)
            out.append(tok)
    return tuple(out)


def pc_key(w, k: int, Lloc: int):
    """PC[g0] as a weight: 0 if span(S) > Lloc or expand not in V^k, else w(expand) (position-independent w)."""
    def W(S, xbs):
        if span(S) > Lloc:
            return 0
        e = expand(xbs)
        return w(e) if len(e) == k else 0
    return W


def pc_value(g1, k: int, y0=Fraction(0)):
    def G(xbs):
        e = expand(xbs)
        return g1(e) if len(e) == k else y0
    return G


def pc_sequence(x, S, psi, tags):
    """Eq. (19) with the random tags given: tags[i] for every i not in psi(S) (a tag in [l])."""
    ell = len(x)
    img = {psi[a] for a in S}
    out = []
    for i in range(1, ell + 1):
        pre = sorted(a for a in range(1, ell + 1) if psi[a] == i)
        if i in img:
            out.append(tuple((sorted(S).index(a) + 1, x[a - 1]) for a in pre if a in S))
        elif pre:
            out.append(((tags[i], x[pre[0] - 1]),))
        else:
            out.append(((tags[i], x[i - 1]),))  # not in the image: a fresh Unif([l]) x mu draw, here x_i
    return tuple(out)


def pc_law(ens, coupling, ell: int, tag_mode: str = "paper"):
    """Exact law of (PC[X, S*], psi(S*), Y): yields (xbar, S_bar, y, prob).

    tag_mode 'paper': background tags ~ Unif([l]) (eq. (19)); 'fixed': background tag 1.
    """
    cpl = {S: (psi, p) for S, psi, p in coupling(ell)}
    for x, S, p in ens.joint(ell):
        psi, pc = cpl[S]
        pS = p  # coupling is a function of S* here (Q^{pos-c} has S*-marginal Q^pos)
        img = sorted({psi[a] for a in S})
        free = [i for i in range(1, ell + 1) if i not in img]
        choices = range(1, ell + 1) if tag_mode == "paper" else (1,)
        for tg in itertools.product(choices, repeat=len(free)):
            tags = dict(zip(free, tg, strict=True))
            yield pc_sequence(x, S, psi, tags), tuple(img), ens.gstar(tuple(x[a - 1] for a in S)), \
                pS * Fraction(1, len(choices) ** len(free))


def background_token_law(ens, coupling, ell, position, tag_mode="paper"):
    """Exact law of the coupled token at a position outside psi(S*) (conditioned on that event)."""
    law, tot = {}, Fraction(0)
    for xb, img, _, p in pc_law(ens, coupling, ell, tag_mode):
        if position in img:
            continue
        law[xb[position - 1]] = law.get(xb[position - 1], 0) + p
        tot += p
    return {t: q / tot for t, q in law.items()}


def spurious_probability(ens, coupling, ell, w, k, Lloc, tag_mode="paper"):
    """P(PC[g0*] > -inf on some k-set other than the planted one) under PC[P_l] (exact)."""
    W = pc_key(w, k, Lloc)
    tot = Fraction(0)
    for xb, img, _, p in pc_law(ens, coupling, ell, tag_mode):
        for T in sets_k(ell, k):
            if T != img and W(T, tuple(xb[i - 1] for i in T)):
                tot += p
                break
    return tot


def pc_risk(ens, coupling, ell, w, g1, k, Lloc, tag_mode="paper"):
    """Exact risk of h_{PC[g0*], PC[g1*]} on PC[P_l]."""
    W, G = pc_key(w, k, Lloc), pc_value(g1, k)
    return sum((p * abs(attention(W, G, xb, k) - y) for xb, _, y, p in pc_law(ens, coupling, ell, tag_mode)),
               Fraction(0))


# ----------------------------------------------------------------------------------------------- Assumption D.1


def strong_event_probability(ens, ell, w, g1):
    """P_l(g0*(S*) > -inf, g0*(S) = -inf for S != S*, g1*(X_S*) = Y) exactly (w = exp(g0*))."""
    tot = Fraction(0)
    for x, S, p in ens.joint(ell):
        xs = tuple(x[i - 1] for i in S)
        if not w(S, xs) or g1(xs) != ens.gstar(xs):
            continue
        if all(not w(T, tuple(x[i - 1] for i in T)) for T in sets_k(ell, ens.k) if T != S):
            tot += p
    return tot


def strong_realizability_universal():
    """Assumption D.1 => Assumption 4.1 with the same delta, for every ensemble, class, length, dimension d and norm
    (the text after D.1: 'using the fact that the diameter of Y is at most 1 ... straightforward').

    h* = h_{g0*,g1*} is one member of H^attn for every l (D.1 fixes g0*, g1* before l).  Steps (z3; one coordinate
    of R^d at a time, the same weights serve every coordinate):

    1. the attention sum over Sets_k([l]) in any order, by induction over the sets: with weights w = exp(g0) and
       w(S) = 0 for S != S* on the good event, the partial sums keep (N, D) = (seen w* v*, seen w*), where seen says
       whether S* came already (the sets are distinct, so it comes once);
    2. S* is one of the sets and w* = exp(g0*(S*)) > 0, so D = w* > 0 (footnote 6's fallback is not used) and
       h*(X) = N / D = v* = g1*(X_S*) = Y;
    3. the loss: L(Y, Y) = 0 on the good event, L <= 1 everywhere (L maps into [0, 1]), so L(h*(X), Y) <= 1[bad];
    4. expectation, by induction over a finite support (general laws: monotonicity of expectation, elementary):
       E <= P(bad), and P(bad) <= delta gives E_{P_l} L(h*(X), Y) <= delta at every l.
    """
    import z3

    from verify.kernel import CitedLemma, Proof, z3_with_control

    key = "golowich2025:asm-d1"
    N, D, seen, ws, vs, wj, vj, anyv, star = z3.Reals("N D seen w_star v_star w_j v_j v_any star")
    inv1 = [N + wj * vj == (seen + star) * ws * vs, D + wj == (seen + star) * ws]
    sum_h = [N == seen * ws * vs, D == seen * ws, z3.Or(star == 0, star == 1), z3.Or(seen == 0, seen == 1),
             seen + star <= 1, vj == z3.If(star == 1, vs, anyv)]
    Ysort = z3.DeclareSort("Y")                    # the label set: a convex subset of R^d, any d, any norm
    Lf = z3.Function("loss_fn", Ysort, Ysort, z3.RealSort())
    hX, Y = z3.Consts("hX Y", Ysort)
    hx, y, good = z3.Reals("h_x y good")
    E, B, p, loss, ind, delta, G = z3.Reals("E B p loss bad delta P_good")
    loss_h = [p >= 0, loss >= 0, loss <= 1, z3.Or(good == 0, good == 1), ind == 1 - good,
              z3.Implies(good == 1, loss == 0), E <= B]
    return Proof(key, "Assumption D.1 implies Assumption 4.1", (
        z3_with_control(key, "attention sum, induction over the sets: weight 0 off S* keeps (N, D) = (seen w* v*, "
                        "seen w*)", sum_h + [wj == z3.If(star == 1, ws, 0)], z3.And(*inv1),
                        neg_hypotheses=sum_h + [wj == z3.If(star == 1, ws, 1)]),   # some S != S* keeps weight 1
        z3_with_control(key, "all sets summed: S* came once and w* > 0, so h*(X) = N / D = g1*(X_S*) = Y",
                        [N == ws * vs, D == ws, ws > 0, vs == y, hx * D == N], hx == y,
                        neg_hypotheses=[N == ws * vs, D == ws, vs == y, hx * D == N]),   # w* = 0: no score
        z3_with_control(key, "good event: L(h*(X), Y) = L(Y, Y) = 0", [hX == Y, Lf(Y, Y) == 0], Lf(hX, Y) == 0,
                        neg_hypotheses=[hX == Y]),                                       # L(Y, Y) = 0 dropped
        z3_with_control(key, "expectation, induction over the support: L in [0, 1] and L = 0 on the good event keep "
                        "E <= P(bad)", loss_h, E + p * loss <= B + p * ind,
                        neg_hypotheses=loss_h[:2] + loss_h[3:]),                         # diam(Y) <= 1 dropped
        CitedLemma(key, "general laws", statement="for a law that is not finitely supported, L(h*(X), Y) <= 1[bad] "
                   "pointwise gives E L <= P(bad) by monotonicity of expectation", source="elementary"),
        z3_with_control(key, "conclusion: E <= P(bad) = 1 - P(good) <= delta at every l",
                        [E <= B, B == 1 - G, G >= 1 - delta], E <= delta, neg_hypotheses=[E <= B, B == 1 - G]),
    ))
