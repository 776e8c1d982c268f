"""DataLoader(num_workers=N): the batches of the single-process loader, in order; worker
sharding through get_worker_info; seeding; errors carried from the workers with their tracebacks;
every wait bounded (a dead worker, an expired timeout); the workers stopped after an epoch, a
``break`` or an error. The oracle is the same loader with ``num_workers=0``, or a closed form."""

from __future__ import annotations

import gc
import multiprocessing
import os
import random
import time

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.utils.data import (
    DataLoader,
    Dataset,
    IterableDataset,
    TensorDataset,
    get_worker_info,
)


@pytest.fixture
def no_children_left():
    """A check that every child process this test started has stopped (a bounded wait)."""
    before = {p.pid for p in multiprocessing.active_children()}

    def check(wait_s: float = 3.0) -> bool:
        deadline = time.monotonic() + wait_s
        while {p.pid for p in multiprocessing.active_children()} - before:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    return check


def _flat(batches) -> list[int]:
    return [int(v) for b in batches for v in mg.as_tensor(b).reshape(-1).tolist()]


class Pids(Dataset):
    """Sample i is (i, the pid of the process that read it)."""

    def __init__(self, n: int = 12, sleep_first: float = 0.0) -> None:
        self.n, self.sleep_first = n, sleep_first

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        if i < 2:
            time.sleep(self.sleep_first)  # early batches come back last
        return i, os.getpid()


class Shards(IterableDataset):
    """range(n), each worker taking every num_workers-th value from its id."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


class Raises(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int):
        if i == 5:
            raise ValueError(f"sample {i} is corrupt")
        return i


class Dies(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int):
        if i == 3:
            os._exit(7)
        return i


class Sleeps(Dataset):
    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int):
        time.sleep(1.0)
        return i


class Draws(Dataset):
    """Each sample draws from Python's, NumPy's and minigenesis's generators."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int):
        return [random.random(), float(np.random.rand()), mg.rand(1).item()]


def test_map_dataset_batches_in_order_even_when_early_ones_are_slow():
    ds = TensorDataset(mg.arange(30.0).reshape(10, 3), mg.arange(10))
    serial = [[t.tolist() for t in b] for b in DataLoader(ds, batch_size=3)]
    parallel = [[t.tolist() for t in b] for b in DataLoader(ds, batch_size=3, num_workers=2)]
    assert parallel == serial
    ids = [int(i) for b in DataLoader(Pids(sleep_first=0.2), batch_size=1, num_workers=3)
           for i in b[0].tolist()]  # fmt: skip
    assert ids == list(range(12))


def test_samples_are_read_in_the_workers(no_children_left):
    pids = {int(p) for _, ps in DataLoader(Pids(), batch_size=2, num_workers=2) for p in ps}
    assert len(pids) == 2 and os.getpid() not in pids
    assert no_children_left()


def test_shuffled_loader_with_workers_covers_the_dataset_and_repeats_with_a_generator():
    serial = DataLoader(TensorDataset(mg.arange(23)), batch_size=4, shuffle=True,
                        generator=mg.Generator().manual_seed(3))  # fmt: skip
    serial = _flat(b[0] for b in serial)
    ds = TensorDataset(mg.arange(23))

    def epoch(seed):
        loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=2,
                            generator=mg.Generator().manual_seed(seed))  # fmt: skip
        return _flat(b[0] for b in loader)

    first = epoch(3)
    assert sorted(first) == list(range(23)) and first != list(range(23))
    assert epoch(3) == first and epoch(4) != first
    assert first == serial  # num_workers does not change a seeded order


@pytest.mark.parametrize("num_workers", [1, 2, 3])
@pytest.mark.parametrize("batch_size, drop_last", [(None, False), (2, False), (3, True)])
def test_iterable_dataset_sharded_by_worker_info(num_workers, batch_size, drop_last):
    loader = DataLoader(Shards(11), batch_size=batch_size, drop_last=drop_last,
                        num_workers=num_workers)  # fmt: skip
    batches = [_flat([b]) for b in loader]
    # closed form: worker w yields range(w, 11, N) in chunks, the workers taking turns
    shares = [list(range(w, 11, num_workers)) for w in range(num_workers)]
    size = batch_size or 1
    chunks = [[s[i : i + size] for i in range(0, len(s), size)] for s in shares]
    chunks = [[c for c in cs if len(c) == size or not drop_last] for cs in chunks]
    expected = [cs[k] for k in range(max(map(len, chunks))) for cs in chunks if k < len(cs)]
    assert batches == expected
    assert get_worker_info() is None


