"""The Tensor's indexing methods: ``x[index]`` and ``x[index] = v``, gather / scatter along a dim,
the ``index_*`` family on whole slices, masks and conditions (where, masked_select, nonzero).

Every differentiable name composes ops that already have a backward (``ops/indexing.py``'s
GetItem / IndexPut / MaskedFill; ``ops/gather_scatter.py``'s gather, its scatter-add and
scatter_reduce), so each gradient follows from theirs:

    scatter(x, d, idx, src):     out = x with out[.., idx[.., j, ..], ..] = src[.., j, ..]
        dL/dx = dL/dout with zeros at the written places;  dL/dsrc = gather(dL/dout, d, idx)
    scatter_add(x, d, idx, src): out = x + (zeros with src added at idx)
        dL/dx = dL/dout;  dL/dsrc = gather(dL/dout, d, idx)
    index_add(x, d, idx, src):   dL/dx = dL/dout;  dL/dsrc = alpha * dL/dout[.., idx, ..]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd.grad_mode import is_grad_enabled, state
from .autograd.node_names import node_variant
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .meta_array import refuse_data_dependent
from .ops import gather_scatter as GS
from .ops import indexing as I
from .ops.indexing import check_index_range
from .ops.same_dtype import check_same_dtype
from .promotion import alpha_scaled, written_int
from .promotion import where as _where
from .size import broadcast_error, norm_dim

_OLDER_REDUCE = {"add": "sum", "multiply": "prod"}  # scatter(reduce=...) -> scatter_reduce


def _sequence_as_tuple(index: list) -> bool:
    """PyTorch's (and NumPy's older) rule for a list used as an index: a short list (under 32
    entries) holding a sequence, a slice, a tensor, ``...`` or None is a tuple of indices, one
    per dim (``x[[(1, 0)]]`` is ``x[(1, 0),]``, rows 1 and 0; ``x[[[1, 0], [2, 3]]]`` is
    ``x[[1, 0], [2, 3]]``), with PyTorch's deprecation warning; any other list is one index."""
    if len(index) >= 32:
        return False
    for i in index:
        # (an ndarray is a sequence too: x[[np.array([0, 2]), np.array([1, 3])]] is x[rows, cols])
        sequence = isinstance(i, TensorBase | np.ndarray | list | tuple | range | slice)
        if sequence or i is None or i is Ellipsis:
            warnings.warn(
                "Using a non-tuple sequence for multidimensional indexing is deprecated and will "
                "be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 "
                "this will be interpreted as tensor index, x[torch.tensor(seq)], which will result "
                "either in an error or a different result",
                UserWarning,
                stacklevel=4,
            )
            return True
    return False


def _unwrap_index(index: Any, like: Any) -> Any:
    """Tensors, lists (and tuples), ranges and NumPy arrays inside an index become arrays of
    ``like``'s module (indices never get gradients; CuPy data needs CuPy index arrays). A
    ``range`` is a sequence of ints to PyTorch, so ``x[range(n), target]`` picks one element per
    row; so is a tuple inside the index: ``x[(1, 0), :, (2, 1)]``."""
    xp = get_array_module(like)

    def one(i: Any) -> Any:
        if isinstance(i, TensorBase):
            a = I.index_array(i._data)
            # a 0-d integer tensor is a plain int to PyTorch: x[mg.tensor(1)] is x[1], a view
            return int(a) if a.ndim == 0 and a.dtype.kind in "iu" else a
        if isinstance(i, np.integer) or (
            isinstance(i, np.ndarray) and i.ndim == 0 and i.dtype.kind in "iu"
        ):  # a NumPy integer (or 0-d integer array) is an int: x[np.int64(1)] is a view
            return int(i)
        if isinstance(i, slice) and i.step is not None and i.step < 0:
            raise ValueError("step must be greater than zero")  # no reversed views: use flip
        if isinstance(i, float):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got float)"
            )
        if isinstance(i, list | tuple):  # a tuple inside the index is a sequence, as a list
            if not i:  # an empty list picks nothing: int64, as PyTorch (NumPy would make float64)
                return xp.zeros(0, dtype=np.int64)
            return xp.asarray([j.item() if isinstance(j, TensorBase) else j for j in i])
        if isinstance(i, range):
            return xp.arange(i.start, i.stop, i.step, dtype=np.int64)
        if xp is not np and isinstance(i, np.ndarray):
            return xp.asarray(i)
        return i

    if isinstance(index, list) and _sequence_as_tuple(index):
        index = tuple(index)
    return tuple(one(i) for i in index) if isinstance(index, tuple) else one(index)


