"""Library mutations of a campaign of plausible single edits (run them: ``python -m verify.mutate --name NAME``).

Each edit is of a kind a careless change to the library could make: a rounding direction flipped in an enclosure
or interval routine, a radius or error term dropped, ``<`` for ``<=`` at a threshold, a tolerance doubled, an
off-by-one in a length, count or index, a guard or refusal removed, a solver's 'unknown' treated as proved, a
constant of a formula changed.  They are spread over the library code that claims depend on (the float enclosures,
the interval margin, the theorem modules of ``bounds/``, the hardmax threshold and the precision model, the C-RASP
interpreter, the Limit Transformer, the counterexample builders, the proof kernel), and each names the claim whose
linked checks cover that code.  docs/mutation_campaign.md lists them with the outcome of the claim-linked checks
before and after the tests added for the survivors, and the edit left out as equivalent.
"""

from verify.mutate import mutation

_FE = "bounds/float_enclosures.py"
_IM = "bounds/interval_margin.py"
_CO = "bounds/corrected.py"
_KE = "verify/kernel.py"

# ----------------------------------------------------------------------------------- the float enclosures
mutation("lib-fe-upper-rounded-down", "izzo2025:thm4.1", _FE,
         "    return x + (np.abs(x) * 2 * U + TINY)", "    return x - (np.abs(x) * 2 * U + TINY)",
         "wrong rounding direction: the upper end of every enclosure rounded down")
mutation("lib-fe-ball-half-unit", "izzo2025:thm4.1", _FE,
         "rad = np.abs(mid) * U + TINY", "rad = np.abs(mid) * (U / 2) + TINY",
         "radius halved: a Fraction rounded to the nearest double is enclosed with u/2 instead of u")
mutation("lib-fe-magnitude-drops-radius", "izzo2025:thm4.1", _FE,
         "return _up(np.abs(self.mid) + self.rad, self.mid, self.rad)",
         "return _up(np.abs(self.mid), self.mid, self.rad)",
         "dropped radius term: the magnitude bound |mid| without the radius")
mutation("lib-fe-gamma-off-by-one", "izzo2025:thm4.1", _FE,
         "return n * U / (1 - n * U) * (1 + 4 * U)", "return (n - 1) * U / (1 - n * U) * (1 + 4 * U)",
         "off-by-one: Higham's gamma_n computed as gamma_{n-1}")
mutation("lib-fe-sqnorm-unrounded", "izzo2025:thm4.1", _FE,
         "return s * (1 + gamma_n(n + 2)) + (n + 1) * TINY", "return s + (n + 1) * TINY",
         "dropped error term: the float sum of squares taken as an upper bound without its rounding allowance")
mutation("lib-fe-add-unrounded", "izzo2025:thm4.1", _FE,
         "return Ball(mid, rad * (1 + 4 * U) + TINY)", "return Ball(mid, rad + TINY)",
         "dropped error term: the radius of a sum not inflated for the rounding of its own computation")
mutation("lib-fe-matmul-uninflated", "izzo2025:thm4.1", _FE,
         "return Ball(mid, rad * (1 + gamma_n(n + 4)) + (n + 2) * TINY)", "return Ball(mid, rad + (n + 2) * TINY)",
         "dropped error term: the radius of a product not inflated for the rounding of its own computation")

# ----------------------------------------------------------------------------------- the interval margin
mutation("lib-im-detail-one-radius", "izzo2025:thm4.1", _IM,
         "r2 = 2 * np.max(np.where(np.isfinite(mid), rad, 0), axis=1, keepdims=True)",
         "r2 = np.max(np.where(np.isfinite(mid), rad, 0), axis=1, keepdims=True)",
         "dropped radius term: the gap of two enclosed logits lowered by one radius instead of two")
mutation("lib-im-first-pass-one-radius", "izzo2025:thm4.1", _IM,
         "    return np.where(np.isfinite(gap), (gap - 2 * radius)", "    return np.where(np.isfinite(gap), (gap - radius)",
         "dropped radius term: the first pass's sorted gap lowered by one radius instead of two")
mutation("lib-im-unresolved-ignored", "izzo2025:thm4.1", _IM,
         "    if search.unresolved:\n        return IntervalMargin(Fraction(0), True",
         "    if False:\n        return IntervalMargin(Fraction(0), True",
         "dropped guard: near-ties that were not decided exactly are ignored, and a positive margin is reported")
