"""Counterexamples: mechanically found and exactly re-checked failures of length generalization."""
