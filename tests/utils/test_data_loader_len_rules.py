"""len() of a DataLoader's iterator and of a loader over a sampler without __len__ (PyTorch's
rules: the iterator has the loader's length; a sampler without __len__ has none)."""

import pytest

from minigenesis.utils.data import DataLoader, Sampler


class _TwoIndices(Sampler):
    def __iter__(self):
        return iter([0, 1])


def test_in_process_iterator_has_the_loaders_length():
    it = iter(DataLoader(list(range(10)), batch_size=3))
    assert len(it) == 4  # ceil(10 / 3)
    assert next(it).tolist() == [0, 1, 2]
    assert [b.tolist() for b in it] == [[3, 4, 5], [6, 7, 8], [9]]


def test_in_process_iterator_length_with_drop_last():
    assert len(iter(DataLoader(list(range(10)), batch_size=3, drop_last=True))) == 3


def test_len_of_loader_over_sampler_without_len_is_type_error():
    loader = DataLoader(list(range(5)), sampler=_TwoIndices())
    with pytest.raises(TypeError, match="has no len"):
        len(loader)
    assert [b.tolist() for b in loader] == [[0], [1]]  # iterating still works
