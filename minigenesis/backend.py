"""The array backend: NumPy on the CPU, CuPy on the GPU.

Every other module gets its array module from here (``xp = get_array_module(x)``), so one code path
serves both devices. This is the only place that knows CuPy exists; ``import minigenesis`` works
without it, and asking for ``"cuda"`` without it raises an error that says what is missing.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np

try:  # CuPy is optional: the `gpu` extra installs it.
    import cupy as _cupy
except Exception:  # ImportError, or a CuPy that cannot find its CUDA libraries
    _cupy = None

Array = Any  # numpy.ndarray or cupy.ndarray


def cupy_module() -> ModuleType | None:
    """CuPy if it is importable, else None."""
    return _cupy


def get_array_module(x: Any) -> ModuleType:
    """NumPy or CuPy, whichever owns ``x`` (NumPy for anything that is not a CuPy array)."""
    if _cupy is not None and isinstance(x, _cupy.ndarray):
        return _cupy
    return np


# ----------------------------------------------------------------------------------------------
# Devices
# ----------------------------------------------------------------------------------------------
class device:  # noqa: N801  (lower case, as torch.device)
    """Where a tensor lives: ``device("cpu")``, ``device("cuda")``, ``device("cuda:1")``.

    A tensor's device is a fact about its array: a NumPy array is on the CPU, a CuPy array on the
    GPU it was allocated on.
    """

    __slots__ = ("type", "index")

    def __init__(self, spec: str | device, index: int | None = None) -> None:
        if isinstance(spec, device):
            self.type, self.index = spec.type, spec.index
            return
        if not isinstance(spec, str):
            raise TypeError(f"device() expects a string like 'cpu' or 'cuda:0', got {spec!r}")
        kind, _, num = spec.partition(":")
        if kind not in ("cpu", "cuda"):
            raise ValueError(f"unknown device type {kind!r} in {spec!r}: expected 'cpu' or 'cuda'")
        if num:
            if not num.isdigit():
                raise ValueError(f"device index must be a non-negative integer, got {spec!r}")
            index = int(num)
        self.type = kind
        self.index = index if kind == "cuda" else None

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        if self.type != other.type:
            return False
        # "cuda" (no index) means the current device: equal to cuda:0 in a one-GPU world.
        return (self.index or 0) == (other.index or 0)

    def __hash__(self) -> int:
        return hash((self.type, self.index or 0))


CPU = device("cpu")


def as_device(spec: str | device | None) -> device | None:
    """Normalise a device argument (None stays None)."""
    if spec is None or isinstance(spec, device):
        return spec
    return device(spec)


def device_of(x: Array) -> device:
    """The device an array lives on."""
    if _cupy is not None and isinstance(x, _cupy.ndarray):
        return device("cuda", x.device.id)
    return CPU


def _require_cuda() -> ModuleType:
    """CuPy with a usable GPU, or an error that says which of the two is missing."""
    if _cupy is None:
        raise RuntimeError(
            "CUDA was requested but CuPy is not installed: "
            "install it with `pip install minigenesis[gpu]` (cupy-cuda12x)"
        )
    try:
        count = _cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # no driver, or no device
        raise RuntimeError(f"CUDA was requested but no GPU is usable: {err}") from err
    if count == 0:
        raise RuntimeError("CUDA was requested but no GPU was found (CuPy sees 0 devices)")
    return _cupy


def module_for(dev: device | None) -> ModuleType:
    """The array module that allocates on ``dev`` (NumPy for None or the CPU)."""
    if dev is None or dev.type == "cpu":
        return np
    return _require_cuda()


def to_device(x: Array, dev: device) -> Array:
    """Move an array to ``dev`` (a no-op when it is already there)."""
    if dev.type == "cpu":
        if _cupy is not None and isinstance(x, _cupy.ndarray):
            return _cupy.asnumpy(x)
        return x
    cp = _require_cuda()
    index = dev.index or 0
    if isinstance(x, cp.ndarray) and x.device.id == index:
        return x
    with cp.cuda.Device(index):
        return cp.asarray(x)


def to_numpy(x: Array) -> np.ndarray:
    """A host (NumPy) copy of any array; NumPy arrays are returned as they are."""
    if _cupy is not None and isinstance(x, _cupy.ndarray):
        return _cupy.asnumpy(x)
    return np.asarray(x)


# ----------------------------------------------------------------------------------------------
# Special functions that NumPy lacks
# ----------------------------------------------------------------------------------------------
def erf(x: Array) -> Array:
    """The error function erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise.

    NumPy has no erf. CuPy (via cupyx) and SciPy do; without them we evaluate it ourselves in
    float64: the Maclaurin series for |x| < 2.5 and a continued fraction for erfc beyond, both
    accurate to ~1e-15, then cast back to the input dtype.
    """
    xp = get_array_module(x)
    if xp is not np:
        from cupyx.scipy.special import erf as cupy_erf

        return cupy_erf(x)
    try:
        from scipy.special import erf as scipy_erf
    except ImportError:
        scipy_erf = None
    if scipy_erf is not None:
        return scipy_erf(x).astype(x.dtype, copy=False)
    return _erf_numpy(np.asarray(x, dtype=np.float64)).astype(x.dtype, copy=False)


def _erf_numpy(x: np.ndarray) -> np.ndarray:
    ax = np.abs(x)
    out = np.empty_like(ax)
    small = ax < 2.5
    # series: erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    xs = ax[small]
    term = xs.copy()
    total = xs.copy()
    x2 = xs * xs
    for n in range(1, 60):
        term = term * (-x2) / n
        total += term / (2 * n + 1)
    out[small] = total * (2.0 / math.sqrt(math.pi))
    # continued fraction: erfc(x) = exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + ...)))
    xl = ax[~small]
    if xl.size:
        f = np.zeros_like(xl)
        for k in range(60, 0, -1):
            f = (k / 2.0) / (xl + f)
        erfc = np.exp(-xl * xl) / math.sqrt(math.pi) / (xl + f)
        out[~small] = 1.0 - erfc
    return np.sign(x) * out
