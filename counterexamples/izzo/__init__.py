"""Izzo et al. (2025) counterexample pairs: the tau = 0 bump pair against Theorem 4.1 and the printed-logit-margin
witness against the sec. 3.2 hardmax claim (witnesses)."""
