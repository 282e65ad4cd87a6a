"""Mutations that the linked checks of verified claims must reject (run them: ``python -m verify.mutate``).

Each edit breaks one thing a claim depends on: a hypothesis of a proof step, a constant of a bound, a rounding
rule, a validation, a slope of Lemma 37's eventual forms, or a committed data record.  A claim whose checks
catch none of its mutations shows ``passing``, never ``verified*`` (:mod:`verify.status`).

Measured (2026-11-27, 2 shared cores, at ``nice 10``, 1-minute load average 4.5 at the start and at the end and
between 4.3 and 5.5 when sampled each minute, from other engineers' jobs): ``time python -m verify.mutate`` ran all 155 mutations in 13 min 45 s
wall (824 s of the runner: collecting the tests, the baseline of 473 checks in 265 s, then 540 s for the 155
mutations, 2.3 s each on median): 155 caught, none survived, no error.  The slowest: izzo-fig2-plateau-mean-corrupted
(50 s; its checks re-derive every threshold from the stored sweep), huang-inference-ladder-family-unchecked (35 s)
and huang-inference-heaviside-at-zero (19 s); every other one under 14 s.  What made it fast: each mutation's pytest
is forked from a server that imported pytest, numpy, sympy, scipy, z3 and Hypothesis once (verify/forkserver.py;
about 2 s of imports per run saved), and a run stops once every claim of the mutation has a failed check, skipping
checks that serve only claims already caught (verify/mutation_stop.py), so a caught mutation runs its checks only up
to the first failure per claim.  Same-run comparison (load 3.3-4.2, eight mutations of the four papers:
ahuja-thm4-drop-T-ge-1, ahuja-eq36-wrong-conjugation, ahuja-lem15-recursion-drops-S2, golowich-eq10-drop-2,
huang-faq7-periodic-pair-early, huang-maj2-at-least-half, izzo-eq1-loosened-constant, izzo-lower-bump-off-by-one, run
by the previous runner from a checkout of the code before and by this one, back to back): 43.4 s against 19.7 s for the
eight mutations (2.2 times faster), 71 s against 51 s in all with test collection and baseline.

Before (2026-11-26, same machine, under load 8.1 falling to 4.4, one plain pytest subprocess per mutation running
every required check): ``time python -m verify.mutate`` ran all 143 mutations in 2503 s (41.7 min; the baseline of 445 checks alone
took 557 s): 139 caught, 2 survived, 2 errors.  Of those four: izzo-flush-strict rests on Hypothesis drawing a
boundary case and was caught when rerun; huang-morphism-in-block-correction and huang-inference-ignores-training-
length (which made a sweep enumerate 2^18 training words and timed out) were replaced by huang-morphism-local-offset
and huang-inference-longer-training-allowed; ahuja-lem16-drop-alpha-distinct's text had become ambiguous and was
made unique again.  The five reruns: all caught (144 s, load 3.9).  Since the runner runs each mutation's checks in
one pytest process and judges every claim on its own checks' recorded outcomes, a mutation costs one process start
however many claims it names; the time is dominated by the machine's load (the same run took 871 s for 84
mutations at load 5-8 with the earlier one-process-per-claim runner, 142 s at a lower load).  Mutation runs load
the ``mutation`` Hypothesis profile, which skips shrinking (a caught mutation needs only the first failure).  The six
mutations that survived an earlier run showed slack checks and
are caught since: the eq. (7)-(10) bounds of golowich2025:thm4.3 held on instances with the factor L, eta_L or 2
dropped, now the nearly tight ``verify.golowich.thm43.edge_instance`` exceeds each bound without its factor;
golowich2025:def4.1's checker was never exercised at item 1's locality boundary, now
``verify.golowich.coupling.gap_coupling`` puts span psi(S*) exactly at L_local (accepted) and one past it
(rejected); huang2024:eq2's checks compared only the Theorem 12 protocol with the exact evaluator, which share the
content-logit code, now verify/tests/huang2024/test_attention_logit.py re-implements eq. (2) independently on
instances where K^T Q is not symmetric.
"""

from verify.mutate import mutation

# ------------------------------------------------------------------------------------------- ahuja2024
mutation("ahuja-thm4-drop-T-ge-1", "ahuja2024:thm4", "verify/ahuja/deepsets_slp.py",
         "[T >= 1, T * C == 0], C == 0,", "[T >= 0, T * C == 0], C == 0,",
         "dropped hypothesis: step (10) without T >= 1 (T = 0 allows C != 0)")
mutation("ahuja-thm9-drop-sigmoid-positive", "ahuja2024:thm9", "verify/ahuja/rnn.py",
         "[0 < S, S < 1, vi != 0, S * (1 - S) * vi == 0], z3.BoolVal(False),",
         "[S < 1, vi != 0, S * (1 - S) * vi == 0], z3.BoolVal(False),",
         "dropped hypothesis: step (32) without 0 < sigma (S = 0 makes sigma' vanish)")

mutation("ahuja-eq4-sigmoid-monotone-only", "ahuja2024:eq4", "verify/ahuja/deepsets_slp.py",
         "[Ea > 0, Eb > 0, 1 / (1 + Ea) == 1 / (1 + Eb)], Ea == Eb,",
         "[Ea > 0, Eb > 0, 1 / (1 + Ea) <= 1 / (1 + Eb)], Ea == Eb,",
         "weakened hypothesis: step (4) from an inequality of sigmoids instead of their equality")
mutation("ahuja-eq10-length-zero", "ahuja2024:eq10", "verify/ahuja/deepsets_slp.py",
         "lambda: [1, 2], lambda t: _sum_identity_nullity(t) == 0,",
         "lambda: [0, 1, 2], lambda t: _sum_identity_nullity(t) == 0,",
         "dropped hypothesis: the polynomial form of (10) also at T = 0 (nothing is forced)")
mutation("ahuja-asm1-head-mismatched", "ahuja2024:asm1", "verify/ahuja/deepsets_slp.py",
         "A = B * M                                      # learned head",
         "A = B * M.T                                    # learned head",
         "the A1 instance's head A = B M^T does not undo the feature map psi = M^{-1} phi")
mutation("ahuja-eq36-wrong-conjugation", "ahuja2024:eq36", "verify/ahuja/rnn.py",
         "P.T * (P * Lt * P.T) * P - Lt for P in perms", "P * (P * Lt * P.T) * P.T - Lt for P in perms",
         "step (36) undoes Pi Lambda~ Pi^T with Pi (.) Pi^T instead of Pi^T (.) Pi")
mutation("ahuja-lem15-recursion-drops-S2", "ahuja2024:lem15", "verify/ahuja/rnn.py",
         "polys.append(sympy.expand(sympy.diff(polys[-1], S) * (S - S**2)))",
         "polys.append(sympy.expand(sympy.diff(polys[-1], S) * S))",
         "Lemma 15's recursion P_{k+1} = P_k' sigma (1 - sigma) loses the factor (1 - sigma)")
mutation("ahuja-lem16-drop-alpha-distinct", "ahuja2024:lem16", "verify/ahuja/rnn.py",
         "[d != 0, d * aj == 0], aj == 0,", "[d * aj == 0], aj == 0,",
         "dropped hypothesis: Lemma 16's step without alpha != alpha~")
mutation("ahuja-asm10-singular-lambda", "ahuja2024:asm10", "verify/ahuja/rnn.py",
         'Lq = rat_matrix([["1/2", 0], ["1/3", "1/4"]])', 'Lq = rat_matrix([["1/2", 0], ["1/3", 0]])',
         "corrupted instance: the A10 instance's Lambda is singular")
mutation("ahuja-asm11-unbounded-mean", "ahuja2024:asm11", "verify/ahuja/covers.py",
         "[0 <= m, m <= 1], z3.Abs(th * m - th2 * m)", "[0 <= m], z3.Abs(th * m - th2 * m)",
         "dropped hypothesis: the A11 instance without |mean(x)| <= 1")
mutation("ahuja-thm12-cover-radius", "ahuja2024:thm12", "verify/ahuja/covers.py",
         "[L > 0, z3.Abs(d) <= eta, eta * L <= eps, z3.Abs(dh)", "[L > 0, z3.Abs(d) <= eta, eta * L <= 2 * eps, z3.Abs(dh)",
         "changed constant: Theorem 12's cover radius eta <= 2 eps / L instead of eps / L")
mutation("ahuja-eq42-drop-per-key-bound", "ahuja2024:eq42", "verify/ahuja/lipschitz.py",
         "bounded, z3.Sum(ds) / 4 <= Lpsi * dth,", "bounded[:4], z3.Sum(ds) / 4 <= Lpsi * dth,",
         "dropped hypothesis: (42)'s averaging step without ||dpsi_j|| <= L_psi ||dtheta_psi||")
mutation("ahuja-eq43-halved-term", "ahuja2024:eq43", "verify/ahuja/lipschitz.py",
         "z3.Abs(x1 - x3) <= z3.Abs(x1 - x2) + z3.Abs(x2 - x3), neg_goal",
         "z3.Abs(x1 - x3) <= z3.Abs(x1 - x2) + z3.Abs(x2 - x3) / 2, neg_goal",
         "changed constant: (43)'s triangle inequality with half of the second term")
mutation("ahuja-eq45-drop-rho-lt-1", "ahuja2024:eq45", "verify/ahuja/lipschitz.py",
         "[0 <= rho, rho < 1, al >= 0, dprev >= 0,", "[0 <= rho, al >= 0, dprev >= 0,",
         "dropped hypothesis: the induction (44)-(45) without rho < 1")
