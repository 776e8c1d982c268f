"""Which of several equal elements ``kthvalue`` returns: PyTorch's CPU quickselect, step by step.

The k-th smallest value of a slice is well defined; its *index* is not when the value occurs more
than once. PyTorch's CPU kernel answers with whatever position its quickselect (median-of-three
pivot, Hoare partition, NaN larger than every number) leaves in place k. The index is part of the
result a program can read (``x.kthvalue(k).indices``), so this module replays that quickselect on
the slices where the choice matters, and the index is PyTorch's.

A sort finds the value and the index of every slice at once (NumPy, vectorised); only a slice
whose k-th value has a twin is replayed here, one element at a time in Python. That costs about a
microsecond per element, paid only by slices with ties.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def _greater(x: float, y: float) -> bool:
    """x > y, with NaN the largest value (NaN > number, never NaN > NaN)."""
    return (math.isnan(x) and not math.isnan(y)) or x > y


def quickselect_index(values: Sequence[float], k: int) -> int:
    """The index in ``values`` of the element PyTorch's CPU quickselect puts at sorted place
    ``k`` (0-based): the same partition steps, pivot choices and swaps as its kernel."""
    v = list(values)
    idx = list(range(len(v)))

    def swap(i: int, j: int) -> None:
        v[i], v[j] = v[j], v[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(v) - 1
    while hi > lo:
        if hi == lo + 1:  # two elements: order them
            if _greater(v[lo], v[hi]):
                swap(lo, hi)
            break
        # median of three (v[lo], v[mid], v[hi]) becomes the pivot, at v[lo]
        swap(lo + (hi - lo) // 2, lo + 1)
        if _greater(v[lo + 1], v[hi]):
            swap(lo + 1, hi)
        if _greater(v[lo], v[hi]):
            swap(lo, hi)
        if _greater(v[lo + 1], v[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, v[lo]
        while True:  # Hoare partition around the pivot
            i += 1
            while _greater(pivot, v[i]):
                i += 1
            j -= 1
            while _greater(v[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)  # the pivot lands at its sorted place j
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]
