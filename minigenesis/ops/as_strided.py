"""``as_strided``: a view of a tensor's memory with any sizes and strides,

    y[i_0, ..., i_{m-1}] = flat[offset + sum_k i_k * stride_k],

where ``flat`` is the tensor's elements in row-major order (it must be contiguous, so that this is
its memory). Elements may be read more than once (a stride of 0, or overlapping windows), so the
gradient adds: dL/dflat[j] = the sum of dL/dy over every position of y that reads j, which is
an index_add of dL/dy at those positions (PyTorch's as_strided backward for such an input).
"""

from __future__ import annotations

from math import prod

from ..autograd.function import Op
from ..backend import get_array_module


def strided_positions(xp, size: tuple, stride: tuple, offset: int):
    """The flat index each element of the view reads: offset + sum_k i_k stride_k (int64)."""
    positions = xp.full(size, offset, dtype="int64")
    for k, (n, s) in enumerate(zip(size, stride)):
        along = [n if j == k else 1 for j in range(len(size))]
        positions = positions + xp.arange(n, dtype="int64").reshape(along) * s
    return positions


def check_geometry(numel: int, itemsize: int, size: tuple, stride: tuple, offset: int) -> None:
    """PyTorch's checks: one stride per size, none negative, and every element inside memory."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if any(n < 0 for n in size) or offset < 0:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides="
            f"{list(stride)}"
        )
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > numel:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of "
            f"bounds for storage of size {numel * itemsize}"
        )


class AsStrided(Op):
    """y = x's row-major memory seen with ``size`` and ``stride`` from ``offset`` (a view);
    dL/dx = dL/dy added at the flat positions each element of y reads."""

    @staticmethod
    def forward(ctx, x, size, stride, offset):
        ctx.args = (x.shape, size, stride, offset)
        xp = get_array_module(x)
        flat = x.reshape(-1)  # x is contiguous: a view of its memory
        item = x.itemsize
        return xp.lib.stride_tricks.as_strided(flat[offset:], size, tuple(s * item for s in stride))

    @staticmethod
    def backward(ctx, gy):
        shape, size, stride, offset = ctx.args
        xp = get_array_module(gy._data)
        positions = gy._make(strided_positions(xp, size, stride, offset).reshape(-1), False)
        zeros = gy._make(xp.zeros(prod(shape), gy._data.dtype), False)
        gx = zeros.index_add(0, positions, gy.reshape(-1))
        return gx.reshape(shape), None, None, None