mutation("lib-im-far-radius-unrounded", "izzo2025:thm4.1", _IM,
         "radius = (rad_sum + mag * U) * (1 + 4 * U) + TINY", "radius = rad_sum + TINY",
         "dropped error term: the rounding of the far logits' sums left out of their radius")

# ----------------------------------------------------------------------------------- margin, hardmax, precision
mutation("lib-margin-last-query-token-skipped", "izzo2025:def-gamma", "bounds/margin.py",
         "        for y in range(1, len(model.alphabet) + 1):\n            for i in range(delta):\n"
         "                vals = sorted(",
         "        for y in range(1, len(model.alphabet)):\n            for i in range(delta):\n"
         "                vals = sorted(",
         "off-by-one: the exact margin never looks at queries of the last alphabet symbol")
mutation("lib-hardmax-zero-margin-accepted", "izzo2025:sec3.2-hardmax", "constructions/limit_transformer/hardmax.py",
         "    if g <= 0:\n        raise HardmaxError(f\"the logit margin must be positive, got {g}\")\n"
         "    if precision_bits",
         "    if g < 0:\n        raise HardmaxError(f\"the logit margin must be positive, got {g}\")\n"
         "    if precision_bits",
         "refusal weakened: a logit margin of 0 (a tie, no hardmax regime) passes the guard")
mutation("lib-iroot-exact-power", "izzo2025:sec3.2-hardmax", "constructions/limit_transformer/precision.py",
         "    while (x + 1) ** k <= a:", "    while (x + 1) ** k < a:",
         "swapped comparison: the integer k-th root is one short at an exact power")

# ----------------------------------------------------------------------------------- the corrected theorem
mutation("lib-corrected-a-factor-two", "izzo2025:thm4.1.corrected", _CO,
         "return 2 * (self.sigma * self.period * (1 + 1 / self.lam) + (1 + self.window) / self.lam)",
         "return (self.sigma * self.period * (1 + 1 / self.lam) + (1 + self.window) / self.lam)",
         "changed constant: the budget coefficient a without its factor 2 (normalization lemma)")
mutation("lib-corrected-den-drops-period", "izzo2025:thm4.1.corrected", _CO,
         "theta * (self.window + self.period)", "theta * self.window",
         "dropped term: the padding denominator without Delta theta")
mutation("lib-corrected-c-constant", "izzo2025:thm4.1.corrected", _CO,
         "self.sigma * self.lam + self.sigma + 3", "self.sigma * self.lam + self.sigma + 2",
         "changed constant: the padding factor |Sigma| lambda + |Sigma| + 2 instead of + 3")
mutation("lib-corrected-budget-doubled", "izzo2025:thm4.1.corrected", _CO,
         "self.budget(theta) <= self.eta", "self.budget(theta) <= 2 * self.eta",
         "tolerance doubled: theta admitted while a theta + rho* is up to twice eta")
mutation("lib-corrected-trivial-length-short", "izzo2025:thm4.1.corrected", _CO,
         "return 1 + w + D * (S + 1)", "return 1 + w + D * S",
         "off-by-one: the trivial case's N_1 = 1 + w + Delta |Sigma| (one residue period short)")
mutation("lib-corrected-trivial-hardmax-short", "izzo2025:thm4.1.corrected", _CO,
         "return H + self.period - 1", "return H + self.period - 2",
         "off-by-one: the trivial case's N_H = H + Delta - 2")
mutation("lib-corrected-trivial-threshold", "izzo2025:thm4.1.corrected", _CO,
         "if eta is None or eta >= 2 or heads == 0:", "if eta is None or eta >= 1 or heads == 0:",
         "changed threshold: the trivial case (any z works) taken for eta >= 1 (l1 distances reach 2)")
mutation("lib-corrected-single-model-heads", "izzo2025:thm4.1.corrected", _CO,
         "return 2 * ing.heads", "return ing.heads",
         "changed constant: a single model's class counted with its own heads only (the other member's missing)")
mutation("lib-corrected-single-model-K", "izzo2025:thm4.1.corrected", _CO,
         "return 2 * ing.moduli[0].K", "return ing.moduli[0].K",
         "changed constant: a single model's class modulus K without the other member's")
