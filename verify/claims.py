"""Claim registry: every paper statement has an address ``paper:number`` and a declared *strength*.

Claims are registered by the modules of :mod:`verify.registry` (one module per paper or topic, with
disjoint keys) and by any installed package that declares a ``lengthgen.claims`` entry point (see
docs/own_claims.md).  Tests link themselves to the claims they check with :func:`checks`::

    from verify.claims import checks

    @checks("izzo2025:thm4.1")
    def test_something(): ...

A claim's *status* is never declared: :mod:`verify.status` computes it from the declared strength, the
outcome of its linked checks in the last recorded run (:mod:`verify.results`) and whether a mutation of the
code it depends on was caught by those checks (:mod:`verify.mutate`).  ``python -m verify.report`` prints it.

Strengths (what the linked checks establish when they pass; docs/claims.md defines them in full):

``as-stated``        the statement as the paper states it, for all its instances (symbolic proof,
                     decision procedure, or exhaustive check of a finite statement; elementary algebraic or
                     order facts may be cited by name).
``steps-cited``      every algebraic step discharged mechanically in general; analysis steps (continuity,
                     density, analyticity, compactness) only cited with their statement.
``bounded-instances`` the statement (or its proof steps) checked exactly on finitely many instances
                     (chosen examples, bounded lengths or sizes); nothing is claimed beyond them.
``numerical``        floating-point evidence (training runs, sampled estimates) within a stated tolerance.
``proof-script-only`` the argument is checked by a proof script of ``verify/`` that runs no library code of
                     the package (the mathematics, not the package's code).
``refuted``          a witness, checked exactly, contradicts the statement as printed.
``gap``              a step of the published argument is wrong, missing or ill-posed (witness in docs/gaps.md).
``unchecked``        no check backs the statement.

A claim of strength ``bounded-instances`` also says what its instances leave out (``leaves_out=``: the
lengths, sizes, parameter ranges or cases not covered), a ``steps-cited`` claim names the steps that are cited
rather than discharged (``cited=``), and an ``unchecked`` claim says in its evidence why no executable check is
possible; ``python -m verify.report`` prints all three.

Old-style calls ``register(key, statement, summary, status, evidence)`` keep working: the legacy status
maps conservatively (:data:`LEGACY_STATUS`): ``"verified"`` declares only ``bounded-instances``; pass
``strength=`` to declare more.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from dataclasses import dataclass

#: the strength vocabulary: what the linked checks establish when they pass (docs/claims.md prints it)
STRENGTH_MEANING = {
    "as-stated": "the statement as the paper states it, for all its instances (symbolic proof, decision "
                 "procedure, or exhaustive check of a finite statement; an elementary algebraic or order fact may be "
                 "cited by name, a cited analysis step makes it steps-cited)",
    "steps-cited": "every algebraic step discharged mechanically in general; analysis steps (continuity, "
                   "density, analyticity, compactness) only cited with their statement",
    "bounded-instances": "the statement or its proof steps checked exactly on finitely many instances "
                         "(chosen examples, bounded lengths or sizes); nothing is claimed beyond them",
    "numerical": "floating-point evidence (training runs, sampled estimates) within a stated tolerance",
    "proof-script-only": "the paper's argument is checked by a proof script of verify/ that runs no library code "
                         "(nothing of constructions/, bounds/, counterexamples/): it shows the mathematics, not "
                         "that any code of the package computes it; caught mutations of the script show its steps "
                         "can fail",
    "refuted": "a witness, checked exactly, contradicts the statement as printed",
    "gap": "a step of the published argument is wrong, missing or ill-posed (witness in docs/gaps.md)",
    "unchecked": "no check backs the statement",
}
STRENGTHS = tuple(STRENGTH_MEANING)
#: strengths about library code that, backed by passing checks and a caught mutation of library code
#: (:func:`verify.inputs.is_library`), earn a ``verified*`` status
VERIFYING = ("as-stated", "steps-cited", "bounded-instances", "numerical")
#: the strength of a claim whose checks run no library code: a caught mutation of its proof script earns
#: ``verified-script``, never ``verified``
SCRIPT_ONLY = "proof-script-only"
#: strengths that report a finding (a witness against the paper); the witness checks must pass
FINDINGS = ("refuted", "gap")
#: the strength an old-style ``status`` argument declares (conservative: "verified" is not "as-stated")
LEGACY_STATUS = {"verified": "bounded-instances", "verified-numerically": "numerical", "refuted": "refuted",
                 "gap": "gap", "unchecked": "unchecked"}
#: accepted values of the legacy ``status`` argument
STATUSES = tuple(LEGACY_STATUS)

_PAPER = re.compile(r"^[a-z]+\d{4}[a-z]?$")
_KEY = re.compile(r"^(?P<paper>[a-z]+\d{4}[a-z]?):(?P<label>[a-z0-9][a-z0-9.\-]*)$")
#: papers known to the registry: key -> citation; extended by :func:`register_paper`
PAPERS: dict[str, str] = {
    "ahuja2024": "Ahuja & Mansouri 2024, On Provable Length and Compositional Generalization",
    "izzo2025": "Izzo et al. 2025, Quantitative bounds for length generalization in transformers",
    "golowich2025": "Golowich et al. 2025, The role of sparsity for length generalization in transformers",
    "huang2024": "Huang et al. 2024, A formal framework for understanding length generalization in transformers",
}
#: the papers whose claims ship with lengthgen (their checks live in the ``verify`` package)
BUILTIN_PAPERS = tuple(PAPERS)
#: environment variable naming extra claim modules to import (comma-separated), beside entry points
CLAIMS_ENV = "LENGTHGEN_CLAIMS"
#: entry-point group of installed packages that register claims of their own papers
ENTRY_POINT_GROUP = "lengthgen.claims"


class ClaimError(ValueError):
    """A claim key is malformed, unknown, registered twice, or has an invalid strength."""


@dataclass(frozen=True)
class Claim:
    """One paper statement.

    key:       ``paper:label`` e.g. ``izzo2025:thm4.1`` (labels: thm, lem, prop, cor, def, asm, eq, sec, fig, ...).
    statement: how the paper names it, e.g. ``"Theorem 4.1"``.
    summary:   one line saying what the statement claims.
    strength:  one of :data:`STRENGTHS`: what the linked checks establish when they pass.
    evidence:  what backs the strength (check module, gap entry in docs/gaps.md, reason it is unchecked).
    leaves_out: for ``bounded-instances`` (and ``numerical``) claims, what the checked instances do not cover.
    cited:     for ``steps-cited`` claims, the steps of the proof that are cited, not discharged (why the claim is
               not ``as-stated``).
    covers:    for ``proof-script-only`` claims, how far the proof script reaches: one of :data:`VERIFYING` (e.g.
               ``as-stated``: the script proves the statement for all its instances, with no library code).
    """

    key: str
    statement: str
    summary: str
    strength: str = "unchecked"
    evidence: str = ""
    leaves_out: str = ""
    cited: str = ""
    covers: str = ""

    @property
    def paper(self) -> str:
        return self.key.split(":", 1)[0]


_REGISTRY: dict[str, Claim] = {}
_LOADED = False


def register_paper(key: str, citation: str) -> None:
    """Declare a paper so that claims ``key:label`` can be registered (idempotent for the same citation)."""
    if not _PAPER.match(key):
        raise ClaimError(f"malformed paper key {key!r}: expected author + year, e.g. 'smith2020'")
    if PAPERS.get(key, citation) != citation:
        raise ClaimError(f"paper {key!r} is already registered as {PAPERS[key]!r}")
    PAPERS[key] = citation


def register(key: str, statement: str, summary: str, status: str | None = None, evidence: str = "",
             *, strength: str | None = None, leaves_out: str = "", cited: str = "", covers: str = "") -> Claim:
    """Register a claim; raises :class:`ClaimError` on a malformed key, bad strength or duplicate.

    Give ``strength`` (one of :data:`STRENGTHS`); the legacy positional ``status`` is mapped by
    :data:`LEGACY_STATUS` when no strength is given.  ``leaves_out``: what the instances of a
    ``bounded-instances`` claim do not cover (the report prints it); ``cited``: the steps a ``steps-cited``
    claim cites rather than discharges (the report prints them); ``covers``: for a ``proof-script-only`` claim,
    the strength its proof script reaches (as-stated, steps-cited, bounded-instances or numerical).
    """
    m = _KEY.match(key)
    if m is None:
        raise ClaimError(f"malformed claim key {key!r}: expected 'paper:label', e.g. 'izzo2025:thm4.1'")
    if m.group("paper") not in PAPERS:
        raise ClaimError(f"claim key {key!r} names unknown paper {m.group('paper')!r}; known: "
                         f"{', '.join(PAPERS)} (declare yours with verify.claims.register_paper)")
    if status is not None and status not in LEGACY_STATUS:
        raise ClaimError(f"claim {key!r} has status {status!r}; use one of {', '.join(STATUSES)} "
                         f"or strength= one of {', '.join(STRENGTHS)}")
    if strength is None:
        strength = LEGACY_STATUS[status or "unchecked"]
    if strength not in STRENGTHS:
        raise ClaimError(f"claim {key!r} has strength {strength!r}; use one of {', '.join(STRENGTHS)}")
    if (strength == SCRIPT_ONLY) != bool(covers) or (covers and covers not in VERIFYING):
        raise ClaimError(f"claim {key!r}: covers= (one of {', '.join(VERIFYING)}) is given exactly for strength "
                         f"{SCRIPT_ONLY!r}")
    if key in _REGISTRY:
        raise ClaimError(f"claim {key!r} is registered twice")
    c = Claim(key, statement, summary, strength, evidence, leaves_out, cited, covers)
    _REGISTRY[key] = c
    return c


def _extra_modules() -> list[str]:
    """Claim modules of other packages: ``lengthgen.claims`` entry points and :data:`CLAIMS_ENV`."""
    from importlib.metadata import entry_points

    mods = [ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)]
    mods += [m.strip() for m in os.environ.get(CLAIMS_ENV, "").split(",") if m.strip()]
    return mods


def load_all() -> dict[str, Claim]:
    """Import every module of :mod:`verify.registry` and every extra claim module once; return the registry."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        import verify.registry as pkg

        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            importlib.import_module(f"{pkg.__name__}.{info.name}")
        for name in _extra_modules():
            try:
                importlib.import_module(name)
            except ImportError as exc:
                raise ClaimError(f"cannot import claim module {name!r}: {exc}") from exc
    return dict(_REGISTRY)


def get(key: str) -> Claim:
    """The registered claim ``key``; raises :class:`ClaimError` if unknown."""
    reg = load_all()
    if key not in reg:
        raise ClaimError(f"unknown claim {key!r}: register it in a module of verify/registry/ "
                         f"(or in a claim module of your own, docs/own_claims.md)")
    return reg[key]


def checks(*keys: str):
    """Pytest marker linking a test to the claims it checks (keys are validated at collection)."""
    import pytest

    if not keys:
        raise ClaimError("checks() needs at least one claim key")
    return pytest.mark.claims(*keys)
