"""Progress bars for long runs: tqdm on stderr, shown only when stderr is a terminal (so ``--json`` output,
pipes and tests stay clean)."""

from __future__ import annotations

import sys


def progress(iterable=None, *, total=None, desc: str = "", unit: str = "it", enabled: bool = True):
    """A ``tqdm`` bar over ``iterable`` (or a manual bar with ``.update()``); disabled off a terminal."""
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True,
                disable=not enabled or not sys.stderr.isatty())
