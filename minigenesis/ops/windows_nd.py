"""The windows of an image with any number of spatial dims, as columns: ``WindowsNd`` (im2col in
n-d) and its adjoint ``ScatterWindowsNd`` (col2im in n-d). The 3-d convolutions and poolings
(``F.conv3d``, ``F.conv_transpose3d``, ``F.avg_pool3d``, ``F.max_pool3d``) are built on this pair,
as the 2-d ones are on ``conv.py``'s Im2Col / Col2Im:

    cols[n, c, k_1..k_d, o_1..o_d] = x_pad[n, c, o_1 s_1 + k_1 d_1, ..., o_d s_d + k_d d_d]

gathered with one ``as_strided`` view of the padded input and one copy. The two ops are each
other's gradient (they are transposes of one linear map), so every function built on them has
exact derivatives of every order. The axes of the columns are put in one of two orders:
``CONV`` = (C, k..., N, o...), which reshapes to the (C*K, N*L) matrix a convolution multiplies,
and ``POOL`` = (N, C, o..., k...), which reshapes to (..., K) windows a pooling reduces.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..autograd.function import Op
from ..backend import get_array_module, quiet_fp
from ..size import plain_int

CONV, POOL = "conv", "pool"


def ntuple(value: Any, n: int, name: str) -> tuple[int, ...]:
    """An int or a sequence of n ints (or of one) -> a tuple of n non-negative ints (``_triple``
    for n = 3)."""
    value = plain_int(value)  # (NumPy integers count as ints)
    if isinstance(value, int) and not isinstance(value, bool):
        out = (value,) * n
    elif isinstance(value, (tuple, list)):
        out = tuple(map(plain_int, value))
        out = out * n if len(out) == 1 else out
    else:
        out = (value,)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in out):
        raise TypeError(f"{name} must be an int or a tuple of {n} ints, got {value!r}")
    if len(out) != n or min(out) < 0:
        raise ValueError(
            f"{name} must be an int or a tuple of {n} non-negative ints, got {value!r}"
        )
    return out


def _order(layout: str, d: int) -> tuple[int, ...]:
    """The permutation of the strided view's axes (N, C, k_1..k_d, o_1..o_d) for a layout."""
    kernel, outs = tuple(range(2, 2 + d)), tuple(range(2 + d, 2 + 2 * d))
    return (1,) + kernel + (0,) + outs if layout == CONV else (0, 1) + outs + kernel


class WindowsNd(Op):
    """cols = every (dilated) window of x (N, C, *spatial) after padding with ``pad_value``.

    ``padding`` = ((lo, hi) per spatial dim); ``outs`` = the number of windows per dim. The
    result's axes are in ``layout``'s order (module docstring). dL/dx = ScatterWindowsNd(dL/dcols):
    each entry added back to the element it was copied from; the padding is dropped."""

    @staticmethod
    def forward(ctx, x, kernel, stride, dilation, padding, outs, layout, pad_value):
        xp = get_array_module(x)
        if any(lo or hi for lo, hi in padding):
            widths = ((0, 0), (0, 0)) + tuple(padding)
            x = xp.pad(x, widths, mode="constant", constant_values=pad_value)
        strides = x.strides
        view = xp.lib.stride_tricks.as_strided(
            x,
            shape=x.shape[:2] + tuple(kernel) + tuple(outs),
            strides=strides[:2]
            + tuple(st * d for st, d in zip(strides[2:], dilation))
            + tuple(st * s for st, s in zip(strides[2:], stride)),
        )
        ctx.geometry = (kernel, stride, dilation, padding, layout)
        ctx.x_shape = x.shape[:2] + tuple(
            size - lo - hi for size, (lo, hi) in zip(x.shape[2:], padding)
        )
        return xp.ascontiguousarray(view.transpose(_order(layout, len(kernel))))  # the one copy

    @staticmethod
    def backward(ctx, gcols):
        return (ScatterWindowsNd.apply(gcols, ctx.x_shape, *ctx.geometry),) + (None,) * 7


class ScatterWindowsNd(Op):
    """x[n, c, p] = the sum of every column entry that WindowsNd copied from position p (windows
    overlap, so a position can collect several): the transpose of WindowsNd, a scatter-add.
    dL/dcols = WindowsNd(dL/dx). The loop runs over the kernel offsets (27 for a 3x3x3 kernel),
    each adding one strided slab of the image, never over positions."""

    @staticmethod
    @quiet_fp
    def forward(ctx, cols, x_shape, kernel, stride, dilation, padding, layout):
        xp = get_array_module(cols)
        d = len(kernel)
        order = _order(layout, d)
        c = cols.transpose(tuple(order.index(a) for a in range(2 + 2 * d)))  # (N, C, k.., o..)
        outs = c.shape[2 + d :]
        # 2-byte floats accumulate in float32 (several windows add into one element)
        acc = xp.float32 if cols.dtype.itemsize == 2 and cols.dtype.kind in "fV" else cols.dtype
        padded = tuple(size + lo + hi for size, (lo, hi) in zip(x_shape[2:], padding))
        x_pad = xp.zeros(tuple(x_shape[:2]) + padded, dtype=acc)
        for offset in itertools.product(*(range(k) for k in kernel)):
            slab = tuple(
                slice(i * dl, i * dl + s * (o - 1) + 1, s)
                for i, dl, s, o in zip(offset, dilation, stride, outs)
            )
            window = x_pad[(slice(None), slice(None)) + slab]  # a view: += adds into x_pad
            window += c[(slice(None), slice(None)) + offset]
        inner = tuple(slice(lo, lo + size) for size, (lo, _) in zip(x_shape[2:], padding))
        ctx.geometry = (kernel, stride, dilation, padding, outs, layout)
        out = x_pad[(slice(None), slice(None)) + inner]
        return xp.ascontiguousarray(out).astype(cols.dtype, copy=False)

    @staticmethod
    def backward(ctx, gx):
        kernel, stride, dilation, padding, outs, layout = ctx.geometry
        g = WindowsNd.apply(gx, kernel, stride, dilation, padding, outs, layout, 0.0)
        return (g,) + (None,) * 6
