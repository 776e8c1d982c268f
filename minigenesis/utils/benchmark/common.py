"""What was timed (``TaskSpec``) and the times measured for it (``Measurement``)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

__all__ = ["Measurement", "TaskSpec", "select_unit", "trim_sigfig"]

_MIN_CONFIDENCE_INTERVAL = 25e-9  # below this a run-to-run spread is not resolvable (seconds)
_MAX_SIGNIFICANT_FIGURES = 4
_IQR_WARN_THRESHOLD = 0.1  # an interquartile range this large next to the median is warned of
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclass(frozen=True)
class TaskSpec:
    """The statement, its setup and the labels that place it in a ``Compare`` table."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (with the sub_label) when given, else the statement."""
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + "\n".join(
            "  " + line for line in self.stmt.splitlines()
        )

    def summarize(self) -> str:
        """The title, the description and a non-trivial setup, one per line."""
        parts = [self.title, self.description or ""]
        if self.setup not in ("pass", ""):
            parts.append(
                f"setup: {self.setup}" if "\n" not in self.setup else "setup:\n" + self.setup
            )
        return "\n".join(p for p in parts if p)


@dataclass
class Measurement:
    """``raw_times``: seconds per block of ``number_per_run`` runs; ``times``: seconds per run.
    ``median``, ``mean`` and ``iqr`` (interquartile range) are statistics of ``times``."""

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[str, Any] | None = None

    @property
    def times(self) -> list[float]:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times)

    @property
    def iqr(self) -> float:
        return _quantile(self.times, 0.75) - _quantile(self.times, 0.25)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the interquartile range is under ``threshold`` times the median."""
        return self.iqr / self.median < threshold

    @property
    def has_warnings(self) -> bool:
        """True when the spread is large next to the median: IQR / median >= 10 % (whatever
        the number of measurements, as PyTorch's)."""
        return not self.meets_confidence(_IQR_WARN_THRESHOLD)

    def _warnings(self) -> list[str]:
        if not self.has_warnings:
            return []
        why = (
            "This suggests significant environmental influence."
            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD)
            else "This could indicate system fluctuation."
        )
        return [
            f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of the "
            f"median measurement.\n           {why}"
        ]

    @staticmethod
    def merge(measurements: Any) -> list[Measurement]:
        """Replicates of one task (equal task_spec) merged into one measurement of
        ``number_per_run = 1`` holding all their per-run times (metadata is dropped)."""
        groups: dict[TaskSpec, list[float]] = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(1, times, spec, None) for spec, times in groups.items()]

    @property
    def significant_figures(self) -> int:
        """How many digits of the median the spread of the middle half of the times supports:
        floor(log10(median / CI)), CI = 1.645 std / sqrt(n) (a rough 90 % interval), 1 to 4."""
        times = sorted(self.times)
        middle = times[len(times) // 4 : math.ceil(3 * len(times) / 4)]
        std = statistics.pstdev(middle) if len(middle) > 1 else 0.0
        ci = max(1.645 * std / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        return min(max(math.floor(math.log10(self.median / ci)), 1), _MAX_SIGNIFICANT_FIGURES)

    # the TaskSpec's fields, read through the measurement as PyTorch allows
    def __getattr__(self, name: str) -> Any:
        if name in TaskSpec.__dataclass_fields__ or name == "title":
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute {name!r}")

    def __repr__(self) -> str:
        unit, scale = select_unit(self.median)
        n = len(self.times)
        lines = [
            f"<minigenesis.utils.benchmark.Measurement object at {hex(id(self))}>",
            self.task_spec.summarize(),
        ]
        if n >= 4:
            lines.append(
                f"  Median: {self.median / scale:.2f} {unit}\n  IQR:    {self.iqr / scale:.2f} "
                f"{unit} ({_quantile(self.times, 0.25) / scale:.2f} to "
                f"{_quantile(self.times, 0.75) / scale:.2f})"
            )
        else:
            lines.append(f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}")
        threads = self.task_spec.num_threads
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs per "
            f"measurement, {threads} thread{'s' if threads > 1 else ''}"
            if n > 1
            else f"  1 measurement, {self.number_per_run} runs , {threads} thread"
            + ("s" if threads > 1 else "")
        )
        return "\n".join(lines + self._warnings())


def _quantile(values: list[float], q: float) -> float:
    """The q-quantile by linear interpolation between the sorted values (NumPy's default)."""
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def select_unit(t: float) -> tuple[str, float]:
    """The unit in which ``t`` seconds reads as a number from 1 to 1000, and its size in s."""
    for unit, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3)):
        if t < scale * 1000:
            return unit, scale
    return "s", 1.0


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures."""
    if x == 0:
        return 0.0
    magnitude = math.floor(math.log10(abs(x)))
    return round(x, n - 1 - magnitude)
