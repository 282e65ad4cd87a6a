"""Checks of huang2024's claims (claim-linked tests; see verify/registry/)."""
