"""Claims of Huang et al. (2024) outside the C-RASP benchmark: Limit Transformers, the inference
procedure, the main theorems, the compiler (Theorem 9) and communication complexity (Theorem 12).

The C-RASP definition (def8), Theorem 10, Lemma 11, eq. (10) and the benchmark table claims are
registered by :mod:`verify.registry` modules of the C-RASP benchmark, not here.  Checks live in
``verify/tests/huang2024/test_crasp_compiler.py`` and ``verify/tests/huang2024/test_communication.py``;
choices made where the restored reference is UNCERTAIN are in ``docs/crasp_compiler.md``; gaps in
``docs/gaps.md``.
"""

from verify.claims import register

_C = "verify/tests/huang2024/test_crasp_compiler.py"
_M = "verify/tests/huang2024/test_communication.py"
_INF = ("the Inference Procedure minimises R over the infinite classes Theta_n (an infimum over all widths); "
        "nothing in this package computes it")

# ---------------------------------------------------------------------------------------- definitions
register("huang2024:def2", "Definition 2",
         "Limit Transformer: N(T) = infinity, p-bit parameters (incl. p_i and phi values), logits get an extra "
         "phi_{l,h}(j, i) term.",
         strength="bounded-instances",
         evidence=f"{_C}::test_compiled_parameters_are_p_bit (compiled models are LimitTransformers whose every parameter is "
         "dyadic with <= p fractional bits; a corrupted non-dyadic weight is rejected by the same check)",
         leaves_out="the compiled models of the benchmark programs only")
register("huang2024:def3", "Definition 3",
         "Translation-invariant and local phi; Periodic (p_i = p_{i+Delta}) and Local (all phi translation-invariant "
         "and tau-local).",
         strength="bounded-instances",
         evidence=f"{_C}::test_compiled_models_are_periodic_and_local, {_M}::test_protocol_rejects_non_local_and_non_periodic",
         leaves_out="checkers exercised on the compiled models and on chosen violating models")
register("huang2024:def4", "Definition 4 (= Definition 46)",
         "Hypothesis class Theta_n: N(T) = n, p-bit parameters, every product function involving positional "
         "encodings translation-invariant.",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py::test_product_functions_translation_invariance_and_negative_controls: constructions/huang/finite.py + products.py implement Theta_n; every product function with a positional encoding is checked exactly (Toeplitz / constant); negative controls: a non-Toeplitz Gram matrix, an unembedding reading a position, a non-dyadic parameter",
         leaves_out="the Lemma 47 images of a few compiled models and ModP, and chosen violating models")
register("huang2024:def5", "Definition 5",
         "Regularizer R(T): depth/heads, precision p, ranks, norms, and the positional-attention term (8); width d "
         "does not enter.",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py::test_regularizer_ingredients_by_hand: constructions/huang/regularizer.py computes R exactly with every ingredient (L+H, p, rank(V), MLP units, exact rational norm bound, (8)); the body of Definition 5 is lost, so this verifies OUR documented reading (docs/huang_theta.md), not the printed formula",
         leaves_out="hand-computed instances of our reading (the body of Definition 5 is lost)")
