"""Claims of Huang et al. (2024) about C-RASP as a language and the benchmark's expressibility.

Definition 8, Theorem 10, Lemma 11 / 29 and the App. C lemmas behind it (Def. 30 - Lemma 42), eq. (10),
App. C.1.5 / C.2, Tables 1-3 and Figure 1.  Programs: ``constructions/crasp/programs.py``; oracles:
``constructions/crasp/oracles.py``; checks: ``verify/tests/huang2024/test_crasp_*.py``; choices where the restored
reference is UNCERTAIN: ``docs/crasp.md``; gaps: ``docs/gaps.md``.

Status convention here: ``verified`` for definitions implemented and cross-checked by two independent
implementations, and for facts checked on every instance (a finite family); ``verified-numerically`` for
claims backed by tests that are not proofs for all lengths or all programs: expressibility claims whose
program agrees with an independent oracle on every word up to the exhaustive length and on random words
up to length 2000, and Lemma 37, whose inductive proof we execute as an algorithm and test on random
programs; ``unchecked`` for statements resting on results we do not
re-prove (Krebs 2008, Tesson-Therien 2002) or constructions not implemented.
"""

from verify.claims import register

_T = "verify/tests/huang2024"
_EX = ("program agrees with an independent oracle on all words up to length 12 (binary alphabets) / 8 "
       "(3-5 symbols) / 11 (BMI), and on Hypothesis-generated words up to length 2000 "
       f"({_T}/test_crasp_benchmark.py); mutated programs are rejected by the same comparison")

# ------------------------------------------------------------------------------------ definition 8
register("huang2024:def8", "Definition 8 (C-RASP, C-RASP[Phi, Psi], C-RASP[periodic, local])",
         "Straight-line programs of Initial, Not, And, Boolean constant, Positional phi(i), Comparison C1 <= C2 (Boolean) "
    "and Counting #[j <= i, psi(i,j)] P(j), Conditional, Addition, Subtraction, constant (Count); accept iff the "
    "output is true at the last position; [periodic, local]: every phi periodic, every psi local and "
    "translation-invariant.",
         strength="bounded-instances",
         evidence="implemented by constructions.crasp (ast.py: typed AST rejecting sort errors, non-periodic phi, non-local psi; "
    "interpreter.py: vectorized exact semantics); an independently written per-position reference interpreter "
    f"(reference.py) agrees on Hypothesis-generated well-typed programs and words ({_T}/test_crasp_interpreter.py); "
    "negative control: a deliberately wrong semantics (strict Counting j < i) is caught by the same comparison. "
    "Empty word: outside the definition, rejected with InputError (docs/crasp.md).",
         leaves_out="Hypothesis-generated well-typed programs and words")
register("huang2024:def8.example", "Section 4.2 example program after Definition 8",
         "An example C-RASP program recognising a small language (language and program lost in the text copy).",
         strength="unchecked",
         evidence="UNRECOVERED in the reference (section 3.3); docs/crasp.md uses a*b* as our own illustration instead.")

# -------------------------------------------------------------------------------------- Theorem 10
register("huang2024:thm10", "Theorem 10",
         "MAJORITY, DYCK-1 and a third counter language (most likely a^n b^n c^n; possibly a^n b^n) are definable in "
    "C-RASP without positional relations.",
         strength="as-stated",
         evidence="for every word (verify/huang/counter_languages.py, z3): the programs majority, dyck1, anbn and anbncn "
    "(all fragment C-RASP, no positional relation; checked structurally to be the programs the proof reads) decide "
    "their languages at the last position, the prefix conditions by induction over positions (no negative depth for "
    "DYCK-1; a*b* and a*b*c* by their recursive definitions), then the final counts; the third language is UNCERTAIN "
    "in the reference and both readings are proved; controls: ties lost in MAJORITY, depth 0 counted as bad, a "
    "misplaced Bad for a*b*, a*b*c* without its b-before-c condition. Also " + _EX + ".")

