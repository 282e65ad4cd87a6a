"""Section 4.1 of ahuja2024, 'High capacity deep sets': the class with unconstrained phi and rho has a risk
minimiser that does not length-generalize -- for every f, T and c, proved symbolically.

Statement.  For every deep set f(x_{<=t}) = rho(sum_{j<=t} phi(x_j)) (phi: R^n -> R^m, rho: R^m -> R^d any maps),
every training length T >= 1 and every offset c != 0, the class contains h = f + c [t > T] (c added to each of the
d label coordinates): R(h, T) = 0, so h minimises (1), and R~(h, t) = d c^2 > 0 at every length t > T.

Construction (the one counterexamples.capacity.deep_set_witness builds with ReLU networks): phi'(x) = (phi(x), 1),
so the pooled vector is (sum phi, t); rho'(z, u) = rho(z) + c ramp(u) with ramp(u) = relu(u - T) - relu(u - T - 1).

Steps (:func:`universal`, z3; z is a point of an abstract vector space, rho's coordinates uninterpreted, so the
steps hold for every m, every phi and rho and every coordinate of every d):
  the counter: s_0 = 0, s_(t+1) = s_t + 1 => s_t = t (induction on t);
  the ramp at integers: ramp(t) = [t > T] for every integer t and T;
  per coordinate: rho'_i(z, t) - rho_i(z) = c [t > T];
  the loss: ||h - f||^2 = sum over the d coordinates of (c [t > T])^2 = d c^2 [t > T] (induction on d), and its
  expectation under any law is that constant (weights summing to 1, induction over the support);
  the conclusion: R(h, T) = sum_{t<=T} 0 = 0 and R~(h, t) = d c^2 > 0 for t > T, d >= 1, c != 0.
"""

from __future__ import annotations

import z3

from verify.ahuja._common import VectorSpace, key, z3_step
from verify.kernel import CitedLemma, Proof

CLAIM = "sec4.1-high-capacity"


def _relu(v):
    return z3.If(v > 0, v, 0)


def ramp(u, T, width=1):
    """relu(u - T) - relu(u - T - width): 0 up to T, 1 from T + width on (width 1 at integers)."""
    return _relu(u - T) - _relu(u - T - width)


def universal() -> Proof:
    V = VectorSpace("Z")
    z = V.vec("z")
    rho_i = z3.Function("rho_i", V.sort, z3.RealSort())
    s, s1, t, T, d, i = z3.Ints("s s1 t T d i")
    cr, S, S1, E, W, p, K, R = z3.Reals("c S S1 E W p K R")
    ind = z3.If(t > T, 1, 0)
    rho_prime = rho_i(z) + cr * ramp(t, T)
    return Proof(key(CLAIM), "High capacity deep sets: f + c[t > T] is a minimiser for every f, T, c", (
        z3_step(CLAIM, "counter: the appended coordinate 1 sums to the length (step s_t = t => s_(t+1) = t + 1)",
                [s == t, s1 == s + 1], s1 == t + 1, neg_hypotheses=[s == t, s1 == s]),  # the constant 0 appended
        z3_step(CLAIM, "ramp at integers: relu(t - T) - relu(t - T - 1) = [t > T] for every integer t, T",
                [], ramp(t, T) == ind, neg_goal=ramp(t, T, 2) == ind),
        z3_step(CLAIM, "per coordinate: rho'_i(z, t) - rho_i(z) = c [t > T] (rho, phi, m arbitrary)",
                [], rho_prime - rho_i(z) == cr * ind, neg_goal=rho_prime - rho_i(z) == cr),
        z3_step(CLAIM, "loss over the coordinates, step: S_i = i c^2 [t > T] => S_(i+1) = (i + 1) c^2 [t > T]",
                [i >= 0, S == i * cr * cr * ind, S1 == S + (cr * ind) * (cr * ind)], S1 == (i + 1) * cr * cr * ind,
                neg_hypotheses=[i >= 0, S == i * cr * cr * ind, S1 == S + cr * ind]),
        z3_step(CLAIM, "expectation of the constant loss K under any law, over the support by induction: the partial "
                "sums keep E = K W (W the mass so far; W = 1 at the end gives E = K)", [E == K * W],
                E + p * K == K * (W + p), neg_goal=E + p * K == K * W),
        CitedLemma(key(CLAIM), "general laws", statement="the expectation of a constant K under any law is K",
                   source="elementary"),
        z3_step(CLAIM, "conclusion: R~(h, t) = d c^2 [t > T] is 0 for t <= T (so R(h, T) = 0 and h minimises (1)) and "
                "> 0 for t > T", [d >= 1, cr != 0, R == d * cr * cr * ind],
                z3.And(z3.Implies(t <= T, R == 0), z3.Implies(t > T, R > 0)),
                neg_hypotheses=[d >= 1, R == d * cr * cr * ind]),               # c = 0 is no witness
    ))


