"""StackDataset.__getitems__ (a batch read per part) and ConcatDataset's old attribute name
cummulative_sizes, as PyTorch has them."""

import pytest

from minigenesis.utils.data import ConcatDataset, DataLoader, StackDataset


class _Batched:
    """A dataset whose batched read is recorded (and returns i * 10)."""

    def __init__(self, n, short=False):
        self.n, self.calls, self.short = n, [], short

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        raise AssertionError("the batched read should be used")

    def __getitems__(self, indices):
        self.calls.append(list(indices))
        out = [i * 10 for i in indices]
        return out[:-1] if self.short else out


def test_stack_dataset_getitems_gives_tuples_per_index():
    assert StackDataset([1, 2, 3], [4, 5, 6]).__getitems__([2, 0]) == [(3, 6), (1, 4)]


def test_stack_dataset_getitems_gives_dicts_for_keyword_datasets():
    got = StackDataset(a=[1, 2], b=["x", "y"]).__getitems__([1])
    assert got == [{"a": 2, "b": "y"}]


def test_stack_dataset_uses_a_parts_batched_read():
    part = _Batched(4)
    got = StackDataset(part, [7, 8, 9, 10]).__getitems__([3, 1])
    assert got == [(30, 10), (10, 8)] and part.calls == [[3, 1]]


def test_stack_dataset_getitems_size_mismatch_is_value_error():
    with pytest.raises(
        ValueError, match="Nested dataset's output size mismatch. Expected 2, got 1"
    ):
        StackDataset(_Batched(4, short=True), [0, 1, 2, 3]).__getitems__([0, 1])


def test_loader_over_stack_dataset_reads_each_batch_in_one_call():
    part = _Batched(5)
    batches = [b[0].tolist() for b in DataLoader(StackDataset(part, list(range(5))), batch_size=2)]
    assert batches == [[0, 10], [20, 30], [40]] and part.calls == [[0, 1], [2, 3], [4]]


def test_concat_dataset_cummulative_sizes_warns_and_equals_cumulative_sizes():
    cd = ConcatDataset([[1, 2], [3], [4, 5, 6]])
    with pytest.warns(DeprecationWarning, match="renamed to cumulative_sizes"):
        assert cd.cummulative_sizes == [2, 3, 6] == cd.cumulative_sizes


def test_dataset_without_getitem_raises_pytorchs_not_implemented_message():
    from minigenesis.utils.data import Dataset

    class NoItems(Dataset):
        pass

    with pytest.raises(
        NotImplementedError,
        match=r"^Subclasses of Dataset should implement __getitem__\. \(NoItems",
    ):
        NoItems()[0]
