"""Which tests check which claim: pytest's collection of the claim-linked tests, from any directory.

Collecting imports every test module (tens of seconds), so the map is kept in a cache file beside the results
file, keyed on the sha256 of everything that can change what pytest collects: every Python file of our packages,
``pyproject.toml``, the root ``conftest.py``, every file under ``verify/tests/`` and ``docs/results/*.json``, the
``extra`` test paths, the claim modules named by ``LENGTHGEN_CLAIMS`` and entry points, and the Python and pytest
versions.  A report that runs nothing then reads the map instead of collecting (:func:`collect_tests`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

from verify.results import BASE, node_key, results_path


def check_locations() -> list[str]:
    """Where claim-linked tests are collected from: the ``verify`` package (checkout or installed).

    Every claim-linked test lives under ``verify/tests/<paper>/`` (docs/architecture.md; kept true by
    tests/test_claims.py), so the checkout's unit tests under ``tests/`` need not be imported."""
    return [str(BASE / "verify")] if (BASE / "verify").is_dir() else []


class _Collector:
    """Pytest plugin that records, for every collected test, its claim keys and whether it is slow."""

    def __init__(self) -> None:
        self.by_claim: dict[str, dict[str, bool]] = defaultdict(dict)

    def pytest_collection_modifyitems(self, items):
        for item in items:
            slow = item.get_closest_marker("slow") is not None
            name = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.name
            for mark in item.iter_markers("claims"):
                for key in mark.args:
                    self.by_claim[key][node_key(item.path, name)] = slow


def pytest_base_args() -> list[str]:
    args = ["-p", "no:cacheprovider", "-p", "verify.pytest_plugin", "--rootdir", str(BASE)]
    pyproject = BASE / "pyproject.toml"
    return args + (["-c", str(pyproject)] if pyproject.is_file() else ["-o", "addopts="])


class CollectionError(RuntimeError):
    """pytest could not collect the claims' tests (a test file that does not import, say); the message is one line."""


def _reason(output: str) -> str:
    """The line of pytest's collection output that says why: its last ``E`` line (the exception), else its last
    ``ERROR`` line, else its last line."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for prefix in ("E ", "ERROR"):
        found = [ln for ln in lines if ln.startswith(prefix)]
        if found:
            return found[-1].removeprefix("E ").strip() if prefix == "E " else found[-1]
    return lines[-1] if lines else "no output"


def _tree_key(extra) -> str:
    """Digest of everything that can change what pytest collects (see the module docstring)."""
    import pytest

    from verify.claims import _extra_modules
    from verify.inputs import PACKAGES

    files = [f for pkg in PACKAGES for f in (BASE / pkg).rglob("*.py")]
    files += [BASE / "pyproject.toml", BASE / "conftest.py", *(BASE / "docs" / "results").glob("*.json")]
    files += [f for f in (BASE / "verify" / "tests").rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    for e in extra:
        e = Path(e).resolve()
        files += [f for f in e.rglob("*.py")] if e.is_dir() else [e]
    h = hashlib.sha256(json.dumps([sys.version, pytest.__version__, _extra_modules(), os.environ.get("PYTHONPATH"),
                                   [str(Path(e).resolve()) for e in extra]]).encode())
    for f in sorted(set(files)):
        if f.is_file():
            h.update(f"{f}\0".encode() + hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def cache_path(results: str | os.PathLike | None = None) -> Path:
    """The collection cache: beside the results file."""
    r = results_path(results)
    return r.with_name(r.stem + ".collected.json")


def collect_tests(extra: list[str] | tuple[str, ...] = (), results: str | os.PathLike | None = None,
                  cached: bool = True) -> dict[str, dict[str, bool]]:
    """Map claim key -> {node key: is slow}, by pytest's collection (no test is executed), or from the cache
    (:func:`cache_path`) when nothing that can change the collection has changed since it was written.

    ``extra``: further test files or directories (the tests of your own claims, docs/own_claims.md).
    """
    if not cached:
        return _collect(extra)
    key = _tree_key(extra)
    path = cache_path(results)
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        data = json.loads(path.read_text())
        if data["key"] == key:
            return data["tests"]
    tests = _collect(extra)
    from verify.results import ResultsError, write_json

    with contextlib.suppress(OSError, ResultsError):  # no cache where the folder cannot take one
        write_json(path, {"key": key, "tests": tests})
    return tests


def _collect(extra) -> dict[str, dict[str, bool]]:
    import pytest

    collector = _Collector()
    args = ["--collect-only", "-q", "--slow", "--no-claim-results", "-W", "ignore", *pytest_base_args(),
            *check_locations(), *(str(Path(e).resolve()) for e in extra)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):  # pytest's errors: the reason, once
        rc = pytest.main(args, plugins=[collector])
    if rc == pytest.ExitCode.INTERRUPTED and "KeyboardInterrupt" in out.getvalue():
        raise KeyboardInterrupt  # Ctrl-C during collection: pytest caught it (a collection error is INTERRUPTED too)
    if rc not in (0, 5):
        raise CollectionError(f"pytest could not collect the tests (exit code {rc}): {_reason(out.getvalue())}")
    return {k: dict(sorted(v.items())) for k, v in collector.by_claim.items()}


