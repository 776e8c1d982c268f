"""``mg.Size``: the type of ``tensor.shape`` and ``tensor.size()``, as ``torch.Size``.

A tuple of ints (it compares equal to the plain tuple, indexes, unpacks and hashes like one) that
prints as ``minigenesis.Size([2, 3])`` and knows its ``numel()``. Slicing it, adding a tuple to it
or multiplying it by an int gives a Size again, as in PyTorch.

``norm_dim`` reads a ``dim=`` argument against a number of dims (negative dims count from the end).
"""

from __future__ import annotations

import math
import operator
from typing import Any


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


def norm_dim(dim: Any, ndim: int) -> tuple | None:
    """None, an int or a sequence of ints -> None or a sorted tuple of non-negative dims."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    limit = max(ndim, 1)
    out = []
    for d in dims:
        if not -limit <= d < limit:
            raise IndexError(f"dim {d} is out of range for a tensor with {ndim} dims")
        out.append(d % limit)
    return tuple(sorted(out))