# -------------------------------------------------------------------------------- Lemma 11 / 29
register("huang2024:lem11", "Lemma 11",
         "Over {a,b,e}: PARITY not in C-RASP[periodic,local]; (aa)* not in C-RASP but in C-RASP[periodic,local]; "
    "Sigma* b e* not in C-RASP[periodic,local]; every piecewise testable language is in C-RASP.",
         strength="proof-script-only", covers="bounded-instances",
         evidence="items (1), (2), (4) as huang2024:lem11.parity, .aa-star, .piecewise; item (3) as "
         "huang2024:lem11.flipflop (the Lemma 36 reduction, with Lemma 35 cited); its own linked check is that "
         "reduction (verify/huang/reductions.py), which runs no library code",
         leaves_out="item 3 (Sigma* b e*) rests on Lemma 35 (Krebs 2008), cited: only the reduction of Lemma 36 is "
                    "checked (huang2024:lem36); items 1, 2, 4 as their own claims")
register("huang2024:lem11.parity", "Lemma 11 (1) / Lemma 41",
         "PARITY is not in C-RASP[periodic, local].",
         strength="as-stated",
         evidence="as huang2024:lem41 (the same statement, the same checks).")
register("huang2024:lem11.aa-star", "Lemma 11 (2) / Lemma 38 / App. C.2.3",
         "(aa)* is not in C-RASP, but it is in C-RASP[periodic].",
         strength="as-stated",
         evidence="positive, for every word: the benchmark program aa_star is exactly C_b := #[j <= i] Q_b(j); L := C_b "
    "<= 0 and (i mod 2) in {0} (checked structurally), and z3 proves its answer at the last position equals "
    "membership in (aa)* for every length n >= 1 and number of b's (verify/huang/lemma37.py::mod_star_program; the "
    "interpreter takes nonempty words; control: residue 1 instead of 0); the reading agrees with the interpreter on "
    "every word of length <= 6; also " + _EX + ". Negative, for every program: Lemma 38 with m = 2 from Lemma 37, "
    "both as-stated (huang2024:lem37, huang2024:lem38; a program over {a, b} is run on a^n, where Q_b is constant). "
    f"Also the Lemma 37 tool's certificate ({_T}/test_crasp_unary.py).")
register("huang2024:lem11.flipflop", "Lemma 11 (3) / Lemma 36",
         "Sigma* b e* is not in C-RASP[periodic, local].",
         strength="proof-script-only", covers="bounded-instances",
         evidence="Lemma 36's reduction "
         "(verify/tests/huang2024/test_crasp_benchmark.py::test_lemma36_reduction_to_the_lemma35_language): a "
         "program F for Sigma* b e* would give L(i) := E[j <= i](Q_b(j) and E[k <= j, k = j - 1] F(k)), which "
         "decides Sigma* b e* b Sigma*, the language Lemma 35 excludes (Krebs 2008)",
         leaves_out="Lemma 35 (Krebs 2008, Lemma 6.11) is cited: only Lemma 36's reduction is checked, on every "
                    "word of length <= 9 over {a, b, e}, with the oracle of Sigma* b e* in place of the program F")
register("huang2024:lem11.piecewise", "Lemma 11 (4) / App. C.1.5",
         "Every piecewise testable language is in C-RASP.",
         strength="as-stated",
         evidence="for every pattern, alphabet, word and position (verify/huang/piecewise.py, z3): the program S_1 := "
    "E[j<=i] Q_{a_1}, Prev_m := 2 <= #S_{m-1}, S_m := E[j<=i](Q_{a_m} & Prev_m) satisfies the recurrence of 'a_1..a_m "
    "is a subsequence of w_1..w_i' (E's recurrence, 2 <= #S iff S(i - 1) for a non-decreasing S, the level step, "
    "induction over positions inside an induction over m), so it decides the subsequence test; Boolean combinations "
    "(the piecewise testable languages, Simon) use And and Not; controls: 1 <= #S for 2 <= #S, the count lemma "
    "without monotonicity, the level step reading S_{m-1}(i). constructions.crasp.programs.subsequence_defs builds "
    "exactly that program (checked structurally for every pattern of length <= 4 over {a,b,c}); also every such "
    f"pattern on all words up to length 7 ({_T}/test_crasp_benchmark.py), plus pt_aba, pt_bca and pt_ab_not_ba as "
    "benchmarks (" + _EX + ").")
register("huang2024:lem29", "Lemma 29 (restatement of Lemma 11)",
         "Same as Lemma 11.",
         strength="proof-script-only", covers="bounded-instances",
         evidence="the checks of huang2024:lem11 (Lemma 36's reduction in verify/huang/reductions.py, no library code)",
         leaves_out="as huang2024:lem11")

