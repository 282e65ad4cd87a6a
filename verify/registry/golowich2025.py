"""Claims of Golowich, Jelassi, Brandfonbrener, Kakade, Malach: The Role of Sparsity for Length
Generalization in Transformers (golowich2025) -- theory statements.

Not declared here (owned by the counterexamples module): prop-c3*, asm3.3, asm4.1, asm4.2, fn6.
Findings: docs/gaps.md.  Checks: verify/golowich/, verify/tests/golowich2025/.
"""

from verify.claims import register

_P = "golowich2025"
_G = "docs/gaps.md"

_CLAIMS = [
    # ------------------------------------------------------------------ definitions
    ("def3.1", "Definition 3.1 (length generalization; approximate realizability)",
     "h_hat in argmin E_{l~Unif[L/2,L]} E_{P_l} L(h(X),Y); (L, Lbar, eps)-LG iff E_{P_Lbar} L(h_hat(X),Y) <= eps; "
     "delta-approximate realizability: some h* has risk <= delta at every length",
     "verified",
     "implemented exactly (verify.golowich.prop31.minimisers / length_generalizes, every minimiser) and used in "
     "golowich2025/test_prop31.py; ambiguity 'the' argmin read as 'every minimiser' (" + _G + ")"),
    ("def3.2", "Definition 3.2 (k-sparse planted correlations)",
     "S* ~ Q_l^pos, Z ~ Q^voc, X_S* = Z, X_i ~ mu iid off S*, Y = g*(Z); P(X,S*) = Q(S*) Qvoc(X_S*) prod mu",
     "verified",
     "constructions.golowich.model.Planted enumerates the joint law exactly; golowich2025/test_core.py checks the product "
     "formula, the marginals and Y = g*(X_S*) against a direct sampler-free recount"),
    ("ex-kgram", "Section 3.1 example (k-gram retrieval)",
     "k-gram retrieval is an instance of Definition 3.2 with S* of size 2k+1",
     "gap",
     "it is (2k+1)-sparse (the text reuses k) and its planted set has span l - l' - 1 (unbounded), so it violates "
     "L_local-locality and Thm 4.3 does not apply without position coupling; golowich2025/test_core.py (" + _G + ")"),
    ("def3.3", "Definition 3.3 (k-sparse functional attention class)",
     "h_{g0,g1}(x) = sum_S exp(g0(S,x_S)) g1(x_S) / sum_S' exp(g0(S',x_S'))",
     "verified",
     "constructions.golowich.model.attention (weights w = exp(g0), w = 0 for -inf, footnote-6 fallback); "
     "golowich2025/test_core.py: k = 1 equals a softmax head, shift invariance of g0, fallback path, local speed-up"),
    ("def4.1", "Definition 4.1 (L_local-local position coupling)",
     "joint law of (S*, psi_l): span psi(S*) <= L_local, indices off S* uncoupled, |psi(S*)| = k' and the "
     "rank pattern law independent of l",
     "verified",
     "checker verify.golowich.coupling.check_def41 on the reversal coupling (all three items, l <= 12) and a "
     "mutated coupling that it rejects; at item 1's boundary on coupling.gap_coupling (span psi(S*) = L_local "
     "accepted, L_local + 1 rejected); golowich2025/test_coupling.py"),
    ("def-b1", "Definition B.1 (single attention heads AttHeads_{d,h,V})",
     "X -> O sum_i alpha_i V W_e X_i, alpha = softmax(<Q h_query, K W_e X_i>)",
     "verified",
     "verify.golowich.heads.att_head (exact, exp symbolic) ; golowich2025/test_heads.py"),
    # ------------------------------------------------------------------ propositions, theorem, lemmas
    ("prop3.1", "Proposition 3.1",
     "if sup_{X in V^L} L(h*(X), h_hat(X)) > eps then some extension of P_1..P_L defeats (L, Lbar, eps)-LG",
     "gap",
     "no proof in the paper; the construction P_Lbar = point mass at (Xbar, h*(Xbar)) is executable and checked "
     "when the sup ranges over V^Lbar, but as printed (sup over V^L) the statement is false for h*-realizable "
     "extensions (witness in golowich2025/test_prop31.py) and vacuous for arbitrary ones (" + _G + ")"),
    ("prop3.2", "Proposition 3.2 (informal version of Proposition B.1)",
     "attention heads = 1-sparse functional attention for appropriate G^key, G^val",
     "refuted",
     "same witness as golowich2025:prop-b1 (d = 1, |V| = 3, any h): the head class is not a product class"),
    ("prop-b1", "Proposition B.1",
     "for any d, h, V there are G^key (position-independent), G^val with AttHeads_{d,h,V} = H^attn(G^key, G^val)",
     "refuted",
     "'subset' direction verified exactly; 'superset' fails: W_e is shared by keys and values, so the head "
     "class is not of product form. Witness d = 1, |V| = 3: heads with (g0, g1) = (0, (1,0,0)) and "
     "((0,1,2), (0,1,2)) exist, the mixed pair ((0,1,2), (1,0,0)) is no head (z3 unsat on necessary "
     "conditions from sequences of length <= 2), so no product class equals AttHeads. The proof also uses "
     "h >= d, absent from the statement (h = 1 < d = 2 fails already). golowich2025/test_heads.py (" + _G + ")"),
    ("thm4.3", "Theorem 4.3 (provable length generalization)",
     "local + relative k-sparse class, planted ensemble with A4.1 (delta), A4.2 (eta), L_local | Lbar - L, "
     "L >= 4 L_local => (L, Lbar, eta_L eta_Lbar L Lbar^2 delta)-length generalization",
     "refuted",
     "false as stated: A4.2 does not force span(S*) <= L_local at the test length; exact witness with delta = 0 "
     "and a training minimiser of test risk 8/45 at Lbar = 10 (thm43.literal_counterexample, re-deriving "
     "golowich2025:asm4.2.planted-locality of the counterexamples module). Proof gaps besides: it rests on "
     "Lemma C.1 (refuted), the second change-of-measure display needs eta_{L-L_local} (refuted as printed), "
     "footnote 16's t0 range is off by 2, hidden constant (~6-7), left extension needs a reverse-shift "
     "coverage bound. Every other step holds on all exact instances searched (" + _G + ")"),
    ("lem-c1", "Lemma C.1 (hybrid argument)",
     "E|r0 - r01| <= eps, E|r01 - r012| <= eps => E|r0 - r_{0..i}| <= 3 i eps",
     "refuted",
     "exact counterexample with positive weights, |Omega| = 3, i = 3: eps = 1/408 but E|r0 - r0123| = "
     "115/3296 > 9 eps; ratio unbounded as M grows (verify.golowich.lemmas.c1_witness; "
     "golowich2025/test_lemmas.py; " + _G + ")"),
    ("lem-c2", "Lemma C.2",
     "b, p_i > 0, |a/b - (a+q_i)/(b+p_i)| = eps_i => |a/b - (a+sum q)/(b+sum p)| <= sum eps_i",
     "verified",
     "z3 proof (d = 1, L = 2, p_i >= 0 suffices), sympy identity, exact random instances (d <= 3, l1/l_inf); "
     "negative controls: fails without p_i >= 0 (witness); golowich2025/test_lemmas.py"),
    ("asm-d1", "Assumption D.1 (delta-strong realizability)",
     "g0*(S*) > -inf, g0*(S) = -inf for S != S*, g1*(X_S*) = Y with probability >= 1 - delta",
     "verified",
     "satisfiable (exact instance with delta = 0 and with delta > 0) and implies delta-approximate "
     "realizability (exact check on instances); golowich2025/test_coupling.py"),
    ("prop4.4", "Proposition 4.4 (informal version of D.2)",
     "position coupling removes locality: PC[H^attn] length-generalizes on PC[P]",
     "gap",
     "inherits the D.2 findings; also omits the position-independence of G^key that D.2 needs"),
    ("prop-d2", "Proposition D.2 (position coupling)",
     "P planted + L_local coupling + coverage of psi(S*) + position-independent G^key + delta-strong "
     "realizability => PC[H^attn] (L, Lbar, eta eta L Lbar^2 delta)-length generalizes on PC[P]",
     "gap",
     "executable construction (verify.golowich.coupling): the proof's 'PC[P] is itself a k-sparse planted "
     "ensemble' is false (background tag law Unif([l]) depends on l: 1/8 vs 1/10 per value at l = 4 vs 5), tags "
     "exceed [k] (type error), and the catalog's reversal coupling has k' = 1 < k. Random tags also let a "
     "(background, planted) set expand to a planted-like tuple (exact: probability 1/2, risk 1/8 at l = 4), but that "
     "instance needs a span-restricted key, which D.2's position-independence excludes: not a counterexample to "
     "D.2's conclusion. With a fixed background tag the leak vanishes; golowich2025/test_coupling.py (" + _G + ")"),
    # ------------------------------------------------------------------ footnotes, appendix F, experiments
    ("fn3", "Footnote 3", "the lower end L/2 of the training range is unimportant; any constant factor of L suffices",
     "gap",
     "with [cL, L], c > 1/2, the proof's use of (7) at l = L - 2 L_local needs L >= 2 L_local / (1 - c), not the "
     "theorem's L >= 4 L_local (z3 counter-model at c = 3/4, e.g. L = 8, L_local = 2); "
     "golowich2025/test_appendix.py (" + _G + ")"),
    ("fn8", "Footnote 8 (rank within a set)", "rank_Omega(i) is the position of i in sorted Omega",
     "verified", "used by verify.golowich.coupling.check_def41 (rank pattern of item 3); golowich2025/test_coupling.py"),
    ("fn16", "Footnote 16 (choice of t0 in (13))",
     "any t0 with S* - t0 L_local in Sets_k([L - 2 L_local]) works, where t0 + t1 + 2 = (Lbar - L)/L_local",
     "gap",
     "the length of P_{L-2Lloc,t0,t1} forces t0 + t1 = (Lbar - L)/L_local; with the printed relation t0 <= N and "
     "local S* at the right end have no admissible t0 (range must be 0..N+2); golowich2025/test_thm43.py"),
    ("app-f", "Appendix F / Table 5 (natural-language budget)",
     "both models trained on roughly 25B tokens, PoSE on the final ~30% of steps, 1.3B parameters",
     "verified",
     "exact arithmetic from Table 5: 49000*8192*64 = 25.69B, 48000*4096*128 = 25.17B tokens, 15000/49000 = 30.6%, "
     "24 (4 d^2 + 2 d * 8192) + 32000 d = 1.27B (tied); golowich2025/test_appendix.py"),
    ("tab1", "Table 1 (perplexities at eval length 64 / 128)", "h_short: 17.59 / 14.74; h_long: 17.62 / 14.49",
     "unchecked", "training experiment (1.3B models on C4), not reproduced; the catalog notes the averaged "
     "perplexity at 128 is lower even for a model ignoring tokens beyond 64, so the table alone is weak evidence"),
    ("tab2", "Table 2 (sparse parity hyperparameters)", "train lengths 20-50, test 20-500, N = 20, L_max = 510, 1 run",
     "unchecked", "hyperparameter table of a training experiment"),
    ("tab3", "Table 3 (parity with scratchpad hyperparameters)", "train 10-40, test 10-200, L_max = 210, 10 runs",
     "unchecked", "hyperparameter table of a training experiment"),
    ("tab4", "Table 4 (variable assignment hyperparameters)", "train 20-60, test 20-200, L_max = 230, 3 runs",
     "unchecked", "hyperparameter table of a training experiment"),
    ("tab5", "Table 5 (natural language hyperparameters)", "OLMo, 24 layers, d = 2048, context 64 / 128",
     "unchecked", "settings; the budget statements derived from it are golowich2025:app-f"),
    ("fig1", "Figures 1 and 7 (sparse parity length generalization)",
     "K_train <= 8 generalizes to length 500 for k_test <= K_train; larger k degrades",
     "unchecked", "harness: python -m bounds.reproduce golowich2025 --experiment sparse-parity (RoPE+PoSE, "
     "Theorem 4.3 threshold k <= 6 at L = 50 printed beside it); the quick CPU preset (2 layers, d = 64, 600 "
     "steps) stays at chance (about 50%) for every K_train and k_test, so it neither supports nor contradicts the "
     "figure; the paper preset needs a GPU (docs/reproduce_trained.md, docs/results/golowich2025-sparse-parity-quick.json; "
     "golowich2025/test_sec5_reproduction.py)"),
    ("fig2", "Figures 2 and 8 (parity with scratchpad, PPC and ablations)",
     "PPC near-perfect in distribution, OOD accuracy decreasing in k; ablations worse",
     "unchecked", "harness: python -m bounds.reproduce golowich2025 --experiment scratchpad (predictive position "
     "coupling vs shifted APE); the quick CPU preset does not learn the task (0% whole-scratchpad accuracy even in "
     "distribution), so it neither supports nor contradicts the figure; the paper preset needs a GPU "
     "(docs/results/golowich2025-scratchpad-quick.json; golowich2025/test_sec5_reproduction.py)"),
    ("fig3", "Figure 3 (variable assignment with PPC and ablations)",
     "PPC generalizes to ~3x the training length for d = 2..5; baselines worse",
     "unchecked", "training experiment, not reproduced"),
    ("fig4", "Figures 4 and 6 (influence of k = 5 unmasked tokens)",
     "(L_short - L_long, L_short - L_short,sparse) near the diagonal",
     "unchecked", "training experiment, not reproduced; no numeric values given"),
    ("fig5", "Figure 5 (illustration of the three losses)", "illustration", "unchecked", "illustration only"),
    ("rem4.2", "Remark 4.2 (PoSE conjecture)", "PoSE may remove the locality requirement (conjecture)",
     "unchecked", "a conjecture, not a theorem; nothing to verify"),
    ("rem5.1", "Remark 5.1", "relative positional information comes for free with relative PEs",
     "unchecked", "informal discussion"),
    ("rem5.2", "Remark 5.2", "position interpolation is outside the framework",
     "unchecked", "informal discussion"),
]