register("huang2024:def6", "Definition 6",
         "Inference Procedure: T_n in U_n (matches f up to length n/2) with "
                                           "R(T_n) <= 1/n + inf R (eq. 9).",
         strength="bounded-instances",
         evidence="the Inference Procedure (R-minimiser among members matching f up to n/2, recomputed for each n) on the "
         "bounded class: huang2024:def6.bounded (verify/tests/huang2024/test_inference.py); the infimum over all "
         "of Theta_n is not computable",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets()")
register("huang2024:def16", "Definition 16",
         "R^-(T) := R(T) minus the positional-attention term (8).",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py::test_regularizer_ingredients_by_hand (R^- = R - (8) exactly)",
         leaves_out="hand-computed instances")
register("huang2024:def22", "Definition 22",
         "Training length l: N -> N with l(n) <= n (and a growth condition, UNCERTAIN); the l-Inference Procedure.",
         strength="bounded-instances",
         evidence="the l-Inference Procedure: constructions/huang/inference.py::inference(train_length=l) fits on every "
         "input of length <= l(n) (l(n) <= n checked, l(n) > n refused); verify/tests/huang2024/test_inference.py",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets(); l(n) = n/2, n/3, n - 1, floor(sqrt n) only; the growth condition is "
                    "UNCERTAIN")
register("huang2024:def43", "Definition 43",
         "Product parameterization: vector parameters, products Pi_S of value matrices (lowest layer right), product "
         "functions w^T Pi_S v and (Pi_S v)^T K^T Q (Pi_S' v').",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py: constructions/huang/products.py enumerates readers w^T Pi_S v and logit products (Pi_S v)^T K^T Q (Pi_S' v') over chains of value matrices (zero chains pruned, equal images deduplicated, counts reported)",
         leaves_out="the product functions of the compiled models checked")
register("huang2024:def46", "Definition 46",
         "Theta_n restated (App. F).",
         strength="bounded-instances",
         evidence="see huang2024:def4 (same checks)",
         leaves_out="as huang2024:def4")
register("huang2024:def50", "Definition 50",
         "Complexity R_infinity of a Limit Transformer: size, p, max norm, period Delta (+ tau), positional-logit "
         "mass.",
         strength="bounded-instances",
         evidence="constructions/huang/regularizer.py::limit_complexity computes R_infinity with every ingredient (items 1 and 4 "
         "UNCERTAIN; our reading in docs/huang_theta.md); verify/tests/huang2024/test_lemma52.py::"
         "test_lemma52_round_trip_exact checks mass = (8) and p, norm against R(T). With tau included, Lemma 52's "
         "bound fails: huang2024:lem52.tau",
         leaves_out="the Lemma 47 / 52 round trips checked (4 compiled models and ModP); items 1 and 4 UNCERTAIN")
# ------------------------------------------------------------------------------------------ equations
register("huang2024:eq1", "Equation (1)",
         "y_i^(0) = E_{x_i} + p_{i+o}.",
         strength="bounded-instances",
         evidence=f"{_M}::test_protocol_matches_direct_exactly (two independent exact implementations of eqs (1)-(4),(6) -- "
         "the library's exact_forward and the protocol's streaming evaluator -- agree on every activation; a "
         "tampered message is caught)",
         leaves_out="random finite-valued and compiled models, N up to the protocol tests' sizes")
register("huang2024:eq2", "Equation (2)",
         "a_ij = y_j^T K^T Q y_i (key j, query i).",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_attention_logit.py: a hand-computed instance with K^T Q = e_a e_b^T (not "
         "symmetric; the transposed form gives other weights and outputs) and an independent re-implementation of "
         "(2) from the entries of K and Q whose weights equal exact_forward's on random two-layer models, each "
         "of which tells (2) from its transpose; also "
         f"{_M}::test_protocol_matches_direct_exactly (see huang2024:eq1; it shares the content-logit code with "
         "exact_forward, so it cannot tell a transposed form)",
         leaves_out="one hand instance and random two-layer models")
register("huang2024:eq3", "Equation (3)",
         "Y_i = y_i + sum_h softmax(log|x| a_i.) V y (causal).",
         strength="bounded-instances",
         evidence=f"{_M}::test_protocol_matches_direct_exactly (see huang2024:eq1; both precision models)",
         leaves_out="as huang2024:eq1, both precision models")
register("huang2024:eq4", "Equation (4)",
         "y_i = Y_i + B psi(A Y_i + b), psi ReLU or Heaviside per unit.",
         strength="bounded-instances",
         evidence=f"{_M}::test_protocol_matches_direct_exactly (see huang2024:eq1)",
         leaves_out="as huang2024:eq1")
register("huang2024:eq5", "Equation (5)",
         "Examples of product functions (exact list UNCERTAIN).",
         strength="bounded-instances",
         evidence="the listed product kinds are enumerated by constructions/huang/products.py (see huang2024:def43); the printed list itself is UNCERTAIN",
         leaves_out="the product kinds of the models checked; the printed list is UNCERTAIN")
register("huang2024:eq6", "Equation (6)",
         "Limit Transformer logits a_ij = y_j^T K^T Q y_i + phi_{l,h}(j, i).",
         strength="bounded-instances",
         evidence=f"{_M}::test_protocol_matches_direct_exactly on compiled models with local phi (see huang2024:eq1)",
         leaves_out="compiled models with local phi, as huang2024:eq1")
register("huang2024:eq7", "Equation (7)",
         "p_i^T Pi p_j = p_{i+Delta}^T Pi p_{j+Delta} (translation invariance in Theta_n).",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py::test_product_functions_translation_invariance_and_negative_controls (two-positional products checked Toeplitz exactly; a violating model is rejected)",
         leaves_out="the models checked (compiled models, ModP) and one violating model")
register("huang2024:eq8", "Equation (8)",
         "Positional-attention term sum_{l,h,j} (p_1^T K^T Q p_j)^2 of R.",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py::test_regularizer_ingredients_by_hand (hand value 16, changed scale gives 4; index convention: key 1, query j, squared: UNCERTAIN in the paper)",
         leaves_out="one hand instance (value 16) and its rescaling; the index convention is UNCERTAIN")
register("huang2024:eq9", "Equation (9)",
         "R(T_n) <= 1/n + inf_{T in U_n} R(T).",
         strength="bounded-instances",
         evidence="an exact R-minimiser over U_n in the bounded class (verify/tests/huang2024/test_inference.py; ties by "
         "enumeration order, the 1/n slack unused): huang2024:eq9.bounded",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets()")
# ------------------------------------------------------------------------------------------- theorems
register("huang2024:thm7", "Theorem 7",
         "f is expressible by a Periodic and Local Limit Transformer iff the Inference Procedure eventually "
         "length-generalizes on f (with sup_n R(T_n) < infinity).",
         strength="bounded-instances",
         evidence="on the bounded class: expressible targets identified from some n on with constant R(T_n), "
         "non-expressible ones never identified (huang2024:thm7.bounded, verify/tests/huang2024/test_inference.py, "
         "docs/huang_inference.md)",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets()")
register("huang2024:thm14", "Theorem 14",
         "Theorem 7 restated (App. B).",
         strength="bounded-instances",
         evidence="Theorem 7 restated: the checks of huang2024:thm7 on the bounded class",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets()")
register("huang2024:thm9", "Theorem 9",
         "Every C-RASP[periodic,local] program compiles to a Periodic and Local Limit Transformer accepting the same "
         "words; a program without positional relations compiles to a NoPE model.",
         strength="bounded-instances",
         evidence=f"{_C}: compiled == interpreter exhaustively (float64 path: binary <= 12, 3 letters <= 8, 4 letters <= 6; "
         "exact path: binary <= 5; slow: float binary <= 14 / 3 letters <= 9 / 4 letters <= 8, exact binary <= 12 / "
         "3 letters <= 8 / 4 letters <= 6), every benchmark program of constructions.crasp.programs, Hypothesis "
         "programs (the C-RASP package's strategy) x words up to length 2100 (slow: 4000); negative controls: "
         "corrupted value entries and MLP bias, swapped comparison operands",
         leaves_out="every benchmark program exhaustively up to the lengths listed, Hypothesis programs on words "
                    "up to length 2100 (slow: 4000); not every program or length")
register("huang2024:thm9.nope", "Theorem 9 (NoPE part)",
         "A program with no periodic or local relation compiles to a model with no positional encodings and no phi.",
         strength="bounded-instances",
         evidence=f"{_C}::test_plain_crasp_compiles_to_nope (and its negative control with a Positional op)",
         leaves_out="the programs checked (a plain program and its Positional control)")
register("huang2024:thm9.exactness", "Theorem 9 (exactness of our construction)",
         "Our compiled model stores Booleans exactly and counts exactly as C/t at every length under both precision "
         "models (lambda = p + 1); with lambda < p under 'izzo' the hardmax (exact) regime starts at n = 2^(p/lambda).",
         strength="bounded-instances",
         evidence=f"{_C}::test_exactness_boundary_izzo_small_lambda (p = 6, lambda = 1: n = 63 inexact, n = 64 exact), "
         "test_long_strings_exact_via_protocol, test_tie_margin_tolerance_boundary (a stored-value error k/(32t) is "
         "tolerated up to k = 16 and breaks a tie from k = 17; without the margin at k = 1), "
         "test_huge_constants_exact_but_not_float (docs/crasp_compiler.md section 3)",
         leaves_out="the boundary at p = 6, lambda = 1; the tie margin at the chosen stored-value errors; long "
                    "strings through the protocol")
register("huang2024:thm27", "Theorem 27",
         "Theorem 9 restated (App. B.6).",
         strength="bounded-instances",
         evidence="see huang2024:thm9",
         leaves_out="as huang2024:thm9")
register("huang2024:rem28", "Remark 28",
         "The compiled T emulates P at offset 0 and need not be offset-invariant.",
         strength="bounded-instances",
         evidence=f"{_C}::test_compiled_model_not_offset_invariant (a periodic program's compiled model changes its answer "
         "at offset 1)",
         leaves_out="one periodic program's compiled model at offset 1; the emulation at offset 0 is "
                    "huang2024:thm9's bounded check")
register("huang2024:thm12", "Theorem 12",
         "For a Periodic and Local Limit Transformer, Alice (first N positions) can send C log N bits after which "
         "Bob computes every activation of positions N+1..2N.",
         strength="gap",
         evidence="holds exactly for models whose value vectors take finitely many values (huang2024:thm12.finite-values), "
         "but with exact rational activations a 2-layer NoPE model needs >= N-1 bits "
         "(huang2024:thm12.exact-activations); the proof's 'all activations have O(log N) precision' needs a "
         "rounding of activations that eqs (1)-(4) do not have. docs/gaps.md")
register("huang2024:thm12.finite-values", "Theorem 12 (finite-valued values)",
         "Protocol of App. B.3 (per key class: count + sum of values; <= tau boundary positions) reconstructs Bob's "
         "activations exactly with O(log N) bits when values range over a finite set (e.g. compiled C-RASP).",
         strength="bounded-instances",
         evidence=f"{_M}::test_protocol_matches_direct_exactly, test_protocol_random_finite_valued_models, "
         "test_message_bits_grow_logarithmically (majority: 123 bits at N = 2^16, 6 bits per doubling); negative "
         "controls in test_protocol_negative_controls (tampered count, dropped boundary, truncated bits) and "
         "test_protocol_rejects_non_local_and_non_periodic",
         leaves_out="compiled C-RASP models and random finite-valued models, N up to 2^16")
register("huang2024:thm12.exact-activations", "Theorem 12 (exact rational activations)",
         "Reading Theorem 12 with exact activations: O(log N) bits suffice for Bob to compute every activation.",
         strength="refuted",
         evidence=f"{_M}::test_exact_activation_witness_needs_linear_bits: averaging_witness() (2 layers, NoPE, p = 1) has "
         "2^(N-1) distinct Alice-dependent layer-2 aggregates, all giving distinct Bob activations")
register("huang2024:thm19", "Theorem 19",
         "Theorem 12 with logits rounded to p bits; C grows linearly in a complexity parameter of T (UNRECOVERED).",
         strength="bounded-instances",
         evidence="the 'huang' precision model (logits rounded to p bits) runs the protocol of Theorem 12 exactly on "
         "compiled models (verify/tests/huang2024/test_communication.py::test_protocol_huang_precision)",
         leaves_out="the compiled models' protocol under the 'huang' precision model; the complexity parameter of "
                    "C is UNRECOVERED, so C itself is not measured against it")
register("huang2024:thm23", "Theorem 23",
         "Expressible by a Periodic and Local Limit Transformer iff for every training length l the l-procedure "
         "eventually generalizes.",
         strength="bounded-instances",
         evidence="on the bounded class: non-expressible targets are never identified, for each training length run "
         "(huang2024:thm23.bounded, verify/tests/huang2024/test_inference.py)",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets(); training lengths l(n) = n/2, n/3, n - 1 and floor(sqrt n) only")
# -------------------------------------------------------------------------------------------- lemmas
register("huang2024:lem17", "Lemma 17",
         "sup_n R(T_n) < infinity implies f expressible by a Periodic and Local Limit Transformer and eventual "
         "generalization.",
         strength="bounded-instances",
         evidence="on the bounded class: the targets whose R(T_n) stays bounded over the sweep are exactly the identified "
         "(expressible) ones; parity's R(T_n) grows, and the members of R below any bound are finitely many "
         "(ladder R grows with m) (verify/tests/huang2024/test_inference.py)",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets()")
register("huang2024:lem47", "Lemma 47",
         "A Periodic and Local Limit Transformer gives T_n in Theta_n (width d + n + O(Delta)) matching it at every "
         "offset with bounded R.",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py: constructions/huang/lemma47.py compiles Periodic+Local (izzo) Limit Transformers to T_n in Theta_n (width d + n + 3 Delta + 2); exact agreement at every offset on all words <= 3 and sampled longer words for 4 compiled benchmark models and ModP(3,1) (scripts/bench_huang.py: all 27 benchmark models at n = 64, sampled words, 24 s; slow test: all 27 at n = 12, words <= 3 / <= 2 at every offset); R(T_n) constant in n; negative controls: a corrupted MLP column is caught, non-local phi / non-periodic encodings make R grow",
         leaves_out="4 compiled benchmark models and ModP(3,1): every word of length <= 3 at every offset and "
                    "sampled longer words (slow: all 27 compiled models at n = 12)")
register("huang2024:lem48", "Lemma 48",
         "Bounded-rank, bounded-norm, p-bit translation-invariant bilinear products are periodic with period "
         "independent of N.",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_lemma52.py::test_lemma48_bounded_rank_norm_precision_gives_period_independent_of_n (Hypothesis: signed-permutation products, period <= 2 lcm(1..r) on a window of 48) and test_lemma48_hypotheses_are_needed (unbounded norm: F(delta) = delta; non-dyadic rotation: not periodic). Verified on this generated family only, not the lemma in general",
         leaves_out="a generated family (signed-permutation products) on a window of 48 positions")
register("huang2024:lem49", "Lemma 49",
         "With p-bit parameters every product function is exactly representable with about (L+4)p bits (constant "
         "UNCERTAIN).",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py::test_lemma49_product_bits_at_most_L_plus_4_times_p (every "
         "product function of the Lemma 47 images of 3 compiled models and ModP has <= (L+4)p fractional bits; "
         "negative control: a 1-layer model with 7-bit parameters has a 21-bit product, beyond (L+4)*4); checked on "
         "these models only, with the (L+4)p reading of the constant",
         leaves_out="the Lemma 47 images of 3 compiled models and ModP, with the (L+4)p reading of the constant")
register("huang2024:lem52", "Lemma 52",
         "Every T in Theta_n translates into a Limit Transformer with R_inf <= F(R(T)) and "
         "phi(i, j) = p_i^T K^T Q p_j.",
         strength="gap",
         evidence="checked only in part: verified for the subclass our translator handles (huang2024:lem52.subclass); with "
         "Definition 50's footnote (tau in R_infinity) the bound is false (huang2024:lem52.tau, refuted); the paper's "
         "general to-do-list construction is not executed (docs/huang_theta.md, docs/gaps.md)")
register("huang2024:lem52.subclass", "Lemma 52 on the phi-coordinate subclass",
         "T in Theta_n whose positional part splits into phi-coordinates (read only by logits) and a periodic rest "
         "translates to a Periodic and Local Limit Transformer with phi = p^T K^T Q p, agreeing exactly up to n, "
         "with p, norm and positional mass bounded by R(T).",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_lemma52.py: constructions/huang/lemma52.py on the Lemma 47 images of 4 compiled "
         "models and ModP; exact agreement at every offset (words <= 3); a dropped phi is caught; outside the "
         "subclass NotTranslatableError",
         leaves_out="the Lemma 47 images of 4 compiled models and ModP, words of length <= 3 at every offset")
register("huang2024:lem53", "Lemma 53",
         "Correctness of the Lemma 52 translation (induction over layers).",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_lemma52.py::test_lemma52_round_trip_exact (correctness of our translation checked exactly at every offset; a dropped phi is caught)",
         leaves_out="as huang2024:lem52.subclass")
register("huang2024:lem56", "Lemma 56",
         "Nuclear-norm bound ||M||_* <= ||V||^2 ||A||_* for M = V^T A V (UNCERTAIN).",
         strength="proof-script-only", covers="numerical",
         evidence="verify/huang/random_init.py::lemma56_ratio: ||V^T A V||_* <= ||V||_2^2 ||A||_* on Hypothesis-random "
         "integer matrices (n, m <= 5), attained by V = 2I; control: the first power of ||V||_2 is not enough "
         "(verify/tests/huang2024/test_random_init.py)",
         leaves_out="our reading (spectral norm of V; the exact statement is UNCERTAIN); random integer matrices "
                    "up to 5 x 5, float64 SVDs with relative tolerance 1e-9")

# --------------------------------------------------------------------------------------- corollaries
register("huang2024:cor13", "Corollary 13",
         "Copying with repeated n-grams (and addition) is not expressible by a Periodic and Local Limit Transformer.",
         strength="gap",
         evidence="fooling-set half verified exactly (huang2024:cor13.fooling); with Theorem 12 for finite-valued models it "
         "excludes those models, but the general proof rests on huang2024:thm12 whose exact-activation reading is "
         "refuted, so the corollary needs the activation rounding the proof assumes (docs/gaps.md)")
register("huang2024:cor13.fooling", "Corollary 13 (fooling set)",
         "Any protocol letting Bob produce the copy of Alice's x in {a,b}^(N-1) needs 2^(N-1) distinct messages "
         "(>= N-1 bits), while a Periodic and Local model's protocol has O(log N) bits and hence collides.",
         strength="bounded-instances",
         evidence=f"{_M}::test_copy_fooling_set (exact enumeration N = 2..6, CLI to N = 9: 2N - 2 distinct messages vs "
         "2^(N-1) needed; collision found and the model's outputs on Bob's half checked equal directly; negative "
         "control: an injective message is not flagged)",
         leaves_out="N = 2..6 exhaustively (the CLI to N = 9); the pigeonhole half holds for every N")
register("huang2024:cor18", "Corollary 18",
         "NoPE version of Theorem 7: NoPE length-generalizes on functions expressible without positional "
         "information.",
         strength="bounded-instances",
         evidence="restricted to NoPE members of the bounded class, majority (a C-RASP language) is identified and (aa)* is "
         "not (huang2024:cor18.bounded, verify/tests/huang2024/test_inference.py); its input, the NoPE compilation "
         "of C-RASP, is huang2024:thm9.nope",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets(); NoPE members only")
register("huang2024:cor20", "Corollary 20",
         "Corollary 13 restated, incl. addition (y = 0 reduces to copying).",
         strength="gap",
         evidence="the fooling-set half holds: addition with y = 0 needs 2^(N-1) distinct messages like copying (exhaustive "
         "N = 2..8, "
         "verify/tests/huang2024/test_communication.py::test_fooling_sets_of_addition_multiplication_and_dyck2); "
         "the O(log N) half is Theorem 12, whose exact-activation reading is refuted, so the corollary inherits "
         "huang2024:cor13's gap (docs/gaps.md)")
register("huang2024:cor24", "Corollary 24",
         "If f is not so expressible, some training length l makes infinitely many T_n fail at length n.",
         strength="bounded-instances",
         evidence="on the bounded class: for every non-expressible target and every n of the sweep with U_n non-empty, T_n "
         "errs on some input of length <= n (verify/tests/huang2024/test_inference.py)",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets(); l(n) = n/2")
register("huang2024:cor26", "Corollary 26",
         "Expressible by a Periodic and Local Limit Transformer implies a width-O(N), p-bit, bounded-depth APE "
         "transformer for all lengths <= N.",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_theta_lemma47.py::test_lemma47_compiled_models_match_at_every_offset (for the checked models: width <= d + n + 3 Delta + 2, p and depth/heads independent of n)",
         leaves_out="the checked models only (width d + n + 3 Delta + 2)")
# ------------------------------------------------------------------------------------- propositions
register("huang2024:prop51", "Proposition 51",
         "Limit Transformers with R_inf <= B have finitely many parameter settings apart from phi.",
         strength="unchecked",
         evidence="the statement depends on readings of Definition 50 the reference leaves UNCERTAIN: whether 'size' "
         "includes the MLP hidden width, and which norm bounds a matrix. If the hidden width is not in R_infinity "
         "(our reading, constructions/huang/regularizer.py), live units are bounded only through the norms of A "
         "and B at p bits (k <= (B 2^p)^2 with Frobenius norms, unbounded with entrywise max norms), and "
         "zero-padded units make the raw settings infinite in every reading; without the paper's definition there "
         "is no statement to check")
register("huang2024:prop54", "Proposition 54",
         "With i.i.d. init of variance ~1/d and d = Omega(N), E[(8)] = O(1).",
         strength="proof-script-only", covers="numerical",
         evidence="verify/huang/random_init.py: E[(8)] = N/d + 2/d^2 (Gaussian moments), O(1) when d = Omega(N); Monte "
         "Carlo (4000 samples per point) agrees within 4 standard errors; control: unit-variance entries make (8) "
         "> 100x larger (verify/tests/huang2024/test_random_init.py)",
         leaves_out="our reading of the UNCERTAIN assumptions (entries of p_i, K, Q i.i.d. N(0, 1/d), one head, "
                    "one layer); Monte Carlo at (N, d) = (8, 8), (32, 32), (16, 32) within 4 standard errors of "
                    "the hand-derived closed form")

# ------------------------------------------------------------------------------------------- remarks
register("huang2024:rem15", "Remark 15",
         "The representing Limit Transformer need not be offset-invariant; T(x, 0) = f(x) suffices.",
         strength="as-stated",
         evidence="existential: a compiled periodic program's Limit Transformer changes its answer at offset 1 while "
         "representing the program at offset 0, so the representing model need not be offset-invariant "
         "(verify/tests/huang2024/test_crasp_compiler.py::test_compiled_model_not_offset_invariant); 'T(x, 0) = "
         "f(x) suffices' is the definition used by huang2024:thm7")
register("huang2024:rem21", "Remark 21",
         "The Corollary 13 argument also covers multiplication and unbounded-depth Dyck-2.",
         strength="gap",
         evidence="the fooling-set half holds for multiplication by 1 and for unbounded-depth Dyck-2 (every pair of opening "
         "prefixes told apart by the mirrored closing; control: one bracket type gives one prefix), exhaustive N = "
         "2..8 "
         "(verify/tests/huang2024/test_communication.py::test_fooling_sets_of_addition_multiplication_and_dyck2); "
         "the O(log N) half is Theorem 12's, as for huang2024:cor13 (gap, docs/gaps.md)")
register("huang2024:rem25", "Remark 25",
         "Inexpressible functions fail when test lengths exceed training lengths by more than a factor 2.",
         strength="bounded-instances",
         evidence="on the bounded class: every T_n selected for a non-expressible target errs on some input of length <= n, "
         "twice the training length n/2 (verify/tests/huang2024/test_inference.py)",
         leaves_out="Theta_n (every width) is replaced by the finite class of constructions/huang/inference.py "
                    "(162 one-unit counting models, 2 max_ladder ladders, 6 ModP averages) and the targets by the "
                    "nine of targets(); n <= 12")
register("huang2024:rem45", "Remark 45",
         "Product functions that never occur in a computation are harmless.",
         strength="bounded-instances",
         evidence="constructions/huang/products.py enumerates every product function of Definition 43, whether or not it "
         "occurs in a computation, and the Lemma 47 images pass the translation-invariance check of eq. (7) on all "
         "of them "
         "(verify/tests/huang2024/test_theta_lemma47.py::test_product_functions_translation_invariance_and_negative_"
         "controls; controls: violating models are rejected)",
         leaves_out="the Lemma 47 images of the models checked (compiled benchmark models, ModP)")

# ------------------------------------------------- Theta_n, Lemma 47/52, bounded Inference Procedure
_I = "verify/tests/huang2024/test_inference.py"
register("huang2024:lem52.tau", "Lemma 52 with Definition 50's footnote (tau in R_infinity)",
         "R_infinity(T^) <= F(R(T)) when R_infinity includes the locality radius tau of phi.",
         strength="refuted",
         evidence="verify/tests/huang2024/test_lemma52.py::test_tau_is_not_bounded_by_R: T_n with one positional logit at distance n - 1 has R(T_n) constant "
         "while eq. (41) forces tau(T^) = n - 1 (the far logit changes an output); docs/gaps.md")
register("huang2024:def6.bounded", "Definition 6 on a bounded class",
         "The Inference Procedure with the minimum taken over the finite class of constructions/huang/inference.py.",
         strength="bounded-instances",
         evidence=f"{_I}: R-minimiser among members matching f up to n/2, recomputed for each n; verified on "
         "bounded classes only",
         leaves_out="the sweeps run (n <= 12; slow: 24) with test words up to length 8 plus samples of length 40 "
                    "(slow: 10 and 64)")
register("huang2024:eq9.bounded", "Equation (9) on a bounded class",
         "T_n is an exact R-minimiser over U_n in the class.",
         strength="bounded-instances",
         evidence=f"{_I} (ties broken by enumeration order; the 1/n slack unused)",
         leaves_out="as huang2024:def6.bounded")
register("huang2024:thm7.bounded", "Theorem 7 on a bounded class",
         "On the class of constructions/huang/inference.py (any max_ladder): expressible targets (majority, (aa)*, "
         "ModP) are identified from some n0 on, at every n >= n0, with R(T_n) constant; the non-expressible targets "
         "(parity, Tomita 3, 5, 6, ones at prime positions) are never identified, at any n.",
         strength="bounded-instances",
         evidence=f"verify/huang/inference.py::analyse settles every member: equal to f on every input (z3 over all "
         "counts for the one-unit models; the App. A.2 construction for ModP) or separated by a witness re-checked "
         "with the exact evaluator (ladders: witness families proved for every m by z3), so T_n equals f at every "
         "n >= n0 = 2 x the longest witness, and never for targets no member equals; the readings are compared with "
         f"the models; {_I}::test_expressible_targets_identified_at_every_n_from_n0, "
         "test_non_expressible_targets_never_identified_at_any_n, test_member_readings_match_the_models (negative "
         "controls: the class without the equal members is never identified, a word on which a member agrees is "
         "rejected as a witness); the sweeps of docs/huang_inference.md agree",
         leaves_out="the ModP members equal their targets by izzo2025:app-a2.modp (exact up to length 10^4, not "
                    "proved for every length); R(T_n) is computed constant for n0 <= n <= 32 only; the member "
                    "readings are compared with the models on words of length <= 4 (ladders <= 5) and follow from "
                    "the constructions' definitions beyond")
register("huang2024:thm23.bounded", "Theorem 23 on a bounded class",
         "Non-expressible targets fail for every training length l(n) on the class.",
         strength="as-stated",
         evidence=f"no member of the class (any max_ladder) equals a non-expressible target: every one-unit or "
         "average member has a witness re-checked with the exact evaluator, every ladder a witness family proved "
         "for every m by z3, so every T_n errs on some input whatever l(n) (verify/huang/inference.py::analyse; "
         f"{_I}::test_non_expressible_targets_never_identified_at_any_n); sweeps with l(n) = n/2, n/3, n - 1, "
         "floor(sqrt n) agree (test_l_inference_procedure_for_other_training_lengths)")
register("huang2024:cor18.bounded", "Corollary 18 on a bounded class",
         "Restricted to NoPE members, majority is identified (from some n0 on, at every n) and (aa)* is never.",
         strength="as-stated",
         evidence=f"verify/huang/inference.py::analyse on the NoPE members: unit[1,-1,0,0,0] equals majority on every "
         "input (z3 over all counts) and every other NoPE member has a witness (exact) or a witness family (z3, every "
         "m), so T_n is majority's at every n >= n0; no NoPE member equals (aa)* (witnesses for all), so it is never "
         f"identified; {_I}::test_nope_class_identifies_majority_and_provably_never_aa_star (control: with the "
         "positional members (aa)* is identified), test_nope_members_identify_majority_but_not_aa_star")