mutation("lib-modulus-sqrt-rounded-down", "izzo2025:thm4.1.corrected", "bounds/modulus.py",
         "return Fraction(math.isqrt(math.ceil(x * scale * scale)) + 1, scale)",
         "return Fraction(math.isqrt(math.floor(x * scale * scale)), scale)",
         "wrong rounding direction: the 'upper bound' of a square root rounded down")
mutation("lib-compression-stretch-tolerance-doubled", "izzo2025:thm4.1.corrected", "bounds/compression.py",
         "if phi(hi) <= target + Fraction(1, 2):", "if phi(hi) <= target + 1:",
         "tolerance doubled: the stretch stops at Phi <= Phi* + 1 (the proof's N_H needs Phi* + 1/2)")
mutation("lib-lower-bump-constant", "izzo2025:lower.bump", "bounds/lower.py",
         "q = cls.eps * (1 + XI) / (4 * cls.K)", "q = cls.eps * (1 + XI) / (2 * cls.K)",
         "changed constant: the bump's height eps (1 + xi)/(2K) instead of /(4K)")
mutation("lib-lower-bump-one-period-long", "izzo2025:lower.bump", "bounds/lower.py",
         "Length.at_least((Nb + 1) * cls.period + cls.window)", "Length.at_least((Nb + 2) * cls.period + cls.window)",
         "off-by-one: the lower bound claims one residue period more than the bump pair shows")
mutation("lib-estimate-sample-window-short", "izzo2025:thm4.1", "bounds/estimate.py",
         "    c = period * (tau + 1)\n", "    c = period * tau\n",
         "off-by-one: the sample length with tau instead of the window tau + 1")

# ----------------------------------------------------------------------------------- C-RASP, Limit Transformer
mutation("lib-crasp-comparison-strict", "huang2024:def8", "constructions/crasp/interpreter.py",
         "v = np.asarray(val[op.left] <= val[op.right], dtype=bool)",
         "v = np.asarray(val[op.left] < val[op.right], dtype=bool)",
         "swapped comparison: the interpreter's count comparison C1 <= C2 evaluated as C1 < C2")
mutation("lib-crasp-local-count-last-offset", "huang2024:def8", "constructions/crasp/interpreter.py",
         "                    if c < n:\n", "                    if c < n - 1:\n",
         "off-by-one: a local count drops the offset n - 1 (the first position seen from the last)")
mutation("lib-crasp-local-relation-drops-tau", "huang2024:def8", "constructions/crasp/ast.py",
         "return cls(frozenset(c for c, v in table.items() if v and c <= tau))",
         "return cls(frozenset(c for c, v in table.items() if v and c < tau))",
         "off-by-one: a tabulated local relation loses the offset tau itself")
mutation("lib-lt-local-phi-drops-tau", "huang2024:def3", "constructions/limit_transformer/model.py",
         "return self.values[off] if 0 <= off <= self.tau else Fraction(0)",
         "return self.values[off] if 0 <= off < self.tau else Fraction(0)",
         "off-by-one: the local positional term phi(j, i) is 0 at distance tau")

# ----------------------------------------------------------------------------------- counterexamples, assumptions
mutation("lib-golowich-coverage-last-set-skipped", "golowich2025:asm4.2", "constructions/golowich/assumptions.py",
         "                if T[-1] > lp:\n", "                if T[-1] >= lp:\n",
         "off-by-one: Assumption 4.2's inequality (i) skips the shifted sets that end at l'")
mutation("lib-golowich-coverage-same-length-skipped", "golowich2025:asm4.2", "constructions/golowich/assumptions.py",
         "    for lp in range(max(L_local, k), length + 1):", "    for lp in range(max(L_local, k), length):",
         "off-by-one: Assumption 4.2 is never checked against l' = l")
mutation("lib-golowich-coverage-boundary-length-skipped", "golowich2025:asm4.2",
         "constructions/golowich/assumptions.py",
         "        if l < max(L_local, ens.k):", "        if l <= max(L_local, ens.k):",
         "swapped comparison: the coverage check skips the length l = max(L_local, k)")