# ------------------------------------------------------------------------- App. C.3 machinery
register("huang2024:def30", "Definition 30 (MAJ2[<, +1, MOD])",
         "Two-variable first-order logic with majority quantifier, letter predicates, <, +1 and MOD predicates.",
         strength="bounded-instances",
         evidence="constructions/crasp/maj2.py: MAJ_2[<, +1, MOD] formulas and an exact evaluator; each quantifier and "
         "predicate agrees with a direct definition on every short word; the non-strict 'at least half' is told "
         "apart; malformed formulas refused (verify/tests/huang2024/test_maj2.py)",
         leaves_out="the formulas checked (majority, Sigma* b e*, 'contains ab' with +1, a MOD formula) on every "
                    "word of length <= 8 (<= 6 over three letters)")
register("huang2024:prop31", "Proposition 31",
         "C-RASP[periodic, local] is contained in MAJ2[<, +1, MOD].",
         strength="bounded-instances",
         evidence="on instances: five languages of C-RASP[periodic, local] programs (MAJORITY, (aa)*, (abab)*, "
         "Tomita 4, 0*1*0*1* by its C-RASP[local] program) each have a MAJ_2[<, +1, MOD] sentence written by hand "
         "that accepts exactly the program's words (interpreter of constructions.crasp against the evaluator of "
         "constructions/crasp/maj2.py, every word of length 1..10; control: a strict-majority sentence is told apart "
         "from MAJORITY); verify/tests/huang2024/test_maj2.py::test_prop31_*",
         leaves_out="the translation itself (comparisons of sums of counts into single majority quantifiers, Krebs "
                    "2008) is only sketched in the paper and not built, so no program outside the five is covered; "
                    "the five sentences are checked on every word of length <= 10, not proved for every length")
register("huang2024:rem32", "Remark 32",
         "C-RASP is contained in MAJ2[<] (strictly).",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_maj2.py::test_strictness_witness_is_in_maj2_lt: a two-variable sentence "
         "without majority defines Sigma* b e*, which Lemma 36 excludes from C-RASP[periodic, local] "
         "(huang2024:lem36)",
         leaves_out="the inclusion C-RASP subset MAJ_2[<] is not checked (the translation of comparisons of count "
                    "sums into majority quantifiers is only sketched); checked: the strictness witness Sigma* b e* "
                    "has a MAJ_2[<] sentence (every word of length <= 7), and it is not in C-RASP by Lemma 36, "
                    "whose Lemma 35 is cited")
register("huang2024:def33", "Definition 33 (padding morphism)",
         "Morphism inserting blocks of a neutral letter e.",
         strength="unchecked",
         evidence="the exact padding morphism is UNCERTAIN in the reference (block sizes and placement of the neutral "
         "letter e are not recovered); a definition we would have to invent has nothing of the paper's to check")
register("huang2024:lem34", "Lemma 34",
         "Padding removes the +1 and MOD predicates from MAJ2[<,+1,MOD] formulas.",
         strength="unchecked",
         evidence="the statement is UNCERTAIN in the reference and the formula transformation is not given (only that it "
         "uses the lcm of the moduli and the +1 nesting depth, with windows of w stored 'vertically'); no "
         "construction to execute")
register("huang2024:lem35", "Lemma 35",
         "A language over {a,b,e} (reconstructed: Sigma* b e* b Sigma*) is not in "
         "MAJ2[<, +1, MOD].",
         strength="unchecked",
         evidence="cites Krebs (2008) Lemma 6.11; witness language UNCERTAIN")
register("huang2024:lem36", "Lemma 36",
         "Sigma* b e* (= benchmark #17 {0,1,2}*02* up to renaming) is not in "
         "C-RASP[periodic, local].",
         strength="bounded-instances",
         evidence="verify/tests/huang2024/test_crasp_benchmark.py::test_lemma36_reduction_to_the_lemma35_language (control: "
         "an F that does not skip e's misses 'beb'); the renaming to benchmark #17: "
         "test_zero_two_star_is_flipflop_renamed",
         leaves_out="Lemma 35 (Krebs 2008) is cited; the reduction is checked on every word of length <= 9 over "
                    "{a, b, e} with the oracle of Sigma* b e* standing in for F; the language of Lemma 35 is our "
                    "reconstruction (UNCERTAIN)")
