"""Sparse COO tensors: a tensor stored as its nonzero entries, as ``torch.sparse_coo``.

A (2, 3) matrix with 3 at (0, 2), 4 at (1, 0) and 5 at (1, 2) is stored as

    indices = [[0, 1, 1],      one column per stored entry: its row ...
               [2, 0, 2]]      ... and its column
    values  = [3, 4, 5]        its value;   size = (2, 3)

Memory and work grow with the number of nonzeros (``nnz``), not with the size: a graph of 10,000
nodes and 50,000 edges has a 10,000 x 10,000 adjacency matrix but 50,000 stored entries. A graph
network multiplies it with dense features (``mg.spmm(adj, x)``, ``mg.sparse.mm``, ``adj @ x``);
gradients flow to the dense operand and to ``values`` (``ops/sparse.py``).

The same position may be stored twice (the entries add up): ``coalesce()`` sorts the entries and
sums the repeats, and ``indices()`` / ``values()`` are only given for a coalesced tensor, as in
PyTorch. Here: building (``sparse_coo_tensor``, ``Tensor.to_sparse``, hybrid ones with dense
dims), ``to_dense``, ``coalesce``, ``t``, casts and moves; the arithmetic, sums and products
(sparse + sparse, dense + sparse, sparse * dense, sparse @ dense ...) are the mixin
``SparseMath`` in ``sparse_coo_math.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .conversions import as_array
from .ops import indexing as I
from .size import Size
from .sparse_coo_math import SparseMath


class _Layout:
    """How a tensor's elements are stored (``mg.strided``: every element; ``mg.sparse_coo``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"minigenesis.{self.name}"

    def __reduce__(self) -> str:
        return self.name


strided = _Layout("strided")
sparse_coo = _Layout("sparse_coo")