def test_worker_init_fn_and_worker_info_in_each_worker():
    seen = []

    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id and info.num_workers == 2
        os.environ["MG_TEST_INIT"] = f"{worker_id}:{info.seed}"

    class Env(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = get_worker_info()
            same = info.dataset is self and info.seed == mg.initial_seed()
            return os.environ["MG_TEST_INIT"], f"{info.id}:{info.seed}", same

    for env, info, same in DataLoader(Env(), batch_size=None, num_workers=2, worker_init_fn=init):
        seen.append((env, info, same))
    assert [s[0] for s in seen] == [s[1] for s in seen] and all(s[2] for s in seen)
    ids = [s[0].split(":")[0] for s in seen]
    seeds = {s[0].split(":")[1] for s in seen}
    assert ids == ["0", "1", "0", "1"] and len(seeds) == 2  # seed = base_seed + id


def test_workers_are_seeded_differently_and_repeatably():
    def draws():
        mg.manual_seed(11)
        return [b for b in DataLoader(Draws(), batch_size=None, num_workers=2)]

    a, b = draws(), draws()
    assert a == b  # the base seed comes from the seeded global generator
    assert a[0] != a[1]  # worker 0 and worker 1 draw different numbers in every generator
    assert all(x != y for x, y in zip(a[0], a[1]))


def test_a_worker_exception_is_raised_with_the_worker_traceback_and_nothing_hangs(no_children_left):
    start = time.monotonic()
    with pytest.raises(ValueError) as info:
        list(DataLoader(Raises(), batch_size=2, num_workers=2))
    msg = str(info.value)
    assert "Caught ValueError in DataLoader worker process 0" in msg
    assert "in __getitem__" in msg and "sample 5 is corrupt" in msg
    del info
    gc.collect()  # the traceback held the iterator in a reference cycle
    assert no_children_left() and time.monotonic() - start < 5


def test_the_loader_goes_on_after_a_worker_exception():
    it = iter(DataLoader(Raises(), batch_size=2, num_workers=2))
    got = [next(it).tolist(), next(it).tolist()]
    with pytest.raises(ValueError):
        next(it)
    got.append(next(it).tolist())
    with pytest.raises(StopIteration):
        next(it)
    assert got == [[0, 1], [2, 3], [6, 7]]


def test_a_worker_that_dies_raises_instead_of_hanging(no_children_left):
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"exited unexpectedly \(exit code\(s\) 7\)"):
        list(DataLoader(Dies(), batch_size=1, num_workers=2))
    assert time.monotonic() - start < 5
    assert no_children_left()


def test_an_expired_timeout_raises(no_children_left):
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out after 0.2 seconds"):
        list(DataLoader(Sleeps(), num_workers=1, timeout=0.2))
    assert time.monotonic() - start < 5
    assert no_children_left()


def test_breaking_out_of_the_loop_stops_the_workers(no_children_left):
    for _ in DataLoader(Pids(40), batch_size=2, num_workers=3):
        break
    assert no_children_left()


def test_persistent_workers_serve_every_epoch_and_stop_with_the_loader(no_children_left):
    loader = DataLoader(Pids(9), batch_size=2, num_workers=2, persistent_workers=True)
    epochs = [[(int(i), int(p)) for b in loader for i, p in zip(*b)] for _ in range(3)]
    for _ in loader:  # an epoch left early: the next one still starts from the beginning
        break
    epochs.append([(int(i), int(p)) for b in loader for i, p in zip(*b)])
    assert all([i for i, _ in e] == list(range(9)) for e in epochs)
    assert len({p for e in epochs for _, p in e}) == 2  # the same two processes throughout
    shuffled = DataLoader(Pids(9), batch_size=2, shuffle=True, num_workers=2,
                          persistent_workers=True,
                          multiprocessing_context=multiprocessing.get_context("fork"))  # fmt: skip
    orders = [[int(i) for b in shuffled for i in b[0]] for _ in range(2)]
    assert orders[0] != orders[1] and sorted(orders[0]) == sorted(orders[1]) == list(range(9))
    stream = DataLoader(Shards(7), batch_size=2, num_workers=2, persistent_workers=True)
    assert [_flat(stream) for _ in range(2)] == [[0, 2, 1, 3, 4, 6, 5]] * 2
    del loader, stream, shuffled
    gc.collect()
    assert no_children_left()


