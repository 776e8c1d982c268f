"""Which of several equal elements PyTorch's CPU kernels return: libstdc++'s ``std::sort``,
``std::nth_element`` and ``std::partial_sort``, step by step.

Several CPU kernels of PyTorch order (value, index) pairs with the C++ standard library and read
the indices off the result: ``topk`` (``nth_element`` or ``partial_sort``, then ``sort``),
``mode`` (``sort``) and ``unique(dim=...)`` (``sort`` of the slices). None of these algorithms is
stable, so *which* of two equal values comes first is decided by their pivot choices and swaps,
and a program can read that choice (``x.topk(2).indices``, ``x.mode().indices``). This module
replays the GNU implementation (introsort: median-of-three pivot, unguarded Hoare partition,
heapsort past the depth limit, insertion sort below 16 elements) on a Python list, so the
indices are PyTorch's. ``less`` is the kernel's comparison; with NaN, ``<`` is no ordering at
all, and the replay still takes the same steps as the C++ code.

Each step costs about a microsecond per comparison in Python; the callers replay only the
slices where the choice among equal values shows, and only while those slices hold at most
``REPLAY_MAX`` elements in all (``replayable``): a larger call (a sort of a million elements with
ties would take ~20 s here) keeps the stable order, which is a valid answer too (PyTorch does not
document which of equal values comes first). Where Numba runs, the batch functions at the end
(``sort_orders``, ``topk_orders``, ``mode_indices``) replay every slice of a call at once on
integer ranks of the values, compiled (``kernels/stl_order_loop.py``, ~10 ns a comparison), and
the bound is COMPILED_REPLAY_MAX.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..backend import get_array_module, to_numpy
from ..kernels import cpu_jit, stl_order_loop

Less = Callable[[Any, Any], bool]

_THRESHOLD = 16  # libstdc++'s _S_threshold: below it, insertion sort finishes the job
REPLAY_MAX = 1 << 15  # elements replayed per call at most (~0.1-0.3 s)
COMPILED_REPLAY_MAX = 1 << 24  # the same with the compiled loops (~20 ns a comparison: ~1 s)


def replayable(slices: int, length: int, compiled: bool = True) -> bool:
    """Whether replaying ``slices`` slices of ``length`` elements stays within REPLAY_MAX
    (COMPILED_REPLAY_MAX where the compiled loops run and the caller replays through them:
    ``compiled=False`` for unique(dim=), which replays in Python only)."""
    bound = COMPILED_REPLAY_MAX if compiled and cpu_jit.available() else REPLAY_MAX
    return slices * length <= bound


def _lg(n: int) -> int:
    """floor(log2(n)) for n > 0 (std::__lg)."""
    return n.bit_length() - 1


# ------------------------------------------------------------------------------ insertion sorts
def _linear_insert(v: list, last: int, less: Less) -> None:
    """Shift v[last] left past every element it is less than (no lower bound check)."""
    val, nxt = v[last], last - 1
    while less(val, v[nxt]):
        v[last] = v[nxt]
        last, nxt = nxt, nxt - 1
    v[last] = val


def _insertion_sort(v: list, first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        if less(v[i], v[first]):  # new minimum: shift the whole prefix right by one
            val = v[i]
            v[first + 1 : i + 1] = v[first:i]
            v[first] = val
        else:
            _linear_insert(v, i, less)


def _final_insertion_sort(v: list, first: int, last: int, less: Less) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(v, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(v, i, less)
    else:
        _insertion_sort(v, first, last, less)


# ------------------------------------------------------------------------------ heaps
def _push_heap(v: list, first: int, hole: int, top: int, val: Any, less: Less) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(v[first + parent], val):
        v[first + hole] = v[first + parent]
        hole, parent = parent, (parent - 1) // 2
    v[first + hole] = val


def _adjust_heap(v: list, first: int, hole: int, n: int, val: Any, less: Less) -> None:
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if less(v[first + child], v[first + child - 1]):
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    _push_heap(v, first, hole, top, val, less)


def _make_heap(v: list, first: int, last: int, less: Less) -> None:
    n = last - first
    if n < 2:
        return
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(v, first, parent, n, v[first + parent], less)


def _pop_heap(v: list, first: int, last: int, result: int, less: Less) -> None:
    val = v[result]
    v[result] = v[first]
    _adjust_heap(v, first, 0, last - first, val, less)


def _heap_select(v: list, first: int, middle: int, last: int, less: Less) -> None:
    _make_heap(v, first, middle, less)
    for i in range(middle, last):
        if less(v[i], v[first]):
            _pop_heap(v, first, middle, i, less)


def _sort_heap(v: list, first: int, last: int, less: Less) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(v, first, last, last, less)


# ------------------------------------------------------------------------------ partitioning
def _partition_pivot(v: list, first: int, last: int, less: Less) -> int:
    """Median of (v[first+1], v[mid], v[last-1]) moved to v[first], then an unguarded Hoare
    partition of [first+1, last) around it; returns the cut."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if less(v[a], v[b]):
        m = b if less(v[b], v[c]) else (c if less(v[a], v[c]) else a)
    else:
        m = a if less(v[a], v[c]) else (c if less(v[b], v[c]) else b)
    v[first], v[m] = v[m], v[first]
    lo, hi, pivot = first + 1, last, v[first]
    while True:
        while less(v[lo], pivot):
            lo += 1
        hi -= 1
        while less(pivot, v[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        v[lo], v[hi] = v[hi], v[lo]
        lo += 1


# ------------------------------------------------------------------------------ the algorithms
def stl_sort(v: list, less: Less, first: int = 0, last: int | None = None) -> None:
    """std::sort(v.begin() + first, v.begin() + last, less), in place."""
    last = len(v) if last is None else last
    if last - first < 2:
        return
    stack = [(first, last, 2 * _lg(last - first))]  # the recursion on the right part, unrolled
    while stack:
        lo, hi, depth = stack.pop()
        while hi - lo > _THRESHOLD:
            if depth == 0:  # too deep: heapsort this part
                _heap_select(v, lo, hi, hi, less)
                _sort_heap(v, lo, hi, less)
                break
            depth -= 1
            cut = _partition_pivot(v, lo, hi, less)
            # C++ recurses into [cut, hi) first, then loops on [lo, cut): the parts are
            # disjoint, so the order of the work does not change the result
            stack.append((cut, hi, depth))
            hi = cut
    _final_insertion_sort(v, first, last, less)


def stl_nth_element(v: list, nth: int, less: Less) -> None:
    """std::nth_element(v.begin(), v.begin() + nth, v.end(), less), in place."""
    first, last = 0, len(v)
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(v, first, nth + 1, last, less)
            v[first], v[nth] = v[nth], v[first]
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, first, last, less)


def stl_partial_sort(v: list, middle: int, less: Less) -> None:
    """std::partial_sort(v.begin(), v.begin() + middle, v.end(), less), in place."""
    _heap_select(v, 0, middle, len(v), less)
    _sort_heap(v, 0, middle, less)


# ------------------------------------------------------------------------------ the kernels
def _nan(x: float) -> bool:
    return x != x


def _key_less(descending: bool) -> Less:
    """PyTorch's sort comparison of (value, index) pairs: NaN is the largest value."""
    if descending:

        def less(x: tuple, y: tuple) -> bool:
            return (_nan(x[0]) and not _nan(y[0])) or x[0] > y[0]

    else:

        def less(x: tuple, y: tuple) -> bool:
            return (not _nan(x[0]) and _nan(y[0])) or x[0] < y[0]

    return less


def sort_order(values: list[float], descending: bool) -> list[int]:
    """The indices PyTorch's CPU sort (stable=False) returns for one slice: std::sort of
    (value, index) pairs, NaN the largest value."""
    pairs = [(v, i) for i, v in enumerate(values)]
    stl_sort(pairs, _key_less(descending))
    return [i for _, i in pairs]


def topk_order(values: list[float], k: int, largest: bool) -> list[int]:
    """The indices PyTorch's CPU topk returns for one slice (sorted=True): (value, index) pairs
    partially sorted when k * 64 <= n, else nth_element at k - 1 and a sort of the k - 1 before
    it; NaN counts as the largest value."""
    less = _key_less(largest)
    pairs = [(v, i) for i, v in enumerate(values)]
    if k * 64 <= len(pairs):
        stl_partial_sort(pairs, k, less)
    else:
        stl_nth_element(pairs, k - 1, less)
        stl_sort(pairs, less, 0, k - 1)
    return [i for _, i in pairs[:k]]


def mode_index(values: list[float]) -> int:
    """The index PyTorch's CPU mode returns for one slice: std::sort of (value, index) pairs by
    value (plain <, so NaN is unordered and each NaN is its own run), then the last pair of the
    first longest run of equal values."""
    pairs = [(v, i) for i, v in enumerate(values)]
    stl_sort(pairs, lambda x, y: x[0] < y[0])
    best, best_count, count = 0, 0, 0
    for j, (v, i) in enumerate(pairs):
        count += 1
        if j == len(pairs) - 1 or v != pairs[j + 1][0]:  # a run ends here
            if count > best_count:
                best, best_count = i, count
            count = 0
    return best


def unique_dim_groups(slices: list[list[float]]) -> tuple[list[int], list[int], list[int]]:
    """PyTorch's CPU unique(dim=...) on slices (each flattened to a list): std::sort of the
    slice numbers by lexicographic < of their elements (an element pair that is neither < nor >,
    such as NaN and a number, moves on to the next element), then a run of equal slices (all
    elements ==, so a slice with a NaN equals nothing) is one group, named by its first slice.
    Returns (the first slice of each group, each slice's group, each group's size)."""

    def less(a: int, b: int) -> bool:
        for x, y in zip(slices[a], slices[b], strict=True):
            if x < y:
                return True
            if x > y:
                return False
        return False

    order = list(range(len(slices)))
    stl_sort(order, less)
    firsts: list[int] = []
    counts: list[int] = []
    inverse = [0] * len(slices)
    for s in order:  # compare with the group's first slice, as the kernel does
        if not firsts or slices[s] != slices[firsts[-1]] or any(_nan(v) for v in slices[s]):
            firsts.append(s)
            counts.append(0)
        inverse[s] = len(firsts) - 1
        counts[-1] += 1
    return firsts, inverse, counts


def median_index(values: list[float], skip_nan: bool) -> int:
    """The index of the element PyTorch's CPU median (nanmedian with ``skip_nan``) of all
    elements returns, for values without NaN or skipping them: std::nth_element at place
    (m - 1) // 2 of the m numbers, by < (nanmedian: NaN after every number)."""
    pairs = [(v, i) for i, v in enumerate(values)]
    m = sum(not _nan(v) for v in values)

    def less(x: tuple, y: tuple) -> bool:
        return x[0] < y[0] or (_nan(y[0]) and not _nan(x[0]))

    stl_nth_element(pairs, (m - 1) // 2, less)
    return pairs[(m - 1) // 2][1]


# ------------------------------------------------------------------------------ batches of slices
def _ranks(rows: np.ndarray, descending: bool, nan_unordered: bool) -> np.ndarray:
    """Each element's rank among all the values of ``rows`` (equal values, -0.0 and 0.0 too,
    share one): the comparisons of ranks are the comparisons of values, so the algorithms take
    the same steps on them. NaN is the largest value (``_key_less``), or -1 (unordered) for
    ``nan_unordered``; ``descending`` reverses the order."""
    flat = rows.reshape(-1)
    if flat.dtype.kind == "V":  # bfloat16: its exact float32 values
        flat = flat.astype(np.float32)
    _, keys = np.unique(flat, return_inverse=True, equal_nan=True)
    keys = keys.astype(np.int64).reshape(rows.shape)
    if descending:
        keys = keys.max(initial=0) - keys
    if nan_unordered and flat.dtype.kind in "fc":
        keys[np.isnan(rows.astype(flat.dtype, copy=False))] = -1
    return keys


def sort_orders(rows: np.ndarray, descending: bool) -> np.ndarray:
    """``sort_order`` of each row of the 2-D ``rows``, compiled where Numba runs."""
    out = stl_order_loop.run_rows(_ranks(rows, descending, False), 0, 0)
    if out is None:
        out = np.array([sort_order(_listed(row), descending) for row in rows], np.int64)
    return out.reshape(rows.shape)


def topk_orders(rows: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """``topk_order`` of each row of the 2-D ``rows`` (shape (n, k))."""
    how = 1 if k * 64 <= rows.shape[1] else 2
    out = stl_order_loop.run_rows(_ranks(rows, largest, False), how, k)
    if out is None:
        return np.array([topk_order(_listed(row), k, largest) for row in rows], np.int64)
    return out[:, :k]


def mode_indices(rows: np.ndarray) -> np.ndarray:
    """``mode_index`` of each row of the 2-D ``rows``: the compiled sort, then the last
    element of the first longest run of equal keys (a NaN, key -1, is a run of its own)."""
    keys = _ranks(rows, False, True)
    order = stl_order_loop.run_rows(keys, 0, 0)
    if order is None:
        return np.array([mode_index(_listed(row)) for row in rows], np.int64)
    ordered = np.take_along_axis(keys, order, axis=1)
    ends = np.ones(ordered.shape, bool)  # a run ends where the next key differs (or is NaN)
    ends[:, :-1] = (ordered[:, :-1] != ordered[:, 1:]) | (ordered[:, :-1] < 0)
    picks = np.empty(rows.shape[0], np.int64)
    for r in range(rows.shape[0]):
        last = np.flatnonzero(ends[r])
        lengths = np.diff(last, prepend=-1)
        picks[r] = order[r, last[np.argmax(lengths)]]  # argmax: the first longest run
    return picks


def median_pick(values: np.ndarray, skip_nan: bool) -> int:
    """``median_index`` of the 1-D ``values``: nth_element at place (m - 1) // 2 of the m
    numbers, on ranks (NaN the largest), compiled where Numba runs."""
    m = int(values.size - (np.isnan(values).sum() if values.dtype.kind == "f" else 0))
    nth = (m - 1) // 2
    order = stl_order_loop.run_rows(_ranks(values.reshape(1, -1), False, False), 3, nth)
    if order is None:
        return median_index(_listed(values), skip_nan)
    return int(order[0, nth])


def _listed(row: np.ndarray) -> list:
    """A row as Python numbers (floats in float64, so float16/bfloat16 compare exactly)."""
    if row.dtype.kind == "V":
        row = row.astype(np.float32)
    return row.astype(np.float64).tolist() if row.dtype.kind == "f" else row.tolist()


# ------------------------------------------------------------------- unique: where ties show
def unique_is_ambiguous(data: Any) -> bool:
    """Whether unique(dim=...) of float data depends on PyTorch's sort: a NaN (not ordered by
    <) or a -0.0 (equal to 0.0, so which zero names the group is the sort's choice)."""
    xp = get_array_module(data)
    if data.dtype.kind not in "fV" or xp is not np:  # (PyTorch's CUDA kernel sorts otherwise)
        return False
    if not replayable(1, data.size, compiled=False):  # too large: NumPy's grouping stands
        return False
    a = data.astype(xp.float32) if data.dtype.kind == "V" else data
    return bool(xp.isnan(a).any() or ((a == 0) & xp.signbit(a)).any())


def unique_as_pytorch_sorts(data: Any, values: Any, inverse: Any) -> tuple:
    """unique's (values, inverse) where PyTorch's CPU kernel's unstable sort shows: the group of
    zeros is named by the first zero after its sort (-0.0 or 0.0, when both occur), and the
    NaNs (each its own value) take their places in the order that sort leaves them."""
    xp = get_array_module(data)
    if data.dtype.kind not in "fV" or xp is not np:
        return values, inverse
    flat = data.astype(np.float32) if data.dtype.kind == "V" else data
    zero, nan = flat == 0, np.isnan(flat)
    signs = zero & np.signbit(flat)
    mixed_zeros = signs.any() and (zero & ~signs).any()
    if (not mixed_zeros and nan.sum() < 2) or not replayable(1, flat.size):
        return values, inverse
    order = sort_orders(flat.reshape(1, -1), False)[0]
    if mixed_zeros:
        first = order[zero.reshape(-1)[order]][0]
        values = values.copy()
        values[values == 0] = -0.0 if signs.reshape(-1)[first] else 0.0
    if nan.sum() >= 2:  # the NaN places are the last ones: k-th NaN in the sort, k-th place
        inverse = inverse.reshape(-1).copy()
        nans_in_order = order[nan.reshape(-1)[order]]
        inverse[nans_in_order] = len(values) - len(nans_in_order) + np.arange(len(nans_in_order))
    return values, inverse


def unique_slices_as_pytorch(data: Any, axis: int) -> tuple:
    """(values, inverse, counts) of unique(dim=axis) by PyTorch's CPU kernel, replayed on the
    host (``stl_order.unique_dim_groups``)."""
    xp = get_array_module(data)
    host = np.moveaxis(to_numpy(data), axis, 0)
    flat = host.reshape(host.shape[0], -1)
    rows = (flat.astype(np.float32) if flat.dtype.kind == "V" else flat).astype(np.float64)
    firsts, inverse, counts = unique_dim_groups(rows.tolist())
    values = np.moveaxis(host[np.asarray(firsts, dtype=np.int64)], 0, axis)
    return xp.asarray(values), xp.asarray(np.asarray(inverse)), xp.asarray(np.asarray(counts))


def replace_tied_slices(
    a: np.ndarray, d: int, idx: np.ndarray, ties: np.ndarray, orders: Callable
) -> np.ndarray:
    """``idx`` (host indices along ``d`` of the host array ``a``) with the slices ``ties`` marks
    replaced by ``orders(rows)``, the replay of those slices (rows along the last axis)."""
    rows = np.moveaxis(a.astype(np.float32) if a.dtype.kind == "V" else a, d, -1)
    out = np.moveaxis(idx, d, -1).copy()
    out[ties] = orders(rows[ties])  # only the slices with ties
    return np.moveaxis(out, -1, d)
