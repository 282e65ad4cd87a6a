"""A pytest fork server for ``python -m verify.mutate``: import the third-party libraries once, fork per run.

Every mutation runs its claims' checks in a fresh pytest process, so that the mutated file is imported anew.  Most
of a short run's time is spent importing pytest, numpy, sympy, scipy, z3 and Hypothesis; this server (started with
``python -m verify.forkserver`` in the copy the runner mutates) imports them once and forks one child per request.
Nothing of the lengthgen packages is imported before the fork (only the one-line ``verify/__init__.py``), so each
child imports the package modules from the copy as they are on disk, mutation included.

Protocol: one JSON object per line on stdin, ``{"args": [...pytest arguments...], "env": {...variables to set...},
"timeout": seconds}``; one line
``{"rc": exit status}`` on stdout per request (``-1`` when the child ran past its timeout and was killed).  The
child's output goes to /dev/null.  End of input ends the server.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

#: third-party modules imported once in the server (never a lengthgen module: those must be imported after a mutation)
PRELOAD = ("pytest", "numpy", "scipy.linalg", "sympy", "z3", "hypothesis", "hypothesis.strategies", "jsonschema")


def _end_with_parent() -> None:
    """SIGKILL this process when its parent ends (Linux ``prctl(PR_SET_PDEATHSIG)``), so that a SIGKILLed
    ``verify.mutate`` leaves neither this server nor a run behind; where prctl is missing, the server still ends
    at the end of its input.  (:func:`lengthgen_cli.process.die_with_parent` does the same for pool workers; it
    is not imported here because the server imports nothing of the package before a fork.)"""
    import ctypes

    try:
        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _child(args: list[str], env: dict[str, str], server: int) -> None:
    _end_with_parent()
    if os.getppid() != server:  # the server ended before prctl took effect
        os._exit(1)
    os.setpgid(0, 0)
    os.environ.update(env)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    code = 3
    try:
        import pytest

        code = int(pytest.main(args))
    finally:
        os._exit(code)


def _wait(pid: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return -1
        time.sleep(0.02)


def serve() -> None:
    import importlib

    parent = os.getppid()
    _end_with_parent()
    if os.getppid() != parent:  # the parent ended before prctl took effect
        return

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        server = os.getpid()
        pid = os.fork()
        if pid == 0:
            _child(request["args"], request.get("env", {}), server)
        rc = _wait(pid, float(request["timeout"]))
        print(json.dumps({"rc": rc}), flush=True)


if __name__ == "__main__":
    serve()
