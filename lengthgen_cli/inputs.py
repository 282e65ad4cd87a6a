"""Input files: refused with one line unless they are regular files.

``require_regular_file`` looks at a path with ``os.stat`` (which never blocks) before anything opens it: reading
a FIFO waits for a writer that may never come, a character device such as ``/dev/zero`` never ends, and a
directory or a missing path cannot be read at all.  Tools call it (directly or through the loaders they use)
for every file they read, so that such a path is one line with exit status 2, never a hang or a traceback.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from lengthgen_cli.parser import UsageError


def require_regular_file(path, what: str = "input file", error: type[Exception] = UsageError,
                         missing_ok: bool = False) -> Path:
    """``Path(path)`` when it names a regular file; otherwise raise ``error`` with one line saying why.
    ``missing_ok``: a path that does not exist is returned as well (the caller treats it as empty)."""
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        if missing_ok:
            return p
        raise error(f"{what} {p}: no such file") from None
    except OSError as e:
        raise error(f"{what} {p} cannot be read ({e.strerror})") from None
    if stat.S_ISDIR(mode):
        raise error(f"{what} {p} is a directory; give a file")
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
        raise error(f"{what} {p} is {kind}, not a regular file")
    return p


def loads_json(text: str, what: str, error: type[Exception] = UsageError):
    """The JSON value of ``text`` (the content of ``what``), or ``error`` with one line: not JSON (the line and
    column named), nested beyond what the reader can follow (Python's recursion limit), or a non-standard
    ``NaN``/``Infinity`` constant."""
    import json

    def constant(name):
        raise ValueError(f"the non-standard constant {name}")

    try:
        return json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as e:
        raise error(f"{what} is not JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise error(f"{what} is nested too deeply to be read") from None
    except ValueError as e:
        raise error(f"{what} is not standard JSON ({e})") from None


def read_json(path, what: str = "input file", error: type[Exception] = UsageError):
    """The JSON value of the file ``path``, every way it can fail one line (``error``): not a regular file
    (:func:`require_regular_file`), unreadable, not UTF-8 text, or :func:`loads_json`'s reasons."""
    p = require_regular_file(path, what, error)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {p} is not UTF-8 text") from None
    except OSError as e:
        raise error(f"{what} {p} cannot be read ({e.strerror})") from None
    return loads_json(text, f"{what} {p}", error)
