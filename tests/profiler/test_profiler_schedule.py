"""torch.profiler.schedule and profile.step(): the actions of each step as PyTorch documents
them (skip_first steps, then cycles of wait, warmup and active steps, repeat cycles), and which
steps a profile with a schedule records and hands to on_trace_ready."""

from __future__ import annotations

import warnings

import pytest

import minigenesis as mg
from minigenesis.profiler import ProfilerAction, profile, schedule

N, W, R, S = (ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD,
              ProfilerAction.RECORD_AND_SAVE)  # fmt: skip


def test_schedule_cycles_wait_warmup_active_for_repeat_cycles():
    fn = schedule(wait=1, warmup=1, active=2, repeat=2)
    assert [fn(k) for k in range(10)] == [N, W, R, S, N, W, R, S, N, N]


def test_schedule_without_repeat_cycles_forever_after_skip_first():
    fn = schedule(skip_first=2, wait=1, warmup=1, active=1)
    assert [fn(k) for k in range(10)] == [N, N, N, W, S, N, W, S, N, W]


def test_skip_first_wait_leaves_out_only_the_first_wait():
    # PyTorch's documented example: skip_first=10, wait=20 waits 10 steps, not 30, the first time
    fn = schedule(skip_first=10, wait=20, warmup=1, active=1, skip_first_wait=1)
    assert [fn(k) for k in (9, 10, 11, 12, 31, 32, 33)] == [N, W, S, N, N, W, S]


def test_schedule_refuses_bad_arguments_and_warns_without_warmup():
    with pytest.raises(AssertionError, match="Invalid profiler schedule"):
        schedule(wait=0, warmup=1, active=0)
    with pytest.warns(UserWarning, match="warmup"):
        schedule(wait=0, warmup=0, active=1)
    with pytest.raises(AssertionError, match=">= 0"):
        schedule(wait=0, warmup=1, active=1)(-1)


def test_profile_with_a_schedule_records_the_active_steps_and_hands_them_on():
    traces = []

    def ready(prof):
        steps = [e.trace_name for e in prof.events() if e.name == "ProfilerStep*"]
        ops = sum(e.name == "Exp" for e in prof.events())
        traces.append((prof.step_num, steps, ops))

    x = mg.ones(2)
    with profile(
        schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready
    ) as p:
        for _ in range(10):
            x.exp()
            p.step()
    assert traces == [(4, ["ProfilerStep#2", "ProfilerStep#3"], 2),
                      (8, ["ProfilerStep#6", "ProfilerStep#7"], 2)]  # fmt: skip
    step = next(e for e in p.events() if e.trace_name == "ProfilerStep#7")
    assert [c.name for c in step.cpu_children] == ["Exp"]


def test_profile_without_a_schedule_records_the_whole_block_once():
    calls = []
    with profile(on_trace_ready=calls.append) as p:
        for _ in range(3):
            mg.ones(2).exp()
            p.step()
    assert calls == [p] and [e.name for e in p.events()] == ["Exp"] * 3  # no step ranges


def test_a_trace_cut_short_by_the_schedule_is_not_handed_on_and_warns():
    calls = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with profile(schedule=lambda k: R if k == 0 else N, on_trace_ready=calls.append) as p:
            mg.ones(2).exp()
            p.step()
            mg.ones(2).relu()
    assert any("RECORD followed by NONE" in str(w.message) for w in caught)
    assert calls == [] and [e.trace_name for e in p.events()] == ["ProfilerStep#0", "Exp"]


def test_a_profile_that_ends_mid_cycle_hands_on_what_it_recorded():
    calls = []
    with profile(schedule=schedule(wait=0, warmup=1, active=3), on_trace_ready=calls.append) as p:
        for _ in range(2):
            mg.ones(2).exp()
            p.step()  # steps 0 (warmup), 1 (record); the block ends in step 2
    assert calls == [p]
    assert [e.trace_name for e in p.events()] == ["ProfilerStep#1", "Exp", "ProfilerStep#2"]
    # the steps are one row of the table, as in PyTorch; the trace keeps their numbers
    assert {a.key: a.count for a in p.key_averages()} == {"ProfilerStep*": 2, "Exp": 1}