def _check_index_add(t: Any, d: int, index: Any, source: Any) -> Any:
    """index_add's checks, with PyTorch's messages; returns the index array."""
    name = "index_add_()"
    if not isinstance(index, TensorBase) or index._data.ndim > 1:
        got = f"dim: {index.ndim}" if isinstance(index, TensorBase) else type(index).__name__
        raise IndexError(f"{name}: Index is supposed to be a vector, but got {got}")
    I.check_index_dtype(index, ("int64", "int32"), name, "index")
    if source._data.dtype != t._data.dtype:
        raise RuntimeError(
            f"{name}: self ({t.dtype.name}) and source ({source.dtype.name}) must have the "
            f"same scalar type"
        )
    idx = index._data.reshape(-1)
    n = source.shape[d] if source.ndim else 1
    if idx.size != n:
        raise RuntimeError(
            f"{name}: Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({n}), for dim: {d}"
        )
    expected = t.shape[:d] + (idx.size,) + t.shape[d + 1 :] if t.ndim else source.shape
    if tuple(source.shape) != tuple(expected):
        raise RuntimeError(
            f"{name}: source of shape {tuple(source.shape)} does not fit self of shape "
            f"{tuple(t.shape)}: expected {tuple(expected)}"
        )
    I.check_index_range(
        idx, t.shape[d] if t.ndim else 1, name, hint=f" (dim {d})", error=RuntimeError
    )
    return idx


def _index_1d(
    t: Any, index: Any, d: int, name: str, int32_ok: bool = False, negative_ok: bool = False
) -> Any:
    """The int64 index array of index_select / index_fill / index_copy, range-checked
    (index_select also takes int32, as PyTorch; index_fill counts [-n, 0) from the end)."""
    if not isinstance(index, TensorBase):
        raise TypeError(f"{name}: index must be a Tensor, got {type(index).__name__}")
    if index._data.dtype != np.int64 and not (int32_ok and index._data.dtype == np.int32):
        allowed = "int32 or int64" if int32_ok else "int64"
        raise RuntimeError(f"{name}: index must be {allowed}, got {index.dtype}")
    if index.ndim > 1:
        raise IndexError(f"{name}: index must be 0-d or 1-d, got {index.ndim} dims")
    idx = index._data.reshape(-1).astype(np.int64, copy=False)
    n = t.shape[d] if t.ndim else 1
    if negative_ok:
        idx = get_array_module(idx).where((idx < 0) & (idx >= -n), idx + n, idx)
    check_index_range(idx, n, name, hint=f" or [{-n}, 0)" if negative_ok else "")
    return idx


def _scatter_where(t: Any, d: int, index: Any, src: Any, name: str) -> tuple:
    """The positions written by scatter: index along dim d, each element's own place elsewhere;
    also src cut to index's shape (PyTorch reads only src's leading block)."""
    if not isinstance(index, TensorBase):
        raise TypeError(f"{name}: index must be a Tensor, got {type(index).__name__}")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index, got {index.dtype}")
    if index._data.dtype == np.int32:  # accepted as PyTorch does; computed with int64
        index = type(index)._make(index._data.astype(np.int64))
    check_same_dtype(name, self=t, src=src)  # (a number src takes self's dtype)
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
    check_index_range(index._data, t.shape[d], name, error=RuntimeError)  # (PyTorch's type)
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


def _bool_mask(mask: Any, like: Any, refusal: str) -> Any:
    """``mask``'s array, which must hold bools: a float or integer mask is refused (PyTorch's
    RuntimeError and words) instead of read as "nonzero means True", so a mask of 0.5s or of
    indices is not silently taken for another mask."""
    m = mask._data if isinstance(mask, TensorBase) else get_array_module(like).asarray(mask)
    if m.dtype.kind != "b":
        raise RuntimeError(f"{refusal} with dtype {_dt.from_numpy_dtype(m.dtype)}")
    return m