register("huang2024:lem37", "Lemma 37",
         "Over a unary alphabet every C-RASP program eventually accepts all a^n or eventually rejects all (counts are "
    "eventually affine in n, comparisons eventually constant).",
         strength="as-stated",
         evidence="for every program, by structural induction (verify/huang/lemma37.py, z3 over the integers): one step "
    "per operation of Definition 8 (Initial, constants, Not, And, Addition, Subtraction, Conditional, Counting with "
    "its base and step, and with a local psi, Comparison in its three slope cases) gives the operation's threshold "
    "and eventual constant / affine form from its operands', for every position, threshold, slope and intercept; the "
    "test checks that the steps cover exactly the operations of constructions.crasp.ast other than Positional, whose "
    "step is refuted ([i = 0 mod 2] differs at 2T and 2T + 1: the control), and every step has a rejected control "
    "(a threshold min instead of max, a wrong slope, the count's threshold without tau, ...). Also the induction "
    "executed as an algorithm (constructions/crasp/unary.py, on u a^n v for any prefix u and suffix v) and compared "
    f"with the interpreter at every position up to threshold + 40 for Hypothesis-generated programs ({_T}/"
    "test_crasp_unary.py); negative control: Positional phi is rejected, and the C-RASP[periodic] program aa_star "
    "does alternate on a^n.")
register("huang2024:lem38", "Lemma 38",
         "(aa)* (and 'length = 0 mod m') is not in C-RASP.",
         strength="as-stated",
         evidence="for every m >= 2 (verify/huang/lemma37.py, z3): by Lemma 37 (as-stated) a program answers some beta "
    "on every a^n with n >= T, but a^(mT) is in the language and a^(mT + 1) is not, both beyond T; control: m = 1 "
    "(every word) gives no contradiction. Also the certificate function constructions.crasp.unary."
    f"not_eventually_constant checks that membership of a^n alternates ({_T}/test_crasp_unary.py).")
register("huang2024:prop39", "Proposition 39",
         "#[j <= i - c] P(j) is definable with local relations.",
         strength="as-stated",
         evidence="for every c >= 0, predicate P, word and position (verify/huang/prop39.py, z3 over the integers): "
    "#[j <= i] P - #[j <= i, i - j in 0..c-1] P = #[j <= i - c] P by induction on c (base and step, the count of P "
    "below position 1 being 0; control: the local count taking P before the word start), and "
    "constructions.crasp.ast.count_upto_minus builds exactly that difference (checked structurally); also the "
    f"reference interpreter on Hypothesis-generated predicates and words ({_T}/test_crasp_interpreter.py).")
register("huang2024:lem40", "Lemma 40",
         "Block encoding turns a C-RASP[periodic,local] program into a C-RASP program "
         "over length-k blocks.",
         strength="numerical",
         evidence="the block program itself is not built; the consequence Lemma 41 uses is executed instead (so this status "
         "stays unchecked for the statement as such): "
         "constructions.crasp.unary.eventual_periodic runs the per-residue-class induction on u v v v ... with |v| a "
         "multiple of the period (every Boolean eventually periodic, every Count a[rho] (i // L) + b[rho]) and is "
         f"compared with the interpreter at every position on Hypothesis-generated programs ({_T}/test_crasp_unary.py).",
         leaves_out="the block program itself is not built: its consequence used by Lemma 41 (every Boolean "
                    "eventually periodic, every Count a[rho] (i // L) + b[rho] on u v v v ...) is executed and "
                    "compared with the interpreter on random programs")
register("huang2024:lem41", "Lemma 41",
         "PARITY is not in C-RASP[periodic, local].",
         strength="as-stated",
         evidence="for every program, period, locality and block length, by structural induction over the program (verify/huang/lemma41.py, z3 over the integers): on u v v v ... with |v| = L a multiple of the period, every Boolean is eventually L-periodic and every Count has eventually L-periodic increments (one step per operation of Definition 8, Positional and local psi included, the steps checked to cover the grammar; comparisons settle per residue from |C_2 - C_1| + 1 periods on), so the answer on v^n is constant beyond a threshold; PARITY takes both values on "
         "(0^(k-1) 1)^n at n = 2N and 2N + 1 beyond every threshold, for every k (controls: the block 0^k keeps PARITY "
         "constant, a period not dividing L breaks the Positional step, a local count read from T instead of T + tau). "
         "Also eventual_periodic executed against the interpreter on random programs and periodic_certificate for "
         "k <= 16 (negative controls: (aa)*, (abab)*, Tomita 4, MAJORITY get no certificate; a block length that is "
         f"not a multiple of the period is refused; {_T}/test_crasp_unary.py).")
