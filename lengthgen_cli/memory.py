"""Freed memory kept in a command-line process for reuse (glibc's ``mallopt``).

A tool that reads a large model file allocates and frees numpy temporaries of megabytes one after another (the
interval reader of :mod:`bounds.interval_model` parses each matrix through several, the interval margin sorts
blocks of logits).  By default glibc hands a freed block above its mmap threshold (at most 32 MiB, raised on the
fly) back to the kernel and trims the top of the heap, so the next allocation of the same size faults every page in
again; on the 2-core machine a page fault costs a few microseconds, about 0.1 s of CPU time of a d = 512
``bounds.estimate`` (docs/bounds.md).  :func:`keep_freed_memory` raises the mmap and trim thresholds to 1 GiB, so
freed blocks stay in the heap and are reused: the peak memory is the same, the process just keeps it until it
exits.  It changes the allocator of the whole process, so tools call it from ``main`` (a process of their own),
never from library functions; where the C library has no ``mallopt`` (not glibc) it does nothing.
"""

from __future__ import annotations

import ctypes

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
_KEEP = 1 << 30


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds (module docstring); True if both were set."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt(_M_MMAP_THRESHOLD, _KEEP) == 1 and mallopt(_M_TRIM_THRESHOLD, _KEEP) == 1
