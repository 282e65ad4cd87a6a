"""The claim registry, earned statuses, the results file, the pytest plugin and the report."""

import json
import os
import subprocess
import sys

import pytest

from verify.claims import LEGACY_STATUS, STRENGTHS, Claim, ClaimError, checks, get, load_all, register
from verify.report import ROOT, as_stated_share, build_report, inconsistencies, markdown, scope_note
from verify.results import load, merge
from verify.status import mutation_state, outcome, status


def test_register_rejects_malformed_keys_strengths_and_duplicates():
    with pytest.raises(ClaimError, match="malformed"):
        register("Thm 4.1", "x", "y")
    with pytest.raises(ClaimError, match="unknown paper"):
        register("smith2020:thm1", "x", "y")
    with pytest.raises(ClaimError, match="status"):
        register("izzo2025:zz-test-only", "x", "y", status="proved")
    with pytest.raises(ClaimError, match="strength"):
        register("izzo2025:zz-test-only", "x", "y", strength="verified")
    some = next(iter(load_all()))
    with pytest.raises(ClaimError, match="twice"):
        register(some, "x", "y")
    with pytest.raises(ClaimError, match="unknown claim"):
        get("izzo2025:no-such-claim")
    with pytest.raises(ClaimError):
        checks()


def test_old_style_status_maps_to_a_conservative_strength():
    assert LEGACY_STATUS["verified"] == "bounded-instances"
    assert LEGACY_STATUS["verified-numerically"] == "numerical"
    assert set(LEGACY_STATUS.values()) <= set(STRENGTHS)


def test_every_paper_has_registered_claims_with_valid_strengths():
    reg = load_all()
    for paper in ("ahuja2024", "izzo2025", "golowich2025", "huang2024"):
        assert any(k.startswith(paper + ":") for k in reg), paper
    assert all(c.strength in STRENGTHS for c in reg.values())
    for key in ("izzo2025:thm4.1", "izzo2025:sec3.2-hardmax", "izzo2025:def-gamma"):
        assert key in reg


def test_outcome_rules():
    linked = {"a": False, "b": False, "s": True}
    rec = {"a": {"outcome": "passed"}, "b": {"outcome": "passed"}}
    assert outcome(linked, rec) == "pass"  # the slow check did not run: not required
    assert outcome(linked, {**rec, "s": {"outcome": "failed"}}) == "fail"  # ... but its failure counts
    assert outcome(linked, {"a": {"outcome": "passed"}}) == "partial"
    assert outcome(linked, {"a": {"outcome": "passed"}, "b": {"outcome": "skipped"}}) == "partial"
    assert outcome(linked, {"a": {"outcome": "skipped"}, "b": {"outcome": "skipped"}}) == "skipped"
    assert outcome(linked, {"stale": {"outcome": "passed"}}) == "not run"
    assert outcome({}, rec) == "none"
    assert outcome({"s": True}, {"s": {"outcome": "passed"}}) == "pass"


def test_status_is_verified_only_with_passing_checks_and_a_caught_mutation():
    c = Claim("izzo2025:x", "X", "x", "as-stated")
    assert status(c, "pass", "caught") == "verified"
    assert status(Claim("izzo2025:x", "X", "x", "numerical"), "pass", "caught") == "verified-numerically"
    for mut in ("none", "survived", "not run", "caught-script"):  # a proof-script mutation is not enough
        assert status(c, "pass", mut) == "passing"
    assert status(c, "pass", "stale") == "stale"
    for out in ("not run", "partial", "skipped", "none"):
        assert status(c, out, "caught") == "unconfirmed"
    assert status(c, "fail", "caught") == "failing"
    script = Claim("izzo2025:x", "X", "x", "proof-script-only")
    assert status(script, "pass", "caught-script") == status(script, "pass", "caught") == "verified-script"
    assert status(script, "pass", "survived") == "passing" and status(script, "pass", "stale") == "stale"
    assert status(Claim("izzo2025:x", "X", "x", "gap"), "pass", "none") == "gap"
    assert status(Claim("izzo2025:x", "X", "x", "refuted"), "not run", "none") == "unconfirmed"
    assert status(Claim("izzo2025:x", "X", "x", "unchecked"), "pass", "caught") == "unchecked"


