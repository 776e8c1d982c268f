"""Gather and scatter along one dim: gather (``x.gather``, ``take_along_dim``), its gradient the
scatter-add, and scatter_reduce (sum, prod, mean, amax, amin).

    gather:   out[..., j, ...] = x[..., idx[..., j, ...], ...]      (along dim)
              dL/dx = zeros with dL/dout added at idx (a repeated index collects every value)
    scatter-add: the same sum, as an op; its gradient is the gather again

Sorting (``sorting.py``) uses the pair: sort and topk pick values with a gather, and their
gradient goes back with a scatter (a plain write there: the picked positions are distinct).
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ..backend import cupyx_module, get_array_module, quiet_fp, to_numpy
from ..size import plain_int
from .indexing import check_index_range


def checked_dim(x, dim: int, name: str) -> int:
    """``dim`` in range for x (a 0-d tensor has dims 0 and -1), made non-negative."""
    limit = max(x.ndim, 1)
    dim = plain_int(dim)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}: dim must be an int, got {dim!r}")
    if not -limit <= dim < limit:
        raise IndexError(
            f"{name}: dim {dim} is out of range for a tensor of shape {tuple(x.shape)} "
            f"(expected a dim in [{-limit}, {limit - 1}])"
        )
    return dim % limit


# ----------------------------------------------------------------------------------- gather
class GatherAlongDim(Op):
    """y = take_along_axis(x, idx, dim);   dL/dx = scatter-add of dL/dy at idx along dim.

    ``distinct``: the indices along dim are distinct (sort, topk), so the scatter is a write."""

    @staticmethod
    def forward(ctx, x, idx, dim, distinct):
        ctx.idx, ctx.dim, ctx.in_shape, ctx.distinct = idx, dim, x.shape, distinct
        return get_array_module(x).take_along_axis(x, idx, axis=dim)

    @staticmethod
    def backward(ctx, gy):
        gx = ScatterAlongDim.apply(gy, ctx.idx, ctx.dim, ctx.in_shape, ctx.distinct)
        return gx, None, None, None


class ScatterAlongDim(Op):
    """x = zeros(shape); x[.., idx[.., j, ..], ..] += g[.., j, ..] along dim (a repeated index
    collects every value sent to it);   dL/dg = gather(dL/dx, idx)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, g, idx, dim, shape, distinct):
        ctx.idx, ctx.dim, ctx.distinct = idx, dim, distinct
        xp = get_array_module(g)
        if distinct:
            out = xp.zeros(shape, dtype=g.dtype)
            xp.put_along_axis(out, idx, g, axis=dim)
            return out
        # a repeated index sums several values: 2-byte floats in float32, rounded once at the end
        low = g.dtype.itemsize == 2 and g.dtype.kind in "fV"
        out = xp.zeros(shape, dtype=xp.float32 if low else g.dtype)
        # the position of every element of idx: idx itself along dim, its own index elsewhere
        axes = range(idx.ndim)
        where = tuple(
            idx if d == dim else xp.arange(n).reshape([-1 if e == d else 1 for e in axes])
            for d, n in enumerate(idx.shape)
        )
        values = g.astype(out.dtype) if low else g
        if xp is np:
            xp.add.at(out, where, values)
        else:  # cupyx.scatter_add is CuPy's unbuffered add.at
            cupyx_module().scatter_add(out, where, values)
        return out.astype(g.dtype, copy=False)

    @staticmethod
    def backward(ctx, gx):
        # idx may be smaller than ``shape`` in the other dims (scatter_add reads src's leading
        # block): the gather reads gx's block of idx's size there, not a broadcast of idx
        return _gather_block(gx, ctx.idx, ctx.dim, ctx.distinct), None, None, None, None


# ----------------------------------------------------------------------------- scatter_reduce
SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_UFUNCS = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _positions(idx, dim: int, xp):
    """Where each element of idx sends its value: idx itself along dim, its own place elsewhere."""
    axes = range(idx.ndim)
    return tuple(
        idx if d == dim else xp.arange(n).reshape([-1 if e == d else 1 for e in axes])
        for d, n in enumerate(idx.shape)
    )


