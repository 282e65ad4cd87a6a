"""Checks of izzo2025's claims (claim-linked tests; see verify/registry/)."""