def test_mutation_state_counts_only_runs_of_the_current_definition_on_the_claims_own_checks():
    declared = {"m1": ("d1", "bounds/x.py"), "m2": ("d2", "bounds/y.py")}
    k = "izzo2025:x"
    assert mutation_state(k, {}, {}) == ("none", "")
    assert mutation_state(k, declared, {})[0] == "not run"
    assert mutation_state(k, declared, {"m1": {"spec": "d1", "claims": {k: "caught"}}})[0] == "caught"
    assert mutation_state(k, declared, {"m1": {"spec": "old", "claims": {k: "caught"}}})[0] == "not run"
    neighbour = {"m1": {"spec": "d1", "claims": {k: "survived", "izzo2025:y": "caught"}},
                 "m2": {"spec": "d2", "claims": {k: "error"}}}
    assert mutation_state(k, declared, neighbour)[0] == "survived"
    assert mutation_state("izzo2025:y", {"m1": declared["m1"]}, neighbour)[0] == "caught"
    script = {"m1": ("d1", "verify/izzo/eq1.py")}  # a caught mutation of a proof script is not library code
    assert mutation_state(k, script, {"m1": {"spec": "d1", "claims": {k: "caught"}}})[0] == "caught-script"


def _tree(root):
    """A package tree: a library module, a helper it imports, a proof-script test that imports the library."""
    for d in ("constructions", "verify", "verify/tests", "verify/tests/izzo2025"):
        (root / d).mkdir(parents=True, exist_ok=True)
        (root / d / "__init__.py").write_text("")
    (root / "constructions" / "helper.py").write_text("def one():\n    return 1\n")
    (root / "constructions" / "lib.py").write_text("from constructions.helper import one\n\n"
                                                   "def f(x):\n    return x + one()\n")
    (root / "constructions" / "unrelated.py").write_text("X = 1\n")
    test = root / "verify" / "tests" / "izzo2025" / "test_f.py"
    test.write_text("from constructions.lib import f\n\ndef test_f():\n    assert f(1) == 2\n")
    return test


def test_a_verified_claim_turns_stale_when_a_file_its_record_judged_changes(tmp_path):
    """Records are keyed on the digests of the mutated file, the claim's test files and the modules those import:
    weakening the test, changing the library or a module it imports makes a verified claim stale at once, naming
    the file; an unchanged tree (and a change to a module the checks do not import) stays verified."""
    from verify.inputs import inputs

    k, test = "izzo2025:x", _tree(tmp_path)
    files = ["verify/tests/izzo2025/test_f.py"]
    judged = inputs(files, also=["constructions/lib.py"], root=tmp_path)
    assert {"constructions/lib.py", "constructions/helper.py", "constructions/__init__.py"} <= set(judged)
    assert "constructions/unrelated.py" not in judged
    declared = {"m": ("d", "constructions/lib.py")}
    record = {"m": {"spec": "d", "claims": {k: "caught"}, "inputs": {k: sorted(judged)}, "digests": judged}}
    claim = Claim(k, "X", "x", "as-stated")

    def now():
        state, note = mutation_state(k, declared, record, lambda name: inputs(files, ["constructions/lib.py"],
                                                                              root=tmp_path))
        return status(claim, "pass", state), note

    assert now() == ("verified", "")  # negative control: nothing changed
    (tmp_path / "constructions" / "unrelated.py").write_text("X = 2\n")
    assert now() == ("verified", "")  # not read by the checks
    original = test.read_text()
    test.write_text("def test_f():\n    pass\n")  # the test weakened
    st, note = now()
    assert st == "stale" and note.startswith("m: verify/tests/izzo2025/test_f.py") and "changed" in note
    test.write_text(original)
    assert now() == ("verified", "")
    (tmp_path / "constructions" / "helper.py").write_text("def one():\n    return 2\n")  # an imported module
    st, note = now()
    assert st == "stale" and "constructions/helper.py" in note
    # a record written before records were keyed on their files is stale too
    old = {"m": {"spec": "d", "claims": {k: "caught"}}}
    assert mutation_state(k, declared, old, lambda name: {})[0] == "stale"


def test_results_merge_updates_only_what_ran(tmp_path):
    path = tmp_path / "r.json"
    merge(path, "tests", {"a": {"outcome": "passed"}, "b": {"outcome": "failed"}})
    merge(path, "tests", {"b": {"outcome": "passed"}})
    data = load(path)
    assert data["tests"] == {"a": {"outcome": "passed"}, "b": {"outcome": "passed"}}
    assert not list(tmp_path.glob("*.tmp"))
    path.write_text("{}")
    with pytest.raises(RuntimeError, match="not a version"):
        load(path)


@pytest.fixture(scope="module")
def report_rows():
    return build_report(with_status=False)


def test_declared_strengths_are_backed_by_tests_and_the_check_can_fail(report_rows):
    assert inconsistencies(report_rows) == []
    assert inconsistencies([{"claim": "izzo2025:x", "strength": "as-stated", "tests": []}])  # negative control
    assert inconsistencies([{"claim": "izzo2025:x", "strength": "steps-cited", "tests": ["t"], "cited": ""}])


