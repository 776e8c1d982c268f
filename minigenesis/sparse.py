"""``mg.sparse`` (``torch.sparse``): products and constructors of sparse COO tensors.

The sparse tensor itself is in ``sparse_coo.py``; this is the namespace PyTorch programs call:
``torch.sparse.mm(adj, x)`` and the legacy constructor ``torch.sparse.FloatTensor(indices,
values, size)`` that older graph-network code uses.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dt
from .sparse_coo import SparseCOOTensor, sparse_coo_tensor, spmm

__all__ = ["mm", "addmm", "sum", "FloatTensor", "DoubleTensor", "LongTensor"]


def mm(mat1: Any, mat2: Any) -> Any:
    """``mat1 @ mat2`` where mat1 may be sparse (the gradient reaches both operands)."""
    return spmm(mat1, mat2) if isinstance(mat1, SparseCOOTensor) else mat1.mm(mat2)


def addmm(mat: Any, mat1: Any, mat2: Any, *, beta: float = 1.0, alpha: float = 1.0) -> Any:
    """``beta * mat + alpha * (mat1 @ mat2)`` with a sparse mat1."""
    return beta * mat + alpha * mm(mat1, mat2)


def sum(input: SparseCOOTensor, dim: Any = None) -> Any:  # noqa: A001, A002
    """The sum of the stored values (over all dims, or ``dim`` of the dense form)."""
    if dim is None:
        return input._values().sum()
    return input.to_dense().sum(dim)


def _legacy(dtype: Any):
    def make(indices: Any, values: Any, size: Any = None) -> SparseCOOTensor:
        return sparse_coo_tensor(indices, values, size, dtype=dtype)

    make.__doc__ = f"The legacy constructor: ``sparse_coo_tensor(..., dtype={dtype})``."
    return make


FloatTensor = _legacy(_dt.float32)
DoubleTensor = _legacy(_dt.float64)
LongTensor = _legacy(_dt.int64)
