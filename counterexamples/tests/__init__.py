"""Tests of the counterexamples package."""
