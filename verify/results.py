"""The results file: the last recorded outcome of every claim-linked check, and of every mutation run.

One JSON file per installation of the package (not per working directory), merged per entry so that a
partial run updates only what ran, written atomically by the one output writer
(:func:`lengthgen_cli.output.write_file`: temporary file + ``os.replace``, never over a device or a file of
another format: an existing file must be a results file, else :class:`ResultsError`) under a lock so that
concurrent runs (pytest-xdist workers, two terminals) never lose each other's entries.

Location, first that applies: the ``--claim-results PATH`` pytest option / ``verify.report --results PATH``,
the environment variable :data:`RESULTS_ENV`, else ``$XDG_CACHE_HOME/lengthgen/results-<id>.json``
(``~/.cache`` when unset) where ``<id>`` identifies the directory the ``verify`` package is imported from.

Format (version 1)::

    {"version": 1,
     "tests": {"<node key>": {"claims": [keys], "outcome": "passed"|"failed"|"skipped", "at": epoch seconds}},
     "mutations": {"<name>": {"claims": {key: "caught"|"survived"|"error"}, "outcome": "caught" (all claims)
                              |"survived"|"error", "spec": digest, "seconds": float, "at": epoch seconds,
                              "inputs": {key: [files the run on key judged]},
                              "digests": {file: sha256 when the run started}}}}

A mutation record counts only while the files it judged keep their digests (:mod:`verify.inputs`,
:mod:`verify.status`); a record without ``inputs`` (written by an earlier version) counts as stale.

A node key is the test's file path relative to the directory holding the ``verify`` package (absolute for
tests elsewhere) followed by pytest's ``::``-separated name, so a checkout and an installed copy agree.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from lengthgen_cli.inputs import require_regular_file
from lengthgen_cli.output import resolve_target, write_file
from lengthgen_cli.parser import UsageError

RESULTS_ENV = "LENGTHGEN_RESULTS"
VERSION = 1
SECTIONS = ("tests", "mutations")
#: the directory holding the ``verify`` package (a checkout's root, or site-packages)
BASE = Path(__file__).resolve().parent.parent


class ResultsError(RuntimeError):
    """The results file exists but cannot be read as a version-1 results file."""


def default_path() -> Path:
    """Where results go when neither an option nor :data:`RESULTS_ENV` names a file."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    tag = hashlib.sha256(str(BASE).encode()).hexdigest()[:12]
    return cache / "lengthgen" / f"results-{tag}.json"


def results_path(explicit: str | os.PathLike | None = None) -> Path:
    """The results file to use: ``explicit``, else :data:`RESULTS_ENV`, else :func:`default_path`."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get(RESULTS_ENV)
    return Path(env).expanduser().resolve() if env else default_path()


def node_key(path: str | os.PathLike, name: str) -> str:
    """The location-independent id of the test ``name`` (pytest's part after the file) in file ``path``."""
    p = Path(path).resolve()
    try:
        rel = p.relative_to(BASE).as_posix()
    except ValueError:
        rel = p.as_posix()
    return f"{rel}::{name}"


def _empty() -> dict:
    return {"version": VERSION, "tests": {}, "mutations": {}}


def load(path: Path) -> dict:
    """The recorded results (empty when the file does not exist)."""
    try:
        data = json.loads(require_regular_file(path, "results file", ResultsError, missing_ok=True).read_text())
    except FileNotFoundError:
        return _empty()
    except (OSError, ValueError) as exc:
        raise ResultsError(f"cannot read results file {path}: {exc}") from exc
    except RecursionError:
        raise ResultsError(f"results file {path} is nested too deeply to be read") from None
    if (not isinstance(data, dict) or data.get("version") != VERSION or not set(data) <= {"version", *SECTIONS}
            or not all(isinstance(data.get(s, {}), dict) for s in SECTIONS)):
        raise ResultsError(f"results file {path} is not a version-{VERSION} lengthgen results file (it holds other "
                           "fields than version, tests and mutations); it is never written over")
    for section in SECTIONS:
        data.setdefault(section, {})
    return data


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive advisory lock on ``path``'s sibling ``.lock`` file (no-op where fcntl is missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    lock = path.with_name(path.name + ".lock")
    try:
        resolve_target(lock, what="results lock file")  # a FIFO there would block the open
    except UsageError as e:
        raise ResultsError(str(e)) from None
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def merge(path: Path, section: str, entries: dict[str, dict]) -> None:
    """Merge ``entries`` into ``section`` ("tests" or "mutations") of the file, atomically."""
    if not entries:
        return
    with _locked(path):
        data = load(path)
        data[section].update(entries)
        write_json(path, data)


def write_json(path: Path, data) -> None:
    """Write ``data`` as JSON to ``path`` (:func:`lengthgen_cli.output.write_file`: temporary file + ``os.replace``);
    :class:`ResultsError` in one line when the path cannot take it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_file(path, lambda fh: json.dump(data, fh, indent=0, sort_keys=True), what="results file")
    except UsageError as e:
        raise ResultsError(str(e)) from None
