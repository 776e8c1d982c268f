"""CPU kernels compiled by Numba, where it is installed (``pip install "minigenesis[fast]"``).

NumPy runs one pass over memory per call: LayerNorm's statistics, its normalisation and its
gradient are about sixteen passes, GELU's exact form over thirty, where PyTorch's CPU kernels are
one or two loops that read each element once. A loop written here for ONE element (or one row),
compiled by Numba to machine code, does the same in one pass. Numba is optional: without it every
function of the speed layer that would use a compiled loop returns None and the op's plain NumPy
code runs, so a learner's install and the test suite's first pass never need it.

Rules for a kernel written here:

- It is the same math as the op's plain code in ``ops/`` (read that first), and its result is
  tested against a float64 oracle beside the plain code's: it may round differently (a sum taken
  in another order), never worse.
- No ``fastmath``: without it LLVM neither contracts ``a * b + c`` into a fused multiply-add nor
  reorders a sum, so each float32 operation rounds as NumPy's does. Where a kernel needs a
  vectorised sum, it says so and accumulates in float64 or in blocks.
- One thread (no ``parallel=True``): the benchmarks compare with one BLAS thread each side, and
  a kernel that starts threads would change every figure at once.
- Nothing is compiled or imported at import: Numba (~0.4 s to import) is loaded at the first call
  of a compiled kernel, and each kernel compiles on its first call and is cached on disk
  (``cache=True``, beside its module or in Numba's user cache), so a later process starts warm;
  where neither is writable, it compiles for the running process only.

``MINIGENESIS_NUMBA=0`` in the environment switches every compiled kernel off (the plain code
runs), which is how the benchmarks time both sides, and how a suspected kernel bug is ruled out.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from typing import Any


@functools.cache
def _numba() -> Any:
    """The numba module, or None where it is not installed or cannot load."""
    try:
        return importlib.import_module("numba")
    except Exception:  # noqa: BLE001  (an import of a compiled package can fail in many ways)
        return None


_OFF = {"0", "false", "off", "no"}


def available() -> bool:
    """True when compiled CPU kernels run: Numba is installed, MINIGENESIS_NUMBA does not say
    off (0, false, off, no), and Numba compiles (NUMBA_DISABLE_JIT=1, a switch for debugging
    one's own Numba code, would run the loops as Python, a hundred times slower than the plain
    NumPy code)."""
    # asked before every BatchNorm/LayerNorm/GELU call: the switches are read each time (a
    # program or test may flip them), the environment's value parsed once per value
    if _switched_off(os.environ.get("MINIGENESIS_NUMBA", "1")) or (numba := _numba()) is None:
        return False
    return not numba.config.DISABLE_JIT


@functools.cache
def _switched_off(switch: str) -> bool:
    return switch.strip().lower() in _OFF


class CpuKernel:
    """A Python function compiled by Numba on its first call (see the module docstring)."""

    def __init__(self, fn: Callable, options: dict[str, Any]) -> None:
        self.fn = fn
        self.options = options
        self._compiled: Callable | None = None
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any) -> Any:
        if self._compiled is None:
            self._compiled = self._compile()
        return self._compiled(*args)

    def _compile(self) -> Callable:
        """Numba's dispatcher for the loop, cached on disk where Numba finds a place to write.

        A package installed read-only (a system site-packages) for a user whose home is not
        writable either (a container, a service account) leaves Numba no cache directory, and
        ``cache=True`` then raises "no locator available"; the kernel is compiled for this
        process only instead (the same machine code, compiled again by the next process).
        """
        njit = _numba().njit
        try:
            return njit(cache=True, nogil=True, **self.options)(self.fn)
        except RuntimeError as error:
            if "no locator available" not in str(error):
                raise
            return njit(cache=False, nogil=True, **self.options)(self.fn)


def cpu_kernel(**options: Any) -> Callable[[Callable], CpuKernel]:
    """Decorator: ``@cpu_kernel()`` over a loop written for Numba's nopython mode. Call it only
    where ``available()`` is True; ``options`` go to ``numba.njit`` (never ``fastmath`` or
    ``parallel``: see the module docstring)."""
    if "fastmath" in options or "parallel" in options:
        raise ValueError("cpu_kernel: fastmath and parallel change what is computed; see cpu_jit")
    return lambda fn: CpuKernel(fn, options)