mutation("ahuja-eq92-drop-loss-lipschitz", "ahuja2024:eq92", "verify/ahuja/rademacher.py",
         "[Ll >= 0, dl <= Ll * dh, dh <= L * dth], dl <= Ll * L * dth,", "[dl <= Ll * dh, dh <= L * dth], dl <= Ll * L * dth,",
         "dropped hypothesis: (92) without L_l >= 0")
mutation("ahuja-eq93-drop-one-closeness", "ahuja2024:eq93", "verify/ahuja/rademacher.py",
         '"differ by <= eps (m T = 3, signs +-1)", close, lhs <= eps,',
         '"differ by <= eps (m T = 3, signs +-1)", close[:2], lhs <= eps,',
         "dropped hypothesis: (93) with the pointwise eps-closeness at one of the m T points missing")

mutation("ahuja-asm2-lambda-one", "ahuja2024:asm2", "verify/ahuja/lemma3.py",
         "[*in_box, 0 < lam, lam < 1], interior,", "[*in_box, 0 < lam, lam <= 1], interior,",
         "dropped strictness: A2's interior approximation with lambda = 1 allowed (boundary points stay)")
mutation("ahuja-asm5-wrong-derivative", "ahuja2024:asm5", "verify/ahuja/assumptions.py",
         "sympy.diff(psi, y), Sig(x * y) + x * y", "sympy.diff(psi, y), Sig(x * y) + y",
         "the A5 instance's derivative d psi/dy with the factor x dropped")
mutation("ahuja-asm6-omega-not-injective", "ahuja2024:asm6", "verify/ahuja/assumptions.py",
         "ident = lambda z: z  # noqa: E731", "ident = lambda z: z * z  # noqa: E731",
         "the A6 instance omega = id replaced by z^2 (not injective)")
mutation("ahuja-ssm-partial-sum-off-by-one", "ahuja2024:sec5.2-ssm", "verify/ahuja/lipschitz.py",
         "partial = sum(j * r ** (j - 1) for j in range(1, N + 1))", "partial = sum(j * r ** (j - 1) for j in range(1, N + 2))",
         "off-by-one: the SSM sum_{j<=N} j rho^(j-1) summed to N + 1")
mutation("ahuja-thm6-error-constant", "ahuja2024:thm6", "verify/ahuja/attention.py",
         "(d.subs({x: 1, y: 1}) + d.subs({x: 1, y: 0})) / 2, v / 2, neg_rhs=0",
         "(d.subs({x: 1, y: 1}) + d.subs({x: 1, y: 0})) / 2, v, neg_rhs=0",
         "changed constant: Theorem 6's length-2 pre-activation error v instead of v/2")
mutation("ahuja-asm9-repeated-data", "ahuja2024:asm9", "verify/ahuja/ssm.py",
         "lambda: [stacked_data(GOOD_DATA), stacked_data(_interior_data())]",
         "lambda: [stacked_data(REPEATED_DATA), stacked_data(_interior_data())]",
         "corrupted data: A9's rank clause checked on repeated sequences")
mutation("ahuja-asm18-dropped-column", "ahuja2024:asm18", "verify/ahuja/cot.py",
         "lambda: [(Z, 3), (H, 2)], lambda p: p[0].rank() == p[1],",
         "lambda: [(Z[:, :2], 3), (H, 2)], lambda p: p[0].rank() == p[1],",
         "corrupted data: A18's rank clause on [h_{t-1}; x_t] with a data column dropped")

mutation("ahuja-thm18-cot-drops-prefix", "ahuja2024:thm18", "verify/ahuja/cot.py",
         "cot = [ps[0] == fs[0], ps[0] + ps[1] == fs[0] + fs[1]]", "cot = [ps[0] == fs[0], ps[1] == fs[0] + fs[1]]",
         "Theorem 18's CoT target at i = 2 compared with psi(x_2) alone instead of the running sum")
mutation("ahuja-thm19-short-data", "ahuja2024:thm19", "verify/ahuja/cot.py",
         "lambda: [Z], lambda m: _nullity(m, 2) == 0,", "lambda: [ssm_cot_data(SHORT)], lambda m: _nullity(m, 2) == 0,",
         "dropped hypothesis: Theorem 19's identification step on rank-deficient (2-step) CoT data")
mutation("ahuja-thm20-too-few-states", "ahuja2024:thm20", "verify/ahuja/cot.py",
         "lambda: [(Z, 2), (H, 2)], lambda p: _nullity(p[0], p[1]) == 0,",
         "lambda: [(Z[:, :2], 2), (H, 2)], lambda p: _nullity(p[0], p[1]) == 0,",
         "dropped hypothesis: Theorem 20's identification step with two of the four [h; x] columns")

mutation("ahuja-asm3-witness-not-monotone", ("ahuja2024:asm3", "ahuja2024:asm16"), "verify/ahuja/cauchy.py",
         "[z > T], 1 + 3 * (z - T) ** 2 >= 1,", "[z > T], 1 - 3 * (z - T) ** 2 >= 1,",
         "the diffeomorphism of the A3 instance (and of the bounded-token witness) gets a' = 1 - 3 (z - T)^2")
mutation("ahuja-asm8-singular-C", "ahuja2024:asm8", "verify/ahuja/ssm.py",
         '"A8 instance: det Lambda, det B, det C != 0 (rational 2x2)", lambda: [LAM, B, C],',
         '"A8 instance: det Lambda, det B, det C != 0 (rational 2x2)", lambda: [LAM, B, rat_matrix([[1, 2], [2, 4]])],',
         "corrupted instance: the A8 learner's C is singular")
mutation("ahuja-eq16-wrong-pair", "ahuja2024:eq16", "verify/ahuja/cauchy.py",
         "i2 = V.add(psx, psy) == av(V.add(phx, phy))", "i2 = V.add(psx, psy) == av(V.add(phx, phx))",
         "the i = 2 equation of (15) read at (x, x) instead of (x, y)")
mutation("ahuja-eq25-power-off-by-one", "ahuja2024:eq25", "verify/ahuja/ssm.py",
         "Cn * Ln ** (i + 1) * Bn,", "Cn * Ln ** i * Bn,",
         "off-by-one: (25)'s induction step concludes Lambda^i instead of Lambda^(i+1)")
mutation("ahuja-eq63-drop-a0", "ahuja2024:eq63-65", "verify/ahuja/jensen.py",
         "s64 = [Jv(two(al), V.zero), a0,", "s64 = [Jv(two(al), V.zero),",
         "dropped hypothesis: (64) without a(0) = 0 (the affine a(z) = z + 1 is a counter-model)")
mutation("ahuja-eq85-drop-distinct-y", "ahuja2024:eq84-85", "verify/ahuja/discrete.py",
         "[(vv - 1) * (yy - ypp) == 0, yy != ypp], vv == 1,", "[(vv - 1) * (yy - ypp) == 0], vv == 1,",
         "dropped hypothesis: (85) without y_i != y'_i")
mutation("ahuja-lem11-shrink-keeps-size", "ahuja2024:lem11", "verify/ahuja/covers.py",
         "step_h = [s + c <= nA, s1 <= s - strict,", "step_h = [s + c <= nA, s1 <= s,",
         "Lemma 11's step without 'a strict subset is smaller'")
mutation("ahuja-lem3-witness-not-c1", "ahuja2024:lem3", "verify/ahuja/lemma3.py",
         "right = (y - 1) ** 2 * (y - 2)", "right = (y - 1) * (y - 2)",
         "the Lemma 3 witness glued at y = 1 only continuously, not C^1")
mutation("ahuja-sec41-ramp-off-by-one", ("ahuja2024:sec4.1-high-capacity", "ahuja2024:def1"),
         "counterexamples/capacity.py",
         "DeepSet(mlp_append_constant(f.phi), mlp_plus_ramp(f.rho, c, T, T + 1)",
         "DeepSet(mlp_append_constant(f.phi), mlp_plus_ramp(f.rho, c, T + 1, T + 2)",
         "off-by-one: the deep-set witness's ramp switches on at T + 2, not T + 1")
mutation("ahuja-sec44-counter-off-by-one", "ahuja2024:sec4.4-high-capacity", "counterexamples/capacity.py",
         "lo, hi = vals[T - 1], vals[T]", "lo, hi = vals[T - 2], vals[T - 1]",
         "off-by-one: the hard-sigmoid RNN witness ramps between s_(T-1) and s_T")
mutation("ahuja-thm10-judged-on-training-lengths", "ahuja2024:thm10", "counterexamples/capacity.py",
         "gen[T] = all(all(r == 0 for r in per[k]) for k in minimizers[T])",
         "gen[T] = all(all(r == 0 for r in per[k][:T]) for k in minimizers[T])",
         "Theorem 10's 'generalizes' judged on the training lengths only")
mutation("ahuja-thm10-threshold-ignores-new-member", ("ahuja2024:thm10", "ahuja2024:thm12"), "verify/ahuja/covers.py",
         "F_next = F(n + 1) == z3.If(F(n) >= first(n), F(n), first(n))", "F_next = F(n + 1) == F(n)",
         "the finite-class threshold not raised to the new member's first failing length")
mutation("ahuja-thm10-loss-may-be-negative", "ahuja2024:thm10", "verify/ahuja/covers.py",
         "step_h = [T >= 0, bound, R(h, T + 1) == R(h, T) + Rt(h, T + 1), Rt(h, T + 1) >= 0]",
         "step_h = [T >= 0, bound, R(h, T + 1) == R(h, T) + Rt(h, T + 1)]",
         "dropped hypothesis: Theorem 10's partial sums without the l2 loss's R~ >= 0")