def test_steps_cited_claims_name_their_cited_steps(report_rows):
    """A steps-cited claim is not as-stated because of the steps it cites: the report names them."""
    for row in report_rows:
        if row["strength"] == "steps-cited":
            assert scope_note(row) == "cited, not discharged: " + row["cited"], row["claim"]
    note = scope_note({"strength": "steps-cited", "cited": "Bolzano's theorem", "leaves_out": ""})
    assert note == "cited, not discharged: Bolzano's theorem"
    assert scope_note({"strength": "steps-cited", "cited": "", "leaves_out": ""}) == ""
    corrected = {r["claim"]: r for r in report_rows}["izzo2025:thm4.1.corrected"]  # no step of its proof is cited
    assert corrected["strength"] == "as-stated" and "cited" not in scope_note(corrected)


def test_as_stated_share_counts_only_verifying_claims_whose_checks_pass():
    rows = [{"strength": "as-stated", "outcome": "pass"}, {"strength": "as-stated", "outcome": "partial"},
            {"strength": "bounded-instances", "outcome": "pass"}, {"strength": "refuted", "outcome": "pass"},
            {"strength": "numerical", "outcome": "pass"}]
    assert as_stated_share(rows) == (1, 3)
    assert as_stated_share(rows[3:]) == (0, 1)


def test_claim_map_in_docs_is_current(report_rows):
    """docs/claims.md is regenerated with `python -m verify.report --markdown > docs/claims.md`."""
    text = markdown(report_rows)
    assert "| `izzo2025:thm4.1` |" in text
    assert (ROOT / "docs" / "claims.md").read_text() == text + "\n", "regenerate docs/claims.md"


_USER_CLAIMS = """
from verify.claims import register, register_paper

register_paper("smith2020", "Smith 2020, A paper of one's own")
register("smith2020:thm1", "Theorem 1", "one plus one is two", strength="as-stated", evidence="test_smith.py")
register("smith2020:lem2", "Lemma 2", "a lemma whose check fails", strength="bounded-instances")
"""

_USER_TESTS = """
import pytest
from verify.claims import checks

@checks("smith2020:thm1")
def test_thm1():
    assert 1 + 1 == 2

@checks("smith2020:lem2")
def test_lem2():
    assert 1 + 1 == 3

@pytest.mark.slow
@checks("smith2020:thm1")
def test_thm1_slow():
    assert 1 + 1 == 2
"""


def _pytest_in(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]),
               LENGTHGEN_CLAIMS="smith_claims", LENGTHGEN_RESULTS=str(tmp_path / "results.json"))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "verify.pytest_plugin",
                           "-p", "no:cacheprovider", *args], capture_output=True, text=True, cwd=tmp_path, env=env)


def test_user_claims_plugin_selection_and_recording(tmp_path):
    """A user's own paper: registered from their module, linked by their tests, recorded by the plugin."""
    (tmp_path / "smith_claims.py").write_text(_USER_CLAIMS)
    (tmp_path / "test_smith.py").write_text(_USER_TESTS)
    r = _pytest_in(tmp_path, "--claim", "smith2020:thm1")
    assert r.returncode == 0 and "1 passed, 2 deselected" in r.stdout, r.stdout + r.stderr
    recorded = load(tmp_path / "results.json")["tests"]
    assert [e["outcome"] for e in recorded.values()] == ["passed"]
    r = _pytest_in(tmp_path)  # the failing lemma is recorded beside the earlier entry
    assert r.returncode == 1 and "1 deselected" in r.stdout, r.stdout
    outcomes = sorted(e["outcome"] for e in load(tmp_path / "results.json")["tests"].values())
    assert outcomes == ["failed", "passed"]
    r = _pytest_in(tmp_path, "--claim", "smith2020:nope")
    assert r.returncode != 0 and "unknown claim" in r.stdout + r.stderr
    (tmp_path / "test_bad.py").write_text('from verify.claims import checks\n\n@checks("izzo2025:no-such")\n'
                                          'def test_x():\n    pass\n')
    r = _pytest_in(tmp_path, "--collect-only")
    assert r.returncode != 0 and "unknown claim key" in (r.stdout + r.stderr)


def test_report_from_another_directory_sees_the_tests(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), LENGTHGEN_RESULTS=str(tmp_path / "results.json"))
    r = subprocess.run([sys.executable, "-m", "verify.report", "--json", "--paper", "izzo2025"],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    rows = {row["claim"]: row for row in json.loads(r.stdout)}
    assert rows["izzo2025:thm4.1"]["tests"]
    assert all(row["status"] in ("unconfirmed", "unchecked") for row in rows.values())  # nothing ran yet
    bad = subprocess.run([sys.executable, "-m", "verify.report", "--run", "izzo2025:nope"],
                         capture_output=True, text=True, cwd=tmp_path, env=env)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "unknown claim key" in bad.stderr


def _claim_linked_files(root):
    """Test files under ``root`` that link a test to a claim (``@checks(...)`` or a ``claims`` marker)."""
    import ast
    from pathlib import Path

    def names(expr):
        calls = [n for n in ast.walk(expr) if isinstance(n, ast.Call)]
        return {c.func.id if isinstance(c.func, ast.Name) else getattr(c.func, "attr", "") for c in calls}

    found = []
    for path in sorted(Path(root).rglob("test_*.py")):
        marks = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for dec in node.decorator_list:
                    marks |= names(dec)
            elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets):
                marks |= names(node.value)
        if marks & {"checks", "claims"}:
            found.append(path)
    return found


