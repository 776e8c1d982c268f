"""NaN in searchsorted/bucketize and unique, placed and counted as PyTorch does: NaN != NaN, and a
binary search whose comparisons with NaN are false."""

import math

import numpy as np
import pytest

import minigenesis as mg

NAN = math.nan


def _bisect(row, v, right):
    """The reference: PyTorch's binary search written out for one value (any NaN compares false)."""
    start, end = 0, len(row)
    while start < end:
        mid = (start + end) // 2
        go_right = not (row[mid] > v) if right else not (row[mid] >= v)
        start, end = (mid + 1, end) if go_right else (start, mid)
    return start


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_with_nan_follows_the_binary_search(right):
    rng = np.random.default_rng(0)
    for _ in range(200):
        rows = np.sort(rng.integers(0, 5, size=(2, int(rng.integers(1, 7)))).astype(float), -1)
        rows[rng.random(rows.shape) < 0.3] = NAN
        vals = rng.integers(-1, 6, size=(2, 4)).astype(float)
        vals[rng.random(vals.shape) < 0.2] = NAN
        got = mg.searchsorted(mg.tensor(rows), mg.tensor(vals), right=right).numpy()
        want = [[_bisect(r, v, right) for v in vs] for r, vs in zip(rows, vals, strict=True)]
        np.testing.assert_array_equal(got, want)
        got1 = mg.searchsorted(mg.tensor(rows[0]), mg.tensor(vals), right=right).numpy()
        np.testing.assert_array_equal(
            got1, [[_bisect(rows[0], v, right) for v in vs] for vs in vals]
        )


def test_nan_goes_past_the_end_and_nan_boundaries_count_as_below():
    assert mg.searchsorted(
        mg.tensor([1.0, 2.0, NAN]), mg.tensor([NAN, 0.0, 2.0, 5.0])
    ).tolist() == [
        3,
        0,
        1,
        3,
    ]
    assert mg.bucketize(mg.tensor([NAN, 1.5]), mg.tensor([1.0, 2.0])).tolist() == [2, 1]


def test_searchsorted_on_empty_rows_and_bad_sorters():
    got = mg.searchsorted(mg.zeros(2, 0), mg.tensor([[1.0], [NAN]]))
    assert got.tolist() == [[0], [0]]
    with pytest.raises(RuntimeError, match="long"):
        mg.searchsorted(mg.tensor([3.0, 1, 2]), mg.tensor([2.0]), sorter=mg.tensor([1.0, 2, 0]))
    with pytest.raises(RuntimeError, match="out of range"):
        mg.searchsorted(mg.tensor([3.0, 1, 2]), mg.tensor([2.0]), sorter=mg.tensor([0, 1, 5]))


def test_unique_counts_every_nan_apart():
    x = mg.tensor([NAN, 1.0, NAN, 0.0, 1.0, NAN])
    values, inverse, counts = mg.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [0.0, 1.0, NAN, NAN, NAN])
    assert inverse.tolist() == [2, 1, 3, 0, 1, 4]
    assert counts.tolist() == [1, 2, 1, 1, 1]
    assert (values.numpy()[inverse.numpy()] == x.numpy())[~np.isnan(x.numpy())].all()
