"""DataLoader workers meeting what cannot cross a process boundary: a batch or an exception
that cannot be pickled must come back as that batch's error (it was dropped by the queue's
feeder thread, and the main process waited for it forever), and a forked copy of a loader's
iterator must not stop the workers of the original. Each loader has a ``timeout`` so that a
regression fails in seconds instead of hanging the suite."""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
import time

import pytest

from minigenesis.utils.data import DataLoader, Dataset

FORK = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() \
    else None  # fmt: skip


class Numbers(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> int:
        return i


def lock_in_batch_one(samples: list) -> object:
    """A collate_fn whose second batch holds a lock (which pickle refuses)."""
    return threading.Lock() if 2 in samples else list(samples)


class RaisesALocalClass(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> int:
        if i == 1:

            class LocalError(Exception):  # defined in a function: pickle cannot name it
                pass

            raise LocalError(f"sample {i} is corrupt")
        return i


class StopsAtThree(Dataset):
    """A map-style dataset that (wrongly) signals a bad sample with StopIteration."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> int:
        if i == 3:
            raise StopIteration
        return i


@pytest.mark.parametrize("num_workers", [0, 2])
def test_stop_iteration_from_a_map_dataset_is_an_error_not_a_silently_shorter_pass(num_workers):
    """In a worker, StopIteration read as the end of that worker's share: its later batches
    were skipped and the pass yielded 6 of 8 samples without a word."""
    loader = DataLoader(StopsAtThree(), batch_size=1, num_workers=num_workers, timeout=10)
    it = iter(loader)
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(RuntimeError, match=r"StopsAtThree raised StopIteration while fetching "
                       r"indices \[3\]: a map-style dataset has no end"):  # fmt: skip
        next(it)
    assert [int(b) for b in it] == [4, 5, 6, 7]  # the loader goes on after a sample's error


class CorruptSampleTwo(Dataset):
    def __len__(self) -> int:
        return 5

    def __getitem__(self, i: int) -> int:
        if i == 2:
            raise ValueError(f"sample {i} is corrupt")
        return i


def test_without_workers_the_loader_goes_on_after_a_samples_error_as_pytorchs_does():
    """The in-process pass was a generator, which an exception finishes: the batches after a
    corrupt sample were lost (next() raised StopIteration)."""
    it = iter(DataLoader(CorruptSampleTwo(), batch_size=1))
    assert [int(next(it)), int(next(it))] == [0, 1]
    with pytest.raises(ValueError, match="sample 2 is corrupt"):
        next(it)
    assert [int(b) for b in it] == [3, 4]


def test_a_batch_that_cannot_be_pickled_is_that_batchs_error_and_the_loader_goes_on():
    loader = DataLoader(Numbers(), batch_size=2, num_workers=2, collate_fn=lock_in_batch_one,
                        timeout=10)  # fmt: skip
    it = iter(loader)
    start = time.monotonic()
    assert next(it) == [0, 1]
    with pytest.raises(RuntimeError, match="could not be sent from the DataLoader worker to the "
                       "main process: .*lock.*a batch must be picklable"):  # fmt: skip
        next(it)
    assert [next(it), next(it)] == [[4, 5], [6, 7]]
    with pytest.raises(StopIteration):
        next(it)
    assert time.monotonic() - start < 5


def test_an_exception_whose_class_cannot_be_pickled_is_raised_as_runtime_error():
    loader = DataLoader(RaisesALocalClass(), batch_size=1, num_workers=2, timeout=10)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="Caught RuntimeError in DataLoader worker process 1") \
            as info:  # fmt: skip
        list(loader)
    assert "LocalError: sample 1 is corrupt" in str(info.value)
    assert time.monotonic() - start < 5
    del info
    gc.collect()


@pytest.mark.skipif(FORK is None, reason="needs the fork start method")
def test_a_forked_copy_of_an_iterator_leaves_the_original_workers_running():
    """A process forked while a loader is being iterated (another loader's worker, a
    subprocess) holds a copy of the iterator; collecting that copy must not shut down the
    parent's workers, which the copy can reach through the shared event and queues."""
    loader = DataLoader(Numbers(), batch_size=1, num_workers=2, persistent_workers=True,
                        multiprocessing_context=FORK, timeout=10)  # fmt: skip
    it = iter(loader)
    assert next(it) == 0
    pid = os.fork()
    if pid == 0:  # the child: drop its copies and collect them, then leave without cleanup
        try:
            del it, loader
            gc.collect()
        finally:
            os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    time.sleep(0.5)  # a stop signal sent by the child would have reached the workers by now
    assert [int(next(it)) for _ in range(7)] == list(range(1, 8))
    assert [int(b) for b in loader] == list(range(8))  # a second epoch on the same workers
    del it, loader
    gc.collect()


class DiesAtOne(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> int:
        if i == 1:
            os._exit(3)  # as a segfault or the OOM killer would end it: no exception, no reply
        return i


def test_a_worker_that_dies_is_noticed_at_once_even_with_a_long_timeout():
    """With timeout= set, the wait was one queue.get of the whole timeout: a dead worker was
    noticed only when it had passed (here 60 s). The wait now checks the workers every 0.2 s."""
    loader = DataLoader(DiesAtOne(), batch_size=1, num_workers=2, timeout=60)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                       r"unexpectedly \(exit code\(s\) 3\)"):  # fmt: skip
        list(loader)
    assert time.monotonic() - start < 10


class HoldsALock(Dataset):
    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> int:
        return i


def test_a_dataset_spawn_cannot_pickle_is_named_as_what_the_workers_are_sent():
    """The bare "cannot pickle '_thread.lock' object" did not say that the dataset is what the
    'spawn' start method pickles for each worker."""
    before = len(multiprocessing.active_children())
    loader = DataLoader(HoldsALock(), num_workers=1, multiprocessing_context="spawn", timeout=10)
    with pytest.raises(TypeError, match=r"DataLoader worker 0 could not start: the 'spawn' start "
                       r"method sends the dataset, collate_fn and worker_init_fn to each worker by "
                       r"pickle, and one of them cannot be pickled \(cannot pickle "
                       r"'_thread.lock' object\)"):  # fmt: skip
        iter(loader)
    assert len(multiprocessing.active_children()) == before


@pytest.mark.parametrize("timeout", [-1.0, float("nan")])
def test_a_negative_or_nan_timeout_is_refused_by_name(timeout):
    with pytest.raises(ValueError, match="timeout option should be non-negative, got timeout="):
        DataLoader(Numbers(), num_workers=1, timeout=timeout)


@pytest.mark.parametrize("timeout", [float("inf"), 1e300, 1e10])
def test_an_infinite_timeout_waits_as_long_as_it_takes(timeout):
    """queue.get(timeout=inf) raises OverflowError, and so does any timeout past
    threading.TIMEOUT_MAX (292 years); they mean what 0 means: no deadline."""
    loader = DataLoader(Numbers(), batch_size=4, num_workers=1, timeout=timeout)
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]]