def test_claim_linked_tests_live_only_under_verify(tmp_path):
    """verify.report collects only verify/ (docs/architecture.md): a claim-linked test elsewhere would be missed."""
    assert _claim_linked_files(ROOT / "tests") == []
    assert _claim_linked_files(ROOT / "verify" / "tests")  # the scanner sees the real ones
    (tmp_path / "test_x.py").write_text('import pytest\n\n@pytest.mark.claims("izzo2025:thm4.1")\ndef test_a():\n    pass\n')
    assert _claim_linked_files(tmp_path) == [tmp_path / "test_x.py"]  # negative control


def test_each_strength_has_an_example_of_that_strength(report_rows):
    from verify.report import STRENGTH_EXAMPLE

    by_key = {r["claim"]: r for r in report_rows}
    assert set(STRENGTH_EXAMPLE) == set(STRENGTHS)
    assert all(by_key[k]["strength"] == s for s, (k, _) in STRENGTH_EXAMPLE.items())


def test_a_verifying_claim_whose_checks_run_no_library_code_is_flagged():
    row = {"claim": "izzo2025:x", "strength": "as-stated", "tests": ["t"], "runs_library": False}
    assert any("proof-script-only" in w for w in inconsistencies([row]))
    assert not inconsistencies([{**row, "runs_library": True}])  # control


def test_collection_is_read_from_the_cache_until_a_file_changes(tmp_path, monkeypatch):
    """The report's fast path: a second report with nothing changed reads the claim map from the cache instead of
    collecting; a changed test file (the control) collects again."""
    from verify import collect

    (tmp_path / "verify" / "tests").mkdir(parents=True)
    test = tmp_path / "verify" / "tests" / "test_x.py"
    test.write_text("def test_x():\n    pass\n")
    monkeypatch.setattr(collect, "BASE", tmp_path)
    calls = []
    monkeypatch.setattr(collect, "_collect", lambda extra: calls.append(1) or {"izzo2025:x": {"n": False}})
    results = tmp_path / "cache" / "r.json"
    assert collect.collect_tests((), results) == {"izzo2025:x": {"n": False}} and len(calls) == 1
    assert collect.collect_tests((), results) == {"izzo2025:x": {"n": False}} and len(calls) == 1
    test.write_text("def test_x():\n    assert False\n")
    collect.collect_tests((), results)
    assert len(calls) == 2


def test_run_json_sends_pytest_progress_to_stderr(monkeypatch):
    """verify.report --run --json: pytest's progress must not reach stdout (which carries the JSON)."""
    import subprocess
    import sys

    from verify import report

    seen = {}
    monkeypatch.setattr(subprocess, "run", lambda args, **kw: seen.update(kw) or subprocess.CompletedProcess(args, 0))
    report.run_checks(["izzo2025:eq1"], False, None, quiet=True)
    assert seen["stdout"] is sys.stderr
    report.run_checks(["izzo2025:eq1"], False, None)  # control: the text report shows pytest's progress
    assert seen["stdout"] is None


def test_checks_column_counts_what_pytest_ran_and_names_slow_checks():
    from verify.report import checks_cell

    row = {"outcome": "pass", "passed": 13, "required": 13, "tests": ["t"] * 14}
    assert checks_cell(row) == "pass (13) +1 slow"
    assert checks_cell({**row, "outcome": "partial", "passed": 12, "tests": ["t"] * 13}) == "partial (12/13)"


def test_verified_count_says_what_to_run_while_claims_wait_for_mutations():
    from verify.report import earn_line

    rows = [{"status": "passing"}, {"status": "verified-script"}]
    assert "python -m verify.mutate --claim KEY" in earn_line(rows) and earn_line(rows).startswith("verified: 0")
    some = earn_line([*rows, {"status": "verified-instances"}])
    assert some.startswith("verified: 1 of 3") and "1 claims pass their checks" in some
    assert "stale" in earn_line([{"status": "stale"}]) and "verify.mutate" in earn_line([{"status": "stale"}])
    done = earn_line([{"status": "verified"}, {"status": "gap"}])  # control: nothing waits, no hint
    assert done.startswith("verified: 1 of 2") and "verify.mutate" not in done
