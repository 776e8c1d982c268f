"""Convolution (and average pooling) built on one pair of ops: im2col and its adjoint col2im.

im2col copies every receptive field of an image into a column, so that a convolution becomes ONE
matrix product (weights (C_out, C*kh*kw) @ columns (C*kh*kw, N*H_out*W_out)) and BLAS does the
work. The columns are gathered without any Python loop over pixels: ``as_strided`` views the padded
image as a 6-d array (N, C, kh, kw, H_out, W_out) whose strides walk the windows, and one copy makes
it contiguous.

    conv2d(x, w)    = reshape(w) @ im2col(x)          (+ bias)
    avg_pool2d(x)   = sum over each window of im2col(x) / window size

The gradient of im2col is col2im: every column entry is added back to the pixel it was copied from
(windows overlap, so a pixel collects several). And col2im's gradient is im2col again, since the
two are transposes of one linear map. Written as two ops that call each other in backward, every
function built on them has exact second derivatives with no extra code: conv2d's gradient flows
through MatMul and Im2Col. (Max pooling needs no window copies: see ``pooling.py``.)

This file holds the two ops and the geometry of a convolution; ``F.conv2d``
(``nn/functional/conv.py``) is the one conv2d function, and the pooling ops are in ``pooling.py``.
"""

from __future__ import annotations

from typing import Any

from numpy import ndarray

from .. import kernels
from ..autograd.function import Op
from ..backend import get_array_module, quiet_fp
from ..size import plain_int

# Axis orders of the columns, as a permutation of the strided view's (N, C, kh, kw, H_out, W_out).
CONV_ORDER = (1, 2, 3, 0, 4, 5)  # (C, kh, kw, N, H_out, W_out): reshapes to (C*kh*kw, N*L)
POOL_ORDER = (0, 1, 4, 5, 2, 3)  # (N, C, H_out, W_out, kh, kw): reshapes to (..., kh*kw)


def pair(value: Any, name: str) -> tuple[int, int]:
    """An int or a pair of ints -> a pair of non-negative ints (PyTorch's ``_pair``); NumPy
    integers count as ints."""
    value = plain_int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        pair_ = (value, value)
    elif isinstance(value, (tuple, list)):
        pair_ = tuple(map(plain_int, value))
        if len(pair_) == 1:
            pair_ = pair_ * 2
    else:
        pair_ = (value,)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in pair_):
        raise TypeError(f"{name} must be an int or a pair of ints, got {value!r}")
    if len(pair_) != 2 or min(pair_) < 0:  # RuntimeError in PyTorch's conv, pool and fold
        raise RuntimeError(f"{name} must be an int or a pair of non-negative ints, got {value!r}")
    return pair_  # type: ignore[return-value]


def out_size(size: int, k: int, s: int, pad_lo: int, pad_hi: int, d: int) -> int:
    """floor((size + pads - d (k - 1) - 1) / s) + 1: how many windows fit along one dim."""
    return (size + pad_lo + pad_hi - d * (k - 1) - 1) // s + 1


def _as_strided(xp, a, shape, strides):
    return xp.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)