class SparseCOOTensor(SparseMath):
    """A sparse tensor: ``indices`` (sparse_dim, nnz) int64, ``values`` (nnz, *dense dims), size."""

    layout = sparse_coo
    is_sparse = True

    def __init__(self, indices: Any, values: Any, size: tuple, coalesced: bool = False) -> None:
        self._indices_t, self._values_t = indices, values
        self.shape = Size(size)
        self._coalesced = coalesced

    # ------------------------------------------------------------------ what it is
    @property
    def dtype(self) -> Any:
        return self._values_t.dtype

    @property
    def device(self) -> Any:
        return self._values_t.device

    @property
    def is_cuda(self) -> bool:
        return self._values_t.is_cuda

    @property
    def requires_grad(self) -> bool:
        return self._values_t.requires_grad

    def requires_grad_(self, requires_grad: bool = True) -> SparseCOOTensor:
        self._values_t.requires_grad_(requires_grad)
        return self

    @property
    def grad(self) -> SparseCOOTensor | None:
        """A leaf's gradient: sparse, at the stored positions (coalesced, as PyTorch's)."""
        g = self._values_t.grad
        if g is None:
            return None
        # entries stored at one position all got dL/dA there: keep it once per position
        xp = get_array_module(g._data)
        _, first = xp.unique(self._linear(), return_index=True)
        indices = TensorBase._make(self._indices_t._data[:, first])
        picked = TensorBase._make(g._data[first])
        return SparseCOOTensor(indices, picked, self.shape, coalesced=True)

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    def dim(self) -> int:
        return len(self.shape)

    ndim = property(dim)

    def sparse_dim(self) -> int:
        return self._indices_t.shape[0]

    def dense_dim(self) -> int:
        return self._values_t.ndim - 1

    def _nnz(self) -> int:
        return self._values_t.shape[0]

    def is_coalesced(self) -> bool:
        return self._coalesced

    def _indices(self) -> Any:
        return self._indices_t

    def _values(self) -> Any:
        return self._values_t

    def indices(self) -> Any:
        self._require_coalesced("indices")
        return self._indices_t

    def values(self) -> Any:
        self._require_coalesced("values")
        return self._values_t

    def _require_coalesced(self, what: str) -> None:
        if not self._coalesced:
            raise RuntimeError(
                f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first"
            )

    # ------------------------------------------------------------------ conversions
    def _positions(self) -> tuple:
        """The index as a tuple of arrays, one per sparse dim (for x[positions])."""
        return tuple(self._indices_t._data)

    def _linear(self) -> Any:
        """Each entry's position as one number (row-major over the sparse dims)."""
        xp = get_array_module(self._indices_t._data)
        dims = self.shape[: self.sparse_dim()]
        if self._nnz() == 0:
            return xp.zeros(0, dtype=xp.int64)
        return xp.ravel_multi_index(self._indices_t._data, dims)

    def coalesce(self) -> SparseCOOTensor:
        """Entries sorted by position, repeated positions summed (differentiably)."""
        if self._coalesced:
            return self
        xp = get_array_module(self._indices_t._data)
        unique, inverse = xp.unique(self._linear(), return_inverse=True)
        dims = self.shape[: self.sparse_dim()]
        positions = (
            xp.stack(xp.unravel_index(unique, dims)) if unique.size else self._indices_t._data
        )
        shape = (unique.size,) + tuple(self._values_t.shape[1:])
        values = self._values_t
        # repeats of a 2-byte float are summed in float32 and rounded once (a running sum in
        # float16 rounds at every step: 40 repeats of ~50 were off by 2 units, now by <= 1)
        low = values.dtype if values.dtype in (_dt.float16, _dt.bfloat16) else None
        if low is not None:
            values = values.float()
        values = I.IndexAddGrad.apply(values, (inverse.reshape(-1),), shape)
        if low is not None:
            values = values.to(low)
        indices = TensorBase._make(positions.astype(xp.int64).reshape(self.sparse_dim(), -1))
        return SparseCOOTensor(indices, values, self.shape, coalesced=True)

    def to_dense(self) -> Any:
        """The dense tensor: zeros, with each stored value added at its position."""
        return I.IndexAddGrad.apply(self._values_t, self._positions(), tuple(self.shape))

    def to_sparse(self) -> SparseCOOTensor:
        return self

    def t(self) -> SparseCOOTensor:
        """The transpose of a sparse matrix: rows and columns of the indices swapped."""
        if self.sparse_dim() != 2 or self.dense_dim() != 0:
            raise RuntimeError(f"t() expects a 2-D sparse matrix, got shape {tuple(self.shape)}")
        flipped = TensorBase._make(self._indices_t._data[::-1].copy())
        return SparseCOOTensor(flipped, self._values_t, self.shape[::-1])

    def transpose(self, dim0: int, dim1: int) -> SparseCOOTensor:
        if sorted(d % 2 for d in (dim0, dim1)) != [0, 1]:
            return self
        return self.t()

    def _with_values(self, values: Any) -> SparseCOOTensor:
        indices = self._indices_t
        if values.device != indices.device:
            indices = indices.to(values.device)
        return SparseCOOTensor(indices, values, self.shape, self._coalesced)

    def to(self, *args: Any, **kwargs: Any) -> SparseCOOTensor:
        return self._with_values(self._values_t.to(*args, **kwargs))

    def cuda(self, *args: Any, **kwargs: Any) -> SparseCOOTensor:
        return self._with_values(self._values_t.cuda(*args, **kwargs))

    def cpu(self) -> SparseCOOTensor:
        return self._with_values(self._values_t.cpu())

    def float(self) -> SparseCOOTensor:
        return self._with_values(self._values_t.float())

    def double(self) -> SparseCOOTensor:
        return self._with_values(self._values_t.double())

    def type(self, dtype: Any) -> SparseCOOTensor:
        return self._with_values(self._values_t.type(dtype))

    def detach(self) -> SparseCOOTensor:
        return self._with_values(self._values_t.detach())

    def clone(self) -> SparseCOOTensor:
        return self._with_values(self._values_t.clone())

    def zero_(self) -> SparseCOOTensor:
        """In place: no stored entries left (an all-zero tensor of the same size)."""
        xp = get_array_module(self._values_t._data)
        n_sparse = self.sparse_dim()
        self._indices_t = TensorBase._make(xp.zeros((n_sparse, 0), dtype=xp.int64))
        values = xp.zeros((0,) + tuple(self._values_t.shape[1:]), self._values_t._data.dtype)
        self._values_t = TensorBase._make(values)
        self._coalesced = True
        return self

    def __reduce__(self) -> tuple:
        # pickled as its parts, rebuilt through sparse_coo_tensor's checks (a weights_only load
        # allows _rebuild_sparse_coo: serialization/restricted_calls.py)
        parts = (self._indices_t, self._values_t, tuple(self.shape), self._coalesced)
        return (_rebuild_sparse_coo, parts)

    def __repr__(self) -> str:
        pad = " " * len("tensor(indices=")
        indices = repr(self._indices_t).replace("\n", "\n" + pad)
        values = repr(self._values_t).replace("\n", "\n" + " " * len("       values="))
        return (
            f"tensor(indices={indices},\n       values={values},\n       "
            f"size={tuple(self.shape)}, nnz={self._nnz()}, layout={self.layout})"
        )


