"""Necessity of Periodic / Local (huang2024 App. A FAQ 7, sec. 3) and of limited capacity (ahuja2024 sec. 4,
5.1, App. B.1) -- checked by counterexamples/periodic_local.py and counterexamples/capacity.py.

Write-up: docs/counterexamples_capacity.md; gap entries: docs/gaps.md.
"""

from verify.claims import register

_TP = "verify/tests/huang2024/test_periodic_local.py"
_TC = "verify/tests/ahuja2024/test_capacity.py"
_G = "docs/gaps.md"

# ------------------------------------------------------------------------------------------ huang2024
register(
    "huang2024:faq7.periodic", "Appendix A, FAQ (7) (Periodic), with Definition 3",
    "without Periodic there is no guarantee: positional encodings that are not periodic let two Limit "
    "Transformers agree on every input up to any length N and differ beyond",
    evidence=f"{_TP}: nonperiodic_pair(N) (encodings p_i = [i > N+1] e) agrees exactly on all binary strings of <= N "
    "symbols (exhaustive, exact evaluator, N = 0..5; slow: N = 8) and differs on a^(N+1); Hypothesis over N up "
    "to 40 on random strings; negative control: the same pair with the bump moved to position <= N+1 is "
    "caught; the periodic search finds the non-periodic family mutant",
    strength="bounded-instances",
    leaves_out="the agreement up to N is checked exhaustively for N <= 5 (slow: 8) and by Hypothesis up to N = 40; "
               "not proved for every N")
register(
    "huang2024:faq7.local", "Appendix A, FAQ (7) (Local), with Definition 3",
    "without Local there is no guarantee: a translation-invariant phi that is nonzero at unbounded distances lets "
    "two Limit Transformers agree on every input up to any length N and differ beyond",
    evidence=f"{_TP}: nonlocal_pair(N) (phi(j,i) = [i - j >= N+1], translation-invariant, not tau-local for any "
    "tau <= N) agrees exactly on all binary strings of <= N symbols and differs on a^(N+1); negative controls "
    "as for faq7.periodic",
    strength="bounded-instances",
    leaves_out="the agreement up to N is checked exhaustively for small N (binary strings of <= N symbols) and by Hypothesis on random strings; not proved for every N")
register(
    "huang2024:sec3.finite-algorithms", "Section 3, discussion after Theorem 7 (proof idea)",
    "with Periodic and Local the traversed Limit Transformers are finitely many algorithms, each either refuted "
    "at some length or equal to f at all lengths: two bounded members that agree up to a computable length "
    "agree everywhere",
    evidence=f"{_TP}: for one-layer attention-only Periodic+Local families with integer logit grids, agreement_length() "
    "gives N0 (proof: polynomial identity on a product grid, docs/counterexamples_capacity.md); exhaustive "
    "refinement of the family (Delta=1, tau=0: 16 members, N0 = 9, tested to 11 symbols; CLI runs: Delta=1, "
    "tau=1: 32 members, N0 = 10, to 13; Delta=2, tau=0: 64 members, N0 = 16, to 17; Delta=2, tau=0, phi = 0: "
    "32 members, N0 = 14, to 15) finds no pair "
    "separated after N0, while the non-periodic and non-local mutants are separated at N0 + 1 (negative "
    "control). Only this family is proved; the general statement is Theorem 7's proof",
    strength="bounded-instances",
    leaves_out="one family (one-layer attention-only Periodic and Local models with integer logit grids, Delta <= 2, tau <= 1); the general statement is Theorem 7's proof")

# ------------------------------------------------------------------------------------------ ahuja2024
register(
    "ahuja2024:sec4.1-high-capacity", "Section 4.1, 'High capacity deep sets'",
    "with unconstrained phi, rho the class contains h = f + c[t > T], a risk minimizer on lengths <= T that is "
    "off by c at every longer length",
    evidence="for every f = rho(sum phi) (any phi, rho, dimensions), T >= 1 and c != 0 (verify/ahuja/capacity.py::"
    "universal, z3): phi' = (phi, 1) pools to (sum phi, t), rho' = rho + c (relu(u - T) - relu(u - T - 1)) adds c [t "
    "> T] to each coordinate, so R(h, T) = 0 and R~(h, t) = d c^2 > 0 for t > T; controls: constant 0 appended, ramp "
    f"of width 2, c = 0. {_TC}: deep_set_witness builds h as a ReLU deep set from any ReLU f; exact check on "
    "rational sequences, Hypothesis over random f / inputs / T / c, exact risk R(h, T) = 0 and "
    "R~(h, T+1) = c^2 m; negative control c = 0 is rejected as a witness",
    strength="as-stated")
register(
    "ahuja2024:sec4.2-high-capacity", "Section 4.2, 'High capacity transformers'",
    "with unconstrained omega, psi the transformer class rho((1/i) sum_j psi(x_i, x_j)) contains a minimizer "
    "f + c[t > T] that does not length-generalize (by reduction to high-capacity deep sets)",
    "gap",
    f"{_TC}: with the paper's mean pooling and no positions the witness is NOT in the class (constant sequences "
    "pool to psi(x, x) at every length: mean_pool_obstruction, checked by Hypothesis); it IS in the class with "
    "sum pooling (the released code) or with the relative-position variant psi_{i-j} (a [i=j] feature averages "
    f"to 1/i), both exact and checked ({_G})")
