"""Claims of ahuja2024 (Ahuja & Mansouri, On Provable Length and Compositional Generalization).

Owned here: definitions, assumptions, Lemmas 3, 15, 16, Theorems 4-9, 12-14, 17-20, the Lipschitz
constants (42)-(47), the Rademacher bound (92)-(94) and the equations those proofs check.  Theorem 10,
Lemma 11 and the high-capacity / App. B.1 statements are registered by another module.

Evidence names the proof module in verify/ahuja/ and its tests (verify/tests/ahuja2024/); findings are
written up in docs/gaps.md.  Strengths are judged claim by claim: ``as-stated`` where the checks cover every
quantifier of the statement (any dimension, length, number of terms or parameter value: induction steps, non-
commuting symbols for matrices of any size, an abstract vector space with ground axiom instances; an elementary
algebraic or order fact cited by name, such as "a permutation matrix is orthogonal" or "a non-zero polynomial has
finitely many roots", does not lower it), ``steps-cited`` where an analysis step (continuity, density,
analyticity, injectivity of exp) is only cited, ``bounded-instances`` otherwise, with ``leaves_out`` naming what
the instances do not cover.
"""

from verify.claims import SCRIPT_ONLY, register

_P = "ahuja2024"
_GAPS = "docs/gaps.md"

