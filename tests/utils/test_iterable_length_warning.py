"""PyTorch's warning when an IterableDataset yields more batches than the len(dataset) that
len(loader) reported (no warning when len() was never asked, nor within the length)."""

import warnings

import pytest

from minigenesis.utils.data import DataLoader, IterableDataset


class _ClaimsTwoYieldsThree(IterableDataset):
    def __len__(self):
        return 2

    def __iter__(self):
        return iter(range(3))


def _collect(loader):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = [int(b) for b in loader]
    return out, [str(w.message) for w in caught if w.category is UserWarning]


def test_warns_once_the_third_sample_passes_a_reported_length_of_two():
    loader = DataLoader(_ClaimsTwoYieldsThree(), batch_size=None)
    assert len(loader) == 2
    out, messages = _collect(loader)
    assert out == [0, 1, 2]
    assert len(messages) == 1
    assert messages[0].startswith("Length of IterableDataset")
    assert "was reported to be 2 (when accessing len(dataloader)), but 3 samples" in messages[0]


def test_no_warning_when_len_was_never_called():
    assert _collect(DataLoader(_ClaimsTwoYieldsThree(), batch_size=None)) == ([0, 1, 2], [])


def test_no_warning_within_the_reported_length():
    loader = DataLoader(_ClaimsTwoYieldsThree(), batch_size=2)  # 2 batches <= len(dataset) 2
    assert len(loader) == 1
    assert [b.tolist() for b in loader] == [[0, 1], [2]]  # 2 batches: no warning (2 <= 2)


def test_unsharded_workers_duplicate_the_stream_and_warn():
    loader = DataLoader(_ClaimsTwoYieldsThree(), batch_size=None, num_workers=2, timeout=30)
    assert len(loader) == 2
    out, messages = _collect(loader)
    assert sorted(out) == [0, 0, 1, 1, 2, 2]  # each worker yields the whole stream
    assert len(messages) == 4 and "For multiprocessing data-loading" in messages[0]


def test_list_of_a_loader_does_not_count_as_asking_its_length():
    # list() asks the iterator for a length hint; that must not arm the warning (PyTorch's
    # iterator reads the reported length when it is created)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert [int(b) for b in list(DataLoader(_ClaimsTwoYieldsThree(), batch_size=None))] == [
            0,
            1,
            2,
        ]
    assert caught == []


def test_iterator_over_iterable_dataset_has_no_len():
    with pytest.raises(TypeError, match="no len"):
        len(iter(DataLoader(_ClaimsTwoYieldsThree(), batch_size=None)))