register("huang2024:lem42", "Lemma 42",
         "C-RASP[periodic,local] is closed under inverse images of length-uniform "
         "morphisms.",
         strength="numerical",
         evidence="the construction is executed (constructions/crasp/morphism.py: block position (i-1)k+r simulated by k copies "
         "of every operation; plain counts via Conditionals, local counts via block offsets, phi re-based) and P' "
         "accepts w iff P accepts h(w) on Hypothesis-generated programs (all operation kinds), morphisms with k <= 3 "
         f"and words, and exhaustively for three benchmark programs ({_T}/test_crasp_morphism.py); negative control: dropping "
         "the in-block correction of Counting is caught. By-product: plain C-RASP maps to plain C-RASP.",
         leaves_out="Hypothesis programs, morphisms with k <= 3, and three benchmark programs exhaustively")

# --------------------------------------------------------------------------- induction head, App. C.2
register("huang2024:eq10", "Equation (10) (induction-head target) and App. C.2.1-C.2.2",
         "f(x)_a = #{k < N : x_k = x_N, x_{k+1} = a} / #{k < N : x_k = x_N}; NEXT_a (a in argmax f, resp. f_a > 0) is in "
    "C-RASP[local] via bigram counts with the predecessor relation.",
         strength="as-stated",
         evidence="for every alphabet, word and symbol (verify/huang/induction_head.py, z3): Pre_s = prev(Q_s) holds "
    "iff x_(j-1) = s, B_st counts the bigrams st before N (induction over positions), the OR over the alphabet "
    "picks s = x_N (induction over its symbols), so NEXT_a decides n_a > 0 (support) and n_t <= n_a for every t "
    "(argmax; ties, 0/0 included, accept every maximiser); the benchmark programs induction_next_a and "
    "induction_argmax_a are checked structurally to be the programs the proof reads; controls: Pre at offset 0, "
    "the bigram step without the new bigram, Q_s for a symbol other than x_N, the support with 2 <= B. Also "
    + _EX + ". Copy (unique) uses the same NEXT predicates (program copy_unique).")
register("huang2024:app-c2.2", "App. C.2.2 (positional relations are necessary for the induction head)",
         "NEXT is in C-RASP[local] but not in C-RASP.",
         strength="numerical",
         evidence="the positive half: programs induction_next_a / induction_argmax_a against their oracles "
         "(verify/tests/huang2024/test_crasp_benchmark.py); the negative half cites Krebs (2008) and is not "
         "re-proved",
         leaves_out="the negative half (NEXT is not in C-RASP) rests on Krebs (2008, Lemma 6.11), not re-proved; "
                    "checked: the positive half (huang2024:eq10's programs against their oracles) and the "
                    "reduction's first step ('contains ab' over {a,b} is a subsequence test: "
                    "huang2024:lem11.piecewise)")

# ------------------------------------------------------------------------------------ tables, figure
register("huang2024:tab1", "Table 1 (the benchmark's regular languages)",
         "Tomita 1-7, D_n = (a D_{n-1} b)*, PARITY, (aa)*, (aaaa)*, (abab)*, aa*bb*cc*dd*ee*, {a,b}*d{b,c}*, {0,1,2}*02*.",
         strength="bounded-instances",
         evidence="oracles implemented in constructions/crasp/oracles.py; D_n as a depth scan is cross-checked exhaustively with "
    f"the grammar D_n = (a D_(n-1) b)* ({_T}/test_crasp_benchmark.py). Tomita 7 is printed 0*1*0*1 in our text copy; we use "
    "the standard 0*1*0*1* (docs/gaps.md).",
         leaves_out="the oracles cross-checked exhaustively up to the test's lengths; Tomita 7 read as 0*1*0*1*")
