"""The shared option names and help texts: one name per quantity in every tool.

=====================  =================================================================================
``--period P``         the period Delta of a periodic positional encoding (Huang et al. Def. 3, Izzo et
                       al.'s ModP period p); never ``--delta``
``--delta D``          only the agreement delta of Izzo et al. Theorem 4.1 (exact rational >= 0)
``--eps E``            the error scale eps > 0 (exact rational)
``--precision-bits P`` the precision p of the finite-precision softmax (positive integer)
``--json``             print one JSON value on stdout instead of text (strict JSON: :func:`strict_json`)
``--out FILE``         :mod:`lengthgen_cli.output`
=====================  =================================================================================
"""

from __future__ import annotations

import argparse
import json
import math
from fractions import Fraction

from lengthgen_cli.types import bounded_int, rational

MAX_PERIOD = 64
MAX_PRECISION_BITS = 4096


def add_json_option(parser: argparse.ArgumentParser, what: str = "one JSON object") -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} on stdout instead of text")


def strict_json(value) -> str:
    """``value`` as strict JSON (RFC 8259: no ``Infinity`` or ``NaN``): a non-finite float is written as the string
    ``"inf"``, ``"-inf"`` or ``"nan"``, so that every reader parses the output and an unbounded quantity still reads
    as what it is."""

    def finite(v):
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [finite(x) for x in v]
        return v

    return json.dumps(finite(value), allow_nan=False)


def from_strict_json(value):
    """The inverse of :func:`strict_json` on a parsed value: the strings ``"inf"``, ``"-inf"`` and ``"nan"`` back to
    floats (every other value unchanged), for readers of files written with it."""
    if isinstance(value, str) and value in _STRICT_NONFINITE:
        return float(value)
    if isinstance(value, dict):
        return {k: from_strict_json(x) for k, x in value.items()}
    if isinstance(value, list):
        return [from_strict_json(x) for x in value]
    return value


_STRICT_NONFINITE = ("inf", "-inf", "nan")


def add_period_option(parser: argparse.ArgumentParser, *, default=1, high: int = MAX_PERIOD,
                      limit_name: str = "lengthgen_cli.options.MAX_PERIOD",
                      help: str = "period Delta of the positional encoding") -> None:
    parser.add_argument("--period", type=bounded_int(1, high, f"{limit_name} = {high}"), default=default,
                        metavar="P", help=f"{help} (default {default})")


def add_delta_option(parser: argparse.ArgumentParser, *, default=Fraction(0),
                     help: str = "agreement delta of Theorem 4.1, exact rational >= 0") -> None:
    parser.add_argument("--delta", type=rational(nonnegative=True), default=default, metavar="D",
                        help=f"{help} (default {default})")


def add_eps_option(parser: argparse.ArgumentParser, *, default=Fraction(1, 10),
                   help: str = "error scale eps > 0, exact rational: 0.1, 1e-1 or 1/10") -> None:
    parser.add_argument("--eps", type=rational(positive=True), default=default, metavar="E",
                        help=f"{help} (default {default})")


def add_precision_bits_option(parser: argparse.ArgumentParser, *, default=None,
                              help: str = "precision p of the finite-precision softmax") -> None:
    parser.add_argument("--precision-bits", type=bounded_int(1, MAX_PRECISION_BITS, "MAX_PRECISION_BITS"),
                        default=default, metavar="P", help=f"{help} (default {default})")


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def options_without_help(parser: argparse.ArgumentParser) -> list[str]:
    """Options and positionals of ``parser`` and its sub-commands that have no help text (the tests require
    none)."""
    out = []
    for p in _parsers(parser):
        for action in p._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                out.append(f"{p.prog} {'/'.join(action.option_strings) or action.dest}")
    return out
