"""A wall-clock limit on a tool's computation: past it, the tool stops with one line naming the limit.

Used where a legal request can still take unboundedly long (exact symbolic work on a user's expression), so
that no invocation runs for minutes unasked.  The limit is the operating system's interval timer (SIGALRM),
so it applies in the main thread of a POSIX process; elsewhere the block runs without it.
"""

from __future__ import annotations

import contextlib
import signal
import threading


class TimeLimitExceeded(BaseException):
    """The block ran past its time limit.  A ``BaseException``, so that library code catching ``Exception``
    cannot swallow it and carry on."""


@contextlib.contextmanager
def time_limit(seconds: float | None, what: str, hint: str = ""):
    """Raise :class:`TimeLimitExceeded` ("``what`` exceeded the time limit of S s``hint``") inside the block
    after ``seconds`` of wall-clock time; ``None`` or 0: no limit."""
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise TimeLimitExceeded(f"{what} exceeded the time limit of {seconds:g} s{hint}")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
