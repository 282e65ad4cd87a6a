"""Mutations that the linked checks of verified claims must reject (run them: ``python -m verify.mutate``).

Each edit breaks one thing a claim depends on: a hypothesis of a proof step, a constant of a bound, a rounding
rule, a validation, a slope of Lemma 37's eventual forms, or a committed data record.  A claim whose checks
catch none of its mutations shows ``passing``, never ``verified*`` (:mod:`verify.status`).
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

# ---------------------------------------------------------------------------------------- golowich2025
mutation("golowich-eq8-drop-etaL", "golowich2025:thm4.3.eq8-9", "verify/golowich/thm43.py",
         'put("eq8", e8, etaL * L * delta)', 'put("eq8", e8, L * delta)',
         "changed constant: the bound of (8) without the factor eta_L")
mutation("golowich-eq8-drop-L", "golowich2025:thm4.3.eq8-9", "verify/golowich/thm43.py",
         'put("eq8", e8, etaL * L * delta)', 'put("eq8", e8, etaL * delta)',
         "changed constant: the bound of (8) without the factor L")

# ------------------------------------------------------------------------------------------- huang2024
mutation("huang-lem37-zero-slope", ("huang2024:lem37", "huang2024:lem11.aa-star"), "constructions/crasp/unary.py",
         "v = 1 if p.b else 0\n", "v = 0\n",
         "Lemma 37's eventual form of a Count loses its slope (the certificate of aa* rests on it)")
mutation("huang-lem41-zero-slope", ("huang2024:lem41", "huang2024:lem11.parity"), "constructions/crasp/unary.py",
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
