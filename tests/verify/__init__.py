"""Unit tests of verify/ library code (the proof-step kernel); claim-linked tests live in verify/tests/."""
