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


def given_options(parser: argparse.ArgumentParser, argv) -> set[str]:
    """The destinations of the options given on the command line ``argv`` (``None``: ``sys.argv[1:]``), whatever
    their values: ``parser`` parsed once more with every default suppressed.  A mode that does not use an option
    refuses it when given (an option silently ignored is a wrong answer to the question the user asked)."""
    saved = [(a, a.default) for a in parser._actions]
    saved_defaults = dict(parser._defaults)
    try:
        for a in parser._actions:
            a.default = argparse.SUPPRESS
        parser._defaults.clear()
        ns = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    finally:
        for a, d in saved:
            a.default = d
        parser._defaults.update(saved_defaults)
    return set(vars(ns))


def refuse_unused(given: set[str], unused, why: str) -> None:
    """Raise :class:`UsageError` naming every option of ``unused`` (``--name`` strings) that was given: ``why``
    says which mode leaves it unused (``"--measured reads the pair from the file"``)."""
    names = [o for o in unused if o.lstrip("-").replace("-", "_") in given]
    if names:
        raise UsageError(f"{why}; drop {', '.join(names)}")


@contextlib.contextmanager
def usage_errors(parser: Parser, *errors: type[BaseException]):
    """Turn :class:`UsageError` and the given library error types raised inside the block into
    ``parser.error`` (one line, exit 2); Ctrl-C becomes one line with exit status 130.  After Ctrl-C, errors in
    finalizers run at exit are not printed: an object whose constructor the interrupt cut short (z3's
    ``Context``, for one) fails in its ``__del__``, which would append a traceback to the one line."""
    try:
        yield
    except (UsageError, *errors) as e:
        parser.error(str(e))
    except KeyboardInterrupt:
        sys.exit(interrupted(parser.error_prefix))
    except SystemError as e:
        if not from_interrupt(e):
            raise
        sys.exit(interrupted(parser.error_prefix))


def from_interrupt(e: BaseException) -> bool:
    """Whether ``e`` was raised because of Ctrl-C: CPython can turn a ``KeyboardInterrupt`` that arrives inside a
    C-level call (a property getter of ``fractions.Fraction``, for one) into ``SystemError: ... returned a result
    with an exception set``, with the interrupt as its cause or context."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def interrupted(prefix: str) -> int:
    """Report Ctrl-C in one line (``PROG: interrupted``) and return the exit status 130; errors of finalizers run
    after it at exit are not printed (see :func:`usage_errors`)."""
    print(f"{prefix}: interrupted", file=sys.stderr)
    sys.unraisablehook = lambda unraisable: None
    return 130


def command(main):
    """Decorator for a tool's ``main(argv=None) -> int``: usage errors and ``--help`` come back as the exit status
    (2, 0) instead of ``SystemExit``, so ``main([...])`` can be called in-process and ``sys.exit(main())`` as a
    script.  Output piped into a reader that stops early (``| head``) ends quietly with status 1; Ctrl-C that the
    tool does not handle itself ends with one line and status 130, as in :func:`usage_errors`; a
    :class:`UsageError` the tool does not handle itself is its one error line with status 2."""

    @functools.wraps(main)
    def wrapper(argv=None) -> int:
        try:
            return main(argv)
        except SystemExit as e:
            return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except UsageError as e:
            print(f"{_error_prefix(main.__module__)}: error: {one_line(e)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return interrupted(_error_prefix(main.__module__))
        except SystemError as e:
            if not from_interrupt(e):
                raise
            return interrupted(_error_prefix(main.__module__))
        except BrokenPipeError:  # the Python documentation's recipe (signal module, "Note on SIGPIPE")
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1

    return wrapper


def _error_prefix(module: str) -> str:
    """The error-line prefix of the tool in ``module`` (as :attr:`Parser.error_prefix` names it; a module run by
    ``python -m`` is ``__main__``, named by its spec, and a module of the package run by ``python -m PKG`` is named
    PKG, the program the user started)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    started = spec.name.removesuffix(".__main__") if spec is not None else None
    if module == "__main__" and started:
        name = started
    elif started and module.startswith(started + "."):  # python -m PKG runs PKG.__main__, which calls PKG.cli.main
        name = started
    else:
        name = module
    return program_name(name).removeprefix("python -m ")
