"""Convolution and pooling, built on one pair of ops: im2col and its adjoint col2im.

im2col copies every receptive field of an image into a column, so that a convolution becomes ONE
matrix product (weights (C_out, C*kh*kw) @ columns (C*kh*kw, N*H_out*W_out)) and BLAS does the
work. The columns are gathered without any Python loop over pixels: ``as_strided`` views the padded
image as a 6-d array (N, C, kh, kw, H_out, W_out) whose strides walk the windows, and one copy makes
it contiguous.

    conv2d(x, w)    = reshape(w) @ im2col(x)          (+ bias)
    max_pool2d(x)   = max over each window of im2col(x, padded with -inf)
    avg_pool2d(x)   = sum over each window of im2col(x) / window size

The gradient of im2col is col2im: every column entry is added back to the pixel it was copied from
(windows overlap, so a pixel collects several). And col2im's gradient is im2col again, since the
two are transposes of one linear map. Written as two ops that call each other in backward, every
function here has exact second derivatives with no extra code: conv2d's gradient flows through
MatMul and Im2Col, max pooling's through MaxDim (gradient to the argmax) and Im2Col.
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module
from .elementwise import select_grad
from .reduce import MaxDim

# Axis orders of the columns, as a permutation of the strided view's (N, C, kh, kw, H_out, W_out).
CONV_ORDER = (1, 2, 3, 0, 4, 5)  # (C, kh, kw, N, H_out, W_out): reshapes to (C*kh*kw, N*L)
POOL_ORDER = (0, 1, 4, 5, 2, 3)  # (N, C, H_out, W_out, kh, kw): reshapes to (..., kh*kw)


def pair(value: Any, name: str) -> tuple[int, int]:
    """An int or a pair of ints -> a pair of non-negative ints (PyTorch's ``_pair``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        pair_ = (value, value)
    elif isinstance(value, (tuple, list)):
        pair_ = tuple(value)
        if len(pair_) == 1:
            pair_ = pair_ * 2
    else:
        pair_ = (value,)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in pair_):
        raise TypeError(f"{name} must be an int or a pair of ints, got {value!r}")
    if len(pair_) != 2 or min(pair_) < 0:
        raise ValueError(f"{name} must be an int or a pair of non-negative ints, got {value!r}")
    return pair_  # type: ignore[return-value]


def out_size(size: int, k: int, s: int, pad_lo: int, pad_hi: int, d: int) -> int:
    """floor((size + pads - d (k - 1) - 1) / s) + 1: how many windows fit along one dim."""
    return (size + pad_lo + pad_hi - d * (k - 1) - 1) // s + 1


def _as_strided(xp, a, shape, strides):
    return xp.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)


