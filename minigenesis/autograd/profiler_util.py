"""What a profile recorded, and the ways to read it (``torch.autograd.profiler_util``).

A :class:`FunctionEvent` is one timed range: one op's ``apply`` (named after its class, ``Linear``,
``ReLU`` ...), one backward pass of the engine, or one ``record_function`` block. Times are in
microseconds, as in PyTorch. An event's *total* time runs from its start to its end; its *self*
time is the total less the totals of the events that ran inside it on the same thread (its
``cpu_children``), so that summing self times over all events counts each microsecond once.

:class:`EventList` (a list of events) groups them by name with :meth:`EventList.key_averages`,
prints PyTorch's table with :meth:`EventList.table` and writes a Chrome trace (``chrome://tracing``
or https://ui.perfetto.dev) with :meth:`EventList.export_chrome_trace`.
"""

from __future__ import annotations

import json
import os
from typing import Any


class _NoDeviceTimes:
    """The columns PyTorch fills from a GPU or from memory records, which are not recorded here:
    zero, as PyTorch shows them for a CPU-only profile, so that ``sort_by="cuda_time_total"`` or
    ``"self_cpu_memory_usage"`` still sorts."""

    device_time_total = self_device_time_total = 0.0
    cuda_time_total = self_cuda_time_total = 0.0
    cpu_memory_usage = self_cpu_memory_usage = 0
    device_memory_usage = self_device_memory_usage = 0


class FunctionEvent(_NoDeviceTimes):
    """One recorded range: ``name``, the ``thread`` it ran on, its start and end (``time_range``,
    microseconds since the profile began), ``input_shapes`` (with ``record_shapes``), and the
    events that ran inside it (``cpu_children``) and around it (``cpu_parent``)."""

    def __init__(
        self, id: int, name: str, thread: int, start_us: float, input_shapes: list | None = None
    ) -> None:
        self.id = id
        # a profiler step's range is recorded as "ProfilerStep#3"; its event is "ProfilerStep*", so
        # that the steps average into one row, as in PyTorch (the trace keeps the number)
        self.trace_name = name
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"
        self.name = name
        self.key = name
        self.thread = thread
        self.start_us = start_us
        self.end_us = start_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.count = 1
        self.device_type = "CPU"

    @property
    def time_range(self) -> tuple[float, float]:
        return (self.start_us, self.end_us)

    @property
    def cpu_time_total(self) -> float:
        """From start to end, in microseconds, the events inside included."""
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        """The total less the totals of the events that ran inside this one."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
            f"cpu_time_total={_format_time(self.cpu_time_total)} "
            f"self_cpu_time_total={_format_time(self.self_cpu_time_total)} "
            f"input_shapes={self.input_shapes}>"
        )


class FunctionEventAvg(_NoDeviceTimes):
    """The events of one name (and input shapes, when grouped by them) taken together: their
    number (``count``), summed times, and the average per call (``cpu_time``)."""

    def __init__(self, key: str, input_shapes: list | None = None) -> None:
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, event: Any) -> FunctionEventAvg:
        """Count ``event`` (a FunctionEvent or another average) into this one."""
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        """Total time per call, in microseconds."""
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def self_cpu_time(self) -> float:
        return self.self_cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time="
            f"{_format_time(self.self_cpu_time)} cpu_time={_format_time(self.cpu_time)} "
            f"input_shapes={self.input_shapes}>"
        )


class EventList(list):
    """The events of a profile (a list), with PyTorch's ways to summarise them."""

    def __init__(self, *args: Any, group_by_input_shape: bool = False) -> None:
        super().__init__(*args)
        self._group_by_input_shape = group_by_input_shape

    @property
    def self_cpu_time_total(self) -> float:
        """Every event's self time summed: the time the profile saw, each microsecond once."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape: bool = False) -> EventList:
        """One :class:`FunctionEventAvg` per name (per name and input shapes when
        ``group_by_input_shape``), in order of first appearance."""
        groups: dict[tuple, FunctionEventAvg] = {}
        for e in self:
            shapes = e.input_shapes if group_by_input_shape else None
            key = (e.key, str(shapes) if group_by_input_shape else None)
            if key not in groups:
                groups[key] = FunctionEventAvg(e.key, shapes)
            groups[key].add(e)
        return EventList(groups.values(), group_by_input_shape=group_by_input_shape)

    def total_average(self) -> FunctionEventAvg:
        """All events taken together as one average, keyed "Total"."""
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
    ) -> str:
        """PyTorch's table: one row per entry (sorted by the attribute ``sort_by``, largest
        first, such as "cpu_time_total" or "self_cpu_time_total"; at most ``row_limit`` rows),
        with Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, # of Calls and,
        for averages grouped by input shape, Input Shapes. The percentages are of the summed
        self time, printed under the table."""
        rows = [e for e in self if not (top_level_events_only and _has_parent(e))]
        if sort_by is not None:
            if rows and not hasattr(rows[0], sort_by):
                raise AttributeError(f"cannot sort the profiler table by {sort_by!r}")
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        return _build_table(
            rows, self.self_cpu_time_total, header, max_name_column_width,
            max_shapes_column_width if self._group_by_input_shape else 0,
        )  # fmt: skip

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Write the events as Chrome trace JSON (complete "X" events, microseconds)."""
        pid = os.getpid()
        trace = [
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": getattr(e, "trace_name", e.name),
                "pid": pid,
                "tid": e.thread,
                "ts": e.start_us,
                "dur": e.cpu_time_total,
                "args": {"Input Dims": e.input_shapes} if e.input_shapes else {},
            }
            for e in self
        ]
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, f)

    def __str__(self) -> str:
        return self.table()


def _has_parent(e: Any) -> bool:
    return getattr(e, "cpu_parent", None) is not None


def _format_time(us: float) -> str:
    """Microseconds as PyTorch prints them: in s, ms or us, three decimals."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _percent(part: float, whole: float) -> str:
    return f"{(part / whole if whole > 0 else 0.0) * 100:.2f}%"


def _build_table(
    rows: list, self_total: float, header: str | None, max_name: int, max_shapes: int
) -> str:
    """The table's text; its columns are right-aligned and two spaces apart, as PyTorch's."""
    name_width = max([len(e.key) for e in rows] + [4]) + 4
    name_width = min(name_width, max_name)
    widths = [name_width] + [12] * 6
    titles = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    titles.append("# of Calls")
    if max_shapes:
        shapes_width = min(max([len(str(e.input_shapes)) for e in rows] + [12]) + 4, max_shapes)
        widths.append(shapes_width)
        titles.append("Input Shapes")
    fmt = "".join("{: >" + str(w) + "}  " for w in widths)
    sep = "".join("-" * w + "  " for w in widths)
    lines = [sep]
    if header is not None:
        lines = ["=" * len(sep), header, *lines]
    lines += [fmt.format(*titles), sep]
    for e in rows:
        name = e.key if len(e.key) <= name_width - 3 else e.key[: name_width - 6] + "..."
        cells = [
            name,
            _percent(e.self_cpu_time_total, self_total),
            _format_time(e.self_cpu_time_total),
            _percent(e.cpu_time_total, self_total),
            _format_time(e.cpu_time_total),
            _format_time(e.cpu_time_total / e.count if e.count else 0.0),
            str(e.count),
        ]
        if max_shapes:
            shapes = str(e.input_shapes)
            cells.append(shapes if len(shapes) <= widths[-1] else shapes[: widths[-1] - 3] + "...")
        lines.append(fmt.format(*cells))
    lines += [sep, f"Self CPU time total: {_format_time(self_total)}", ""]
    return "\n".join(lines)
