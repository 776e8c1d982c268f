"""``torch.profiler.profile``: record a block's ops, or the steps a schedule picks.

Without a schedule the whole block is one recording. With one, ``prof.step()`` at the end of each
training step moves to the next step's action, as PyTorch's profiler does: a recording starts
where the schedule turns to RECORD or RECORD_AND_SAVE, and ends after a RECORD_AND_SAVE step,
when ``on_trace_ready(prof)`` is called with ``prof.events()`` the steps just recorded. Each step
is a ``ProfilerStep#N`` range of its own when a schedule is given.
"""

from __future__ import annotations

import gzip
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ..autograd import profiler as _recording
from ..autograd.profiler_util import EventList, FunctionEventAvg
from .schedule import ProfilerAction, ProfilerActivity, _always_record, schedule

__all__ = [
    "ProfilerAction",
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]

_A = ProfilerAction


def kineto_available() -> bool:
    """PyTorch's trace library (Kineto) is not used: the recorder is autograd/profiler.py."""
    return False


def supported_activities() -> set[ProfilerActivity]:
    """The activities that are timed here: the CPU's (GPU work is timed as its launches)."""
    return {ProfilerActivity.CPU}


class profile:
    """Record the ops of a block (see the module docstring). ``activities`` may name CPU and
    CUDA; only CPU time is recorded. ``profile_memory``, ``with_stack``, ``with_flops`` and
    ``with_modules`` are accepted and record nothing."""

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[[profile], Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Any = None,
    ) -> None:
        self.activities = set(activities) if activities is not None else supported_activities()
        for a in self.activities:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"activities must be ProfilerActivity values, got {a!r}")
        self.schedule = schedule if schedule is not None else _always_record
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._events: EventList | None = None
        self._recorder: Any = None
        self._stop_recording: Callable[[], None] | None = None
        self._step_range: Any = None

    # ------------------------------------------------------------------ the steps
    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        self._transit(_A.NONE, self.current_action)
        self._open_step_range()

    def stop(self) -> None:
        self._close_step_range()
        self._transit(self.current_action, None)

    def step(self) -> None:
        """The current training step ended: move to the next step's action."""
        self._close_step_range()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(previous, self.current_action)
        self._open_step_range()

    def _open_step_range(self) -> None:
        if self.record_steps:
            self._step_range = _recording.record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step_range(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def _transit(self, previous: ProfilerAction, current: ProfilerAction | None) -> None:
        """PyTorch's table of what to do between two steps' actions (None: the profile ends)."""
        recording = (_A.RECORD, _A.RECORD_AND_SAVE)
        if previous == _A.RECORD_AND_SAVE and current is not None:
            self._stop_trace()
            self._trace_ready()
            if current in recording:
                self._start_trace()
        elif previous in recording:
            if current is None:
                self._stop_trace()
                self._trace_ready()
            elif current not in recording:
                warnings.warn(
                    f"Incorrect schedule: RECORD followed by {current.name}", stacklevel=3
                )
                self._stop_trace()
        elif current in recording:  # from NONE or WARMUP
            self._start_trace()
        elif previous == _A.WARMUP and current in (_A.NONE, None):
            if current is _A.NONE:
                warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)
            self._start_trace()
            self._stop_trace()

    def _start_trace(self) -> None:
        self._recorder, self._stop_recording = _recording.start_recording(self.record_shapes)

    def _stop_trace(self) -> None:
        if self._stop_recording is not None:
            self._stop_recording()
            self._stop_recording = None
            self._events = EventList(self._recorder.events)

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # ------------------------------------------------------------------ reading the recording
    def events(self) -> EventList:
        """The events of the last finished recording."""
        if self._events is None:
            raise RuntimeError("Profiler didn't finish running: no recording has ended yet")
        return self._events

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, **kwargs: Any
    ) -> EventList:
        return self.events().key_averages(group_by_input_shape)

    def total_average(self) -> FunctionEventAvg:
        return self.events().total_average()

    def export_chrome_trace(self, path: str) -> None:
        """Write the last recording as Chrome trace JSON (gzipped when ``path`` ends in .gz)."""
        if str(path).endswith(".gz"):
            tmp = f"{path}.json.tmp"
            self.events().export_chrome_trace(tmp)
            with open(tmp, "rb") as src, gzip.open(path, "wb") as dst:
                dst.write(src.read())
            os.remove(tmp)
        else:
            self.events().export_chrome_trace(path)


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False, **kwargs: Any
) -> Callable[[profile], None]:
    """An ``on_trace_ready`` that writes each recording into ``dir_name`` as
    ``{worker_name}.{time in ms}.pt.trace.json`` (the names TensorBoard's plugin reads)."""

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        prof.export_chrome_trace(os.path.join(dir_name, name + (".gz" if use_gzip else "")))

    return handler