mutation("ahuja-sec41-proof-ramp-shifted", "ahuja2024:sec4.1-high-capacity", "verify/ahuja/capacity.py",
         "return _relu(u - T) - _relu(u - T - width)", "return _relu(u - T - 1) - _relu(u - T - 1 - width)",
         "off-by-one: the universal witness's ramp switches on at T + 2")
mutation("ahuja-thm20-general-tokens-not-inverted", "ahuja2024:thm20", "verify/ahuja/cot.py",
         "inverse = {H * RH: 1, H * RX: 0, X * RH: 0, X * RX: 1}", "inverse = {H * RH: 1, H * RX: 0, X * RH: 0}",
         "dropped hypothesis: Theorem 20's right inverse without X R_X = I (tokens not of full rank)")
mutation("ahuja-thm13-general-tmax-strict", "ahuja2024:thm13", "verify/ahuja/attention.py",
         "z3.Implies(k >= Tm, D == 0)", "z3.Implies(k > Tm, D == 0)",
         "off-by-one: A12 read as psi_k = 0 only for k > T_max (the main-text convention) in the general proof")
mutation("ahuja-sec44-proof-counter-flat", "ahuja2024:sec4.4-high-capacity", "verify/ahuja/capacity.py",
         "step_h = [a > 0, sn > s,", "step_h = [a >= 0, sn > s,",
         "weakened hypothesis: the RNN counter's step with a >= 0 (a = 0 keeps the counter at 1/2)")
mutation("ahuja-thm13-lag-beyond-tmax", "ahuja2024:thm13", "verify/ahuja/attention.py",
         "[lag[0] == 0, lag[1] == 0, lag[2] == 0, lag[3] == 0, lag[4] == 0], z3.Sum(lag) == 0,",
         "[lag[0] == 0, lag[1] == 0, lag[2] == 0, lag[3] == 0], z3.Sum(lag) == 0,",
         "dropped hypothesis: (58)-(59) without psi_4 = 0 (a lag >= T_max)")
mutation("ahuja-thm8-repeated-data", "ahuja2024:thm8", "verify/ahuja/ssm.py",
         "lambda: [stacked_data(GOOD_DATA)], lambda X: _injectivity_nullity(X) == 0,",
         "lambda: [stacked_data(REPEATED_DATA)], lambda X: _injectivity_nullity(X) == 0,",
         "dropped hypothesis: (23) on rank-deficient stacked data")
mutation("ahuja-asm12-lag-at-tmax", "ahuja2024:asm12", "verify/ahuja/attention.py",
         "psi = {0: x * y, 1: x + y, 2: y**2}", "psi = {0: x * y, 1: x + y, 2: y**2, 3: x}",
         "the A12 instance keeps a non-zero score at lag T_max")
mutation("ahuja-eq44-drop-hsup", "ahuja2024:eq44", "verify/ahuja/lipschitz.py",
         "m1 <= nL * dprev, m2 <= dL * nh, nh <= hs, m3 <= dB * nx, nx <= xs],",
         "m1 <= nL * dprev, m2 <= dL * nh, m3 <= dB * nx, nx <= xs],",
         "dropped hypothesis: (44) without ||h'_(t-1)|| <= h_sup (perturbed parameters outside Theta)")
mutation("ahuja-eq42-any-t-drops-M", "ahuja2024:eq42", "verify/ahuja/lipschitz.py",
         "[*nonneg, K * K == Lw * Lw + Mw * Mw * Lp * Lp, Nn * Nn == a * a + b * b, dy <= Lw * a + Mw * m,",
         "[*nonneg, K * K == Lw * Lw + Lp * Lp, Nn * Nn == a * a + b * b, dy <= Lw * a + Mw * m,",
         "dropped term: the block constant sqrt(L_omega^2 + L_psi^2) without M_omega")
mutation("ahuja-ssm-any-N-drops-rho-lt-1", "ahuja2024:sec5.2-ssm", "verify/ahuja/lipschitz.py",
         "[0 <= rho, rho < 1, Nv >= 0, P >= 0], 1 - (Nv + 1) * P + Nv * rho * P <= 1,",
         "[0 <= rho, Nv >= 0, P >= 0], 1 - (Nv + 1) * P + Nv * rho * P <= 1,",
         "dropped hypothesis: the SSM sum bound without rho < 1")
mutation("ahuja-lem15-any-k-wrong-sign", "ahuja2024:lem15", "verify/ahuja/rnn.py",
         "sympy_step(c, \"step: -(k+1) (-1)^k k! = (-1)^(k+1) (k+1)! (symbolic k)\", -(k + 1) * lc(k), lc(k + 1),",
         "sympy_step(c, \"step: -(k+1) (-1)^k k! = (-1)^(k+1) (k+1)! (symbolic k)\", (k + 1) * lc(k), lc(k + 1),",
         "Lemma 15's leading-coefficient recursion loses the sign of -S^2")
mutation("ahuja-fig3-r2-corrupted", "ahuja2024:fig3", "docs/results/ahuja2024-table1-quick.json",
         "0.9998485228912646", "0.9498485228912646",
         "corrupted data record: a softmax-transformer seed's R^2 at t = 100 below 0.99")
mutation("ahuja-table3-long-train-length", ("ahuja2024:table3", "ahuja2024:fig4"),
         "docs/results/ahuja2024-table3-quick.json", '"train_len": 20', '"train_len": 15',
         "corrupted data record: the transformer trained 'long' on 15 instead of 2 T0 = 20")

# ---------------------------------------------------------------------------------------- golowich2025
mutation("golowich-eq8-drop-etaL", "golowich2025:thm4.3.eq8-9", "verify/golowich/thm43.py",
         'put("eq8", e8, etaL * L * delta)', 'put("eq8", e8, L * delta)',
         "changed constant: the bound of (8) without the factor eta_L")
mutation("golowich-eq8-drop-L", "golowich2025:thm4.3.eq8-9", "verify/golowich/thm43.py",
         'put("eq8", e8, etaL * L * delta)', 'put("eq8", e8, etaL * delta)',
         "changed constant: the bound of (8) without the factor L")

mutation("golowich-eq7-drop-L", "golowich2025:thm4.3.eq7", "verify/golowich/thm43.py",
         'put("eq7", risks[h][ell], L * delta)', 'put("eq7", risks[h][ell], delta)',
         "changed constant: the bound of (7) without the factor L")
mutation("golowich-eq10-drop-2", "golowich2025:thm4.3.eq10", "verify/golowich/thm43.py",
         'put("eq10", e10, 2 * etaL * L * delta)', 'put("eq10", e10, etaL * L * delta)',
         "changed constant: the bound of (10) without the factor 2 of the triangle inequality")
mutation("golowich-blocks-boundary-twice", "golowich2025:thm4.3.blocks", "verify/golowich/thm43.py",
         "if max(S) > prev:", "if max(S) >= prev:",
         "off-by-one: a set ending at a block boundary is counted in two blocks")
mutation("golowich-c2-drops-p1", "golowich2025:lem-c2", "verify/golowich/lemmas.py",
         "lhs = norm(sub(base, ratio(tot_q, b + sum(ps))), kind)",
         "lhs = norm(sub(base, ratio(tot_q, b + sum(ps[1:]))), kind)",
         "Lemma C.2's combined ratio loses p_1 from its denominator")
mutation("golowich-c3-locality-closed-form", "golowich2025:prop-c3.locality", "counterexamples/golowich/closed_forms.py",
         "A, W = l_ - 1, l_ - L_  # adjacent", "A, W = l_ - 1, l_ - L_ + 1  # adjacent",
         "off-by-one: the locality witness's risk counts one {j, j+L} position too many")
mutation("golowich-c3-relative-closed-form", "golowich2025:prop-c3.relative", "counterexamples/golowich/closed_forms.py",
         '"relative": lambda L_, l_: (l_ - L_) / (l_ - L_ + 1),', '"relative": lambda L_, l_: (l_ - L_) / (l_ - L_ + 2),',
         "off-by-one: the relative witness's risk denominator")
mutation("golowich-c3-repair-closed-form", "golowich2025:prop-c3.realizability.repair",
         "counterexamples/golowich/closed_forms.py",
         '"realizability-repaired": lambda L_, l_: sp.Rational(9, 10) * _pairs_frac(l_),',
         '"realizability-repaired": lambda L_, l_: sp.Rational(8, 10) * _pairs_frac(l_),',
         "changed constant: the repaired realizability witness's risk factor 9/10")
mutation("golowich-c3-coverage-closed-form", "golowich2025:prop-c3.coverage", "counterexamples/golowich/closed_forms.py",
         '"coverage": lambda L_, l_: _pairs_frac(l_),', '"coverage": lambda L_, l_: _pairs_frac(l_ + 1),',
         "off-by-one: the coverage witness's risk evaluated at l + 1")
mutation("golowich-c3-relative-proof-key-boundary", "golowich2025:prop-c3.relative", "verify/golowich/prop_c3.py",
         "return z3.Or(z3.And(x22, b - a == 1), z3.And(b - a == 2, b > L))",
         "return z3.Or(z3.And(x22, b - a == 1), z3.And(b - a == 2, b >= L))",
         "off-by-one: C.3(b)'s g01 proved with its extra span-2 sets from max S >= L")
mutation("golowich-c3-coverage-proof-fallback-doubled", "golowich2025:prop-c3.coverage", "verify/golowich/prop_c3.py",
         "[L >= 3, l > L, C == lr * (lr - 1) / 2, h * C == 1, risk == 1 - h]",
         "[L >= 3, l > L, C == lr * (lr - 1) / 2, h * C == 2, risk == 1 - h]",
         "changed constant: C.3(d)'s fallback output 2/C(l, 2) in the test-risk step")
