"""Settings of a tool's own process: freed memory kept for reuse, one BLAS thread from the start.

* :func:`keep_freed_memory`.  A tool that reads a large model file allocates and frees numpy temporaries of
  megabytes one after another (the interval reader of :mod:`bounds.interval_model` parses each matrix through
  several, the interval margin sorts blocks of logits).  By default glibc hands a freed block above its mmap
  threshold (at most 32 MiB, raised on the fly) back to the kernel and trims the top of the heap, so the next
  allocation of the same size faults every page in again; on the 2-core machine a page fault costs a few
  microseconds, about 0.05-0.1 s of CPU time of a d = 512 ``bounds.estimate`` (docs/bounds.md).  It raises the
  mmap and trim thresholds to 1 GiB: freed blocks stay in the heap and are reused; the peak memory is the same,
  the process keeps it until it exits.  Where the C library has no ``mallopt`` (not glibc) it does nothing.
* :func:`one_blas_thread_from_start`.  OpenBLAS starts one thread per core when numpy is imported, about 0.05 s of
  CPU time on this machine; a tool whose matrix products all run with one BLAS thread anyway
  (:func:`constructions.blas.one_blas_thread`) sets ``OPENBLAS_NUM_THREADS=1`` (unless the user set it) before
  numpy is imported.

Both change the whole process, so only a tool's own process calls them (``main`` when it runs the process's own
command line, ``main()`` rather than ``main([...])`` called in-process, or ``python -m`` before its imports), never
a library function.
"""

from __future__ import annotations

import ctypes
import os
import sys

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


def one_blas_thread_from_start() -> bool:
    """``OPENBLAS_NUM_THREADS=1`` unless set; True if numpy is not imported yet (so that it takes effect)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return "numpy" not in sys.modules
