"""Which tests check which claim: pytest's collection of the claim-linked tests, from any directory."""

from __future__ import annotations

import contextlib
import io
from collections import defaultdict
from pathlib import Path

from verify.results import BASE, node_key


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
            return found[-1].removeprefix("E").strip()
    return lines[-1] if lines else "no output"


def collect_tests(extra: list[str] | tuple[str, ...] = ()) -> dict[str, dict[str, bool]]:
    """Map claim key -> {node key: is slow}, by pytest's collection (no test is executed).

    ``extra``: further test files or directories (the tests of your own claims, docs/own_claims.md).
    """
    import pytest

    collector = _Collector()
    args = ["--collect-only", "-q", "--slow", "--no-claim-results", "-W", "ignore", *pytest_base_args(),
            *check_locations(), *(str(Path(e).resolve()) for e in extra)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = pytest.main(args, plugins=[collector])
    if rc not in (0, 5):
        raise CollectionError(f"pytest could not collect the tests (exit code {rc}): {_reason(out.getvalue())}")
    return {k: dict(sorted(v.items())) for k, v in collector.by_claim.items()}


