"""Shape and index names built from differentiable ops: roll, index_select, movedim, tile,
repeat_interleave, take_along_dim, scatter / scatter_add, index_fill / index_copy, diag, trace,
outer, addmm, baddbmm (the Tensor's methods; their mg.* forms are in ``shape_functions.py``).

Every name here composes ops that already have a backward (indexing, cat, permute, expand, gather,
index_add, matmul), so each gradient follows from theirs:

    scatter(x, d, idx, src):     out = x with out[.., idx[.., j, ..], ..] = src[.., j, ..]
        dL/dx = dL/dout with zeros at the written places;  dL/dsrc = gather(dL/dout, d, idx)
    scatter_add(x, d, idx, src): out = x + (zeros with src added at idx)
        dL/dx = dL/dout;  dL/dsrc = gather(dL/dout, d, idx)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .ops import shape as S
from .ops import sorting as SO
from .ops.indexing import check_index_range


def _dim(dim: int, ndim: int) -> int:
    limit = max(ndim, 1)
    if not -limit <= dim < limit:
        raise IndexError(f"dim {dim} is out of range for a tensor with {ndim} dims")
    return dim % limit


def _index_1d(t: Any, index: Any, d: int, name: str) -> Any:
    """The int64 index array of index_select / index_fill / index_copy, range-checked."""
    if not isinstance(index, TensorBase):
        raise TypeError(f"{name}: index must be a Tensor, got {type(index).__name__}")
    if index._data.dtype != np.int64:
        raise RuntimeError(f"{name}: index must be int64, got {index.dtype}")
    if index.ndim > 1:
        raise IndexError(f"{name}: index must be 0-d or 1-d, got {index.ndim} dims")
    idx = index._data.reshape(-1)
    check_index_range(idx, t.shape[d] if t.ndim else 1, name)
    return idx


def _scatter_where(t: Any, d: int, index: Any, src: Any, name: str) -> tuple:
    """The positions written by scatter: index along dim d, each element's own place elsewhere;
    also src cut to index's shape (PyTorch reads only src's leading block)."""
    if not isinstance(index, TensorBase):
        raise TypeError(f"{name}: index must be a Tensor, got {type(index).__name__}")
    if index._data.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected dtype int64 for index, got {index.dtype}")
    if index.ndim != t.ndim:
        raise RuntimeError(
            f"{name}: index {tuple(index.shape)} must have as many dims as self {tuple(t.shape)}"
        )
    for e in range(t.ndim):
        too_big = e != d and index.shape[e] > t.shape[e]
        if too_big or (isinstance(src, TensorBase) and index.shape[e] > src.shape[e]):
            raise RuntimeError(
                f"{name}: index {tuple(index.shape)} is larger than self {tuple(t.shape)} or "
                f"src at dim {e}"
            )
    check_index_range(index._data, t.shape[d], name)
    xp = get_array_module(index._data)
    where = tuple(
        index._data
        if e == d
        else xp.arange(n).reshape([-1 if f == e else 1 for f in range(index.ndim)])
        for e, n in enumerate(index.shape)
    )
    if isinstance(src, TensorBase):
        if src.ndim != t.ndim:
            raise RuntimeError(f"{name}: src must have as many dims as self, got {src.ndim}")
        src = src[tuple(slice(0, n) for n in index.shape)]
    return where, src


class ShapeIndexMath:
    """Mixin of Tensor: the shape and index methods of this module."""

    __slots__ = ()

    _data: Any

    def roll(self, shifts, dims=None):
        """out[(i + shift) % n] = x[i] along each dim; without dims, over the flattened tensor."""
        if dims is None:
            return self.reshape(-1).roll(shifts, 0).reshape(self.shape)
        shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(shifts) != len(dims):
            raise RuntimeError(f"roll: shifts {shifts} and dims {dims} must have the same length")
        out = self
        for s, dim in zip(shifts, dims, strict=True):
            d = _dim(dim, self.ndim)
            n = self.shape[d]
            s = s % n if n else 0
            if s:
                lead = (slice(None),) * d
                out = S.Cat.apply(d, out[lead + (slice(n - s, n),)], out[lead + (slice(0, n - s),)])
        return out if out is not self else self.clone()

    def index_select(self, dim: int, index):
        """out = x[..., index, ...] with index on dim (a copy, rows may repeat)."""
        d = _dim(dim, self.ndim)
        idx = _index_1d(self, index, d, "index_select")
        if self.ndim == 0:
            return self.reshape(1)[idx].reshape(index.shape)
        return self[(slice(None),) * d + (type(self)._make(idx, False),)]

    def movedim(self, source, destination):
        """Move dims ``source`` to places ``destination``, the others keeping their order."""
        src = (source,) if isinstance(source, int) else tuple(source)
        dst = (destination,) if isinstance(destination, int) else tuple(destination)
        if len(src) != len(dst):
            raise RuntimeError(
                f"movedim: source {src} and destination {dst} must have the same length"
            )
        src = tuple(_dim(s, self.ndim) for s in src)
        dst = tuple(_dim(s, self.ndim) for s in dst)
        if len(set(src)) != len(src) or len(set(dst)) != len(dst):
            raise RuntimeError("movedim: repeated dim in source or destination")
        rest = iter(d for d in range(self.ndim) if d not in src)
        placed = dict(zip(dst, src, strict=True))
        return self.permute([placed[i] if i in placed else next(rest) for i in range(self.ndim)])

    moveaxis = movedim

    def swapaxes(self, axis0: int, axis1: int):
        return self.transpose(axis0, axis1)

    swapdims = swapaxes

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def tile(self, *dims):
        """repeat with ``dims`` padded by leading 1s to x's number of dims."""
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        dims = (1,) * (self.ndim - len(dims)) + tuple(dims)
        return self.repeat(*dims)

    def repeat_interleave(self, repeats: int, dim=None, *, output_size=None):
        """Each element ``repeats`` times in a row along dim (over the flattened x without dim)."""
        if not isinstance(repeats, int) or isinstance(repeats, bool):
            raise TypeError(
                f"repeat_interleave: repeats must be an int here, got {type(repeats).__name__}"
            )
        if repeats < 0:
            raise RuntimeError(f"repeat_interleave: repeats must be non-negative, got {repeats}")
        if dim is None:
            return self.reshape(-1).repeat_interleave(repeats, 0)
        d = _dim(dim, self.ndim)
        x = self.reshape(1) if self.ndim == 0 else self
        shape = x.shape
        wide = x.unsqueeze(d + 1).expand(shape[: d + 1] + (repeats,) + shape[d + 1 :])
        return wide.reshape(shape[:d] + (shape[d] * repeats,) + shape[d + 1 :])

    def take_along_dim(self, indices, dim=None):
        """gather with indices broadcast against x (except along dim); without dim, over the
        flattened x."""
        if dim is None:
            return self.reshape(-1).gather(0, indices.reshape(-1))
        d = _dim(dim, self.ndim)
        if indices.ndim != self.ndim:
            raise RuntimeError(
                f"take_along_dim: indices {tuple(indices.shape)} must have as many dims as "
                f"input {tuple(self.shape)}"
            )
        xs, ix = list(self.shape), list(indices.shape)
        shape = tuple(np.broadcast_shapes(tuple(xs[:d] + xs[d + 1 :]), tuple(ix[:d] + ix[d + 1 :])))
        x_shape = shape[:d] + (xs[d],) + shape[d:]
        i_shape = shape[:d] + (ix[d],) + shape[d:]
        return self.expand(x_shape).gather(d, indices.expand(i_shape))

    def scatter(self, dim: int, index, src=None, *, value=None, reduce=None):
        """A copy of x with src (or the scalar value) written at index along dim:
        out[i][index[i][j]] = src[i][j] (dim 1). The gradient to x is zero where written."""
        if reduce is not None:
            raise NotImplementedError("scatter: reduce= is not supported: use scatter_add")
        if (src is None) == (value is None):
            raise TypeError("scatter: give exactly one of src (a Tensor or number) and value")
        src = value if src is None else src
        d = _dim(dim, self.ndim)
        if self.ndim == 0:  # as a 1-element 1-d tensor
            one = src.reshape(1) if isinstance(src, TensorBase) else src
            return self.reshape(1).scatter(0, index.reshape(1), one).reshape(())
        where, src = _scatter_where(self, d, index, src, "scatter")
        out = self.clone()
        out[tuple(type(self)._make(w, False) for w in where)] = src
        return out

    def scatter_(self, dim: int, index, src=None, *, value=None, reduce=None):
        return self._inplace(lambda x, s: x.scatter(dim, index, s, value=value, reduce=reduce), src)

    def scatter_add(self, dim: int, index, src):
        """x + (zeros with src added at index along dim); repeated indices add up."""
        if not isinstance(src, TensorBase):
            raise TypeError(f"scatter_add: src must be a Tensor, got {type(src).__name__}")
        d = _dim(dim, self.ndim)
        if self.ndim == 0:  # as a 1-element 1-d tensor
            one = self.reshape(1).scatter_add(0, index.reshape(1), src.reshape(1))
            return one.reshape(())
        _, part = _scatter_where(self, d, index, src, "scatter_add")
        return self + SO.ScatterAlongDim.apply(part, index._data, d, self.shape, False)

    def scatter_add_(self, dim: int, index, src):
        return self._inplace(lambda x, s: x.scatter_add(dim, index, s), src)

    def index_fill(self, dim: int, index, value):
        """A copy of x with the slices at index along dim set to value (zero gradient there)."""
        d = _dim(dim, self.ndim)
        idx = _index_1d(self, index, d, "index_fill")
        if isinstance(value, TensorBase):
            if value.ndim:
                raise RuntimeError("index_fill: value must be a number or a 0-d tensor")
            value = value.item()
        out = self.clone()
        if self.ndim == 0:
            if idx.size:
                out[...] = value
            return out
        out[(slice(None),) * d + (type(self)._make(idx, False),)] = value
        return out

    def index_fill_(self, dim: int, index, value):
        return self._inplace(lambda x: x.index_fill(dim, index, value))

    def index_copy(self, dim: int, index, source):
        """A copy of x with its slices at index along dim replaced by source's slices, in order."""
        d = _dim(dim, self.ndim)
        idx = _index_1d(self, index, d, "index_copy")
        if not isinstance(source, TensorBase):
            raise TypeError(f"index_copy: source must be a Tensor, got {type(source).__name__}")
        want = self.shape[:d] + (idx.size,) + self.shape[d + 1 :] if self.ndim else (idx.size,)
        if tuple(source.shape) != tuple(want) and not (self.ndim <= 1 and source.ndim <= 1):
            raise RuntimeError(
                f"index_copy: source {tuple(source.shape)} must have shape {tuple(want)}"
            )
        out = self.clone()
        if self.ndim == 0:
            if idx.size:
                out[...] = source.reshape(())
            return out
        out[(slice(None),) * d + (type(self)._make(idx, False),)] = source.reshape(want)
        return out

    def index_copy_(self, dim: int, index, source):
        return self._inplace(lambda x, s: x.index_copy(dim, index, s), source)

    def diag(self, diagonal: int = 0):
        """1-d v: the square matrix with v on diagonal ``diagonal``; 2-d x: that diagonal of x."""
        k = diagonal
        xp = get_array_module(self._data)
        if self.ndim == 1:
            n = self.shape[0] + abs(k)
            rows = xp.arange(self.shape[0]) + max(-k, 0)
            out = type(self)._make(xp.zeros((n, n), dtype=self._data.dtype), False)
            where = (type(self)._make(rows, False), type(self)._make(rows + k, False))
            out[where] = self  # a tracked write: the gradient reads the diagonal back
            return out
        if self.ndim == 2:
            r, c = self.shape
            m = max(0, min(r + min(k, 0), c - max(k, 0)))
            rows = xp.arange(m) + max(-k, 0)
            return self[type(self)._make(rows, False), type(self)._make(rows + k, False)]
        raise RuntimeError(f"diag: expected a 1-d or 2-d tensor, got {self.ndim} dims")

    def trace(self):
        """The sum of the main diagonal of a 2-d tensor."""
        if self.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix (2 dims), got {self.ndim} dims")
        return self.diag().sum()

    def outer(self, vec2):
        """out[i][j] = x[i] * vec2[j] for two 1-d tensors."""
        if self.ndim != 1 or vec2.ndim != 1:
            raise RuntimeError(
                f"outer: expected two 1-d tensors, got {self.ndim} and {vec2.ndim} dims"
            )
        return self.reshape(-1, 1) * vec2.reshape(1, -1)

    ger = outer

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * x + alpha * (mat1 @ mat2); with beta = 0, x is ignored (its NaNs too)."""
        if mat1.ndim != 2 or mat2.ndim != 2:
            raise RuntimeError(
                f"addmm: mat1 and mat2 must be matrices, got {mat1.ndim} and {mat2.ndim} dims"
            )
        return _add_scaled(self, mat1.mm(mat2), beta, alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * x + alpha * bmm(batch1, batch2); with beta = 0, x is ignored (its NaNs too)."""
        if batch1.ndim != 3 or batch2.ndim != 3:
            raise RuntimeError(
                f"baddbmm: batch1 and batch2 must be 3-d, got {batch1.ndim} and {batch2.ndim} dims"
            )
        return _add_scaled(self, batch1.bmm(batch2), beta, alpha)


def _add_scaled(x: Any, prod: Any, beta: Any, alpha: Any) -> Any:
    """beta * x + alpha * prod, x broadcast to prod's shape; beta = 0 skips x (as PyTorch, so a
    NaN in x does not leak through 0 * NaN)."""
    scaled = prod if alpha == 1 else prod * alpha
    try:
        x.expand(prod.shape)
    except ValueError:
        raise RuntimeError(
            f"input {tuple(x.shape)} cannot be broadcast to the product's shape {tuple(prod.shape)}"
        ) from None
    if beta == 0:
        return scaled.clone() if alpha == 1 else scaled
    return (x if beta == 1 else x * beta) + scaled
