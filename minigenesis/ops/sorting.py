"""Sorting and selection: sort, argsort, topk, multinomial, and the triangular masks tril / triu.

sort and topk return values picked out of x along one dim, so their gradient is a scatter: each
value's gradient goes back to the position it came from. The picked positions along that dim are
distinct (a permutation for sort, a subset for topk), so the scatter is a plain write (a general
``gather`` may pick one element twice: its scatter adds), and the scatter's own gradient is the
gather again (both ops are in ``gather_scatter.py``):

    values  = gather(x, idx, dim)        values[..., j, ...] = x[..., idx[..., j, ...], ...]
    dL/dx   = scatter(dL/dvalues, idx)   zeros, with dL/dvalues written at idx

Ordering follows PyTorch: NaN counts as larger than every number (last in an ascending sort, first
in a descending one, the first picks of topk(largest=True)). The sort underneath is stable (equal
values keep their order); where PyTorch's CPU kernel is not (sort with ``stable=False`` past 16
elements, topk's nth_element), the slices whose equal values it would order differently are
replayed by its algorithm (``stl_order.py``), so the indices are PyTorch's.

multinomial has no gradient: it returns indices. Without replacement it draws by an exponential
race (each category's key is E / w with E ~ Exp(1); the k smallest keys win), which is the same
distribution as drawing one category at a time and removing it; with replacement, by inverting
the cumulative distribution (one uniform draw per sample).
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ..backend import get_array_module, to_numpy
from ..random import generator_for
from ..size import plain_int
from .gather_scatter import GatherAlongDim, checked_dim
from .stl_order import replace_tied_slices, replayable, sort_orders, topk_orders


# ----------------------------------------------------------------------------------- sort
def sort_indices(a, dim: int, descending: bool):
    """Stable sorting indices of array ``a`` along ``dim`` (NaN largest, as PyTorch).

    Descending without negating (which would overflow int8's -128 and break on bool): sort the
    reversed array ascending, reverse the result, and map the positions back. Equal values then
    come in their original order, as a stable descending sort requires. bfloat16 sorts as its
    exact float32 values: ml_dtypes' bfloat16 sort compares NaN as unordered, which scatters the
    NaNs and misorders the numbers around them."""
    xp = get_array_module(a)
    if a.dtype.kind == "V":
        a = a.astype(np.float32)
    if not descending:
        return xp.argsort(a, axis=dim, kind="stable")
    n = a.shape[dim]
    rev = xp.flip(a, axis=dim)
    return (n - 1) - xp.flip(xp.argsort(rev, axis=dim, kind="stable"), axis=dim)


def sort(x, dim: int = -1, descending: bool = False, stable: bool = True):
    """(values, indices) of x sorted along ``dim``; a 0-d tensor sorts to itself (index 0).
    ``stable=False``: among equal values, the order PyTorch's CPU std::sort leaves."""
    d = checked_dim(x, dim, "sort")
    if x.ndim == 0:
        values, idx = sort(x.reshape(1), 0, descending)
        return values.reshape(()), idx.reshape(())
    idx = sort_indices(x._data, d, descending).astype(np.int64, copy=False)
    if not stable:
        idx = _unstable_sort_ties(x._data, d, idx, descending)
    return GatherAlongDim.apply(x, idx, d, True), type(x)._make(idx, False)


_INSERTION_SORT_MAX = 16  # std::sort of up to 16 elements is an insertion sort: stable
_RADIX_SORT_MIN = 32768  # 1-D ascending integers from here: a (stable) radix sort


def _unstable_sort_ties(a, d: int, idx, descending: bool):
    """``idx`` (the stable sort's) with each slice that has equal values replayed by PyTorch's
    CPU sort for ``stable=False`` (``stl_order.py``), where that differs from a stable sort:
    more than 16 elements, not a dim of stride 0 (PyTorch does not sort those), not the radix
    sort of a long 1-D ascending integer tensor."""
    n = a.shape[d]
    strides = getattr(a, "strides", None)
    if n <= _INSERTION_SORT_MAX or (strides is not None and strides[d] == 0):
        return idx
    if a.ndim == 1 and not descending and a.dtype.kind in "iu" and n >= _RADIX_SORT_MIN:
        return idx
    xp = get_array_module(a)
    if xp is not np:  # PyTorch's CUDA sort is another algorithm: the stable order stands
        return idx
    orders = lambda rows: sort_orders(rows, descending)  # noqa: E731
    return _replay_tied(a, d, idx, xp.take_along_axis(a, idx, axis=d), orders)


def topk(x, k: int, dim: int = -1, largest: bool = True):
    """(values, indices) of the k largest (smallest) entries along ``dim``, in sorted order."""
    d = checked_dim(x, dim, "topk")
    size = x.shape[d] if x.ndim else 1
    k = plain_int(k)
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= size:
        raise RuntimeError(
            f"topk: k ({k!r}) is out of range: expected an int in [0, {size}] for dim {dim} of "
            f"a tensor of shape {tuple(x.shape)} (selected index k out of range)"
        )
    if x.ndim == 0:  # the element itself, index 0, for k = 1 and k = 0 alike (PyTorch's)
        values, idx = topk(x.reshape(1), 1, 0, largest)
        return values.reshape(()), idx.reshape(())
    order = sort_indices(x._data, d, largest)
    idx = order[(slice(None),) * d + (slice(0, k),)].astype(np.int64, copy=False)
    if k:
        idx = _topk_ties(x._data, d, order, idx, k, largest)
    return GatherAlongDim.apply(x, idx, d, True), type(x)._make(idx, False)


def _topk_ties(a, d: int, order, idx, k: int, largest: bool):
    """``idx`` (the stable sort's first k) with each slice where equal values meet among the
    first k + 1 sorted places replayed by PyTorch's CPU topk (``stl_order.py``): which of equal
    values it returns, and in which order, is its unstable selection's choice."""
    xp = get_array_module(a)
    if xp is not np:  # PyTorch's CUDA topk is another algorithm: the stable order stands
        return idx
    n = a.shape[d]
    head = xp.take_along_axis(a, order[(slice(None),) * d + (slice(0, min(k + 1, n)),)], axis=d)
    orders = lambda rows: topk_orders(rows, k, largest)  # noqa: E731
    return _replay_tied(a, d, idx, head, orders)


def _replay_tied(a, d: int, idx, ordered, orders):
    """``idx`` with each slice along ``d`` where neighbours of ``ordered`` (a's values in sorted
    order) are equal (NaN equal to NaN) replaced by ``orders(rows)``, PyTorch's CPU choice among
    them (``stl_order.py``); as it is where no slice has ties or the replay would be too long."""
    xp = get_array_module(a)
    if ordered.dtype.kind == "V":  # bfloat16: compare as its exact float32 values
        ordered = ordered.astype(np.float32)
    lead = ordered[(slice(None),) * d + (slice(0, -1),)]
    nxt = ordered[(slice(None),) * d + (slice(1, None),)]
    same = lead == nxt
    if ordered.dtype.kind == "f":
        same |= xp.isnan(lead) & xp.isnan(nxt)
    ties = to_numpy(same.any(axis=d))
    if not ties.any() or not replayable(int(ties.sum()), a.shape[d]):
        return idx
    return xp.asarray(replace_tied_slices(to_numpy(a), d, to_numpy(idx), ties, orders))


def triangle(x, diagonal: int, upper: bool):
    """tril(x, diagonal) or triu(x, diagonal) over the last two dims."""
    name = "triu" if upper else "tril"
    if x.ndim < 2:
        raise RuntimeError(
            f"{name}: input tensor must have at least 2 dimensions, got shape {tuple(x.shape)}"
        )
    diagonal = plain_int(diagonal)
    if not isinstance(diagonal, int) or isinstance(diagonal, bool):
        raise TypeError(f"{name}: diagonal must be an int, got {diagonal!r}")
    return Triangle.apply(x, diagonal, upper)


def multinomial(x, num_samples: int, replacement: bool = False, generator=None):
    """Indices (int64) drawn from each row of the non-negative weights x (C,) or (N, C)."""
    name, num_samples = "multinomial", plain_int(num_samples)
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


# ----------------------------------------------------------------------------------- median
class ShareAmongEqual(Op):
    """z = m, a value picked out of x (the median of all elements);
    dz/dx_i = [x_i equals m] / (how many do), the gradient shared evenly among the elements
    equal to it (PyTorch's rule; a NaN m counts the NaNs). An op rather than
    ``m + (x - x.detach())`` weighted: that zero is NaN where m is +-inf (inf - inf)."""

    @staticmethod
    def forward(ctx, x, m, same):
        ctx.share = (same / same.sum()).astype(x.dtype)
        return m

    @staticmethod
    def backward(ctx, gz):
        return gz * type(gz)._make(ctx.share, False), None, None


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
