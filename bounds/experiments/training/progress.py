"""Progress display of a sweep (tqdm, on stderr): runs done/left with ETA, and the steps of the runs in flight.

Import-light on purpose (no torch): a command creates a :class:`SweepProgress` first, so the user sees the sweep
before torch's import (seconds) starts.  Plug into :func:`lengthgen_cli.sweep.run_specs` with
``on_record=progress.record_done`` and ``on_steps=progress.steps``.
"""

from __future__ import annotations

import sys


class SweepProgress:
    """Two tqdm bars: runs (done / total, ETA from the runs' pace) and steps of the runs in flight."""

    def __init__(self, total: int, already: int = 0, desc: str = "runs", enabled: bool | None = None):
        from tqdm import tqdm

        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._runs = tqdm(total=total, initial=already, desc=desc, unit="run", file=sys.stderr, position=0,
                          disable=not self.enabled, dynamic_ncols=True)
        self._steps = tqdm(total=0, desc="steps", unit="step", file=sys.stderr, position=1, leave=False,
                           disable=not self.enabled, dynamic_ncols=True)
        self._inflight: dict[str, tuple[int, int]] = {}
        self.done, self.total = already, total
        if not self.enabled:
            print(f"{desc}: {already} of {total} already done; {total - already} to run", file=sys.stderr,
                  flush=True)

    def note(self, text: str) -> None:
        """A one-line message that does not break the bars."""
        from tqdm import tqdm

        tqdm.write(text, file=sys.stderr)

    def steps(self, key: str, step: int, max_steps: int) -> None:
        self._inflight[key] = (step, max_steps)
        done = sum(s for s, _ in self._inflight.values())
        total = sum(m for _, m in self._inflight.values())
        self._steps.total = total
        self._steps.n = done
        self._steps.set_postfix_str(f"{len(self._inflight)} run(s) in flight", refresh=False)
        self._steps.refresh()

    def record_done(self, record: dict) -> None:
        self._inflight.pop(record["key"], None)
        self._runs.update(1)
        self.done += 1
        if not self.enabled:
            print(f"done {self.done}/{self.total}: {record['key']} ({record['wall_seconds']:.1f} s)",
                  file=sys.stderr, flush=True)

    def close(self) -> None:
        self._steps.close()
        self._runs.close()