for _label, _stmt, _summary, _status, _evidence in _CLAIMS:
    register(f"{_P}:{_label}", _stmt, _summary, _status, _evidence)

# Sub-steps of the proof of Theorem 4.3 (Appendix C.1), each checked on exact instances.
_THM43_STEPS = [
    ("eq7", "(7): each training length has risk <= L delta", "verified"),
    ("change-of-measure", "product-formula density ratios <= eta_L (second display: index typo, and the bound "
     "needs eta_{L-L_local}, not eta_L: exact witness with ratio 9/2 > eta_4 = 18/5)", "refuted"),
    ("eq8-9", "(8)-(9): risks under P_{L-2Lloc} (x) mu^{..} <= eta_L L delta", "verified"),
    ("eq10", "(10): triangle inequality, 2 eta_L L delta", "verified"),
    ("blocks", "block decomposition: sum A_i / sum B_i reproduces h; A_i = f(Z_i, Z_{i-1}), same f", "verified"),
    ("eq11", "(11): extension bound 6 eta_L L delta (t0 + t1 + 2) via Lemma C.1 / C.2", "gap"),
    ("eq13", "(13): density ratio P_Lbar / P_{L-2Lloc,t0,t1} <= eta_Lbar for local S* (t0 up to N + 2; the "
     "mass of non-local S* at Lbar is not covered)", "gap"),
    ("final", "final bound eta_L eta_Lbar L Lbar^2 delta on the test risk (fails when S* is non-local at Lbar)",
     "refuted"),
]
for _label, _summary, _status in _THM43_STEPS:
    register(f"{_P}:thm4.3.{_label}", f"Theorem 4.3 proof step {_label}", _summary, _status,
             "exact instances in verify.golowich.thm43; golowich2025/test_thm43.py"
             + (" -- holds on every instance searched, but its justification (Lemma C.1) is refuted"
                if _label == "eq11" else "")
             + ({"change-of-measure": " -- refuted as printed (witness verify.golowich.thm43.com2_witness); "
                                      "holds with eta_{L-L_local}",
                 "final": " -- refuted by thm43.literal_counterexample (non-local S* at Lbar); holds on every "
                          "instance with local planted sets",
                 "eq13": " -- non-local S* at Lbar uncovered (see final)",
                 **dict.fromkeys(("eq7", "eq8-9", "eq10"), " -- nearly tight on thm43.edge_instance: (7), (8) and "
                                 "(10) fail there without their factor L, eta_L or 2")}.get(_label, "")))
