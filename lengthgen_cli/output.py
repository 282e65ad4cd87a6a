"""The one output writer of every tool, and ``--out FILE`` / ``--resume`` with the same semantics everywhere.

Every file a tool writes goes through :func:`write_file` (or :func:`write_atomic` / :func:`write_text` /
:class:`JsonlOutput`, built on the same checks), and every output path is checked by :func:`check_target` before
any work starts:

* **atomic**: the bytes go to a temporary file in the target's folder, are flushed to disk, and replace the target
  in one ``os.replace``, so a crash leaves the old file or the new one, never a torn one;
* **confined**: the path is resolved (``..`` and symbolic links followed); a path built from an input file's
  fields (a results file's ``preset``, a record's name) must stay inside the folder the user named (``within``),
  else it is refused;
* **never over another kind of file**: an existing target that is not a regular file (a directory, a FIFO, a
  socket, a character or block device, or a symbolic link to one) is refused, both by the check before work
  and again at the moment of writing, so ``--results /dev/full`` never replaces the device; an existing regular
  file is replaced only when it holds this tool's format (``recognise``), so a text file or a user's model file
  named by mistake is refused before any work, not overwritten after it.

Refusals are :class:`~lengthgen_cli.parser.UsageError` (one line, exit status 2).

``--out FILE`` and ``--resume``:

* FILE is checked before any work starts: a directory, a path whose directory does not exist, an unwritable
  path, or an existing file that is not this tool's output format is refused with one line (exit 2).
* **Record streams** (searches, sweeps): results are written as they are produced (JSON lines flushed and
  fsynced one by one, or a JSON checkpoint replaced atomically), so a run killed at any moment loses at most
  the record in progress.  An existing non-empty FILE is refused unless ``--resume`` is given; ``--resume``
  continues it (work already recorded is skipped, nothing is written twice; a line cut short by a kill is
  dropped).  ``--resume`` on a FILE that does not exist yet starts it, so a restart command is always the same.
* **Artefacts** (a compiled model, an HTML trace): FILE is written once, at the end, replacing an existing
  file of the same format.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from lengthgen_cli.parser import UsageError

KINDS = ("jsonl", "json", "artefact")


def add_output_options(parser, *, kind: str = "jsonl", what: str = "results", required: bool = False,
                       metavar: str = "FILE") -> None:
    """Add ``--out`` (and ``--resume`` for record streams) with the shared help texts."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    if kind == "artefact":
        parser.add_argument("--out", required=required, metavar=metavar,
                            help=f"write {what} to this file (replaces a file of the same format)")
        return
    fmt = "JSON lines, one per record" if kind == "jsonl" else "a JSON checkpoint, replaced after every step"
    parser.add_argument("--out", required=required, metavar=metavar,
                        help=f"write {what} here as the run goes ({fmt}); an existing file needs --resume")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run recorded in --out FILE (skips finished work; FILE may not exist yet)")


def _kind(mode: int) -> str:
    return ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def resolve_target(path: str | os.PathLike, *, what: str = "output file",
                   within: str | os.PathLike | None = None) -> Path:
    """The resolved output path (symbolic links and ``..`` followed); :class:`UsageError` if it lies outside the
    folder ``within`` or names an existing path that is not a regular file."""
    p = Path(path)
    target = p.resolve()
    if within is not None:
        root = Path(within).resolve()
        if target != root and root not in target.parents:
            raise UsageError(f"{what} {p} lies outside the folder {within}; a tool writes only inside the folder "
                             "it was given")
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as e:
        raise UsageError(f"{what} {p} cannot be examined ({e.strerror})") from None
    if not stat.S_ISREG(mode):
        via = f" (through the link to {target})" if p.is_symlink() else ""
        raise UsageError(f"{what} {p} is {_kind(mode)}{via}, not a regular file; it is never written over")
    return target


def check_target(path: str | os.PathLike, *, what: str = "output file", within: str | os.PathLike | None = None,
                 recognise: Callable[[str], bool] | None = None, make_folder: bool = False) -> Path:
    """Check an output path before any work (:class:`UsageError`, one line): confined to ``within``, not an
    existing non-regular file, its folder existing (or creatable with ``make_folder``) and writable, and an
    existing file's text accepted by ``recognise`` (this tool's format; an empty file is accepted).  Returns the
    resolved path."""
    target = resolve_target(path, what=what, within=within)
    folder = target.parent
    probe = folder
    while not probe.exists() and make_folder and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise UsageError(f"{what} {path}: the folder {folder} does not exist" if probe == folder else
                         f"{what} {path}: {probe} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise UsageError(f"{what} {path} cannot be written (the folder {probe} is not writable)")
    if target.exists() and recognise is not None:
        try:
            text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"{what} {path} exists and cannot be read as text ({e}); choose another name") from None
        if text.strip() and not recognise(text):
            raise UsageError(f"{what} {path} exists and is not a file this tool writes; choose another name")
    return target


def json_object_with(**fields) -> Callable[[str], bool]:
    """A ``recognise`` for :func:`check_target`: the text is one JSON object holding these field values."""
    def recognise(text: str) -> bool:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            return False
        return isinstance(data, dict) and all(data.get(k) == v for k, v in fields.items())
    return recognise


