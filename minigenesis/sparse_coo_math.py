"""The arithmetic of sparse COO tensors, a mixin of ``SparseCOOTensor`` (``sparse_coo.py``
holds the storage, building, conversions and coalesce).

PyTorch defines on them: sparse + sparse (sparse: the entries of both), dense + sparse (dense),
sparse * number, * dense (broadcast to the sparse size) or * sparse (the positions stored in
both), the pointwise functions with f(0) = 0 (abs, sqrt, sin ...: f of the coalesced values),
sums over dims (sparse until every sparse dim is summed), and the products sparse @ dense,
sparse @ vector, dense @ sparse (dense) and sparse @ sparse (sparse). Every result is built from
the values tensors with recorded ops, so gradients reach the operands' values (and a dense
operand) through the ordinary graph. A result is made with ``type(self)(indices, values, size,
coalesced)``: this module sits below the class it serves.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dt
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .ops import indexing as I
from .ops import shape as S
from .ops.sparse import SparseDenseMM
from .promotion import result_type
from .size import norm_dim


def _on_coalesced_values(name: str) -> Any:
    """The sparse form of a pointwise ``f`` with f(0) = 0: f of the coalesced values."""

    def method(self: SparseMath) -> SparseMath:
        c = self.coalesce()
        return c._with_values(getattr(c._values_t, name)())

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}`` of each stored value (after coalescing), sparse."
    return method


def _promoted_values(a: SparseMath, b: SparseMath) -> tuple:
    """The two value tensors in their promoted dtype (float32 with float64 is float64)."""
    va, vb = a._values_t, b._values_t
    if va.dtype == vb.dtype:
        return va, vb
    target = result_type(va, vb)
    return va.to(target), vb.to(target)


class SparseMath:
    """Mixin of ``SparseCOOTensor``: its arithmetic, products and sums (``sparse_coo.py`` holds the
    storage, building, conversions and coalesce)."""

    # ------------------------------------------------------------------ arithmetic
    # Every result is built from the values tensors with recorded ops, so gradients reach the
    # operands' values (and a dense operand) through the ordinary graph.
    def add(self, other: Any, *, alpha: Any = 1) -> SparseMath:
        """``self + alpha * other`` for a sparse ``other`` of the same size: the entries of both
        (concatenated; coalesced when both were). PyTorch refuses a dense ``other`` here (its
        ``dense + sparse`` is dense, ``__radd__``)."""
        if not isinstance(other, SparseMath):
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
        out = type(self)(TensorBase._make(indices), values, self.shape)
        return out.coalesce() if self._coalesced and other._coalesced else out

    def sub(self, other: Any, *, alpha: Any = 1) -> SparseMath:
        if not isinstance(other, SparseMath):
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

    def mul(self, other: Any) -> SparseMath:
        """``self * other``, sparse: a number or 0-d tensor scales the values; a dense tensor
        (broadcast to self's size) multiplies each entry by its element there; a sparse tensor
        keeps the positions stored in both (where the other is zero, so is the product)."""
        if isinstance(other, SparseMath):
            return self._mul_sparse(other)
        if isinstance(other, TensorBase) and other.ndim != 0:
            return self._with_values(self._values_t * self._dense_at_entries(other, "mul"))
        return self._with_values(self._values_t * other)

    __mul__ = __rmul__ = mul

    # ------------------------------------------------------------------ in place
    # The out-of-place result's entries become self's, in self's dtype (a result that self's
    # dtype cannot hold, a float into an integer tensor, is PyTorch's RuntimeError).
    def _become(self, out: SparseMath) -> SparseMath:
        mine, theirs = self._values_t.dtype, out._values_t.dtype
        if mine != theirs and theirs.is_floating_point and not mine.is_floating_point:
            raise RuntimeError(
                f"result type {theirs} can't be cast to the desired output type {mine}"
            )
        self._indices_t, self._coalesced = out._indices_t, out._coalesced
        self._values_t = out._values_t if mine == theirs else out._values_t.to(mine)
        return self

    def add_(self, other: Any, *, alpha: Any = 1) -> SparseMath:
        return self._become(self.add(other, alpha=alpha))

    def sub_(self, other: Any, *, alpha: Any = 1) -> SparseMath:
        return self._become(self.sub(other, alpha=alpha))

    def mul_(self, other: Any) -> SparseMath:
        return self._become(self.mul(other))

    def div_(self, other: Any) -> SparseMath:
        return self._become(self / other)

    __iadd__, __isub__, __imul__, __itruediv__ = add_, sub_, mul_, div_

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

    def _mul_sparse(self, other: SparseMath) -> SparseMath:
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
        return type(self)(indices, values, self.shape, coalesced=True)

    def _check_same_size(self, other: SparseMath, name: str) -> None:
        if tuple(other.shape) != tuple(self.shape) or other.sparse_dim() != self.sparse_dim():
            raise RuntimeError(
                f"{name}: expected sparse tensors of the same size and sparse dims, got sizes "
                f"{tuple(self.shape)} and {tuple(other.shape)}"
            )

    def __truediv__(self, other: Any) -> SparseMath:
        if isinstance(other, TensorBase | SparseMath) and other.ndim != 0:
            raise RuntimeError(
                "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                f"{list(other.shape)} for divisor)"
            )
        return self._with_values(self._values_t / other)

    div = __truediv__

    def __rtruediv__(self, other: Any) -> SparseMath:
        raise RuntimeError(
            "Sparse division requires a scalar or zero-dim dense tensor divisor (got a sparse "
            f"divisor of size {list(self.shape)})"
        )

    def __neg__(self) -> SparseMath:
        return self._with_values(-self._values_t)

    neg = __neg__

    def pow(self, exponent: Any) -> SparseMath:
        """Each stored value to a number's power (0 ** p is 0 only for p > 0)."""
        if isinstance(exponent, TensorBase | SparseMath) and exponent.ndim != 0:
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

    def bmm(self, dense: Any) -> Any:
        """A batch of sparse (m, n) matrices (a 3-D sparse tensor) times a dense (b, n, p) batch:
        dense (b, m, p). The batch is one block-diagonal (b*m, b*n) product: entry (k, i, j)
        is row k*m + i, column k*n + j, against the dense batch stacked to (b*n, p)."""
        if self.sparse_dim() != 3 or self.dense_dim() != 0 or dense.ndim != 3:
            raise RuntimeError(
                f"bmm: expected a 3-D sparse tensor and a 3-D dense one, got shapes "
                f"{tuple(self.shape)} and {tuple(dense.shape)}"
            )
        b, m, n = self.shape
        if tuple(dense.shape[:2]) != (b, n):
            raise RuntimeError(
                f"bmm: the batches do not fit: {tuple(self.shape)} @ {tuple(dense.shape)}"
            )
        k, i, j = self._indices_t._data
        xp = get_array_module(k)
        flat = TensorBase._make(xp.stack([k * m + i, k * n + j]))
        blocks = type(self)(flat, self._values_t, (b * m, b * n))
        return spmm(blocks, dense.reshape(b * n, dense.shape[2])).reshape(b, m, dense.shape[2])

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

    def index_select(self, dim: int, index: Any) -> Any:
        """The slices at ``index`` along ``dim`` (repeats allowed), sparse. Along a sparse dim an
        entry whose index there is ``index[j]`` appears once per such j, at j (uncoalesced);
        along a dense dim the values' own slices are taken."""
        (dim,) = norm_dim(dim, self.ndim)
        xp = get_array_module(self._indices_t._data)
        picks = index._data if isinstance(index, TensorBase) else xp.asarray(index)
        if picks.ndim > 1 or picks.dtype.kind not in "iu":
            raise IndexError("index_select(): Index is supposed to be a vector of integers")
        picks = picks.reshape(-1).astype(xp.int64)
        if picks.size and (picks.min() < 0 or picks.max() >= self.shape[dim]):
            raise IndexError(f"index_select(): index out of range for size {self.shape[dim]}")
        size = list(self.shape)
        size[dim] = picks.size
        n_sparse = self.sparse_dim()
        if dim >= n_sparse:
            values = self._values_t.index_select(dim - n_sparse + 1, TensorBase._make(picks))
            return type(self)(self._indices_t, values, tuple(size), self._coalesced)
        # pair each entry with every j where picks[j] is its index along dim
        order = xp.argsort(picks)
        in_order, at = picks[order], self._indices_t._data[dim]
        start = xp.searchsorted(in_order, at, "left")
        matches = xp.searchsorted(in_order, at, "right") - start
        entry = xp.repeat(xp.arange(at.size), matches)
        offset = xp.arange(entry.size) - xp.repeat(xp.cumsum(matches) - matches, matches)
        indices = self._indices_t._data[:, entry]
        indices[dim] = order[start[entry] + offset]
        values = I.GetItem.apply(self._values_t, (entry,))
        return type(self)(TensorBase._make(indices), values, tuple(size))

    def numel(self) -> int:
        """The number of elements of the dense form (stored or not)."""
        n = 1
        for size in self.shape:
            n *= size
        return n


def spmm(sparse: SparseMath, dense: Any) -> Any:
    """``sparse @ dense`` for a sparse (m, n) matrix and a dense (n, k) one: (m, k), dense.

    Gradients reach ``dense`` and the sparse operand's values (``ops/sparse.py``)."""
    if not isinstance(sparse, SparseMath):
        raise TypeError(f"spmm expects a sparse matrix first, got {type(sparse).__name__}")
    if isinstance(dense, SparseMath):
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


def _sparse_sparse_mm(a: SparseMath, b: SparseMath) -> SparseMath:
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
    return type(a)(indices, values, (a.shape[0], b.shape[1])).coalesce()


def sparse_sum(input: SparseMath, dim: Any = None, dtype: Any = None) -> Any:  # noqa: A002
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
    return type(input)(indices, values, size).coalesce()


def sparse_mask(dense: Any, mask: SparseMath) -> Any:
    """``dense.sparse_mask(mask)``: sparse, with ``mask``'s indices and the elements of ``dense``
    at them (mask's values are not read); gradients flow back to ``dense``."""
    if tuple(dense.shape) != tuple(mask.shape):
        raise RuntimeError(
            f"sparse_mask(): operands have incompatible sizes; self has size "
            f"{list(dense.shape)} but mask has size {list(mask.shape)}"
        )
    values = I.GetItem.apply(dense, mask._positions())
    return type(mask)(mask._indices_t, values, mask.shape, mask._coalesced)