def _identity(reduce: str, dtype, xp):
    """The value a reduction starts from (what include_self=False puts in place of self)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind in "fV":
        return -xp.inf if reduce == "amax" else xp.inf
    if dtype.kind == "b":  # (NumPy's iinfo has no bool)
        return reduce == "amin"
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


@quiet_fp
def _fold_at(xp, reduce: str, out, where, values) -> None:
    """out[where] = out[where] (reduce) values, unbuffered (a repeated place takes every value)."""
    name = _UFUNCS[reduce]
    if xp is np:
        getattr(xp, name).at(out, where, values)
    elif name == "add":
        cupyx_module().scatter_add(out, where, values)
    else:
        # CuPy has no unbuffered multiply, and its scatter_max / scatter_min lose float64's
        # precision (seen with CuPy 14 on an H200): fold on the host, exactly
        host = to_numpy(out)
        hxp = get_array_module(host)
        getattr(hxp, name).at(host, tuple(to_numpy(w) for w in where), to_numpy(values))
        out[...] = xp.asarray(host)


class ScatterReduce(Op):
    """out = x, with each src[.., j, ..] folded into out[.., idx[.., j, ..], ..] by ``reduce``:
    sum, prod, mean, amax or amin. With include_self=False a place that receives values starts
    from them alone (x's value there is left out, and not counted by mean); integer means round
    down, as in PyTorch.

    Gradients, with g = dL/dout and the contributors of a place (x there if included, and every
    src value sent there):

        sum:        dL/dx = g (0 where x is left out);       dL/dsrc = gather(g)
        mean:       as sum, divided by the place's count n of contributors
        prod:       d out / d v = the product of the other contributors (from the product of the
                    non-zero ones and the number of zeros: a zero contributor gets the rest)
        amax/amin:  g goes to the contributors equal to the result, shared evenly among ties

    ``differentiable=False`` is ``scatter(reduce=...)``, which PyTorch does not differentiate.
    For prod, amax and amin the backward's weights are constants (no second derivative there)."""

    @staticmethod
    def forward(ctx, x, src, idx, dim, reduce, include_self, differentiable=True):
        xp = get_array_module(x)
        where = _positions(idx, dim, xp)
        hit = xp.zeros(x.shape, dtype=bool)
        hit[where] = True
        # sums and products of 2-byte floats in float32, rounded once at the end (as PyTorch)
        wide = x.dtype.itemsize == 2 and x.dtype.kind in "fV" and reduce in ("sum", "mean", "prod")
        out = x.astype(xp.float32) if wide else x.copy()
        if not include_self:
            out[hit] = _identity(reduce, x.dtype, xp)
        _fold_at(xp, reduce, out, where, src.astype(out.dtype, copy=False))
        count = None
        if reduce == "mean":
            count = xp.zeros(x.shape, dtype=np.int64)
            _fold_at(xp, "sum", count, where, xp.ones(idx.shape, dtype=np.int64))
            count = xp.maximum(count + (1 if include_self else 0), 1)
            if x.dtype.kind in "fV":
                out = (out / count).astype(x.dtype, copy=False)
            else:
                out = xp.floor_divide(out, count).astype(x.dtype, copy=False)
        out = out.astype(x.dtype, copy=False)
        ctx.args = (idx, where, hit, count, dim, reduce, include_self, differentiable)
        ctx.save_for_backward(x, src, out)
        return out

    @staticmethod
    def backward(ctx, g):
        idx, where, hit, count, dim, reduce, include_self, differentiable = ctx.args
        if not differentiable:
            raise RuntimeError(
                "the derivative of scatter(reduce=...) is not implemented, as in PyTorch: use "
                "scatter_reduce (or scatter_add) when a gradient is needed"
            )
        if reduce == "prod":  # written with Tensor ops: its second derivative is not zero
            return (*_prod_backward(g, *ctx.saved_tensors, idx, dim, include_self, hit),) + (
                (None,) * 5
            )
        x, src, out = (t._data for t in ctx.saved_tensors)
        xp = get_array_module(x)
        self_in = hit <= include_self  # x contributes where nothing was sent, or when included
        if reduce in ("sum", "mean"):
            w_self = self_in.astype(x.dtype)
            w_src = xp.ones_like(src)
            if count is not None:
                w_self = w_self / count
            scale = 1 / count if count is not None else None
        else:  # amax / amin: the ties at the result share g
            ties = ((x == out) & self_in).astype(np.int64)
            _fold_at(xp, "sum", ties, where, (src == out[where]).astype(np.int64))
            n = xp.maximum(ties, 1)
            w_self = ((x == out) & self_in) / n
            w_src = (src == out[where]).astype(x.dtype)
            scale = 1 / n
        make = type(g)._make
        g_src = g if scale is None else g * make(xp.asarray(scale, dtype=x.dtype), False)
        g_src = _gather_block(g_src, idx, dim) * make(w_src.astype(x.dtype), False)
        return (
            g * make(xp.asarray(w_self, dtype=x.dtype), False),
            g_src,
            None,
            None,
            None,
            None,
            None,
        )


def _prod_backward(g, x, src, out, idx, dim: int, include_self: bool, hit) -> tuple:
    """dL/dx and dL/dsrc of scatter_reduce(prod), as PyTorch writes them, in Tensor ops (so they
    are differentiable again): a contributor's derivative is the product of the others, found as
    the product with that contributor replaced by 1 (a zero contributor then gets the rest), or
    as the result divided by it when it is not zero.

        dL/dx   = g * prod(with x -> 1 where x = 0) / (x, 0 -> 1)      (0 where x is left out)
        dL/dsrc = gather(g * prod(with src -> 1 where src is its place's only zero)) there,
                  else gather(g * out) / (src, 0 -> 1)"""
    make = type(g)._make
    index = make(idx, False)
    x_zero, src_zero = x == 0, src == 0
    x1 = x.masked_fill(x_zero, 1.0)
    g_x = g * x1.scatter_reduce(dim, index, src, "prod", include_self=include_self) / x1
    if not include_self:
        g_x = g_x.masked_fill(make(hit, False), 0.0)
    zeros_there = x.new_zeros(x.shape).scatter_add(dim, index, src_zero.to(x.dtype))
    only_zero = src_zero & (zeros_there.gather(dim, index) == 1)
    src1 = src.masked_fill(only_zero, 1.0)
    product_of_others = x.scatter_reduce(dim, index, src1, "prod", include_self=include_self)
    g_src = (g * out).gather(dim, index) / src.masked_fill(src_zero, 1.0)
    g_src = g_src.where(~only_zero, (g * product_of_others).gather(dim, index))
    return g_x, g_src


def _gather_block(g, idx, dim: int, distinct: bool = False):
    """gather(g, dim, idx) where idx may be smaller than g in the other dims."""
    block = tuple(slice(None) if e == dim else slice(0, n) for e, n in enumerate(idx.shape))
    if any(n < m for e, (n, m) in enumerate(zip(idx.shape, g.shape)) if e != dim):
        g = g[block]
    return GatherAlongDim.apply(g, idx, dim, distinct)


def gather(x, dim: int, index):
    """out[i][j][k] = x[index[i][j][k]][j][k] (dim 0; likewise for other dims): out has index's
    shape; index may be smaller than x in the other dims (x's leading block is read)."""
    name = "gather"
    if not isinstance(index, type(x)):
        raise TypeError(f"{name}: index must be a Tensor, got {type(index).__name__}")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            f"{name}(): Expected dtype int32/int64 for index, got {index.dtype.name}"
        )
    if index._data.dtype == np.int32:  # accepted as PyTorch does; computed with int64
        index = type(index)._make(index._data.astype(np.int64))
    if index.ndim != x.ndim and not (x.ndim <= 1 and index.ndim <= 1):
        raise RuntimeError(
            f"{name}: index {tuple(index.shape)} must have the same number of dimensions as "
            f"input {tuple(x.shape)}"
        )
    d = checked_dim(x, dim, name)
    if x.ndim == 0 or index.ndim == 0:
        out = gather(x.reshape(-1), 0, index.reshape(-1))
        return out.reshape(index.shape)
    for e in range(x.ndim):
        if e != d and index.shape[e] > x.shape[e]:
            raise RuntimeError(
                f"{name}: size does not match at dimension {e}: expected index "
                f"{tuple(index.shape)} to be no larger than input {tuple(x.shape)} apart from "
                f"dimension {d}"
            )
    what = f"index along dimension {d}"
    check_index_range(index._data, x.shape[d], name, what, error=RuntimeError)
    block = tuple(slice(None) if e == d else slice(0, index.shape[e]) for e in range(x.ndim))
    if any(index.shape[e] < x.shape[e] for e in range(x.ndim) if e != d):
        x = x[block]
    return GatherAlongDim.apply(x, index._data, d, False)
