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
dims), ``to_dense``, ``coalesce``, ``t``, casts and moves, sums, the sparse @ dense product, and
the arithmetic PyTorch defines on them: sparse + sparse, dense + sparse (dense), sparse * number,
* dense or * sparse (sparse), and the pointwise functions with f(0) = 0 (abs, sqrt, sin ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .conversions import as_array
from .ops import indexing as I
from .ops import shape as S
from .ops.sparse import SparseDenseMM
from .promotion import result_type
from .size import Size, norm_dim


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


def _on_coalesced_values(name: str) -> Any:
    """The sparse form of a pointwise ``f`` with f(0) = 0: f of the coalesced values."""

    def method(self: SparseCOOTensor) -> SparseCOOTensor:
        c = self.coalesce()
        return c._with_values(getattr(c._values_t, name)())

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}`` of each stored value (after coalescing), sparse."
    return method


def _promoted_values(a: SparseCOOTensor, b: SparseCOOTensor) -> tuple:
    """The two value tensors in their promoted dtype (float32 with float64 is float64)."""
    va, vb = a._values_t, b._values_t
    if va.dtype == vb.dtype:
        return va, vb
    target = result_type(va, vb)
    return va.to(target), vb.to(target)


class SparseCOOTensor:
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
        values = I.IndexAddGrad.apply(self._values_t, (inverse.reshape(-1),), shape)
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

    # ------------------------------------------------------------------ arithmetic
    # Every result is built from the values tensors with recorded ops, so gradients reach the
    # operands' values (and a dense operand) through the ordinary graph.
    def add(self, other: Any, *, alpha: Any = 1) -> SparseCOOTensor:
        """``self + alpha * other`` for a sparse ``other`` of the same size: the entries of both
        (concatenated; coalesced when both were). PyTorch refuses a dense ``other`` here (its
        ``dense + sparse`` is dense, ``__radd__``)."""
        if not isinstance(other, SparseCOOTensor):
            raise RuntimeError(
                "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
            )
        self._check_same_size(other, "add")
        if alpha != 1:
            other = other.mul(alpha)
        mine, theirs = _promoted_values(self, other)
        xp = get_array_module(self._indices_t._data)
        indices = xp.concatenate([self._indices_t._data, other._indices_t._data], axis=1)
        values = S.Cat.apply(0, mine, theirs)
        out = SparseCOOTensor(TensorBase._make(indices), values, self.shape)
        return out.coalesce() if self._coalesced and other._coalesced else out

    def sub(self, other: Any, *, alpha: Any = 1) -> SparseCOOTensor:
        if not isinstance(other, SparseCOOTensor):
            raise RuntimeError(
                "sub(sparse, dense) is not supported. Use sub(dense, sparse) instead."
            )
        return self.add(other, alpha=-alpha)

    __add__, __sub__ = add, sub

    def __radd__(self, other: Any) -> Any:
        """``dense + sparse``: a dense tensor (the sparse operand's dense form added)."""
        if not isinstance(other, TensorBase):
            raise TypeError(
                f"unsupported operand type(s) for +: '{type(other).__name__}' and sparse"
            )
        return other + self.to_dense()

    def __rsub__(self, other: Any) -> Any:
        """``dense - sparse``: a dense tensor."""
        if not isinstance(other, TensorBase):
            raise TypeError(
                f"unsupported operand type(s) for -: '{type(other).__name__}' and sparse"
            )
        return other - self.to_dense()

    def mul(self, other: Any) -> SparseCOOTensor:
        """``self * other``, sparse: a number or 0-d tensor scales the values; a dense tensor
        (broadcast to self's size) multiplies each entry by its element there; a sparse tensor
        keeps the positions stored in both (where the other is zero, so is the product)."""
        if isinstance(other, SparseCOOTensor):
            return self._mul_sparse(other)
        if isinstance(other, TensorBase) and other.ndim != 0:
            return self._with_values(self._values_t * self._dense_at_entries(other, "mul"))
        return self._with_values(self._values_t * other)

    __mul__ = __rmul__ = mul

    def _dense_at_entries(self, dense: Any, name: str) -> Any:
        """The elements of ``dense`` (broadcast to self's size) at the stored entries: one row
        of shape ``dense dims`` per entry, as the values are laid out (differentiable)."""
        try:
            full = dense.expand(tuple(self.shape))
        except RuntimeError:
            raise RuntimeError(
                f"{name}: the dense operand of shape {tuple(dense.shape)} does not broadcast to "
                f"the sparse operand's size {tuple(self.shape)}"
            ) from None
        return I.GetItem.apply(full, self._positions())

    def _mul_sparse(self, other: SparseCOOTensor) -> SparseCOOTensor:
        """The product of two sparse tensors: nonzero only where both store an entry."""
        self._check_same_size(other, "mul")
        a, b = self.coalesce(), other.coalesce()
        xp = get_array_module(a._indices_t._data)
        la, lb = a._linear(), b._linear()  # sorted, one per position (coalesced)
        where = xp.searchsorted(lb, la)
        found = xp.zeros(la.shape, dtype=bool)
        inside = where < lb.size
        found[inside] = lb[where[inside]] == la[inside]
        in_a, in_b = xp.flatnonzero(found), where[found]
        values = I.GetItem.apply(a._values_t, (in_a,)) * I.GetItem.apply(b._values_t, (in_b,))
        indices = TensorBase._make(a._indices_t._data[:, in_a])
        return SparseCOOTensor(indices, values, self.shape, coalesced=True)

    def _check_same_size(self, other: SparseCOOTensor, name: str) -> None:
        if tuple(other.shape) != tuple(self.shape) or other.sparse_dim() != self.sparse_dim():
            raise RuntimeError(
                f"{name}: expected sparse tensors of the same size and sparse dims, got sizes "
                f"{tuple(self.shape)} and {tuple(other.shape)}"
            )

    def __truediv__(self, other: Any) -> SparseCOOTensor:
        if isinstance(other, TensorBase | SparseCOOTensor) and other.ndim != 0:
            raise RuntimeError(
                "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                f"{list(other.shape)} for divisor)"
            )
        return self._with_values(self._values_t / other)

    div = __truediv__

    def __rtruediv__(self, other: Any) -> SparseCOOTensor:
        raise RuntimeError(
            "Sparse division requires a scalar or zero-dim dense tensor divisor (got a sparse "
            f"divisor of size {list(self.shape)})"
        )

    def __neg__(self) -> SparseCOOTensor:
        return self._with_values(-self._values_t)

    neg = __neg__

    def pow(self, exponent: Any) -> SparseCOOTensor:
        """Each stored value to a number's power (0 ** p is 0 only for p > 0)."""
        if isinstance(exponent, TensorBase | SparseCOOTensor) and exponent.ndim != 0:
            raise RuntimeError("pow of a sparse tensor takes a number or 0-d tensor exponent")
        if not float(exponent) > 0:
            raise RuntimeError(f"pow: a sparse tensor to the power {exponent} is not sparse")
        c = self.coalesce()
        return c._with_values(c._values_t**exponent)

    __pow__ = pow

    # f(0) = 0 for these, so f of the stored values is f of the whole tensor (repeats summed
    # first: f(a + b) is not f(a) + f(b))
    abs = _on_coalesced_values("abs")
    sqrt = _on_coalesced_values("sqrt")
    square = _on_coalesced_values("square")
    sin = _on_coalesced_values("sin")
    tan = _on_coalesced_values("tan")
    asin = _on_coalesced_values("asin")
    atan = _on_coalesced_values("atan")
    sinh = _on_coalesced_values("sinh")
    tanh = _on_coalesced_values("tanh")
    asinh = _on_coalesced_values("asinh")
    atanh = _on_coalesced_values("atanh")
    expm1 = _on_coalesced_values("expm1")
    log1p = _on_coalesced_values("log1p")
    relu = _on_coalesced_values("relu")
    sign = _on_coalesced_values("sign")
    sgn = _on_coalesced_values("sgn")
    floor = _on_coalesced_values("floor")
    ceil = _on_coalesced_values("ceil")
    round = _on_coalesced_values("round")  # noqa: A003
    trunc = _on_coalesced_values("trunc")
    erf = _on_coalesced_values("erf")
    deg2rad = _on_coalesced_values("deg2rad")
    rad2deg = _on_coalesced_values("rad2deg")
    __abs__ = abs

    def sum(self, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
        """The sum over ``dim`` (all dims by default): dense once every sparse dim is summed,
        sparse (coalesced) otherwise, as ``torch.sparse.sum``."""
        if keepdim:
            raise RuntimeError("sum of a sparse tensor does not support keepdim=True")
        return sparse_sum(self, dim, dtype)

    def mm(self, dense: Any) -> Any:
        return spmm(self, dense)

    def mv(self, vec: Any) -> Any:
        """``self @ vec`` for a sparse (m, n) matrix and a dense (n,) vector: dense (m,)."""
        if vec.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got {vec.ndim}-D vector")
        return spmm(self, vec.unsqueeze(1)).squeeze(1)

    def matmul(self, other: Any) -> Any:
        return self.mv(other) if getattr(other, "ndim", None) == 1 else spmm(self, other)

    __matmul__ = matmul

    def __rmatmul__(self, dense: Any) -> Any:
        """``dense @ sparse`` for 2-D matrices: (sparse^T @ dense^T)^T, dense."""
        if dense.ndim != 2:
            raise RuntimeError(f"dense @ sparse: expected a 2-D dense matrix, got {dense.ndim}-D")
        return spmm(self.t(), dense.t()).t()

    def numel(self) -> int:
        """The number of elements of the dense form (stored or not)."""
        n = 1
        for size in self.shape:
            n *= size
        return n

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


def spmm(sparse: SparseCOOTensor, dense: Any) -> Any:
    """``sparse @ dense`` for a sparse (m, n) matrix and a dense (n, k) one: (m, k), dense.

    Gradients reach ``dense`` and the sparse operand's values (``ops/sparse.py``)."""
    if not isinstance(sparse, SparseCOOTensor):
        raise TypeError(f"spmm expects a sparse matrix first, got {type(sparse).__name__}")
    if isinstance(dense, SparseCOOTensor):
        return _sparse_sparse_mm(sparse, dense)
    if sparse.sparse_dim() != 2 or sparse.dense_dim() != 0 or dense.ndim != 2:
        raise RuntimeError(
            f"spmm: expected a 2-D sparse matrix and a 2-D dense matrix, got shapes "
            f"{tuple(sparse.shape)} and {tuple(dense.shape)}"
        )
    if sparse.shape[1] != dense.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({sparse.shape[0]}x{sparse.shape[1]} and "
            f"{dense.shape[0]}x{dense.shape[1]})"
        )
    if sparse.dtype != dense.dtype:
        raise RuntimeError(
            f"expected mat1 and mat2 to have the same dtype, but got: {sparse.dtype} != "
            f"{dense.dtype}"
        )
    rows, cols = sparse._positions()
    return SparseDenseMM.apply(sparse._values_t, dense, rows, cols, sparse.shape[0])


def _sparse_sparse_mm(a: SparseCOOTensor, b: SparseCOOTensor) -> SparseCOOTensor:
    """``a @ b`` of two sparse matrices, sparse (coalesced): every entry (i, k) of a meets every
    entry (k, j) of b, and their product lands at (i, j)."""
    for x in (a, b):
        if x.sparse_dim() != 2 or x.dense_dim() != 0:
            raise RuntimeError(f"sparse @ sparse expects 2-D sparse matrices, got {tuple(x.shape)}")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
            f"{b.shape[0]}x{b.shape[1]})"
        )
    b = b.coalesce()  # sorted by row: the entries of row k are one run
    xp = get_array_module(b._indices_t._data)
    a_rows, a_cols = a._indices_t._data
    b_rows, b_cols = b._indices_t._data
    per_row = xp.bincount(b_rows, minlength=b.shape[0])
    first = xp.cumsum(per_row) - per_row  # where row k's run starts
    matches = per_row[a_cols]  # how many entries of b each entry of a meets
    from_a = xp.repeat(xp.arange(a_cols.size), matches)
    # the position within its run of each pair: 0, 1, ... per entry of a
    offset = xp.arange(from_a.size) - xp.repeat(xp.cumsum(matches) - matches, matches)
    from_b = first[a_cols[from_a]] + offset
    mine, theirs = _promoted_values(a, b)
    values = I.GetItem.apply(mine, (from_a,)) * I.GetItem.apply(theirs, (from_b,))
    indices = TensorBase._make(xp.stack([a_rows[from_a], b_cols[from_b]]).astype(xp.int64))
    return SparseCOOTensor(indices, values, (a.shape[0], b.shape[1])).coalesce()


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


def sparse_sum(input: SparseCOOTensor, dim: Any = None, dtype: Any = None) -> Any:  # noqa: A002
    """``torch.sparse.sum``: the sum over ``dim`` (all dims by default). Summed dense dims are
    summed in the values; summed sparse dims drop out of the indices, and entries that then
    share a position add up (coalesce). With every sparse dim summed the result is dense."""
    values = input._values_t if dtype is None else input._values_t.to(_dt.to_dtype(dtype))
    if dim is None:
        return values.sum()
    dims = norm_dim(dim, input.ndim)
    n_sparse = input.sparse_dim()
    dense_axes = tuple(d - n_sparse + 1 for d in dims if d >= n_sparse)
    if dense_axes:
        values = values.sum(dense_axes)
    kept = [d for d in range(n_sparse) if d not in dims]
    if not kept:
        return values.sum(0)
    indices = TensorBase._make(input._indices_t._data[kept])
    size = tuple(n for d, n in enumerate(input.shape) if d not in dims)
    return SparseCOOTensor(indices, values, size).coalesce()
