"""Chapter 16's ready-made ranks on threads (``ThreadComm``, ``run_ranks``), as the template and
the solutions ship them: a rank that raises ends the run at once, naming the rank and its error,
instead of leaving every other rank waiting out its receive's timeout."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import pytest

CHAPTER = Path(__file__).resolve().parents[2] / "lessons" / "16_distributed"


def _load(filename: str):
    path = CHAPTER / filename
    name = f"thread_ranks_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["exercises_template.py", "solutions.py"])
def shipped(request):
    return _load(request.param)


def _ring_where_rank_1_fails(comm):
    """Passes a value around the ring; rank 1 raises before sending, so its neighbour's receive
    would wait for a message that never comes."""
    r, n = comm.Get_rank(), comm.Get_size()
    if r == 1:
        raise ValueError("chunk 3 is out of range")
    return comm.sendrecv(np.array([r]), dest=(r + 1) % n, source=(r - 1) % n)


@pytest.mark.parametrize("world", [2, 4])
def test_a_failing_rank_ends_the_run_at_once_naming_the_rank(shipped, world) -> None:
    start = time.perf_counter()
    with pytest.raises(Exception, match=r"rank 1 .*ValueError: chunk 3 is out of range") as info:
        shipped.run_ranks(_ring_where_rank_1_fails, world)
    took = time.perf_counter() - start
    assert took < 2.0, f"run_ranks took {took:.1f} s to report rank 1's error"
    cause = info.value.__cause__
    assert isinstance(cause, ValueError), "the rank's own error (and traceback) is the cause"


def test_a_failing_rank_wakes_ranks_waiting_in_allreduce(shipped) -> None:
    def body(comm):
        if comm.Get_rank() == 2:
            time.sleep(0.2)  # the others are already waiting for its part
            raise KeyError("grad")
        return comm.allreduce(np.ones(2))

    start = time.perf_counter()
    with pytest.raises(Exception, match=r"rank 2 .*KeyError"):
        shipped.run_ranks(body, 3)
    assert time.perf_counter() - start < 2.0


def test_ranks_that_all_succeed_return_their_results_in_rank_order(shipped) -> None:
    def body(comm):
        r, n = comm.Get_rank(), comm.Get_size()
        got = comm.sendrecv(np.array([10.0 * r]), dest=(r + 1) % n, source=(r - 1) % n)
        return float(got[0]), comm.allreduce(np.array([r + 1.0])).tolist()

    assert shipped.run_ranks(body, 3) == [(20.0, [6.0]), (0.0, [6.0]), (10.0, [6.0])]
