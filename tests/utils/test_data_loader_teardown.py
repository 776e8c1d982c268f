"""A DataLoader's worker processes end with the error that ends its loop: a worker's exception,
re-raised in the main process, must not keep the iterator (and so the workers) alive in a
reference cycle until the garbage collector runs; a worker that cannot be started stops the
ones already started before the error is raised; a num_workers that would fork until the
machine runs out of processes is refused by name. Each loader has a ``timeout`` so that a
regression fails instead of hanging."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from minigenesis.utils.data import DataLoader, Dataset
from minigenesis.utils.data.dataloader import max_workers

FORK = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() \
    else None  # fmt: skip


class BrokenSample(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> int:
        if i == 2:
            raise ValueError(f"sample {i} is corrupt")
        return i


@pytest.fixture
def no_collector():
    """The garbage collector off: what outlives an error must be freed by reference counts."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


@pytest.mark.skipif(FORK is None, reason="needs the fork start method")
def test_a_worker_error_stops_the_workers_once_the_error_is_dropped(no_collector):
    before = len(multiprocessing.active_children())
    loader = DataLoader(BrokenSample(), batch_size=2, num_workers=2, timeout=10,
                        multiprocessing_context=FORK)  # fmt: skip
    with pytest.raises(ValueError, match="sample 2 is corrupt"):
        list(loader)
    # no gc.collect(): the iterator and its workers must be gone by reference counting alone
    assert len(multiprocessing.active_children()) == before


class ContextFailingOnThirdStart(type(FORK) if FORK is not None else object):  # type: ignore[misc]
    """The fork context, except that the third process it makes cannot start (as when the
    machine has no process left: fork fails with EAGAIN)."""

    def __init__(self) -> None:
        self.made = 0

    def Process(self, *args, **kwargs):  # noqa: N802 (multiprocessing's name)
        process = FORK.Process(*args, **kwargs)
        self.made += 1
        if self.made == 3:

            def start() -> None:
                raise BlockingIOError(11, "Resource temporarily unavailable")

            process.start = start
        return process


@pytest.mark.skipif(FORK is None, reason="needs the fork start method")
def test_a_worker_that_cannot_start_stops_the_workers_already_started(no_collector):
    before = len(multiprocessing.active_children())
    loader = DataLoader(BrokenSample(), batch_size=2, num_workers=4, timeout=10,
                        multiprocessing_context=ContextFailingOnThirdStart())  # fmt: skip
    with pytest.raises(BlockingIOError, match="Resource temporarily unavailable") as info:
        iter(loader)
    # stopped before the error reached us, not later when it is dropped (a caller may keep it)
    assert info.value is not None and len(multiprocessing.active_children()) == before


def test_more_workers_than_the_machine_can_run_is_refused_by_name():
    assert max_workers() == max(64, 4 * (os.cpu_count() or 1))
    n = max_workers() + 1
    with pytest.raises(ValueError, match=f"num_workers={n} is more worker processes than this "
                       "machine can run: at most"):  # fmt: skip
        DataLoader(BrokenSample(), num_workers=n)
    DataLoader(BrokenSample(), num_workers=max_workers())  # the limit itself is allowed


_SLOW_SAMPLES = """
import os, sys, time
from minigenesis.utils.data import DataLoader, Dataset

class Slow(Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, i):
        os.write(1, f"{os.getpid()}\n".encode())  # inside a sample for 60 s (one write: the
        # two workers' lines cannot interleave, as print's two writes could)
        time.sleep(60)
        return i

next(iter(DataLoader(Slow(), num_workers=2)))
"""


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (an exited child nobody reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_workers_inside_a_slow_sample_end_when_the_main_process_is_killed():
    """A worker checked for its parent only between tasks: killing the main process left every
    worker that was inside a sample running until the sample ended (here 60 s, or never for a
    hung one)."""
    root = Path(__file__).resolve().parents[2]
    main = subprocess.Popen([sys.executable, "-c", _SLOW_SAMPLES], stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(root)})  # fmt: skip
    lines = (line.strip() for line in main.stdout)
    workers = [int(line) for _, line in zip(range(2), filter(str.isdigit, lines))]
    try:
        assert all(_running(w) for w in workers)
        main.kill()
        main.wait(timeout=10)
        deadline = time.monotonic() + 5
        while any(_running(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_running(w) for w in workers)
    finally:
        for w in workers:  # (only if the test failed: they are ours and still running)
            if _running(w):
                os.kill(w, signal.SIGKILL)
