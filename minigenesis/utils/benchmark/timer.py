"""``Timer``: Python's ``timeit`` with PyTorch's conveniences.

- ``timeit(number)``: run ``stmt`` ``number`` times in one block; one measurement.
- ``blocked_autorange(min_run_time)``: first choose a block size ``number`` (a power of ten)
  large enough that the timer's own overhead is negligible (under 1e-4 of a block) and a block
  lasts at least min_run_time / 1000; then time blocks until ``min_run_time`` seconds are spent.
  Many short blocks give a distribution (median, IQR) instead of one mean.
- ``autorange``: as ``blocked_autorange`` with a minimum of 0.2 s (timeit's spelling).

``num_threads`` sets ``set_num_threads`` for the measurement (PyTorch's default is 1 thread, so
numbers do not depend on the machine's core count) and puts the previous count back.
"""

from __future__ import annotations

import enum
import statistics
import sys
import timeit
from collections.abc import Callable
from typing import Any

from ..threads import get_num_threads, set_num_threads
from .common import Measurement, TaskSpec

__all__ = ["Language", "Timer"]


class Language(enum.Enum):
    """The language of ``stmt``: only Python here (PyTorch can also compile C++ statements)."""

    PYTHON = 0
    CPP = 1


class Timer:
    """Times ``stmt`` after running ``setup`` once, in a namespace holding ``globals``."""

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timeit.default_timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if language not in (Language.PYTHON, "py", "python"):
            raise NotImplementedError("Timer: only Python statements can be timed here")
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        namespace = dict(globals or {})
        # PyTorch's Timer provides its package as ``torch``; this one gives the package it is in
        # (already imported: it is the package of this module, looked up, not imported here)
        namespace.setdefault("torch", sys.modules[__name__.partition(".")[0]])
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=namespace)
        self._task_spec = TaskSpec(
            stmt=stmt,
            setup=setup,
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )

    def _timeit(self, number: int) -> float:
        return self._timer.timeit(number=number)

    def _with_threads(self, measure: Callable[[], Any]) -> Any:
        previous = get_num_threads()
        set_num_threads(self._task_spec.num_threads)
        try:
            return measure()
        finally:
            set_num_threads(previous)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One block of ``number`` runs (after one warm-up run)."""

        def measure() -> Measurement:
            self._timeit(number=max(int(number // 100), 2))  # warm-up
            return Measurement(number, [self._timeit(number)], self._task_spec)

        return self._with_threads(measure)

    def _estimate_block_size(self, min_run_time: float) -> int:
        overhead = statistics.median(self._timeit(0) for _ in range(5))
        number = 1
        while True:
            time_taken = self._timeit(number)
            if overhead / time_taken <= 1e-4 and time_taken >= min_run_time / 1000:
                return number
            if time_taken > min_run_time or number * 10 > 2147483647:
                return number
            number *= 10

    def blocked_autorange(
        self, callback: Callable[[int, float], None] | None = None, min_run_time: float = 0.2
    ) -> Measurement:
        """Blocks of an automatically chosen size until ``min_run_time`` seconds are spent;
        ``callback(number, block_time)`` sees each block."""

        def measure() -> Measurement:
            number = self._estimate_block_size(min_run_time)
            times: list[float] = []
            while sum(times) < min_run_time:
                times.append(self._timeit(number))
                if callback is not None:
                    callback(number, times[-1])
            return Measurement(number, times, self._task_spec)

        return self._with_threads(measure)

    def adaptive_autorange(
        self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0
    ) -> Measurement:
        """Blocks until the IQR is under ``threshold`` of the median (at least ``min_run_time``,
        at most ``max_run_time`` seconds)."""

        def measure() -> Measurement:
            number = self._estimate_block_size(0.05)
            times: list[float] = []
            while sum(times) < max_run_time:
                times.append(self._timeit(number))
                if sum(times) >= min_run_time and len(times) >= 3:
                    m = Measurement(number, times, self._task_spec)
                    if m.iqr / m.median < threshold:
                        break
            return Measurement(number, times, self._task_spec)

        return self._with_threads(measure)

    def autorange(self, callback: Callable[[int, float], None] | None = None) -> Measurement:
        return self.blocked_autorange(callback, min_run_time=0.2)
