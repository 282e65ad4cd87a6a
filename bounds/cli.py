"""Transitional names for ``bounds`` tools: the command-line convention now lives in :mod:`lengthgen_cli`.

``OneLineParser`` is :class:`lengthgen_cli.Parser`; ``fraction_arg`` is ``lengthgen_cli.rational()`` (exact
``1/10``, ``0.1``, ``1e-1``; NaN, infinities and huge exponents refused).  Tools being reworked on other
branches import these names; they move to :mod:`lengthgen_cli` directly once merged, and this module goes.
"""

from __future__ import annotations

from lengthgen_cli import Parser as OneLineParser
from lengthgen_cli import rational

fraction_arg = rational()

__all__ = ["OneLineParser", "fraction_arg"]
