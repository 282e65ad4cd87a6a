"""``bounds.certify --runs`` on the sweeps' executors (:mod:`lengthgen_cli.sweep`): Ray tasks (a stand-in Ray module
that records what it is asked, and a local Ray instance under ``-m slow``), a missing Ray refused in one line, and
resume with nothing redone."""

from __future__ import annotations

import importlib.machinery
import json
import shutil
import sys
import types

import pytest

from bounds.certify.cli import main


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


class _Ref:
    def __init__(self, fn, args):
        self.fn, self.args = fn, args


def fake_ray(calls: dict, on_init=None):
    """A stand-in for the ``ray`` module with the calls :func:`lengthgen_cli.sweep.execute_specs` makes: tasks run
    when their result is fetched, in this process; ``calls`` records the address, the resources and the task count."""
    ray = types.ModuleType("ray")
    ray.__spec__ = importlib.machinery.ModuleSpec("ray", None)
    state = {"up": False}

    def init(address=None, **kw):
        calls["address"] = address
        state["up"] = True
        if on_init:
            on_init()

    def remote(fn):
        class Task:
            @staticmethod
            def options(num_cpus=1, num_gpus=0):
                calls.setdefault("resources", []).append((num_cpus, num_gpus))
                return Task

            @staticmethod
            def remote(*args):
                calls["tasks"] = calls.get("tasks", 0) + 1
                return _Ref(fn, args)

        return Task

    ray.init, ray.remote = init, remote
    ray.is_initialized = lambda: state["up"]
    ray.shutdown = lambda: state.update(up=False)
    ray.wait = lambda pending, num_returns=1: (pending[:num_returns], pending[num_returns:])
    ray.get = lambda ref: ref.fn(*ref.args)
    return ray


def test_runs_on_ray_tasks_that_need_no_run_folder_and_resume(tiny_run, tmp_path, capsys, monkeypatch):
    """Each seed is a Ray task given its record itself: the run folder is moved away once Ray is up and every seed
    is still certified; the address reaches ray.init; a resumed call submits no task (nothing redone)."""
    folder = tmp_path / "runs"
    shutil.copytree(tiny_run, folder)
    calls: dict = {}
    monkeypatch.setitem(sys.modules, "ray", fake_ray(calls, on_init=lambda: shutil.rmtree(folder)))
    out = tmp_path / "c.jsonl"
    argv = ["--runs", str(folder), "--executor", "ray", "--ray-address", "ray://head:10001", "--time-budget", "1",
            "--seeds", "2", "--out", str(out)]
    code, text, err = _run(argv, capsys)
    assert code == 0, err
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in recs) == [0, 1] and all(r["construction"]["horizon"] for r in recs)
    assert calls == {"address": "ray://head:10001", "resources": [(1, 0), (1, 0)], "tasks": 2}
    assert "2 trained seeds" in text
    # resumed: the seeds already recorded are not submitted again
    shutil.copytree(tiny_run, folder)
    calls.clear()
    monkeypatch.setitem(sys.modules, "ray", fake_ray(calls))
    code, _, err = _run(argv + ["--resume"], capsys)
    assert code == 0 and calls.get("tasks", 0) == 0, (err, calls)
    assert len(out.read_text().splitlines()) == 2
    # control: without the records, the same command submits both seeds again
    out.unlink()
    code, _, err = _run(argv, capsys)
    assert code == 0 and calls["tasks"] == 2, err


def test_missing_ray_is_one_line_before_any_certificate(tiny_run, tmp_path, capsys, monkeypatch):
    real = importlib.util.find_spec

    def no_ray(name, *a, **k):
        return None if name == "ray" else real(name, *a, **k)

    def refuse(*a, **k):
        raise AssertionError("a certificate was computed")

    monkeypatch.setattr("bounds.certify.runs.certify_seed", refuse)
    monkeypatch.setattr(importlib.util, "find_spec", no_ray)
    argv = ["--runs", str(tiny_run), "--executor", "ray", "--out", str(tmp_path / "c.jsonl")]
    code, out, err = _run(argv, capsys)
    assert code == 2 and err.count("\n") == 1 and "needs Ray" in err and "Traceback" not in err
    assert not (tmp_path / "c.jsonl").exists()
    monkeypatch.setattr(importlib.util, "find_spec", real)  # control: with Ray found, the same line reaches work
    monkeypatch.setitem(sys.modules, "ray", fake_ray({}))
    with pytest.raises(AssertionError, match="a certificate was computed"):
        main(argv)


@pytest.mark.parametrize("argv,says", [(["--ray-address", "auto"], "--ray-address"),
                                       (["--executor", "ray", "--workers", "2"], "--workers")])
def test_executor_options_refused_where_unused(tiny_run, argv, says, capsys, tmp_path):
    code, _, err = _run(["--runs", str(tiny_run), *argv, "--out", str(tmp_path / "c.jsonl")], capsys)
    assert code == 2 and says in err and err.count("\n") == 1
    code, _, err = _run(["--model", "m.json", "--target-fn", "--task", "modp", "--period", "2", "--executor",
                         "ray"], capsys)
    assert code == 2 and "--executor" in err  # a --runs option in pair mode


@pytest.mark.slow
def test_runs_on_a_local_ray_instance(tiny_run, tmp_path, capsys):
    """The real Ray executor (a local instance, ~30 s to start on two loaded cores)."""
    pytest.importorskip("ray", reason="ray not installed (pip install '.[ray]')")
    out = tmp_path / "c.jsonl"
    code, text, err = _run(["--runs", str(tiny_run), "--executor", "ray", "--time-budget", "1", "--seeds", "1",
                            "--out", str(out)], capsys)
    assert code == 0, err
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["seed"] for r in recs] == [0] and recs[0]["construction"]["horizon"]["first_length"] == 2