mutation("golowich-c3-locality-proof-count-short", "golowich2025:prop-c3.locality", "verify/golowich/prop_c3.py",
         "[L >= 3, l >= L, N == (lr - Lr) * (lr - Lr + 1) / 2, N1 == N + (lr + 1 - Lr)],",
         "[L >= 3, l >= L, N == (lr - Lr) * (lr - Lr + 1) / 2, N1 == N + (lr - 1 - Lr)],",
         "off-by-one: C.3(a)'s count of span >= L pairs adds l - 1 - L new pairs per length")
mutation("golowich-c3-repair-proof-training-weight", "golowich2025:prop-c3.realizability.repair",
         "verify/golowich/prop_c3.py",
         "w = z3.If(l <= L, z3.RealVal(9) / 10, z3.RealVal(1) / 10)", "w = z3.If(l < L, z3.RealVal(9) / 10, z3.RealVal(1) / 10)",
         "off-by-one: C.3(c) repaired's planted-set law switches to the test weights at l = L")
mutation("golowich-asm33-locality-off-by-one", "golowich2025:asm3.3", "constructions/golowich/assumptions.py",
         "if span(S) <= L_local:", "if span(S) <= L_local + 1:",
         "off-by-one: Assumption 3.3.1 not checked on sets of span L_local + 1")
mutation("golowich-asm41-some-length", "golowich2025:asm4.1", "constructions/golowich/assumptions.py",
         "worst = {h: max(r.values()) for h, r in table.items()}", "worst = {h: min(r.values()) for h, r in table.items()}",
         "dropped quantifier: Assumption 4.1 asks for delta at SOME training length instead of every one")
mutation("golowich-asm42-misses-largest-shift", "golowich2025:asm4.2", "constructions/golowich/assumptions.py",
         "for d in range(0, S[0]):", "for d in range(0, S[0] - 1):",
         "off-by-one: Assumption 4.2 (i) never compares S with its leftmost translate S - (min S - 1)")
mutation("golowich-def33-softmax-sign", "golowich2025:def3.3", "constructions/golowich/model.py",
         "return sympy.exp(sympy.Rational(s - top))", "return sympy.exp(sympy.Rational(top - s))",
         "swapped sign: Definition 3.3's softmax weights exp(g0) become exp(-g0) off the top score")
mutation("golowich-def31-training-lengths-floor", "golowich2025:def3.1", "constructions/golowich/model.py",
         "lo = math.ceil(Fraction(L, 2))", "lo = math.floor(Fraction(L, 2))",
         "off-by-one: the training lengths [L/2, L] start at floor(L/2) for odd L")
mutation("golowich-def32-joint-squared", "golowich2025:def3.2", "constructions/golowich/model.py",
         "out[key] = out.get(key, Fraction(0)) + p\n", "out[key] = out.get(key, Fraction(0)) + p * p\n",
         "the joint law of Definition 3.2 no longer sums the planted probabilities")
mutation("golowich-fn6-fallback-denominator", "golowich2025:fn6", "constructions/golowich/model.py",
         "/ len(allS)", "/ (len(allS) + 1)",
         "footnote 6's fallback is not the uniform average over Sets_k([l])")

mutation("golowich-def41-locality-slack", "golowich2025:def4.1", "verify/golowich/coupling.py",
         "            if width > Lloc:\n", "            if width > Lloc + 1:\n",
         "off-by-one: item 1 of Definition 4.1 allows span psi(S*) = L_local + 1")

mutation("golowich-table5-long-steps", ("golowich2025:app-f", "golowich2025:tab5"), "verify/golowich/sec5.py",
         '"steps": {"h_short": 34000 + 15000, "h_long": 48000}', '"steps": {"h_short": 34000 + 15000, "h_long": 96000}',
         "corrupted transcription of Table 5 / App. F: h_long trained 96000 steps (50B tokens, not ~25B)")
mutation("golowich-table1-columns-swapped", "golowich2025:tab1", "verify/golowich/sec5.py",
         'TABLE1 = {"h_short": {64: 17.59, 128: 14.74}', 'TABLE1 = {"h_short": {64: 14.74, 128: 17.59}',
         "corrupted transcription of Table 1: h_short's two perplexities swapped")
mutation("golowich-table2-lmax", "golowich2025:tab2", "verify/golowich/sec5.py",
         '"test_points": 512, "L_max": 510,', '"test_points": 512, "L_max": 500,',
         "corrupted transcription of Table 2: L_max = 500 (the preset keeps 510)")
mutation("golowich-table3-ablation-runs", "golowich2025:tab3", "verify/golowich/sec5.py",
         '"test_points": 192, "L_max": 210,\n          "runs": 10}', '"test_points": 192, "L_max": 210,\n          "runs": 3}',
         "Table 3's runs read from footnote 20 (3, the ablation's) instead of the table (10)")
mutation("golowich-e3-position-id-off-by-one", "golowich2025:tab4", "constructions/golowich/experiments.py",
         "where[s] = 3 + len(body)", "where[s] = 2 + len(body)",
         "off-by-one: App. E.3's coupled position ID I_j points one token before v_{1,j}")
mutation("golowich-fig5-recent-window-short", "golowich2025:fig5", "constructions/golowich/experiments.py",
         "recent = tuple(range(Lbar - L, Lbar))", "recent = tuple(range(Lbar - L + 1, Lbar))",
         "off-by-one: the L most recent tokens X_{Lbar-L : Lbar-1} lose X_{Lbar-L}")
mutation("golowich-rem51-rope-sign", "golowich2025:rem5.1", "verify/golowich/sec5.py",
         "relative = (q.T * R((j - i) * t) * k)[0]", "relative = (q.T * R((i - j) * t) * k)[0]",
         "swapped sign: the relative rotation R((i - j) theta) instead of R((j - i) theta)")
mutation("golowich-fn8-rank-is-position", ("golowich2025:fn8", "golowich2025:def4.1"), "verify/golowich/coupling.py",
         "pat = tuple(sorted(tuple(sorted(sorted(S).index(a) + 1 for a in S",
         "pat = tuple(sorted(tuple(sorted(a for a in S",
         "footnote 8's rank_Omega(i) replaced by the position i itself")
mutation("golowich-asmd1-drops-uniqueness", "golowich2025:asm-d1", "verify/golowich/coupling.py",
         "if all(not w(T, tuple(x[i - 1] for i in T)) for T in sets_k(ell, ens.k) if T != S):", "if True:",
         "Assumption D.1's event loses g0*(S) = -inf for every S != S*")
mutation("golowich-asmd1-proof-loss-unbounded", "golowich2025:asm-d1", "verify/golowich/coupling.py",
         "loss_h = [p >= 0, loss >= 0, loss <= 1,", "loss_h = [p >= 0, loss >= 0, loss <= 2,",
         "weakened hypothesis: D.1 => 4.1 argued with losses up to 2 (diam(Y) <= 1 not used)")
mutation("golowich-defb1-drops-output-map", "golowich2025:def-b1", "verify/golowich/heads.py",
         "g1 = [list(O * V * We[:, t]) for t in range(We.shape[1])]",
         "g1 = [list(V * We[:, t]) for t in range(We.shape[1])]",
         "Definition B.1's value path loses the output map O")
mutation("golowich-search-recheck-ignores-drop", "golowich2025:prop-c3.search", "counterexamples/golowich/search.py",
         'kept_ok = all(v[a].holds for a in v if a != w["drop"])', "kept_ok = all(v[a].holds for a in v)",
         "the witness re-check demands the dropped assumption too")
mutation("golowich-c2-any-L-weight-unbounded", "golowich2025:lem-c2", "verify/golowich/lemmas.py",
         "[Sw <= S, wz <= 1, e >= 0], Sw + wz * e <= S + e,", "[Sw <= S, e >= 0], Sw + wz * e <= S + e,",
         "Lemma C.2's sum step without w_i <= 1")
mutation("golowich-eq7-any-instance-negative-risk", "golowich2025:thm4.3.eq7", "verify/golowich/thm43.py",
         "[Sh <= Sstar, Sstar <= n * d, Sh == rj + rest, rest >= 0, n <= L, d >= 0], rj <= L * d,",
         "[Sh <= Sstar, Sstar <= n * d, Sh == rj + rest, n <= L, d >= 0], rj <= L * d,",
         "(7) without the other training lengths' risks being >= 0")

mutation("golowich-fig1-threshold-loosened", "golowich2025:fig1", "verify/golowich/sec5.py",
         "GENERALIZES, MARGIN = 0.9, 0.1", "GENERALIZES, MARGIN = 0.4, 0.1",
         "changed constant: 'generalizes' at 40% instead of 90% (chance-level seeds would pass)")
mutation("golowich-fig2-ablation-slack", "golowich2025:fig2", "verify/golowich/sec5.py",
         "if coupled is not None and coupled < ablation:", "if coupled is not None and coupled < ablation - 1:",
         "the comparison with the shifted-APE ablation can never fail")

# ------------------------------------------------------------------------------------------- huang2024
mutation("huang-lem37-zero-slope", ("huang2024:lem37", "huang2024:lem11.aa-star"), "constructions/crasp/unary.py",
         "v = 1 if p.b else 0\n", "v = 0\n",
         "Lemma 37's eventual form of a Count loses its slope (the certificate of aa* rests on it)")
mutation("huang-lem41-zero-slope", ("huang2024:lem41", "huang2024:lem11.parity", "huang2024:lem40"), "constructions/crasp/unary.py",
         "s = sum(1 for x in p.b if x)\n", "s = 0\n",
         "the periodic eventual form of a Count loses its slope (the certificate of PARITY rests on it)")
