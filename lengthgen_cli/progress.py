"""Progress bars for long runs: tqdm on stderr, shown only when stderr is a terminal (so ``--json`` output,
pipes and tests stay clean)."""

from __future__ import annotations

import sys


def progress(iterable=None, *, total=None, desc: str = "", unit: str = "it", enabled: bool = True):
    """A ``tqdm`` bar over ``iterable`` (or a manual bar with ``.update()``); disabled off a terminal."""
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True,
                disable=not enabled or not sys.stderr.isatty())


def bound_progress(desc: str = "certify: boxes split"):
    """A counter bar for a branch-and-bound, and its ``tick(split, upper, lower)`` callback: the boxes split so far
    and the current bounds [L, U] shown beside it."""
    bar = progress(total=None, desc=desc, unit="box")

    def tick(split, upper, lower):
        bar.n = split
        bar.set_postfix_str(f"U {upper:.4g} L {lower:.4g}")
        bar.refresh()

    return bar, tick
