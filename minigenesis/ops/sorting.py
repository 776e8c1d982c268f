"""Sorting and selection: sort, argsort, topk, gather, scatter_reduce, multinomial, and the
triangular masks tril / triu.

sort and topk return values picked out of x along one dim, so their gradient is a scatter: each
value's gradient goes back to the position it came from. The picked positions along that dim are
distinct (a permutation for sort, a subset for topk), so the scatter is a plain write (a general
``gather`` may pick one element twice: its scatter adds), and the scatter's own gradient is the
gather again:

    values  = gather(x, idx, dim)        values[..., j, ...] = x[..., idx[..., j, ...], ...]
    dL/dx   = scatter(dL/dvalues, idx)   zeros, with dL/dvalues written at idx

Ordering follows PyTorch: NaN counts as larger than every number (last in an ascending sort, first
in a descending one, the first picks of topk(largest=True)), and every sort here is stable (equal
values keep their order), which is a valid answer for ``stable=False`` too.

multinomial has no gradient: it returns indices. Without replacement it draws by an exponential
race (each category's key is E / w with E ~ Exp(1); the k smallest keys win), which is the same
distribution as drawing one category at a time and removing it; with replacement, by inverting
the cumulative distribution (one uniform draw per sample).
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ..backend import cupyx_module, get_array_module, to_numpy
from ..random import generator_for
from .indexing import check_index_range


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
    def forward(ctx, g, idx, dim, shape, distinct):
        ctx.idx, ctx.dim, ctx.distinct = idx, dim, distinct
        xp = get_array_module(g)
        out = xp.zeros(shape, dtype=g.dtype)
        if distinct:
            xp.put_along_axis(out, idx, g, axis=dim)
            return out
        # the position of every element of idx: idx itself along dim, its own index elsewhere
        axes = range(idx.ndim)
        where = tuple(
            idx if d == dim else xp.arange(n).reshape([-1 if e == d else 1 for e in axes])
            for d, n in enumerate(idx.shape)
        )
        if xp is np:
            xp.add.at(out, where, g)
        else:  # cupyx.scatter_add is CuPy's unbuffered add.at
            cupyx_module().scatter_add(out, where, g)
        return out

    @staticmethod
    def backward(ctx, gx):
        return GatherAlongDim.apply(gx, ctx.idx, ctx.dim, ctx.distinct), None, None, None, None


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
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _fold_at(xp, reduce: str, out, where, values) -> None:
    """out[where] = out[where] (reduce) values, unbuffered (a repeated place takes every value)."""
    name = _UFUNCS[reduce]
    if xp is np:
        getattr(xp, name).at(out, where, values)
    elif name == "add":
        cupyx_module().scatter_add(out, where, values)
    elif name in ("maximum", "minimum"):
        getattr(cupyx_module(), f"scatter_{name[:3]}")(out, where, values)
    else:  # CuPy has no unbuffered multiply: fold on the host
        host = to_numpy(out)
        hxp = get_array_module(host)
        hxp.multiply.at(host, tuple(to_numpy(w) for w in where), to_numpy(values))
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
        out = x.copy()
        if not include_self:
            out[hit] = _identity(reduce, x.dtype, xp)
        _fold_at(xp, reduce, out, where, src.astype(x.dtype, copy=False))
        count = None
        if reduce == "mean":
            count = xp.zeros(x.shape, dtype=np.int64)
            _fold_at(xp, "sum", count, where, xp.ones(idx.shape, dtype=np.int64))
            count = xp.maximum(count + (1 if include_self else 0), 1)
            if x.dtype.kind in "fV":
                out = (out / count).astype(x.dtype, copy=False)
            else:
                out = xp.floor_divide(out, count).astype(x.dtype, copy=False)
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
        x, src, out = (t._data for t in ctx.saved_tensors)
        xp = get_array_module(x)
        self_in = hit <= include_self  # x contributes where nothing was sent, or when included
        if reduce in ("sum", "mean"):
            w_self = self_in.astype(x.dtype)
            w_src = xp.ones_like(src)
            if count is not None:
                w_self = w_self / count
            scale = 1 / count if count is not None else None
        elif reduce == "prod":
            nz = xp.where(self_in, x, 1)  # x's part: itself where it counts, else 1
            zeros = ((x == 0) & self_in).astype(np.int64)
            nz = xp.where(nz == 0, 1, nz)
            _fold_at(xp, "prod", nz, where, xp.where(src == 0, 1, src))
            _fold_at(xp, "sum", zeros, where, (src == 0).astype(np.int64))
            w_self = xp.where(self_in, _others(x, nz, zeros, xp), 0)
            w_src = _others(src, nz[where], zeros[where], xp)
            scale = None
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


def _others(v, nz_prod, zeros, xp):
    """For a contributor v of a product: the product of the others, given the place's product of
    non-zero contributors and its number of zeros."""
    safe = xp.where(v == 0, 1, v)
    return xp.where(zeros == 0, nz_prod / safe, xp.where((zeros == 1) & (v == 0), nz_prod, 0))


def _gather_block(g, idx, dim: int):
    """gather(g, dim, idx) where idx may be smaller than g in the other dims."""
    block = tuple(slice(None) if e == dim else slice(0, n) for e, n in enumerate(idx.shape))
    return GatherAlongDim.apply(g[block], idx, dim, False)


def gather(x, dim: int, index):
    """out[i][j][k] = x[index[i][j][k]][j][k] (dim 0; likewise for other dims): out has index's
    shape; index may be smaller than x in the other dims (x's leading block is read)."""
    name = "gather"
    if not isinstance(index, type(x)):
        raise TypeError(f"{name}: index must be a Tensor, got {type(index).__name__}")
    if index._data.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected dtype int64 for index, got {index.dtype.name}")
    if index.ndim != x.ndim and not (x.ndim <= 1 and index.ndim <= 1):
        raise RuntimeError(
            f"{name}: index {tuple(index.shape)} must have the same number of dimensions as "
            f"input {tuple(x.shape)}"
        )
    d = _dim(x, dim, name)
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


# ----------------------------------------------------------------------------------- sort
def sort_indices(a, dim: int, descending: bool):
    """Stable sorting indices of array ``a`` along ``dim`` (NaN largest, as PyTorch).

    Descending without negating (which would overflow int8's -128 and break on bool): sort the
    reversed array ascending, reverse the result, and map the positions back. Equal values then
    come in their original order, as a stable descending sort requires."""
    xp = get_array_module(a)
    if not descending:
        return xp.argsort(a, axis=dim, kind="stable")
    n = a.shape[dim]
    rev = xp.flip(a, axis=dim)
    return (n - 1) - xp.flip(xp.argsort(rev, axis=dim, kind="stable"), axis=dim)


def _dim(x, dim: int, name: str) -> int:
    """``dim`` in range for x (a 0-d tensor has dims 0 and -1), made non-negative."""
    limit = max(x.ndim, 1)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}: dim must be an int, got {dim!r}")
    if not -limit <= dim < limit:
        raise IndexError(
            f"{name}: dim {dim} is out of range for a tensor of shape {tuple(x.shape)} "
            f"(expected a dim in [{-limit}, {limit - 1}])"
        )
    return dim % limit