CLAIM_RNN = "sec4.4-high-capacity"


def rnn_universal() -> Proof:
    """Section 4.4 for the sigmoid RNN (28), for every f = (Lambda, B, rho), every T >= 1 and c != 0.

    The witness (counterexamples.capacity.rnn_witness): f's state plus a counter s_t = sigma(a s_(t-1)), a > 0,
    s_0 = 0, read by no input (block-diagonal Lambda', B' = [B; 0], so f's coordinates evolve as in f), and
    rho'(h, s) = rho(h) + c [s > s_T] (rho unconstrained).  sigma strictly increasing is cited (exp is); by z3:
    s_1 = sigma(0) = 1/2 > s_0; s_t > s_(t-1) and a > 0 give s_(t+1) > s_t (induction on t); hence s_(T+m) > s_T
    and s_(T-m) < s_T for m >= 1 (induction on m), so [s_t > s_T] = [t > T] and h - f = c [t > T]; the loss and
    risk steps are those of :func:`universal` (R(h, T) = 0, R~(h, t) = d c^2 beyond T).
    """
    sig = z3.Function("sigma", z3.RealSort(), z3.RealSort())
    seq = z3.Function("s", z3.IntSort(), z3.RealSort())
    a, s0, s1, s, sn, snn, rho_h, out = z3.Reals("a s0 s1 s s_next s_next2 rho_h out")
    cr = z3.Real("c")
    t, T, m = z3.Ints("t T m")
    mono = z3.Implies(a * sn > a * s, sig(a * sn) > sig(a * s))            # one instance of the cited fact
    step_h = [a > 0, sn > s, sn == sig(a * s), snn == sig(a * sn), mono]
    up_h = [m >= 1, seq(T + m) > seq(T), seq(T + m + 1) > seq(T + m)]
    down_h = [m >= 1, seq(T - m) < seq(T), seq(T - m - 1) < seq(T - m)]
    order = [z3.Implies(t > T, seq(t) > seq(T)), z3.Implies(t < T, seq(t) < seq(T))]
    read_h = order + [out == rho_h + cr * z3.If(seq(t) > seq(T), 1, 0)]
    return Proof(key(CLAIM_RNN), "High capacity RNNs: f + c[t > T] for every f, T, c (sigmoid counter)", (
        CitedLemma(key(CLAIM_RNN), "sigmoid increasing", statement="u > v => sigma(u) > sigma(v) (exp is strictly "
                   "increasing)", source="calculus"),
        z3_step(CLAIM_RNN, "start: s_0 = 0 and s_1 = sigma(0) = 1/2 > s_0", [s0 == 0, s1 == z3.RealVal(1) / 2],
                s1 > s0, neg_hypotheses=[s0 == 1, s1 == z3.RealVal(1) / 2]),
        z3_step(CLAIM_RNN, "step: s_t > s_(t-1), a > 0 and sigma increasing give s_(t+1) > s_t", step_h, snn > sn,
                neg_hypotheses=[a < 0] + step_h[1:]),
        z3_step(CLAIM_RNN, "above T, induction on m: s_(T+m) > s_T and s_(T+m+1) > s_(T+m) give s_(T+m+1) > s_T",
                up_h, seq(T + m + 1) > seq(T), neg_hypotheses=[up_h[0], up_h[2]]),
        z3_step(CLAIM_RNN, "below T, induction on m: s_(T-m-1) < s_T", down_h, seq(T - m - 1) < seq(T),
                neg_hypotheses=[down_h[0], down_h[2]]),
        z3_step(CLAIM_RNN, "readout: rho'(h, s_t) - rho(h) = c [s_t > s_T] = c [t > T]", read_h,
                out - rho_h == cr * z3.If(t > T, 1, 0), neg_hypotheses=read_h[1:]),
    ))
