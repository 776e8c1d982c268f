"""PyTorch's rules for collation, the dataset combinators, random_split and the loader's options,
each checked against its closed form (what the rule says the result is)."""

from __future__ import annotations

import warnings
from collections import OrderedDict, defaultdict

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    Sampler,
    Subset,
    TensorDataset,
    default_collate,
    default_convert,
    random_split,
)


class Stream(IterableDataset):
    def __init__(self, values):
        self.values = values

    def __iter__(self):
        return iter(self.values)


def test_collated_ints_take_the_dtype_the_whole_batch_needs():
    mixed = default_collate([1, 2.5])  # an int first, a float after: float32, not truncated
    assert mixed.dtype == mg.float32 and mixed.tolist() == [1.0, 2.5]
    assert default_collate([True, 2]).dtype == mg.int64
    assert default_collate([True, False]).dtype == mg.bool


def test_collate_and_convert_keep_the_mapping_and_list_types():
    out = default_collate([OrderedDict(b=1, a=2.0), OrderedDict(b=3, a=4.0)])
    assert type(out) is OrderedDict and list(out) == ["b", "a"] and out["b"].tolist() == [1, 3]
    factory = defaultdict(list, x=1)
    kept = default_collate([factory, defaultdict(list, x=2)])
    assert type(kept) is defaultdict and kept.default_factory is list

    class Row(list):
        pass

    rows = default_collate([Row([1, 2]), Row([3, 4])])
    assert type(rows) is Row and [r.tolist() for r in rows] == [[1, 3], [2, 4]]
    assert type(default_convert(OrderedDict(a=np.zeros(1)))) is OrderedDict


def test_collate_errors_follow_pytorch_types():
    with pytest.raises(RuntimeError, match="equal size, but got \\[2\\] at entry 0 and \\[3\\]"):
        default_collate([np.ones(2), np.ones(3)])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(IndexError, match="empty batch"):
        default_collate([])
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [3]])


def test_strings_in_tuple_samples_stay_the_field_tuple():
    names, ids = default_collate([("a", 1), ("b", 2)])
    assert names == ("a", "b") and ids.tolist() == [1, 2]
    assert default_collate(["a", "b"]) == ["a", "b"]


def test_collated_numpy_scalars_keep_their_dtype():
    out = default_collate([np.int16(1), np.int16(7)])
    assert out.dtype == mg.int16 and out.tolist() == [1, 7]


def test_concat_dataset_errors_follow_pytorch():
    with pytest.raises(AssertionError, match="empty"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="IterableDataset"):
        ConcatDataset([Stream([1])])
    both = ConcatDataset([TensorDataset(mg.arange(3)), TensorDataset(mg.arange(2))])
    assert both[-5][0].item() == 0 and both.cumulative_sizes == [3, 5]
    assert all(type(c) is int for c in both.cumulative_sizes)
    with pytest.raises(ValueError, match="absolute value"):
        both[-6]
    with pytest.raises(IndexError):
        both[5]


def test_adding_iterable_datasets_chains_them():
    chained = Stream([1, 2]) + Stream([3])
    assert isinstance(chained, ChainDataset) and list(chained) == [1, 2, 3]


def test_tensor_dataset_size_mismatch_is_an_assertion_error():
    with pytest.raises(AssertionError, match="Size mismatch"):
        TensorDataset(mg.zeros(3, 2), mg.zeros(4))


@pytest.mark.parametrize(
    "n, lengths, sizes", [(5, [1, 0], [5, 0]), (10, [0.7, 0.3], [7, 3]), (11, [0.5, 0.5], [6, 5])]
)
def test_random_split_reads_lengths_summing_to_one_as_fractions(n, lengths, sizes):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # [1, 0]: an empty part, warned of
        parts = random_split(range(n), lengths, generator=mg.Generator().manual_seed(0))
    assert [len(p) for p in parts] == sizes
    assert sorted(i for p in parts for i in p) == list(range(n))


def test_random_split_warns_of_an_empty_part():
    with pytest.warns(UserWarning, match="split at index 1 is 0"):
        parts = random_split(range(3), [1.0, 0.0])
    assert [len(p) for p in parts] == [3, 0]


def test_random_split_refuses_a_fraction_outside_zero_one():
    with pytest.raises(ValueError, match="not between 0 and 1"):
        random_split(range(10), [1.5, -0.5])


def test_batch_sampler_checks_drop_last_is_a_bool():
    with pytest.raises(ValueError, match="drop_last"):
        BatchSampler(range(3), 2, 1)


def test_the_loader_reads_a_batch_through_getitems():
    class Batched(Dataset):
        """A dataset that reads a batch in one call (and tags it, to show that call was made)."""

        def __len__(self):
            return 5

        def __getitem__(self, i):
            return -1

        def __getitems__(self, indices):
            return [i * 10 for i in indices]

    batches = [b.tolist() for b in DataLoader(Batched(), batch_size=2)]
    assert batches == [[0, 10], [20, 30], [40]]
    via_subset = DataLoader(Subset(Batched(), [4, 0]), batch_size=2)
    assert [b.tolist() for b in via_subset] == [[40, 0]]
    single = [int(b) for b in DataLoader(Batched(), batch_size=None)]
    assert single == [-1] * 5  # no batching: __getitem__, as PyTorch


def test_subset_indexed_with_a_list_indexes_its_dataset_with_a_list():
    ds = TensorDataset(mg.arange(5) * 10)
    (picked,) = Subset(ds, [4, 1, 3])[[0, 2]]
    assert picked.tolist() == [40, 30]


def test_seeded_shuffle_order_does_not_depend_on_num_workers():
    ds = TensorDataset(mg.arange(17))

    def order(workers):
        loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=workers,
                            generator=mg.Generator().manual_seed(9))  # fmt: skip
        return [int(i) for (b,) in loader for i in b.tolist()]

    assert order(0) == order(2) and sorted(order(0)) == list(range(17))


def test_datasets_and_samplers_take_a_type_parameter():
    class Pairs(Dataset[tuple[mg.Tensor, int]]):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return mg.tensor([float(i)]), i

    class Every2nd(Sampler[int]):
        def __iter__(self):
            return iter([0, 2])

        def __len__(self):
            return 2

    class Counting(IterableDataset[int]):
        def __iter__(self):
            return iter(range(2))

    batch = next(iter(DataLoader(Pairs(), batch_size=2, sampler=Every2nd())))
    assert batch[1].tolist() == [0, 2] and list(Counting()) == [0, 1]


def test_the_loader_refuses_a_batching_setting_changed_after_construction():
    loader = DataLoader(TensorDataset(mg.arange(8)), batch_size=4)
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        loader.batch_size = 2  # it would be ignored: the batch sampler already has 4
    assert len(loader) == 2
    loader.num_workers = 0  # the others may change, as in PyTorch


@pytest.mark.parametrize("lengths", [[float("nan"), 1.0], [float("inf"), 2], [5, -float("inf")]])
def test_random_split_refuses_a_length_that_is_not_finite_by_name(lengths):
    with pytest.raises(ValueError, match=r"random_split: lengths .* must be non-negative counts"):
        random_split(list(range(10)), lengths)
