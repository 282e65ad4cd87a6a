"""Golowich et al. (2025) necessity counterexamples: exact model (model), assumption checkers
(assumptions), the Proposition C.3 witnesses (witnesses, closed_forms), the z3 search (search) and the
Hypothesis randomized search (random_search).  CLI: ``python -m counterexamples.search``."""