mutation("lib-golowich-pairs-constant", "golowich2025:prop-c3.coverage", "counterexamples/golowich/closed_forms.py",
         "return 1 - 2 / (n * (n - 1))", "return 1 - 1 / (n * (n - 1))",
         "changed constant: 1 - 1/(n(n-1)) for 1 - 1/C(n, 2) in the closed forms")
mutation("lib-periodic-local-degree-halved", "huang2024:sec3.finite-algorithms", "counterexamples/periodic_local.py",
         "    n_hi = n_lo + 2 * a\n", "    n_hi = n_lo + a\n",
         "changed constant: the agreement length from degree a instead of 2a in n")
mutation("lib-capacity-chain-strict", "ahuja2024:lem11", "counterexamples/capacity.py",
         "return all(b <= a for a, b in zip(chain, chain[1:], strict=False))",
         "return all(b < a for a, b in zip(chain, chain[1:], strict=False))",
         "swapped comparison: a chain is 'nonincreasing' only when strictly decreasing")
mutation("lib-capacity-stabilization-off-by-one", "ahuja2024:lem11", "counterexamples/capacity.py",
         "    while t0 > 1 and chain[t0 - 2] == chain[-1]:", "    while t0 > 2 and chain[t0 - 2] == chain[-1]:",
         "off-by-one: a chain constant from its first set is said to stabilize at index 2")

# ----------------------------------------------------------------------------------- the proof kernel
mutation("lib-kernel-empty-family-proves", ("ahuja2024:thm4", "izzo2025:eq1"), _KE,
         'return Outcome(False, "empty family: nothing was checked")',
         'return Outcome(True, "empty family: nothing was checked")',
         "dropped guard: an enumeration over no instance counts as proved")
mutation("lib-kernel-missing-control-accepted", ("ahuja2024:thm4", "izzo2025:eq1"), _KE,
         '            if st.method != "cited" and neg is None:\n', "            if False:\n",
         "dropped guard: a discharged step without a negative control is run")
mutation("lib-kernel-unrejected-control-accepted", ("ahuja2024:thm4", "izzo2025:eq1"), _KE,
         "        if r.negative_outcome is not None and r.negative_outcome.holds:\n", "        if False:\n",
         "dropped guard: a proof whose negative control is NOT rejected passes assert_proof")
mutation("lib-kernel-float-identity-allowed", ("ahuja2024:thm4", "izzo2025:eq1"), _KE,
         "        if _has_float(self.lhs) or _has_float(self.rhs):\n", "        if False:\n",
         "dropped refusal: a sympy identity with float constants is decided (floats are not exact)")
mutation("lib-kernel-quantifier-allowed", ("ahuja2024:thm4", "izzo2025:eq1"), _KE,
         "        if z3.is_quantifier(e):\n", "        if False:\n",
         "dropped refusal: a z3 step with a quantifier is handed to the solver (unknown is likely, a proof not "
         "ground)")
mutation("lib-kernel-enumeration-failure-ignored", ("ahuja2024:thm4", "izzo2025:eq1"), _KE,
         "            if not self.predicate(inst):\n                return Outcome(False",
         "            if False:\n                return Outcome(False",
         "dropped check: an enumeration step holds whatever its predicate says")

# ----------------------------------------------------------------------------------- claims about library code
# Claims whose only mutations were of proof scripts: a mutation of the library code their checks run.
mutation("lib-golowich-span-one-short", "golowich2025:def4.1", "constructions/golowich/model.py",
         "    return S[-1] - S[0]\n", "    return S[-1] - S[0] - 1\n",
         "off-by-one: span S = max S - min S - 1 (Definition 4.1's locality checked one too loose)")
mutation("lib-golowich-local-sets-drop-last-position", "golowich2025:thm4.3.blocks", "constructions/golowich/model.py",
         "        hi = min(ell, lo + local)\n", "        hi = min(ell - 1, lo + local)\n",
         "off-by-one: the sets that end at the last position are left out of the attention sum h_{g0,g1}")
mutation("lib-identify-series-product-short", "ahuja2024:thm9", "verify/identify.py",
         "    return [sum(p[i] * q[k - i] for i in range(k + 1)) for k in range(N + 1)]",
         "    return [sum(p[i] * q[k - i] for i in range(k)) for k in range(N + 1)]",
         "off-by-one: the Taylor series of a product drops the term p_k q_0 (every activation's coefficients change)")
