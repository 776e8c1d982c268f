"""Bounded waits: the process group's ``timeout`` and the errors a collective raises when it ends.

A collective finishes only when every rank has called it. A rank that never comes (stopped,
crashed, busy in an endless loop, or calling a different collective) would make the others
wait for ever, so every wait here has a deadline: the collective's start plus the process
group's timeout. The backend starts each collective without blocking (``MPI_Iallreduce`` ...)
and polls it until it is done or the deadline has passed:

    while not done:
        if now >= deadline: raise DistBackendError("all_reduce #12 timed out after 3 s ...")
        sleep(backoff)          # backoff: 0 for the first millisecond, then 50 us doubling to 2 ms

The first millisecond is spent polling without sleeping, so a collective whose ranks arrive
together costs what a blocking one costs; after that the sleeps keep a long wait (rank 0 saving a
checkpoint while the others wait at a barrier) from holding a core. The sleep is capped at 2 ms:
MPI moves a collective's data only while a rank is inside an MPI call, so a longer sleep would
slow every step of the collective's algorithm by as much.

The timeout: ``init_process_group(timeout=timedelta(...))``, else the environment variable
``MINIGENESIS_DISTRIBUTED_TIMEOUT`` (seconds), else ``DEFAULT_TIMEOUT`` (5 minutes; PyTorch's
default is 30 minutes for gloo and 10 for NCCL: on one machine, a collective that waits 5
minutes is a hang, not a slow step).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

DEFAULT_TIMEOUT = timedelta(minutes=5)
TIMEOUT_ENV = "MINIGENESIS_DISTRIBUTED_TIMEOUT"
DEBUG_ENV = "MINIGENESIS_DISTRIBUTED_DEBUG"  # PyTorch: TORCH_DISTRIBUTED_DEBUG
DEBUG_LEVELS = ("OFF", "INFO", "DETAIL")

SPIN_SECONDS = 1e-3  # poll without sleeping this long: a prompt collective costs no sleep
FIRST_SLEEP, MAX_SLEEP = 50e-6, 2e-3


class DistError(RuntimeError):
    """An error of the distributed package (PyTorch: ``torch.distributed.DistError``)."""


class DistBackendError(DistError):
    """A collective failed or timed out (PyTorch: ``torch.distributed.DistBackendError``). The
    process group is unusable afterwards: later collectives raise at once, and the job is
    aborted (every rank stopped) when this process exits."""


def resolve_timeout(timeout: Any) -> float:
    """The process group's timeout in seconds: ``timeout`` (a ``timedelta``), else the
    environment's MINIGENESIS_DISTRIBUTED_TIMEOUT (seconds), else DEFAULT_TIMEOUT."""
    if timeout is None:
        value = os.environ.get(TIMEOUT_ENV, "")
        if value == "":
            return DEFAULT_TIMEOUT.total_seconds()
        try:
            seconds = float(value)
        except ValueError:
            raise ValueError(f"{TIMEOUT_ENV}={value!r} is not a number of seconds") from None
        what = f"{TIMEOUT_ENV}={value!r}"
    elif isinstance(timeout, timedelta):
        seconds, what = timeout.total_seconds(), f"timeout={timeout!r}"
    else:  # PyTorch accepts only a timedelta, and says so
        raise TypeError(
            f"Expected timeout argument to be of type datetime.timedelta, got "
            f"{type(timeout).__name__} (write timeout=timedelta(seconds=...))"
        )
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{what}: the timeout must be a positive, finite number of seconds")
    return seconds


def debug_level() -> str:
    """MINIGENESIS_DISTRIBUTED_DEBUG: OFF (default), INFO, or DETAIL (check that every rank
    calls the same collective with the same shapes and dtypes before running it)."""
    value = os.environ.get(DEBUG_ENV, "OFF").upper() or "OFF"
    if value not in DEBUG_LEVELS:
        raise ValueError(f"{DEBUG_ENV}={value!r} must be one of {', '.join(DEBUG_LEVELS)}")
    return value


def poll_until(done: Callable[[], bool], deadline: float,
               between: Callable[[], None] | None = None) -> bool:  # fmt: skip
    """Call ``done()`` until it returns True (then True) or ``deadline`` (time.monotonic())
    has passed (then False). ``between`` runs after each unsuccessful poll once the first
    millisecond is over (the backend answers the other ranks' questions there)."""
    start = time.monotonic()
    sleep = FIRST_SLEEP
    while not done():
        now = time.monotonic()
        if now >= deadline:
            return False
        if now - start < SPIN_SECONDS:
            continue
        if between is not None:
            between()
        time.sleep(min(sleep, max(deadline - now, 0.0)))
        sleep = min(sleep * 2, MAX_SLEEP)
    return True


def seconds(value: float) -> str:
    """3.0 -> '3 s', 0.25 -> '0.25 s', 300 -> '300 s (5 min)'."""
    text = f"{value:g} s"
    return f"{text} ({value / 60:g} min)" if value >= 120 else text
