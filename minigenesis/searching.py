"""Searching sorted values and testing membership: ``mg.searchsorted``, ``mg.bucketize`` and
``mg.isin``. Their results are indices or booleans, so none of them is differentiable.

``searchsorted(seq, v)`` answers "where would v go in the sorted seq": with ``side="left"``
(right=False) the first i with v <= seq[i], with ``side="right"`` the first i with v < seq[i].
``bucketize(v, boundaries)`` is the same search with the arguments the other way round.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._tensor import Tensor
from .backend import get_array_module
from .out_arg import write_out
from .promotion import result_type


def _as_tensor(x: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if like is not None:
        return Tensor._make(get_array_module(like._data).asarray(x), False)
    return Tensor._make(np.asarray(x), False)


def _side(right: bool, side: str | None) -> str:
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(f"searchsorted(): side can only be 'left' or 'right' but got {side!r}")
    if right and side == "left":
        raise RuntimeError(
            "searchsorted(): side and right can't be set to opposites, got side of left while "
            "right was True"
        )
    return side


def searchsorted(
    sorted_sequence: Tensor,
    input: Any,  # noqa: A002
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
    out: Tensor | None = None,
) -> Tensor:
    """Indices into the innermost dim of ``sorted_sequence`` where the values of ``input`` would
    be inserted to keep it sorted. A 1-D sequence serves every value; an N-D one has one sorted
    row per leading index, and ``input`` must match its leading dims. ``input`` may be a number
    (a 0-d result). ``sorter`` holds the indices that sort an unsorted sequence. ``out``: a
    tensor to write into, int32 with ``out_int32``, else int64 (PyTorch's rule)."""
    seq = sorted_sequence
    if not isinstance(seq, Tensor):
        raise TypeError(
            f"searchsorted(): sorted_sequence must be a Tensor, got {type(seq).__name__}"
        )
    scalar = not isinstance(input, Tensor)
    values = _as_tensor(input, seq)
    s = _side(right, side)
    data = seq._data
    if sorter is not None:
        if sorter.shape != seq.shape:
            raise RuntimeError(
                f"searchsorted(): sorter and sorted_sequence must have the same shape, got "
                f"{tuple(sorter.shape)} and {tuple(seq.shape)}"
            )
        order = sorter._data
        if order.dtype != np.int64:
            raise RuntimeError(
                f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                f"{sorter.dtype}"
            )
        if order.size and (int(order.min()) < 0 or int(order.max()) >= data.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
        data = get_array_module(data).take_along_axis(data, order, -1)
    xp = get_array_module(data)
    v = values._data
    if data.dtype.kind == "V":  # bfloat16 as its exact float32 values: ml_dtypes' bfloat16
        data, v = data.astype(np.float32), v.astype(np.float32)  # compares NaN as unordered
    if seq.ndim == 0:
        raise RuntimeError("searchsorted(): sorted_sequence must have at least one dim")
    if seq.ndim > 1 and (scalar or v.ndim != seq.ndim or v.shape[:-1] != data.shape[:-1]):
        raise RuntimeError(
            f"searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            f"dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}"
        )
    lead = math.prod(data.shape[:-1])  # (-1 cannot be inferred next to a 0)
    rows = data.reshape(lead, data.shape[-1])
    if _has_nan(data) or _has_nan(v):
        vals = v.reshape(1, v.size) if seq.ndim == 1 else v.reshape(lead, v.shape[-1])
        idx = _bisect(rows, vals, s == "right").reshape(v.shape)
    elif seq.ndim == 1:
        idx = xp.searchsorted(data, v, side=s)
    else:
        vals = v.reshape(lead, v.shape[-1])
        idx = xp.stack([xp.searchsorted(r, q, side=s) for r, q in zip(rows, vals, strict=True)])
        idx = idx.reshape(v.shape)
    result = Tensor._make(xp.asarray(idx).astype(np.int32 if out_int32 else np.int64), False)
    if out is None:
        return result
    message = _OUT_DTYPE + f" and out_int32 flag is {out_int32}"
    return write_out("searchsorted", result, out, message)


def _has_nan(a) -> bool:
    return a.dtype.kind == "f" and bool(get_array_module(a).isnan(a).any())


def _bisect(rows, vals, right: bool):
    """PyTorch's binary search, step for step, for rows and values with NaN, whose place NumPy
    decides otherwise (it sorts NaN last). Each value v halves [start, end) of its row: it goes
    right of mid while not (row[mid] >= v) (side left) or not (row[mid] > v) (side right). A
    comparison with NaN is false, so a NaN value ends past the row's end and a NaN in the row
    counts as below every value it is compared with."""
    xp = get_array_module(rows)
    n = rows.shape[-1]
    start = xp.zeros(vals.shape, dtype=np.int64)
    end = xp.full(vals.shape, n, dtype=np.int64)
    if n == 0:
        return start
    for _ in range(max(n, 1).bit_length()):  # each step at least halves every [start, end)
        active = start < end
        mid = start + (end - start) // 2
        at_mid = xp.take_along_axis(rows, xp.minimum(mid, n - 1), -1)
        below = ~(at_mid > vals) if right else ~(at_mid >= vals)
        start = xp.where(active & below, mid + 1, start)
        end = xp.where(active & ~below, mid, end)
    return start


_OUT_DTYPE = (
    "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
    "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's dtype "
    "{out}"
)


def bucketize(
    input: Any,  # noqa: A002
    boundaries: Tensor,
    *,
    out_int32: bool = False,
    right: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """The bucket of each value of ``input`` among the 1-D increasing ``boundaries``: i with
    boundaries[i-1] < x <= boundaries[i] (right=False) or boundaries[i-1] <= x < boundaries[i]
    (right=True)."""
    if not isinstance(boundaries, Tensor) or boundaries.ndim != 1:
        got = boundaries.ndim if isinstance(boundaries, Tensor) else type(boundaries).__name__
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got {got}")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def isin(
    elements: Any,
    test_elements: Any,
    *,
    assume_unique: bool = False,
    invert: bool = False,
) -> Tensor:
    """A bool tensor shaped like ``elements``: True where the element occurs in
    ``test_elements`` (False there with ``invert``). Either argument may be a number."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): at least one of elements and test_elements must be a Tensor")
    ref = elements if isinstance(elements, Tensor) else test_elements
    e, t = _as_tensor(elements, ref), _as_tensor(test_elements, ref)
    if e._data.dtype.kind == "b" or t._data.dtype.kind == "b":  # PyTorch's kernel has no bool
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    # compared in the promoted dtype, as ==: float16 2048 is in int32 [2049], which is 2048
    # in float16; bfloat16 as its exact float32 values (NumPy's isin sorts)
    dtype = result_type(elements, test_elements).numpy_dtype
    dtype = np.dtype(np.float32) if dtype.kind == "V" else dtype
    xp = get_array_module(e._data)
    with np.errstate(over="ignore"):  # int32 2**31 - 1 is inf in float16, as in PyTorch
        ea, ta = e._data.astype(dtype, copy=False), t._data.astype(dtype, copy=False)
    found = xp.isin(ea, ta.reshape(-1), assume_unique=assume_unique, invert=invert)
    return Tensor._make(xp.asarray(found), False)


__all__ = ["searchsorted", "bucketize", "isin"]
