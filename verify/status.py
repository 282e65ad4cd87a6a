"""Earned statuses: a claim's status computed from its strength, its checks' last outcome and its mutations.

Nothing here is declared by hand.  The rules (docs/claims.md, "Statuses"):

* the *outcome* of a claim's checks (:func:`outcome`) is read from the results file for the tests linked to
  it *now* (records of tests no longer linked are ignored).  The required checks are the linked tests not
  marked ``slow`` (all linked tests when every one is slow).  ``fail``: some linked check failed in its
  last run; ``pass``: every required check passed; ``skipped``: every required check ran but none passed;
  ``not run``: none ran; ``partial``: some required checks did not run or were skipped; ``none``: no check
  is linked.
* the *mutation* state (:func:`mutation_state`): a record of a mutation run counts only for the mutation's
  current definition and only while every file that decided it is unchanged: the mutated file, the claim's
  required test files and the modules of ours they import (sha256 digests, :mod:`verify.inputs`); otherwise it
  is *stale*.  ``caught`` when a current record of a mutation of library code (:func:`verify.inputs.is_library`)
  made the claim's own checks fail; ``caught-script`` when only mutations of proof scripts were caught;
  ``stale`` when a record that caught is no longer current (the note names a changed file); ``survived`` when all
  ran and none was caught; ``not run``; ``none`` when no mutation is declared.
* the *status* (:func:`status`): a strength about library code earns ``verified`` / ``verified-steps`` /
  ``verified-instances`` / ``verified-numerically`` only with outcome ``pass`` and mutation ``caught`` (a caught
  mutation of library code); ``proof-script-only`` earns ``verified-script`` with a caught mutation of its
  script; ``stale`` when the checks pass but the caught mutation's record judged files that have changed since;
  with ``pass`` but no caught mutation (or only proof-script mutations for a claim about library code) it is
  ``passing`` (checks that have not been shown able to fail); a finding (``refuted`` / ``gap``) needs its witness
  checks to pass; ``failing`` when a check failed; ``unconfirmed`` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

from verify.claims import FINDINGS, SCRIPT_ONLY, VERIFYING, Claim
from verify.inputs import changed, is_library

VERIFIED_AS = {"as-stated": "verified", "steps-cited": "verified-steps",
               "bounded-instances": "verified-instances", "numerical": "verified-numerically"}
OUTCOMES = ("pass", "fail", "skipped", "partial", "not run", "none")
STATUS_MEANING = {
    "verified": "strength as-stated, every required check passed, a declared mutation of library code was caught",
    "verified-steps": "strength steps-cited, every required check passed, a mutation of library code was caught",
    "verified-instances": "strength bounded-instances, every required check passed, a mutation of library code "
                          "was caught",
    "verified-numerically": "strength numerical, every required check passed, a mutation of library code was "
                            "caught",
    "verified-script": "strength proof-script-only, every required check passed, a mutation of the proof script "
                       "was caught (the mathematics is checked; no code of the package is)",
    "stale": "every required check passed, but the record of the caught mutation judged files that have changed "
             "since (a test file, a module it imports, the mutated file): rerun python -m verify.mutate --claim KEY",
    "passing": "every required check passed, but no declared mutation was caught (none declared, none run, "
               "all survived, or, for a claim about library code, only mutations of proof scripts): the checks "
               "are not shown able to fail",
    "refuted": "strength refuted and every required witness check passed",
    "gap": "strength gap and every required witness check passed",
    "failing": "a linked check failed in its last run",
    "unconfirmed": "some required check did not run, or was skipped",
    "unchecked": "strength unchecked",
}
STATUSES = tuple(STATUS_MEANING)


def outcome(linked: dict[str, bool], recorded: dict[str, dict]) -> str:
    """Outcome of the checks ``linked`` (node key -> is slow) given the recorded test entries."""
    if not linked:
        return "none"
    last = {k: recorded[k]["outcome"] for k in linked if k in recorded}
    if "failed" in last.values():
        return "fail"
    required = [k for k, slow in linked.items() if not slow] or list(linked)
    got = [last.get(k) for k in required]
    if all(o == "passed" for o in got):
        return "pass"
    if all(o is None for o in got):
        return "not run"
    if all(o is not None for o in got) and "passed" not in got:
        return "skipped"
    return "partial"


#: the note of a record written before records were keyed on the files they read
UNKEYED = "recorded before mutation records were keyed on the files they judged"


def mutation_state(key: str, declared: dict[str, tuple[str, str]], recorded: dict[str, dict],
                   current: Callable[[str], dict[str, str]] | None = None) -> tuple[str, str]:
    """State of claim ``key``'s mutations and a note: ``declared`` maps name -> (spec digest, mutated path),
    ``recorded`` is the results file's mutation section and ``current(name)`` gives the digests of the files that
    decide the mutation's run on ``key`` now (:func:`verify.inputs.inputs`); without it no record is stale.

    Only runs of the current definition count, only the outcome on ``key``'s own checks, and only while the
    files they judged are unchanged (see the module docstring)."""
    if not declared:
        return "none", ""
    fresh, stale_notes = {}, []
    for name, (spec, path) in declared.items():
        r = recorded.get(name)
        if not r or r.get("spec") != spec or not isinstance(r.get("claims"), dict):
            continue
        verdict = r["claims"].get(key)
        if current is not None:
            files = (r.get("inputs") or {}).get(key)
            if files is None:
                if verdict == "caught":
                    stale_notes.append(f"{name}: {UNKEYED}")
                continue
            was = {f: r["digests"].get(f, "?") for f in files}
            now = current(name)
            diff = changed(was, now)
            if diff:
                if verdict == "caught":  # files that are still read but changed first, then those (no longer) read
                    diff.sort(key=lambda f: (f not in was or f not in now, f))
                    more = f" (+{len(diff) - 3} more)" if len(diff) > 3 else ""
                    stale_notes.append(f"{name}: {', '.join(diff[:3])} changed since the run{more}")
                continue
        fresh[name] = (verdict, path)
    if any(v == "caught" and is_library(p) for v, p in fresh.values()):
        return "caught", ""
    if stale_notes:
        return "stale", "; ".join(stale_notes)
    if any(v == "caught" for v, _ in fresh.values()):
        return "caught-script", "only mutations of proof scripts were caught, none of library code"
    if len(fresh) == len(declared) and all(v is not None for v, _ in fresh.values()):
        return "survived", ""
    return "not run", ""


def status(claim: Claim, checks_outcome: str, mutations: str) -> str:
    """The earned status of ``claim`` (see the module docstring)."""
    if claim.strength == "unchecked":
        return "unchecked"
    if checks_outcome == "fail":
        return "failing"
    if checks_outcome != "pass":
        return "unconfirmed"
    if claim.strength in FINDINGS:
        return claim.strength
    if mutations == "stale":
        return "stale"
    if claim.strength == SCRIPT_ONLY:
        return "verified-script" if mutations in ("caught", "caught-script") else "passing"
    assert claim.strength in VERIFYING, claim.strength
    return VERIFIED_AS[claim.strength] if mutations == "caught" else "passing"
