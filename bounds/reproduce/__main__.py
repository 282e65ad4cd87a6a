"""Dispatcher: ``python -m bounds.reproduce <paper> [options]`` runs ``bounds.reproduce.<paper>.main``."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import bounds.reproduce as _pkg
from lengthgen_cli import Parser, command


def papers() -> list[str]:
    """The paper modules of this package (every public module)."""
    return sorted(m.name for m in pkgutil.iter_modules(_pkg.__path__) if not m.name.startswith("_"))


@command
def main(argv: list[str] | None = None) -> int:
    ap = Parser(module="bounds.reproduce", description="Reproductions of the papers' experiments, one per paper.")
    ap.add_argument("paper", choices=papers(), help="the paper; its options: python -m bounds.reproduce PAPER --help")
    ap.add_argument("options", nargs=argparse.REMAINDER, help="options of the paper's reproduction")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    return importlib.import_module(f"{_pkg.__name__}.{a.paper}").main(a.options)


if __name__ == "__main__":
    sys.exit(main())
