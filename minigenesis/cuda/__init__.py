"""``mg.cuda``: is a GPU usable, and how much memory does CuPy hold on it.

Everything here answers sensibly without CuPy (no GPU: 0 devices, 0 bytes) except asking to use one.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

from ..backend import _require_cuda, cuda_device_count, cupy_module, flush_device_asserts
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


class _CudaDeviceProperties(NamedTuple):
    """The fields of ``torch.cuda.get_device_properties`` that CuPy can tell."""

    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int


def _index(device: Any) -> int:
    """A device number from PyTorch's spellings: None (the current one), 0, "cuda:1", a device."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        index = int(device.split(":")[1]) if ":" in device else None
    else:  # a device object
        index = device.index
    return current_device() if index is None else int(index)


def get_device_properties(device: Any = None) -> _CudaDeviceProperties:
    """Name, compute capability, memory and multiprocessors of a GPU."""
    props = _require_cuda().cuda.runtime.getDeviceProperties(_index(device))
    name = props["name"]
    return _CudaDeviceProperties(
        name=name.decode() if isinstance(name, bytes) else str(name),
        major=int(props["major"]),
        minor=int(props["minor"]),
        total_memory=int(props["totalGlobalMem"]),
        multi_processor_count=int(props["multiProcessorCount"]),
    )


def get_device_name(device: Any = None) -> str:
    """The GPU's name, e.g. "NVIDIA H100 80GB HBM3"."""
    return get_device_properties(device).name


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """The compute capability as (major, minor): (9, 0) for a Hopper GPU."""
    props = get_device_properties(device)
    return props.major, props.minor


def is_bf16_supported() -> bool:
    """True on GPUs with native bfloat16 arithmetic (compute capability 8.0, Ampere, or newer)."""
    return is_available() and get_device_capability()[0] >= 8


def set_device(device: Any) -> None:
    """Make ``device`` the current GPU for new arrays."""
    _require_cuda().cuda.Device(_index(device)).use()


def memory_reserved(device: int | None = None) -> int:
    """Bytes CuPy's memory pool holds from the driver (in use or cached for reuse)."""
    if not is_available():
        return 0
    return int(cupy_module().get_default_memory_pool().total_bytes())


def synchronize() -> None:
    """Wait until every queued GPU kernel has finished (before reading a timer)."""
    if is_available():
        cupy_module().cuda.Device().synchronize()
        flush_device_asserts()  # and raise what a device-side check found


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
