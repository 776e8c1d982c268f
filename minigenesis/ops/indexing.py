"""Indexing: ``x[index]`` (basic and advanced), its scatter-add gradient, masked_fill, index_put.

Basic indexing (ints, slices, None, Ellipsis) returns a view; advanced indexing (integer or boolean
arrays) gathers a copy, and the same element may be picked twice: its gradient must then be the
*sum* of both picks, which is why the backward scatters with ``add.at`` and not with assignment.
"""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module


def is_basic_index(index) -> bool:
    """True when ``index`` only has ints, slices, None and Ellipsis (so x[index] is a view)."""
    items = index if isinstance(index, tuple) else (index,)
    return all(
        i is None or i is Ellipsis or isinstance(i, (int, slice)) and not isinstance(i, bool)
        for i in items
    )


class GetItem(Op):
    """y = x[index];   dL/dx = zeros with dL/dy scatter-added at ``index``."""

    @staticmethod
    def forward(ctx, x, index):
        ctx.in_shape, ctx.index = x.shape, index
        if is_basic_index(index):
            # x[0] on a 1-D NumPy array is a scalar copy; x[0, ...] is a 0-d view, as in PyTorch
            items = index if isinstance(index, tuple) else (index,)
            if Ellipsis not in items:
                return x[(*items, Ellipsis)]
        return x[index]

    @staticmethod
    def backward(ctx, gy):
        return IndexAddGrad.apply(gy, ctx.index, ctx.in_shape), None


class IndexAddGrad(Op):
    """x = zeros(shape); x[index] += g (repeated indices accumulate);
    its own gradient is g' = dL/dx[index]."""

    @staticmethod
    def forward(ctx, g, index, shape):
        ctx.index = index
        xp = get_array_module(g)
        out = xp.zeros(shape, dtype=g.dtype)
        if is_basic_index(index):
            out[index] = g
        elif xp.__name__ == "numpy":
            xp.add.at(out, index, g)
        else:  # cupyx.scatter_add is CuPy's unbuffered add.at
            import cupyx

            cupyx.scatter_add(out, index, g)
        return out

    @staticmethod
    def backward(ctx, gx):
        return GetItem.apply(gx, ctx.index), None, None


class MaskedFill(Op):
    """y = where(mask, value, x);   dL/dx = dL/dy where the mask is False, else 0."""

    @staticmethod
    def forward(ctx, x, mask, value):
        xp = get_array_module(x)
        ctx.save_for_backward((~mask).astype(x.dtype))
        return xp.where(mask, xp.asarray(value, dtype=x.dtype), x)

    @staticmethod
    def backward(ctx, gy):
        (keep,) = ctx.saved_tensors
        return gy * keep, None, None


class IndexPut(Op):
    """y = x with y[index] = v (out of place; ``x[index] = v`` is built on it);
    dL/dx = dL/dy with zeros at ``index``;   dL/dv = dL/dy[index] (summed back to v's shape)."""

    @staticmethod
    def forward(ctx, x, index, v):
        ctx.index = index
        out = x.copy()
        out[index] = v
        return out

    @staticmethod
    def backward(ctx, gy):
        need_x = ctx.needs_input_grad[0]
        need_v = ctx.needs_input_grad[2]
        gx = IndexPut.apply(gy, ctx.index, 0.0) if need_x else None
        gv = GetItem.apply(gy, ctx.index) if need_v else None
        return gx, None, gv


def check_index_range(
    index, size: int, name: str, what: str = "index", hint: str = "", error: type = IndexError
) -> None:
    """Refuse integer indices outside [0, ``size``) with an ``error`` (IndexError unless the op's
    PyTorch counterpart raises another type) naming the op, the bad value and the allowed
    range. (NumPy would wrap a negative index around to the end: a silently wrong row.)
    One min and one max over the array: cheap next to the lookup it guards."""
    if index.size == 0:
        return
    lo, hi = int(index.min()), int(index.max())
    if lo < 0 or hi >= size:
        bad = lo if lo < 0 else hi
        raise error(f"{name}: {what} {bad} is out of bounds: expected values in [0, {size}){hint}")


def check_index_dtype(index, allowed: tuple[str, ...], name: str, what: str = "indices") -> None:
    """Refuse an index tensor whose dtype is not one of ``allowed`` (NumPy dtype names), with
    PyTorch's exception type (RuntimeError)."""
    if index._data.dtype.name not in allowed:
        names = " or ".join(allowed)
        raise RuntimeError(
            f"{name}: {what} must be a tensor of dtype {names}, got {index.dtype.name}"
        )
