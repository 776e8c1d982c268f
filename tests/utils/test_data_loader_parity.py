"""The data-loading layer run side by side with PyTorch's ``torch.utils.data``: the same program
on both, the same lengths, batch sizes, batch structures, dtypes, worker sharding and errors.

Shuffled orders are not compared index for index (minigenesis draws from its own PCG64 stream,
not PyTorch's Philox/MT one): for them the sizes, coverage and determinism are compared instead.
"""

from __future__ import annotations

import gc
import os
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.utils.data as tdata  # noqa: E402

import minigenesis as mg  # noqa: E402
import minigenesis.utils.data as mdata  # noqa: E402

LIBS = {"mg": (mg, mdata), "torch": (torch, tdata)}
Pair = namedtuple("Pair", "a b")


def canon(x):
    """A library-neutral picture of a batch: containers by type, tensors by dtype/shape/values."""
    if isinstance(x, mg.Tensor | torch.Tensor):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: canon(v) for k, v in x.items()})
    if isinstance(x, tuple | list):
        return (type(x).__name__, [canon(v) for v in x])
    if isinstance(x, int | float | str | bytes | bool | type(None)):
        return (type(x).__name__, x)
    return (type(x).__name__,)  # another object: its type only


def both(program):
    """Run ``program(lib, data)`` with each library; return {name: result or exception type}."""
    out = {}
    for name, (lib, data) in LIBS.items():
        try:
            out[name] = program(lib, data)
        except Exception as e:  # the type is what is compared
            out[name] = type(e)
    return out


def assert_same(program):
    out = both(program)
    assert out["mg"] == out["torch"], out
    return out["mg"]


