"""bfloat16 sorts, selects and searches with NaN larger than every number, as float32 does.

ml_dtypes' bfloat16 sort compares NaN as unordered, so a NaN left in place splits the array
into runs sorted apart. Every bfloat16 value is exactly a float32, so NumPy's float32 sort of
the same values is the oracle (NaN last, equal values in their original order)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

NAN = float("nan")
ROWS = [
    [4.0, NAN, -1.0, NAN, 1.0, 2.0, float("inf"), -float("inf")],
    [NAN, 3.0, 0.5, -2.0, NAN, 1.0, 1.0, 7.0],
    [2.0, 1.0, NAN],
]


def _bf16(values):
    return mg.tensor(values).to(mg.bfloat16)


def _values(t):
    return t.float().numpy()


@pytest.mark.parametrize("row", ROWS)
def test_bfloat16_sort_puts_nan_last_and_orders_the_numbers(row):
    ref = np.array(row, dtype=np.float32)
    order = np.argsort(ref, kind="stable")
    got = _bf16(row).sort()
    np.testing.assert_array_equal(_values(got.values), ref[order])
    np.testing.assert_array_equal(got.indices.numpy(), order)
    down = _bf16(row).sort(descending=True).values
    np.testing.assert_array_equal(
        _values(down), np.concatenate([ref[np.isnan(ref)], np.sort(ref[~np.isnan(ref)])[::-1]])
    )


@pytest.mark.parametrize("row", ROWS)
def test_bfloat16_topk_kthvalue_and_medians_see_nan_as_largest(row):
    ref = np.array(row, dtype=np.float32)
    x = _bf16(row)
    ordered = np.sort(ref)  # NaN last
    np.testing.assert_array_equal(_values(x.topk(2, largest=False).values), ordered[:2])
    np.testing.assert_array_equal(_values(x.topk(2).values), ordered[::-1][:2])
    assert _values(x.kthvalue(2).values) == ordered[1]
    # median: NaN if the row has one; nanmedian: the lower median of the numbers
    assert np.isnan(_values(x.median())) == np.isnan(ref).any()
    numbers = np.sort(ref[~np.isnan(ref)])
    assert _values(x.nanmedian()) == numbers[(len(numbers) - 1) // 2]


def test_bfloat16_searchsorted_matches_float32_and_puts_nan_queries_last():
    seq = np.array([-1.0, 0.5, 2.0, 4.0], dtype=np.float32)
    queries = np.array([-2.0, 0.5, 1.0, 3.0, NAN, 5.0], dtype=np.float32)
    for right in (False, True):
        got = mg.searchsorted(_bf16(seq.tolist()), _bf16(queries.tolist()), right=right)
        # NumPy's float32 search: NaN larger than every number, so a NaN query goes last
        want = np.searchsorted(seq, queries, side="right" if right else "left")
        np.testing.assert_array_equal(got.numpy(), want)
