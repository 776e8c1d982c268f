"""Limit the BLAS thread pool (NumPy's OpenBLAS, MKL ...) for a block of small-matrix work, or
for the whole program (``mg.set_num_threads``, as ``torch.set_num_threads``).

Why: for the small matrices of a toy model, extra BLAS threads buy nothing, and when the CPU
cores are busy (other processes, a CI runner) BLAS threads that wait for each other can make a
32x128 @ 128x128 product 100x slower. Setting ``OPENBLAS_NUM_THREADS=1`` works only before NumPy
is imported; ``threadpoolctl`` changes the running library instead, whichever BLAS NumPy loaded.

``threadpoolctl`` is imported where it is called, not at the top: importing it sets
``KMP_DUPLICATE_LIB_OK=True`` in the process's environment (an OpenMP setting), and
``import minigenesis`` changes nothing outside its own modules.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def blas_threads(n: int = 1) -> Iterator[None]:
    """Within the block, BLAS uses at most ``n`` threads; the previous limits come back after."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"blas_threads: n must be a positive int (threads), got {n!r}")
    from threadpoolctl import threadpool_limits  # here: its import sets an environment variable

    with threadpool_limits(limits=n, user_api="blas"):
        yield


_interop_threads = 1  # recorded for get_num_interop_threads; NumPy has no inter-op pool


def set_num_threads(n: int) -> None:
    """Use at most ``n`` BLAS threads from now on (the threads NumPy's matrix products use; the
    elementwise work is single-threaded in NumPy whatever this says)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_threads: n must be a positive int, got {n!r}")
    from threadpoolctl import threadpool_limits  # here: its import sets an environment variable

    threadpool_limits(limits=n, user_api="blas")


def get_num_threads() -> int:
    """The BLAS threads matrix products may use now (1 when NumPy's BLAS reports no pool)."""
    from threadpoolctl import threadpool_info  # here: its import sets an environment variable

    pools = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
    return max(pools, default=1)


def set_num_interop_threads(n: int) -> None:
    """Accepted for PyTorch's API: NumPy runs one op at a time, so there is no inter-op pool."""
    global _interop_threads
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_interop_threads: n must be a positive int, got {n!r}")
    _interop_threads = n


def get_num_interop_threads() -> int:
    return _interop_threads
