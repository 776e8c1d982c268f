"""Integer-array indices wrap around, as in CuPy: out-of-range is not an error on a GPU.

CuPy documents this among its differences from NumPy: ``cupy.arange(3)[[1, 3]]`` gives
``[1, 0]`` and ``x[[1, 3]] = 10`` writes element 0, where NumPy raises IndexError. Its gather,
scatter and take kernels compute ``i % n`` (made non-negative) and never check, so an index out of
range reads or writes a wrong element silently. The same holds for ``take`` and ``put`` (default
mode ``'wrap'``), ``take_along_axis`` / ``put_along_axis`` (built on advanced indexing),
``ufunc.at`` and ``cupyx.scatter_add`` / ``scatter_max`` / ``scatter_min``. Plain integers are
still checked (``cupy.arange(3)[3]`` raises IndexError), and so are indices into an empty
dimension.

Everything here works on the NumPy data behind the stand-in's arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _wrapped(i: np.ndarray, n: int) -> np.ndarray:
    """``i`` taken modulo ``n`` into [0, n) (CuPy's ``i % n``, plus ``n`` when negative)."""
    return i if n == 0 or i.size == 0 else np.mod(i, n).astype(i.dtype, copy=False)


def _as_index(item: Any) -> Any:
    """A list of ints is an integer array index (as CuPy reads it); anything else as it is."""
    if isinstance(item, list):
        arr = np.asarray(item)
        return arr if arr.dtype.kind in "iub" else item
    return item


def wrap_key(key: Any, shape: tuple[int, ...]) -> Any:
    """``key`` (an index into an array of ``shape``) with each integer array wrapped into the size
    of the dimension it indexes. Masks cover as many dimensions as they have; None and bools add
    none; an Ellipsis covers the rest."""
    items = [_as_index(i) for i in (key if isinstance(key, tuple) else (key,))]

    def dims(i: Any) -> int:
        if i is None or i is Ellipsis or isinstance(i, (bool, np.bool_)):
            return 0
        if isinstance(i, np.ndarray) and i.dtype.kind == "b":
            return i.ndim
        return 1

    rest = len(shape) - sum(dims(i) for i in items)
    axis, out = 0, []
    for i in items:
        if i is Ellipsis:
            axis += max(rest, 0)
        elif isinstance(i, np.ndarray) and i.dtype.kind in "iu" and axis < len(shape):
            i = _wrapped(i, shape[axis])
        axis += dims(i)
        out.append(i)
    return tuple(out) if isinstance(key, tuple) else out[0]


def wrap_at(args: tuple) -> tuple:
    """``(a, indices, *values)`` of ``ufunc.at`` / ``cupyx.scatter_*`` with the indices wrapped."""
    return (args[0], wrap_key(args[1], args[0].shape), *args[2:])


def take(a, indices, axis=None, out=None):
    """``cupy.take``: no ``mode`` argument; indices wrap."""
    n = a.size if axis is None else a.shape[axis]
    return np.take(a, _wrapped(np.asarray(indices), n), axis=axis, out=out)


def put(a, ind, v, mode="wrap"):
    """``cupy.put``: ``mode='wrap'`` by default (NumPy's default raises)."""
    np.put(a, ind, v, mode=mode)


def take_along_axis(arr, indices, axis):
    """``cupy.take_along_axis``: advanced indexing, so the indices wrap."""
    n = arr.size if axis is None else arr.shape[axis]
    return np.take_along_axis(arr, _wrapped(indices, n), axis)


def put_along_axis(arr, indices, values, axis):
    """``cupy.put_along_axis``: an advanced-indexing assignment, so the indices wrap."""
    np.put_along_axis(arr, _wrapped(indices, arr.shape[axis]), values, axis)


FUNCTIONS = {
    "take": take,
    "put": put,
    "take_along_axis": take_along_axis,
    "put_along_axis": put_along_axis,
}


def method(a: np.ndarray, name: str):
    """``getattr(a, name)`` for the device array's methods; ``take`` and ``put`` wrap."""
    if name == "take":
        return lambda indices, axis=None, out=None: take(a, indices, axis, out)
    if name == "put":
        return lambda ind, v, mode="wrap": put(a, ind, v, mode)
    return getattr(a, name)
