"""Checks of ahuja2024's claims (claim-linked tests; see verify/registry/)."""
