"""Chapter 16 exercises: data parallelism. Cutting data into shards, a ring all-reduce written
by hand on send/receive, what it costs, gradient buckets, and averaging gradients across ranks.

The ranks here are threads of one process (``ThreadComm``, ready-made, with mpi4py's names), so
everything runs in a notebook; the checks also run your ring all-reduce on real MPI processes
when mpi4py is installed (``pip install -e ".[distributed]"``).

    python -m pytest lessons/16_distributed
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

import minigenesis as mg  # noqa: F401  (mg.tensor, for exercise 16.5)
from minigenesis import nn


class RankFailed(RuntimeError):
    """Ready-made (not an exercise): rank ``rank`` raised ``error``. ``run_ranks`` puts it in every
    mailbox, so that each rank waiting for a message (one that will never come) stops at once."""

    def __init__(self, rank: int, error: BaseException) -> None:
        super().__init__(f"rank {rank} failed with {type(error).__name__}: {error}")
        self.rank, self.error = rank, error


class ThreadComm:
    """Ready-made (not an exercise): ranks as threads of one process, with mpi4py's names.

    ``Get_rank()`` and ``Get_size()``; ``sendrecv(sendobj, dest, source)`` sends ``sendobj`` to
    rank ``dest`` and returns what rank ``source`` sent to this rank (mpi4py's
    ``comm.sendrecv(sendobj, dest=dest, source=source)``); ``allreduce(x)`` returns the sum of
    every rank's ``x``. Arrays are copied on the way, as MPI copies bytes; ``sent`` counts the
    array elements this rank has sent with ``sendrecv``.
    """

    def __init__(self, rank: int, size: int, boxes: dict) -> None:
        self.rank, self.size, self.boxes = rank, size, boxes
        self.sent = 0

    def Get_rank(self) -> int:  # noqa: N802  (mpi4py's name)
        return self.rank

    def Get_size(self) -> int:  # noqa: N802  (mpi4py's name)
        return self.size

    def sendrecv(self, sendobj: Any, dest: int, source: int) -> Any:
        payload = np.array(sendobj, copy=True)
        self.sent += payload.size
        self.boxes[self.rank, dest].put(payload)
        return self._receive(source)

    def allreduce(self, sendobj: Any) -> Any:
        mine = np.array(sendobj, copy=True)
        for r in range(self.size):
            if r != self.rank:
                self.boxes[self.rank, r].put(mine)
        parts = {self.rank: mine}
        for r in range(self.size):
            if r != self.rank:
                parts[r] = self._receive(r)
        return sum(parts[r] for r in range(self.size))  # the same order on every rank

    def _receive(self, source: int) -> Any:
        # the next message from rank `source`; a wait ends at once when a rank fails, and never
        # lasts over 30 s (a ring that receives more than its neighbour sends)
        try:
            got = self.boxes[source, self.rank].get(timeout=30)
        except queue.Empty:
            raise TimeoutError(f"rank {self.rank} waited 30 s for rank {source}") from None
        if isinstance(got, RankFailed):
            raise RankFailed(got.rank, got.error)
        return got


def run_ranks(fn: Callable[[Any], Any], world: int) -> list:
    """Ready-made (not an exercise): ``fn(comm)`` on ``world`` ranks (threads of this process),
    each with its ThreadComm; returns the results in rank order. When a rank raises, the others
    stop too, and run_ranks raises RankFailed naming the first rank that failed and its error."""
    boxes = {(a, b): queue.Queue() for a in range(world) for b in range(world)}
    comms = [ThreadComm(r, world, boxes) for r in range(world)]
    results: list = [None] * world
    failures: list[RankFailed] = []

    def body(r: int) -> None:
        try:
            results[r] = fn(comms[r])
        except RankFailed:
            pass  # woken by another rank's failure, which is already recorded
        except BaseException as err:  # noqa: BLE001  (handed to the caller)
            failures.append(RankFailed(r, err))
            for box in boxes.values():  # wakes every rank waiting for a message
                box.put(failures[-1])

    threads = [threading.Thread(target=body, args=(r,)) for r in range(world)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    if failures:
        raise failures[0] from failures[0].error
    return results


def chunks(n: int, world: int) -> list[tuple[int, int]]:
    """Exercise 16.1: cut ``n`` elements into ``world`` consecutive chunks, as equal as can be:
    the first ``n % world`` chunks have one element more. Returns their (start, stop) bounds, in
    order (``np.array_split``'s cut): chunks(10, 3) == [(0, 4), (4, 7), (7, 10)].
    """
    raise NotImplementedError("Exercise 16.1: sizes n // world, the first n % world one longer")


def ring_all_reduce(comm: Any, x: np.ndarray) -> np.ndarray:
    """Exercise 16.2: the sum of every rank's ``x`` (a 1-D array), on every rank, by a ring.

    Rank r sends only to rank r + 1 and receives only from rank r - 1 (modulo N), one chunk
    (``chunks(x.size, N)``) per step, with ``comm.sendrecv(chunk, dest=..., source=...)``
    (keywords: mpi4py's third positional argument is a tag):

    1. reduce-scatter, N - 1 steps: at step s, send chunk (r - s) mod N, receive chunk
       (r - s - 1) mod N and add it into yours; afterwards chunk (r + 1) mod N holds the full sum;
    2. all-gather, N - 1 steps: at step s, send chunk (r + 1 - s) mod N, receive chunk
       (r - s) mod N and keep it (it is complete).

    Each rank sends 2 (N - 1) / N of the array in all, whatever N. Do not change ``x``.
    """
    raise NotImplementedError("Exercise 16.2: N-1 reduce-scatter steps, then N-1 all-gather steps")


def ring_time(nbytes: float, world: int, bandwidth: float, latency: float) -> float:
    """Exercise 16.3: seconds for a ring all-reduce of ``nbytes`` over ``world`` ranks, each link
    moving ``bandwidth`` bytes per second after a fixed ``latency`` per message. Count from your
    16.2: how many steps does the ring take, what does each rank send in one step, and what does
    one message cost? (Every rank sends at once, so a step costs what one message costs. One rank:
    nothing to send, 0 seconds.)
    """
    raise NotImplementedError("Exercise 16.3: count the ring's steps and what one step costs")


def assign_buckets(nbytes: list[int], cap: int) -> list[list[int]]:
    """Exercise 16.4: pack parameters into gradient buckets, as DistributedDataParallel does:
    the parameter indices in REVERSE order (backward produces the last layer's gradients first),
    a bucket closed as soon as its bytes reach ``cap``; the last bucket may be smaller. Returns the
    buckets as lists of indices: assign_buckets([4, 4, 4], 8) == [[2, 1], [0]].
    """
    raise NotImplementedError("Exercise 16.4: walk the indices backwards; close a bucket at cap")


def average_gradients(model: nn.Module, comm: Any) -> None:
    """Exercise 16.5: after ``loss.backward()`` on each rank's own shard, make every parameter's
    ``.grad`` the average over the ranks: ``comm.allreduce(array)`` returns the sum of every
    rank's array; divide by ``comm.Get_size()``; write the result into ``p.grad`` in place
    (``p.grad.copy_(...)``). Parameters without a gradient are left alone.
    """
    raise NotImplementedError("Exercise 16.5: for each p with a grad: sum with allreduce, / N")


def quiz() -> dict[str, str]:
    """Exercise 16.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 3 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 16.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
