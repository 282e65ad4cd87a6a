"""``izzo2025:sec5.certified-threshold``: Izzo et al. sec. 5's conclusion (i) read on every input, judged on the
committed horizon sweep.

Sec. 5 concludes from the test-loss plateau of Figures 1 and 2 that "given a target accuracy eps, tasks
expressible by a one-layer limit transformer have a finite N such that a model which fits the task on sequences
up to length N achieves eps error on sequences of all length".  Read on every input, as Theorem 4.1 states it, a
trained seed reaches that at N when ``python -m bounds.certify --target-fn`` certifies it within delta + eps at
every length (delta: its certified error over the training lengths).  The committed record
(``docs/results/izzo2025-threshold-<name>.json``, :mod:`bounds.experiments.threshold`) is recomputed here from the
committed certificate and measurement summaries it was joined from, and the statement is judged per task:
:func:`violations` lists every task whose grid (N up to at least 4x the class's certified lower bound) never has
a majority of its seeds certified at every length from some N on.
"""

from __future__ import annotations

import json
import os

from bounds.experiments.threshold import join

RESULTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "results")


def _load(name: str) -> dict:
    with open(os.path.join(RESULTS, name), encoding="utf-8") as fh:
        return json.load(fh)


def committed(name: str = "horizon") -> tuple[dict, dict]:
    """The committed threshold record of sweep ``name`` and the same record recomputed from its sources."""
    certify = _load(f"izzo2025-certify-{name}.json")
    measured = [_load(f"izzo2025-{k}-{name}.json") for k in ("modp", "simple")]
    return _load(f"izzo2025-threshold-{name}.json"), join(certify, measured, name)


def violations(record: dict) -> list[str]:
    """Tasks of ``record`` with no training length from which a majority of seeds is certified at every length
    against the task's function (empty: conclusion (i) holds on every input for every task of the sweep)."""
    bad = []
    for t in record["tasks"]:
        if t["threshold"]["target"]["every_length"] is None:
            last = max(t["rows"], key=lambda r: r["N"])
            share = last["fraction"]["target"]["every_length"]
            share = "no seed" if share is None else f"{share:.0%}"
            bad.append(f"{t['task']}: no N up to {last['N']} (class lower bound {t['lower']}) from which a majority "
                       f"of seeds is certified at every length ({share} at N = {last['N']})")
    return bad