_SELECT = node_variant(I.GetItem, "SelectBackward0")
_UNSQUEEZE = node_variant(I.GetItem, "UnsqueezeBackward0")
_INDEX = node_variant(I.GetItem, "IndexBackward0")


def _getitem_op(index: Any, basic: bool) -> type:
    """GetItem, under the name of the node PyTorch's indexing leaves: IndexBackward0 for an
    advanced index (a list, a tensor, a mask); for a basic one, that of its last step, as
    PyTorch applies the items left to right: ``x[1:, 0]`` selects last (SelectBackward0),
    ``x[0, 1:]`` slices last (SliceBackward0, GetItem's own), ``x[None]`` unsqueezes."""
    if not basic:
        return _INDEX
    for item in reversed(index if isinstance(index, tuple) else (index,)):
        if item is None:
            return _UNSQUEEZE
        if isinstance(item, int):
            return _SELECT
        if isinstance(item, slice) and item != slice(None):
            return I.GetItem
    return I.GetItem


class TensorIndexing:
    """Mixin of Tensor: the indexing methods."""

    __slots__ = ()

    _data: Any

    # ------------------------------------------------------------------ x[index], x[index] = v
    def __getitem__(self, index):
        index = _unwrap_index(index, self._data)
        basic = I.is_basic_index(index)
        out = _getitem_op(index, basic).apply(self, index)
        if basic:
            # an in-place op on it rebases self, and self's on it (inplace.py)
            out._view_of(self, lambda b: I.GetItem.apply(b, index), index)
        return out

    def __setitem__(self, index, value):
        index = _unwrap_index(index, self._data)
        self._check_can_write_inplace()
        value = written_int(value, self._data.dtype)
        if state.grad_enabled and (
            self.requires_grad or (isinstance(value, TensorBase) and value.requires_grad)
        ):
            self._inplace(lambda x, v: I.IndexPut.apply(x, index, v), value)
            return
        v = value._data if isinstance(value, TensorBase) else value
        I.put(self._data, index, v)
        self._bump_version()

    # ----------------------------------------- along one dim, by an index tensor (gather, scatter)
    def gather(self, dim: int, index, *, sparse_grad: bool = False):
        """out[i][j] = self[index[i][j]][j] (dim 0), out[i][j] = self[i][index[i][j]] (dim 1)."""
        return GS.gather(self, dim, index)

    def take_along_dim(self, indices, dim=None):
        """gather with indices broadcast against x (except along dim); without dim, over the
        flattened x."""
        if dim is None:
            return self.reshape(-1).gather(0, indices.reshape(-1))
        d = norm_dim(dim, self.ndim)[0]
        if indices.ndim != self.ndim:
            raise RuntimeError(
                f"take_along_dim: indices {tuple(indices.shape)} must have as many dims as "
                f"input {tuple(self.shape)}"
            )
        xs, ix = list(self.shape), list(indices.shape)
        x_rest, i_rest = tuple(xs[:d] + xs[d + 1 :]), tuple(ix[:d] + ix[d + 1 :])
        try:
            shape = tuple(np.broadcast_shapes(x_rest, i_rest))
        except ValueError:  # PyTorch's RuntimeError, naming the dims, in place of NumPy's
            raise broadcast_error(xs[:d] + [1] + xs[d + 1 :], ix[:d] + [1] + ix[d + 1 :]) from None
        x_shape = shape[:d] + (xs[d],) + shape[d:]
        i_shape = shape[:d] + (ix[d],) + shape[d:]
        return self.expand(x_shape).gather(d, indices.expand(i_shape))

    def scatter(self, dim: int, index, src=None, *, value=None, reduce=None):
        """A copy of x with src (or the scalar value) written at index along dim:
        out[i][index[i][j]] = src[i][j] (dim 1). The gradient to x is zero where written.

        ``reduce="add"`` or ``"multiply"`` folds the values into x's instead of writing them
        (PyTorch's older spelling of scatter_reduce's "sum" and "prod", without a gradient)."""
        if (src is None) == (value is None):
            raise TypeError("scatter: give exactly one of src (a Tensor or number) and value")
        src = value if src is None else src
        if reduce is not None:
            return self._scatter_older_reduce(dim, index, src, reduce)
        d = norm_dim(dim, self.ndim)[0]
        if self.ndim == 0:  # as a 1-element 1-d tensor
            one = src.reshape(1) if isinstance(src, TensorBase) else src
            return self.reshape(1).scatter(0, index.reshape(1), one).reshape(())
        where, src = _scatter_where(self, d, index, src, "scatter")
        out = self.clone()
        out[tuple(type(self)._make(w, False) for w in where)] = src
        return out

    def scatter_(self, dim: int, index, src=None, *, value=None, reduce=None):
        return self._inplace(lambda x, s: x.scatter(dim, index, s, value=value, reduce=reduce), src)

    def _scatter_older_reduce(self, dim: int, index, src, reduce):
        if reduce not in _OLDER_REDUCE:
            raise RuntimeError(
                f"scatter: the reduce argument must be either 'add' or 'multiply', got {reduce!r}"
            )
        if isinstance(src, TensorBase):
            warnings.warn(
                "The reduce argument of scatter with a Tensor src is deprecated (as in PyTorch): "
                "use scatter_reduce, which has more reductions and a gradient",
                UserWarning,
                stacklevel=3,
            )
        elif isinstance(index, TensorBase):  # a number: the same value for every index
            xp = get_array_module(self._data)
            src = type(self)._make(xp.full(index.shape, src, dtype=self._data.dtype), False)
        return self._scatter_fold(dim, index, src, _OLDER_REDUCE[reduce], True, False, "scatter")

    def scatter_reduce(self, dim: int, index, src, reduce: str, *, include_self: bool = True):
        """A copy of x with each src value folded into the place index names along dim by
        ``reduce`` ("sum", "prod", "mean", "amax", "amin"); include_self=False leaves x's own
        value out of the places that receive values (gradients: ops/gather_scatter.py)."""
        if not isinstance(src, TensorBase):
            raise TypeError(f"scatter_reduce: src must be a Tensor, got {type(src).__name__}")
        if reduce not in GS.SCATTER_REDUCTIONS:
            raise RuntimeError(
                f"scatter_reduce: reduce must be one of 'sum', 'prod', 'mean', 'amax', 'amin', "
                f"got {reduce!r}"
            )
        check_same_dtype("scatter_reduce", self=self, src=src)
        return self._scatter_fold(dim, index, src, reduce, include_self, True, "scatter_reduce")

    def scatter_reduce_(self, dim: int, index, src, reduce: str, *, include_self: bool = True):
        def update(x, s):
            return x.scatter_reduce(dim, index, s, reduce, include_self=include_self)

        return self._inplace(update, src)

    def _scatter_fold(self, dim, index, src, reduce, include_self, differentiable, name):
        d = norm_dim(dim, self.ndim)[0]
        if self.ndim == 0:  # as a 1-element 1-d tensor
            one = self.reshape(1)._scatter_fold(
                0, index.reshape(1), src.reshape(1), reduce, include_self, differentiable, name
            )
            return one.reshape(())
        _, part = _scatter_where(self, d, index, src, name)
        fold = GS.ScatterReduce
        idx = index._data.astype(np.int64, copy=False)  # (int32 accepted, as PyTorch)
        return fold.apply(self, part, idx, d, reduce, include_self, differentiable)

    def scatter_add(self, dim: int, index, src):
        """x + (zeros with src added at index along dim); repeated indices add up."""
        if not isinstance(src, TensorBase):
            raise TypeError(f"scatter_add: src must be a Tensor, got {type(src).__name__}")
        d = norm_dim(dim, self.ndim)[0]
        if self.ndim == 0:  # as a 1-element 1-d tensor
            one = self.reshape(1).scatter_add(0, index.reshape(1), src.reshape(1))
            return one.reshape(())
        _, part = _scatter_where(self, d, index, src, "scatter_add")
        idx = index._data.astype(np.int64, copy=False)  # (int32 accepted, as PyTorch)
        return self + GS.ScatterAlongDim.apply(part, idx, d, self.shape, False)

    def scatter_add_(self, dim: int, index, src):
        return self._inplace(lambda x, s: x.scatter_add(dim, index, s), src)

    # ------------------------------------------------------ whole slices along one dim (index_*)
    def index_select(self, dim: int, index):
        """out = x[..., index, ...] with index on dim (a copy, rows may repeat)."""
        d = norm_dim(dim, self.ndim)[0]
        idx = _index_1d(self, index, d, "index_select", int32_ok=True)
        if self.ndim == 0:  # the one element, 0-d, as PyTorch (which refuses more indices)
            if idx.size != 1:
                raise RuntimeError(
                    f"index_select(): Index to scalar can have only 1 value, got {idx.size} "
                    "value(s)"
                )
            return self.reshape(1)[idx].reshape(())
        return self[(slice(None),) * d + (type(self)._make(idx, False),)]

    def index_add(self, dim: int, index, source, *, alpha=1):
        """A copy of self with ``alpha * source`` added along ``dim`` at ``index``:
        out[..., index[i], ...] += alpha * source[..., i, ...], repeated indices adding up. The
        gradient goes to self unchanged and to source gathered at ``index`` (times alpha)."""
        d = norm_dim(dim, self.ndim)[0]
        idx = _check_index_add(self, d, index, source)
        where = (slice(None),) * d + (idx,) if self.ndim else (Ellipsis,)
        return self + I.IndexAddGrad.apply(alpha_scaled(self, source, alpha), where, self.shape)

    def index_add_(self, dim: int, index, source, *, alpha=1):
        return self._inplace(lambda x, s: x.index_add(dim, index, s, alpha=alpha), source)

    def index_reduce(self, dim: int, index, source, reduce: str, *, include_self: bool = True):
        """A copy of self with source's slices folded by ``reduce`` ("prod", "mean", "amax",
        "amin") into the slices ``index`` names along dim: out[..., index[i], ...] reduces
        source[..., i, ...] (and self's own value unless include_self=False). It is
        scatter_reduce with the index spread over source's shape, so it has its gradients."""
        if reduce not in ("prod", "mean", "amax", "amin"):
            raise RuntimeError(
                "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                f"{reduce}."
            )
        spread = _check_index_reduce(self, dim, index, source)
        return self.scatter_reduce(dim, spread, source, reduce, include_self=include_self)

    def index_reduce_(self, dim: int, index, source, reduce: str, *, include_self: bool = True):
        def update(x, s):
            return x.index_reduce(dim, index, s, reduce, include_self=include_self)

        return self._inplace(update, source)

    def index_fill(self, dim: int, index, value):
        """A copy of x with the slices at index along dim set to value (zero gradient there)."""
        d = norm_dim(dim, self.ndim)[0]
        idx = _index_1d(self, index, d, "index_fill", negative_ok=True)
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
        d = norm_dim(dim, self.ndim)[0]
        idx = _index_1d(self, index, d, "index_copy")
        if not isinstance(source, TensorBase):
            raise TypeError(f"index_copy: source must be a Tensor, got {type(source).__name__}")
        check_same_dtype("index_copy", self=self, source=source)
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

    # ------------------------------------------------------------------ by a mask or a condition
    def masked_fill(self, mask, value):
        """``value`` where ``mask`` (a bool tensor, broadcast to self) is True, else self; a 0-d
        tensor ``value`` that requires grad gets the filled places' gradient, summed."""
        m = _bool_mask(mask, self._data, "masked_fill_ only supports boolean masks, but got mask")
        value = written_int(value, self._data.dtype)
        if isinstance(value, TensorBase):
            if value.ndim != 0:
                raise RuntimeError(
                    "masked_fill only supports a 0-dimensional value tensor, but got tensor "
                    f"with {value.ndim} dimension(s)."
                )
            if value.requires_grad and is_grad_enabled():
                filled = _where(mask, value.to(self.dtype), self)
                return filled if filled.shape == self.shape else filled.expand(*self.shape)
            value = written_int(value.item(), self._data.dtype)  # checked as a number
        try:
            return I.MaskedFill.apply(self, m, value)
        except ValueError as err:  # checked only on failure: the shapes do not broadcast
            if "broadcast" not in str(err):
                raise
            raise broadcast_error(m.shape, self.shape) from None

    def masked_fill_(self, mask, value):
        return self._inplace(lambda x: x.masked_fill(mask, value))

    def masked_select(self, mask):
        """The elements where ``mask`` (bool, broadcast with self) is True, as a 1-D tensor."""
        xp = get_array_module(self._data)
        m = _bool_mask(mask, self._data, "masked_select: expected BoolTensor for mask, got one")
        refuse_data_dependent("masked_select", m)
        try:
            shape = xp.broadcast_shapes(self.shape, m.shape)
        except ValueError:  # PyTorch's RuntimeError naming the dim, not NumPy's ValueError
            raise broadcast_error(m.shape, self.shape) from None  # (PyTorch's order)
        x = self if tuple(self.shape) == shape else self.expand(*shape)
        return x[xp.broadcast_to(m, shape)]

    def where(self, condition, other):
        """``self`` where ``condition``, else ``other`` (mg.where(condition, self, other))."""
        return _where(condition, self, other)

    def nonzero(self, *, as_tuple: bool = False):
        """Indices of the nonzero elements: an (n, ndim) int64 tensor, or with ``as_tuple`` one
        1-D tensor per dim (a 0-d tensor counts as 1-D there, as in PyTorch)."""
        xp = get_array_module(self._data)
        data = self._data
        refuse_data_dependent("nonzero", data)
        if as_tuple:
            idx = xp.nonzero(data.reshape(1) if data.ndim == 0 else data)
            return tuple(self._make(i.astype(xp.int64), False) for i in idx)
        idx = xp.argwhere(data).astype(xp.int64)
        return self._make(idx, False)


