"""One error style for every tool: ``PROG: error: MESSAGE`` (one line on stderr), exit status 2."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys

SCRIPT_PREFIX = "lengthgen-"


class UsageError(Exception):
    """Bad command-line input found after parsing (a path, a size, a combination of options): exit 2, one line."""


def program_name(module: str) -> str:
    """The name a tool was started by: its console script (``lengthgen-estimate``) or ``python -m MODULE``."""
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return script if script.startswith(SCRIPT_PREFIX) else f"python -m {module}"


def one_line(message: str) -> str:
    return " ".join(str(message).split())


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` with one-line usage errors (exit 2) and no option abbreviations.

    ``Parser(module="verify.identify", description=...)`` names the program by :func:`program_name`; the error
    line starts with the program without ``python -m`` (``verify.identify: error: ...``).  Sub-commands made with
    ``add_subparsers`` use this class too.
    """

    def __init__(self, *args, module: str | None = None, **kwargs):
        if module is not None and "prog" not in kwargs:
            kwargs["prog"] = program_name(module)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    @property
    def error_prefix(self) -> str:
        return self.prog.removeprefix("python -m ")

    def error(self, message):
        print(f"{self.error_prefix}: error: {one_line(message)}", file=sys.stderr)
        sys.exit(2)


@contextlib.contextmanager
def usage_errors(parser: Parser, *errors: type[BaseException]):
    """Turn :class:`UsageError` and the given library error types raised inside the block into
    ``parser.error`` (one line, exit 2); Ctrl-C becomes one line with exit status 130."""
    try:
        yield
    except (UsageError, *errors) as e:
        parser.error(str(e))
    except KeyboardInterrupt:
        print(f"{parser.error_prefix}: interrupted", file=sys.stderr)
        sys.exit(130)


def command(main):
    """Decorator for a tool's ``main(argv=None) -> int``: usage errors and ``--help`` come back as the exit status
    (2, 0) instead of ``SystemExit``, so ``main([...])`` can be called in-process and ``sys.exit(main())`` as a
    script.  Output piped into a reader that stops early (``| head``) ends quietly with status 1."""

    @functools.wraps(main)
    def wrapper(argv=None) -> int:
        try:
            return main(argv)
        except SystemExit as e:
            return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BrokenPipeError:  # the Python documentation's recipe (signal module, "Note on SIGPIPE")
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1

    return wrapper
