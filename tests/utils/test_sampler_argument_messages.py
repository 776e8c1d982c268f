"""Bad sampler arguments raise ValueError with PyTorch's wording (so code matching the
message, e.g. ``pytest.raises(match=...)`` written against PyTorch, works unchanged)."""

import pytest

from minigenesis.utils.data import BatchSampler, WeightedRandomSampler


@pytest.mark.parametrize("n", [0, -2, 2.0])
def test_weighted_sampler_num_samples_message(n):
    with pytest.raises(
        ValueError,
        match=rf"^num_samples should be a positive integer value, but got num_samples={n}$",
    ):
        WeightedRandomSampler([1.0, 1.0], n)


def test_weighted_sampler_replacement_message():
    with pytest.raises(
        ValueError, match=r"^replacement should be a boolean value, but got replacement=0$"
    ):
        WeightedRandomSampler([1.0, 1.0], 2, replacement=0)


def test_weighted_sampler_2d_weights_message():
    with pytest.raises(
        ValueError, match=r"^weights should be a 1d sequence but given weights have shape \(1, 2\)$"
    ):
        WeightedRandomSampler([[1.0, 1.0]], 2)


@pytest.mark.parametrize("size", [0, -1, 2.0, True])
def test_batch_sampler_batch_size_message(size):
    with pytest.raises(
        ValueError,
        match=rf"^batch_size should be a positive integer value, but got batch_size={size}$",
    ):
        BatchSampler(range(4), size, False)
