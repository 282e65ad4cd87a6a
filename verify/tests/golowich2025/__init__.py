"""Checks of golowich2025's claims (claim-linked tests; see verify/registry/)."""