mutation("huang-def3-no-translation-invariance", "huang2024:def3", "constructions/limit_transformer/model.py",
         "raise NotTranslationInvariantError(", "return None and NotTranslationInvariantError(",
         "the translation-invariance check of Definition 3 disabled")
mutation("huang-round-bits-ties-away", "huang2024:app-d2", "constructions/limit_transformer/precision.py",
         "return Fraction(round(x * 2**p), 2**p)", "return Fraction(math.floor(x * 2**p + Fraction(1, 2)), 2**p)",
         "the exact path rounds logit ties away from zero instead of to even")
mutation("huang-power-ties-away", "huang2024:app-d2", "constructions/limit_transformer/precision.py",
         "return Fraction(round(Fraction(r) ** u * 2**p), 2**p)",
         "return Fraction(math.floor(Fraction(r) ** u * 2**p + Fraction(1, 2)), 2**p)",
         "the exact path rounds rational n^a ties up instead of to even")

mutation("huang-thm9-margin-sign", ("huang2024:thm9", "huang2024:thm9.exactness"), "constructions/crasp/compiler.py",
         "terms.append((HALF, {one: Fraction(1)}))", "terms.append((-HALF, {one: Fraction(1)}))",
         "swapped margin: the compiled comparison C1 <= C2 decides ties as C1 < C2 (Theorem 9's construction)")
mutation("huang-thm27-comparison-operands-swapped", "huang2024:thm27", "constructions/crasp/compiler.py",
         "terms = [(1, rf), (-1, lf), (-big, {sos: Fraction(1)})]",
         "terms = [(1, lf), (-1, rf), (-big, {sos: Fraction(1)})]",
         "swapped comparison: the compiled Heaviside unit of C1 <= C2 computes C2 <= C1")
mutation("huang-def2-mlp-bits-unchecked", "huang2024:def2", "constructions/crasp/compiler.py",
         "            vals += [*layer.mlp.A.flat, *layer.mlp.b.flat, *layer.mlp.B.flat]\n",
         "            pass\n",
         "dropped hypothesis: the p-bit check of Definition 2 skips the MLP parameters")
mutation("huang-rem28-offset-ignored", ("huang2024:rem28", "huang2024:rem15"), "constructions/limit_transformer/evaluate.py",
         "pos = _position_vectors(model, np.arange(1, n + 1) + offset)", "pos = _position_vectors(model, np.arange(1, n + 1))",
         "the float evaluator ignores the offset (positions read at i, not i + offset)")
mutation("huang-nope-ignores-phi", "huang2024:thm9.nope", "constructions/limit_transformer/model.py",
         "no_phi = all(h.phi is None", "no_phi = True or all(h.phi is None",
         "the NoPE test (Corollary 18) ignores local functions phi")
mutation("huang-eq7-wrong-diagonal", ("huang2024:eq7", "huang2024:def4", "huang2024:def46", "huang2024:rem45"),
         "constructions/huang/products.py",
         "bad = np.argwhere(vals[1:, 1:] != vals[:-1, :-1])", "bad = np.argwhere(vals[1:, :-1] != vals[:-1, 1:])",
         "eq. (7) checked along anti-diagonals G[j+1, i] = G[j, i+1] instead of G[j, i] = G[j+1, i+1]")
mutation("huang-def43-readers-unchecked", ("huang2024:def43", "huang2024:eq5"), "constructions/huang/products.py",
         "bad = np.nonzero(np.any(vals[:, 1:] != vals[:, :-1], axis=0))[0]",
         "bad = np.nonzero(np.any(vals[:, 1:] != vals[:, 1:], axis=0))[0]",
         "one-positional (reader) product functions of Definition 43 / eq. (5) never compared across positions")
mutation("huang-lem49-positional-products-only", "huang2024:lem49", "constructions/huang/products.py",
         "for p in enumerate_products(T, positional_only=False):", "for p in enumerate_products(T):",
         "Lemma 49's bit count misses the non-positional product functions")
mutation("huang-eq8-drops-query-1", "huang2024:eq8", "constructions/huang/regularizer.py",
         "total += sum((row.dot(P[j]) ** 2 for j in range(T.n)), Fraction(0))",
         "total += sum((row.dot(P[j]) ** 2 for j in range(1, T.n)), Fraction(0))",
         "off-by-one: eq. (8) sums over queries j = 2..n, missing j = 1")
mutation("huang-def5-drops-rank", "huang2024:def5", "constructions/huang/regularizer.py",
         "return self.L + self.H + self.p + self.rank + self.units + self.norm\n",
         "return self.L + self.H + self.p + self.units + self.norm\n",
         "Definition 5's R loses its rank ingredient")
mutation("huang-def16-keeps-eq8", "huang2024:def16", "constructions/huang/regularizer.py",
         "return self.L + self.H + self.p + self.rank + self.units + self.norm\n",
         "return self.L + self.H + self.p + self.rank + self.units + self.norm + self.eq8\n",
         "Definition 16's R^- keeps the positional term (8) it must subtract")

mutation("huang-eq1-position-off-by-one", "huang2024:eq1", "constructions/limit_transformer/exact.py",
         "table, index = model.positions.table, (pos - 1) % model.period",
         "table, index = model.positions.table, pos % model.period",
         "off-by-one: eq. (1) adds p_{i+o+1} instead of p_{i+o} in the exact evaluator")
mutation("huang-eq2-bilinear-transposed", "huang2024:eq2", "constructions/limit_transformer/exact.py",
         "lm = exact_dot(kv, qv[list(queries)].T)", "lm = exact_dot(qv, kv[list(queries)].T)",
         "eq. (2)'s bilinear form transposed: a_ij = y_i^T K^T Q y_j instead of y_j^T K^T Q y_i")
mutation("huang-eq6-phi-dropped", "huang2024:eq6", "constructions/limit_transformer/exact.py",
         "+ (head.phi.value(j + 1, i + 1) if head.phi is not None else 0) for j in range(i + 1)]",
         "+ (head.phi.value(j + 1, i + 1) if False else 0) for j in range(i + 1)]",
         "eq. (6)'s logit loses phi_{l,h}(j, i) on content heads")
mutation("huang-eq3-residual-dropped", "huang2024:eq3", "constructions/limit_transformer/exact.py",
         "Y = [Y[r] + upd[r] if r in upd else Y[r] for r in range(model.d)]",
         "Y = [upd[r] if r in upd else Y[r] for r in range(model.d)]",
         "eq. (3) loses the residual y_i on the coordinates a head writes")
mutation("huang-eq4-activations-swapped", "huang2024:eq4", "constructions/limit_transformer/exact.py",
         "act = [p.heaviside() if hv else p.relu() for p, hv in zip(pre, mlp.heaviside_mask, strict=True)]",
         "act = [p.relu() if hv else p.heaviside() for p, hv in zip(pre, mlp.heaviside_mask, strict=True)]",
         "eq. (4)'s per-unit activation swapped (ReLU units evaluated as Heaviside and back)")

mutation("huang-prop39-correction-off-by-one", "huang2024:prop39", "constructions/crasp/ast.py",
         "return Sub(count(p), count(p, range(c)))", "return Sub(count(p), count(p, range(c + 1)))",
         "off-by-one: Proposition 39's local correction subtracts c + 1 positions")
mutation("huang-lem48-period-window-short", "huang2024:lem48", "constructions/huang/lemma52.py",
         "if all(seq[k] == seq[k + P] for k in range(n - P)):", "if all(seq[k] == seq[k + P] for k in range(n - P - 1)):",
         "off-by-one: Lemma 48's period search skips the last comparison of the window")
mutation("huang-def50-mass-doubled", "huang2024:def50", "constructions/huang/regularizer.py",
         "mass += sum((v * v for v in head.phi.values), Fraction(0))",
         "mass += sum((2 * v * v for v in head.phi.values), Fraction(0))",
         "changed constant: Definition 50's positional-logit mass doubled (no longer the analogue of (8))")
mutation("huang-lem52-local-phi-truncated", ("huang2024:lem52.subclass", "huang2024:lem53"), "constructions/huang/lemma52.py",
         "phi = LocalPhi(tuple(g[: last + 1]))", "phi = LocalPhi(tuple(g[: last]))",
         "off-by-one: the Lemma 52 translation drops the farthest nonzero local offset of phi")

mutation("huang-faq7-periodic-pair-early", "huang2024:faq7.periodic", "counterexamples/periodic_local.py",
         "lambda i: [0, 0, 1 if i > N + 1 else 0, 0]", "lambda i: [0, 0, 1 if i > N else 0, 0]",
         "off-by-one: the non-periodic encoding already differs at position N + 1 (strings of N symbols)")
mutation("huang-faq7-local-pair-early", "huang2024:faq7.local", "counterexamples/periodic_local.py",
         "weight if i - j >= N + 1 else 0", "weight if i - j >= N else 0",
         "off-by-one: the non-local phi already acts at offset N (reachable on strings of N symbols)")

mutation("huang-inference-picks-max-R",
         ("huang2024:def6", "huang2024:eq9", "huang2024:def6.bounded", "huang2024:eq9.bounded", "huang2024:thm7",
          "huang2024:thm14", "huang2024:lem17", "huang2024:cor24", "huang2024:rem25"),
         "constructions/huang/inference.py",
         "R, _, best = min(scored, key=lambda s: (s[0], s[1]))", "R, _, best = max(scored, key=lambda s: (s[0], s[1]))",
         "Definition 6 / eq. (9) with the regulariser maximised instead of minimised")
mutation("huang-inference-longer-training-allowed", "huang2024:def22", "constructions/huang/inference.py",
         "if not 1 <= m <= n:", "if not 1 <= m:",
         "Definition 22's l(n) <= n no longer enforced (a training length beyond n is accepted)")
