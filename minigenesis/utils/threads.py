"""Limit the BLAS thread pool (NumPy's OpenBLAS, MKL ...) for a block of small-matrix work.

Why: for the small matrices of a toy model, extra BLAS threads buy nothing, and when the CPU
cores are busy (other processes, a CI runner) BLAS threads that wait for each other can make a
32x128 @ 128x128 product 100x slower. Setting ``OPENBLAS_NUM_THREADS=1`` works only before NumPy
is imported; ``threadpoolctl`` changes the running library instead, whichever BLAS NumPy loaded.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_limits


@contextmanager
def blas_threads(n: int = 1) -> Iterator[None]:
    """Within the block, BLAS uses at most ``n`` threads; the previous limits come back after."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"blas_threads: n must be a positive int (threads), got {n!r}")
    with threadpool_limits(limits=n, user_api="blas"):
        yield