register("huang2024:tab2", "Table 2 (expressibility of the regular languages)",
         "Programs exist for 13 languages (Tomita 1, 2, 4, 7; D_2, D_3, D_4, D_12; (aa)*, (aaaa)*, (abab)*; "
    "aa*bb*cc*dd*ee*; {a,b}*d{b,c}*), in plain C-RASP for all but Tomita 4, (aa)*, (aaaa)*, (abab)*.",
         strength="numerical",
         evidence="one program per language; the plain-C-RASP ones are asserted to use no positional relation; " + _EX + ".",
         leaves_out="words up to length 12 (binary) / 8 (3-5 symbols) / 11 (BMI) exhaustively and Hypothesis words "
                    "up to length 2000; not a proof for all lengths")
register("huang2024:tab2.no-crasp", "Table 2, C-RASP column 'no' for languages with a periodic/local program",
         "Tomita 4, (aa)*, (aaaa)*, (abab)* are not in C-RASP.",
         strength="numerical",
         evidence="(aa)* and (aaaa)* are certified (even against C-RASP[local]) by the Lemma 37 tool; Tomita 4 and (abab)* rest on "
    "Krebs (2008) and are not re-proved (the Lemma 37/41 tools give no certificate for them, as expected: they are "
    "eventually constant on every u a^n and v^n).",
         leaves_out="Tomita 4 and (abab)* rest on Krebs (2008) and are not checked; (aa)* and (aaaa)* are "
                    "certified by the Lemma 37 tool (even against C-RASP[local])")
register("huang2024:tab2.tomita3", "Table 2 row Tomita 3",
         "Tomita 3 is not in C-RASP[periodic, local].",
         strength="numerical",
         evidence="'not in C-RASP[local]' is certified by the Lemma 37 tool on 1 0^n; the periodic case rests on Krebs (2008) "
    "Thms 6.10/6.12 and Tesson-Therien (2002), not re-proved.",
         leaves_out="the periodic case rests on Krebs (2008) Thms 6.10 / 6.12 and Tesson-Therien (2002), not "
                    "checked; only 'not in C-RASP[local]' is certified by the Lemma 37 tool on 1 0^n")
register("huang2024:tab2.tomita5", "Table 2 row Tomita 5",
         "Tomita 5 is not in C-RASP[periodic, local].",
         strength="as-stated",
         evidence="for every program and block length k, as huang2024:lem41 (by structural induction over the program (verify/huang/lemma41.py, z3 over the integers): on u v v v ... with |v| = L a multiple of the period, every Boolean is eventually L-periodic and every Count has eventually L-periodic increments (one step per operation of Definition 8, Positional and local psi included, the steps checked to cover the grammar; comparisons settle per residue from |C_2 - C_1| + 1 periods on), so the answer on v^n is constant beyond a threshold): Tomita 5 takes both values on "
    "(0^(k-1) 1)^n at n = 2N and 2N + 1 (control: 2N + 2); also "
    f"{_T}/test_crasp_unary.py::test_periodic_certificates for k <= 16.")
register("huang2024:tab2.tomita6", "Table 2 row Tomita 6",
         "Tomita 6 is not in C-RASP[periodic, local].",
         strength="as-stated",
         evidence="for every program and block length k, as huang2024:lem41 (by structural induction over the program (verify/huang/lemma41.py, z3 over the integers): on u v v v ... with |v| = L a multiple of the period, every Boolean is eventually L-periodic and every Count has eventually L-periodic increments (one step per operation of Definition 8, Positional and local psi included, the steps checked to cover the grammar; comparisons settle per residue from |C_2 - C_1| + 1 periods on), so the answer on v^n is constant beyond a threshold): Tomita 6 takes both values at n = "
    "3N and 3N + 1 on (0^(k-1) 1)^n, or on (0^k)^n when k = 2 mod 3 (control: the first block at k = 2 mod 3, where it "
    "is constant); also the certificates for k <= 16 and the paper's route (morphism 0 -> 10, 1 -> 00 and Lemma 42) "
    f"({_T}/test_crasp_unary.py::test_periodic_certificates, {_T}/test_crasp_morphism.py).")
register("huang2024:tab3", "Table 3 (expressibility of the algorithmic tasks)",
         "Binary Majority, Majority and Sort are in C-RASP; Copy (unique) is in C-RASP[local]; Binary Majority "
    "Interleave is in C-RASP[periodic].",
         strength="numerical",
         evidence="tasks phrased as transcript languages 'input # output' (docs/crasp.md); programs binary_majority, "
    "majority_letters (3 letters), sort (numbers 1-3, so every transcript is checked exhaustively), copy_unique "
    "(3 letters), binary_majority_interleave; " + _EX + ".",
         leaves_out="words up to length 12 (binary) / 8 (3-5 symbols) / 11 (BMI) exhaustively and Hypothesis words "
                    "up to length 2000; not a proof for all lengths")