mutation("lib-golowich-fig2-ablation-generalizes", "golowich2025:fig2", "docs/results/golowich2025-scratchpad-cpu.json",
         '"per_seed": {"12": [0.0078125, 0.015625], "20": [0.0, 0.0], "40": [0.0, 0.0]}',
         '"per_seed": {"12": [0.0078125, 0.015625], "20": [0.0, 0.0], "40": [1.0, 1.0]}',
         "corrupted record: the shifted-APE ablation of jump 1 answers every length-40 test right (above the "
         "coupled scheme beyond the training lengths)")

# ===================================================================================================================
# second campaign: bounds and kernel
# Written blind (from the library code, before reading the tests that cover it); docs/mutation_campaign.md,
# "Second campaign", records which the claim-linked checks caught before and after the tests added for survivors.
_CS = "bounds/certify/class_softmax.py"
_HZ = "bounds/certify/horizon.py"
_SE = "bounds/certify/search.py"
_IMO = "bounds/interval_model.py"
_KC = ("ahuja2024:thm4", "izzo2025:eq1")
_CERT = "izzo2025:sec5.certified-threshold"

# ----------------------------------------------------------------------------------- the proof kernel
mutation("lib2-kernel-unknown-proves", _KC, _KE,
         'return Outcome(False, f"unknown ({s.reason_unknown()}): not proved")',
         'return Outcome(True, f"unknown ({s.reason_unknown()}): not proved")',
         "solver failure as proof: a z3 step that timed out (unknown) counts as proved")
mutation("lib2-kernel-contradiction-accepted", _KC, _KE,
         "            if solver.check() != z3.sat:\n                raise AssertionError",
         "            if False:\n                raise AssertionError",
         "dropped refusal: a universal proof whose step has contradictory hypotheses (it proves any goal) passes")
mutation("lib2-kernel-control-method-unchecked", _KC, _KE,
         "            if neg is not None and neg.method != st.method:\n", "            if False:\n",
         "dropped guard: a negative control decided by another method than its step is accepted")
mutation("lib2-kernel-linalg-float-allowed", _KC, _KE,
         "        if any(_has_float(x) for x in m):\n", "        if False:\n",
         "dropped refusal: a float entry in an exact linear-algebra residual is decided")
mutation("lib2-kernel-float-rhs-unchecked", _KC, _KE,
         "        if _has_float(self.lhs) or _has_float(self.rhs):\n", "        if _has_float(self.lhs):\n",
         "weakened refusal: a float on the right-hand side of an exact identity is decided")
mutation("lib2-kernel-quantifier-goal-unchecked", _KC, _KE,
         "        for h in (*self.hypotheses, self.goal):\n", "        for h in self.hypotheses:\n",
         "weakened refusal: a quantifier in a z3 step's goal is handed to the solver")
mutation("lib2-kernel-quantifier-nested-unchecked", _KC, _KE,
         "        todo.extend(e.children())\n", "        todo.extend([])\n",
         "weakened refusal: only the top of a z3 formula is searched for quantifiers (one under And/Implies passes)")
mutation("lib2-kernel-step-count-short-accepted", _KC, _KE,
         "    if count is not None and len(results) != count:\n",
         "    if count is not None and len(results) > count:\n",
         "weakened check: a universal proof with fewer steps than its statement needs passes")

# ----------------------------------------------------------------------------------- the certificate
mutation("lib2-horizon-start-off-by-one", _CERT, _HZ,
         "    H = first - 1\n    for r in rows:\n", "    H = first\n    for r in rows:\n",
         "off-by-one: the certified horizon starts at the first length even when that length is not within")
mutation("lib2-horizon-fail-at-threshold", _CERT, _HZ,
         "        if r.lower > t_fail:\n            X, x_value = r.length, r.lower\n            witness = row_witness(r)\n"
         "            break\n    every",
         "        if r.lower >= t_fail:\n            X, x_value = r.length, r.lower\n            witness = row_witness(r)\n"
         "            break\n    every",
         "swapped comparison: an input whose lower end only reaches delta + eps is reported as failing")
mutation("lib2-certify-verdict-tolerance-doubled", _CERT, _SE,
         "    if upper <= d_lo + eps:\n", "    if upper <= d_lo + 2 * eps:\n",
         "tolerance doubled: 'certified' while the certified upper end of |f - g| is up to delta + 2 eps")
