"""Limit the BLAS thread pool (NumPy's OpenBLAS) for a block of small-matrix work.

Why: for the small matrices of a toy model, extra BLAS threads buy nothing, and when the CPU
cores are busy (other processes, a CI runner) OpenBLAS threads that wait for each other can make a
32x128 @ 128x128 product 100x slower. Setting ``OPENBLAS_NUM_THREADS=1`` works only before NumPy
is imported; this helper changes the running library instead. It uses ``threadpoolctl`` when that
is installed, and otherwise calls OpenBLAS's own setter in the library NumPy loaded. If neither
is possible it does nothing.
"""

from __future__ import annotations

import ctypes
import glob
import os
from collections.abc import Iterator
from contextlib import contextmanager

_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_", "openblas_set_num_threads")  # fmt: skip
_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
            "openblas_get_num_threads64_", "openblas_get_num_threads")  # fmt: skip


def _numpy_openblas() -> tuple | None:
    """(getter, setter) of the OpenBLAS that NumPy's wheel ships, or None."""
    import numpy as np

    base = os.path.dirname(os.path.dirname(np.__file__))
    for path in glob.glob(os.path.join(base, "numpy.libs", "*openblas*")) + glob.glob(
        os.path.join(os.path.dirname(np.__file__), ".dylibs", "*openblas*")
    ):
        try:
            lib = ctypes.CDLL(path)  # already loaded by NumPy: this returns the same library
        except OSError:
            continue
        getter = next((getattr(lib, n) for n in _GETTERS if hasattr(lib, n)), None)
        setter = next((getattr(lib, n) for n in _SETTERS if hasattr(lib, n)), None)
        if getter is not None and setter is not None:
            getter.restype = ctypes.c_int
            return getter, setter
    return None


@contextmanager
def blas_threads(n: int = 1) -> Iterator[None]:
    """Within the block, BLAS uses at most ``n`` threads (best effort; restored afterwards)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        with threadpool_limits(limits=n, user_api="blas"):
            yield
        return
    found = _numpy_openblas()
    if found is None:
        yield
        return
    getter, setter = found
    before = int(getter())
    setter(ctypes.c_int(n))
    try:
        yield
    finally:
        setter(ctypes.c_int(before))
