"""Earned statuses: a claim's status computed from its strength, its checks' last outcome and its mutations.

Nothing here is declared by hand.  The rules (docs/claims.md, "Statuses"):

* the *outcome* of a claim's checks (:func:`outcome`) is read from the results file for the tests linked to
  it *now* (records of tests no longer linked are ignored).  The required checks are the linked tests not
  marked ``slow`` (all linked tests when every one is slow).  ``fail``: some linked check failed in its
  last run; ``pass``: every required check passed; ``skipped``: every required check ran but none passed;
  ``not run``: none ran; ``partial``: some required checks did not run or were skipped; ``none``: no check
  is linked.
* the *mutation* state (:func:`mutation_state`): ``caught`` when one of the claim's declared mutations
  (:mod:`verify.mutate`), as currently declared, made the claim's own checks fail in the last mutation run;
  ``survived`` when all ran and none was caught; ``not run``; ``none`` when no mutation is declared.
* the *status* (:func:`status`): a verifying strength earns ``verified`` / ``verified-steps`` /
  ``verified-instances`` / ``verified-numerically`` only with outcome ``pass`` and mutation ``caught``;
  with ``pass`` but no caught mutation it is ``passing`` (checks that have not been shown able to fail);
  a finding (``refuted`` / ``gap``) needs its witness checks to pass; ``failing`` when a check failed;
  ``unconfirmed`` otherwise.
"""

from __future__ import annotations

from verify.claims import FINDINGS, VERIFYING, Claim

VERIFIED_AS = {"as-stated": "verified", "steps-cited": "verified-steps",
               "bounded-instances": "verified-instances", "numerical": "verified-numerically"}
OUTCOMES = ("pass", "fail", "skipped", "partial", "not run", "none")
STATUS_MEANING = {
    "verified": "strength as-stated, every required check passed, a declared mutation was caught",
    "verified-steps": "strength steps-cited, every required check passed, a declared mutation was caught",
    "verified-instances": "strength bounded-instances, every required check passed, a mutation was caught",
    "verified-numerically": "strength numerical, every required check passed, a mutation was caught",
    "passing": "every required check passed, but no declared mutation was caught (none declared, none run, "
               "or all survived): the checks are not shown able to fail",
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


def mutation_state(key: str, declared: dict[str, str], recorded: dict[str, dict]) -> str:
    """State of claim ``key``'s mutations ``declared`` (name -> spec digest) given the recorded mutation runs.

    Only runs of the current definition count, and only the outcome on ``key``'s own checks.
    """
    if not declared:
        return "none"
    current = [r["claims"].get(key) for n, r in ((n, recorded.get(n)) for n in declared)
               if r and r.get("spec") == declared[n] and isinstance(r.get("claims"), dict)]
    if "caught" in current:
        return "caught"
    if len(current) == len(declared) and None not in current:
        return "survived"
    return "not run"


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
    assert claim.strength in VERIFYING, claim.strength
    return VERIFIED_AS[claim.strength] if mutations == "caught" else "passing"
