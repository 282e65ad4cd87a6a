"""Proof chains for izzo2025 statements (the corrected Theorem 4.1 of bounds/corrected.py)."""