CLAIMS = [
    # (label, statement, summary, strength, evidence, leaves_out): leaves_out says what the instances of a
    # bounded-instances (or numerical) claim do not cover.
    ("def1", "Definition 1",
     "Length generalization: zero error on P(T~) for every T~ >= 1 after training on P(T)",
     "bounded-instances",
     "definition; instantiated as 'h = f at every length' in every theorem chain of verify/ahuja/, and exercised "
     "on the high-capacity witness of sec. 4.1 (ahuja2024/test_capacity.py)",
     "exercised on one deep set f and its witness f + c[t > T] (T = 2, 3; rational sequences of length <= 4): f "
     "length-generalizes, the witness does not, c = 0 does; a definition has no further content to check"),
    ("def2", "Definition 2",
     "Compositional generalization: zero error on the uniform Q(T) over prod_j supp(X_j)",
     "gap",
     "'uniform' is ill-defined when supp(X_j) = R^n (A9, A16, A17 use that support; z3 step in "
     "verify/ahuja/assumptions.py); read as a.e. equality on the product support (docs/gaps.md)",
     ""),
    ("asm1", "Assumption 1",
     "Deep set h = sigma(A sum psi(x_j)), sigma C^1 bijective, psi differentiable",
     "bounded-instances",
     "satisfiable: exact member with polynomial psi (verify/ahuja/deepsets_slp.py)",
     "satisfiability only: one exact member (polynomial features of degree <= 3 on R^2, compared at length 3)"),
    ("asm2", "Assumption 2",
     "supp(X_{<=i}) non-empty and regular closed for i <= T",
     "bounded-instances",
     "satisfiable: the box and the l1-ball of Fig. 1a are regular closed (z3, verify/ahuja/lemma3.py); fails for "
     "discrete tokens (hence A15)",
     "two supports only (the box and the l1-ball of Fig. 1a), in z3"),
    ("asm3", "Assumption 3",
     "Deep set h = omega(sum psi(x_j)) with omega a C^1-diffeomorphism",
     "bounded-instances",
     "satisfiable: the cubic diffeomorphism of verify/ahuja/cauchy.py (a' >= 1)",
     "satisfiability only: one cubic diffeomorphism"),
    ("asm4", "Assumption 4",
     "supp(X_j) = [0,1]^n and supp([phi(X_1), phi(X_2)]) = R^{2m}",
     "gap",
     "cannot hold for phi continuous on the closed cube (compact image); holds for phi = logit on (0,1)^n, where f "
     "is not C^1 on the closed support; the clause is load-bearing (docs/gaps.md; verify/ahuja/cauchy.py findings)",
     ""),
    ("asm5", "Assumption 5",
     "Attention h = sigma(A (1/i) sum_{j<=i} psi(x_i, x_j)), perceptron head",
     "bounded-instances",
     "satisfiable: sigmoid attention psi(x,y) = sigma(x y) y is differentiable (verify/ahuja/assumptions.py)",
     "satisfiability only: the score psi(x, y) = sigma(x y) y"),
    ("asm6", "Assumption 6",
     "Attention over the other tokens, (1/(i-1)) sum_{j<i}, omega C^1-diffeo, omega(0) = 0",
     "bounded-instances",
     "satisfiable: omega = id; omega(0) = 0 is needed for eq. (64) (affine witness, verify/ahuja/jensen.py)",
     "satisfiability only: omega = id; the need for omega(0) = 0 shown on one affine map"),
    ("asm7", "Assumption 7",
     "supp(X_i, X_j) = [0,1]^{2n} and supp([phi(X_1,X_2), phi(X_1,X_3)]) = R^{2m}",
     "gap",
     "same compact-image problem as A4; the proof needs the shared-query pair [phi(X_3,X_2), phi(X_3,X_1)] "
     "(docs/gaps.md)",
     ""),
    ("asm8", "Assumption 8",
     "SSM h = omega(sum_j Lambda^j B x_{i-j}), omega C^1-diffeo, B, Lambda square invertible",
     "bounded-instances",
     "satisfiable: rational invertible instance (verify/ahuja/ssm.py)",
     "satisfiability only: one rational 2x2 instance"),
    ("asm9", "Assumption 9",
     "supp(X_1) = R^n and n i stacked training sequences of rank n i for some 2 <= i <= T",
     "bounded-instances",
     "rank clause checked on exact data, and implied by A2 (interior points); the first clause is load-bearing "
     "(bounded-token witness, verify/ahuja/ssm.py) and excludes the paper's U[0,1] experiments",
     "the rank clause on exact data for n = 2, i = 2 (unit tokens and an open box's points); that A2 implies it is "
     "argued, not checked for every n and i"),
    ("asm12", "Assumption 12",
     "Relative-PE attention with perceptron head; psi_k = 0 for k >= T_max",
     "bounded-instances",
     "satisfiable: relative-position scores psi_k (polynomials for k < T_max = 3, zero for every lag k >= 3) with "
     "the sigmoid head (verify/ahuja/attention.py::asm12_instance; control: T_max = 2 leaves a non-zero lag); note "
     "the main text's convention differs by one (see ahuja2024:thm13.tmax-main-text)",
     "satisfiability only: one instance (T_max = 3, polynomial scores, sigmoid head)"),
    ("asm13", "Assumption 13",
     "Relative-PE attention, omega C^1-diffeo, psi_k = 0 for k > T_max - 1, zeros of psi_k",
     "gap",
     "the proof of Thm 14 uses a different class ((1/(i-1)) sum_{j<i}) and needs omega(0) = 0, which A13 lacks "
     "(docs/gaps.md)",
     ""),
    ("asm14", "Assumption 14",
     "supp(X_{<=T}) = [0,1]^T (sic) and supp([phi_1(X_1,X_2), phi_2(X_1,X_3)]) = R^{2k}",
     "gap",
     "exponent typo ([0,1]^{nT}), swapped query indices, and the compact-image problem of A4 (docs/gaps.md)",
     ""),
    ("lem3", "Lemma 3",
     "a.e. equality of C^1 maps on a regular closed set extends to the set and to Jacobians",
     "unchecked",
     "every step of the lemma is analysis (a.e. equality of C^1 maps extends to the support and to Jacobians) and "
     "is cited, none discharged; what is checked is only a witness that its hypothesis of regular-closedness is "
     "needed (verify/ahuja/lemma3.py, ahuja2024/test_deepsets.py), which is not the lemma",
     ""),
    ("thm4", "Theorem 4",
     "Deep sets with perceptron head: A psi = B phi on [0,1]^n, length + compositional gen.",
     "bounded-instances",
     "chain (4)-(12) with the polynomial feature instance (verify/ahuja/deepsets_slp.py)",
     "(5)-(9) on one polynomial feature map (degree 3, n = 2; the connectedness argument is cited), (12) at length "
     "7, the realisation at length 3; sigma the sigmoid"),
    ("thm4.remark-label-t", "Remark after Theorem 4",
     "The result continues to hold if only the label at length T is observed",
     "gap",
     "holds for the bias-free perceptron of A1; fails with a bias: error (t/T - 1)(b_B - b_A) at length t "
     "(docs/gaps.md; ahuja2024/test_deepsets.py::test_bias_witness)",
     ""),
    ("thm5", "Theorem 5",
     "Deep sets with diffeomorphic head: Cauchy additivity makes a = omega^{-1} o rho linear",
     "gap",
     "chain (13)-(18) verified with ground instances of H (verify/ahuja/cauchy.py); A4 is satisfiable only by phi "
     "unbounded on the open cube, and the theorem fails once phi is bounded (docs/gaps.md)",
     ""),
    ("thm6", "Theorem 6",
     "Attention with perceptron head, T >= 2: A psi = B phi on [0,1]^{2n}",
     "bounded-instances",
     "direct chain (i = 1, i = 2, averaging) and a T = 1 break (verify/ahuja/attention.py)",
     "lengths up to 4 for the averaging step; sigma's injectivity and Lemma 3 cited"),
    ("thm7", "Theorem 7",
     "Attention over other tokens, diffeomorphic head, T >= 3: midpoint form => linear a",
     "gap",
     "chain (60)-(67) verified (verify/ahuja/jensen.py); A7 has the compact-image problem of A4 (docs/gaps.md)",
     ""),
    ("thm13", "Theorem 13",
     "Relative PE, perceptron head, T >= T_max >= 2: lags identified, length generalization",
     "steps-cited",
     "for every T >= T_max >= 2, every lag and every test length (verify/ahuja/attention.py::thm13_general, z3): the "
     "peel (57) by induction on the lag k <= T - 1 (the length-(k + 1) equation minus the lags already identified), "
     "then at any length each lag is either peeled (< T) or zero by A12 (>= T_max), summed by induction (control: T >= "
     "T_max dropped); also the lag peel (57)-(59) at T = T_max = 3, length 5 (verify/ahuja/attention.py::thm13_proof)",
     ""),
    ("thm13.tmax-main-text", "Section 4.2 / A.2.1 text",
     "phi_{i-j} = 0 for i - j > T_max suffices; lags i - j >= T - 1 cannot be learned",
     "gap",
     "off by one: with the main-text convention T = T_max fails (witness, docs/gaps.md); lag T - 1 is learned",
     ""),
    ("thm14", "Theorem 14",
     "Relative PE with diffeomorphic head, T >= T_max: length generalization",
     "gap",
     "proof not checkable as written: step (70) drops a factor 1/2 (z3 witness a(z) = z^3), a(0) = 0 missing from "
     "A13, class mismatch (docs/gaps.md)",
     ""),
    ("thm8", "Theorem 8",
     "SSM: C Lambda^i B = Lambda~^i B~ for all i, h~ = C h, length + compositional gen.",
     "bounded-instances",
     "chain (21)-(27) generic 2x2 and rational instances (verify/ahuja/ssm.py); supp X_1 = R^n is load-bearing "
     "(bounded-token witness)",
     "n = 2 (generic 2x2 matrices, rational data), lengths <= 5; Lemma 3 and the open-image step cited; (25) "
     "itself is proved for every size (ahuja2024:eq25)"),
    ("eq23", "Equation (23)",
     "R X = 0 with the stacked tokens [x_i; x_{i-1}; ...; x_1]",
     "gap",
     "typo: the displayed vector reads x_{i-2} in place of x_{i-1}; the step itself is verified (ssm.py)",
     ""),
    ("eq24", "Equation (24)",
     "C Lambda^j B = Lambda~^j B~ for the blocks of R",
     "gap",
     "index typo: the list should end at Lambda^{i-1}; only the first two equalities are used (ssm.py)",
     ""),
    ("eq25", "Equation (25)",
     "Lambda~^i B~ = C Lambda^i B for all i from the first two equalities",
     "as-stated",
     "for every matrix size and every i: base i = 0 (B~ = C B) and the induction step Lambda~ (C Lambda^i B) = C "
     "Lambda^(i+1) B with Lambda~ = C Lambda C^{-1}, in non-commuting symbols with symbolic i "
     "(verify/ahuja/ssm.py::eq25_general); also generic 2x2 and ground instances i = 1..4",
     ""),
    ("asm10", "Assumption 10",
     "Vanilla RNN (28) with head sigma o A; A, Lambda, B square invertible, sigma = sigmoid",
     "bounded-instances",
     "satisfiable: rational invertible instance (verify/ahuja/rnn.py)",
     "satisfiability only: one rational 2x2 instance"),
    ("thm9", "Theorem 9",
     "RNN: U = V = Pi, Lambda~ = Pi^T Lambda Pi, h_k = Pi h~_k; length + compositional gen.",
     "bounded-instances",
     "chain (29)-(41): support, sigmoid-derivative, scalar, permutation, (35)-(36), induction "
     "(verify/ahuja/rnn.py); analyticity for general p cited",
     "(34) for p = 2, 3 (general p cited through analyticity and Lemma 15); the permutation step for n = 3 (all 27 "
     "one-hot matrices); (35)-(41) for n = 2, 3; the open-image step cited"),
    ("eq36", "Equation (36)",
     "(Pi Lambda~ Pi^T - Lambda) sigma(B x_1) = 0 => Lambda~ = Pi^T Lambda Pi",
     "as-stated",
     "for every size: Pi^T (Pi Lambda~ Pi^T) Pi = Lambda~ after Pi^T Pi = I (non-commuting symbols; orthogonality "
     "of permutation matrices cited as elementary), verify/ahuja/rnn.py::eq36_general; also all 3! permutations of "
     "3 coordinates with a generic Lambda~",
     ""),
    ("eq40", "Equation (40)",
     "Pi T~_{k+1} = T_{k+1} (induction step)",
     "gap",
     "typo: printed with x_k where x_{k+1} is meant (also eq. 91); as printed it is the rejected control of the "
     "verified step (ahuja2024/test_rnn.py::test_eq40_as_printed_is_the_rejected_control)",
     ""),
    ("lem15", "Lemma 15",
     "The k-th derivative of the sigmoid is P_{k+1}(sigma), degree k+1, not identically zero",
     "as-stated",
     "for every k by induction (verify/ahuja/rnn.py::lemma15_induction): base P_2 = S - S^2, step (a S^(k+1))' (S "
     "- S^2) = (k+1) a S^(k+1) - (k+1) a S^(k+2) and -(k+1)(-1)^k k! = (-1)^(k+1) (k+1)! with symbolic k, lower "
     "terms stay below degree k + 2 (z3); 'not identically zero' from the root bound of a non-zero polynomial "
     "(cited, elementary); also k = 1..7 explicitly",
     ""),
    ("lem16", "Lemma 16",
     "A x = 0 on a set with non-empty interior => A = 0",
     "as-stated",
     "for every size (verify/ahuja/rnn.py::lemma16_general): a ball B(theta, r) holds theta +- (r/2) e_j (z3), "
     "(75) in non-commuting symbols, (alpha - beta) a = 0 with alpha != beta gives a = 0 (z3); also 2x2 instances, "
     "and a segment (empty interior) does not suffice (control)",
     ""),
    ("asm15", "Assumption 15",
     "Discrete S = B(supp X): shifted pairs per coordinate, upper and lower rectangles",
     "gap",
     "satisfiable (grid {0,1,2}^2), but as literally stated too weak: {1,2}^2 meets it while sigma(Vy) = U "
     "sigma(y) has a non-permutation solution on it (docs/gaps.md; verify/ahuja/discrete.py)",
     ""),
    ("thm17", "Theorem 17",
     "RNN with discrete tokens (A15; the text says 'Assumption 2'): U = V = Pi",
     "gap",
     "the permutation step fails under A15 as stated: U = diag(u*, u*), V = diag(v*, v*) on S = {1,2}^2 (exact "
     "witness); holds when the pairs of A15(a) differ in y_i (docs/gaps.md)",
     ""),
    ("thm17.mvt", "Theorem 17 proof, after eq. (82)",
     "(82) cannot vanish since s_1 > s_2 > s_3 > s_4 > 0",
     "gap",
     "the ordering needs v_1, v_2 > 0; with v = (1, -1), y = 0, y' = (1, 1), (82) is exactly 0 (docs/gaps.md)",
     ""),
    ("eq84-85", "Equations (84)-(85)",
     "u e^{-(v-1) y} = u e^{-(v-1) y'} => v = 1",
     "steps-cited",
     "algebra (84) exact; v = 1 needs y != y' (z3), which A15(a) does not require (discrete.py)",
     ""),
    ("asm16", "Assumption 16",
     "CoT deep sets; exists t <= T: supp(x_j) = R^n and supp(sum_{j<=t} phi(x_j)) = R^k",
     "bounded-instances",
     "satisfiable with Gaussian tokens and phi = id (cited); index soup (i vs t, m vs k) noted; the second clause "
     "is load-bearing (ahuja2024:thm18.bounded-tokens)",
     "satisfiability is cited (Gaussian tokens, phi = id), not constructed; the second clause's necessity shown by "
     "one bounded-token witness"),
    ("asm17", "Assumption 17",
     "CoT SSM; rank [B, ..., Lambda^t B] = k, supp X_i = R^n, rank [h_{t-1}; x_t] = k + n",
     "gap",
     "ranks checked on exact data (verify/ahuja/cot.py); the controllability clause is off by one: rank [B, Lambda "
     "B] = k with h_1 = B x_1 spanning a line (witness, docs/gaps.md)",
     ""),
    ("asm18", "Assumption 18",
     "CoT RNN; rank [h_{t-1}; x_t] = k + n and rank [h_t] = k on training subsets",
     "bounded-instances",
     "satisfiable: rational states in (0,1)^k with the ranks checked exactly (verify/ahuja/cot.py)",
     "satisfiability only: one rational instance"),
    ("thm18", "Theorem 18",
     "CoT deep sets: psi = phi on the support and omega = rho give length generalization",
     "bounded-instances",
     "i = 1 CoT gives psi = phi directly; omega = rho cited from A16 (verify/ahuja/cot.py)",
     "z3 on scalar tokens, lengths up to 3; omega = rho on the support cited from A16"),
    ("thm18.bounded-tokens", "Sec. 4.1 'Role of CoT data' / Theorem 18 with bounded tokens",
     "CoT supervision yields length generalization for deep sets",
     "gap",
     "needs supp(sum phi) = R^k; with tokens in [0,1] a learner with zero CoT and label risk for t <= 2 errs at t "
     "= 3 (exact witness, docs/gaps.md)",
     ""),
    ("thm19", "Theorem 19",
     "CoT SSM: rank k + n data give Lambda~ = Lambda, B~ = B; omega = rho",
     "bounded-instances",
     "exact nullity on data; rank-deficient data admit a different learner that errs on a new input; the displayed "
     "product [h^T, x^T][Lambda - Lambda~; B - B~] is dimensionally wrong (verify/ahuja/cot.py)",
     "exact nullity on one rational SSM's CoT data (k = 2, n = 1)"),
    ("thm20", "Theorem 20",
     "CoT RNN: logit makes the system linear; rank conditions give equal parameters",
     "steps-cited",
     "for every k, n and number of data points (verify/ahuja/cot.py::thm20_general): with sigma's injectivity "
     "(cited) the CoT equality gives (Lambda~ - Lambda) H + (B~ - B) X = 0; [H; X] of rank k + n has a right inverse "
     "(elementary), which extracts Lambda~ - Lambda and B~ - B in non-commuting symbols (control: only H invertible "
     "on the right); the labels give A~ = A the same way with rank-k states; equal parameters give h~_t = h_t and y~_t "
     "= y_t at every length (induction on t, z3 with uninterpreted sigma); also exact nullity on rational states "
     "(verify/ahuja/cot.py::thm20_proof)",
     ""),
    ("sec4.1-cot-relu", "Section 4.1, 'Role of CoT data' (ReLU MLP)",
     "A learner given intermediate outputs ReLU(W_i x + b_i) learns the true W_i, b_i",
     "refuted",
     "dead unit: (w~, b~) = (-5, 0) matches ReLU(x - 2) on [0,1] and differs at x = -1 (z3, docs/gaps.md)",
     ""),
    ("asm11", "Assumption 11",
     "Uniform Lipschitzness in the parameters, with L independent of the length t",
     "bounded-instances",
     "satisfiable: h = theta mean(x) (z3, verify/ahuja/covers.py); the experiments' SSM (orthogonal Lambda) "
     "violates it: d h_t / d Lambda = t(t-1)/2 (verify/ahuja/lipschitz.py findings)",
     "satisfiability only: h = theta mean(x); the violation by the experiments' SSM at one orthogonal Lambda"),
    ("thm12", "Theorem 12",
     "Constrained learner over an eta-cover: exists T_0 after which all solutions are eps-good",
     "as-stated",
     "for every finite cover Theta_c (N points, N symbolic), every eps and every risk table R~(theta, t) "
     "(verify/ahuja/covers.py::thm12_universal, z3 with uninterpreted R~): the threshold F(n + 1) = max(F(n), "
     "first(n)) bounds each member's first length with R~ > eps (induction on n), so for T > T_0 = F(N) every "
     "member of Theta_c^T has R~ <= eps at every length; the cover is finite as the proof's use of Lemma 11 and Sec. "
     "5.2 ('a finite cover') require (control: theta < N dropped, an infinite cover, has a counter-model); A11 and "
     "realizability enter only the non-emptiness of Theta_c^T, proved in general (z3); 'non-decreasing' should be "
     "non-increasing (the rejected control); squared loss needs eps <= 1 for non-emptiness "
     "(ahuja2024:thm12.squared-loss); also an exact instance with T_0 = 5 (Theta_c^3 = Theta_c^4 != Theta_c^5: a "
     "plateau does not reveal T_0) (verify/ahuja/covers.py)",
     ""),
    ("thm12.squared-loss", "Theorem 12 proof, first paragraph",
     "||h(theta_c) - f|| <= L eta <= eps gives R~ <= eps",
     "gap",
     "with l the squared loss R~ <= eps^2, which exceeds eps for eps > 1 (witness eps = 2); fine for eps <= 1 "
     "(docs/gaps.md)",
     ""),
    ("eq42", "Equation (42)",
     "One block omega((1/t) sum psi): Lipschitz constant sqrt(L_omega^2 + M_omega^2 L_psi^2)",
     "as-stated",
     "for every number t >= 1 of keys and every parameter value (verify/ahuja/lipschitz.py::universal): the "
     "averaging by induction on partial sums, then ||dy|| <= sqrt(L_omega^2 + M_omega^2 L_psi^2) ||dtheta|| from "
     "the Lipschitz hypotheses with the square roots as z3 variables; controls: sum pooling, M_omega dropped; also "
     "the t = 4 chain with the Lagrange identity (verify/ahuja/lipschitz.py::proof); typos psi(x_j, x_j), swapped "
     "theta subscripts, 1/t vs 1/n; the multiblock claim also needs input-Lipschitz blocks",
     ""),
    ("eq43", "Equation (43)",
     "||dy_t|| <= L_omega ||dtheta_omega|| + M_omega ||dh_t||",
     "as-stated",
     "norm triangle inequality between (h, theta), (h, theta'), (h', theta') with the Lipschitz hypotheses, z3 for "
     "every value (verify/ahuja/lipschitz.py::universal; control: the triangle inequality dropped); also the "
     "scalar triangle inequality",
     ""),
    ("eq44", "Equation (44)",
     "||dh_t|| <= L_sigma ||Lambda|| ||dh_{t-1}|| + L_sigma ||dLambda|| h_sup + L_sigma ||dB|| x_sup",
     "as-stated",
     "Lambda h - Lambda' h' = Lambda (h - h') + (Lambda - Lambda') h' in non-commuting symbols (any sizes), then "
     "sigma's Lipschitz constant, the triangle inequality, sub-multiplicativity and ||h'|| <= h_sup (the perturbed "
     "parameters in Theta), ||x|| <= x_sup, z3 for every value (verify/ahuja/lipschitz.py::universal; control: "
     "||h'|| <= h_sup dropped)",
     ""),
    ("eq45", "Equation (45)",
     "||dh_t|| <= alpha* / (1 - L_sigma Lambda_sup)",
     "as-stated",
     "induction over t: base d_0 = 0 and the step d_t <= rho d_(t-1) + alpha, 0 <= rho < 1 => d_t <= alpha/(1 - "
     "rho), z3 for every value (verify/ahuja/lipschitz.py; control: rho < 1 dropped)",
     ""),
    ("eq46", "Equation (46)",
     "RNN constant sqrt(L_sigma^2 + gamma_1^2 + gamma_2^2)",
     "refuted",
     "must be sqrt(L_omega^2 + gamma_1^2 + gamma_2^2): exact witness with ratio 1 > sqrt(2077/8100) (docs/gaps.md; "
     "ahuja2024/test_bounds.py::test_eq46_witness)",
     ""),
    ("eq47", "Equation (47)",
     "h_sup = L_sigma B_sup x_sup / (1 - L_sigma Lambda_sup), using sigma(0) = 0",
     "gap",
     "sigma(0) = 0 excludes the sigmoid of Thm 9 and the experiments (h_1 = 1/2 > h_sup = 0 at x = 0); the "
     "corrected bound (|sigma(0)| + L_sigma B x)/(1 - L_sigma Lambda) is verified (docs/gaps.md)",
     ""),
    ("sec5.2-ssm", "Section 5.2, multiblock SSMs",
     "One SSM block with ||Lambda|| <= Lambda_sup < 1 satisfies A11",
     "as-stated",
     "for every N and every parameter value (verify/ahuja/lipschitz.py::universal): sum_{j<=N} j rho^(j-1) in "
     "closed form by induction on N and <= 1/(1 - rho)^2 (z3), the geometric sum <= 1/(1 - rho), Lambda^(k+1) - "
     "Lambda'^(k+1) = Lambda (Lambda^k - Lambda'^k) + (Lambda - Lambda') Lambda'^k (non-commuting, symbolic k), "
     "||Lambda^k - Lambda'^k|| <= k rho^(k-1) ||dLambda|| by induction, so ||h_t - h'_t|| <= x_sup (B_sup "
     "||dLambda||/(1 - rho)^2 + ||dB||/(1 - rho)) independently of t; the experiments' orthogonal Lambda is "
     "outside the statement",
     ""),
    ("eq92", "Equation (92)",
     "g = l o h is L_l L-Lipschitz in theta",
     "as-stated",
     "composition of the Lipschitz bounds, z3 for every value (verify/ahuja/rademacher.py; control: L_l >= 0 "
     "dropped)",
     ""),
    ("eq93", "Equation (93)",
     "R(G o S) <= R(G_c o S) + eps for an (eps/(L L_l))-cover",
     "as-stated",
     "for every number m T of points (verify/ahuja/rademacher.py::universal): the signed average of pointwise "
     "eps-close values moves by <= eps (induction, z3); that sup and expectation keep the bound is cited "
     "(elementary); also m T = 3",
     ""),
    ("eq94", "Equation (94)",
     "R(G o S) <= 2 c sqrt(log N / (m T)) + eps",
     "refuted",
     "with the paper's shared-over-t signs: exact witnesses (m, T) = (1, 12) and (4, 100) above the bound; holds "
     "with independent signs per (i, t) (docs/gaps.md; ahuja2024/test_bounds.py::test_rademacher_witnesses)",
     ""),
    ("eq94.massart", "App. A.6, Massart's lemma as quoted",
     "R(G_c o S) <= max ||a - a_bar|| sqrt(log N)/(m T)",
     "refuted",
     "missing sqrt(2): A = {(0), (2)} has complexity 1 > sqrt(log 2) (docs/gaps.md)",
     ""),
    ("eq4", "Equation (4)",
     "sigma(A sum psi) = sigma(B sum phi) => A sum psi = B sum phi",
     "as-stated",
     "for the class of Assumption 1 (sigma any bijection, any dimension): sigma^{-1} o sigma = id instantiated at "
     "both sides, z3 over an abstract vector space (verify/ahuja/deepsets_slp.py::eq4_bijective; control: one "
     "inverse instance dropped); for the sigmoid also 1/(1+E_a) = 1/(1+E_b) => E_a = E_b with exp's injectivity "
     "cited",
     ""),
    ("eq10", "Equation (10)",
     "B sum phi + C T = B sum phi => C = 0",
     "as-stated",
     "T C = 0 with T >= 1 => C = 0, z3 for every real T and every entry of C (control T >= 0); also the polynomial "
     "form for T = 1, 2 (verify/ahuja/deepsets_slp.py)",
     ""),
    ("eq16", "Equation (16)",
     "a(alpha) + a(beta) = a(alpha + beta) for all alpha, beta in R^m",
     "as-stated",
     "in every dimension m: i = 1 and i = 2 give a(phi(x)) + a(phi(y)) = a(phi(x) + phi(y)), z3 over an abstract "
     "vector space (verify/ahuja/cauchy.py::eq16_vector_space); every pair (alpha, beta) is reached only through "
     "the R^{2m} support of A4 (a hypothesis of the step; A4 itself is a gap); also m = 2 with uninterpreted "
     "functions",
     ""),
    ("eq63-65", "Equations (63)-(65)",
     "midpoint form => a(2 alpha) = 2 a(alpha) => additivity",
     "as-stated",
     "in every dimension m: J(2 alpha, 0) and a(0) = 0 give a(2 alpha) = 2 a(alpha), J(2 alpha, 2 beta) and that "
     "give additivity, z3 over an abstract vector space with the vector-space axioms as ground instances "
     "(verify/ahuja/jensen.py::eq63_65_vector_space; controls: a(0) = 0 dropped, (64) at beta dropped); also m = 2",
     ""),
    ("eq70", "Equation (70)",
     "psi_2(x, y) = a(phi_2(x, y)) from the i = 3 equation with phi_1 = 0",
     "gap",
     "drops a factor 1/2: (1/2) psi_2 = a(phi_2/2) does not give psi_2 = a(phi_2) (z3 witness a = z^3; "
     "docs/gaps.md)",
     ""),
    ("table1", "Table 1 (sec. 4.5.1)",
     "R^2 of learned vs true hidden representations 0.97-0.99 at t = 20 and 100 for deep sets, transformers, SSMs "
     "and RNNs with 2-hidden-layer heads trained on t <= 10",
     "gap",
     "cpu preset (3 seeds, 16000 cosine steps, lr 1e-2; budgets 2000 / 6000 / 16000; docs/gaps.md "
     "'ahuja2024:table1 at the cpu preset'): R^2 follows the fit. Paper heads: SSM 0.998-1.000, transformer 1.000 "
     "on its fitted seed (2 seeds stuck at loss/Var 0.12, R^2 0.77); the deep set never fits (loss/Var 0.28, 0.09, "
     "0.045 over the budgets; R^2 0.77, 0.85, 0.87); the RNN fits every seed but plain R^2 is 0.91-0.93 while "
     "R^2 in the readout's metric is 0.995 (its labels expose 13-14 of 20 directions); perceptron heads: "
     "transformer, SSM 1.000, RNN 0.994, deep set 0.93-0.95; Theorem 9's permutation recovered in 0 of 3 seeds "
     "even for the fitted perceptron-head RNN; quick preset and paper preset: see docs/reproduce_ahuja.md",
     ""),
    ("fig2", "Figure 2 (sec. 4.5.1)",
     "test loss 1e-4 .. 1e-7 at every length up to 100: all four models length-generalize",
     "gap",
     "absolute losses 1e-7 .. 4e-3 reproduce the range, but the labels' own variance is of the same size; "
     "normalised by Var(y_t) the deep sets do not length-generalize (loss/Var at t = 100: 0.9 perceptron head, "
     "~1e7 paper head) while the perceptron-head transformer, SSM and RNN do (< 0.01) (docs/gaps.md)",
     ""),
    ("fig3", "Figure 3 (sec. 4.5.1)",
     "a softmax-attention transformer trained on t <= 10 tracks a test sequence up to t = 100",
     "numerical",
     "quick preset, App. B 2-hidden-layer head: R^2 = 1.000 (3 seeds), loss / Var(y_100) 0.02-0.07, the exemplar "
     "tracked beyond t = 10 (docs/results/ahuja2024-table1-quick-fig3.png)",
     "the quick preset (3 seeds, CPU budget), not the paper's"),
    ("table2", "Table 2 (sec. 4.5.2)",
     "compositional generalization to corner sequences: test loss 1e-7 .. 6e-6 and R^2 0.96-1.00 for all four "
     "models",
     "gap",
     "quick preset, the paper's per-coordinate constraint sampled per coordinate (exact; joint rejection accepts "
     "1.9e-8): perceptron-head transformer and SSM R^2 = 1.000 with loss <= 2.2e-5; RNN 0.955; deep sets 0.90 "
     "(perceptron) and 0.76 (paper head); the paper's 2-hidden-layer RNN ends below its initial R^2 (docs/gaps.md)",
     ""),
    ("table3", "Table 3 (App. B.1)",
     "high capacity: trained on t < T0 the learner fails beyond T0 (loss ~ c^2); trained beyond T0 it generalizes",
     "numerical",
     "exact in-class teachers f + c[t > T0] (counterexamples/capacity.py), T0 = 5 and 10 computed by Theorem 10's "
     "exact threshold; quick preset: trained on t <= T0 the loss beyond T0 is >= c^2 (deep set 0.066 vs c^2 = "
     "0.04; transformer 0.041 vs 0.01) and >= 20x the in-range loss; trained on t <= 2 T0 it drops (deep set 6e-4, "
     "100x lower; transformer 8e-3, 5x lower, still 0.8 c^2: partial, as the paper's 0.006); sum-pooled "
     "transformer (the mean-pooled one cannot express the target)",
     "the quick preset (CPU budget); deep set and sum-pooled transformer only"),
    ("fig4", "Figure 4 (App. B.1)",
     "predictions diverge beyond T0 when trained short, track when trained long",
     "numerical",
     "test loss against length per regime, docs/results/ahuja2024-table3-quick.png; same runs and checks as "
     "ahuja2024:table3",
     "the quick preset runs of ahuja2024:table3"),
]


