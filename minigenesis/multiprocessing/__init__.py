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
import os
import signal
import sys
import tempfile
import traceback
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
from multiprocessing.connection import wait as _wait_for_any
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


def _run_rank(fn: Callable[..., Any], i: int, args: tuple, error_file: str | None) -> None:
    """A spawned process's body: ``fn(i, *args)``; an exception's traceback goes to
    ``error_file`` (the parent puts it in its own error; without one, to stderr) and the exit
    status is 1."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:  # stopped by the parent after another process failed
        pass
    except Exception:
        if error_file is None:  # spawn(join=False): nobody reads a file
            raise
        with open(error_file, "w", encoding="utf-8") as f:
            f.write(traceback.format_exc())
        sys.exit(1)


def spawn(
    fn: Callable[..., Any],
    args: tuple = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> list | None:
    """Run ``fn(i, *args)`` for i = 0 .. nprocs-1, each in a new process; with ``join``, wait
    for all and raise if one failed. Without ``join``, return the processes.

    As PyTorch's: the first process to fail stops the others (SIGTERM, then SIGKILL after
    30 s), so that none is left waiting for it for ever, and its error is raised here:
    ``ProcessRaisedException`` with its traceback when ``fn`` raised, else
    ``ProcessExitedException`` naming its exit code or signal."""
    context = _mp.get_context(start_method)
    with tempfile.TemporaryDirectory(prefix="mg-spawn-") as errors:
        files = [os.path.join(errors, f"{i}.txt") for i in range(nprocs)]
        processes = [context.Process(target=_run_rank, daemon=daemon,
                                     args=(fn, i, args, files[i] if join else None))
                     for i in range(nprocs)]  # fmt: skip
        for p in processes:
            p.start()
        if not join:
            return processes
        failed = _wait_for_all_or_a_failure(processes)
        if failed is None:
            return None
        if os.path.exists(files[failed]):
            with open(files[failed], encoding="utf-8") as f:
                trace = f.read()
            raise ProcessRaisedException(
                f"\n\n-- Process {failed} terminated with the following error:\n{trace}"
            )
    code = processes[failed].exitcode
    if code < 0:
        raise ProcessExitedException(f"process {failed} terminated with signal "
                                     f"{signal.Signals(-code).name}")  # fmt: skip
    raise ProcessExitedException(f"process {failed} terminated with exit code {code}")


def _wait_for_all_or_a_failure(processes: list) -> int | None:
    """Wait until every process has ended (None) or one ended with a non-zero status: then
    stop the others and return its index."""
    waiting = {p.sentinel: i for i, p in enumerate(processes)}
    while waiting:
        for sentinel in _wait_for_any(list(waiting)):
            i = waiting.pop(sentinel)
            processes[i].join()
            if processes[i].exitcode != 0:
                for p in processes:
                    if p.is_alive():
                        p.terminate()
                for p in processes:
                    p.join(30)
                    if p.is_alive():  # SIGTERM handled by Python code that is stuck in C
                        p.kill()
                        p.join()
                return i
    return None
