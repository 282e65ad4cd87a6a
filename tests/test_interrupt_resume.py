"""Ctrl-C (SIGINT) in the middle of a long run, then the same command with ``--resume``: nothing lost, nothing
written twice (the ``--out``/``--resume`` convention of ``lengthgen_cli.output``; SIGKILL is tested beside each
engine, tests/experiments/test_training_engine.py and tests/experiments/test_reproduce_ahuja.py; bounds.certify --runs
beside its run-folder fixture, tests/certify/test_certify.py).

Each tool runs as a subprocess, the signal is sent once its first record is on disk, and the interrupted run
must end with exit status 130 and the one line ``PROG: interrupted`` (no traceback).  A run that finished
before the signal arrived proves nothing and is skipped, never passed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _interrupt(argv: list[str], ready) -> tuple[int, str]:
    """Run ``python -m argv``, send SIGINT as soon as ``ready()`` holds; (exit status, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-m", *argv], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 240  # generous: start-up under load
    while time.time() < deadline and p.poll() is None and not ready():
        time.sleep(0.01)
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("the run finished before the signal: nothing was interrupted")
    return p.returncode, err


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_search_interrupted_then_resumed_records_every_cell_once(tmp_path, capsys):
    """counterexamples.search writes one JSON line per searched cell: after Ctrl-C the lines written are whole and
    stay byte for byte; --resume searches only the cells not on file and adds the final line: every cell of an
    uninterrupted run is on file exactly once."""
    from counterexamples.search import main

    out = tmp_path / "search.jsonl"
    params = ["--drop", "none", "--L", "5", "--json"]
    argv = ["counterexamples.search", *params, "--out", str(out)]
    code, err = _interrupt(argv, lambda: len(_lines(out)) >= 1)
    assert code == 130 and err == "counterexamples.search: interrupted\n"
    before = out.read_bytes()
    assert before and before.endswith(b"\n")  # whole lines only
    records = [json.loads(line) for line in _lines(out)]
    assert records and all("cell" in r for r in records)  # no final line: the run was cut
    p = subprocess.run([sys.executable, "-m", *argv, "--resume"], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=240)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes().startswith(before)  # nothing written before is touched
    records = [json.loads(line) for line in _lines(out)]
    cells = [json.dumps(r["cell"], sort_keys=True) for r in records if "cell" in r]
    assert sum("final" in r for r in records) == 1 and "final" in records[-1] and records[-1]["final"]["complete"]
    assert len(cells) == len(set(cells))  # nothing twice
    assert main([*params, "--out", str(tmp_path / "whole.jsonl")]) == 0  # the same search, not interrupted
    capsys.readouterr()
    whole = [json.loads(line)["cell"] for line in _lines(tmp_path / "whole.jsonl") if '"cell"' in line]
    assert set(cells) == {json.dumps(c, sort_keys=True) for c in whole}  # nothing lost


@pytest.mark.slow
def test_measure_interrupted_then_resumed_trains_each_run_once(tmp_path):
    """bounds.experiments.measure writes one record file per finished training run: after Ctrl-C those stay byte for byte,
    and --resume trains only the missing runs, each once (torch; ~1 minute)."""
    pytest.importorskip("torch", reason="torch not installed (pip install torch==2.13.0)")
    runs = tmp_path / "runs"
    argv = ["bounds.experiments.measure", "--task", "modp", "--period", "2", "--train-lengths", "3,4,5", "--seeds", "2", "--steps",
            "200", "--batch", "16", "--test-batch", "16", "--test-multiples", "2", "--plateau-from", "1", "--out",
            str(runs), "--json"]

    def records():
        return sorted(f for f in runs.rglob("*.json") if not f.name.startswith(".tmp-")) if runs.is_dir() else []

    code, err = _interrupt(argv, lambda: len(records()) >= 1)
    assert code == 130 and err.endswith("\nbounds.experiments.measure: interrupted\n") and "Traceback" not in err
    before = {f: f.read_bytes() for f in records()}
    p = subprocess.run([sys.executable, "-m", *argv, "--resume"], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    after = records()
    assert all(f.read_bytes() == data for f, data in before.items())  # finished runs untouched
    assert out["trained"] == len(after) - len(before)  # only the missing runs were trained
    assert len(after) == 3 and all(row["seeds"] == 2 for row in out["tasks"][0]["summary"]["rows"])


@pytest.mark.slow
def test_periodic_local_interrupted_then_resumed_equals_an_uninterrupted_sweep(tmp_path, capsys):
    """counterexamples.periodic_local replaces a JSON checkpoint after every length: after Ctrl-C it holds a
    finished length and no result; --resume continues after that length and ends with the result of an
    uninterrupted sweep (~20 s)."""
    from counterexamples.periodic_local import main

    out = tmp_path / "sweep.json"
    params = ["--period", "1", "--tau", "1", "--json"]

    def saved():
        try:
            return json.loads(out.read_text()) if out.exists() else None
        except json.JSONDecodeError:  # never: the file is replaced atomically (asserted below)
            return {"torn": True}

    code, err = _interrupt(["counterexamples.periodic_local", *params, "--out", str(out)], lambda: saved() is not None)
    assert code == 130 and err.endswith("counterexamples.periodic_local: interrupted\n") and "Traceback" not in err
    state = saved()
    assert "torn" not in state and "result" not in state and state["done"] >= 0
    assert main([*params, "--out", str(out), "--resume"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert main(params) == 0
    whole = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in resumed.items() if k != "seconds"} == {k: v for k, v in whole.items() if k != "seconds"}
    assert json.loads(out.read_text())["result"] == resumed  # the checkpoint ends with the result

