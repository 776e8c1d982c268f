"""Shape ops: reshape, permute, expand / sum_to, cat, split, repeat, contiguous.

Most of these move no data: reshape, permute and expand return views of the same memory, which is
why their outputs share their input's version counter (see ``Tensor._view_of``). Their backward
undoes the shape change: reshape back, permute by the inverse permutation, sum what was expanded.
"""

from __future__ import annotations

from .. import kernels
from ..autocast_policy import PROMOTE
from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..backend import get_array_module, quiet_fp


class Reshape(Op):
    """y = x viewed with a new shape;   dL/dx = dL/dy reshaped back."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return x.reshape(shape)

    @staticmethod
    def backward(ctx, gy):
        if not state.grad_enabled:  # nothing records: the array reshaped, not as an op
            return type(gy)._make(gy._data.reshape(ctx.in_shape)), None
        return gy.reshape(ctx.in_shape), None


class Permute(Op):
    """y = x with its dims reordered;   dL/dx = dL/dy permuted by the inverse order."""

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return x.transpose(dims)

    @staticmethod
    def backward(ctx, gy):
        inverse = [0] * len(ctx.dims)
        for i, d in enumerate(ctx.dims):
            inverse[d] = i
        if not state.grad_enabled:  # nothing records: the array's dims reordered, not as an op
            return type(gy)._make(gy._data.transpose(inverse)), None
        return gy.permute(*inverse), None


class Flip(Op):
    """y = x with the order of ``dims`` reversed (a copy, as in PyTorch);   dL/dx = dL/dy flipped
    back the same way (reversing twice is the identity)."""

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return get_array_module(x).flip(x, dims).copy()

    @staticmethod
    def backward(ctx, gy):
        return Flip.apply(gy, ctx.dims), None


class Expand(Op):
    """y = x broadcast to ``shape`` (a view, no copy);   dL/dx = dL/dy summed back to x's shape."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return get_array_module(x).broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, gy):
        return gy.sum_to_shape(ctx.in_shape), None


@quiet_fp
def sum_to_shape_array(g, shape: tuple):
    """Sum an array down to ``shape`` (the inverse of broadcasting): drop leading dims, then sum
    the dims that were 1 in ``shape``."""
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1
    )
    if axes and g.dtype.itemsize == 2 and g.dtype.kind in "fV":  # half: a float32 sum, once
        g = g.sum(axis=axes, keepdims=True, dtype=get_array_module(g).float32).astype(g.dtype)
    elif axes:
        g = g.sum(axis=axes, keepdims=True)
    if lead:
        g = g.reshape(shape)
    return g


class SumTo(Op):
    """y = x summed down to ``shape`` (undoes broadcasting);   dL/dx = dL/dy expanded back."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return get_array_module(x).asarray(sum_to_shape_array(x, shape))

    @staticmethod
    def backward(ctx, gy):
        return gy.expand(ctx.in_shape), None


class Contiguous(Op):
    """y = a C-contiguous copy of x;   dL/dx = dL/dy."""

    @staticmethod
    def forward(ctx, x):
        return get_array_module(x).ascontiguousarray(x)

    @staticmethod
    def backward(ctx, gy):
        return gy


class Clone(Op):
    """y = a copy of x with its own memory;   dL/dx = dL/dy.

    The copy keeps x's layout, as PyTorch's ``clone`` (``preserve_format``): a transposed or
    permuted x gives a copy with the same order of strides (``x.t().clone().stride()`` is
    ``(1, n)``), NumPy's ``order="K"``; an expanded x (a stride of 0) gives a contiguous copy."""

    @staticmethod
    def forward(ctx, x):
        if x.flags.c_contiguous:
            return x.copy()
        expanded = any(st == 0 and n > 1 for st, n in zip(x.strides, x.shape))
        return x.copy(order="C" if expanded else "K")

    @staticmethod
    def backward(ctx, gy):
        return gy


class Cat(Op):
    """y = concatenate(x_1, ..., x_n) along ``dim``;   dL/dx_k = the slice of dL/dy x_k became."""

    autocast = PROMOTE  # cat and stack

    @staticmethod
    def forward(ctx, dim, *xs):
        ctx.dim = dim
        ctx.sizes = [x.shape[dim] for x in xs]
        return get_array_module(xs[0]).concatenate(xs, axis=dim)

    @staticmethod
    def backward(ctx, gy):
        return (None, *gy.split(ctx.sizes, dim=ctx.dim))