class Im2Col(Op):
    """cols[n, c, i, j, oh, ow] = xpad[n, c, oh*sh + i*dh, ow*sw + j*dw], permuted by ``order``.

    ``padding`` = (top, bottom, left, right), filled with ``pad_value`` (0 for convolution and
    average pooling). dL/dx = col2im(dL/dcols): each entry added back to the
    pixel it came from; padding positions are dropped.
    """

    @staticmethod
    def forward(ctx, x, kernel, stride, dilation, padding, order, pad_value):
        xp = get_array_module(x)
        (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
        top, bottom, left, right = padding
        if any(padding):
            widths = ((0, 0), (0, 0), (top, bottom), (left, right))
            x_pad = xp.pad(x, widths, mode="constant", constant_values=pad_value)
        else:
            x_pad = x
        n, c, hp, wp = x_pad.shape
        ho, wo = out_size(hp, kh, sh, 0, 0, dh), out_size(wp, kw, sw, 0, 0, dw)
        if ho <= 0 or wo <= 0:
            raise RuntimeError(  # PyTorch's ("Kernel size can't be greater than actual input size")
                f"input of spatial size {tuple(x.shape[2:])} (padded {hp}x{wp}) is smaller than "
                f"the {kh}x{kw} kernel with dilation {(dh, dw)}: the output would be empty"
            )
        s_n, s_c, s_h, s_w = x_pad.strides
        windows = _as_strided(
            xp, x_pad, (n, c, kh, kw, ho, wo), (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw)
        )
        ctx.geometry = (x.shape, kernel, stride, dilation, padding, order)
        return xp.ascontiguousarray(windows.transpose(order))  # the one copy

    @staticmethod
    def backward(ctx, gcols):
        return (Col2Im.apply(gcols, *ctx.geometry),) + (None,) * 6


class Col2Im(Op):
    """x[n, c, h, w] = sum of cols[n, c, i, j, oh, ow] over all (i, j, oh, ow) that im2col read
    from pixel (h, w): the transpose of Im2Col (a scatter-add). dL/dcols = im2col(dL/dx).

    The loop runs over the kh*kw kernel offsets (9 for a 3x3 kernel), never over pixels: offset
    (i, j) adds a whole strided slab of the image at once.
    """

    @staticmethod
    @quiet_fp
    def forward(ctx, cols, x_shape, kernel, stride, dilation, padding, order):
        xp = get_array_module(cols)
        (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
        top, bottom, left, right = padding
        # Accumulate with N and C in the order the columns store them, so each slab read below
        # is contiguous (conv's columns are (C, kh, kw, N, ...)); transpose back at the end.
        nc = (0, 1) if order.index(0) < order.index(1) else (1, 0)
        c6 = cols.transpose(tuple(order.index(a) for a in nc + (2, 3, 4, 5)))  # a view
        ho, wo = c6.shape[4:]
        n, c, h, w = x_shape
        lead = (n, c) if nc == (0, 1) else (c, n)
        ctx.geometry = (kernel, stride, dilation, padding, order)
        if (
            type(cols) is not ndarray
            and (  # stride 1 on a GPU: one kernel (kernels/conv.py)
                x := kernels.conv.col2im(c6, x_shape, kernel, stride, dilation, padding, nc)
            )
            is not None
        ):
            return x
        # 2-byte floats accumulate in float32 (several windows add into one pixel)
        acc = xp.float32 if cols.dtype.itemsize == 2 and cols.dtype.kind in "fV" else cols.dtype
        x_pad = xp.zeros(lead + (h + top + bottom, w + left + right), dtype=acc)
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
                columns = slice(j * dw, j * dw + sw * (wo - 1) + 1, sw)
                window = x_pad[:, :, rows, columns]  # a view: += adds into x_pad, in one pass
                window += c6[:, :, i, j]  # (x_pad[...] += would also write the view back)
        out = x_pad[:, :, top : top + h, left : left + w].transpose(nc + (2, 3))
        return xp.ascontiguousarray(out).astype(cols.dtype, copy=False)

    @staticmethod
    def backward(ctx, gx):
        kernel, stride, dilation, padding, order = ctx.geometry
        return (Im2Col.apply(gx, kernel, stride, dilation, padding, order, 0.0),) + (None,) * 6


# ----------------------------------------------------------------------------------------------
# Convolution
# ----------------------------------------------------------------------------------------------
def conv_padding(padding: Any, kernel: tuple, dilation: tuple, stride: tuple) -> tuple:
    """PyTorch's ``padding`` argument -> (top, bottom, left, right).

    ``"valid"`` is no padding; ``"same"`` pads so the output has the input's size (stride 1 only),
    putting the odd extra row/column at the bottom/right, as PyTorch does. For a padding string
    the sizes may have any length n (a layer's 1-d geometry), giving 2n amounts (low, high)."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * (2 * len(kernel))
        if padding != "same":
            raise ValueError(f"padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
        if any(s != 1 for s in stride):  # PyTorch's functional check (RuntimeError)
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        out = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            out += [total // 2, total - total // 2]
        return tuple(out)
    ph, pw = pair(padding, "padding")
    return (ph, ph, pw, pw)
