"""``cupy.cuda`` of the stand-in: one device, CuPy's signatures for the pieces minigenesis uses."""

from __future__ import annotations

import types

_current = 0


class Device:
    """``cupy.cuda.Device(device=None)``: the current device when None; a context manager."""

    def __init__(self, device: int | None = None) -> None:
        self.id = _current if device is None else int(device)
        if not 0 <= self.id < runtime.getDeviceCount():
            raise RuntimeError(f"CUDARuntimeError: cudaErrorInvalidDevice: device {self.id}")
        self._previous: list[int] = []

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def use(self) -> None:
        global _current
        _current = self.id

    def synchronize(self) -> None:
        """Nothing is queued on the stand-in: NumPy has already finished."""

    @property
    def compute_capability(self) -> str:
        return "90"

    @property
    def mem_info(self) -> tuple[int, int]:
        return (80 * 2**30, 80 * 2**30)

    def __enter__(self) -> Device:
        global _current
        self._previous.append(_current)
        _current = self.id
        return self

    def __exit__(self, *exc) -> None:
        global _current
        _current = self._previous.pop()


def _get_device_count() -> int:
    return 1


def _get_device() -> int:
    return _current


def _runtime_get_version() -> int:
    return 12080


def _get_device_properties(device: int) -> dict:
    """What cupy.cuda.runtime.getDeviceProperties returns, for a made-up device."""
    if not 0 <= device < _get_device_count():
        raise RuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {device}")
    return {
        "name": b"CuPy stand-in",
        "totalGlobalMem": 16 * 2**30,
        "major": 8,
        "minor": 0,
        "multiProcessorCount": 4,
    }


runtime = types.SimpleNamespace(
    getDeviceProperties=_get_device_properties,
    getDeviceCount=_get_device_count,
    getDevice=_get_device,
    runtimeGetVersion=_runtime_get_version,
    driverGetVersion=_runtime_get_version,
    deviceSynchronize=lambda: None,
)


def get_device_id() -> int:
    return _current


def is_available() -> bool:
    return True
