"""The profiler's recorder, and PyTorch's older front end to it (``torch.autograd.profiler``).

How ops are timed, at no cost when no profile is on: every op runs through ``SomeOp.apply(...)``,
and Python looks ``apply`` up on the class at each call. While a profile records, ``Function.apply``
(the classmethod every op inherits) is *replaced* by a wrapper that notes the time, calls the
original, and notes the time again; the engine's ``_Backward.run_ready`` (one backward pass) and
each op's ``backward`` (one graph node, named as PyTorch names it: ``MulBackward0``) are replaced
the same way. When the profile stops, the originals are put back (also when the profiled
block raises). So the op and engine code has no "is a profiler on?" test in it: a program that
never profiles runs exactly the code it runs without this module. The price: one profile at a
time per process (a second, nested or from another thread, is refused with a RuntimeError), and an
op whose ``apply`` was bound to a name before the profile began is not seen.

Each event records the op's class name (``Linear``, ``ReLU``, ``CrossEntropy`` ...; PyTorch
names its aten kernels instead, ``aten::addmm``), the thread, the start and end
(``time.perf_counter_ns``) and, with ``record_shapes``, the shapes of the Tensor inputs. Events
nest per thread: an op called inside another op, inside a backward pass or inside a
``record_function`` block is its child, which gives each event its self time.

Only the CPU is timed: on a GPU the times are those of launching the work (CuPy runs it
asynchronously), and no GPU-side events are recorded.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import threading
import time
from typing import Any

from .engine import _Backward
from .function import Function
from .profiler_util import EventList, FunctionEvent, FunctionEventAvg
from .tensor_base import TensorBase

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]

# The recorder of the profile that is on (None when none is), and the lock that makes taking it
# one step for two threads.
_active: _Recorder | None = None
_lock = threading.Lock()


class _Recorder:
    """The events of one recording, and each thread's stack of ranges open now."""

    def __init__(self, record_shapes: bool) -> None:
        self.record_shapes = record_shapes
        self.events: list[FunctionEvent] = []
        self.ids = itertools.count()  # (next() on it is atomic: threads get distinct ids)
        self.origin_ns = time.perf_counter_ns()
        self.local = threading.local()

    def begin(self, name: str, args: tuple = ()) -> FunctionEvent:
        stack = self.local.__dict__.setdefault("stack", [])
        shapes = [_shape_of(a) for a in args] if self.record_shapes else None
        start = (time.perf_counter_ns() - self.origin_ns) / 1e3
        event = FunctionEvent(next(self.ids), name, threading.get_ident(), start, shapes)
        if stack:
            event.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(event)
        self.events.append(event)  # (list.append is atomic: threads may share the list)
        stack.append(event)
        return event

    def end(self, event: FunctionEvent) -> None:
        event.end_us = (time.perf_counter_ns() - self.origin_ns) / 1e3
        stack = self.local.__dict__.get("stack")
        if stack and stack[-1] is event:
            stack.pop()


def _shape_of(a: Any) -> list:
    """An input's shape as PyTorch lists it: a Tensor's dims, [] for anything else."""
    return list(a.shape) if isinstance(a, TensorBase) else []


def start_recording(record_shapes: bool = False) -> tuple[_Recorder, Any]:
    """Swap the timing wrappers in; returns the recorder and the function that swaps them out."""
    global _active
    recorder = _Recorder(record_shapes)
    with _lock:
        if _active is not None:
            raise RuntimeError(
                "Profiler is already enabled: one profile records at a time in a process "
                "(profiles do not nest, and a second thread cannot start its own)"
            )
        _active = recorder
    apply = Function.__dict__["apply"].__func__
    run_ready = _Backward.__dict__["run_ready"]

    def timed_apply(cls: type, *args: Any) -> Any:
        event = recorder.begin(cls.__name__, args)
        try:
            return apply(cls, *args)
        finally:
            recorder.end(event)

    def timed_run_ready(self: _Backward, retain_graph: bool) -> None:
        event = recorder.begin("autograd::engine::run_backward")
        try:
            return run_ready(self, retain_graph)
        finally:
            recorder.end(event)

    backwards = {  # (a backward of another kind than staticmethod would not run as a node's)
        c: c.__dict__["backward"]
        for c in _subclasses(Function)
        if isinstance(c.__dict__.get("backward"), staticmethod)
    }
    Function.apply = classmethod(timed_apply)  # type: ignore[method-assign, assignment]
    _Backward.run_ready = timed_run_ready  # type: ignore[method-assign]
    for cls, backward in backwards.items():
        cls.backward = _timed_backward(recorder, backward)

    def stop() -> None:
        global _active
        Function.apply = classmethod(apply)  # type: ignore[method-assign, assignment]
        _Backward.run_ready = run_ready  # type: ignore[method-assign]
        for cls, backward in backwards.items():
            cls.backward = backward
        with _lock:
            _active = None

    return recorder, stop


def _subclasses(cls: type) -> list[type]:
    """Every class below ``cls`` (the ops, their graph-node classes, users' Functions)."""
    found, todo = [], [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.append(sub)
            todo.append(sub)
    return found


def _timed_backward(recorder: _Recorder, backward: staticmethod) -> staticmethod:
    """An op's backward that records one event, named after the graph node it runs for
    (``MulBackward0``). A backward written as a generator is timed over all its yields."""
    fn = backward.__func__

    if inspect.isgeneratorfunction(fn):

        def timed_generator(ctx: Any, *grads: Any) -> Any:
            event = recorder.begin(type(ctx).__name__)
            try:
                yield from fn(ctx, *grads)
            finally:
                recorder.end(event)

        return staticmethod(timed_generator)

    def timed(ctx: Any, *grads: Any) -> Any:
        event = recorder.begin(type(ctx).__name__)
        try:
            return fn(ctx, *grads)
        finally:
            recorder.end(event)

    return staticmethod(timed)


class record_function(contextlib.ContextDecorator):
    """Time a block (``with record_function("name"):``) or every call of a function (as a
    decorator) as one range of its own, the ops inside it its children; nothing is done when no
    profile records."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._event: FunctionEvent | None = None
        self._recorder: _Recorder | None = None

    def _recreate_cm(self) -> record_function:
        return record_function(self.name, self.args)  # (each decorated call its own range)

    def __enter__(self) -> record_function:
        recorder = _active
        if recorder is not None:
            self._recorder, self._event = recorder, recorder.begin(self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._event is not None and self._recorder is not None:
            self._recorder.end(self._event)
            self._event = self._recorder = None


class profile:
    """PyTorch's older profiler: ``with torch.autograd.profiler.profile() as prof: ...`` records
    every op and backward pass in the block; then ``prof.key_averages().table(...)``,
    ``prof.export_chrome_trace(path)``, ``prof.function_events``. ``use_cuda`` / ``use_device``
    are accepted; only CPU time is recorded (see the module docstring). ``profile_memory``,
    ``with_stack``, ``with_flops`` and ``with_modules`` are accepted and record nothing."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Any = None,
    ) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.entered = False
        self.function_events: EventList | None = None
        self._stop: Any = None
        self._recorder: _Recorder | None = None

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._recorder, self._stop = start_recording(self.record_shapes)
        self.entered = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self.enabled or self._stop is None:
            return
        self._stop()
        self._stop = None
        assert self._recorder is not None
        self.function_events = EventList(self._recorder.events)

    def _events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def events(self) -> EventList:
        return self._events()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0):
        return self._events().key_averages(group_by_input_shape)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self._events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._events().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        self._events().export_chrome_trace(path)

    def __str__(self) -> str:
        return self._events().table() if self.function_events is not None else "<unfinished>"
