"""RandomSampler as in PyTorch: a permutation per pass; ``num_samples`` more than the dataset's
length gives whole permutations one after another; ``replacement=True`` draws uniformly with
repetition; ``generator=`` makes the draws its own; the arguments are checked as PyTorch does.
Also the datasets and the conversion PyTorch's data modules have (StackDataset, ChainDataset,
default_convert)."""

from __future__ import annotations

from collections import Counter, namedtuple

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.utils.data import (
    ChainDataset,
    DataLoader,
    IterableDataset,
    RandomSampler,
    StackDataset,
    TensorDataset,
    default_convert,
    get_worker_info,
)


def test_without_replacement_one_pass_is_a_permutation() -> None:
    mg.manual_seed(0)
    order = list(RandomSampler(range(10)))
    assert sorted(order) == list(range(10))


def test_num_samples_beyond_the_length_repeats_whole_permutations() -> None:
    mg.manual_seed(0)
    sampler = RandomSampler(range(5), num_samples=12)
    order = list(sampler)
    assert len(sampler) == 12 and len(order) == 12
    assert sorted(order[:5]) == sorted(order[5:10]) == list(range(5))  # two whole passes
    assert len(set(order[10:])) == 2  # then a cut-short third one, without repeats
    assert sorted(Counter(order).values()) == [2, 2, 2, 3, 3]


def test_num_samples_below_the_length_gives_distinct_indices() -> None:
    mg.manual_seed(1)
    order = list(RandomSampler(range(10), num_samples=4))
    assert len(order) == 4 and len(set(order)) == 4


def test_with_replacement_draws_uniformly_with_repetition() -> None:
    mg.manual_seed(0)
    order = list(RandomSampler(range(4), replacement=True, num_samples=4000))
    counts = np.bincount(order, minlength=4)
    assert len(order) == 4000 and counts.sum() == 4000
    # each index has probability 1/4: 1000 +- 5 standard deviations (sqrt(4000 * 3/16) = 27)
    assert np.all(np.abs(counts - 1000) < 5 * 27.4)


def test_with_replacement_defaults_to_the_dataset_length_and_repeats_some() -> None:
    mg.manual_seed(0)
    orders = [list(RandomSampler(range(20), replacement=True)) for _ in range(5)]
    assert all(len(o) == 20 for o in orders)
    # a permutation of 20 has no repeat; 20 uniform draws repeat with probability 1 - 20!/20^20
    assert any(len(set(o)) < 20 for o in orders)


def test_a_generator_makes_the_order_repeatable_and_leaves_the_global_stream_alone() -> None:
    mg.manual_seed(5)
    reference = mg.rand(3)
    a = list(RandomSampler(range(50), generator=mg.Generator().manual_seed(7)))
    mg.manual_seed(5)
    b = list(RandomSampler(range(50), generator=mg.Generator().manual_seed(7)))
    assert a == b
    np.testing.assert_array_equal(mg.rand(3).numpy(), reference.numpy())


def test_a_new_pass_draws_a_new_order() -> None:
    mg.manual_seed(0)
    sampler = RandomSampler(range(30), replacement=True, num_samples=30)
    assert list(sampler) != list(sampler)


def test_dataloader_with_a_replacement_sampler_batches_num_samples() -> None:
    ds = TensorDataset(mg.arange(10.0))
    loader = DataLoader(ds, batch_size=4, sampler=RandomSampler(ds, True, num_samples=10))
    batches = [b for (b,) in loader]
    assert len(loader) == 3 and [len(b) for b in batches] == [4, 4, 2]


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"num_samples": 0}, ValueError),
        ({"num_samples": 2.0}, ValueError),
        ({"num_samples": -3}, ValueError),
        ({"replacement": 1}, TypeError),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict, error: type) -> None:
    with pytest.raises(error, match="num_samples|replacement"):
        RandomSampler(range(5), **kwargs)


def test_an_empty_dataset_is_refused() -> None:
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler([])


def test_stack_dataset_pairs_samples_as_tuples_or_dicts() -> None:
    a, b = TensorDataset(mg.arange(3)), [10, 20, 30]
    (first,), second = StackDataset(a, b)[1]
    assert first.item() == 1 and second == 20
    named = StackDataset(x=b, y=["p", "q", "r"])
    assert named[2] == {"x": 30, "y": "r"} and len(named) == 3
    with pytest.raises(ValueError, match="Size mismatch"):
        StackDataset(b, [1])
    with pytest.raises(ValueError, match="At least one dataset"):
        StackDataset()


def test_chain_dataset_streams_one_after_the_other() -> None:
    class Stream(IterableDataset):
        def __init__(self, items: list) -> None:
            self.items = items

        def __iter__(self):
            return iter(self.items)

        def __len__(self) -> int:
            return len(self.items)

    chain = ChainDataset([Stream([1, 2]), Stream([3])])
    assert list(chain) == [1, 2, 3] and len(chain) == 3


def test_default_convert_turns_arrays_into_tensors_and_keeps_the_rest() -> None:
    Point = namedtuple("Point", "x y")
    out = default_convert([np.array([1, 2]), (np.float64(0.5), "s"), Point(np.array(3), 4)])
    assert isinstance(out[0], mg.Tensor) and out[0].tolist() == [1, 2]
    assert isinstance(out[1], list) and out[1][0].dtype == mg.float64 and out[1][1] == "s"
    assert isinstance(out[2], Point) and out[2].x.item() == 3 and out[2].y == 4


def test_a_loader_without_batching_converts_each_sample() -> None:
    samples = [np.array([i, i]) for i in range(3)]
    out = list(DataLoader(samples, batch_size=None))
    assert all(isinstance(s, mg.Tensor) for s in out) and out[2].tolist() == [2, 2]
    assert get_worker_info() is None