#: the steps a steps-cited claim cites rather than discharges (the report prints them)
CITED = {
    "thm13": "Lemma 3 (h = f a.e. on the regular-closed support extends to the whole support) and sigma's "
             "injectivity, which turn the zero risk at lengths i <= T into sum_{j<=i} (A psi - B phi)_{i-j} = 0 on the "
             "support",
    "thm20": "sigma(a) = sigma(b) => a = b for the sigmoid (exp strictly increasing), used to pass from the CoT "
             "targets sigma(Lambda h + B x) and the labels sigma(A h) to the linear systems",
    "eq84-85": "(84) => (85): u e^{-(v-1) y} = u e^{-(v-1) y'} with u != 0 gives (v - 1)(y - y') = 0 (injectivity of "
               "exp, verify/ahuja/discrete.py)",
}

#: claims whose checks run no library code of the package: their proof scripts (verify/ahuja/) use only the proof
#: kernel, so they show the mathematics, not that code of the package computes it.  Strength proof-script-only; the
#: strength the script reaches is kept as ``covers``.
PROOF_SCRIPT_ONLY = {
    "asm1", "asm2", "asm3", "asm5", "asm6", "asm8", "asm9", "asm10", "asm11", "asm12", "asm16", "asm18",
    "eq4", "eq10", "eq16", "eq25", "eq36", "eq42", "eq43", "eq44", "eq45", "eq63-65", "eq84-85", "eq92", "eq93",
    "lem15", "lem16", "sec5.2-ssm", "thm4", "thm6", "thm8", "thm12", "thm13", "thm18", "thm19", "thm20",
}

for _label, _stmt, _summary, _strength, _evidence, _leaves_out in CLAIMS:
    _script = _label in PROOF_SCRIPT_ONLY
    register(f"{_P}:{_label}", _stmt, _summary, strength=SCRIPT_ONLY if _script else _strength, evidence=_evidence,
             leaves_out=_leaves_out, cited=CITED.get(_label, ""), covers=_strength if _script else "")
