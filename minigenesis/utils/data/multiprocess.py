"""The main process's side of multi-process loading (``DataLoader(num_workers=N)``, N > 0).

``MultiProcessIter`` starts N worker processes (``worker.worker_loop``), keeps
``prefetch_factor * N`` tasks in flight (task k goes to the next worker still running, round
robin), and yields the batches in task order: a batch that arrives early waits in
``self._arrived`` until the ones before it have been yielded. With ``in_order=False`` a batch
is yielded as soon as it arrives (a slow batch no longer holds back the ones after it); the
task-order pass then skips the tasks already yielded.

Every wait is bounded. With ``timeout > 0`` a batch that takes longer raises
``RuntimeError("DataLoader timed out ...")``; otherwise the wait is cut into short slices, and
between two slices the workers are checked: one that died (killed, ``os._exit``, out of memory)
raises ``RuntimeError("DataLoader worker (pid ...) exited unexpectedly")`` instead of a hang.
The workers are shut down when the epoch ends, when the iterator is dropped (a ``break`` out of
the loop) and before a fatal error is raised.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
import queue
import threading
import time
from typing import Any

import numpy as np

from ...random import generator_for
from .fetch import pass_length, warn_past_reported_length
from .worker import (
    STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    ResultQueue,
    ResumeIteration,
    StreamEnd,
    worker_loop,
)

__all__ = ["MultiProcessIter", "draw_base_seed"]


def _not_sent(err: Exception, method: str, worker_id: int) -> Exception:
    """A pickling error while starting a 'spawn' or 'forkserver' worker, saying what was
    pickled (the bare "cannot pickle '_thread.lock' object" names none of it); same type."""
    if method == "fork" or type(err) not in (TypeError, AttributeError, pickle.PicklingError):
        return err
    return type(err)(
        f"DataLoader worker {worker_id} could not start: the '{method}' start method sends the "
        f"dataset, collate_fn and worker_init_fn to each worker by pickle, and one of them "
        f"cannot be pickled ({err}); define them at module level and keep locks, open files "
        "and lambdas out of them"
    )


def draw_base_seed(generator: Any) -> int:
    """The workers' base seed: one 63-bit draw from the loader's generator (or the global one),
    so ``mg.manual_seed`` or ``generator=`` makes the workers' random numbers repeat."""
    return int(generator_for(np, generator).integers(0, 2**63))


