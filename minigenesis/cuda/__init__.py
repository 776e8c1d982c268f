"""``mg.cuda``: is a GPU usable, and how much memory does CuPy hold on it.

Everything here answers sensibly without CuPy (no GPU: 0 devices, 0 bytes) except asking to use one.
"""

from __future__ import annotations

import importlib

from ..backend import _require_cuda, cuda_device_count, cupy_module
from ..random import manual_seed as _seed

_peak: dict[int, int] = {}


def is_available() -> bool:
    """True when CuPy is installed and sees at least one GPU."""
    return device_count() > 0


def device_count() -> int:
    """How many GPUs CuPy sees (0 without CuPy or a driver)."""
    return cuda_device_count()


def current_device() -> int:
    return int(_require_cuda().cuda.runtime.getDevice())


def synchronize() -> None:
    """Wait until every queued GPU kernel has finished (before reading a timer)."""
    if is_available():
        cupy_module().cuda.Device().synchronize()


def empty_cache() -> None:
    """Give CuPy's cached, unused GPU memory back to the driver."""
    if is_available():
        cupy_module().get_default_memory_pool().free_all_blocks()


def memory_allocated(device: int | None = None) -> int:
    """Bytes held by live CuPy arrays (0 without a GPU)."""
    if not is_available():
        return 0
    used = int(cupy_module().get_default_memory_pool().used_bytes())
    dev = device or 0
    _peak[dev] = max(_peak.get(dev, 0), used)
    return used


def max_memory_allocated(device: int | None = None) -> int:
    """The largest ``memory_allocated()`` seen (CuPy pool totals bound it from above)."""
    if not is_available():
        return 0
    pool = cupy_module().get_default_memory_pool()
    dev = device or 0
    _peak[dev] = max(_peak.get(dev, 0), int(pool.used_bytes()), int(pool.total_bytes()))
    return _peak[dev]


def reset_peak_memory_stats(device: int | None = None) -> None:
    _peak.pop(device or 0, None)


def manual_seed(seed: int) -> None:
    _seed(seed)


def manual_seed_all(seed: int) -> None:
    manual_seed(seed)


def __getattr__(name: str):
    # mg.cuda.amp without an import line, as torch.cuda.amp (loaded on first use: cuda/ is
    # imported early by the package, before amp/).
    if name == "amp":
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'minigenesis.cuda' has no attribute {name!r}")