mutation("lib2-search-bnb-skips-first-length", _CERT, _SE,
         "rho_max = float(np.nextafter(1.0 / (N0 + 1), 1.0))", "rho_max = float(np.nextafter(1.0 / (N0 + 2), 1.0))",
         "off-by-one: the branch-and-bound over lengths > N0 starts at N0 + 2 (N0 + 1 is bounded by nobody)")
mutation("lib2-search-enumeration-short", _CERT, _SE,
         "    need = max(prob.delta + prob.w + 1, train_length or 0)\n",
         "    need = max(prob.delta + prob.w, train_length or 0)\n",
         "off-by-one: the enumeration before branch-and-bound stops at Delta + tau + 1 instead of Delta + tau + 2")
mutation("lib2-cs-exp-lower-rounded-up", _CERT, _CS,
         "np.exp(x_lo) * (1 - 2 * LIBM_REL)", "np.exp(x_lo) * (1 + 2 * LIBM_REL)",
         "wrong rounding direction: the lower end of the exp enclosure (softmax weights) rounded up")
mutation("lib2-cs-log-lower-unpadded", _CERT, _CS,
         "    return np.where(np.isneginf(a), -np.inf, a - pa), np.where",
         "    return np.where(np.isneginf(a), -np.inf, a), np.where",
         "dropped radius: the lower end of the log enclosure is numpy's log without the libm error allowance")
mutation("lib2-cs-thin-radius-dropped", _CERT, _CS,
         "    v = mid @ P.T + rad @ absP.T\n", "    v = mid @ P.T\n",
         "dropped radius term: the interval softmax weights of a concrete input used at their midpoint")
mutation("lib2-cs-relu-chord-intercept-dropped", _CERT, _CS,
         "        t_up = np.where(unstable, chord_t, 0.0)\n", "        t_up = np.where(active, chord_t, 0.0)\n",
         "dropped term: the intercept of the ReLU's upper chord (unstable units) left out of the bound")
mutation("lib2-cs-lf-max-unpadded", _CERT, _CS,
         "    out = best + pad\n", "    out = best\n",
         "dropped error term: the linear-fractional maximum without the rounding allowance of its cumulative sums")
mutation("lib2-wr-closure-forced-nonstrict", _CERT, "bounds/certify/weight_ratios.py",
         "    forced = H[:, idx, idx] < 0  # u_a = 0 on the whole box",
         "    forced = H[:, idx, idx] <= 0  # u_a = 0 on the whole box",
         "swapped comparison: a zero cycle of the ratio bounds (always there) marks entries absent and boxes empty")

# ----------------------------------------------------------------------------------- interval model and margin
mutation("lib2-im-fraction-taken-exact", "izzo2025:thm4.1", _IMO,
         "    exact = bool(np.all(pow2 | ~has_slash) and np.all(num < 2**53))",
         "    exact = bool(np.all(num < 2**53))",
         "dropped guard: 'a/b' with b not a power of two read as an exact double (radius 0)")
mutation("lib2-im-radius-one-rounding", "izzo2025:thm4.1", _IMO,
         "return Ball(mid, np.abs(mid) * (3 * U * (1 + 4 * U)) + TINY)",
         "return Ball(mid, np.abs(mid) * (U * (1 + 4 * U)) + TINY)",
         "radius too small: float(a) / float(b) (three roundings) enclosed with one rounding's radius")

# ----------------------------------------------------------------------------------- theorem modules
mutation("lib2-lower-chain-one-long", "izzo2025:lower.chain", "bounds/lower.py",
         "Length.at_least(S * cls.period + cls.window)", "Length.at_least(S * cls.period + cls.window + 1)",
         "off-by-one: the chain family's lower bound claims one length more than its pair agrees on")
mutation("lib2-modulus-drops-bos-class", "izzo2025:thm4.1.corrected", "bounds/modulus.py",
         "    return [0] + [t * d + r for t", "    return [t * d + r for t",
         "dropped term: the modulus's half-ranges leave out the $ item's value")
mutation("lib2-margin-bos-logit-dropped", "izzo2025:def-gamma", "bounds/margin.py",
         "        out.add(logit(0, bos_r))\n", "",
         "dropped term: the $ logit without a positional term left out of the completed logit set (gamma too large)")