register(
    "ahuja2024:sec4.3-high-capacity", "Section 4.3, 'High capacity SSMs'",
    "with unconstrained Lambda, B, omega the SSM class contains f and h = f + c[t > T], so h is a minimizer that "
    "does not length-generalize",
    "gap",
    f"{_TC}: the paper argues by universal approximation (an approximate, not exact, member). Exact witness "
    "built (counter state with eigenvalue 1) when the input has a constant coordinate; without one it cannot "
    f"exist (all-zero input keeps every state 0, checked), so the statement needs that hypothesis ({_G})")
register(
    "ahuja2024:sec4.4-high-capacity", "Section 4.4, 'High capacity RNNs'",
    "with unconstrained Lambda, B, rho the RNN class contains minimizers that do not length-generalize",
    evidence="for the sigmoid RNN, every f, T >= 1 and c != 0 (verify/ahuja/capacity.py::rnn_universal, z3 with "
    "uninterpreted sigma): the counter s_t = sigma(a s_(t-1)), a > 0, starts at sigma(0) = 1/2 > 0 and increases "
    "strictly (induction on t, sigma's monotonicity cited), so s_t > s_T exactly for t > T (induction on the distance "
    "to T) and rho' = rho + c [s > s_T] gives h = f + c [t > T]; the risk steps as for deep sets "
    f"(ahuja2024:sec4.1-high-capacity). {_TC}: exact witness for the hard-sigmoid RNN and interval-certified witness "
    "for the sigmoid RNN (sigma(0) = 1/2 drives a strictly increasing counter with no input); ReLU RNN needs a "
    "constant input coordinate (relu(0) = 0); Hypothesis over random f and rational inputs; c = 0 negative control",
    strength="steps-cited",
    cited="u > v => sigma(u) > sigma(v) for the sigmoid (exp strictly increasing), used for the counter's increase")
register(
    "ahuja2024:app-b1", "Appendix B.1, 'f is realizable in a high capacity H' (Table 3, Fig. 4)",
    "the offset targets (deep set: c = 0.2, T = 5; transformer: c = 0.1, T = 10) are expressible by the learner "
    "class, and a learner ignoring the offset has test loss c^2 beyond T",
    "gap",
    f"{_TC}: exact B.1-shaped witnesses (deep set c = 1/5, T = 5; transformer c = 1/10, T = 10 with sum pooling) "
    "and exact per-coordinate loss c^2 = 1/25, 1/100 beyond T; the mean-pooled transformer of the text cannot "
    f"express its target; Table 3's deep-set 'fail' loss 0.007 is not c^2 = 0.04 ({_G})")
register(
    "ahuja2024:thm10", "Theorem 10",
    "finite H, f in H: there is T0 < infinity such that every minimizer of R(., T) with T > T0 length-generalizes",
    evidence="for every finite class (N members, N symbolic), every law and every risk table "
    "(verify/ahuja/covers.py::thm10_universal, z3 with uninterpreted R, R~): R(h, T) = sum_{t<=T} R~(h, t) with the "
    "l2 loss's R~ >= 0 bounds each term (induction on T), f's risk is 0, so a minimiser has R~(h, t) = 0 at t <= T; "
    "the threshold F(n + 1) = max(F(n), first(n)) bounds each member's first length of positive risk (induction "
    "on n), so for T > T0 = F(N) every minimiser has zero risk at every length; controls: R~ >= 0 dropped, an "
    f"infinite class (theta < N dropped). {_TC}: exact threshold on enumerated finite classes (offset class H_K: "
    "T* = K + 1; quantized ReLU deep sets on {0,1} tokens: 48 members T* = 4, slow: 135 members); every minimizer "
    "for T >= T* equals f at all tested lengths and at T = T* - 1 some minimizer fails (negative control). The "
    "paper's 'T > T*' is one more than needed (T >= T* suffices, i.e. T0 = T* - 1); T0 is not bounded by any "
    f"function of |H| ({_G})",
    strength="as-stated")
register(
    "ahuja2024:lem11", "Lemma 11",
    "a nonincreasing sequence of subsets of a finite set A is eventually constant",
    evidence=f"{_TC}: lemma11_check on the argmin chains of Theorem 10 and on Hypothesis-random chains (at most |A| "
    "strict shrinks, hence eventually constant; the stabilization index itself is not bounded by |A|, found by "
    "Hypothesis); negative control: a non-nested sequence is rejected. For every finite A and chain: the invariant "
    "|X_k| + (strict shrinks up to k) <= |A| by induction (z3, verify/ahuja/covers.py::lemma11_proof; 'a strict "
    "subset of a finite set is smaller' cited as elementary)",
    strength="as-stated")
