"""``mg.sparse`` (``torch.sparse``): products and constructors of sparse COO tensors.

The sparse tensor itself is in ``sparse_coo.py``; this is the namespace PyTorch programs call:
``torch.sparse.mm(adj, x)`` and the legacy constructor ``torch.sparse.FloatTensor(indices,
values, size)`` that older graph-network code uses.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dt
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .ops import indexing as I
from .ops.gather_scatter import _fold_at
from .size import norm_dim
from .sparse_coo import SparseCOOTensor, sparse_coo_tensor
from .sparse_coo_math import sparse_sum, spmm

__all__ = [
    "mm",
    "addmm",
    "sum",
    "softmax",
    "log_softmax",
    "FloatTensor",
    "DoubleTensor",
    "LongTensor",
]


def mm(mat1: Any, mat2: Any) -> Any:
    """``mat1 @ mat2`` where mat1 may be sparse (the gradient reaches both operands)."""
    return spmm(mat1, mat2) if isinstance(mat1, SparseCOOTensor) else mat1.mm(mat2)


def addmm(mat: Any, mat1: Any, mat2: Any, *, beta: float = 1.0, alpha: float = 1.0) -> Any:
    """``beta * mat + alpha * (mat1 @ mat2)`` with a sparse mat1."""
    return beta * mat + alpha * mm(mat1, mat2)


def sum(input: SparseCOOTensor, dim: Any = None, dtype: Any = None) -> Any:  # noqa: A001, A002
    """The sum over ``dim`` (all dims by default): dense once every sparse dim is summed,
    sparse (coalesced) otherwise."""
    return sparse_sum(input, dim, dtype)


def softmax(input: SparseCOOTensor, dim: int, *, dtype: Any = None) -> SparseCOOTensor:  # noqa: A002
    """Softmax along ``dim`` over the stored entries only (an unstored element counts as -inf,
    not 0): each line along ``dim`` of the coalesced tensor, exp(v - max) / sum exp(v - max)
    over its entries. Sparse, with the coalesced tensor's indices."""
    return _softmax(input, dim, dtype, log=False)


def log_softmax(input: SparseCOOTensor, dim: int, *, dtype: Any = None) -> SparseCOOTensor:  # noqa: A002
    """log of ``softmax``: (v - max) - log sum exp(v - max) over the stored entries of a line."""
    return _softmax(input, dim, dtype, log=True)


def _softmax(x: SparseCOOTensor, dim: int, dtype: Any, log: bool) -> SparseCOOTensor:
    x = x.coalesce()
    if dtype is not None:
        x = x.to(_dt.to_dtype(dtype))
    (dim,) = norm_dim(dim, x.ndim)
    values, n_sparse = x._values(), x.sparse_dim()
    if dim >= n_sparse:  # a dense dim: within each entry's own values
        axis = dim - n_sparse + 1
        out = values.log_softmax(axis) if log else values.softmax(axis)
        return SparseCOOTensor(x._indices(), out, x.shape, coalesced=True)
    # the entries of one line share every sparse index but dim's: number the lines
    index = x._indices()._data
    xp = get_array_module(index)
    others = [d for d in range(n_sparse) if d != dim]
    if others:
        line_of = xp.ravel_multi_index(index[others], tuple(x.shape[d] for d in others))
    else:
        line_of = xp.zeros(index.shape[1], dtype=xp.int64)
    _, line = xp.unique(line_of, return_inverse=True)
    line = line.reshape(-1)
    n_lines = int(line.max()) + 1 if line.size else 0
    lines_shape = (n_lines,) + tuple(values.shape[1:])
    # the largest value of each line, subtracted for range (a constant: no gradient)
    peak = xp.full(lines_shape, -xp.inf, dtype=values._data.dtype)
    _fold_at(xp, "amax", peak, (line,), values._data)  # (CuPy: on the host, exactly)
    shifted = values - TensorBase._make(peak[line])
    exp = shifted.exp()
    total = I.IndexAddGrad.apply(exp, (line,), lines_shape)  # sum of exp over each line
    at_entries = I.GetItem.apply(total, (line,))
    out = shifted - at_entries.log() if log else exp / at_entries
    return SparseCOOTensor(x._indices(), out, x.shape, coalesced=True)


def _legacy(dtype: Any):
    def make(indices: Any, values: Any, size: Any = None) -> SparseCOOTensor:
        return sparse_coo_tensor(indices, values, size, dtype=dtype)

    make.__doc__ = f"The legacy constructor: ``sparse_coo_tensor(..., dtype={dtype})``."
    return make


FloatTensor = _legacy(_dt.float32)
DoubleTensor = _legacy(_dt.float64)
LongTensor = _legacy(_dt.int64)
