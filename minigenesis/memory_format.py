"""Memory formats: the order in which a 4-d or 5-d tensor's elements lie in memory.

A tensor of shape (N, C, H, W) keeps its shape whatever its format; only its strides change.
``contiguous_format`` is row-major (the last dim moves fastest: strides (CHW, HW, W, 1));
``channels_last`` stores the channels of one pixel next to each other, as an (N, H, W, C)
row-major array seen through a transpose (strides (HWC, 1, WC, C)); ``channels_last_3d`` does the
same for (N, C, D, H, W). ``preserve_format`` asks an op to keep its input's format.

Tensors here are NumPy (or CuPy) arrays with real strides, so a channels_last tensor is exactly
that: ``empty((N, H, W, C)).transpose(0, 3, 1, 2)``. This file works on arrays only.
"""

from __future__ import annotations

from typing import Any


class memory_format:  # noqa: N801  (PyTorch's class name: torch.memory_format)
    """One of the four memory formats; compared by identity, printed as its name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"minigenesis.{self.name}"

    def __reduce__(self) -> str:  # pickled by name: unpickling gives the same object
        return self.name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# The dims from slowest to fastest in memory; the rank the format needs
_ORDER = {channels_last: ((0, 2, 3, 1), 4), channels_last_3d: ((0, 2, 3, 4, 1), 5)}


def check_format(fmt: Any, owner: str) -> memory_format:
    """``fmt`` itself, or a TypeError naming ``owner`` when it is not a memory format."""
    if not isinstance(fmt, memory_format):
        raise TypeError(
            f"{owner}(): memory_format must be a memory format (e.g. channels_last), got "
            f"{type(fmt).__name__}"
        )
    return fmt


def _order(fmt: memory_format, ndim: int) -> tuple[int, ...]:
    """The dims from slowest to fastest for ``fmt`` at rank ``ndim`` (PyTorch's rank error)."""
    if fmt is contiguous_format:
        return tuple(range(ndim))
    order, rank = _ORDER[fmt]
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    return order


def _element_strides(arr: Any) -> tuple[int, ...]:
    return tuple(s // arr.itemsize for s in arr.strides)


def is_contiguous_as(arr: Any, fmt: memory_format) -> bool:
    """True when ``arr``'s strides are those of ``fmt``: walking the dims from fastest to
    slowest, each dim's stride is the product of the sizes of the faster dims. Dims of size 1
    may have any stride (PyTorch's rule); a rank the format does not fit is never contiguous."""
    if fmt is preserve_format:  # PyTorch's is_contiguous reads it as the row-major test
        fmt = contiguous_format
    if fmt in _ORDER and arr.ndim != _ORDER[fmt][1]:
        return False
    strides, expected = _element_strides(arr), 1
    for d in reversed(_order(fmt, arr.ndim)):
        if arr.shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= arr.shape[d]
    return True


def _is_dense(arr: Any) -> bool:
    """Non-overlapping and dense: the elements fill one block of memory with no gaps, in some
    order of the dims (then a copy can keep the strides exactly)."""
    dims = sorted((s, n) for s, n in zip(_element_strides(arr), arr.shape) if n != 1)
    expected = 1
    for stride, n in dims:
        if stride != expected:
            return False
        expected *= n
    return True


def _looks_channels_last(arr: Any) -> bool:
    """PyTorch's guess (``suggest_memory_format``) that strides are channels_last: walking
    C, then the spatial dims from last to first, then N, strides never decrease."""
    if arr.ndim not in (4, 5):
        return False
    order = _ORDER[channels_last if arr.ndim == 4 else channels_last_3d][0]
    strides, low = _element_strides(arr), 0
    if strides[1] == 0:
        return False
    for d in reversed(order):
        if arr.shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:  # (N, 1, H, W): as much contiguous as channels_last
            return False
        low = strides[d] * max(arr.shape[d], 1)
    return True


def suggest_format(arr: Any) -> memory_format:
    """The format a copy of ``arr`` takes under ``preserve_format`` when its strides cannot be
    kept exactly (an array with gaps): channels_last when they look it, else contiguous."""
    if _looks_channels_last(arr):
        return channels_last if arr.ndim == 4 else channels_last_3d
    return contiguous_format


def empty_as(xp: Any, shape: tuple, dtype: Any, fmt: memory_format) -> Any:
    """An uninitialised array of ``shape`` laid out in ``fmt`` (not ``preserve_format``)."""
    order = _order(fmt, len(shape))
    inverse = tuple(order.index(d) for d in range(len(shape)))
    return xp.empty(tuple(shape[d] for d in order), dtype).transpose(inverse)


def empty_like_as(xp: Any, arr: Any, dtype: Any, fmt: memory_format) -> Any:
    """An uninitialised array shaped like ``arr``: in ``fmt``, or for ``preserve_format`` with
    ``arr``'s very strides when ``arr`` is dense, and with dense strides in the order of
    ``arr``'s when it has gaps (a slice with a step: both NumPy's ``order="K"``, as PyTorch's
    ``empty_like`` infers dense strides); an expanded ``arr`` (a stride 0) in the format its
    strides suggest."""
    if fmt is preserve_format:
        if 0 not in _element_strides(arr):
            return xp.empty_like(arr, dtype=dtype, order="K")
        fmt = suggest_format(arr)
    return empty_as(xp, arr.shape, dtype, fmt)


def copy_like_as(xp: Any, values: Any, like: Any, fmt: memory_format) -> Any:
    """A copy of ``values`` (shaped like ``like``) laid out as ``empty_like_as(like, fmt)``."""
    out = empty_like_as(xp, like, values.dtype, fmt)
    out[...] = values
    return out


def copy_as(xp: Any, arr: Any, fmt: memory_format) -> Any:
    """A copy of ``arr`` with the same values, laid out in ``fmt`` (or as ``preserve_format``
    keeps it)."""
    return copy_like_as(xp, arr, arr, fmt)


def as_format(xp: Any, arr: Any, fmt: memory_format) -> Any:
    """``arr`` itself when ``fmt`` is ``preserve_format`` or the format its strides suggest
    (PyTorch's test in ``to(memory_format=...)``), else a copy laid out in ``fmt``."""
    if fmt is preserve_format or suggest_format(arr) is fmt:
        return arr
    return copy_as(xp, arr, fmt)
