"""``mg.utils.benchmark``: Timer runs the statement as often as it says, Measurement's statistics
are the ones NumPy computes from its times, and Compare lays the medians out by label, sub_label,
thread count and description."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.utils.benchmark as benchmark
from minigenesis.utils.benchmark.common import Measurement, TaskSpec, trim_sigfig


def test_timeit_runs_the_statement_number_times_after_setup() -> None:
    calls = []
    t = benchmark.Timer(stmt="calls.append(1)", setup="calls.clear()", globals={"calls": calls})
    m = t.timeit(50)
    # setup runs before each block (timeit's rule): the last block's 50 runs remain
    assert len(calls) == 50 and m.number_per_run == 50 and len(m.raw_times) == 1
    assert m.times == [m.raw_times[0] / 50]


def test_the_statement_sees_the_package_as_torch() -> None:
    seen = []
    benchmark.Timer("seen.append(torch)", globals={"seen": seen}).timeit(1)
    assert seen[-1] is mg


def test_blocked_autorange_spends_at_least_min_run_time() -> None:
    blocks = []
    m = benchmark.Timer("sum(range(100))").blocked_autorange(
        callback=lambda n, t: blocks.append((n, t)), min_run_time=0.05
    )
    assert sum(m.raw_times) >= 0.05 and [t for _, t in blocks] == m.raw_times
    assert all(n == m.number_per_run for n, _ in blocks) and m.number_per_run >= 1


def test_measurement_statistics_match_numpy() -> None:
    times = [0.5, 0.1, 0.4, 0.2, 0.3, 0.9]
    m = Measurement(10, times, TaskSpec("f()", "pass"))
    per_run = np.array(times) / 10
    assert np.isclose(m.median, np.median(per_run)) and np.isclose(m.mean, per_run.mean())
    assert np.isclose(m.iqr, np.percentile(per_run, 75) - np.percentile(per_run, 25))
    assert 1 <= m.significant_figures <= 4


def test_trim_sigfig_rounds_to_significant_figures() -> None:
    assert trim_sigfig(12.345, 2) == 12.0 and trim_sigfig(0.012345, 3) == 0.0123
    assert trim_sigfig(98765.0, 1) == 100000.0 and trim_sigfig(0.0, 2) == 0.0


def test_compare_lays_out_medians_by_label_row_and_column() -> None:
    def m(median: float, sub: str, desc: str, threads: int) -> Measurement:
        spec = TaskSpec("f()", "pass", label="dot", sub_label=sub, description=desc,
                        num_threads=threads)  # fmt: skip
        return Measurement(1, [median] * 3, spec)

    results = [
        m(2e-6, "[1, 1]", "mul", 1),
        m(3e-6, "[1, 1]", "bmm", 1),
        m(4.5e-5, "[8, 8]", "mul", 2),
    ]
    lines = str(benchmark.Compare(results)).splitlines()
    assert "dot" in lines[0] and [c.strip() for c in lines[1].split("|")[1:]] == ["mul", "bmm"]
    assert lines[2].startswith("1 threads:") and "2 threads:" in lines[4]
    row = lines[3].split("|")
    assert row[0].strip() == "[1, 1]" and float(row[1]) == 2.0 and float(row[2]) == 3.0
    assert float(lines[5].split("|")[1]) == 45.0 and lines[5].split("|")[2].strip() == ""
    assert "Times are in microseconds (us)." in lines


def test_measurement_warns_of_a_wide_spread_whatever_the_number_of_measurements():
    spec = TaskSpec("x", "pass")
    # times 1, 2, 3 ms: IQR (linear quantiles) 2.5 - 1.5 = 1 ms, half the 2 ms median
    m = Measurement(1, [1e-3, 2e-3, 3e-3], spec)
    assert m.iqr == pytest.approx(1e-3) and m.has_warnings and not m.meets_confidence(0.25)
    text = repr(m)
    assert "Median: 2.00 ms" in text and "Interquartile range is 50.0%" in text
    assert "significant environmental influence" in text
    steady = Measurement(10, [1.0e-2, 1.01e-2], spec)  # IQR 0.5 % of the median
    assert not steady.has_warnings and "WARNING" not in repr(steady)


def test_measurement_merge_pools_per_run_times_of_equal_tasks():
    a, b = TaskSpec("x", "pass"), TaskSpec("y", "pass")
    merged = Measurement.merge(
        [Measurement(4, [8e-3], a), Measurement(2, [2e-3, 6e-3], a), Measurement(1, [5.0], b)]
    )
    assert [(m.stmt, m.number_per_run) for m in merged] == [("x", 1), ("y", 1)]
    assert merged[0].times == pytest.approx([2e-3, 1e-3, 3e-3]) and merged[1].times == [5.0]
