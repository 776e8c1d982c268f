"""What the profiler does at each step: PyTorch's ``ProfilerAction`` and ``schedule``."""

from __future__ import annotations

import enum
import warnings
from collections.abc import Callable


class ProfilerActivity(enum.Enum):
    """What to time. CPU: the ops as Python runs them. CUDA is accepted so that PyTorch programs
    run, but no GPU-side events are recorded (see ``autograd/profiler.py``)."""

    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    """The profiler's state during one step."""

    NONE = 0  # not recording
    WARMUP = 1  # about to record (the recorder costs nothing to prepare here)
    RECORD = 2  # recording
    RECORD_AND_SAVE = 3  # recording; the trace is handed to on_trace_ready when this step ends


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """PyTorch's schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded steps (the last of them RECORD_AND_SAVE), ``repeat``
    cycles (0: for as long as steps come). ``skip_first_wait=1`` leaves out the first cycle's
    wait. Returns the function from step number to action."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    cycle = wait + warmup + active

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"profiler step must be >= 0, got {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:  # the first cycle starts at its warmup
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        k = step % cycle
        if k < wait:
            return ProfilerAction.NONE
        if k < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if k < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step: int) -> ProfilerAction:
    """The schedule of a profile given none: every step records; the trace is saved at the end."""
    return ProfilerAction.RECORD
