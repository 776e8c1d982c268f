"""WeightedRandomSampler: indices drawn in proportion to their weights."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.utils.data import DataLoader, TensorDataset, WeightedRandomSampler


def test_frequencies_follow_the_weights_and_a_zero_weight_is_never_drawn():
    weights = [1.0, 3.0, 0.0, 4.0]
    s = WeightedRandomSampler(weights, num_samples=8000, generator=mg.Generator().manual_seed(0))
    picks = list(s)
    assert len(s) == len(picks) == 8000
    counts = np.bincount(picks, minlength=4) / 8000
    np.testing.assert_allclose(counts, np.array(weights) / 8.0, atol=0.02)


def test_without_replacement_each_index_appears_once():
    s = WeightedRandomSampler(mg.tensor([0.1, 0.9, 0.4, 2.0]), 4, replacement=False)
    assert sorted(s) == [0, 1, 2, 3]


def test_a_generator_repeats_the_draws_and_the_loader_uses_the_sampler():
    def draw():
        return list(WeightedRandomSampler([1, 2, 3], 10, generator=mg.Generator().manual_seed(3)))

    assert draw() == draw()
    ds = TensorDataset(mg.arange(4.0))
    loader = DataLoader(ds, batch_size=5, sampler=WeightedRandomSampler([0, 0, 1, 0], 5))
    (batch,) = next(iter(loader))
    assert batch.tolist() == [2.0] * 5


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="num_samples"):
        WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="replacement"):
        WeightedRandomSampler([1.0], 1, replacement=1)
    with pytest.raises(ValueError, match="1d sequence"):
        WeightedRandomSampler([[1.0]], 1)
