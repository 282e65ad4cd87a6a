"""The mutation runner's pytest runs (verify.mutate._Pytest): the fork server, the early stop once every claim is
caught (verify.mutation_stop), the judgement per claim, and the timeout."""

import os

import pytest

from verify.mutate import _judge, _Pytest
from verify.results import BASE, load, node_key

TESTS = '''
import time
from verify.claims import checks

@checks("izzo2025:eq1")
def test_a_fails():
    assert False

@checks("izzo2025:eq1")
def test_b_after_a():
    pass

@checks("izzo2025:sec3.1")
def test_c_passes():
    pass

@checks("izzo2025:sec3.1")
def test_d_sleeps():
    time.sleep(float(__import__("os").environ.get("SLEEP", "0")))
'''


@pytest.fixture
def project(tmp_path):
    for package in ("verify", "lengthgen_cli", "constructions", "bounds", "counterexamples"):
        (tmp_path / package).symlink_to(BASE / package, target_is_directory=True)
    (tmp_path / "test_x.py").write_text(TESTS)
    return tmp_path


def _nodes(project, *names):
    return [node_key(project / "test_x.py", n) for n in names]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs os.fork")
def test_early_stop_skips_checks_of_caught_claims_but_runs_the_others(project):
    runner = _Pytest(project)
    try:
        assert runner.server is not None
        caught_only = {"izzo2025:eq1": _nodes(project, "test_a_fails", "test_b_after_a")}
        assert _judge(runner, caught_only, 60) == {"izzo2025:eq1": "caught"}
        outcomes = {k: e["outcome"] for k, e in load(project / ".mutation-outcomes.json")["tests"].items()}
        assert _nodes(project, "test_b_after_a")[0] not in outcomes  # every claim caught: the run stopped
        both = {**caught_only, "izzo2025:sec3.1": _nodes(project, "test_c_passes", "test_d_sleeps")}
        assert _judge(runner, both, 60) == {"izzo2025:eq1": "caught", "izzo2025:sec3.1": "survived"}
        outcomes = {k: e["outcome"] for k, e in load(project / ".mutation-outcomes.json")["tests"].items()}
        assert {outcomes[n] for n in both["izzo2025:sec3.1"]} == {"passed"}  # a survivor is judged on every check
        assert outcomes[_nodes(project, "test_b_after_a")[0]] == "skipped"  # serves only the caught eq1
        assert runner.server is not None  # still the fork server
    finally:
        runner.close()


def test_timeout_is_an_error_and_the_subprocess_path_agrees(project, monkeypatch):
    monkeypatch.setenv("SLEEP", "30")
    runner = _Pytest(project)
    try:
        nodes_of = {"izzo2025:sec3.1": _nodes(project, "test_d_sleeps")}
        assert _judge(runner, nodes_of, 3) == {"izzo2025:sec3.1": "error"}  # killed after 3 s
        runner.close()  # from here on: one subprocess per run
        monkeypatch.setenv("SLEEP", "0")
        runner.env["SLEEP"] = "0"
        assert _judge(runner, {"izzo2025:eq1": _nodes(project, "test_a_fails")}, 60) == {"izzo2025:eq1": "caught"}
    finally:
        runner.close()


def test_every_declared_mutation_applies_to_the_tree():
    """Each declared mutation's ``old`` text occurs exactly once in its file, so a refactor that moves or rewrites
    the mutated line is noticed here (the replay would report it only as an error, and a claim whose only mutation
    no longer applies loses its evidence silently).  Control: a mutation whose text is absent is refused."""
    from verify.mutate import Mutation, MutationError, all_mutations

    bad, declared = [], all_mutations()
    assert declared
    for m in declared.values():
        try:
            m.apply((BASE / m.path).read_text())
        except MutationError as e:
            bad.append(str(e))
    assert bad == []
    absent = Mutation("absent", ("izzo2025:thm4.1",), "verify/mutate.py", "no such text \0", "x", "control")
    with pytest.raises(MutationError):
        absent.apply((BASE / absent.path).read_text())
