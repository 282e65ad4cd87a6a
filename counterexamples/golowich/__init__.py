"""Golowich et al. (2025) necessity counterexamples: exact model (model), assumption checkers
(assumptions), the Proposition C.3 witnesses (witnesses, closed_forms) and the z3/Hypothesis search (search)."""
