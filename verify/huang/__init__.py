"""Checks of Huang et al. (2024) that go beyond the constructions' own tests."""
