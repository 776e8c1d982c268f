"""DataLoader, samplers, Subset, random_split and default_collate."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.utils.data import (
    DataLoader,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)


class Squares(Dataset):
    """Sample i is a dict with a tensor, an int, a float and a string (for collation)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict:
        return {"x": mg.tensor([i, i * i], dtype=mg.float32), "i": i, "f": i / 2, "s": f"n{i}"}


def _ids(loader) -> list[int]:
    return [int(v) for batch in loader for v in batch[1].tolist()]


def _tensor_ds(n: int = 10) -> TensorDataset:
    x = mg.arange(n * 3, dtype=mg.float32).reshape(n, 3)
    return TensorDataset(x, mg.arange(n))


def test_sequential_order_and_batch_shapes():
    loader = DataLoader(_tensor_ds(10), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert [tuple(b[0].shape) for b in batches] == [(4, 3), (4, 3), (2, 3)]
    assert _ids(loader) == list(range(10))
    np.testing.assert_array_equal(batches[1][0].numpy(), np.arange(30).reshape(10, 3)[4:8])


def test_drop_last():
    loader = DataLoader(_tensor_ds(10), batch_size=4, drop_last=True)
    assert len(loader) == 2
    assert _ids(loader) == list(range(8))
    assert len(DataLoader(_tensor_ds(8), batch_size=4, drop_last=True)) == 2


def test_shuffle_reproducible_from_global_seed():
    ds = _tensor_ds(50)
    mg.manual_seed(123)
    first = _ids(DataLoader(ds, batch_size=7, shuffle=True))
    mg.manual_seed(123)
    again = _ids(DataLoader(ds, batch_size=7, shuffle=True))
    mg.manual_seed(124)
    other = _ids(DataLoader(ds, batch_size=7, shuffle=True))
    assert first == again
    assert sorted(first) == list(range(50)) and first != list(range(50))
    assert other != first


def test_shuffle_new_order_each_epoch():
    mg.manual_seed(0)
    loader = DataLoader(_tensor_ds(30), batch_size=5, shuffle=True)
    e1, e2 = _ids(loader), _ids(loader)
    assert sorted(e1) == sorted(e2) == list(range(30)) and e1 != e2


def test_shuffle_with_private_generator_ignores_global_rng():
    ds = _tensor_ds(40)
    g = mg.Generator().manual_seed(7)
    a = _ids(DataLoader(ds, batch_size=8, shuffle=True, generator=g))
    mg.manual_seed(999)
    mg.randn(5)  # global draws must not change a private generator's stream
    g.manual_seed(7)
    b = _ids(DataLoader(ds, batch_size=8, shuffle=True, generator=g))
    assert a == b and sorted(a) == list(range(40))


def test_fast_path_matches_per_sample_collation():
    ds = _tensor_ds(9)
    fast = list(DataLoader(ds, batch_size=4))
    slow = list(DataLoader(ds, batch_size=4, collate_fn=default_collate))
    for (fx, fy), (sx, sy) in zip(fast, slow):
        assert fx.dtype == sx.dtype and fy.dtype == sy.dtype
        np.testing.assert_array_equal(fx.numpy(), sx.numpy())
        np.testing.assert_array_equal(fy.numpy(), sy.numpy())


def test_collate_dicts_numbers_strings():
    batch = next(iter(DataLoader(Squares(5), batch_size=3)))
    assert set(batch) == {"x", "i", "f", "s"}
    np.testing.assert_array_equal(batch["x"].numpy(), [[0, 0], [1, 1], [2, 4]])
    assert batch["i"].dtype == mg.int64 and batch["i"].tolist() == [0, 1, 2]
    assert batch["f"].dtype == mg.float64 and batch["f"].tolist() == [0.0, 0.5, 1.0]
    assert batch["s"] == ["n0", "n1", "n2"]


def test_collate_tuples_namedtuples_numpy_bools():
    out = default_collate([(mg.tensor([1.0]), 3), (mg.tensor([2.0]), 4)])
    assert isinstance(out, list) and out[0].shape == (2, 1) and out[1].tolist() == [3, 4]
    Pair = namedtuple("Pair", "a b")
    pair = default_collate([Pair(1, 2.0), Pair(3, 4.0)])
    assert isinstance(pair, Pair) and pair.a.tolist() == [1, 3] and pair.b.tolist() == [2.0, 4.0]
    arr = default_collate([np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)])
    assert isinstance(arr, mg.Tensor) and arr.shape == (2, 2, 2) and arr.dtype == mg.float32
    assert default_collate([True, False]).dtype == mg.bool
    nested = default_collate([{"a": (1, [2.0])}, {"a": (3, [4.0])}])
    assert nested["a"][0].tolist() == [1, 3] and nested["a"][1][0].tolist() == [2.0, 4.0]


def test_collate_errors_are_clear():
    with pytest.raises(RuntimeError, match="equal size, but got \\[2\\] at entry 0 and \\[3\\]"):
        default_collate([mg.zeros(2), mg.zeros(3)])
    with pytest.raises(TypeError, match="object"):
        default_collate([object(), object()])
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(_tensor_ds(), batch_size=0)
    with pytest.raises(AssertionError, match="first size"):
        TensorDataset(mg.zeros(3, 2), mg.zeros(4))


def test_custom_collate_and_no_batching():
    loader = DataLoader(_tensor_ds(5), batch_size=2, collate_fn=lambda b: len(b))
    assert list(loader) == [2, 2, 1]
    single = list(DataLoader(_tensor_ds(3), batch_size=None))
    assert len(single) == 3 and single[2][1].item() == 2


def test_subset_and_random_split():
    ds = _tensor_ds(10)
    sub = Subset(ds, [9, 2, 4])
    assert len(sub) == 3 and sub[0][1].item() == 9
    assert _ids(DataLoader(sub, batch_size=2)) == [9, 2, 4]
    g = mg.Generator().manual_seed(1)
    a, b = random_split(ds, [7, 3], generator=g)
    assert len(a) == 7 and len(b) == 3
    assert sorted(a.indices + b.indices) == list(range(10))
    g.manual_seed(1)
    a2, _ = random_split(ds, [7, 3], generator=g)
    assert a2.indices == a.indices
    parts = random_split(ds, [0.5, 0.3, 0.2], generator=g)
    assert [len(p) for p in parts] == [5, 3, 2]
    odd = random_split(_tensor_ds(11), [0.5, 0.5], generator=g)
    assert [len(p) for p in odd] == [6, 5]  # the leftover goes to the first part
    with pytest.raises(ValueError, match="^Sum of input lengths does not equal the length"):
        random_split(ds, [5, 4])
    with pytest.raises(ValueError, match="non-negative counts summing"):
        random_split(ds, [-1, 11])


def test_iterable_dataset_and_concat():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(list(DataLoader(Stream(), batch_size=3, drop_last=True))) == 2
    both = _tensor_ds(3) + _tensor_ds(2)
    assert len(both) == 5 and both[3][1].item() == 0 and both[-1][1].item() == 1
