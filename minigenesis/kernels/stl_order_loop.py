"""libstdc++'s ``std::sort`` / ``nth_element`` / ``partial_sort`` on integer keys, compiled by
Numba (cpu_jit.py): the fast path of ``ops/stl_order.py``'s replay.

The algorithms only compare and move elements, so which permutation they leave depends on the
outcome of each comparison alone. ``ops/stl_order.py`` therefore hands over, for a batch of
slices, each element's rank among its slice's values (equal values share a rank; NaN gets the
rank its comparison gives it, or -1 where ``<`` leaves it unordered: ``mode``'s plain ``<``),
and the loops here sort the element numbers by those ranks, step for step as the C++ code
(read ``ops/stl_order.py`` first: the same functions, on arrays instead of lists). A comparison
is then one integer ``<`` in machine code instead of a Python call (~1 us): a (64, 1000) topk
with ties replays in well under a millisecond instead of ~0.1 s.
"""

from __future__ import annotations

import numpy as np

from . import cpu_jit

_THRESHOLD = 16  # libstdc++'s _S_threshold


def _less(key, a, b):  # pragma: no cover  (compiled)
    """key[a] < key[b], where a key of -1 (a NaN under plain <) is unordered with everything."""
    ka, kb = key[a], key[b]
    return ka >= 0 and kb >= 0 and ka < kb


def _linear_insert(v, key, last):  # pragma: no cover  (compiled)
    val, nxt = v[last], last - 1
    while _less(key, val, v[nxt]):
        v[last] = v[nxt]
        last, nxt = nxt, nxt - 1
    v[last] = val


def _insertion_sort(v, key, first, last):  # pragma: no cover  (compiled)
    for i in range(first + 1, last):
        if _less(key, v[i], v[first]):
            val = v[i]
            for j in range(i, first, -1):
                v[j] = v[j - 1]
            v[first] = val
        else:
            _linear_insert(v, key, i)


def _final_insertion_sort(v, key, first, last):  # pragma: no cover  (compiled)
    if last - first > _THRESHOLD:
        _insertion_sort(v, key, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(v, key, i)
    else:
        _insertion_sort(v, key, first, last)


def _push_heap(v, key, first, hole, top, val):  # pragma: no cover  (compiled)
    parent = (hole - 1) // 2
    while hole > top and _less(key, v[first + parent], val):
        v[first + hole] = v[first + parent]
        hole, parent = parent, (parent - 1) // 2
    v[first + hole] = val


def _adjust_heap(v, key, first, hole, n, val):  # pragma: no cover  (compiled)
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if _less(key, v[first + child], v[first + child - 1]):
            child -= 1
        v[first + hole] = v[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        hole = child - 1
    _push_heap(v, key, first, hole, top, val)


def _heap_select(v, key, first, middle, last):  # pragma: no cover  (compiled)
    n = middle - first
    if n >= 2:  # make_heap
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(v, key, first, parent, n, v[first + parent])
    for i in range(middle, last):
        if _less(key, v[i], v[first]):  # pop_heap(first, middle, i)
            val = v[i]
            v[i] = v[first]
            _adjust_heap(v, key, first, 0, n, val)


def _sort_heap(v, key, first, last):  # pragma: no cover  (compiled)
    while last - first > 1:
        last -= 1
        val = v[last]
        v[last] = v[first]
        _adjust_heap(v, key, first, 0, last - first, val)


def _partition_pivot(v, key, first, last):  # pragma: no cover  (compiled)
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if _less(key, v[a], v[b]):
        if _less(key, v[b], v[c]):
            m = b
        elif _less(key, v[a], v[c]):
            m = c
        else:
            m = a
    elif _less(key, v[a], v[c]):
        m = a
    elif _less(key, v[b], v[c]):
        m = c
    else:
        m = b
    v[first], v[m] = v[m], v[first]
    lo, hi, pivot = first + 1, last, v[first]
    while True:
        while _less(key, v[lo], pivot):
            lo += 1
        hi -= 1
        while _less(key, pivot, v[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        v[lo], v[hi] = v[hi], v[lo]
        lo += 1


def _lg(n):  # pragma: no cover  (compiled)
    r = -1
    while n:
        n >>= 1
        r += 1
    return r


def _sort(v, key, first, last):  # pragma: no cover  (compiled)
    if last - first < 2:
        return
    stack = np.empty((2 * 64 + 4, 3), np.int64)  # depth 2 lg n bounds the pending parts
    top = 0
    stack[0, 0], stack[0, 1], stack[0, 2] = first, last, 2 * _lg(last - first)
    top = 1
    while top:
        top -= 1
        lo, hi, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        while hi - lo > _THRESHOLD:
            if depth == 0:
                _heap_select(v, key, lo, hi, hi)
                _sort_heap(v, key, lo, hi)
                break
            depth -= 1
            cut = _partition_pivot(v, key, lo, hi)
            stack[top, 0], stack[top, 1], stack[top, 2] = cut, hi, depth
            top += 1
            hi = cut
    _final_insertion_sort(v, key, first, last)


def _nth_element(v, key, nth):  # pragma: no cover  (compiled)
    first, last = 0, len(v)
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(v, key, first, nth + 1, last)
            v[first], v[nth] = v[nth], v[first]
            return
        depth -= 1
        cut = _partition_pivot(v, key, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, key, first, last)


def _rows(keys, how, k, out):  # pragma: no cover  (compiled)
    """Each row of ``keys`` (n, m): out[r] = the element numbers in the order the algorithm
    leaves them; how 0: sort, 1: partial_sort(k), 2: nth_element(k - 1) + sort of the k - 1
    before it, 3: nth_element(k) alone."""
    m = keys.shape[1]
    for r in range(keys.shape[0]):
        v = out[r]
        key = keys[r]
        for i in range(m):
            v[i] = i
        if how == 0:
            _sort(v, key, 0, m)
        elif how == 1:
            _heap_select(v, key, 0, k, m)
            _sort_heap(v, key, 0, k)
        elif how == 2:
            _nth_element(v, key, k - 1)
            _sort(v, key, 0, k - 1)
        else:
            _nth_element(v, key, k)


_HELPERS = (
    "_less _linear_insert _insertion_sort _final_insertion_sort _push_heap _adjust_heap "
    "_heap_select _sort_heap _partition_pivot _lg _sort _nth_element"
).split()
_compiled = None


def _compile():
    """The helpers become Numba dispatchers first (the module's names rebound: the loop calls
    them as compiled code), then the loop; cached on disk as cpu_jit's kernels (a first compile
    takes seconds), for this process only where Numba finds no place to write."""
    njit = cpu_jit._numba().njit
    space = globals()
    for name in _HELPERS:
        if not hasattr(space[name], "py_func"):
            space[name] = njit(cache=True, nogil=True)(space[name])
    try:
        return njit(cache=True, nogil=True)(_rows)
    except RuntimeError as error:
        if "no locator available" not in str(error):
            raise
        for name in _HELPERS:
            space[name] = njit(cache=False, nogil=True)(space[name].py_func)
        return njit(cache=False, nogil=True)(_rows)


def run_rows(keys: np.ndarray, how: int, k: int) -> np.ndarray | None:
    """The order each row of the int64 rank array ``keys`` is left in (see ``_rows``), or None
    where the compiled loops are off (the caller replays in Python)."""
    global _compiled
    if not cpu_jit.available():
        return None
    if _compiled is None:
        _compiled = _compile()
    out = np.empty(keys.shape, np.int64)
    _compiled(np.ascontiguousarray(keys, np.int64), how, k, out)
    return out