def write_file(path: str | os.PathLike, write: Callable, *, binary: bool = False, what: str = "output file",
               within: str | os.PathLike | None = None, make_folder: bool = False) -> Path:
    """Write ``path`` atomically with ``write(file_object)``: into a temporary file in the target's folder, flushed
    and fsynced, then moved over the target with ``os.replace``.  The target is checked again here (confined to
    ``within``, not an existing non-regular file), so no caller can write over a device.  Returns the path."""
    target = resolve_target(path, what=what, within=within)
    if make_folder:
        target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=target.suffix, dir=target.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; outputs are ordinary files
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        resolve_target(path, what=what, within=within)  # nothing replaced the target by a device meanwhile
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return Path(path)


def write_text(path: str | os.PathLike, text: str, **kw) -> Path:
    """:func:`write_file` of a text."""
    return write_file(path, lambda fh: fh.write(text), **kw)


def _records(path: Path, text: str) -> tuple[list[dict], int]:
    """The JSON objects of a JSON-lines file and the byte length of its complete lines."""
    records, good = [], 0
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        last = i == len(lines)
        if last and line == "":
            break
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            if last and line.startswith("{"):  # a record cut short by a kill: dropped on resume
                break
            raise UsageError(f"--out {path} is not a JSON-lines file of this tool (line {i} is not JSON)") from None
        if not isinstance(rec, dict):
            raise UsageError(f"--out {path} is not a JSON-lines file of this tool (line {i} is not an object)")
        records.append(rec)
        good += len(line.encode()) + 1
    return records, min(good, len(text.encode()))


def check_output(path: str | os.PathLike | None, *, kind: str, resume: bool = False,
                 recognise: Callable[[object], bool] | None = None, option: str = "--out") -> list | dict | None:
    """Check ``--out`` before work starts (:class:`UsageError` with one line on any problem).

    ``recognise(data)`` says whether an existing file's content (the list of records of a JSON-lines file, the
    object of a JSON file, the text of an artefact) is this tool's format.  Returns what a resumed run continues
    from (the records, or the checkpoint object), else None.  ``option`` names the path in the error line.
    """
    if path is None:
        if resume:
            raise UsageError(f"--resume needs {option} FILE")
        return None
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{option} {p} is a directory; give a file name")
    resolve_target(p, what=option)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{option} {p}: the directory {parent} does not exist")
    exists = p.exists()
    try:  # the only reliable test of writability (permissions, read-only file systems, root)
        with open(p, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise UsageError(f"{option} {p} cannot be written ({e.strerror})") from None
    if not exists:
        p.unlink()
        return None
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{option} {p} exists and cannot be read as text ({e})") from None
    if kind == "artefact":
        if text.strip() and recognise is not None and not recognise(text):
            raise UsageError(f"{option} {p} exists and is not a file this tool writes; choose another name")
        return None
    if not text.strip():
        return None
    if kind == "jsonl":
        data, _ = _records(p, text)
    else:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise UsageError(f"{option} {p} exists and is not a JSON file of this tool") from None
    if recognise is not None and not recognise(data):
        raise UsageError(f"{option} {p} exists and is not a file this tool writes; choose another name")
    if not resume:
        raise UsageError(f"{option} {p} already exists; pass --resume to continue it, or choose another file")
    return data


class JsonlOutput:
    """Append JSON records to ``--out FILE`` one by one (flushed and fsynced); on resume, a last line cut short
    by a kill is removed first.  Use after :func:`check_output`; ``JsonlOutput(None)`` writes nothing."""

    def __init__(self, path: str | os.PathLike | None):
        self._fh = None
        if path is None:
            return
        p = resolve_target(path, what="--out")
        if p.exists():
            text = p.read_text(encoding="utf-8")
            _, good = _records(p, text)
            if good < len(text.encode()):
                with open(p, "r+b") as fh:
                    fh.truncate(good)
        self._fh = open(p, "a", encoding="utf-8")
        if p.stat().st_size and not p.read_bytes().endswith(b"\n"):  # a complete last record without its newline
            self._fh.write("\n")

    def write(self, record: dict) -> None:
        if self._fh is None:
            return
        self._fh.write(json.dumps(record) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def write_atomic(path: str | os.PathLike, obj, **kw) -> Path:
    """:func:`write_file` of ``obj`` as JSON (a crash leaves the old file or the new one, never a torn one)."""
    return write_file(path, lambda fh: json.dump(obj, fh), **kw)


def check_output_folder(path: str | os.PathLike, option: str) -> Path:
    """Check a folder a tool will write into (``--plots DIR``, a run folder) before work starts: an existing
    folder must accept a new file; a missing one is made later, so its nearest existing ancestor must be a folder
    that accepts one.  :class:`UsageError` with one line on any problem."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(f"{option} {p} exists and is not a folder; give a folder")
    probe = p
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise UsageError(f"{option} {p}: {probe} is not a folder")
    try:  # the only reliable test of writability (permissions, read-only file systems, root)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-probe-", dir=probe)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise UsageError(f"{option} {p} cannot be written ({e.strerror})") from None
    return p