# =================================================================================================================
# second campaign: constructions, counterexamples, proofs
# -----------------------------------------------------------------------------------------------------------------
# Written blind (from the library code, before reading the linked tests), replayed with each claim's own checks;
# docs/mutation_campaign.md ("Second campaign") lists the outcomes before and after the tests added for survivors.
_GA = "constructions/golowich/assumptions.py"
_GS = "counterexamples/golowich/search.py"
_CC = "constructions/crasp/compiler.py"
_PR = "constructions/limit_transformer/precision.py"
_PL = "counterexamples/periodic_local.py"
_CA = "counterexamples/capacity.py"
_ZS = "counterexamples/izzo/z3_search.py"

# ----------------------------------------------------------------------------------- Golowich assumptions, witnesses
mutation("lib2-golowich-coverage-factor-two", "golowich2025:asm4.2", _GA,
         "        if e > eta(l):\n", "        if e > 2 * eta(l):\n",
         "tolerance doubled: Assumption 4.2's checker accepts a needed eta_l up to twice the allowed one")
mutation("lib2-golowich-local-span-plus-one", "golowich2025:asm3.3", _GA,
         "            if span(S) <= L_local:\n", "            if span(S) <= L_local + 1:\n",
         "off-by-one: Assumption 3.3.1's checker never looks at sets of span L_local + 1")
mutation("lib2-golowich-relative-last-shift", "golowich2025:asm3.3", _GA,
         "            for i in range(1, lmax - S[-1] + 1):", "            for i in range(1, lmax - S[-1]):",
         "off-by-one: Assumption 3.3.2's checker skips the shift that moves a set to end at lmax")
mutation("lib2-golowich-recheck-minimiser-unchecked", "golowich2025:prop-c3.relative",
         "counterexamples/golowich/witnesses.py",
         "          and w.bad in names and c > 0)", "          and c > 0)",
         "dropped guard: a witness's failing hypothesis is accepted without being a training-risk minimiser")
mutation("lib2-golowich-recheck-worst-length", "golowich2025:prop-c3.coverage", "counterexamples/golowich/witnesses.py",
         "    c = min(test.values())\n", "    c = max(test.values())\n",
         "wrong extremum: the witness's test-risk constant is the largest over the test lengths, not the least")

# ----------------------------------------------------------------------------------- Golowich search
mutation("lib2-golowich-search-threshold-halved", "golowich2025:prop-c3.search", _GS,
         "        fails = test >= threshold\n", "        fails = 2 * test >= threshold\n",
         "tolerance doubled: the exact re-check accepts a test risk of half the required c")
mutation("lib2-golowich-search-timeout-unsat", "golowich2025:prop-c3.search", _GS,
         "        if res == z3.unknown:\n            return \"unknown\", None\n        model = s.model()",
         "        if res == z3.unknown:\n            return \"unsat\", None\n        model = s.model()",
         "solver failure as proof: a timed-out cell is reported unsat (no witness exists)")
mutation("lib2-golowich-search-timeout-complete", "golowich2025:prop-c3.search", _GS,
         "            if status == \"unknown\":\n                complete = False\n",
         "            if status == \"unknown\":\n                pass\n",
         "solver failure as proof: a search with timed-out cells is reported complete ('none found')")

# ----------------------------------------------------------------------------------- Izzo z3 search
mutation("lib2-izzo-z3-unknown-as-unsat", "izzo2025:thm4.1.search", _ZS,
         "    if r != z3.sat:\n        log.unknown += 1", "    if r != z3.sat:\n        log.unsat += 1",
         "solver failure as proof: a timed-out query is counted as unsat (no break)")
mutation("lib2-izzo-verify-break-agreement-short", "izzo2025:thm4.1.search", _ZS,
         "max_disagreement(f, g, n).max_disagreement > delta for n in range(1, N + 1)):",
         "max_disagreement(f, g, n).max_disagreement > delta for n in range(1, N)):",
         "off-by-one: the exact re-check of a break skips the agreement at length N itself")

