"""``Tensor.view(dtype)``: the same bytes read as another element type (a bit reinterpretation,
NumPy's ``arr.view(dtype)``), e.g. float32 1.0 viewed as int32 is 0x3F800000 = 1065353216.

With element sizes s (self's) and t (the new dtype's):

- s == t: the same sizes and strides; any layout and any rank (0-d included).
- s > t (e.g. float32 -> uint8, ratio r = s / t): each element becomes r elements along the last
  dim, so size[-1] *= r, and every other stride and the storage offset are multiplied by r
  (counted in the new, smaller elements). The last dim must be contiguous (stride(-1) == 1).
- s < t (e.g. int8 -> float32, r = t / s): r neighbours along the last dim become one element,
  so size[-1] /= r and the other strides and the offset are divided by r, which needs each of
  them (and size[-1]) to be divisible by r, and the last dim contiguous.

A different element size needs at least one dim. The result shares self's memory and its
version counter (an in-place write through either one is seen by the other, and invalidates
what autograd saved), but, as in PyTorch, it is not differentiable: it never requires grad, and
it is not a view for autograd (no ``._base``).
"""

from __future__ import annotations

from typing import Any

from ..backend import get_array_module
from ..dtypes import DType, scalar_type_name


def check_view_dtype(shape: tuple, stride: tuple, offset: int, src: DType, dst: DType) -> None:
    """PyTorch's RuntimeError (its message, its order of checks) when self (``shape``,
    ``stride``, storage ``offset``, all in elements of ``src``) cannot be read as ``dst``."""
    s, t = src.itemsize, dst.itemsize
    if s == t:
        return
    what = f"to view {scalar_type_name(src)} as {scalar_type_name(dst)} (different element sizes)"
    if not shape:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    r = t // s  # (smaller -> larger: r neighbours become one)
    if s < t:
        if shape[-1] % r:
            raise RuntimeError(
                f"self.size(-1) must be divisible by {r} {what}, but got {shape[-1]}"
            )
    if stride[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
    if s < t:
        if offset % r:
            raise RuntimeError(
                f"self.storage_offset() must be divisible by {r} {what}, but got {offset}"
            )
        for i, st in enumerate(stride[:-1]):
            if st % r:
                raise RuntimeError(
                    f"self.stride({i}) must be divisible by {r} {what}, but got {st}"
                )


def contiguous_strides(shape: tuple) -> tuple:
    """Row-major strides in elements, a size-0 dim counting as 1 (PyTorch's, for a new tensor)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def view_dtype_array(arr: Any, dst: DType) -> Any:
    """``arr``'s bytes read as ``dst`` (no copy), once check_view_dtype has passed. NumPy's
    ``view`` does the size/stride arithmetic above in bytes. A last dim of size 1 may carry any
    stride in NumPy (it is never stepped), and an empty array any strides at all, which NumPy's
    view can refuse: they are set to row-major ones first, which moves nothing."""
    xp = get_array_module(arr)
    if arr.size == 0:
        strides = tuple(s * arr.itemsize for s in contiguous_strides(arr.shape))
        arr = xp.lib.stride_tricks.as_strided(arr, arr.shape, strides)
    elif arr.ndim and arr.shape[-1] == 1 and arr.strides[-1] != arr.itemsize:
        strides = arr.strides[:-1] + (arr.itemsize,)
        arr = xp.lib.stride_tricks.as_strided(arr, arr.shape, strides)
    return arr.view(dst.numpy_dtype)
