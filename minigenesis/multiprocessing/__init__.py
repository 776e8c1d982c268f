"""``mg.multiprocessing`` (``torch.multiprocessing``): Python's multiprocessing, with tensors that
travel through it in shared memory.

Everything of Python's ``multiprocessing`` is here under the same names (Process, Queue, Pool,
set_start_method ...). A tensor moved to shared memory (``x.share_memory_()``,
``model.share_memory()``) reaches a child process as the same memory, so the children of a
Hogwild-style program update one model::

    model.share_memory()
    workers = [mp.Process(target=train, args=(model,)) for _ in range(4)]

``spawn(fn, args, nprocs)`` starts ``fn(i, *args)`` in ``nprocs`` fresh processes (PyTorch's
helper for one process per rank).
"""

from __future__ import annotations

import multiprocessing as _mp
from collections.abc import Callable
from multiprocessing import (
    Array,
    AuthenticationError,
    Barrier,
    BoundedSemaphore,
    BufferTooShort,
    Condition,
    Event,
    JoinableQueue,
    Lock,
    Manager,
    Pipe,
    Pool,
    Process,
    ProcessError,
    Queue,
    RawArray,
    RawValue,
    RLock,
    Semaphore,
    SimpleQueue,
    TimeoutError,
    Value,
    active_children,
    allow_connection_pickling,
    cpu_count,
    current_process,
    freeze_support,
    get_all_start_methods,
    get_context,
    get_logger,
    get_start_method,
    log_to_stderr,
    parent_process,
    set_executable,
    set_forkserver_preload,
    set_start_method,
)
from typing import Any

__all__ = [
    "Array", "AuthenticationError", "Barrier", "BoundedSemaphore", "BufferTooShort", "Condition",
    "Event", "JoinableQueue", "Lock", "Manager", "Pipe", "Pool", "Process", "ProcessError",
    "Queue", "RLock", "RawArray", "RawValue", "Semaphore", "SimpleQueue", "TimeoutError", "Value",
    "active_children", "allow_connection_pickling", "cpu_count", "current_process",
    "freeze_support", "get_all_start_methods", "get_context", "get_logger", "get_start_method",
    "log_to_stderr", "parent_process", "set_executable", "set_forkserver_preload",
    "set_start_method", "spawn", "ProcessRaisedException", "ProcessExitedException",
    "get_sharing_strategy", "set_sharing_strategy", "get_all_sharing_strategies",
]  # fmt: skip


def get_all_sharing_strategies() -> set[str]:
    """How tensors are shared between processes: here always through named shared memory."""
    return {"file_system"}


def get_sharing_strategy() -> str:
    return "file_system"


def set_sharing_strategy(strategy: str) -> None:
    if strategy not in get_all_sharing_strategies():
        raise ValueError(f"sharing strategy {strategy!r} is not available here ('file_system')")


class ProcessRaisedException(Exception):  # noqa: N818  (PyTorch's name)
    """A process started by ``spawn`` failed with an exception."""


class ProcessExitedException(ProcessRaisedException):
    """A process started by ``spawn`` exited with a non-zero code."""


def spawn(
    fn: Callable[..., Any],
    args: tuple = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> list | None:
    """Run ``fn(i, *args)`` for i = 0 .. nprocs-1, each in a new process; with ``join``, wait
    for all and raise if one failed. Without ``join``, return the processes."""
    context = _mp.get_context(start_method)
    processes = [context.Process(target=fn, args=(i, *args), daemon=daemon) for i in range(nprocs)]
    for p in processes:
        p.start()
    if not join:
        return processes
    for p in processes:
        p.join()
    failed = [(i, p.exitcode) for i, p in enumerate(processes) if p.exitcode != 0]
    if failed:
        i, code = failed[0]
        raise ProcessExitedException(f"process {i} terminated with exit code {code}")
    return None
