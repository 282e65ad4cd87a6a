"""``python -m verify.report``: every claim with its strength, its checks' last outcome, mutations and status.

Statuses are earned (:mod:`verify.status`): a claim shows ``verified*`` only when every required linked check
passed in the last recorded run and one of its declared mutations was caught.  ``--run`` first runs the
checks (all, or those of the given claims) and records them; ``python -m verify.mutate`` runs the mutations.
Works from any directory: the tests are collected from the checkout (when this is one) or the installed
package, never from the working directory.  Each claim also lists the files its checks live in
(``check_files``; all under ``verify/tests/<paperkey>/`` by the layout of docs/architecture.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

from lengthgen_cli import Parser, command, usage_errors
from lengthgen_cli.output import check_target
from verify.claims import PAPERS, SCRIPT_ONLY, STRENGTH_MEANING, STRENGTHS, VERIFYING, ClaimError, load_all
from verify.collect import BASE, CollectionError, check_locations, collect_tests, pytest_base_args
from verify.inputs import SUBJECT_PACKAGES, Reader, about_library, closure, is_library, rel
from verify.results import ResultsError, load, results_path
from verify.status import mutation_state, outcome, status

ROOT = BASE


def run_checks(keys: list[str], slow: bool, results: str | None, extra: list[str] = (), quiet: bool = False) -> int:
    """Run the checks of ``keys`` (all claim-linked tests when empty) in a pytest subprocess; its exit code.
    ``quiet``: pytest's progress goes to stderr (stdout is left to the report's JSON)."""
    args = [sys.executable, "-m", "pytest", "-q", *pytest_base_args(), *check_locations(),
            *(str(Path(e).resolve()) for e in extra)]
    args += [f"--claim={k}" for k in keys] or ["-m", "claims and not slow" if not slow else "claims"]
    if slow and keys:
        args.append("--slow")
    if results:
        args.append(f"--claim-results={results}")
    return subprocess.run(args, cwd=BASE, stdout=sys.stderr if quiet else None).returncode


def inconsistencies(rows: list[dict]) -> list[str]:
    """Claims declaring a strength that no linked test backs (a strength without evidence), a strength about
    library code whose checks run none (``proof-script-only`` says so; read per test file, so a claim whose file
    also tests library code for other claims is judged by hand), ``bounded-instances``
    claims that do not say what their instances leave out, ``steps-cited`` claims that do not name their cited
    steps, and ``unchecked`` claims without a reason."""
    out = [f"{r['claim']} declares '{r['strength']}' but no test is linked to it" for r in rows
           if r["strength"] != "unchecked" and not r["tests"]]
    out += [f"{r['claim']} declares '{r['strength']}' but its checks run no library code (nothing of "
            f"{', '.join(SUBJECT_PACKAGES)}): declare strength '{SCRIPT_ONLY}'" for r in rows
            if r["strength"] in VERIFYING and r["tests"] and not r.get("runs_library", True)]
    out += [f"{r['claim']} is 'bounded-instances' but does not say what its instances leave out (leaves_out=)"
            for r in rows if r["strength"] == "bounded-instances" and not r.get("leaves_out")]
    out += [f"{r['claim']} is 'steps-cited' but does not name the steps it cites (cited=)"
            for r in rows if r["strength"] == "steps-cited" and not r.get("cited")]
    out += [f"{r['claim']} is 'unchecked' without a reason (evidence=)" for r in rows
            if r["strength"] == "unchecked" and not r.get("evidence")]
    return out


def scope_note(row: dict) -> str:
    """What the report prints under a claim: why it is unchecked, the steps it cites (why it is not as-stated),
    or what its instances leave out."""
    if row["strength"] == "unchecked":
        return f"why unchecked: {row['evidence']}"
    if row["strength"] == SCRIPT_ONLY:
        extra = row.get("cited") and f"; cited, not discharged: {row['cited']}" or (
            row.get("leaves_out") and f"; leaves out: {row['leaves_out']}" or "")
        return f"the proof script covers: {row.get('covers')}{extra}"
    if row["strength"] == "steps-cited" and row.get("cited"):
        return f"cited, not discharged: {row['cited']}"
    if row.get("leaves_out"):
        return f"leaves out: {row['leaves_out']}"
    return ""


def as_stated_share(rows: list[dict]) -> tuple[int, int]:
    """(as-stated, all) among the claims with a verifying strength whose checks pass (outcome ``pass``): the
    share of the passing claims whose check covers every quantifier of the statement (docs/claims.md,
    "Strengths")."""
    passing = [r for r in rows if r["strength"] in VERIFYING and r["outcome"] == "pass"]
    return sum(r["strength"] == "as-stated" for r in passing), len(passing)


#: one example per strength (docs/claims.md prints it): the claim and what its checks do
STRENGTH_EXAMPLE = {
    "as-stated": ("izzo2025:thm4.1.corrected", "every step of the corrected theorem's proof is discharged by z3 or "
                  "sympy for all quantities, and the proof's N_1 and N_H are computed by bounds.corrected's own "
                  "functions, so checking the proof checks the code"),
    "steps-cited": ("ahuja2024:sec4.4-high-capacity", "the algebra is discharged in general; the analysis step it "
                    "rests on is cited by name"),
    "bounded-instances": ("golowich2025:tab2", "the paper preset of bounds.experiments.golowich2025 equals Table 2; "
                          "whether the paper's own run used it cannot be checked (its leaves_out says so)"),
    "numerical": ("ahuja2024:fig3", "a stored training run of the package is checked against the figure within a "
                  "stated tolerance"),
    "proof-script-only": ("ahuja2024:eq36", "step (36) is proved for matrices of any size in verify/ahuja/rnn.py "
                          "with the proof kernel; no code of the package computes it (covers: as-stated)"),
    "refuted": ("ahuja2024:eq46", "an exact witness contradicts the printed RNN constant"),
    "gap": ("ahuja2024:def2", "the definition is ill-posed as printed; the witness is in docs/gaps.md"),
    "unchecked": ("ahuja2024:lem3", "every step is analysis and cited; the witness that its hypothesis is needed is "
                  "not the lemma"),
}


def markdown(rows: list[dict]) -> str:
    """The claim map (declared strengths and linked tests; statuses depend on the last run) as Markdown."""
    from verify import status as st

    out = ["# Claim map", "", "Generated by `python -m verify.report --markdown`: the declared strength of every",
           "claim (`verify/registry/`), the tests linked to it and the mutations its checks must catch.",
           "Statuses are earned, never declared: `python -m verify.report` computes them from the last",
           "recorded run of the checks (`--run` runs them) and of the mutations (`python -m verify.mutate`), by the",
           "rules below. `docs/gaps.md` has the refutations and gaps; `docs/own_claims.md` shows how to register",
           "the claims of your own papers.", "",
           "## Strengths", "", "| strength | what passing checks establish | example |", "|---|---|---|"]
    out += [f"| {s} | {m} | `{STRENGTH_EXAMPLE[s][0]}`: {STRENGTH_EXAMPLE[s][1]} |" for s, m in STRENGTH_MEANING.items()]
    out += ["", "A claim whose statement is about library code (constructions/, bounds/, counterexamples/, the",
            "identification tools of verify/, the committed results) earns `verified*` only when a mutation OF THAT",
            "CODE (or data) is caught by its own checks; a mutation of a proof script in verify/ shows only that the",
            "script's step can fail.  A claim whose checks run no library code says so: strength `proof-script-only`",
            "(with `covers`, the strength its script reaches), status `verified-script` at best, counted apart.",
            "docs/mutation_campaign.md lists a campaign of plausible single edits of library code (the mutations of",
            "verify/registry/mutations_library.py), what the claim-linked checks caught before and after the tests",
            "added for the survivors, and the edits left out as equivalent."]
    out += ["", "## Statuses", "", "| status | earned when |", "|---|---|"]
    out += [f"| {s} | {m} |" for s, m in st.STATUS_MEANING.items()]
    out += ["", "A mutation's record is keyed on the sha256 digests of the files that decided it: the mutated file,",
            "the claim's required test files, the conftest files and every module of ours those tests import",
            "(verify/inputs.py).  When any of them changes (a test weakened, a module edited), the record no longer",
            "judges the code that is there, and the claim shows `stale`, naming the changed file, until",
            "`python -m verify.mutate --claim KEY` runs again.", ""]
    for paper in PAPERS:
        mine = [r for r in rows if r["claim"].startswith(paper + ":")]
        if not mine:
            continue
        cnt = Counter(r["strength"] for r in mine)
        out += [f"## {paper}", "", ", ".join(f"{s}: {cnt[s]}" for s in STRENGTHS if cnt[s]), "",
                "| claim | statement | strength | tests | mutations | summary | unchecked because / cites / leaves out |",
                "|---|---|---|---|---|---|---|"]
        for r in mine:
            summary = r["summary"].replace("|", "\\|")
            note = scope_note(r).split(": ", 1)[-1].replace("|", "\\|") if scope_note(r) else ""
            out.append(f"| `{r['claim']}` | {r['statement']} | {r['strength']} | {len(r['tests'])} | "
                       f"{len(r['mutations'])} | {summary} | {note} |")
        out.append("")
    return "\n".join(out)


def checks_cell(row: dict) -> str:
    """The report's checks column: the outcome and how many required checks passed, as pytest counts them
    (``pass (13)`` after "13 passed"), with the slow checks that are linked but not required."""
    cell = f"{row['outcome']} ({row['passed']}"
    cell += f"/{row['required']})" if row["passed"] != row["required"] else ")"
    slow = len(row["tests"]) - row["required"]
    return cell + (f" +{slow} slow" if slow else "")


def earn_line(rows: list[dict]) -> str:
    """How many claims are verified and, while some claim's checks pass but no fresh mutation run judged it
    (``passing`` or ``stale``), what to run to earn ``verified``."""
    done = sum(r["status"].startswith("verified") and r["status"] != "verified-script" for r in rows)
    waiting = sum(r["status"] in ("passing", "stale") for r in rows)
    line = (f"verified: {done} of {len(rows)} claims (verified, verified-steps, -instances, -numerically)" if done
            else "verified: 0 claims")
    if not waiting:
        return line
    return (f"{line}. {waiting} claims pass their checks but no fresh mutation run judged them (passing or stale): "
            "a claim earns verified only when a mutation of its library code was caught by its checks; run "
            "python -m verify.mutate --claim KEY (or python -m verify.mutate for all; minutes), then this report")


def check_files(node_keys: list[str]) -> list[str]:
    """The test files (paths relative to the package root) of the given node keys, sorted, each once."""
    return sorted({n.split("::", 1)[0] for n in node_keys})


def build_report(paper: str | None = None, results: str | None = None, with_status: bool = True,
                 extra: list[str] = ()) -> list[dict]:
    """One row per claim: declared strength, linked tests and (``with_status``) outcome, mutations, status."""
    from verify.mutate import all_mutations, declared_for, judged_inputs, required_nodes

    claims = load_all()
    tests = collect_tests(extra, results)
    recorded = load(results_path(results)) if with_status else {"tests": {}, "mutations": {}}
    muts = all_mutations()
    reader = Reader()
    rows = []
    for key, c in sorted(claims.items()):
        if paper and c.paper != paper:
            continue
        linked = tests.get(key, {})
        mutations = declared_for(key)
        files = check_files(list(linked))
        required = required_nodes(key, tests)
        row = {"claim": key, "statement": c.statement, "strength": c.strength, "summary": c.summary,
               "evidence": c.evidence, "leaves_out": c.leaves_out, "cited": c.cited, "covers": c.covers,
               "tests": sorted(linked),
               "required": len(required), "check_files": files,
               "runs_library": about_library([*(rel(f) for f in closure([BASE / f for f in files], BASE, reader)),
                                              *(p for _, p in mutations.values() if not p.endswith(".py"))]),
               "mutations": sorted(mutations),
               "library_mutations": sorted(n for n in mutations if is_library(mutations[n][1]))}
        if with_status:
            row["outcome"] = outcome(linked, recorded["tests"])
            row["passed"] = sum(recorded["tests"].get(n, {}).get("outcome") == "passed" for n in required)
            row["mutation"], row["mutation_note"] = mutation_state(
                key, mutations, recorded["mutations"],
                lambda name, key=key: judged_inputs(muts[name], key, tests, reader=reader))
            row["status"] = status(c, row["outcome"], row["mutation"])
        rows.append(row)
    return rows


def own_test_files(path: Path) -> list[Path]:
    """The test files pytest collects from ``path`` under this project's ``python_files = test_*.py``: the file
    itself if it is one, else every ``test_*.py`` below the folder."""
    if path.is_file():
        return [path] if path.name.startswith("test_") and path.suffix == ".py" else []
    return sorted(path.rglob("test_*.py"))


@command
def main(argv: list[str] | None = None) -> int:
    ap = Parser(module="verify.report", description=__doc__.splitlines()[0])
    fmt = ap.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print a JSON list of claim objects")
    fmt.add_argument("--markdown", action="store_true", help="print the claim map (strengths) as Markdown")
    ap.add_argument("--paper", help="only this paper's claims (e.g. izzo2025)")
    ap.add_argument("--run", nargs="*", metavar="KEY", default=None,
                    help="first run the checks of these claims (of every claim when no KEY is given)")
    ap.add_argument("--slow", action="store_true", help="with --run: include tests marked slow")
    ap.add_argument("--tests", action="append", default=[], metavar="PATH",
                    help="also collect the tests in PATH (the checks of your own claims; repeatable)")
    ap.add_argument("--results", metavar="PATH", help="results file (default: $LENGTHGEN_RESULTS or the "
                                                        "per-installation file under ~/.cache/lengthgen)")
    args = ap.parse_args(argv)
    missing = [t for t in args.tests if not Path(t).exists()]
    if missing:
        ap.error(f"--tests: no such file or directory: {', '.join(missing)}")
    special = [t for t in args.tests if not (Path(t).is_dir() or Path(t).is_file())]
    if special:
        ap.error(f"--tests: not a test file or directory: {', '.join(special)}")
    empty = [t for t in args.tests if not own_test_files(Path(t))]
    if empty:
        ap.error(f"--tests: no test file (test_*.py) in {', '.join(empty)}")
    if args.results is not None:  # before the claims load and any check: a FIFO, a device, a directory or a
        with usage_errors(ap, ResultsError):  # file of another format (a model file) is refused at once
            check_target(args.results, what="--results")
            if Path(args.results).exists():
                load(Path(args.results))
    try:
        claims = load_all()
        if args.paper and args.paper not in PAPERS:
            ap.error(f"argument --paper: unknown paper {args.paper!r}; known: {', '.join(PAPERS)}")
        unknown = [k for k in args.run or [] if k not in claims]
        if unknown:
            ap.error(f"argument --run: unknown claim key(s) {', '.join(unknown)}")
        if args.run is not None:
            if args.tests:  # your own tests must collect before any check runs (one line if they do not)
                collect_tests(args.tests, args.results)
            run_checks(args.run, args.slow, args.results, args.tests, quiet=args.json)
        rows = build_report(args.paper, args.results, with_status=not args.markdown, extra=args.tests)
    except (ClaimError, ResultsError) as exc:
        ap.error(str(exc))
    except CollectionError as exc:  # pytest could not collect the tests (verify.collect): one line says why
        ap.error(str(exc))
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    if args.markdown:
        print(markdown(rows))
        return 0
    if args.run:
        rows = [r for r in rows if r["claim"] in args.run]
    print(f"{'claim':<34} {'strength':<17} {'checks':<20} {'mutation':<13} {'status':<20} summary")
    for r in rows:
        print(f"{r['claim']:<34} {r['strength']:<17} {checks_cell(r):<20} {r['mutation']:<13} {r['status']:<20} "
              f"{r['summary'][:60]}")
        if r["check_files"]:
            print(f"{'':<34} checks in: {', '.join(r['check_files'])}")
        if scope_note(r):
            print(f"{'':<34} {scope_note(r)}")
        if r["mutation_note"]:
            print(f"{'':<34} mutation: {r['mutation_note']}")
    print()
    per_paper: dict[str, Counter] = defaultdict(Counter)
    strengths: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        per_paper[r["claim"].split(":")[0]][r["status"]] += 1
        strengths[r["claim"].split(":")[0]][r["strength"]] += 1
    for p in sorted(per_paper):
        cnt = per_paper[p]
        parts = ", ".join(f"{s} {n}" for s, n in sorted(cnt.items()))
        print(f"{p}: {sum(cnt.values())} claims ({parts}); strengths: "
              + ", ".join(f"{s} {strengths[p][s]}" for s in STRENGTHS if strengths[p][s]))
    script = [r for r in rows if r["strength"] == SCRIPT_ONLY]
    if script:
        print(f"{SCRIPT_ONLY}: {len(script)} claims check a proof script and no library code "
              f"({sum(r['status'] == 'verified-script' for r in script)} verified-script); not counted as verified")
    print(earn_line(rows))
    as_stated, passing = as_stated_share(rows)
    if passing:
        print(f"as-stated: {as_stated} of the {passing} claims whose checks pass ({100 * as_stated / passing:.1f}%)")
    print(f"results: {results_path(args.results)}")
    for line in inconsistencies(rows):
        print(f"WARNING: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
