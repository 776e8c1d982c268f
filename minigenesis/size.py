"""``mg.Size``: the type of ``tensor.shape`` and ``tensor.size()``, as ``torch.Size``.

A tuple of ints (it compares equal to the plain tuple, indexes, unpacks and hashes like one) that
prints as ``minigenesis.Size([2, 3])`` and knows its ``numel()``. Slicing it, adding a tuple to it
or multiplying it by an int gives a Size again, as in PyTorch.

``norm_dim`` reads a ``dim=`` argument against a number of dims (negative dims count from the end);
``integer`` reads a size or a dim given as a Python int or a NumPy integer scalar.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import numpy as np


class Size(tuple):
    """A tensor's shape: ``mg.Size([2, 3])`` (any iterable of ints)."""

    __slots__ = ()

    def __new__(cls, sizes: Any = ()) -> Size:
        items = tuple(sizes)
        for n in items:
            if not isinstance(n, int) and not hasattr(n, "__index__"):
                raise TypeError(
                    f"Size: every dimension must be an int, got {type(n).__name__} {n!r}"
                )
        return super().__new__(cls, (n.__index__() for n in items))

    def numel(self) -> int:
        """The number of elements of a tensor of this shape (1 for ``Size([])``)."""
        return math.prod(self)

    def __repr__(self) -> str:
        return f"minigenesis.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n: Any) -> Any:
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __reduce__(self) -> tuple:
        return (Size, (tuple(self),))


def as_shape(size: tuple, name: str) -> tuple:
    """The shape given as ``f(2, 3)`` or ``f((2, 3))`` (or a Size): every size an int >= 0, as
    PyTorch checks it (a TypeError for a float or a string, a RuntimeError for a negative
    size). ``name`` is the function, for the messages."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = []
    for n in size:
        try:
            if isinstance(n, bool) or type(n).__name__ == "bool_":
                raise TypeError
            shape.append(operator.index(n))
        except TypeError:
            raise TypeError(f"{name}: size must be an int, got {type(n).__name__} {n!r}") from None
    bad = [n for n in shape if n < 0]
    if bad:
        raise RuntimeError(
            f"{name}: trying to create a tensor with negative dimension {bad[0]}: {shape} "
            f"(sizes must be >= 0)"
        )
    return tuple(shape)


def plain_int(value: Any, tensors: bool = True) -> Any:
    """A NumPy integer (np.int64(1), what indexing an array gives) as the Python int it holds,
    as PyTorch takes it wherever an int goes (a dim, k, a size); anything else unchanged, for the
    caller's own check. A 0-d integer tensor too, as PyTorch reads one there (``x.topk(k)``
    with ``k = mask.sum()``), unless ``tensors`` is False (the caller checks tensors itself)."""
    if isinstance(value, np.integer):
        return int(value)
    if tensors and getattr(value, "ndim", None) == 0 and not isinstance(value, np.generic):
        try:
            return operator.index(value)  # (a float tensor: TypeError, left to the caller)
        except TypeError:
            return value
    return value


def python_number(value: Any) -> Any:
    """A NumPy scalar (np.float64(2.5), np.uint8(3): what np.sqrt or indexing an array gives) as
    the Python number it holds, as PyTorch reads it beside a tensor (it changes only the dtype's
    category); anything else unchanged."""
    return value.item() if isinstance(value, np.generic) else value


def int_tuple(value: Any) -> tuple:
    """An int (a NumPy integer, a 0-d integer tensor) as a 1-tuple, a sequence of them as a
    tuple of Python ints."""
    value = plain_int(value)
    if isinstance(value, int):
        return (value,)
    return tuple(plain_int(v) for v in value)


def norm_dim(dim: Any, ndim: int) -> tuple | None:
    """None, an int or a sequence of ints -> None or a sorted tuple of non-negative dims."""
    if dim is None:
        return None
    if isinstance(dim, int):
        dims: tuple = (dim,)
    elif hasattr(dim, "__index__"):  # a NumPy integer (np.int64(1)), as PyTorch takes it
        dims = (operator.index(dim),)
    else:
        dims = tuple(d if isinstance(d, int) else operator.index(d) for d in dim)
    limit = max(ndim, 1)
    out = []
    for d in map(plain_int, dims):
        if not -limit <= d < limit:
            raise IndexError(f"dim {d} is out of range for a tensor with {ndim} dims")
        if d % limit in out:  # (NumPy would say "duplicate value in 'axis'")
            raise RuntimeError(f"dim {d % limit} appears multiple times in the list of dims")
        out.append(d % limit)
    return tuple(sorted(out))


def broadcast_error(*shapes: tuple) -> RuntimeError:
    """PyTorch's error for shapes that do not broadcast together, to raise when NumPy refused.

    Shapes are folded left to right as PyTorch's ``infer_size`` does: the running broadcast shape
    is tensor a, the next shape tensor b, and the first right-aligned dimension where both sizes
    differ and neither is 1 is named by its index in the wider of the two.
    """
    acc: tuple = ()
    for shape in (tuple(s) for s in shapes):
        n = max(len(acc), len(shape))
        a, b = (1,) * (n - len(acc)) + acc, (1,) * (n - len(shape)) + shape
        for dim in range(n - 1, -1, -1):
            if a[dim] != b[dim] and a[dim] != 1 and b[dim] != 1:
                return RuntimeError(
                    f"The size of tensor a ({a[dim]}) must match the size of tensor b "
                    f"({b[dim]}) at non-singleton dimension {dim}"
                )
        acc = tuple(y if x == 1 else x for x, y in zip(a, b))
    return RuntimeError(f"shapes {', '.join(str(list(s)) for s in shapes)} cannot be broadcast")


def broadcast_checked(fn: Any) -> Any:
    """``fn`` with NumPy's ValueError for shapes that do not broadcast turned into PyTorch's
    RuntimeError (``broadcast_error`` of the arguments that have a shape); costs one call frame,
    so it is kept off the hottest ops, which catch the error inline."""

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ValueError as err:
            if "broadcast" not in str(err):
                raise
            shapes = [a.shape for a in args if hasattr(a, "shape")]
            raise broadcast_error(*shapes) from None

    return checked


def check_unique_dim(shape: tuple, axis: int) -> None:
    """unique / unique_consecutive along ``axis`` compare whole slices: with another dim of
    size 0 the slices are empty, which PyTorch refuses (RuntimeError)."""
    if any(s == 0 for d, s in enumerate(shape) if d != axis):
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