def test_len_of_a_loader_over_an_iterable_dataset():
    assert len(DataLoader(Shards(10), batch_size=3)) == 4
    assert len(DataLoader(Shards(10), batch_size=3, drop_last=True)) == 3
    assert len(DataLoader(Shards(10), batch_size=None)) == 10

    class NoLen(IterableDataset):
        def __iter__(self):
            return iter(range(3))

    with pytest.raises(TypeError):
        len(DataLoader(NoLen()))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(num_workers=-1), ValueError, "num_workers"),
        (dict(timeout=-1), ValueError, "timeout"),
        (dict(persistent_workers=True), ValueError, "persistent_workers"),
        (dict(prefetch_factor=2), ValueError, "prefetch_factor"),
        (dict(num_workers=1, prefetch_factor=-1), ValueError, "prefetch_factor"),
        (dict(multiprocessing_context="fork"), ValueError, "multiprocessing_context"),
        (dict(num_workers=1, multiprocessing_context="nope"), ValueError, "start method"),
        (dict(num_workers=1, multiprocessing_context=3), TypeError, "context"),
        (dict(batch_size=None, drop_last=True), ValueError, "drop_last"),
        (dict(batch_size=True), ValueError, "batch_size"),
        (dict(batchsize=4), TypeError, "batchsize"),
    ],
)
def test_bad_worker_and_batching_options_raise(kwargs, error, match):
    with pytest.raises(error, match=match):
        DataLoader(TensorDataset(mg.arange(4)), **kwargs)


def test_zero_prefetch_with_workers_raises_instead_of_an_empty_epoch():
    loader = DataLoader(TensorDataset(mg.arange(4)), num_workers=1, prefetch_factor=0)
    with pytest.raises(AssertionError, match="prefetch_factor"):
        iter(loader)


def test_batch_sampler_with_an_empty_sampler_is_still_exclusive():
    class Empty:
        def __iter__(self):
            return iter([])

        def __len__(self):
            return 0

    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(TensorDataset(mg.arange(4)), batch_sampler=[[0]], sampler=Empty())


SWEEP = [(None, False, False), (1, False, True), (3, False, False), (4, True, True)]


def _serial_and_parallel(num_workers, batch_size, drop_last, shuffle, context="fork"):
    ds = TensorDataset(mg.arange(26.0).reshape(13, 2), mg.arange(13))

    def run(workers):
        options = dict(batch_size=batch_size, drop_last=drop_last, shuffle=shuffle)
        options["generator"] = mg.Generator().manual_seed(1)
        if workers:
            options.update(num_workers=workers, multiprocessing_context=context, prefetch_factor=1)
        return [[t.tolist() for t in b] for b in DataLoader(ds, **options)]

    return run(0), run(num_workers)


@pytest.mark.slow
@pytest.mark.parametrize("num_workers", [1, 2, 4])
@pytest.mark.parametrize("batch_size, drop_last, shuffle", SWEEP)
def test_workers_match_the_single_process_loader_sweep(
    num_workers, batch_size, drop_last, shuffle, no_children_left
):
    serial, parallel = _serial_and_parallel(num_workers, batch_size, drop_last, shuffle)
    assert parallel == serial  # shuffled too: the same draws from the generator
    assert no_children_left()


@pytest.mark.slow
def test_spawned_workers_match_the_single_process_loader(no_children_left):
    serial, parallel = _serial_and_parallel(2, 3, False, True, context="spawn")
    assert parallel == serial
    assert no_children_left()


def test_in_order_false_yields_batches_as_they_complete(no_children_left):
    # sample 0 sleeps: with in_order=False the batches after it come first, and every sample
    # still comes exactly once; in_order=True (the default) keeps the sampler's order
    loader = DataLoader(Pids(sleep_first=0.5), batch_size=1, num_workers=3, in_order=False)
    ids = [int(i) for b in loader for i in b[0].tolist()]
    assert sorted(ids) == list(range(12))
    assert ids[0] != 0 and ids.index(0) > 0
