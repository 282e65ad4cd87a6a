"""argparse types shared by every tool.  Each refuses bad text with one readable sentence; argparse adds the
option name (``argument --eps: ...``).

* :func:`rational`: an exact :class:`~fractions.Fraction` from ``1/100``, ``0.01`` or ``1e-2`` (decimal text is
  read exactly); NaN and infinities are refused, and so are exponents beyond :data:`MAX_EXPONENT` (``1e999999999``
  would otherwise build a billion-digit integer).
* :func:`finite_real`: a float (for seconds, learning rates), finite, within bounds.
* :func:`bounded_int` / :func:`int_list`: integers with a lower bound and a named upper limit: a size beyond what
  the machine can do is refused with a message naming the limit, before any work starts.
"""

from __future__ import annotations

import argparse
import math
import re
from fractions import Fraction

MAX_EXPONENT = 1000
MAX_DIGITS = 1000
_NUMBER = re.compile(r"[+-]?(\d+(/\d+)?|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)")
_NONFINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}


def _exact(text: str) -> Fraction:
    t = text.strip().replace("_", "")
    if t.lower() in _NONFINITE:
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    if not _NUMBER.fullmatch(t):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (write 0.01, 1e-2 or 1/100)")
    mantissa, _, exponent = t.lower().partition("e")
    if exponent and abs(int(exponent)) > MAX_EXPONENT:
        raise argparse.ArgumentTypeError(f"{text!r}: exponent beyond the limit {MAX_EXPONENT} (MAX_EXPONENT)")
    if len(mantissa) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"{text!r:.40}...: more than {MAX_DIGITS} digits (MAX_DIGITS)")
    try:
        return Fraction(t)
    except ZeroDivisionError:
        raise argparse.ArgumentTypeError(f"{text!r} divides by zero") from None


def _range_check(value, text: str, positive: bool, nonnegative: bool, low, high, high_name: str | None):
    if positive and value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    if nonnegative and value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    if low is not None and value < low:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= {low}")
    if high is not None and value > high:
        named = f" ({high_name})" if high_name else ""
        raise argparse.ArgumentTypeError(f"{text!r} is beyond the limit {high}{named}")


def rational(*, positive: bool = False, nonnegative: bool = False, low=None, high=None, high_name: str | None = None):
    """argparse type: an exact rational (``1/100``, ``0.01``, ``1e-2`` all give ``Fraction(1, 100)``)."""

    def parse(text: str) -> Fraction:
        value = _exact(text)
        _range_check(value, text, positive, nonnegative, low, high, high_name)
        return value

    parse.__name__ = "rational"
    return parse


def finite_real(*, positive: bool = False, nonnegative: bool = False, low=None, high=None,
                high_name: str | None = None):
    """argparse type: a finite float (same syntax as :func:`rational`, rounded to the nearest double)."""

    def parse(text: str) -> float:
        exact = _exact(text)
        try:
            value = float(exact)
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is beyond the range of a double")
        if value == 0 and exact != 0:  # never read a nonzero value as 0 (nor as "not positive")
            raise argparse.ArgumentTypeError(f"{text!r} is below the smallest positive double (about 4.9e-324)")
        _range_check(value, text, positive, nonnegative, low, high, high_name)
        return value

    parse.__name__ = "real"
    return parse


def _integer(text: str) -> int:
    t = text.strip().replace("_", "")
    if not re.fullmatch(r"[+-]?\d{1,30}", t):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer" if not re.fullmatch(r"[+-]?\d+", t)
                                         else f"{text[:20]!r}... has more than 30 digits")
    return int(t)


def bounded_int(low: int | None = None, high: int | None = None, high_name: str | None = None):
    """argparse type: an integer in ``low..high``; ``high_name`` names the limit in the message
    (e.g. ``MAX_N: the row system grows as 2^n``)."""

    def parse(text: str) -> int:
        value = _integer(text)
        _range_check(value, text, False, False, low, high, high_name)
        return value

    parse.__name__ = "integer"
    return parse


def int_list(low: int | None = None, high: int | None = None, high_name: str | None = None, max_items: int = 1000):
    """argparse type: comma-separated integers, each in ``low..high`` (e.g. ``4,8,16``)."""
    item = bounded_int(low, high, high_name)

    def parse(text: str) -> list[int]:
        parts = [p for p in text.split(",") if p.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers")
        if len(parts) > max_items:
            raise argparse.ArgumentTypeError(f"more than {max_items} items")
        return [item(p) for p in parts]

    parse.__name__ = "integer list"
    return parse
