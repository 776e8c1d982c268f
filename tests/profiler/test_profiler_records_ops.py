"""torch.profiler / torch.autograd.profiler: what a profile records (calls per op, nesting, self
and total times), the table, the Chrome trace, and that everything swapped in is put back."""

from __future__ import annotations

import json
import threading

import pytest

import minigenesis as mg
from minigenesis.autograd import profiler as legacy
from minigenesis.autograd.engine import _Backward
from minigenesis.autograd.function import Function
from minigenesis.autograd.profiler_util import _format_time
from minigenesis.profiler import ProfilerActivity, profile, record_function

APPLY = Function.__dict__["apply"].__func__
RUN_READY = _Backward.__dict__["run_ready"]
MUL_BACKWARD = mg.ops.elementwise.Mul.__dict__["backward"]


def _mlp():
    mg.manual_seed(0)
    return mg.nn.Sequential(mg.nn.Linear(4, 16), mg.nn.ReLU(), mg.nn.Linear(16, 3))


def _counts(prof) -> dict[str, int]:
    return {e.key: e.count for e in prof.key_averages()}


def test_calls_per_op_of_a_small_model_are_counted():
    model, x = _mlp(), mg.randn(8, 4)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            model(x).sum().backward()
    # per iteration: two Linear layers, one ReLU, one sum, one backward pass, and the backward of
    # each graph node, named as the graph names it
    loss = model(x).sum()
    nodes, todo = [], [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and type(node).__name__ != "AccumulateGrad":
            nodes.append(type(node).__name__)
            todo += [f for f, _ in node.next_functions]
    assert sorted(nodes) == ["AddmmBackward0", "AddmmBackward0", "ReluBackward0", "SumBackward0"]
    want = {"Linear": 6, "ReLU": 3, "Sum": 3, "autograd::engine::run_backward": 3}
    want.update({n: 3 * nodes.count(n) for n in nodes})
    assert _counts(prof) == want
    backward = [e for e in prof.events() if e.name.endswith("Backward0")]
    assert all(e.cpu_parent.name == "autograd::engine::run_backward" for e in backward)


def test_self_time_is_at_most_total_and_self_times_sum_to_the_top_level_totals():
    model, x = _mlp(), mg.randn(8, 4)
    with profile() as prof:
        with record_function("step"):
            model(x).sum().backward()
    events = prof.events()
    for e in events:
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total
    for a in prof.key_averages():
        assert a.self_cpu_time_total <= a.cpu_time_total
    top = [e for e in events if e.cpu_parent is None]
    assert [e.name for e in top] == ["step"]
    assert events.self_cpu_time_total == pytest.approx(top[0].cpu_time_total)


def test_record_function_nests_and_parents_the_ops_inside_it():
    x = mg.randn(3, requires_grad=True)
    with profile() as prof:
        with record_function("outer"):
            y = x.relu()
            with record_function("inner"):
                z = y.exp()
    by_name = {e.name: e for e in prof.events()}
    outer, inner = by_name["outer"], by_name["inner"]
    assert [c.name for c in outer.cpu_children] == ["ReLU", "inner"]
    assert [c.name for c in inner.cpu_children] == ["Exp"] and inner.cpu_parent is outer
    assert outer.time_range[0] <= inner.time_range[0] <= inner.time_range[1]
    assert inner.time_range[1] <= outer.time_range[1]
    assert z.shape == (3,)


def test_record_function_as_a_decorator_records_each_call_and_is_inert_without_a_profile():
    @record_function("double")
    def double(t):
        return t * 2

    assert double(mg.ones(2)).tolist() == [2.0, 2.0]  # no profile: it only runs
    with profile() as prof:
        double(double(mg.ones(2)))
    assert _counts(prof) == {"double": 2, "Mul": 2}


def test_record_shapes_lists_each_inputs_shape_and_groups_by_them():
    a, b = mg.randn(2, 3), mg.randn(3, 4)
    at, bt = a.T, b.T  # (transposing is an op of its own: done before the profile)
    with profile(record_shapes=True) as prof:
        a @ b
        a @ b
        bt @ at
    grouped = prof.key_averages(group_by_input_shape=True)
    assert sorted((g.key, str(g.input_shapes), g.count) for g in grouped) == [
        ("MatMul", "[[2, 3], [3, 4]]", 2), ("MatMul", "[[4, 3], [3, 2]]", 1),
    ]  # fmt: skip
    text = grouped.table()
    assert "Input Shapes" in text.splitlines()[1] and "[[2, 3], [3, 4]]" in text


def test_table_has_pytorchs_columns_sorted_and_limited():
    model, x = _mlp(), mg.randn(8, 4)
    with profile() as prof:
        model(x).sum().backward()
    averages = prof.key_averages()
    text = averages.table(sort_by="cpu_time_total", row_limit=2)
    lines = text.splitlines()
    titles = [t for t in lines[1].split("  ") if t]
    assert [t.strip() for t in titles] == ["Name", "Self CPU %", "Self CPU", "CPU total %",
                                           "CPU total", "CPU time avg", "# of Calls"]  # fmt: skip
    assert lines[0] == lines[2] == lines[5] and set(lines[0]) == {"-", " "}
    rows = lines[3:5]
    want = sorted(averages, key=lambda a: a.cpu_time_total, reverse=True)[:2]
    assert [r.split()[0] for r in rows] == [a.key for a in want]
    assert rows[0].split()[-1] == str(want[0].count)
    assert lines[6] == f"Self CPU time total: {_format_time(averages.self_cpu_time_total)}"
    # GPU and memory columns read zero on a CPU profile, as in PyTorch, and still sort
    assert averages.table(sort_by="cuda_time_total") and averages[0].self_cpu_memory_usage == 0
    with pytest.raises(AttributeError, match="no_such_column"):
        averages.table(sort_by="no_such_column")


def test_times_print_in_pytorchs_units():
    assert [_format_time(t) for t in (12.5, 1234.5, 2_500_000.0)] == [
        "12.500us", "1.234ms", "2.500s"]  # fmt: skip


def test_chrome_trace_is_valid_json_with_one_complete_event_per_range(tmp_path):
    model, x = _mlp(), mg.randn(8, 4)
    with profile(record_shapes=True) as prof:
        model(x).sum().backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    assert [t["name"] for t in trace] == [e.name for e in prof.events()]
    assert all(t["ph"] == "X" and t["dur"] >= 0 and t["ts"] >= 0 for t in trace)
    assert trace[0]["args"]["Input Dims"] == [[8, 4], [16, 4], [16]]


def test_everything_swapped_in_is_restored_after_an_exception():
    with pytest.raises(ValueError, match="boom"):
        with profile():
            mg.ones(2).exp()
            raise ValueError("boom")
    assert Function.__dict__["apply"].__func__ is APPLY
    assert _Backward.__dict__["run_ready"] is RUN_READY
    assert mg.ops.elementwise.Mul.__dict__["backward"] is MUL_BACKWARD
    assert legacy._active is None
    with profile() as prof:  # and a new profile can start
        mg.ones(2).exp()
    assert _counts(prof) == {"Exp": 1}


def test_nested_and_concurrent_profiles_are_refused():
    with profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with legacy.profile():
                pass
        errors = []

        def other_thread():
            try:
                with profile():
                    pass
            except RuntimeError as e:
                errors.append(e)

        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        assert len(errors) == 1 and "already enabled" in str(errors[0])
    assert Function.__dict__["apply"].__func__ is APPLY


def test_ops_in_another_thread_are_recorded_with_that_threads_id():
    seen = {}

    def work():
        seen["id"] = threading.get_ident()
        mg.ones(2).exp()

    with profile() as prof:
        mg.ones(2).relu()
        t = threading.Thread(target=work)
        t.start()
        t.join()
    threads = {e.name: e.thread for e in prof.events()}
    assert threads == {"ReLU": threading.get_ident(), "Exp": seen["id"]}


def test_cuda_activity_is_accepted_and_only_cpu_events_are_recorded():
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        mg.ones(2).exp()
    assert [e.device_type for e in prof.events()] == ["CPU"]
    assert mg.profiler.supported_activities() == {ProfilerActivity.CPU}
    assert mg.profiler.kineto_available() is False
    with pytest.raises(TypeError, match="ProfilerActivity"):
        profile(activities=["cpu"])


def test_the_older_autograd_profiler_records_and_prints():
    with legacy.profile(record_shapes=True) as prof:
        with mg.autograd.profiler.record_function("block"):
            mg.ones(2, 3).sum()
    assert _counts(prof) == {"block": 1, "Sum": 1}
    assert str(prof) == prof.table() and "Self CPU time total" in str(prof)
    rows = prof.table(sort_by="self_cpu_time_total").splitlines()[3:5]
    want = sorted(prof.function_events, key=lambda e: e.self_cpu_time_total, reverse=True)
    assert [r.split()[0] for r in rows] == [e.name for e in want]
    assert prof.total_average().count == 2
    with legacy.profile(enabled=False) as off:
        mg.ones(2).exp()
    with pytest.raises(RuntimeError, match="didn't finish"):
        off.key_averages()


# PyTorch's names (torch.profiler.__all__, torch.autograd.profiler.__all__) left out, and why
_PROFILER_SKIPS = {
    "DeviceType": "PyTorch's device-kind enum of its C++ core; devices are strings here",
    "ExecutionTraceObserver": "PyTorch's execution-graph traces (Chakra) are not modelled",
}
_AUTOGRAD_PROFILER_SKIPS = {
    "emit_itt": "Intel VTune ranges: no VTune here",
    "emit_nvtx": "NVTX ranges for nsys: CuPy's launches are not annotated",
    "load_nvprof": "reads nvprof's database (a removed NVIDIA tool)",
    "parse_nvprof_trace": "reads nvprof's database (a removed NVIDIA tool)",
    "EnforceUnique": "a helper of the nvprof reader",
    "KinetoStepTracker": "Kineto's step counter: Kineto is not used",
    "MemRecordsAcc": "memory records: profile_memory records nothing here",
}
_PROFILER_NAMES = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
                   "ProfilerAction", "ProfilerActivity", "kineto_available", "DeviceType",
                   "record_function", "ExecutionTraceObserver"]  # fmt: skip