register("huang2024:tab3.no-crasp", "Table 3, C-RASP column 'no' for Copy (unique) and 'none found' for BMI",
         "Copy (unique) is not in C-RASP; no C-RASP program for Binary Majority Interleave was found.",
         strength="numerical",
         evidence="Copy (unique) rests on the App. C.2.2 argument (Krebs 2008), not re-proved. For BMI phrased as a transcript "
    "language we go further than 'none found': 1^n #111 is a member iff n = 0 mod 3, and the Lemma 37 tool extended "
    "to u a^n v shows every C-RASP[local] program is eventually constant on that family, so no C-RASP[local] program "
    f"exists for the transcript language ({_T}/test_crasp_unary.py::test_bmi_transcript_not_in_crasp_local).",
         leaves_out="Copy (unique) not in C-RASP rests on the App. C.2.2 argument (Krebs 2008), not checked; "
                    "checked: no C-RASP[local] program exists for the BMI transcript language (stronger than 'none "
                    "found')")
register("huang2024:tab3.copy-repeat", "Table 3 row Copy (repeat)",
         "Copy with repeats is not in C-RASP[periodic, local].",
         strength="gap",
         evidence="rests on Corollary 13 (huang2024:cor13, a gap): the copying fooling set is verified "
         "(huang2024:cor13.fooling, "
         "verify/tests/huang2024/test_communication.py::test_fooling_sets_of_addition_multiplication_and_dyck2); "
         "the O(log N) protocol half is Theorem 12's exact-activation reading, refuted (docs/gaps.md)")
register("huang2024:tab3.addition", "Table 3 row Addition",
         "Binary addition is not in C-RASP[periodic, local].",
         strength="gap",
         evidence="reduction from copying with y = 0: addition needs 2^(N-1) distinct messages "
         "(verify/tests/huang2024/test_communication.py::test_fooling_sets_of_addition_multiplication_and_dyck2); "
         "as huang2024:cor13 the O(log N) half rests on Theorem 12 (gap, docs/gaps.md)")
register("huang2024:fig1", "Figure 1 (reported accuracies)",
         "APE transformers length-generalize where a C-RASP[periodic,local] program exists and NoPE where a C-RASP program "
    "exists; they fail otherwise.",
         strength="unchecked",
         evidence="docs/crasp.md puts each task's certificate next to the reported accuracies (reference section 5.6). "
    "python -m bounds.experiments.reproduce huang2024 --figure 1 trains APE/NoPE GPT-2 models with the prediction per cell "
    "from the certificates; its CPU quick preset (7 tasks, 2-layer d = 64, 300 steps, lr 1e-2, 3 seeds; "
    "docs/results/huang2024-fig1-quick.json): 3 of 3 judged cells agree (Binary Majority APE/NoPE and (aa)* APE "
    "generalize as predicted; (aa)* NoPE never fits), the other 11 cells never fit in distribution; with lr 1e-3 "
    "2 of 4 agree (D_2 fits but drops to 36-50% on [101,150] against a predicted success); too small to support "
    "or refute the figure. The cpu preset (2-layer d = 64 by default, 4 layers for Tomita 4, 1 layer d = 128 for "
    "Majority, 4 layers, 4 heads, d = 128 for Parity NoPE with App. E.3's stop at 100% in-distribution accuracy, "
    "1000-7000 steps per cell, 2 seeds; docs/results/huang2024-fig1-cpu.json): 9 of 14 cells have a trained "
    "seed and 6 of the 9 judged agree, judged on trained seeds only (Binary Majority APE/NoPE, Majority APE/NoPE and D_2 "
    "NoPE generalize as predicted, Tomita 4 NoPE fits and fails beyond 50 as predicted; D_2 APE, (aa)* APE and Tomita 4 APE fail on "
    "[101,150] against a predicted success); (aa)* NoPE, Tomita 5 and "
    "Parity never fit, so the figure is still not tested "
    "(huang2024/test_fig1_reproduction.py, docs/reproduce_trained.md)")