mutation("huang-inference-ladder-family-unchecked", ("huang2024:thm7.bounded", "huang2024:thm23.bounded",
                                                   "huang2024:thm23"),
         "verify/huang/inference.py",
         "s.add(m >= 1, (m % 2 == 0) == ((m + 1) % 2 == 0))", "s.add(m >= 1, (m % 2 == 0) == (m % 2 == 0))",
         "the a^(m+1) witness family compared with the ladder at m instead of m + 1 (no longer a witness)")
mutation("huang-inference-heaviside-at-zero", ("huang2024:cor18.bounded", "huang2024:cor18",
                                               "huang2024:thm7.bounded", "huang2024:thm23.bounded"),
         "verify/huang/inference.py",
         "return wa * a + wb * b + w1 + wphi * phi * t + w0 * t >= 0", "return wa * a + wb * b + w1 + wphi * phi * t + w0 * t > 0",
         "swapped tie rule: the units' Heaviside read with H(0) = 0 instead of 1")
mutation("huang-lem37-proof-comparison-threshold", "huang2024:lem37", "verify/huang/lemma37.py",
         "cmp + [a1 < a2, i >= z3_max(Tm, rise)], z3.And(", "cmp + [a1 < a2, i >= Tm], z3.And(",
         "dropped term: Lemma 37's comparison step taken from the operands' threshold alone (the intercepts ignored)")
mutation("huang-lem38-proof-any-modulus", "huang2024:lem38", "verify/huang/lemma37.py",
         "[m >= 2, T >= 1], z3.Not(both),", "[m >= 1, T >= 1], z3.Not(both),",
         "off-by-one: Lemma 38 argued for m >= 1, where 'length = 0 mod 1' is every word")
mutation("huang-aa-star-proof-reads-one-b", "huang2024:lem11.aa-star", "verify/huang/lemma37.py",
         "hyps, z3.And(nb <= 0, n % k == 0) == member,", "hyps, z3.And(nb <= 1, n % k == 0) == member,",
         "changed constant: the (a^k)* program read as accepting one b (C_b <= 1)")
mutation("huang-prop39-proof-unguarded-offset", "huang2024:prop39", "verify/huang/prop39.py",
         "Ai - (Lc + z3.If(i - c >= 1, p, 0)) == Am1,", "Ai - (Lc + p) == Am1,",
         "dropped guard: Proposition 39's local count takes P at a position before the word start")
mutation("huang-piecewise-proof-prev-reads-current", "huang2024:lem11.piecewise", "verify/huang/piecewise.py",
         "    prev_m = 2 <= ck  #", "    prev_m = 1 <= ck  #",
         "off-by-one: the subsequence program's Prev_m read as 1 <= #S_(m-1) (S_(m-1)(i), not S_(m-1)(i - 1))")
mutation("huang-lem41-proof-comparison-threshold", ("huang2024:lem41", "huang2024:lem11.parity"),
         "verify/huang/lemma41.py", "    big = [m >= z3.If(d >= 0, d, -d) + 1]", "    big = [m >= 1]",
         "dropped term: Lemma 41's comparison taken as settled after one period (the gap |C_2 - C_1| ignored)")
mutation("huang-parity-tomita5-witness-two-apart", ("huang2024:tab2.tomita5", "huang2024:lem41"),
         "verify/huang/lemma41.py", "lang(*block(2 * N)) != lang(*block(2 * N + 1)),",
         "lang(*block(2 * N)) != lang(*block(2 * N + 2)),",
         "off-by-one: the witnesses n = 2N and 2N + 2 (the same parity of 1's: no alternation to show)")
mutation("huang-tomita6-witness-three-apart", "huang2024:tab2.tomita6", "verify/huang/lemma41.py",
         "z3.If(k % 3 == 2, tomita6(*zeros_k(3 * N)) != tomita6(*zeros_k(3 * N + 1)),",
         "z3.If(k % 3 == 2, tomita6(*zeros_k(3 * N)) != tomita6(*zeros_k(3 * N + 3)),",
         "off-by-one: Tomita 6's witnesses n = 3N and 3N + 3 on (0^k)^n (the same residue mod 3)")
mutation("huang-thm10-proof-dyck-depth-zero-bad", "huang2024:thm10", "verify/huang/counter_languages.py",
         "dy = [bad0 >= 0, (bad0 <= 0) == ok0, bad1 == bad0 + z3.If(dep < 0, 1, 0),",
         "dy = [bad0 >= 0, (bad0 <= 0) == ok0, bad1 == bad0 + z3.If(dep <= 0, 1, 0),",
         "swapped comparison: DYCK-1's Bad read as C_a <= C_b (a balanced prefix flagged)")
mutation("huang-eq10-proof-support-off-by-one", "huang2024:eq10", "verify/huang/induction_head.py",
         "(1 <= b1) == (na > 0),", "(1 <= b1) == (na > 1),",
         "off-by-one: the induction head's support read as two earlier successors (n_a > 1) instead of one")
mutation("huang-certificate-period-off-by-one",
         ("huang2024:tab2.no-crasp", "huang2024:tab2.tomita3", "huang2024:tab3.no-crasp", "huang2024:tab2.tomita5",
          "huang2024:tab2.tomita6", "huang2024:lem38"),
         "constructions/crasp/unary.py",
         "periodic = all(vals[k] == vals[k + period] for k in range(len(vals) - period))",
         "periodic = all(vals[k] == vals[k + period + 1] for k in range(len(vals) - period - 1))",
         "off-by-one: the non-expressibility certificate compares membership one step beyond the period")
mutation("huang-oracle-majority-strict", "huang2024:thm10", "constructions/crasp/oracles.py",
         'return w.count("a") >= w.count("b")', 'return w.count("a") > w.count("b")',
         "swapped tie rule: MAJORITY's oracle rejects ties")
mutation("huang-oracle-tomita4-window", "huang2024:tab2", "constructions/crasp/oracles.py",
         'return "000" not in w', 'return "0000" not in w',
         "off-by-one: Tomita 4's forbidden run 000 read as 0000")
mutation("huang-oracle-binary-majority-tie", "huang2024:tab3", "constructions/crasp/oracles.py",
         "if ones == zeros or len(y) != 1:", "if len(y) != 1:",
         "Binary Majority's transcript oracle no longer refuses ties")
mutation("huang-oracle-induction-last-pair", ("huang2024:eq10", "huang2024:app-c2.2"), "constructions/crasp/oracles.py",
         "return Counter(w[k + 1] for k in range(len(w) - 1) if w[k] == last)",
         "return Counter(w[k + 1] for k in range(len(w) - 2) if w[k] == last)",
         "off-by-one: eq. (10)'s numerator misses k = N - 1")
mutation("huang-oracle-subsequence-unordered", "huang2024:lem11.piecewise", "constructions/crasp/oracles.py",
         "        it = iter(w)\n", "        it = w\n",
         "the piecewise-testable oracle tests letter membership instead of an ordered subsequence")
mutation("huang-oracle-dyck-depth-off-by-one", "huang2024:tab1", "constructions/crasp/oracles.py",
         "if not 0 <= depth <= n:", "if not 0 <= depth <= n + 1:",
         "off-by-one: D_n's oracle admits depth n + 1")
mutation("huang-fooling-needed-count", "huang2024:cor13.fooling", "constructions/communication.py",
         "return CopyFooling(N, len(syms) ** (N - 1), len(seen),", "return CopyFooling(N, len(syms) ** N, len(seen),",
         "off-by-one: Corollary 13's fooling set counts 2^N inputs for |x| = N - 1")
mutation("huang-interpreter-strict-count", "huang2024:def8", "constructions/crasp/interpreter.py",
         "v = np.cumsum(p, axis=1, dtype=np.int64)", "v = np.cumsum(p, axis=1, dtype=np.int64) - p",
         "Definition 8's Counting #[j <= i] computed as #[j < i]")
mutation("huang-morphism-local-offset", "huang2024:lem42", "constructions/crasp/morphism.py",
         "q, r2 = divmod(r - c - 1, k)", "q, r2 = divmod(r - c, k)",
         "off-by-one: Lemma 42's local counts read the block position one to the right")
mutation("huang-lemma47-embedding-shifted", ("huang2024:lem47", "huang2024:cor26"), "constructions/huang/lemma47.py",
         "out[:, offset: offset + m.shape[1]] = m", "out[:, offset + 1: offset + 1 + m.shape[1]] = m",
         "off-by-one: Lemma 47's embedding placed one column to the right")
mutation("huang-agreement-length-short", "huang2024:sec3.finite-algorithms", "counterexamples/periodic_local.py",
         'return {"N0": n_hi - 1, "n_hi": n_hi,', 'return {"N0": n_hi - 2, "n_hi": n_hi,',
         "off-by-one: the agreement length N0 one symbol short of the grid")
mutation("huang-protocol-boundary-short", ("huang2024:thm12.finite-values", "huang2024:thm19"),
         "constructions/communication.py",
         "bidx = list(range(max(1, N - tau + 1), N + 1))", "bidx = list(range(max(1, N - tau + 2), N + 1))",
         "off-by-one: Bob reads the tau boundary positions of Alice's half one short")
mutation("huang-lemma36-reduction-prefix", ("huang2024:lem36", "huang2024:lem11.flipflop", "huang2024:lem11",
                                            "huang2024:lem29"),
         "verify/huang/reductions.py", "and F(w[:j - 1])", "and F(w[:j])",
         "off-by-one: Lemma 36's reduction evaluates F at j instead of j - 1")