def sort(x, dim: int = -1, descending: bool = False):
    """(values, indices) of x sorted along ``dim``; a 0-d tensor sorts to itself (index 0)."""
    d = _dim(x, dim, "sort")
    if x.ndim == 0:
        values, idx = sort(x.reshape(1), 0, descending)
        return values.reshape(()), idx.reshape(())
    idx = sort_indices(x._data, d, descending).astype(np.int64, copy=False)
    return GatherAlongDim.apply(x, idx, d, True), type(x)._make(idx, False)


def topk(x, k: int, dim: int = -1, largest: bool = True):
    """(values, indices) of the k largest (smallest) entries along ``dim``, in sorted order."""
    d = _dim(x, dim, "topk")
    size = x.shape[d] if x.ndim else 1
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= size:
        raise RuntimeError(
            f"topk: k ({k!r}) is out of range: expected an int in [0, {size}] for dim {dim} of "
            f"a tensor of shape {tuple(x.shape)} (selected index k out of range)"
        )
    if x.ndim == 0:
        values, idx = topk(x.reshape(1), k, 0, largest)
        return values.reshape(()), idx.reshape(())
    idx = sort_indices(x._data, d, largest)
    idx = idx[(slice(None),) * d + (slice(0, k),)].astype(np.int64, copy=False)
    return GatherAlongDim.apply(x, idx, d, True), type(x)._make(idx, False)


