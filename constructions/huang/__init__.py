"""Huang et al.'s main theorem, executed: Theta_n, the regularizer R, Lemma 47, Lemma 52 and the Inference
Procedure on bounded classes (docs/huang_theta.md, docs/huang_inference.md)."""
