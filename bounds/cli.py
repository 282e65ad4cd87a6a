"""Shared command-line pieces of ``bounds``: a parser whose usage errors are one line with exit status 2."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction


class OneLineParser(argparse.ArgumentParser):
    """argparse with usage errors printed as one line ``PROG: error: MESSAGE (see --help)`` and exit 2."""

    def error(self, message):
        name = self.prog.removeprefix("python -m ")
        print(f"{name}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def fraction_arg(text: str) -> Fraction:
    """argparse type: an exact rational from '0.1' or '1/10'."""
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (write 0.1 or 1/10)") from None