def triangle(x, diagonal: int, upper: bool):
    """tril(x, diagonal) or triu(x, diagonal) over the last two dims."""
    name = "triu" if upper else "tril"
    if x.ndim < 2:
        raise RuntimeError(
            f"{name}: input tensor must have at least 2 dimensions, got shape {tuple(x.shape)}"
        )
    if not isinstance(diagonal, int) or isinstance(diagonal, bool):
        raise TypeError(f"{name}: diagonal must be an int, got {diagonal!r}")
    return Triangle.apply(x, diagonal, upper)


def multinomial(x, num_samples: int, replacement: bool = False, generator=None):
    """Indices (int64) drawn from each row of the non-negative weights x (C,) or (N, C)."""
    name = "multinomial"
    if x.ndim not in (1, 2):
        raise RuntimeError(
            f"{name}: prob_dist must be 1 or 2 dim (categories last), got shape {tuple(x.shape)}"
        )
    if x._data.dtype.kind not in "fV":
        raise RuntimeError(
            f"{name} only supports floating-point dtypes for input, got {x.dtype.name}"
        )
    if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
        raise RuntimeError(f"{name}: cannot sample n_sample <= 0 samples (got {num_samples!r})")
    c = x.shape[-1]
    if not replacement and num_samples > c:
        raise RuntimeError(
            f"{name}: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"({num_samples} > {c})"
        )
    xp = get_array_module(x._data)
    w = x._data.astype(xp.float64)
    if x.numel() and not bool(xp.all(xp.isfinite(w) & (w >= 0))):
        raise RuntimeError(
            f"{name}: probability tensor contains either `inf`, `nan` or element < 0"
        )
    if c == 0 or not bool(xp.all(w.sum(axis=-1) > 0)):
        raise RuntimeError(f"{name}: invalid multinomial distribution (sum of probabilities <= 0)")
    return type(x)._make(multinomial_indices(w, num_samples, replacement, generator), False)


# ----------------------------------------------------------------------------------- tril / triu
class Triangle(Op):
    """y = x where the element is on or below (tril) / above (triu) the ``diagonal``-th diagonal
    of the last two dims, else 0;   dL/dx = the same mask applied to dL/dy."""

    @staticmethod
    def forward(ctx, x, diagonal, upper):
        ctx.diagonal, ctx.upper = diagonal, upper
        xp = get_array_module(x)
        return xp.triu(x, diagonal) if upper else xp.tril(x, diagonal)

    @staticmethod
    def backward(ctx, gy):
        return Triangle.apply(gy, ctx.diagonal, ctx.upper), None, None


# ----------------------------------------------------------------------------------- multinomial
def multinomial_indices(w, num_samples: int, replacement: bool, generator=None):
    """Category indices (int64) drawn from the rows of non-negative weights ``w`` (C,) or (N, C);
    the weights are checked by the caller."""
    xp = get_array_module(w)
    gen = generator_for(xp, generator)
    w2 = w.reshape(-1, w.shape[-1]).astype(xp.float64)
    n, c = w2.shape
    if not replacement:
        e = -xp.log1p(-gen.random((n, c)))  # Exp(1) draws: -log(1 - u), u in [0, 1), finite
        with np.errstate(divide="ignore"):  # zero weight: key +inf, drawn only after all others
            keys = e / w2
        out = xp.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    else:
        cdf = xp.cumsum(w2, axis=1)
        u = gen.random((n, num_samples)) * cdf[:, -1:]
        last = c - 1 - xp.argmax(xp.flip(w2 > 0, axis=1), axis=1)  # last positive category
        out = xp.stack([xp.searchsorted(cdf[i], u[i], side="right") for i in range(n)])
        out = xp.minimum(out, last[:, None])  # a draw rounded up to the total stays in range
    return out.reshape(w.shape[:-1] + (num_samples,)).astype(xp.int64, copy=False)
