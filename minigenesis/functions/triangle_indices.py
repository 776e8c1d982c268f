"""``mg.tril_indices`` and ``mg.triu_indices``: the (2, N) coordinates (rows, then columns) of a
row x col matrix's lower or upper triangle, bounded by the diagonal ``offset`` (0 the main one,
> 0 above it, < 0 below it), row by row as NumPy's ``tril_indices`` / ``triu_indices`` list
them."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._tensor import Tensor
from ..backend import creation_device, module_for


def _int(value: Any, name: str, what: str) -> int:
    """An int argument: Python and NumPy integers pass; bools and floats are refused."""
    if not isinstance(value, bool | np.bool_):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{name}: {what} must be an int, got {type(value).__name__} {value!r}")


def _triangle_indices(name: str, row: Any, col: Any, offset: Any, dtype: Any, device: Any):
    row, col = _int(row, name, "row"), _int(col, name, "col")
    offset = _int(offset, name, "offset")
    if row < 0 or col < 0:
        raise RuntimeError(f"{name}: row and col must be non-negative, got {row}, {col}")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    if dt not in (_dt.int64, _dt.int32):  # PyTorch has no kernel for the others
        raise NotImplementedError(f"{name}: dtype must be int64 or int32, got {dt.name}")
    xp = module_for(creation_device(device))
    pick = xp.tril_indices if name == "tril_indices" else xp.triu_indices
    r, c = pick(row, offset, col)
    return Tensor._make(xp.stack([r, c]).astype(dt.numpy_dtype), False)


def tril_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None
) -> Tensor:
    """The (2, N) coordinates of the lower triangle (on and below diagonal ``offset``) of a
    row x col matrix, row by row."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, device)


def triu_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None
) -> Tensor:
    """The (2, N) coordinates of the upper triangle (on and above diagonal ``offset``)."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, device)
