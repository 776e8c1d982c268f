"""detect_anomaly: stop at the first op whose forward or backward produces NaN or Inf."""

from __future__ import annotations

import functools
from typing import Any

from .grad_mode import state


class detect_anomaly:  # noqa: N801
    """While active, every op checks its outputs (forward) and input gradients (backward) for
    NaN/Inf and raises a RuntimeError naming the op. Slow: for debugging only.

    Usable as a context manager or a decorator; ``check_nan=False`` turns it off inside.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> None:
        self._prev = state.anomaly
        state.anomaly = self.check_nan

    def __exit__(self, *exc: Any) -> None:
        state.anomaly = self._prev

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


def is_anomaly_enabled() -> bool:
    return state.anomaly


class set_detect_anomaly:  # noqa: N801
    """Switch anomaly detection on or off from here on: ``set_detect_anomaly(True)`` as a plain
    call (PyTorch's way to turn it on for a whole script), or as a context manager that restores
    the previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = state.anomaly
        state.anomaly = bool(mode) and check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        state.anomaly = self._prev
