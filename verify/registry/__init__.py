"""Claim declarations, one module per paper or topic (keys must be disjoint across modules)."""
