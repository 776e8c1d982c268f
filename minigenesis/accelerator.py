"""``mg.accelerator``: the device-agnostic way to ask for the GPU, as ``torch.accelerator``.

    device = mg.accelerator.current_accelerator() or mg.device("cpu")

The only accelerator minigenesis knows is CUDA, through CuPy.
"""

from __future__ import annotations

from .backend import _require_cuda, cuda_device_count, cupy_module, device, flush_device_asserts


def is_available() -> bool:
    """True when a GPU is usable (CuPy installed and at least one device visible)."""
    return cuda_device_count() > 0


def current_accelerator(check_available: bool = False) -> device | None:
    """``mg.device("cuda")`` when minigenesis has an accelerator, else None.

    As in PyTorch, without ``check_available`` the answer says what this installation was built
    for (CuPy installed), not whether a GPU is usable right now; with ``check_available=True`` it
    is None unless ``is_available()``."""
    if cupy_module() is None or (check_available and not is_available()):
        return None
    return device("cuda")


def device_count() -> int:
    """How many GPUs are visible (0 without CuPy or a driver)."""
    return cuda_device_count()


def current_device_index() -> int:
    """The index of the current GPU (raises when no GPU is usable)."""
    return int(_require_cuda().cuda.runtime.getDevice())


def synchronize(device: device | str | int | None = None) -> None:
    """Wait for every queued GPU kernel (nothing to do without a GPU)."""
    if is_available():
        cupy_module().cuda.Device().synchronize()
        flush_device_asserts()  # and raise what a device-side check found
