"""What runs inside a DataLoader worker process (``torch.utils.data._utils.worker``).

With ``num_workers=N > 0`` the DataLoader starts N processes. Each one loops: take a task from
its own index queue (a batch's indices, or "the next batch" for an IterableDataset), fetch and
collate that batch, and put ``(task number, batch)`` on the shared result queue. The main process
hands out tasks round robin and puts the batches back in task order.

A worker never lets an exception escape: it sends an ``ExceptionWrapper`` with the formatted
traceback instead, and the main process raises it there (same type, the worker's traceback in the
message). A batch or an exception that cannot be pickled is reported the same way
(``ResultQueue``), never dropped. A worker also exits by itself when the main process is gone, so
nothing is left behind: between tasks it checks, and a watch thread (``_exit_with_parent``) ends
it within STATUS_CHECK_INTERVAL even while a slow or hung ``__getitem__`` runs.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
import os
import pickle
import queue
import random
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...random import manual_seed
from .fetch import FetchPlan, fetch_map, fetch_stream

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper"]

# How often (seconds) a waiting worker checks that the main process still lives, and a waiting
# main process that its workers do: the longest a death goes unnoticed.
STATUS_CHECK_INTERVAL = 0.2


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: its ``id`` (0..num_workers-1), how many
    there are, the ``seed`` its random generators were seeded with (``base_seed + id``) and its
    own copy of the ``dataset`` (an IterableDataset reads ``id`` to take its share)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current DataLoader worker's ``WorkerInfo``, or None in the main process.

    An IterableDataset's ``__iter__`` uses it to split the stream, so that N workers do not each
    yield the whole of it::

        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, n, step))
    """
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process as its type and formatted
    traceback (tracebacks themselves cannot be pickled), and raised there by ``reraise``."""

    def __init__(self, where: str) -> None:
        exc_type, exc, _ = sys.exc_info()
        self.message = "".join(traceback.format_exception(exc))
        try:  # the type travels by name: a class defined inside a function has none
            pickle.dumps(exc_type)
        except Exception:
            exc_type = RuntimeError  # the message still names the original type
        self.exc_type = exc_type
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.message}"
        if self.exc_type is KeyError:  # KeyError would print the message as a repr'd key
            msg = KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # an exception type whose constructor wants other arguments
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # The raised exception's traceback holds this frame; were ``exception`` still a
            # local here, the two would form a cycle, and the frames above (the loader's
            # iterator, its worker processes) would live until the garbage collector runs,
            # which then stops the workers at a random moment and mid-teardown.
            del exception


class KeyErrorMessage(str):
    """A str whose repr is itself, so a KeyError shows the traceback readably."""

    def __repr__(self) -> str:
        return self


class ResultQueue(multiprocessing.queues.Queue):
    """The workers' result queue. ``put`` pickles in a background thread, and where pickling
    fails (a lock, a generator or an open file in the batch) multiprocessing only prints the
    error and drops the item: the main process would then wait for that batch forever. Here the
    failure is sent in its place, as that task's error."""

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx=ctx)

    def _on_queue_feeder_error(self, e: Exception, obj: Any) -> None:
        number = obj[0] if type(obj) is tuple and len(obj) == 2 else None
        worker = f"process {_worker_info.id}" if _worker_info is not None else "process"
        try:
            raise RuntimeError(
                f"a batch could not be sent from the DataLoader worker to the main process: "
                f"{type(e).__name__}: {e} (a batch must be picklable: tensors, arrays, numbers, "
                "strings and containers of them)"
            ) from e
        except RuntimeError:
            self.put((number, ExceptionWrapper(f"in DataLoader worker {worker}")))


@dataclass(frozen=True)
class StreamEnd:
    """A worker's answer when its IterableDataset share is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Sent to persistent workers when a new epoch starts: restart the stream, then ack."""

    epoch: int


def _seed_everything(seed: int, worker_id: int) -> None:
    """Seed Python's, NumPy's global and minigenesis's generators, so that workers draw
    different numbers (not N copies of the parent's stream) and a seeded run repeats."""
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, seed]).generate_state(4))


def _exit_with_parent() -> None:
    """End this worker at once when the process that started it is gone (killed, crashed):
    the loop below checks only between tasks, and a worker inside a slow or hung sample would
    otherwise outlive it by that long, or for ever. The parent's death shows as a new parent
    (the process is re-parented), which a daemon thread polls. Not PR_SET_PDEATHSIG: that fires
    when the parent *thread* ends, and a loader may be iterated by a thread that outlives the
    one that started its workers."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(STATUS_CHECK_INTERVAL)
        os._exit(0)  # nobody is left to read what this worker would send

    threading.Thread(target=watch, name="dataloader-parent-watch", daemon=True).start()


def worker_loop(
    plan: FetchPlan,
    index_queue: Any,
    result_queue: Any,
    done_event: Any,
    base_seed: int,
    init_fn: Callable[[int], None] | None,
    worker_id: int,
    num_workers: int,
) -> None:
    """The body of worker ``worker_id``: answer tasks until told to stop (None) or orphaned."""
    global _worker_info
    _exit_with_parent()
    seed = (base_seed + worker_id) % 2**64
    _seed_everything(seed, worker_id)
    _worker_info = WorkerInfo(
        id=worker_id, num_workers=num_workers, seed=seed, dataset=plan.dataset
    )
    where = f"in DataLoader worker process {worker_id}"
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        stream = iter(plan.dataset) if plan.iterable else None
    except Exception:
        init_error = ExceptionWrapper(where)  # reported with the first task
    parent = multiprocessing.parent_process()
    exhausted = False
    try:
        while True:
            try:
                task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if done_event.is_set() or (parent is not None and not parent.is_alive()):
                    return
                continue
            if task is None or done_event.is_set():  # stop; answer nothing more
                return
            if isinstance(task, ResumeIteration):
                if plan.iterable and init_error is None:
                    stream, exhausted = iter(plan.dataset), False
                result_queue.put((task, None))
                continue
            number, index = task
            if init_error is not None:
                data, init_error = init_error, None
            elif exhausted:
                data = StreamEnd(worker_id)
            else:
                try:
                    data = fetch_stream(plan, stream) if plan.iterable else fetch_map(plan, index)
                except StopIteration:
                    data, exhausted = StreamEnd(worker_id), True
                except Exception:
                    data = ExceptionWrapper(where)
            result_queue.put((number, data))
            del data, index, task  # do not hold the last batch while waiting
    except KeyboardInterrupt:
        pass  # the main process handles Ctrl-C and shuts the workers down
    finally:
        if done_event.is_set():  # exit now, without flushing batches nobody will read
            result_queue.cancel_join_thread()
        result_queue.close()
