"""Unit tests of bounds/ (library code; claim-linked tests live in verify/tests/)."""
