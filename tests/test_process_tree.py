"""Worker processes end with their command (README, "Command-line tools").

A tool with workers (``bounds.certify --runs --workers``, the local executor of the trained sweeps:
``bounds.experiments.measure``, ``bounds.experiments.reproduce``) is started as a process of its own, its
children are recorded once they run, then the parent is killed: after SIGKILL every child must be gone, after
SIGINT the command must end with status 130 and its children with it.  The checks poll with a generous timeout
(a loaded machine is slow); none asserts a speed.  Negative control: a child started without the mechanism
(a plain ``multiprocessing`` process) outlives its SIGKILLed parent, so the check can fail.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PATIENCE_S = 120  # generous: the poll ends as soon as the condition holds

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie has ended (it waits to be reaped)


def _children(pid: int) -> set[int]:
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            out.add(int(entry))
    return out


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not after {PATIENCE_S} s")
        time.sleep(0.2)


def _start(argv: list[str], cwd) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True)


def _kill_and_check(p: subprocess.Popen, workers: int, sig: int) -> tuple[set[int], str]:
    """Wait until ``p`` has ``workers`` or more children, send ``sig``; return the children and p's stderr once
    p has ended."""
    kids: set[int] = set()

    def started():
        kids.update(_children(p.pid))
        return len(kids) >= workers or p.poll() is not None

    try:
        _wait_for(started, "workers started")
        assert p.poll() is None, p.communicate()
        time.sleep(1.0)  # the workers are importing or working
        kids.update(_children(p.pid))
        os.kill(p.pid, sig)
        p.wait(timeout=PATIENCE_S)  # not communicate(): a surviving child holds the pipes open
        _wait_for(lambda: not any(_alive(k) for k in kids), f"children {sorted(kids)} gone after signal {sig}")
        return kids, p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
        for k in kids:  # never leave a process behind, even when the check fails
            if _alive(k):
                os.kill(k, signal.SIGKILL)



CERTIFY = ["-m", "bounds.certify", "--runs", None, "--workers", "2", "--time-budget", "3600", "--target-fn"]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_certify_runs_workers_end_with_the_command(witness_runs, tmp_path, sig):
    argv = [str(witness_runs) if a is None else a for a in CERTIFY] + ["--out", str(tmp_path / "c.jsonl")]
    p = _start(argv, tmp_path)
    kids, err = _kill_and_check(p, 2, sig)
    assert len(kids) >= 2
    if sig == signal.SIGINT:
        assert p.returncode == 130 and "Traceback" not in err and err.strip().endswith("interrupted"), err


SWEEP = textwrap.dedent("""
    import sys
    from lengthgen_cli.sweep import RunSpec, run_specs
    specs = [RunSpec(f"k{i}", "tests.experiments.toy_runs:square", {"x": i, "sleep": 3600}) for i in range(4)]
    run_specs(specs, sys.argv[1], workers=2, on_steps=lambda *a: None)
""")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_executor_pool_and_manager_end_with_the_command(tmp_path, sig):
    """The local executor's two workers and its manager process (the progress queue)."""
    p = _start(["-c", SWEEP, str(tmp_path / "runs")], ROOT)
    kids, err = _kill_and_check(p, 3, sig)
    assert len(kids) >= 3
    if sig == signal.SIGINT:
        assert p.returncode != 0 and p.returncode is not None


ORPHAN = textwrap.dedent("""
    import multiprocessing as mp, time
    if __name__ == "__main__":
        mp.get_context("spawn").Process(target=time.sleep, args=(3600,), daemon=False).start()
        time.sleep(3600)
""")


def test_the_check_catches_a_child_that_outlives_its_parent(tmp_path):
    """Negative control: a plain spawned child (no die-with-parent) survives SIGKILL of its parent."""
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN)
    p = _start([str(script)], tmp_path)
    kids: set[int] = set()
    try:
        _wait_for(lambda: kids.update(_children(p.pid)) or len(kids) >= 2, "child started")
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=PATIENCE_S)
        time.sleep(2.0)
        assert any(_alive(k) for k in kids)  # the orphan is still there: _kill_and_check would fail
    finally:
        for k in kids:
            if _alive(k):
                os.kill(k, signal.SIGKILL)
