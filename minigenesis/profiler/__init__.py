"""``torch.profiler``: time the ops of a block, optionally over a schedule of training steps.

    with mg.profiler.profile(activities=[mg.profiler.ProfilerActivity.CPU],
                             record_shapes=True) as prof:
        with mg.profiler.record_function("forward"):
            loss = model(x).sum()
        loss.backward()
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

The recording itself (timing wrappers swapped in for ``Function.apply`` and the engine's backward
pass while a profile records, so that code pays nothing when none does) is
``autograd/profiler.py``; this package adds PyTorch's newer front end: activities, a schedule of
steps, ``on_trace_ready``.
"""

from ..autograd.profiler import record_function
from ..autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg
from .profiler import kineto_available, profile, supported_activities, tensorboard_trace_handler
from .schedule import ProfilerAction, ProfilerActivity, schedule

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "kineto_available",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]
