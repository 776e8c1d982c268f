"""Which of several equal elements topk and mode return: PyTorch's CPU kernels order (value,
index) pairs with libstdc++'s unstable std::nth_element / std::sort, and minigenesis replays
those steps (ops/stl_order.py). The expected indices below are traced by hand through the GNU
algorithms; the replayed algorithms themselves are checked against Python's sorted()."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.ops.stl_order import stl_nth_element, stl_partial_sort, stl_sort

NAN = float("nan")
rng = np.random.default_rng(3)


def test_topk_of_four_equal_values_picks_the_median_of_three_pivot_first():
    # nth_element on 4 pairs: the median of (v[1], v[2], v[3]) is v[2] (all equal), swapped to
    # the front; the Hoare partition then swaps 1<->3 and cuts at 2; an insertion sort of the
    # first two leaves (2, 3): the indices are 2, 3 (a stable sort would say 0, 1)
    for dtype in (mg.float32, mg.int64, mg.int8):
        x = mg.tensor([5, 5, 5, 5], dtype=dtype)
        assert x.topk(1).indices.tolist() == [2]
        assert x.topk(2).indices.tolist() == [2, 3]
        assert x.topk(2, largest=False).indices.tolist() == [2, 3]
    assert mg.tensor([[5.0, 5, 5, 5]]).topk(1, dim=1).indices.tolist() == [[2]]


def test_topk_gradient_goes_to_the_element_whose_index_is_returned():
    x = mg.tensor([1.0, 1.0, 1.0, 1.0], requires_grad=True)
    x.topk(1).values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 1.0, 0.0])


def test_topk_without_ties_is_the_sorted_order():
    x = rng.permutation(50).astype(np.float64)
    out = mg.tensor(x).topk(7)
    np.testing.assert_array_equal(out.indices.numpy(), np.argsort(-x)[:7])
    np.testing.assert_array_equal(out.values.numpy(), np.sort(x)[::-1][:7])


def test_mode_counts_each_nan_once_and_sorts_it_where_it_stands():
    # the sort compares with <, so a NaN is never moved past: [NaN, 1] stays as it is, and the
    # first of the equally long runs (each of length 1) is the NaN at index 0
    out = mg.tensor([NAN, 1.0]).mode()
    assert math.isnan(out.values.item()) and out.indices.item() == 0
    # two NaNs are two runs of one (NaN != NaN), not a run of two
    out = mg.tensor([NAN, NAN, 1.0]).mode()
    assert math.isnan(out.values.item()) and out.indices.item() == 0
    out = mg.tensor([1.0, NAN]).mode()
    assert out.values.item() == 1.0 and out.indices.item() == 0


def test_mode_index_past_sixteen_elements_is_the_introsorts_last_of_the_run():
    # 16 equal values: insertion sort, stable: the last index (15). 17: one partition step
    # (pivot from the middle, then the pairs (1, 16), (2, 15) ... (8, 9) swapped) leaves
    # index 1 last
    assert mg.ones(16).mode().indices.item() == 15
    assert mg.ones(17).mode().indices.item() == 1
    assert mg.ones(2, 17, dtype=mg.int8).mode(dim=1).indices.tolist() == [1, 1]
    assert mg.ones(17, 2).mode(dim=0).indices.tolist() == [1, 1]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 16, 17, 40, 200, 1000])
def test_replayed_sort_sorts(n):
    values = rng.integers(0, max(n // 3, 1), n).tolist()
    pairs = [(v, i) for i, v in enumerate(values)]
    stl_sort(pairs, lambda x, y: x[0] < y[0])
    assert [v for v, _ in pairs] == sorted(values)
    assert sorted(i for _, i in pairs) == list(range(n))


def test_replayed_sort_falls_back_to_heapsort_when_too_deep():
    # an organ-pipe pattern drives median-of-three quicksort past its depth limit
    n = 2000
    values = list(range(n // 2)) + list(range(n // 2, 0, -1))
    pairs = [(v, i) for i, v in enumerate(values)]
    stl_sort(pairs, lambda x, y: x[0] < y[0])
    assert [v for v, _ in pairs] == sorted(values)


@pytest.mark.parametrize("n", [1, 3, 4, 9, 64, 300])
def test_replayed_nth_element_and_partial_sort_select(n):
    values = rng.integers(0, 10, n).tolist()
    for k in sorted({0, n // 2, n - 1}):
        pairs = [(v, i) for i, v in enumerate(values)]
        stl_nth_element(pairs, k, lambda x, y: x[0] < y[0])
        assert pairs[k][0] == sorted(values)[k]
        assert all(v <= pairs[k][0] for v, _ in pairs[:k])
        assert all(v >= pairs[k][0] for v, _ in pairs[k + 1 :])
        pairs = [(v, i) for i, v in enumerate(values)]
        stl_partial_sort(pairs, k, lambda x, y: x[0] < y[0])
        assert [v for v, _ in pairs[:k]] == sorted(values)[:k]


def test_unique_dim_compares_slices_lexicographically_with_nan_unordered():
    # NaN vs NaN and NaN vs 0 are neither < nor >: the comparison moves on to the second
    # column (1 < 2), so the insertion sort keeps the slices where they are; a slice with a NaN
    # equals nothing (its own group), and [0, 2] == [-0, 2] is one group named by its first
    x = mg.tensor([[NAN, 1.0], [NAN, 1.0], [0.0, 2.0], [-0.0, 2.0]])
    values, inverse, counts = x.unique(dim=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [[NAN, 1.0], [NAN, 1.0], [0.0, 2.0]])
    assert not np.signbit(values.numpy()[2, 0])
    assert inverse.tolist() == [0, 1, 2, 2]
    assert counts.tolist() == [1, 1, 2]


def test_unique_dim_of_a_row_with_nan_keeps_every_nan_where_the_sort_leaves_it():
    x = mg.tensor([NAN, 1.0, NAN, -0.0, 0.0, 1.0, 2.0])
    values, inverse, counts = x.unique(dim=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [NAN, 1.0, NAN, -0.0, 1.0, 2.0])
    assert inverse.tolist() == [0, 1, 2, 3, 3, 4, 5]
    assert counts.tolist() == [1, 1, 1, 2, 1, 1]


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
def test_unique_dim_refuses_empty_slices(name):
    x = mg.zeros(2, 0, 3)
    for dim in (0, 2, -1):
        with pytest.raises(RuntimeError, match="0 sized dimensions"):
            getattr(x, name)(dim=dim)
    assert getattr(x, name)(dim=1).shape == (2, 0, 3)


PARTITIONED_17 = [8, 16, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1]


def test_default_sort_of_seventeen_equal_values_is_one_partition_step():
    # std::sort (stable=False, the default): 17 > 16 elements take one introsort step, the
    # pivot v[8] swapped to the front and the pairs (1, 16), (2, 15) ... (8, 9) swapped; the
    # final insertion sort moves nothing (all equal). Ascending and descending alike.
    for dtype in (mg.float32, mg.int64, mg.uint8):
        x = mg.zeros(17, dtype=dtype)
        assert x.sort().indices.tolist() == PARTITIONED_17
        assert x.sort(descending=True).indices.tolist() == PARTITIONED_17
        assert x.argsort().tolist() == PARTITIONED_17
        assert mg.zeros(3, 17, dtype=dtype).argsort(dim=1)[2].tolist() == PARTITIONED_17
        # stable=True keeps the order; 16 elements are an insertion sort, stable too
        assert x.sort(stable=True).indices.tolist() == list(range(17))
        assert mg.zeros(16, dtype=dtype).sort().indices.tolist() == list(range(16))


def test_default_sort_gradient_follows_the_returned_indices():
    x = mg.zeros(17, dtype=mg.float64, requires_grad=True)
    values, _ = x.sort()
    (values * mg.arange(17, dtype=mg.float64)).sum().backward()
    want = np.zeros(17)
    want[PARTITIONED_17] = np.arange(17)
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_default_sort_keeps_the_order_where_pytorch_does_not_sort():
    # a dim of stride 0 (an expanded tensor) is returned as it is; a long 1-D ascending
    # integer tensor takes a radix sort, which is stable
    assert mg.zeros(1, 3).expand(20, 3).sort(dim=0).indices[:, 0].tolist() == list(range(20))
    x = np.arange(40000) % 3
    np.testing.assert_array_equal(mg.tensor(x).sort().indices.numpy(), np.argsort(x, kind="stable"))


def test_unique_numbers_nans_in_the_order_of_the_unstable_sort():
    # 17 NaNs: the sort (NaN vs NaN: neither is less) takes the partition step above, and the
    # k-th NaN it leaves is the k-th of the 17 distinct values
    values, inverse = mg.full((17,), NAN).unique(return_inverse=True)
    assert values.shape == (17,)
    np.testing.assert_array_equal(inverse.numpy(), np.argsort(PARTITIONED_17))
    # 16 elements are insertion-sorted (stable): the NaNs keep their order
    _, inverse = mg.full((16,), NAN).unique(return_inverse=True)
    np.testing.assert_array_equal(inverse.numpy(), np.arange(16))


def test_unique_names_the_zeros_by_the_first_zero_of_the_unstable_sort():
    # the sort of 17 zeros puts element 8 first: its sign names the group
    for at, negative in ((8, True), (0, False)):
        a = np.zeros(17)
        a[at] = -0.0
        values = mg.tensor(a).unique()
        assert values.tolist() == [0.0] and bool(np.signbit(values.numpy()[0])) is negative


def test_median_of_all_elements_takes_the_sign_of_the_zero_nth_element_picks():
    # nth_element at place 1 of [0, 0, 0, -0]: the median of three (v[1], v[2], v[3]) is v[2],
    # swapped to the front; the partition swaps places 1 and 3 and cuts at 2: place 1 now holds
    # the -0 from index 3 (a stable sort would name the 0 at index 1)
    assert bool(np.signbit(mg.tensor([0.0, 0.0, 0.0, -0.0]).median().numpy()))
    assert not np.signbit(mg.tensor([0.0, -0.0, 0.0, 0.0]).median().numpy())


def test_a_call_too_large_to_replay_keeps_the_stable_order(monkeypatch):
    from minigenesis.ops import stl_order

    n = 1001  # (the bounds lowered: a real one is 32,768 elements, 2**24 compiled)
    monkeypatch.setattr(stl_order, "REPLAY_MAX", n - 1)
    monkeypatch.setattr(stl_order, "COMPILED_REPLAY_MAX", n - 1)
    np.testing.assert_array_equal(mg.zeros(n).sort().indices.numpy(), np.arange(n))
    np.testing.assert_array_equal(mg.zeros(n).topk(3).indices.numpy(), [0, 1, 2])
    assert mg.ones(n).mode().indices.item() == n - 1  # the last occurrence


@pytest.mark.parametrize("k", [0, 1])
def test_topk_of_a_zero_dim_tensor_is_the_element_itself(k):
    values, indices = mg.tensor(3.0).topk(k)
    assert values.shape == () and values.item() == 3.0
    assert indices.shape == () and indices.item() == 0


def _tied_rows(rng, shape, dtype):
    """Rows with many ties (a few distinct values), NaN and both zeros among floats."""
    a = rng.integers(-3, 4, shape).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[rng.random(shape) < 0.1] = np.nan
        a[a == 0] = np.where(rng.random(int((a == 0).sum())) < 0.5, -0.0, 0.0)
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16])
def test_the_batched_replay_equals_the_replay_of_each_slice(dtype):
    """sort_orders / topk_orders / mode_indices (compiled where Numba runs, on each element's
    rank) take the steps of the Python replay of each slice on its values."""
    from minigenesis.ops import stl_order as S

    rng = np.random.default_rng(7)
    rows = _tied_rows(rng, (6, 300), dtype)
    as_list = [S._listed(r) for r in rows]
    for descending in (False, True):
        expected = [S.sort_order(r, descending) for r in as_list]
        np.testing.assert_array_equal(S.sort_orders(rows, descending), expected)
    for k in (1, 4, 250):  # partial_sort (k * 64 <= n), nth_element + sort
        for largest in (False, True):
            expected = [S.topk_order(r, k, largest) for r in as_list]
            np.testing.assert_array_equal(S.topk_orders(rows, k, largest), expected)
    np.testing.assert_array_equal(S.mode_indices(rows), [S.mode_index(r) for r in as_list])
    if rows.dtype.kind == "f":  # median: nth_element, NaN last (nanmedian skips them)
        for row, listed in zip(rows, as_list, strict=True):
            for skip_nan in (False, True):
                assert S.median_pick(row, skip_nan) == S.median_index(listed, skip_nan)


def test_topk_of_many_tied_slices_past_the_python_bound_is_replayed():
    """(40, 1000) = 40,000 elements with ties: past the Python replay's bound of 32,768, but
    the compiled replay takes it: each slice's indices are the replayed topk's."""
    from minigenesis.kernels import cpu_jit
    from minigenesis.ops.stl_order import topk_order

    if not cpu_jit.available():
        pytest.skip("the compiled loops are off: the bound of the Python replay stands")
    a = np.random.default_rng(3).integers(0, 20, (40, 1000))
    got = mg.tensor(a).topk(3).indices.numpy()
    np.testing.assert_array_equal(got, [topk_order(r.tolist(), 3, True) for r in a])