# ----------------------------------------------------------------------------------- C-RASP compiler
mutation("lib2-compiler-guard-threshold-no-margin", "huang2024:thm9", _CC,
         "        if lo + gap / 4 <= thr <= hi - gap / 4:", "        if lo <= thr <= hi:",
         "changed constant: the guard threshold may sit on 1/(c+1) or 1/c (no quarter-gap margin)")
mutation("lib2-compiler-comparison-big-short", "huang2024:thm9", _CC,
         "            big = b.bounds[node.left] + b.bounds[node.right] + 1\n",
         "            big = b.bounds[node.left] + b.bounds[node.right]\n",
         "off-by-one: the comparison's '$' penalty K = M1 + M2 (not + 1), so ties at '$' are not forced to 0")
mutation("lib2-compiler-local-logit-p", "huang2024:thm9", _CC,
         "else Fraction(p + 1)\n    if lam < 1:", "else Fraction(p)\n    if lam < 1:",
         "changed constant: the local heads' default lambda = p instead of p + 1")
mutation("lib2-compiler-local-logit-guard", "huang2024:thm9", _CC,
         "    if lam < 1:\n        raise CompileError", "    if lam < 0:\n        raise CompileError",
         "refusal weakened: a local logit lambda in [0, 1) (no proof for the local heads) is compiled")

# ----------------------------------------------------------------------------------- finite-precision semantics
mutation("lib2-precision-flush-strict-at-power", "izzo2025:sec3.2-precision", _PR,
         "        return (n.bit_length() - 1) * u >= p * v\n", "        return (n.bit_length() - 1) * u > p * v\n",
         "swapped comparison: a term exactly 2^-p (n a power of two) survives the flush")
mutation("lib2-precision-huang-logit-unrounded", "huang2024:app-d2", _PR,
         "terms = [rounded_power(n, round_bits(a, p), p) for a in logits]",
         "terms = [rounded_power(n, a, p) for a in logits]",
         "dropped rounding step: the logits are not rounded to p bits before n^a (App. D.2)")
mutation("lib2-exact-far-count-short", "huang2024:def3", "constructions/limit_transformer/exact.py",
         "    count_far = np.maximum(q - tau, 0)\n", "    count_far = np.maximum(q - tau - 1, 0)\n",
         "off-by-one: the fast exact path counts one far key too few in the softmax denominator")

# ----------------------------------------------------------------------------------- periodic/local, capacity, unary
mutation("lib2-periodic-check-pair-short", "huang2024:faq7.periodic", _PL,
         "    first = first_exact_disagreement(m1, m2, N)\n", "    first = first_exact_disagreement(m1, m2, N - 1)\n",
         "off-by-one: the exact re-check of a pair's agreement stops one length short of N")
mutation("lib2-periodic-separation-doubled", "huang2024:sec3.finite-algorithms", _PL,
         "    tol = 0.5 / float(n ** (max_logit + 1)) ** 2\n", "    tol = 1.0 / float(n ** (max_logit + 1)) ** 2\n",
         "tolerance doubled: the float search separates outputs with the whole least gap instead of half")
mutation("lib2-capacity-witness-offset-unchecked", "ahuja2024:sec4.1-high-capacity", _CA,
         "        return self.matches_train and self.offset_beyond and self.c != 0",
         "        return self.matches_train and self.c != 0",
         "dropped check: a witness is accepted without h - f = c beyond T")
mutation("lib2-capacity-interval-enclosure-unchecked", "ahuja2024:sec4.4-high-capacity", _CA,
         "                ok = r.a <= 0 <= r.b and float(r.b - r.a) < width\n",
         "                ok = float(r.b - r.a) < width\n",
         "skipped re-check: the interval witness check only asks for a narrow interval, not one enclosing 0")
mutation("lib2-unary-eventual-threshold-short", "huang2024:lem37", "constructions/crasp/unary.py",
         "    return k // (-d) + 1\n", "    return k // (-d)\n",
         "off-by-one: a comparison's eventual value starts one position early (Lemma 37's threshold, falling slope)")
mutation("lib2-modp-target-empty-class", "izzo2025:app-a2.modp", "constructions/tasks/modp.py",
         "            elif bos_score > 0:  # only '$' is above the other rows\n                out.append(Fraction(0))",
         "            elif bos_score > 0:  # only '$' is above the other rows\n                out.append(Fraction(1))",
         "changed constant: the ModP target of a prefix with no attended position is 1, not 0")