mutation("huang-maj2-at-least-half", "huang2024:def30", "constructions/crasp/maj2.py",
         '"maj": 2 * sat > len(word)', '"maj": 2 * sat >= len(word)',
         "swapped tie rule: the majority quantifier accepts exactly half")
mutation("huang-maj2-order-non-strict", ("huang2024:rem32", "huang2024:def30"), "constructions/crasp/maj2.py",
         "return _pos(env, f[1]) < _pos(env, f[2])", "return _pos(env, f[1]) <= _pos(env, f[2])",
         "the order predicate x < y evaluated as x <= y")
mutation("huang-maj2-mod-zero-based", ("huang2024:prop31", "huang2024:def30"), "constructions/crasp/maj2.py",
         "return _pos(env, f[1]) % f[3] == f[2] % f[3]", "return (_pos(env, f[1]) - 1) % f[3] == f[2] % f[3]",
         "off-by-one: the MOD predicate read on 0-based positions")
mutation("huang-prop54-variance-doubled", "huang2024:prop54", "verify/huang/random_init.py",
         "s = np.sqrt(1 / d if var is None else var)", "s = np.sqrt(2 / d if var is None else var)",
         "changed constant: entries of variance 2/d instead of 1/d")
mutation("huang-lem56-first-power", "huang2024:lem56", "verify/huang/random_init.py",
         "den = np.linalg.norm(V, 2) ** 2 * nuclear(A)", "den = np.linalg.norm(V, 2) * nuclear(A)",
         "dropped square: Lemma 56's bound with ||V|| instead of ||V||^2")

mutation("golowich-eq10-proof-constant", "golowich2025:thm4.3.eq10", "verify/golowich/thm43.py",
         "E10 <= 2 * eta * L * d, neg_goal=E10 <= eta * L * d)", "E10 <= 3 * eta * L * d / 2, neg_goal=E10 <= eta * L * d)",
         "changed constant: (10) claimed with 3/2 eta_L L delta instead of 2 eta_L L delta")
mutation("golowich-blocks-proof-span-doubled", "golowich2025:thm4.3.blocks", "verify/golowich/thm43.py",
         "s <= mx, mx - mn <= Ll]", "s <= mx, mx - mn <= 2 * Ll]",
         "weakened hypothesis: the block window argued for spans up to 2 L_local (a set then reaches block i - 2)")
# -------------------------------------------------------------------------------------------- izzo2025
mutation("izzo-modp-target-off-by-one", "izzo2025:sec3.1", "constructions/tasks/modp.py",
         "            if (t + offset) % p == k % p:\n", "            if (t + offset + 1) % p == k % p:\n",
         "off-by-one: the ModP target of sec. 3.1 averages the residue class k - 1 instead of k")
mutation("izzo-modp-bos-score-sign", "izzo2025:app-a2.modp", "constructions/tasks/modp.py",
         "key[0][BOS_] = lam / 2 if self.index % p != 0 else -lam / 2",
         "key[0][BOS_] = -lam / 2 if self.index % p != 0 else -lam / 2",
         "swapped sign: '$' no longer scores between the attended row and the others when k != 0 (mod p)")
mutation("izzo-flush-strict", "izzo2025:sec3.2-precision", "constructions/limit_transformer/precision.py",
         "return (n.bit_length() - 1) * u >= p * v", "return (n.bit_length() - 1) * u > p * v",
         "swapped comparison: a term equal to 2^-p is kept, not flushed (izzo precision model, sec. 3.2)")
mutation("izzo-hardmax-threshold-minus-one", "izzo2025:sec3.2-precision", "constructions/limit_transformer/hardmax.py",
         "return max(ceil_pow2(k), 1)", "return max(ceil_pow2(k) - 1, 1)",
         "off-by-one: the hardmax threshold of sec. 3.2 one below the least N with N^gamma >= 2^p")
mutation("izzo-eq1-loosened-constant", "izzo2025:eq1", "bounds/auxiliary.py",
         '"<=", 2 * sigma * eps / tau,', '"<=", 4 * sigma * eps / tau,',
         "changed constant: eq. (1)'s bound 2|Sigma| eps/tau doubled (the printed-|Sigma| failure disappears)")
mutation("izzo-eq1-proof-half-condition-weakened", "izzo2025:eq1", "verify/izzo/eq1.py",
         "hyps = [T > 0, k >= 1, k <= sigma, 2 * k <= T,", "hyps = [T > 0, k >= 1, k <= sigma, k <= T,",
         "weakened hypothesis: eq. (1)'s proof with |S_f| eps/tau <= 1 instead of <= 1/2")
mutation("izzo-lip-relu-slope-two", "izzo2025:app-a1.lip", "verify/tests/izzo2025/test_margin.py",
         "if heaviside else max(t, Fraction(0)) for t in pre]", "if heaviside else 2 * max(t, Fraction(0)) for t in pre]",
         "changed constant: a unit of slope 2 (2-Lipschitz, not 1): ||B||_F ||A||_F no longer bounds the MLP")
mutation("izzo-lip-proof-row-dropped", "izzo2025:app-a1.lip", "verify/izzo/lipschitz.py",
         "R + m * m <= (F + F_row) * V, neg_goal", "R + m * m <= F * V + F_row, neg_goal",
         "dropped factor: a row's Cauchy-Schwarz bound without ||v||^2 (||M v|| bound no longer homogeneous)")
mutation("izzo-appb-sampler-no-biases", "izzo2025:app-b.data", "constructions/tasks/modp.py",
         "        q = rng.random((batch, self.period))\n        t = np.arange(1, length + 1)\n"
         "        bits = rng.random((batch, length)) < q[:, t % self.period]\n        return [",
         "        q = np.full((batch, self.period), 0.5)\n        t = np.arange(1, length + 1)\n"
         "        bits = rng.random((batch, length)) < q[:, t % self.period]\n        return [",
         "dropped App. B ingredient: the per-sequence residue biases q ~ U[0,1] (Var f* collapses to ~1/(4n))")
mutation("izzo-corrected-exponent-k", "izzo2025:thm4.1.corrected", "bounds/corrected.py",
         "return self.lam / self.theta**self.heads", "return self.lam / self.theta ** (self.heads - 1)",
         "changed constant: N_1 with theta^-(k-1) instead of theta^-k (one attention set fewer)")
mutation("izzo-corrected-padding-weight", "izzo2025:thm4.1.corrected", "bounds/corrected.py",
         "else self.sigma * self.lam + self.sigma + 3", "else self.sigma * self.lam + self.sigma + 1",
         "changed constant: the padding's numerator c = |Sigma| lambda + |Sigma| + 3 lowered (theta too large)")
mutation("izzo-corrected-no-padding-budget", "izzo2025:thm4.1.corrected", "bounds/corrected.py",
         "return self.a * theta + self.rho_star(theta)", "return self.a * theta",
         "dropped term: the residue padding rho* left out of the per-set budget")
mutation("izzo-corrected-no-stretch", "izzo2025:thm4.1.corrected", "bounds/compression.py",
         "if sum(build.counts.values()) + w < H:", "if False:",
         "dropped proof step: z is not stretched to the hardmax threshold H")
mutation("izzo-corrected-pad-every-class", "izzo2025:thm4.1.corrected", "bounds/compression.py",
         "padded[r] = [] if has_free else [c for c in cls if x[c] >= a_m]",
         "padded[r] = [] if has_free else list(cls)",
         "wrong proof step: residues padded over every class, the rare ones below the top scale included")
mutation("izzo-modulus-drops-unembedding", "izzo2025:thm4.1.corrected", "bounds/modulus.py",
         "            acc = omega_U[j]\n", "            acc = Fraction(0)\n",
         "dropped path: Lemma M's directional modulus without the residual path through U")
mutation("izzo-corrected-hardmax-half-threshold", "izzo2025:thm4.1.corrected", "verify/izzo/corrected.py",
         "lnn * gamma >= p * ln2]", "2 * lnn * gamma >= p * ln2]",
         "changed constant: the hardmax regime argued from length 2^{p/(2 gamma)} instead of 2^{p/gamma}")
mutation("izzo-corrected-stretch-grid-coarse", "izzo2025:thm4.1.corrected", "verify/izzo/corrected.py",
         "grid = [star > 0, sj >= 1, t == (sj + 1 / (2 * star)) / sj,", "grid = [star > 0, sj >= 1, t == (sj + 1 / star) / sj,",
         "changed constant: the stretch's grid step 1/Phi* instead of 1/(2 Phi*) (a grid point may overshoot by 1)")
mutation("izzo-lower-bump-off-by-one", "izzo2025:lower.bump", "bounds/lower.py",
         "Length.at_least((Nb + 1) * cls.period + cls.window)", "Length.at_least((Nb + 2) * cls.period + cls.window)",
         "off-by-one: the bump's agreement length one residue period too long")
mutation("izzo-lower-bump-window-uniform", "izzo2025:lower.bump", "bounds/lower.py",
         "LocalPhi(tuple(-(tau + 1 - d) * G0 for d in range(tau + 1)))", "LocalPhi((-G0,) * (tau + 1))",
         "dropped case: every window slot adds the same -G0, so on an input no longer than the window $ ties with "
         "the gated tokens (the bump pair differs below its printed length when tau >= (N_b + 1) Delta)")
mutation("izzo-lower-chain-window-uniform", "izzo2025:lower.chain", "bounds/lower.py",
         "LocalPhi(tuple(-(tau + 1 - d) * G0 for d in range(tau + 1)))", "LocalPhi((-G0,) * (tau + 1))",
         "dropped case: every window slot adds the same -G0, so on an input no longer than the window $ ties with "
         "the gated tokens (the chain pair differs below its printed length on a long window)")
