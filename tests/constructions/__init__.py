"""Unit tests of constructions/ (library code; claim-linked tests live in verify/tests/)."""
