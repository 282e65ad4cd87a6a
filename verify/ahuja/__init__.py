"""Mechanical re-derivations of ahuja2024 (Ahuja & Mansouri): one module per argument, each building a Proof."""
