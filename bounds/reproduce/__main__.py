"""Dispatcher: ``python -m bounds.reproduce <paper> [options]`` runs ``bounds.reproduce.<paper>.main``."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import bounds.reproduce as _pkg

PROG = "bounds.reproduce"


def papers() -> list[str]:
    """The paper modules of this package (every public module)."""
    return sorted(m.name for m in pkgutil.iter_modules(_pkg.__path__) if not m.name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    known = papers()
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: python -m {PROG} {{{','.join(known)}}} [options]  (options: python -m {PROG} PAPER --help)")
        return 0 if argv else 2
    if argv[0] not in known:
        print(f"{PROG}: error: unknown paper {argv[0]!r}; choose from {', '.join(known)}", file=sys.stderr)
        return 2
    return importlib.import_module(f"{_pkg.__name__}.{argv[0]}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