def sparse_coo_tensor(
    indices: Any,
    values: Any,
    size: Any = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
    is_coalesced: bool | None = None,
) -> SparseCOOTensor:
    """A sparse tensor with ``values[i]`` at position ``indices[:, i]``. Without ``size``, each
    sparse dim is one more than its largest index (and the dense dims are values' own)."""
    index_t = _as_tensor(indices, _dt.int64, device)
    value_t = _as_tensor(values, dtype, device)
    if index_t.ndim != 2 or index_t.dtype.is_floating_point:
        raise RuntimeError(
            f"indices must be a 2-D integer tensor (sparse_dim, nnz), got {index_t.dtype} of "
            f"shape {tuple(index_t.shape)}"
        )
    index_t = TensorBase._make(index_t._data.astype(np.int64, copy=False))
    nnz = index_t.shape[1]
    if value_t.ndim == 0 or value_t.shape[0] != nnz:
        raise RuntimeError(
            f"indices and values must have the same number of entries, got {nnz} indices and "
            f"values of shape {tuple(value_t.shape)}"
        )
    dense_dims = tuple(value_t.shape[1:])
    idx = index_t._data
    if size is None:
        sparse_size = tuple(int(m) + 1 for m in idx.max(axis=1)) if nnz else (0,) * idx.shape[0]
        size = sparse_size + dense_dims
    size = tuple(int(s) for s in size)
    if len(size) != idx.shape[0] + len(dense_dims):
        raise RuntimeError(
            f"number of dimensions must be sparse_dim ({idx.shape[0]}) + dense_dim "
            f"({len(dense_dims)}), but got {len(size)}"
        )
    limits = get_array_module(idx).asarray(size[: idx.shape[0]])  # (on idx's device)
    if nnz and ((idx < 0).any() or (idx.max(axis=1) >= limits).any()):
        raise RuntimeError(f"sparse_coo_tensor: an index is out of bounds for size {size}")
    if requires_grad:
        value_t = value_t.detach().requires_grad_(True)
    return SparseCOOTensor(index_t, value_t, size, coalesced=bool(is_coalesced))


def _rebuild_sparse_coo(indices: Any, values: Any, size: tuple, coalesced: bool) -> Any:
    """Unpickling: the sparse tensor of these parts (indices checked against the size)."""
    return sparse_coo_tensor(indices, values, size, is_coalesced=coalesced)


def _as_tensor(data: Any, dtype: Any, device: Any) -> Any:
    """A tensor for ``data`` (a tensor keeps its graph; a cast or move is recorded on it)."""
    if isinstance(data, TensorBase):
        if dtype is not None and data.dtype != _dt.to_dtype(dtype):
            data = data.to(_dt.to_dtype(dtype))
        return data if device is None else data.to(device)
    return TensorBase._make(as_array(data, dtype, device))


def dense_to_sparse(x: Any, sparse_dim: int | None = None) -> SparseCOOTensor:
    """``x.to_sparse(sparse_dim)``: the first ``sparse_dim`` dims (all by default) sparse, the
    rest dense: one entry per position whose dense slice has a nonzero, coalesced."""
    sparse_dim = x.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 < sparse_dim <= x.ndim:
        raise RuntimeError(
            f"sparse_dim argument must be in [1, {x.ndim}] for a {x.ndim}-D tensor, got "
            f"{sparse_dim}"
        )
    xp = get_array_module(x._data)
    nonzero = x._data != 0
    if sparse_dim < x.ndim:  # a position is stored when any element of its slice is nonzero
        nonzero = nonzero.reshape(x.shape[:sparse_dim] + (-1,)).any(axis=-1)
    positions = tuple(xp.nonzero(nonzero))
    values = I.GetItem.apply(x, positions)  # differentiable: the gradient goes back to x
    indices = TensorBase._make(xp.stack(positions).astype(xp.int64).reshape(sparse_dim, -1))
    return SparseCOOTensor(indices, values, tuple(x.shape), coalesced=True)
