"""One BLAS thread for the small matrix products of the evaluators and the interval bounds.

The products there are small (a few to a few hundred rows and columns) or skinny (a few rows times 10^4
columns): more threads only contend with other processes on a loaded machine (OpenBLAS threads spin while they
wait: 3-10x the CPU time measured on a 2-core machine under load, and the wall time with it).
"""

from __future__ import annotations

import functools


@functools.cache
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """A context manager (``with one_blas_thread(): ...``) that runs its body with one BLAS thread."""
    return _controller().limit(limits=1, user_api="blas")