def _check_index_reduce(self: Any, dim: int, index: Any, source: Any) -> Any:
    """index_reduce's checks (PyTorch's messages); returns the index spread over source's
    shape: spread[..., i, ...] = index[i] along dim, as scatter_reduce takes it."""
    from_ = "index_reduce_(): "
    if not isinstance(source, TensorBase) or not isinstance(index, TensorBase):
        raise TypeError(f"{from_}index and source must be Tensors")
    if self.dtype is not source.dtype:
        raise RuntimeError(
            f"{from_}self ({_dt.scalar_type_name(self.dtype)}) and source "
            f"({_dt.scalar_type_name(source.dtype)}) must have the same scalar type"
        )
    if index.dtype.name not in ("int32", "int64"):
        raise RuntimeError(
            f"{from_}Expected dtype int32/int64 for index but got: "
            f"{_dt.scalar_type_name(index.dtype)}"
        )
    if index.ndim > 1:
        raise IndexError(
            f"{from_}Index is supposed to be a vector, but got dim: {index.ndim} with type: "
            f"{_dt.scalar_type_name(index.dtype)} and size: {list(index.shape)}"
        )
    if self.dtype is _dt.bool_:
        raise NotImplementedError(f"{from_}not implemented for 'Bool' tensors, as in PyTorch")
    d = norm_dim(dim, self.ndim)[0]
    if d >= max(source.ndim, 1):
        raise RuntimeError(
            f"{from_}Indexing dim {d} is out of bounds of the source tensor with dim {source.ndim}"
        )
    src_shape = tuple(source.shape) if source.ndim else (1,)
    own_shape = tuple(self.shape) if self.ndim else (1,)
    if index.numel() != src_shape[d]:
        raise RuntimeError(
            f"{from_}Number of indices ({index.numel()}) should be equal to source.size(dim): "
            f"({src_shape[d]}), for dim: {d}"
        )
    others_differ = src_shape[:d] + src_shape[d + 1 :] != own_shape[:d] + own_shape[d + 1 :]
    if self.ndim != source.ndim or others_differ:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(self.shape)} source.shape = {list(source.shape)}"
        )
    idx = index._data.reshape(-1).astype("int64")
    if idx.size and (idx.min() < 0 or idx.max() >= own_shape[d]):  # no negative indices
        raise IndexError("index out of range in self")
    if not source.ndim:
        return self._make(idx.reshape(()), False)
    xp = get_array_module(idx)
    along = [-1 if k == d else 1 for k in range(source.ndim)]
    spread = xp.broadcast_to(idx.reshape(along), tuple(source.shape))
    return self._make(xp.ascontiguousarray(spread), False)
