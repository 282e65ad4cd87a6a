"""Proof regression suite: mechanical re-derivations of the papers' identifiability arguments."""
