"""Attention's softmax over the scores on a GPU: 3 launches forward instead of 6, 2 backward
instead of 4, each written over the scores in place (the plain code is in ``ops/attention.py``);
and on the CPU, the Q, K, V gradients of heads cut from one projection written into one array,
so that Split's backward needs no copy (the end of this file).
"""

from __future__ import annotations

import numpy as np

from .activation import ROW_DOTS, ROW_SUM_EXP
from .cuda import ElementwiseKernel, kernel_fits

# Softmax along the last axis: the row max, the row sums of e^(s - max) (ROW_SUM_EXP), and
# e^(s - max) / sum written over the scores. The exponentials are computed twice (in the sum and
# in the last kernel) rather than written and read back: less memory traffic, and the same
# numbers, as exp rounds the same way both times. The plain path's arithmetic per element, in
# its order (reciprocal, then product); the sums add in another order than NumPy's.
_NORMALIZE_EXP = ElementwiseKernel(
    "softmax_normalize_exp", "T m, T total", "T s", "s = exp(s - m) * ((T)1 / total);"
)
# Softmax's backward dS = P * (dP - rowsum(dP * P)): the row dot products (ROW_DOTS: without the
# (..., L, S) product as a temporary), then (dP - dot) * P over dP.
_SOFTMAX_GRAD = ElementwiseKernel(
    "softmax_rows_grad_in_place", "T dot, T p", "T ds", "ds = (ds - dot) * p;"
)


def softmax_rows(s) -> bool:
    """softmax(s) along the last axis, in place, on a GPU; False where the kernels do not apply."""
    if not kernel_fits(s, contiguous=True):
        return False
    m = s.max(axis=-1, keepdims=True)
    _NORMALIZE_EXP(m, ROW_SUM_EXP(s, m, axis=s.ndim - 1, keepdims=True), s)
    return True


def softmax_rows_backward(dp, p) -> bool:
    """dp <- p * (dp - rowsum(dp * p)), in place, on a GPU; False where it does not apply."""
    if not kernel_fits(dp, p, contiguous=True):
        return False
    _SOFTMAX_GRAD(ROW_DOTS(dp, p, axis=dp.ndim - 1, keepdims=True), p, dp)
    return True


# ---------------------------------------------------------------- the heads' gradients on the CPU
# A GPT block cuts Q, K and V from one projection: (B, L, 3 H E) memory, split into three, each
# viewed as (B, H, L, E) heads. Their gradients come back through the same views in reverse: the
# heads' transpose and reshape (views, when each gradient is laid out as its input is), then
# Split's backward, which concatenates the three into the projection's (B, L, 3 H E) gradient
# (a copy: 0.16 ms isolated, ~0.3 ms inside the char GPT's step, per layer at width 128). When
# the three inputs are views of one array, their gradients are written into one new array at the
# same places (``shared_gradients``): the concatenation is then that array, which
# ``adjacent_pieces`` recognises (views of one array that tile it: no copy).


def shared_gradients(inputs: tuple, dtype) -> tuple | None:
    """For NumPy arrays ``inputs`` (attention's (..., L, E) operands) that are disjoint views of
    one C-contiguous array and share their batch dims (so each gradient has its input's shape),
    empty arrays of ``dtype`` with their shapes and strides, at the same places in one new array
    of that array's shape; None otherwise (another array type or dtype, other bases, overlapping
    views: q = k = v must get three arrays)."""
    base = inputs[0].base
    if type(base) is not np.ndarray or not base.flags.c_contiguous:
        return None
    if any(type(a) is not np.ndarray or a.base is not base for a in inputs):
        return None
    if np.dtype(dtype) != base.dtype or any(a.shape[:-2] != inputs[0].shape[:-2] for a in inputs):
        return None
    if not all(map(_one_place_per_element, inputs)):  # (an expanded view: its gradient is a sum)
        return None
    for i, a in enumerate(inputs):
        for b in inputs[i + 1 :]:
            try:
                if np.shares_memory(a, b, max_work=10_000):  # (exact; ~1 us on these views)
                    return None
            except np.exceptions.TooHardError:
                return None
    memory = np.empty(base.shape, base.dtype)
    start = base.ctypes.data
    return tuple(
        np.ndarray(a.shape, a.dtype, memory, a.ctypes.data - start, a.strides) for a in inputs
    )


def _one_place_per_element(a) -> bool:
    """No two elements of the view ``a`` share memory (no stride 0, no dims that interleave):
    taken dim by dim in order of stride, each stride reaches past all the elements before."""
    extent = a.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(a.strides, a.shape) if n > 1):
        if stride < extent:
            return False
        extent += (n - 1) * stride
    return True


def adjacent_pieces(pieces: tuple, dim: int):
    """concatenate(pieces, axis=dim) without a copy where the pieces are views of one array that
    follow each other along ``dim`` and together are all of it (as ``shared_gradients`` makes
    them); None otherwise (None among the pieces, another array type). The result is a view of
    that whole array."""
    first = pieces[0]
    base = first.base if type(first) is np.ndarray else None
    if type(base) is not np.ndarray or first.ndim == 0:
        return None
    dim %= first.ndim
    shape, strides, step = list(first.shape), first.strides, first.strides[dim]
    offset = first.ctypes.data
    for piece in pieces:
        if type(piece) is not np.ndarray or piece.base is not base or piece.strides != strides:
            return None
        if piece.ctypes.data != offset or piece.ndim != first.ndim:
            return None
        others = piece.shape[:dim] + piece.shape[dim + 1 :]
        if others != first.shape[:dim] + first.shape[dim + 1 :]:
            return None
        offset += piece.shape[dim] * step
    shape[dim] = sum(piece.shape[dim] for piece in pieces)
    whole = np.ndarray(
        tuple(shape), first.dtype, base, first.ctypes.data - base.ctypes.data, strides
    )
    if whole.size != base.size or not whole.flags.c_contiguous:  # not all of it: copy instead
        return None
    return whole
