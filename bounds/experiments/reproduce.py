"""Dispatcher: ``python -m bounds.experiments.reproduce <paper> [options]`` runs ``bounds.experiments.<paper>.main``."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys

import bounds.experiments as _pkg
from lengthgen_cli import Parser, command


def papers() -> list[str]:
    """The paper modules of this package: the modules named by a paper key (author and year, ``ahuja2024``), not
    the shared ones (``options``)."""
    return sorted(m.name for m in pkgutil.iter_modules(_pkg.__path__) if re.fullmatch(r"[a-z]+\d{4}", m.name))


@command
def main(argv: list[str] | None = None) -> int:
    ap = Parser(module="bounds.experiments.reproduce", description="Reproductions of the papers' experiments, one per paper.")
    ap.add_argument("paper", choices=papers(), help="the paper; its options: python -m bounds.experiments.reproduce PAPER --help")
    ap.add_argument("options", nargs=argparse.REMAINDER, help="options of the paper's reproduction")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    return importlib.import_module(f"{_pkg.__name__}.{a.paper}").main(a.options)


if __name__ == "__main__":
    sys.exit(main())