def squares(lib, data, n):
    class Squares(data.Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            return {"x": lib.tensor([i, i * i], dtype=lib.float32), "i": i, "s": f"n{i}"}

    return Squares()


def sharded_stream(data, n, with_len=True, shard=True):
    class Stream(data.IterableDataset):
        def __iter__(self):
            info = data.get_worker_info()
            start, step = (0, 1) if info is None or not shard else (info.id, info.num_workers)
            return iter(range(start, n, step))

    if with_len:
        Stream.__len__ = lambda self: n
    return Stream()


# --- lengths and batch sizes in every mode ----------------------------------------------------
@pytest.mark.parametrize("n", [1, 7, 12])
@pytest.mark.parametrize("batch_size", [None, 1, 5, 12, 13])
@pytest.mark.parametrize("drop_last", [False, True])
def test_len_and_batches_of_a_map_dataset_match(n, batch_size, drop_last):
    def program(lib, data):
        loader = data.DataLoader(squares(lib, data, n), batch_size=batch_size, drop_last=drop_last)
        return len(loader), [canon(b) for b in loader]

    assert_same(program)


@pytest.mark.parametrize("batch_size", [None, 3, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_shuffled_loader_has_the_same_batch_sizes_and_covers_the_dataset(batch_size, drop_last):
    def program(lib, data):
        lib.manual_seed(0)
        ds = data.TensorDataset(lib.arange(10))
        loader = data.DataLoader(ds, batch_size=batch_size, shuffle=True, drop_last=drop_last)
        batches = [b[0].reshape(-1).tolist() for b in loader]
        return len(loader), [len(b) for b in batches], len({i for b in batches for i in b})

    assert_same(program)


@pytest.mark.parametrize("batch_size", [None, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_len_of_an_iterable_dataset_with_len(batch_size, drop_last):
    if batch_size is None and drop_last:
        pytest.skip("batch_size=None excludes drop_last")

    def program(lib, data):
        loader = data.DataLoader(
            sharded_stream(data, 10), batch_size=batch_size, drop_last=drop_last
        )
        return len(loader), [canon(b) for b in loader]

    assert_same(program)


def test_len_of_an_iterable_dataset_without_len_is_a_type_error():
    out = assert_same(lambda lib, data: len(data.DataLoader(sharded_stream(data, 4, False))))
    assert out is TypeError


@pytest.mark.parametrize("sampler_kind", ["batch_sampler", "sampler"])
def test_len_with_a_custom_sampler_or_batch_sampler(sampler_kind):
    def program(lib, data):
        ds = data.TensorDataset(lib.arange(9))
        if sampler_kind == "sampler":
            loader = data.DataLoader(ds, batch_size=2, sampler=data.SequentialSampler(range(5)))
        else:
            bs = data.BatchSampler(data.SequentialSampler(range(9)), 4, drop_last=True)
            loader = data.DataLoader(ds, batch_sampler=bs)
        return len(loader), [canon(b) for b in loader]

    assert_same(program)


# --- workers -----------------------------------------------------------------------------------
@pytest.mark.parametrize("num_workers", [1, 2])
@pytest.mark.parametrize("batch_size", [None, 3])
def test_iterable_dataset_sharded_by_worker_info_gives_the_same_stream(num_workers, batch_size):
    def program(lib, data):
        loader = data.DataLoader(sharded_stream(data, 11), batch_size=batch_size,
                                 num_workers=num_workers)  # fmt: skip
        return [canon(b) for b in loader]

    assert_same(program)


def test_an_unsharded_iterable_dataset_is_read_once_per_worker():
    def program(lib, data):
        loader = data.DataLoader(sharded_stream(data, 5, shard=False), batch_size=2, num_workers=2)
        return [canon(b) for b in loader]

    assert_same(program)


def test_map_dataset_with_workers_gives_the_batches_in_order():
    def program(lib, data):
        loader = data.DataLoader(squares(lib, data, 11), batch_size=3, num_workers=2)
        return len(loader), [canon(b) for b in loader]

    assert_same(program)


def test_worker_info_and_worker_init_fn_in_each_worker():
    def program(lib, data):
        class WhoAmI(data.Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, i):
                info = data.get_worker_info()
                return [info.id, info.num_workers, int(os.environ["INIT_ID"])]

        def init(worker_id):
            os.environ["INIT_ID"] = str(worker_id)

        loader = data.DataLoader(WhoAmI(), batch_size=1, num_workers=2, worker_init_fn=init)
        return [canon(b) for b in loader], data.get_worker_info()

    assert_same(program)


def _raiser(data):
    class Raiser(data.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            if i == 4:
                raise KeyError(f"no sample {i}")
            return i

    return Raiser()


@pytest.mark.slow  # PyTorch takes 5 s per worker to stop them after a worker's error
def test_a_worker_exception_is_raised_in_the_main_process_with_its_traceback():
    messages = {}
    for name, (_, data) in LIBS.items():
        with pytest.raises(KeyError) as info:
            list(data.DataLoader(_raiser(data), batch_size=2, num_workers=1))
        messages[name] = str(info.value)
        del info
        gc.collect()  # stop the workers here, not in a later test
    for msg in messages.values():
        assert "Caught KeyError in DataLoader worker process 0" in msg
        assert "__getitem__" in msg and "no sample 4" in msg


def _next_or_error(it):
    try:
        return canon(next(it))
    except StopIteration:
        return "stop"
    except Exception as e:  # the type and the first line of the message are compared
        return type(e).__name__, str(e).splitlines()[0]


def test_errors_in_worker_init_and_mid_stream_then_the_loader_goes_on():
    def program(lib, data):
        def init(worker_id):
            if worker_id == 1:
                raise OSError("no disk for worker 1")

        ds = data.TensorDataset(lib.arange(10))
        it = iter(data.DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=init))
        out = [_next_or_error(it) for _ in range(3)]

        class Records(data.IterableDataset):
            def __iter__(self):
                info = data.get_worker_info()
                for k in range(4):
                    if k == 2 and info.id == 0:
                        raise ValueError("bad record")
                    yield k * 10 + info.id

        it = iter(data.DataLoader(Records(), batch_size=None, num_workers=2))
        return out + [_next_or_error(it) for _ in range(8)]

    out = assert_same(program)
    assert ("ValueError", "Caught ValueError in DataLoader worker process 0.") in out


@pytest.mark.slow  # PyTorch's worker finishes its sleep before it is joined
def test_an_expired_timeout_raises_runtime_error():
    def program(lib, data):
        class Slow(data.Dataset):
            def __len__(self):
                return 2

            def __getitem__(self, i):
                import time

                time.sleep(1)
                return i

        return list(data.DataLoader(Slow(), num_workers=1, timeout=0.3))

    assert assert_same(program) is RuntimeError


@pytest.mark.slow  # PyTorch notices a dead worker at its 5 s status check
def test_a_worker_that_dies_raises_runtime_error():
    def program(lib, data):
        class Dies(data.Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, i):
                os._exit(3)

        return list(data.DataLoader(Dies(), num_workers=1))

    assert assert_same(program) is RuntimeError


# --- bad arguments: the same exception type ----------------------------------------------------
BAD_LOADERS = {
    "batch_size=0": dict(batch_size=0),
    "batch_size=-1": dict(batch_size=-1),
    "sampler and shuffle": dict(shuffle=True, sampler=[0, 1]),
    "batch_sampler and batch_size": dict(batch_sampler=[[0]], batch_size=2),
    "batch_sampler and drop_last": dict(batch_sampler=[[0]], drop_last=True),
    "batch_sampler and shuffle": dict(batch_sampler=[[0]], shuffle=True),
    "batch_size None and drop_last": dict(batch_size=None, drop_last=True),
    "negative num_workers": dict(num_workers=-1),
    "negative timeout": dict(timeout=-1),
    "persistent without workers": dict(persistent_workers=True),
    "prefetch without workers": dict(prefetch_factor=2),
    "context without workers": dict(multiprocessing_context="fork"),
    "unknown start method": dict(num_workers=1, multiprocessing_context="nope"),
    "unknown keyword": dict(batchsize=4),
}


@pytest.mark.parametrize("kwargs", BAD_LOADERS.values(), ids=BAD_LOADERS.keys())
def test_bad_loader_arguments_raise_the_same_type(kwargs):
    out = assert_same(
        lambda lib, data: data.DataLoader(data.TensorDataset(lib.arange(4)), **kwargs)
    )
    assert isinstance(out, type) and issubclass(out, Exception)


@pytest.mark.parametrize(
    "kwargs", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])]
)
def test_an_iterable_dataset_refuses_sampling(kwargs):
    out = assert_same(lambda lib, data: data.DataLoader(sharded_stream(data, 3), **kwargs))
    assert out is ValueError


# --- default_collate and default_convert -------------------------------------------------------
def _samples(lib):
    t = lib.tensor
    return {
        "ints": [1, 2, 3],
        "floats": [0.5, 1.5],
        "bools": [True, False],
        "int then float": [1, 2.5],
        "strings": ["a", "b"],
        "bytes": [b"a", b"b"],
        "tensors": [t([1.0, 2.0]), t([3.0, 4.0])],
        "0-d tensors": [t(1), t(2)],
        "int and float tensors": [t([1]), t([2.5])],
        "numpy arrays": [np.ones(2, np.float32), np.zeros(2, np.float32)],
        "numpy int arrays": [np.arange(3), np.arange(3)],
        "numpy scalars": [np.float32(1.5), np.float32(2.0)],
        "numpy int scalars": [np.int16(1), np.int16(7)],
        "numpy bools": [np.bool_(True), np.bool_(False)],
        "nested": [
            {"a": (1, [2.0, t([1])]), "b": {"c": "x"}},
            {"a": (3, [4.0, t([2])]), "b": {"c": "y"}},
        ],  # fmt: skip
        "namedtuples": [Pair(1, t([1.0])), Pair(2, t([2.0]))],
        "ordered dict": [OrderedDict(b=1, a=2.0), OrderedDict(b=3, a=4.0)],
        "lists": [[1, 2], [3, 4]],
        "tuples with strings": [("a", 1), ("b", 2)],
        "mixed dtype tensors": [t([1], dtype=lib.int32), t([2.5], dtype=lib.float16)],
        "numpy 0-d arrays": [np.array(1.5), np.array(2.5)],
        "float then int": [1.5, 2],
        "bool then int": [True, 2],
        # errors
        "mixed shapes": [t([1.0]), t([1.0, 2.0])],
        "numpy mixed shapes": [np.ones(2), np.ones(3)],
        "numpy strings": [np.array(["a"]), np.array(["b"])],
        "numpy objects": [np.array([None]), np.array([None])],
        "none": [None, None],
        "uneven lists": [[1, 2], [3]],
        "empty": [],
        "object": [object(), object()],
    }


@pytest.mark.parametrize("case", list(_samples(mg)))
def test_default_collate_matches(case):
    assert_same(lambda lib, data: canon(data.default_collate(_samples(lib)[case])))


@pytest.mark.parametrize("case", list(_samples(mg)))
def test_default_convert_matches(case):
    assert_same(lambda lib, data: canon(data.default_convert(_samples(lib)[case])))


def test_collate_in_a_loader_with_numpy_samples_and_workers():
    class NumpyDS:
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": np.full(3, i, np.float32), "y": np.int64(i), "t": (i, float(i))}

    def program(lib, data):
        return [canon(b) for b in data.DataLoader(NumpyDS(), batch_size=2, num_workers=2)]

    assert_same(program)


# --- datasets ----------------------------------------------------------------------------------
def test_dataset_combinators_match():
    def program(lib, data):
        a = data.TensorDataset(lib.arange(3), lib.arange(3) * 10)
        b = data.TensorDataset(lib.arange(2) + 100, lib.arange(2))
        cat = a + b
        stack = data.StackDataset(a, data.Subset(a, [2, 1, 0]))
        stack_kw = data.StackDataset(x=a, y=data.Subset(a, [2, 1, 0]))
        chain = sharded_stream(data, 2) + sharded_stream(data, 3)
        return (
            len(cat), [canon(cat[i]) for i in (0, 3, -1, -5)], list(cat.cumulative_sizes),
            len(stack_kw), canon(stack_kw[1]), canon(stack[2]), list(chain), len(chain),
            type(chain).__name__, canon(data.Subset(a, [2, 0])[[0, 1]]),
        )  # fmt: skip

    assert_same(program)


@pytest.mark.parametrize("index", [5, -6, 100])
def test_concat_dataset_index_out_of_range(index):
    assert_same(lambda lib, data: (data.TensorDataset(lib.arange(3)) + data.TensorDataset(
        lib.arange(2)))[index])  # fmt: skip


def test_bad_dataset_arguments_raise_the_same_type():
    for program in [
        lambda lib, data: data.ConcatDataset([]),
        lambda lib, data: data.ConcatDataset([sharded_stream(data, 2)]),
        lambda lib, data: data.TensorDataset(lib.zeros(3), lib.zeros(4)),
        lambda lib, data: data.StackDataset(data.TensorDataset(lib.zeros(3)), lib.zeros(4)),
        lambda lib, data: list(data.ChainDataset([data.TensorDataset(lib.zeros(2))])),
        lambda lib, data: data.StackDataset(data.TensorDataset(lib.zeros(3)), b=lib.zeros(3)),
        lambda lib, data: data.StackDataset(),
    ]:
        assert_same(program)


# --- random_split ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n, lengths",
    [(10, [0.5, 0.3, 0.2]), (11, [0.5, 0.5]), (7, [0.1, 0.1, 0.8]), (10, [3, 7]), (5, [1, 0]),
     (10, [0.7, 0.3]), (3, [0.0, 1.0]), (10, [1.0])],
)  # fmt: skip
def test_random_split_sizes_and_coverage(n, lengths):
    def program(lib, data):
        parts = data.random_split(range(n), lengths, generator=lib.Generator().manual_seed(0))
        return [len(p) for p in parts], sorted(i for p in parts for i in p)

    assert_same(program)


@pytest.mark.parametrize("lengths", [[5, 4], [0.5, 0.6], [1.5, -0.5], [0.6, 0.3]])
def test_random_split_bad_lengths(lengths):
    assert assert_same(lambda lib, data: data.random_split(range(10), lengths)) is ValueError


# --- samplers ----------------------------------------------------------------------------------
SAMPLERS = {
    "sequential": lambda lib, d: d.SequentialSampler(range(7)),
    "random": lambda lib, d: d.RandomSampler(range(7)),
    "random num_samples": lambda lib, d: d.RandomSampler(range(7), num_samples=17),
    "random replacement": lambda lib, d: d.RandomSampler(range(7), True, num_samples=30),
    "subset random": lambda lib, d: d.SubsetRandomSampler([3, 5, 9]),
    "weighted": lambda lib, d: d.WeightedRandomSampler([0.0, 1.0, 2.0], 9),
    "weighted no replacement": lambda lib, d: d.WeightedRandomSampler([0, 1, 2, 3.0], 3, False),
    "weighted past the nonzero": lambda lib, d: d.WeightedRandomSampler([1.0, 0, 2], 3, False),
    "batch": lambda lib, d: d.BatchSampler(d.SequentialSampler(range(7)), 3, False),
    "batch drop_last": lambda lib, d: d.BatchSampler(range(7), 3, True),
}


def _support(kind, flat):
    """What a sampler's draws must have in common across libraries, by kind."""
    if kind in ("random replacement", "weighted"):  # any values in range
        return set(flat) <= set(range(7))
    if kind == "random num_samples":  # whole permutations: each index 2 or 3 times
        return sorted(np.bincount(flat).tolist())
    if kind == "weighted no replacement":  # distinct, never the zero-weight index
        return len(set(flat)), 0 in flat
    return sorted(flat)  # a permutation of the indices


@pytest.mark.parametrize("kind", SAMPLERS)
def test_sampler_lengths_and_value_sets(kind):
    def program(lib, data):
        lib.manual_seed(1)
        sampler = SAMPLERS[kind](lib, data)
        draws = list(sampler)
        sizes = [len(d) if isinstance(d, list) else 1 for d in draws]
        flat = [i for d in draws for i in (d if isinstance(d, list) else [d])]
        return len(sampler), len(draws), sizes, _support(kind, flat)

    assert_same(program)


BAD_SAMPLERS = {
    "random num_samples 0": lambda lib, d: d.RandomSampler(range(3), num_samples=0),
    "random replacement not bool": lambda lib, d: d.RandomSampler(range(3), replacement=1),
    "random empty": lambda lib, d: d.RandomSampler(range(0)),
    "weighted num_samples 0": lambda lib, d: d.WeightedRandomSampler([1.0], 0),
    "weighted 2-d": lambda lib, d: d.WeightedRandomSampler([[1.0, 2.0]], 2),
    "weighted negative": lambda lib, d: list(d.WeightedRandomSampler([1.0, -1.0], 2)),
    "batch size 0": lambda lib, d: d.BatchSampler(range(3), 0, False),
    "batch size bool": lambda lib, d: d.BatchSampler(range(3), True, False),
    "batch drop_last not bool": lambda lib, d: d.BatchSampler(range(3), 2, 1),
    "distributed rank": lambda lib, d: d.DistributedSampler(range(3), num_replicas=2, rank=2),
    "distributed negative rank": lambda lib, d: d.DistributedSampler(range(3), 2, rank=-1),
}


@pytest.mark.parametrize("kind", BAD_SAMPLERS)
def test_bad_sampler_arguments_raise_the_same_type(kind):
    out = assert_same(BAD_SAMPLERS[kind])
    assert isinstance(out, type)


@pytest.mark.parametrize("n, replicas", [(10, 3), (10, 5), (2, 5), (7, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_unshuffled_index_lists_match(n, replicas, drop_last):
    def program(lib, data):
        ranks = [data.DistributedSampler(range(n), replicas, r, shuffle=False,
                                         drop_last=drop_last) for r in range(replicas)]  # fmt: skip
        return [(len(s), list(s)) for s in ranks]

    assert_same(program)


@pytest.mark.parametrize("n, replicas", [(10, 3), (2, 5), (12, 4)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_shuffled_shares_match_in_size_and_coverage(n, replicas, drop_last):
    def program(lib, data):
        shares = {}
        for epoch in (0, 1):
            ranks = [data.DistributedSampler(range(n), replicas, r, seed=5, drop_last=drop_last)
                     for r in range(replicas)]  # fmt: skip
            for s in ranks:
                s.set_epoch(epoch)
            shares[epoch] = [list(s) for s in ranks]
        flat = [i for share in shares[0] for i in share]
        again = list(data.DistributedSampler(range(n), replicas, 0, seed=5, drop_last=drop_last))
        return ([len(s) for s in shares[0]], len(set(flat)), len(flat),
                again == shares[0][0], shares[0] != shares[1] or n <= 2)  # fmt: skip

    assert_same(program)
