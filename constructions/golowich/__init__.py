"""Golowich et al. (2025) Section 3 and Assumptions 3.3-4.2: the exact finite model (one home, used by
verify/golowich and counterexamples/golowich)."""
