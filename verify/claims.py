"""Claim registry: every paper statement has an address ``paper:number`` and a status.

Claims are registered by the modules of :mod:`verify.registry` (one module per paper or topic, with
disjoint keys).  Tests link themselves to the claims they check with :func:`checks`::

    from verify.claims import checks

    @checks("izzo2025:thm4.1")
    def test_something(): ...

``python -m verify.report`` lists every claim with its status and the tests behind it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass

STATUSES = ("verified", "verified-numerically", "refuted", "gap", "unchecked")
PAPERS = ("ahuja2024", "izzo2025", "golowich2025", "huang2024")
_KEY = re.compile(r"^(?P<paper>[a-z]+\d{4}):(?P<label>[a-z0-9][a-z0-9.\-]*)$")


class ClaimError(ValueError):
    """A claim key is malformed, unknown, registered twice, or has an invalid status."""


@dataclass(frozen=True)
class Claim:
    """One paper statement.

    key:       ``paper:label`` e.g. ``izzo2025:thm4.1`` (labels: thm, lem, prop, cor, def, asm, eq, sec, fig, ...).
    statement: how the paper names it, e.g. ``"Theorem 4.1"``.
    summary:   one line saying what the statement claims.
    status:    one of :data:`STATUSES`.
    evidence:  what backs the status (test module, gap entry in docs/gaps.md, reason it is unchecked).
    """

    key: str
    statement: str
    summary: str
    status: str = "unchecked"
    evidence: str = ""

    @property
    def paper(self) -> str:
        return self.key.split(":", 1)[0]


_REGISTRY: dict[str, Claim] = {}
_LOADED = False


def register(key: str, statement: str, summary: str, status: str = "unchecked", evidence: str = "") -> Claim:
    """Register a claim; raises :class:`ClaimError` on a malformed key, bad status or duplicate."""
    m = _KEY.match(key)
    if m is None:
        raise ClaimError(f"malformed claim key {key!r}: expected 'paper:label', e.g. 'izzo2025:thm4.1'")
    if m.group("paper") not in PAPERS:
        raise ClaimError(f"claim key {key!r} names unknown paper {m.group('paper')!r}; known: {', '.join(PAPERS)}")
    if status not in STATUSES:
        raise ClaimError(f"claim {key!r} has status {status!r}; use one of {', '.join(STATUSES)}")
    if key in _REGISTRY:
        raise ClaimError(f"claim {key!r} is registered twice")
    c = Claim(key, statement, summary, status, evidence)
    _REGISTRY[key] = c
    return c


def load_all() -> dict[str, Claim]:
    """Import every module of :mod:`verify.registry` once and return the registry (key -> Claim)."""
    global _LOADED
    if not _LOADED:
        import verify.registry as pkg

        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            importlib.import_module(f"{pkg.__name__}.{info.name}")
        _LOADED = True
    return dict(_REGISTRY)


def get(key: str) -> Claim:
    """The registered claim ``key``; raises :class:`ClaimError` if unknown."""
    reg = load_all()
    if key not in reg:
        raise ClaimError(f"unknown claim {key!r}: register it in a module of verify/registry/")
    return reg[key]


def checks(*keys: str):
    """Pytest marker linking a test to the claims it checks (keys are validated at collection)."""
    import pytest

    if not keys:
        raise ClaimError("checks() needs at least one claim key")
    return pytest.mark.claims(*keys)