mutation("izzo-lower-chain-overclaims", "izzo2025:lower.chain", "bounds/lower.py",
         "S += partial.numerator // partial.denominator + 1", "S += partial.numerator // partial.denominator + 2",
         "off-by-one: each chain count's minimum one too large (the agreement length overclaimed)")
mutation("izzo-lower-hardmax-no-bos-gate", "izzo2025:lower.hardmax", "bounds/lower.py",
         'A[lay.val0], A[lay.bos] = Fraction(-1), -(2 + math.ceil(params["t_star"]))  # the $ query stays off',
         'A[lay.val0], A[lay.bos] = Fraction(-1), Fraction(0)  # the $ query stays off',
         "dropped gate: the unit fires on the input of length 1 (only $), where the head output is 0")
mutation("izzo-heads-chain-one-head-short", "izzo2025:thm4.1.heads", "bounds/lower.py",
         "    h = min(cls.heads, cls.sigma - 1) if heads is None else heads\n",
         "    h = min(cls.heads, cls.sigma - 1) if heads is None else max(1, heads - 1)\n",
         "wrong construction: the chain built with one head fewer than asked (its growth is one power short)")
mutation("izzo-fig2-plateau-mean-corrupted", "izzo2025:fig2", "docs/results/izzo2025-modp-quick.json",
         '"plateau_mean": 0.0041939823692698,', '"plateau_mean": 0.0021939823692698,',
         "corrupted data record: a stored seed-mean plateau that is not the mean of its seeds (still falls tenfold)")
mutation("izzo-fig3-mass-class-corrupted", "izzo2025:fig3", "docs/results/izzo2025-modp-quick.json",
         '"mass_class": 0.9903095940826461,', '"mass_class": 0.5903095940826461,',
         "corrupted data record: a trained run's class attention mass no longer 16 x its per-key weight")
mutation("izzo-fig3-doubled-other-weight", "izzo2025:fig3", "docs/results/izzo2025-modp-quick.json",
         '"per_key_other": 0.00014908323211090173,', '"per_key_other": 0.00029816646422180346,',
         "corrupted data record: a trained run's off-class attention doubled (weights no longer sum to 1)")
mutation("izzo-certify-no-length-power", "izzo2025:sec5.threshold", "bounds/certify/class_softmax.py",
         "t_hi = np.where(Gl[None, :] == 0, 0.0, Gl[None, :] * s_lo[:, None])  # smallest G s",
         "t_hi = np.where(Gl[None, :] == 0, 0.0, 0.0 * s_lo[:, None])  # smallest G s",
         "wrong semantics: the upper end of each softmax weight loses its factor n^(-G) (log|x| scaling dropped)")
mutation("izzo-certify-enumeration-argmin", "izzo2025:thm4.1", "bounds/certify/search.py",
         "            i = int(np.argmax(lo))", "            i = int(np.argmin(lo))",
         "wrong search: the per-length witness is the input of smallest certified |f - g| (the break is missed)")

# ------------------------------------------------------------------------- the numeric core and the kernel
# Library code under every certificate and every proof: the float enclosures of the interval mode (Theorem 4.1's
# length for float-weight models), Assumption 4.2's coverage checker at its exact boundary, the proof kernel's guards.
mutation("izzo-enclosure-lower-rounded-up", "izzo2025:thm4.1", "bounds/float_enclosures.py",
         "def _down(x, mid, rad):\n    return x - (", "def _down(x, mid, rad):\n    return x + (",
         "wrong rounding direction: the lower end of every enclosure rounded up (an exact endpoint falls outside)")
mutation("izzo-enclosure-matmul-drops-rounding", "izzo2025:thm4.1", "bounds/float_enclosures.py",
         "rad = gamma_n(n) * (am @ bm)", "rad = 0 * (am @ bm)",
         "dropped radius term: the float dot product's rounding error gamma_n |a| |b| (Higham Lemma 3.1)")
mutation("izzo-enclosure-matmul-drops-b-radius", "izzo2025:thm4.1", "bounds/float_enclosures.py",
         "rad = rad + am @ b.rad", "rad = rad + 0 * (am @ b.rad)",
         "dropped radius term: the right factor's radius |a_mid| rad_b")
mutation("izzo-enclosure-matmul-a-radius-short", "izzo2025:thm4.1", "bounds/float_enclosures.py",
         "a.rad @ (bm + b.rad)", "a.rad @ bm",
         "dropped radius term: rad_a rad_b (the left radius times the right one)")
mutation("izzo-enclosure-add-drops-rounding", "izzo2025:thm4.1", "bounds/float_enclosures.py",
         "rad = a.rad + b.rad + np.abs(mid) * U", "rad = a.rad + b.rad",
         "dropped radius term: the rounding error of the float sum")
mutation("izzo-enclosure-from-floats-unrounded", "izzo2025:thm4.1", "bounds/float_enclosures.py",
         "np.abs(mid) * rel * (1 + 4 * U) + TINY", "np.abs(mid) * rel + TINY",
         "radius rounded to nearest: fl(|mid| rel) may fall below the exact relative error it must cover")
mutation("golowich-coverage-twice-allowed", "golowich2025:asm4.2", "constructions/golowich/assumptions.py",
         "        if e > eta(l):", "        if e > 2 * eta(l):",
         "loosened check: Assumption 4.2 accepted while the needed eta_l is up to twice the allowed one")
mutation("golowich-coverage-limit-refused", "golowich2025:asm4.2", "constructions/golowich/assumptions.py",
         "        if e > eta(l):", "        if e >= eta(l):",
         "swapped comparison: an eta_l exactly at the allowed value is refused")
mutation("kernel-accepts-contradictory-hypotheses", ("ahuja2024:thm4", "izzo2025:eq1"), "verify/kernel.py",
         "            if solver.check() != z3.sat:\n", "            if False:\n",
         "dropped guard: a z3 step whose hypotheses contradict each other (it proves any goal) is accepted")
mutation("kernel-unknown-is-proved", ("ahuja2024:thm4", "izzo2025:eq1"), "verify/kernel.py",
         'return Outcome(False, f"unknown (', 'return Outcome(True, f"unknown (',
         "dropped guard: a z3 answer 'unknown' (a timeout) counts as a proof")
mutation("izzo-corrected-hardmax-side-short", "izzo2025:thm4.1.corrected", "bounds/corrected.py",
         "return H + self.period * (self.sigma + 4)", "return H + self.period * (self.sigma + 3)",
         "shrunk term: the code's N_H = H + Delta (|Sigma| + 4) one residue period per symbol short")
mutation("izzo-corrected-n1-floor", "izzo2025:thm4.1.corrected", "bounds/corrected.py",
         "self.length_at(math.ceil(self.growth()))", "self.length_at(math.floor(self.growth()))",
         "shrunk term: N_1 from the scaled count lambda theta^-k rounded down instead of up")
mutation("golowich-table2-preset-lmax", "golowich2025:tab2", "bounds/experiments/golowich2025.py",
         "k_test=(4, 6, 8, 10, 12, 14, 16), L_max=510)", "k_test=(4, 6, 8, 10, 12, 14, 16), L_max=500)",
         "library preset off Table 2: the paper preset of the sparse-parity experiment with L_max = 500")
mutation("golowich-table3-preset-runs", "golowich2025:tab3", "bounds/experiments/golowich2025.py",
         "_PAPER_ARCH,\n                        10, 64, 50000", "_PAPER_ARCH,\n                        3, 64, 50000",
         "library preset off Table 3: the paper preset of the scratchpad experiment with 3 runs instead of 10")
mutation("huang-inference-picks-max-R-identification",
         ("huang2024:thm7.bounded", "huang2024:thm23", "huang2024:thm23.bounded", "huang2024:cor18",
          "huang2024:cor18.bounded"),
         "constructions/huang/inference.py",
         "R, _, best = min(scored, key=lambda s: (s[0], s[1]))", "R, _, best = max(scored, key=lambda s: (s[0], s[1]))",
         "the library's inference picks the candidate of largest regulariser: the identification results of "
         "Theorems 7 and 23 and Corollary 18 on the bounded class no longer hold")
mutation("golowich-attention-halved", "golowich2025:asm-d1", "constructions/golowich/model.py",
         "    if den:\n        return num / den\n", "    if den:\n        return num / (den + den)\n",
         "wrong normalisation: Definition 3.3's head divides by twice the total weight (outputs halved)")
mutation("golowich-span-one-more", ("golowich2025:thm4.3.eq7", "golowich2025:thm4.3.eq8-9",
                                    "golowich2025:thm4.3.eq10"), "constructions/golowich/model.py",
         "    return S[-1] - S[0]\n", "    return S[-1] - S[0] + 1\n",
         "off-by-one: span S = max S - min S + 1 (the locality of the planted sets misread)")
mutation("huang-oracle-zero-two-star-loose", "huang2024:lem36", "constructions/crasp/oracles.py",
         '_ZERO_TWO_STAR = re.compile(r"[012]*02*")', '_ZERO_TWO_STAR = re.compile(r"[012]*0[12]*")',
         "wrong oracle: {0,1,2}*0{1,2}* accepts a 1 after the last 0 (no longer Sigma* b e* renamed)")
mutation("golowich-fig1-threshold-code-loose", "golowich2025:fig1", "bounds/experiments/golowich2025.py",
         "    while L >= 4 * span(tuple(range(1, 2 * (k + 1) + 1))):", "    while L >= 3 * span(tuple(range(1, 2 * (k + 1) + 1))):",
         "library threshold loosened: the experiment's Theorem 4.3 cut-off reads L >= 3 L_local instead of 4 L_local")