class Stack(Op):
    """y = x_1, ..., x_n (one shape) stacked along a new dim ``dim``;
    dL/dx_k = dL/dy's slice k along that dim (Unstack).
    (One op, where cat of n unsqueezed tensors would be n + 1 ops, forward and backward.)"""

    autocast = PROMOTE

    @staticmethod
    def forward(ctx, dim, *xs):
        ctx.dim = dim
        return get_array_module(xs[0]).stack(xs, axis=dim)

    @staticmethod
    def backward(ctx, gy):
        return (None, *Unstack.apply(gy, ctx.dim))


class Unstack(Op):
    """(y_1, ..., y_n) = the slices of x along ``dim``, each without that dim (views);
    dL/dx = stack(dL/dy_k) along ``dim``."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return tuple(get_array_module(x).moveaxis(x, dim, 0))

    @staticmethod
    def backward(ctx, *gys):
        return Stack.apply(ctx.dim, *gys), None


class Split(Op):
    """(y_1, ..., y_n) = x cut into pieces of ``sizes`` along ``dim``;   dL/dx = cat(dL/dy_k)."""

    @staticmethod
    def forward(ctx, x, sizes, dim):
        ctx.dim = dim
        bounds = []
        total = 0
        for s in sizes[:-1]:
            total += s
            bounds.append(total)
        return tuple(get_array_module(x).split(x, bounds, axis=dim))

    @staticmethod
    def backward(ctx, *gys):
        if not state.grad_enabled and (g := _adjacent_views(gys, ctx.dim)) is not None:
            return type(gys[0])._make(g), None, None  # (no copy: see _adjacent_views)
        return Cat.apply(ctx.dim, *gys), None, None


def _adjacent_views(gys: tuple, dim: int):
    """The gradients' arrays concatenated along ``dim`` without a copy, where they are views of
    one NumPy array that follow each other and tile it (attention's Q, K, V gradients: see
    kernels/attention.py); None otherwise."""
    return kernels.attention.adjacent_pieces(tuple(g if g is None else g._data for g in gys), dim)


class Repeat(Op):
    """y = x tiled ``repeats`` times per dim;   dL/dx = the sum of dL/dy over the copies."""

    @staticmethod
    def forward(ctx, x, repeats):
        xp = get_array_module(x)
        lead = len(repeats) - x.ndim
        ctx.x_shape = (1,) * lead + x.shape
        ctx.in_shape = x.shape
        ctx.repeats = repeats
        return xp.tile(x, repeats)

    @staticmethod
    def backward(ctx, gy):
        # view gy as (r0, s0, r1, s1, ...) and sum over the r axes
        split_shape = []
        for r, s in zip(ctx.repeats, ctx.x_shape):
            split_shape += [r, s]
        g = gy.reshape(split_shape).sum(dim=tuple(range(0, 2 * len(ctx.repeats), 2)))
        return g.reshape(ctx.in_shape), None


class Diagonal(Op):
    """y = the diagonal x[..i.., ..i + offset..] of the plane (dim1, dim2), in a new last dim:
    a view (the stride of one step along the diagonal is the sum of the two dims' strides), so a
    write into y reaches x, as in PyTorch;   dL/dx = dL/dy placed back on that diagonal, zero
    elsewhere."""

    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        xp = get_array_module(x)
        ctx.shape, ctx.args = x.shape, (offset, dim1, dim2)
        moved = xp.moveaxis(x, (dim1, dim2), (-2, -1))
        corner = moved[..., max(-offset, 0) :, max(offset, 0) :]  # the diagonal starts here
        n = max(0, min(corner.shape[-2], corner.shape[-1]))
        strides = corner.strides[:-2] + (corner.strides[-2] + corner.strides[-1],)
        return xp.lib.stride_tricks.as_strided(corner, corner.shape[:-2] + (n,), strides)

    @staticmethod
    def backward(ctx, gy):
        offset, dim1, dim2 = ctx.args
        gx = type(gy)._make(get_array_module(gy._data).zeros(ctx.shape, gy._data.dtype), False)
        moved = gx.movedim((dim1, dim2), (-2, -1))
        xp = get_array_module(gy._data)
        rows = xp.arange(gy.shape[-1]) + max(-offset, 0)
        make = type(gy)._make
        moved = moved.clone()  # (movedim is a view: write into a copy of its own)
        moved[(Ellipsis, make(rows, False), make(rows + offset, False))] = gy  # a tracked write
        return moved.movedim((-2, -1), (dim1, dim2)), None, None, None
