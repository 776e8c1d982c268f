"""``Compare``: Measurements side by side, one table per label.

    [--------- Batched dot ----------]
                    |  mul/sum  |  bmm
    1 threads: -----------------------
          [1, 1]    |    12.4   |  5.4
          [64, 64]  |    16.2   |  7.8

    Times are in microseconds (us).

Rows are the sub_labels (grouped by thread count), columns the descriptions; each cell is the
median time of that Measurement, all in one unit chosen so that the smallest reads >= 1.
``trim_significant_figures()`` rounds each cell to the digits its spread supports (a noisy
number shows fewer); ``colorize()`` marks the fastest cell of each row (``rowwise=True``) or
column in bold green and slow ones (over 2x the best) in red.
"""

from __future__ import annotations

from collections.abc import Iterable

from .common import Measurement, select_unit, trim_sigfig

__all__ = ["Compare"]

_BEST, _WORSE, _END = "\033[92m\033[1m", "\033[31m", "\033[0m"
_UNIT_NAMES = {
    "ns": "nanoseconds (ns)",
    "us": "microseconds (us)",
    "ms": "milliseconds (ms)",
    "s": "seconds (s)",
}


class Compare:
    """A table of Measurements; ``print()`` writes it, ``str()`` returns it."""

    def __init__(self, results: Iterable[Measurement]) -> None:
        self._results: list[Measurement] = []
        self._trim = False
        self._colorize: str | None = None  # None, "columnwise" or "rowwise"
        self.extend_results(results)

    def extend_results(self, results: Iterable[Measurement]) -> None:
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
            self._results.append(r)

    def trim_significant_figures(self) -> None:
        self._trim = True

    def colorize(self, rowwise: bool = False) -> None:
        self._colorize = "rowwise" if rowwise else "columnwise"

    def highlight_warnings(self) -> None:
        """Accepted: noisy cells are already shown with fewer digits when trimmed."""

    def print(self) -> None:
        print(str(self))

    def __str__(self) -> str:
        labels: dict[str | None, list[Measurement]] = {}
        for r in self._results:
            labels.setdefault(r.task_spec.label, []).append(r)
        return "\n".join(self._table(label, results) for label, results in labels.items())

    def _table(self, label: str | None, results: list[Measurement]) -> str:
        columns = list(dict.fromkeys(r.task_spec.description or "" for r in results))
        threads = list(dict.fromkeys(r.task_spec.num_threads for r in results))
        rows = list(dict.fromkeys(r.task_spec.sub_label or r.task_spec.stmt for r in results))
        unit, scale = select_unit(min(r.median for r in results))
        cells: dict[tuple, Measurement] = {}
        for r in results:
            key = (r.task_spec.num_threads, r.task_spec.sub_label or r.task_spec.stmt)
            cells[key + (r.task_spec.description or "",)] = r

        def text(r: Measurement | None) -> str:
            if r is None:
                return ""
            value = r.median / scale
            if self._trim:
                value = trim_sigfig(value, r.significant_figures)
                return (
                    f"{value:.0f}" if value >= 10 ** (r.significant_figures - 1) else f"{value:g}"
                )
            return f"{value:.1f}"

        grid = {k: text(r) for k, r in cells.items()}
        row_width = max(len(str(name)) for name in rows) + 8  # indent 6, 2 spaces after
        widths = [
            max([len(c)] + [len(v) for k, v in grid.items() if k[2] == c]) + 4 for c in columns
        ]
        header = " " * row_width + "|" + "|".join(c.center(w) for c, w in zip(columns, widths))
        lines = [header]
        for n in threads:
            lines.append(f"{n} threads: ".ljust(row_width, "-") + "-" * (len(header) - row_width))
            for name in rows:
                values = [grid.get((n, name, c), "") for c in columns]
                if not any(values):
                    continue
                shown = self._colored(n, name, columns, values, cells)
                padded = [
                    " " * (w - 2 - len(v)) + c + "  " for v, c, w in zip(values, shown, widths)
                ]
                lines.append(f"      {name}".ljust(row_width) + "|" + "|".join(padded))
        title = f" {label} " if label else " "
        width = len(header)
        top = "[" + title.center(width - 2, "-") + "]"
        return "\n".join([top] + lines + ["", f"Times are in {_UNIT_NAMES[unit]}.", ""])

    def _colored(self, n: int, name: str, columns: list, values: list, cells: dict) -> list[str]:
        """The cell texts, the best (and the slow) wrapped in terminal colours when asked."""
        if self._colorize is None:
            return values
        out = []
        for c, v in zip(columns, values):
            r = cells.get((n, name, c))
            if r is None:
                out.append(v)
                continue
            if self._colorize == "rowwise":
                group = [cells[(n, name, cc)] for cc in columns if (n, name, cc) in cells]
            else:
                group = [m for (nn, _, cc), m in cells.items() if nn == n and cc == c]
            best = min(m.median for m in group)
            if r.median == best and len(group) > 1:
                out.append(_BEST + v + _END)
            elif r.median > 2 * best:
                out.append(_WORSE + v + _END)
            else:
                out.append(v)
        return out