class MultiProcessIter:
    """One pass over a DataLoader with worker processes (reused across passes when the loader
    has ``persistent_workers=True``)."""

    def __init__(self, loader: Any) -> None:
        if not loader.prefetch_factor > 0:  # none in flight would yield an empty epoch
            raise AssertionError(  # PyTorch's type (an assert there)
                "prefetch_factor must be greater than 0 for loading with workers, got "
                f"prefetch_factor={loader.prefetch_factor}"
            )
        self._loader = loader
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * loader.num_workers
        # timeout=inf, or beyond what a queue can wait (threading.TIMEOUT_MAX, 292 years): wait as
        # long as it takes, as 0 does (a larger one was an OverflowError at the first batch)
        self._timeout = loader.timeout if loader.timeout < threading.TIMEOUT_MAX else 0
        self._persistent = loader.persistent_workers
        self._shutdown = False
        self._pid = os.getpid()  # the workers are this process's children, and only its
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        plan = loader._fetch_plan()
        base_seed = draw_base_seed(loader.generator)
        self._result_queue = ResultQueue(ctx)  # reports a batch that cannot be pickled
        self._done_event = ctx.Event()
        self._index_queues, self._workers = [], []
        try:
            for worker_id in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()  # a dead worker must not block our exit
                self._index_queues.append(index_queue)
                args = (plan, index_queue, self._result_queue, self._done_event, base_seed)
                args += (loader.worker_init_fn, worker_id, self._num_workers)
                w = ctx.Process(target=worker_loop, args=args, daemon=True)
                try:  # may fail: no process left (EAGAIN), arguments spawn cannot pickle
                    w.start()
                except (TypeError, AttributeError, pickle.PicklingError) as err:
                    said = _not_sent(err, ctx.get_start_method(), worker_id)
                    if said is err:
                        raise
                    raise said from err
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()  # the workers already started must not outlive the error
            raise
        self._epoch = 0
        self._start_epoch()

    # --- one epoch ---------------------------------------------------------------------------
    def _start_epoch(self) -> None:
        loader = self._loader
        self._tasks = iter(loader._index_sampler()) if not loader._iterable else itertools.count()
        self._active = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        self._sent = self._received = 0  # task numbers: next to send, next to yield
        self._yielded = 0  # batches handed out this epoch
        self._reported = loader._iterable_len_called  # what len(loader) said before it
        self._owner: dict[int, int] = {}  # task number -> worker, for tasks not yet yielded
        self._arrived: dict[int, Any] = {}  # batches that came before their turn
        for _ in range(self._prefetch):
            self._send_task()

    def _reset(self) -> None:
        """A new epoch on the same (persistent) workers: restart their streams, drop stale
        batches, refill the pipeline."""
        self._epoch += 1
        marker = ResumeIteration(self._epoch)
        for q in self._index_queues:
            q.put(marker)
        acks = 0
        while acks < self._num_workers:
            number, _ = self._get()
            acks += number == marker
        self._start_epoch()

    def _send_task(self) -> None:
        if not any(self._active):
            return
        try:
            index = next(self._tasks)
        except StopIteration:
            return
        worker = next(self._next_worker)
        while not self._active[worker]:
            worker = next(self._next_worker)
        self._index_queues[worker].put((self._sent, index))
        self._owner[self._sent] = worker
        self._sent += 1

    def __iter__(self) -> MultiProcessIter:
        return self

    def __next__(self) -> Any:
        batch = self._next_batch()
        self._yielded += 1
        warn_past_reported_length(self._loader, self._reported, self._yielded)
        return batch

    def _next_batch(self) -> Any:
        while True:
            # skip tasks whose worker's stream ended before answering them
            while self._received < self._sent:
                if self._received not in self._owner:  # yielded out of order (in_order=False)
                    self._received += 1
                    continue
                if self._received in self._arrived or self._active[self._owner[self._received]]:
                    break
                del self._owner[self._received]
                self._received += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if self._received in self._arrived:
                data = self._arrived.pop(self._received)
            else:
                number, data = self._get()
                if isinstance(number, ResumeIteration):
                    continue  # a late ack from a reset; not a batch
                if isinstance(data, StreamEnd):
                    self._active[data.worker_id] = False  # its later tasks are skipped
                    self._send_task()
                    continue
                if number != self._received:
                    if self._loader.in_order:
                        self._arrived[number] = data
                        continue
                    del self._owner[number]  # in_order=False: yield it as it completes
                    self._send_task()
                    if isinstance(data, ExceptionWrapper):
                        data.reraise()
                    return data
            del self._owner[self._received]
            self._received += 1
            self._send_task()
            if isinstance(data, ExceptionWrapper):
                data.reraise()  # the loader may still be iterated on, as in PyTorch
            return data

    def __len__(self) -> int:
        return pass_length(self._loader)

    # --- waiting, bounded ------------------------------------------------------------------
    def _get(self) -> tuple[Any, Any]:
        """The next ``(task number, batch)`` from any worker, within ``timeout`` seconds.

        The wait goes in slices of STATUS_CHECK_INTERVAL, checking between them that every
        worker lives, with a timeout too: a worker that died (a segfault, os._exit) would
        otherwise be noticed only when the whole timeout had passed."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = STATUS_CHECK_INTERVAL
            if deadline is not None:
                wait = min(wait, max(deadline - time.monotonic(), 0.0))
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                self._raise_if_a_worker_died()
            if deadline is not None and time.monotonic() >= deadline:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _raise_if_a_worker_died(self) -> None:
        dead = [w for w in self._workers if not w.is_alive()]
        if dead:
            pids = ", ".join(str(w.pid) for w in dead)
            codes = ", ".join(str(w.exitcode) for w in dead)
            self._shutdown_workers()
            raise RuntimeError(
                f"DataLoader worker (pid(s) {pids}) exited unexpectedly (exit code(s) {codes})"
            )

    # --- cleanup -----------------------------------------------------------------------------
    def _shutdown_workers(self) -> None:
        """Stop every worker and release the queues; safe to call twice. Each join is bounded:
        a worker that does not stop in time is terminated."""
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()
        for q in self._index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):  # the queue is already closed
                pass
        for w in self._workers:
            w.join(timeout=5 * STATUS_CHECK_INTERVAL)
            if w.is_alive():
                w.terminate()
                w.join(timeout=5 * STATUS_CHECK_INTERVAL)
        for q in [*self._index_queues, self._result_queue]:
            q.cancel_join_thread()
            q.close()
        if self._loader._iterator is self:
            self._loader._iterator = None

    def __del__(self) -> None:
        # A forked process (another loader's worker) holds a copy of this object; when it
        # collects the copy it must not stop the workers (it shares their done event and queues)
        if getattr(self, "_pid", None) != os.getpid():
            return
        if getattr(self, "_workers", None) is not None and not getattr(self, "_shutdown", True):
            self._shutdown_workers()
