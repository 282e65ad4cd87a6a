"""Quantitative length-generalization bounds (Izzo et al. Theorem 4.1): margin, norms, the estimate CLI."""