_AUTOGRAD_PROFILER_NAMES = ["profile", "record_function", "emit_itt", "emit_nvtx", "load_nvprof",
                            "EnforceUnique", "parse_nvprof_trace", "KinetoStepTracker",
                            "EventList", "FunctionEvent", "MemRecordsAcc"]  # fmt: skip


@pytest.mark.parametrize(
    "module, names, skips",
    [
        (mg.profiler, _PROFILER_NAMES, _PROFILER_SKIPS),
        (mg.autograd.profiler, _AUTOGRAD_PROFILER_NAMES, _AUTOGRAD_PROFILER_SKIPS),
    ],
)
def test_pytorchs_profiler_names_are_present_except_the_reviewed_skips(module, names, skips):
    assert [n for n in names if n not in skips and not hasattr(module, n)] == []
    assert [n for n in skips if hasattr(module, n)] == []  # a skip that is present is stale


def test_a_users_function_and_a_generator_backward_are_timed_and_still_correct():
    class Triple(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):  # a generator: (input index, gradient) pairs
            yield 0, g * 3

    x = mg.ones(2, requires_grad=True)
    with profile() as prof:
        Triple.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    node = next(e for e in prof.events() if e.name == "TripleBackward")
    assert [c.name for c in node.cpu_children] == ["Mul"]  # the yielded gradient's work inside
    assert "backward" in Triple.__dict__ and Triple.__dict__["backward"].__func__.__name__ == (
        "backward"
    )