class Im2Col(Op):
    """cols[n, c, i, j, oh, ow] = xpad[n, c, oh*sh + i*dh, ow*sw + j*dw], permuted by ``order``.

    ``padding`` = (top, bottom, left, right), filled with ``pad_value`` (0 for convolution and
    average pooling, -inf for max pooling). dL/dx = col2im(dL/dcols): each entry added back to the
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
            raise ValueError(
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
        # 2-byte floats accumulate in float32 (several windows add into one pixel)
        acc = xp.float32 if cols.dtype.itemsize == 2 and cols.dtype.kind in "fV" else cols.dtype
        x_pad = xp.zeros(lead + (h + top + bottom, w + left + right), dtype=acc)
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
                columns = slice(j * dw, j * dw + sw * (wo - 1) + 1, sw)
                x_pad[:, :, rows, columns] += c6[:, :, i, j]
        ctx.geometry = (kernel, stride, dilation, padding, order)
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
    putting the odd extra row/column at the bottom/right, as PyTorch does."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0, 0, 0)
        if padding != "same":
            raise ValueError(f"padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
        if stride != (1, 1):
            raise ValueError("padding='same' is not supported for strided convolutions")
        out = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            out += [total // 2, total - total // 2]
        return tuple(out)
    ph, pw = pair(padding, "padding")
    return (ph, ph, pw, pw)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """y[n, o] = b[o] + sum_{c in group(o), i, j} w[o, c, i, j] xpad[n, c, oh*s + i*d, ow*s + j*d].

    x (N, C_in, H, W), weight (C_out, C_in/groups, kh, kw), bias (C_out,) or None. Computed as
    ``w (groups, C_out/g, C_in/g*kh*kw) @ im2col(x) (groups, C_in/g*kh*kw, N*H_out*W_out)``: one
    matmul (batched over groups only). The output is a (N, C_out, H_out, W_out) view of the
    matmul's (C_out, N, H_out, W_out) result: no copy is spent to reorder it.
    """
    stride, dilation = pair(stride, "stride"), pair(dilation, "dilation")
    c_out, c_in_g, kh, kw = weight.shape
    if 0 in stride or 0 in dilation or 0 in (kh, kw):  # RuntimeError, as PyTorch
        raise RuntimeError(
            f"conv2d: kernel size, stride and dilation must be positive, got kernel "
            f"{(kh, kw)}, stride {stride} and dilation {dilation}"
        )
    n, c_in = x.shape[:2]
    pad4 = conv_padding(padding, (kh, kw), dilation, stride)
    cols = Im2Col.apply(x, (kh, kw), stride, dilation, pad4, CONV_ORDER, 0.0)
    ho, wo = cols.shape[4:]
    k = c_in_g * kh * kw
    if groups == 1:
        out = weight.reshape(c_out, k) @ cols.reshape(k, n * ho * wo)
    else:
        w = weight.reshape(groups, c_out // groups, k)
        out = w @ cols.reshape(groups, k, n * ho * wo)
    out = out.reshape(c_out, n, ho, wo).permute(1, 0, 2, 3)
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1, 1)
    return out


# ----------------------------------------------------------------------------------------------
# Pooling
# ----------------------------------------------------------------------------------------------
def pool_geometry(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> tuple:
    """(output size, pad_lo, pad_hi) of one pooling dim, with PyTorch's ceil_mode rule: with
    ceil_mode a last, partial window is kept unless it would start in the right padding."""
    span = d * (k - 1) + 1
    if ceil_mode:
        out = -(-(size + 2 * p - span) // s) + 1
        if (out - 1) * s >= size + p:
            out -= 1
    else:
        out = (size + 2 * p - span) // s + 1
    pad_hi = max((out - 1) * s + span - size - p, 0)  # >= p only when ceil_mode needs more
    return out, p, pad_hi


def _pool_windows(x, kernel, stride, padding, dilation, ceil_mode, pad_value, name):
    """im2col with the pooling layout: (N, C, H_out, W_out, kh*kw), plus the geometry."""
    kh, kw = pair(kernel, "kernel_size")
    sh, sw = pair(stride, "stride") if stride is not None and stride != [] else (kh, kw)
    ph, pw = pair(padding, "padding")
    dh, dw = pair(dilation, "dilation")
    if 0 in (kh, kw, sh, sw, dh, dw):
        raise ValueError(f"{name}: kernel_size, stride and dilation must be positive")
    if ph > kh // 2 or pw > kw // 2:
        raise ValueError(
            f"{name}: padding {(ph, pw)} should be at most half of kernel_size {(kh, kw)}"
        )
    if x.ndim != 4:
        raise ValueError(f"{name} expects a 4-d input (N, C, H, W), got shape {tuple(x.shape)}")
    ho, top, bottom = pool_geometry(x.shape[2], kh, sh, ph, dh, ceil_mode)
    wo, left, right = pool_geometry(x.shape[3], kw, sw, pw, dw, ceil_mode)
    if ho <= 0 or wo <= 0:
        raise ValueError(
            f"{name}: input of spatial size {tuple(x.shape[2:])} is too small for kernel "
            f"{(kh, kw)} with padding {(ph, pw)}"
        )
    cols = Im2Col.apply(
        x, (kh, kw), (sh, sw), (dh, dw), (top, bottom, left, right), POOL_ORDER, pad_value
    )
    n, c = x.shape[:2]
    return cols.reshape(n, c, ho, wo, kh * kw), (kh, kw, sh, sw, ph, pw, dh, dw, ho, wo)


class WindowMax(MaxDim):
    """The maximum of each pooling window (the last dim of the columns), as max(dim); PyTorch's
    max_pool2d backward takes the input as an argument, so the gradient stays in the graph
    under create_graph (differentiating it again gives zeros): ``anchored``."""

    anchored = True


def max_pool2d(
    x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """y[n, c, oh, ow] = max over the window of x (padding counts as -inf);
    dL/dx goes to the window's (first) maximum. ``return_indices``: also the flat index
    h * W + w of each maximum in its input plane (as PyTorch returns it)."""
    # the padding must never win (nor tie): -inf for floats; integers are pooled as int64 with
    # its smallest value as padding, below every value of the narrower integer types
    dt = x._data.dtype
    lowest = -math.inf
    if dt.kind in "iu":
        lowest = int(get_array_module(x._data).iinfo("int64").min)
        x = x._cast(get_array_module(x._data).int64)
    cols, g = _pool_windows(
        x, kernel_size, stride, padding, dilation, ceil_mode, lowest, "max_pool2d"
    )
    values, arg = WindowMax.apply(cols, cols.ndim - 1, False)
    values = values._cast(dt)
    if not return_indices:
        return values
    kh, kw, sh, sw, ph, pw, dh, dw, ho, wo = g
    xp = get_array_module(arg._data)
    a = arg._data
    rows = xp.arange(ho).reshape(ho, 1) * sh - ph + (a // kw) * dh
    cols_ = xp.arange(wo) * sw - pw + (a % kw) * dw
    indices = type(arg)._make((rows * x.shape[3] + cols_).astype(xp.int64), False)
    return values, indices


class _KeepInput(Op):
    """y = the pooled values, unchanged;   backward passes the gradient on. PyTorch's avg_pool2d
    backward takes the input x as an argument, so under create_graph its gradient stays in the
    graph (with a zero derivative with respect to x): the same is done here by tying the gradient
    to x (see SelectGrad), only when a graph is being recorded."""

    @staticmethod
    def forward(ctx, y, x):
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx, gy):
        if is_grad_enabled():
            (x,) = ctx.saved_tensors
            gy = select_grad(gy, get_array_module(gy._data).ones((), dtype=bool), x)
        return gy, None


def avg_pool2d(
    x,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """y[n, c, oh, ow] = sum over the window of x / divisor;   dL/dx = dL/dy / divisor, spread
    over the window. The divisor is ``divisor_override``, else the window size counting the zero
    padding (``count_include_pad=True``) or only the real pixels; with ceil_mode, a window that
    overhangs the padded input counts only its part inside it (PyTorch's rule)."""
    cols, g = _pool_windows(x, kernel_size, stride, padding, 1, ceil_mode, 0.0, "avg_pool2d")
    total = cols.sum(dim=-1)
    kh, kw, sh, sw, ph, pw, _, _, ho, wo = g
    if divisor_override is not None:
        if divisor_override == 0:
            raise ValueError("avg_pool2d: divisor_override must be non-zero")
        return _KeepInput.apply(total / divisor_override, x)
    h, w = x.shape[2:]
    # Every window counts kh*kw pixels unless padding is excluded or a ceil_mode window overhangs
    overhang = (ho - 1) * sh - ph + kh > h + ph or (wo - 1) * sw - pw + kw > w + pw
    if count_include_pad and not overhang:
        return _KeepInput.apply(total / (kh * kw), x)  # the common case: one scalar
    xp = get_array_module(x._data)

    def counts(out, k, s, p, size):  # per output position: how many pixels the divisor counts
        start = xp.arange(out) * s - p
        end = xp.minimum(start + k, size + p)
        if not count_include_pad:
            start, end = xp.maximum(start, 0), xp.minimum(end, size)
        return end - start

    divisor = counts(ho, kh, sh, ph, h).reshape(ho, 1) * counts(wo, kw, sw, pw, w)
    return _KeepInput.apply(total / type(x)._make(divisor.astype(x._data.dtype), False), x)
