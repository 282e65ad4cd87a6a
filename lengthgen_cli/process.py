"""Settings of a tool's own process (freed memory kept for reuse, one BLAS thread from the start) and worker
processes that end with the command (:func:`worker_pool`, :func:`start_manager`, :func:`die_with_parent`).

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


# ------------------------------------------------------------------------------------------ worker processes
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PARENT_POLL_S = 0.5  # how often a worker looks whether its parent is still there (where prctl is missing)


def die_with_parent(parent_pid: int) -> None:
    """Make this process (a worker) end when the process ``parent_pid`` that started it ends, however it ends
    (SIGKILL included): on Linux the kernel sends SIGKILL at the parent's death (``prctl(PR_SET_PDEATHSIG)``);
    everywhere a daemon thread also polls the parent every :data:`PARENT_POLL_S` seconds and ends the process
    when the parent is gone (re-parented: ``os.getppid()`` changes).  Called first in a worker (a pool's
    ``initializer``); a parent that died before the call is caught by the first poll."""
    import signal
    import threading
    import time

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the poll below does it

    def watch():
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _init_worker(parent_pid: int) -> None:
    """A pool worker: ends with its parent (:func:`die_with_parent`); Ctrl-C at the terminal reaches the whole
    process group, so the worker leaves SIGINT to its parent, which stops the pool (:func:`worker_pool`)."""
    import signal

    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class worker_pool:  # noqa: N801 (used as a context manager, like ProcessPoolExecutor)
    """``with worker_pool(n) as pool:`` a ``concurrent.futures.ProcessPoolExecutor`` of ``n`` spawned processes
    that end with the command: each worker dies with its parent (:func:`die_with_parent`, also after a SIGKILL
    of the parent), and when the block is left by an exception (Ctrl-C's ``KeyboardInterrupt`` included) the
    workers are killed at once instead of finishing the work in flight, so a SIGINT ends the command within a
    second.  A block left normally waits for the pool as ``ProcessPoolExecutor`` does."""

    def __init__(self, workers: int):
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                                        initializer=_init_worker, initargs=(os.getpid(),))

    def __enter__(self):
        return self.pool

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.pool.shutdown(wait=True)
            return False
        kill_pool(self.pool)
        return False


def kill_pool(pool) -> None:
    """Kill the worker processes of a ``ProcessPoolExecutor`` now and cancel what has not started."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for p in processes:
        try:
            p.kill()
        except (OSError, ValueError, AttributeError):
            pass
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        try:
            p.join(timeout=5)
        except (OSError, ValueError, AssertionError, AttributeError):
            pass


def start_manager():
    """A started ``multiprocessing`` manager (spawned) whose server process ends with this process
    (:func:`die_with_parent`); use as ``with start_manager() as manager:``."""
    import multiprocessing as mp
    from multiprocessing.managers import SyncManager

    manager = SyncManager(ctx=mp.get_context("spawn"))
    manager.start(_init_worker, (os.getpid(),))
    return manager
