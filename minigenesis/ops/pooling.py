"""Pooling: average pooling over the windows of an image as columns (``Im2Col`` with the pooling
layout), and max pooling as a running maximum over the kernel offsets (``MaxPool``).

    avg_pool2d(x)   = sum over each window of im2col(x) / window size
    max_pool2d(x)   = max over the kernel offsets (i, j) of the strided view x_pad[i::s, j::s]

``F.max_pool2d`` and ``F.avg_pool2d`` (``nn/functional/pooling.py``) check their arguments and call
these: the geometry (:func:`pool_geometry2d`), the windows (:func:`pool_windows`), ``MaxPool``
(whose gradient goes to each window's largest element) and ``KeepInput``, which keeps the input in
the gradient's graph as PyTorch's pooling backward does.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import kernels
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module
from .conv import POOL_ORDER, Im2Col, pair
from .elementwise import select_grad, where_or_zero


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


def default_stride(stride: Any) -> bool:
    """Whether a pooling's ``stride`` is left to default to its kernel size: None or empty (an
    ``== []`` test would compare a NumPy integer elementwise)."""
    return stride is None or (isinstance(stride, (list, tuple)) and not stride)


def pool_geometry2d(x, kernel, stride, padding, dilation, ceil_mode, name) -> tuple:
    """The checked geometry of a 2-d pooling of x: (kh, kw, sh, sw, dh, dw, H_out, W_out,
    (top, bottom, left, right)), the padding including what ceil_mode adds."""
    kh, kw = pair(kernel, "kernel_size")
    sh, sw = pair(stride, "stride") if not default_stride(stride) else (kh, kw)
    ph, pw = pair(padding, "padding")
    dh, dw = pair(dilation, "dilation")
    if 0 in (kh, kw, sh, sw, dh, dw):
        raise RuntimeError(f"{name}: kernel_size, stride and dilation must be positive")
    if ph > kh // 2 or pw > kw // 2:
        raise RuntimeError(
            f"{name}: padding {(ph, pw)} should be at most half of kernel_size {(kh, kw)}"
        )
    if x.ndim != 4:
        raise RuntimeError(f"{name} expects a 4-d input (N, C, H, W), got shape {tuple(x.shape)}")
    ho, top, bottom = pool_geometry(x.shape[2], kh, sh, ph, dh, ceil_mode)
    wo, left, right = pool_geometry(x.shape[3], kw, sw, pw, dw, ceil_mode)
    if ho <= 0 or wo <= 0:
        raise RuntimeError(
            f"{name}: input of spatial size {tuple(x.shape[2:])} is too small for kernel "
            f"{(kh, kw)} with padding {(ph, pw)}"
        )
    return kh, kw, sh, sw, dh, dw, ho, wo, (top, bottom, left, right)


def pool_windows(x, kernel, stride, padding, dilation, ceil_mode, pad_value, name):
    """im2col with the pooling layout: (N, C, H_out, W_out, kh*kw), plus the geometry
    (see pool_geometry2d)."""
    g = pool_geometry2d(x, kernel, stride, padding, dilation, ceil_mode, name)
    kh, kw, sh, sw, dh, dw, ho, wo, pad4 = g
    cols = Im2Col.apply(x, (kh, kw), (sh, sw), (dh, dw), pad4, POOL_ORDER, pad_value)
    n, c = x.shape[:2]
    return cols.reshape(n, c, ho, wo, kh * kw), g


class KeepInput(Op):
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


# ----------------------------------------------------------------------------------------------
# Max pooling without window copies
# ----------------------------------------------------------------------------------------------
# A pooling window's element (i, j) is, over all windows at once, one strided view of the padded
# input: rows i*dh, i*dh + sh, ..., columns j*dw, j*dw + sw, ... So the max of every window is a
# running maximum over the kh*kw kernel offsets (4 for a 2x2 window), each step one elementwise
# pass over an output-sized view, and its gradient is kh*kw strided adds: no (..., kh*kw) copy of
# the windows, no argmax along a short axis (which NumPy runs one tiny reduction at a time).
def _offset(a, k: int, geometry: tuple):
    """The view of padded image ``a`` holding element k (row-major in the window) of every
    window: shape (N, C, H_out, W_out)."""
    kh, kw, sh, sw, dh, dw, ho, wo = geometry[:8]
    i, j = divmod(k, kw)
    rows = slice(i * dh, i * dh + sh * (ho - 1) + 1, sh)
    columns = slice(j * dw, j * dw + sw * (wo - 1) + 1, sw)
    return a[:, :, rows, columns]


def _padded(a, padding: tuple, value):
    if not any(padding):
        return a
    top, bottom, left, right = padding
    widths = ((0, 0), (0, 0), (top, bottom), (left, right))
    return get_array_module(a).pad(a, widths, mode="constant", constant_values=value)


def _offsets(x, geometry: tuple, pad_value) -> list:
    """The views of padded x for each kernel offset (see _offset)."""
    x_pad = _padded(x, geometry[8], pad_value)
    return [_offset(x_pad, k, geometry) for k in range(geometry[0] * geometry[1])]


def _accumulation_dtype(a):
    """2-byte floats accumulate in float32 (several windows can add into one pixel)."""
    if a.dtype.itemsize == 2 and a.dtype.kind in "fV":
        return get_array_module(a).float32
    return a.dtype


class MaxPool(Op):
    """(y, arg): y[n, c, oh, ow] = the max of window (oh, ow), arg = the offset k = i*kw + j of
    that maximum in its window: the first one; a NaN wins, the last NaN, as in PyTorch's CPU
    kernel, whose comparison is ``val > max || isnan(val)``. (arg's dtype: the smallest unsigned
    integer type that holds kh*kw - 1.)

    ``geometry`` = (kh, kw, sh, sw, dh, dw, H_out, W_out, (top, bottom, left, right)); the padding
    is filled with ``pad_value`` (-inf, or the lowest integer). Cost: kh*kw - 1 passes of compare +
    select over the output. dL/dx: each window's gradient added to its maximum (MaxPoolGrad);
    x is kept only as the anchor PyTorch's backward has (see SelectGrad)."""

    @staticmethod
    def forward(ctx, x, geometry, pad_value):
        xp = get_array_module(x)
        ctx.set_materialize_grads(False)  # (backward ignores arg's gradient: no zeros made for it)
        if ctx.needs_input_grad[0]:
            ctx.geometry, ctx.x_shape = geometry, x.shape
            ctx.save_for_backward(x)
        views = functools.partial(_offsets, geometry=geometry, pad_value=pad_value)
        if fast := kernels.pooling.max_pool(x, geometry, views):  # (kernels/pooling.py)
            ctx.arg = _first_inside_where_padding_ties(*fast, geometry, pad_value)
            return fast[0], ctx.arg
        # (a contiguous copy first when x is a transposed view, as a convolution's output is:
        # the kh*kw passes below then read simple strides, several times faster)
        x_pad = _padded(xp.ascontiguousarray(x), geometry[8], pad_value)
        # a copy always: the running maximum below is written into ``best``, and offset 0's view
        # of an unpadded x can be contiguous already (one window, or a kernel of one column),
        # where ascontiguousarray would hand back x's own memory
        best = _offset(x_pad, 0, geometry).copy()
        arg = xp.zeros(best.shape, dtype=xp.min_scalar_type(geometry[0] * geometry[1] - 1))
        floating = best.dtype.kind in "fV"
        with np.errstate(invalid="ignore"):  # a NaN compares False: the isnan below decides
            for k in range(1, geometry[0] * geometry[1]):
                v = _offset(x_pad, k, geometry)
                better = v > best
                if floating:
                    better |= xp.isnan(v)
                xp.maximum(best, v, out=best)  # (a NaN wins here too)
                # arg = k where better: arg += better * (k - arg), in arg's wrapping unsigned
                # arithmetic (3 plain passes; a masked copy on a random mask is ~5x slower)
                step = xp.subtract(arg.dtype.type(k), arg)
                step *= better
                arg += step
        ctx.arg = _first_inside_where_padding_ties(best, arg, geometry, pad_value)
        return best, ctx.arg

    @staticmethod
    def backward(ctx, gy, g_arg):
        if gy is None:  # (only arg got a gradient: set_materialize_grads(False) in forward)
            return None, None, None
        (x,) = ctx.saved_tensors
        return MaxPoolGrad.apply(gy, ctx.arg, ctx.x_shape, ctx.geometry, x), None, None


def first_inside(out: int, stride: int, pad_lo: int, dilation: int, xp):
    """Along one dim, for each output position o: the index i of the first element of o's
    window that lies in the input, the least i with o*stride - pad_lo + i*dilation >= 0."""
    start = xp.arange(out) * stride - pad_lo
    return xp.where(start < 0, (-start + dilation - 1) // dilation, 0)


def _first_inside_where_padding_ties(best, arg, geometry: tuple, pad_value):
    """arg, with each window whose maximum equals the padding value (all its elements are -inf,
    or int64's smallest integer) pointing at its first element inside the input, as PyTorch's
    kernel, which starts each window there and replaces only on ``val > max``. The running
    maximum would have kept the window's first offset, which may be padding: an index outside
    the input, and a gradient lost in the padding."""
    if not any(geometry[8]):
        return arg  # (without padding a window's first offset is inside it)
    xp = get_array_module(best)
    tie = best == pad_value
    if not tie.any():
        return arg
    kh, kw, sh, sw, dh, dw, ho, wo, (top, _, left, _) = geometry
    first = first_inside(ho, sh, top, dh, xp)[:, None] * kw + first_inside(wo, sw, left, dw, xp)
    return xp.where(tie, first.astype(arg.dtype), arg)


class MaxPoolGrad(Op):
    """gx = zeros of x's shape, with each window's gradient added at its maximum (windows may
    overlap, so a pixel can collect several): kh*kw strided adds. d gx/d gy: the gradient at each
    window's maximum (MaxPoolPick); ``anchor`` (x, or None) gets zeros, as in PyTorch."""

    @staticmethod
    def forward(ctx, gy, arg, x_shape, geometry, anchor):
        xp = get_array_module(gy)
        top, bottom, left, right = geometry[8]
        n, c, h, w = x_shape
        padded_shape = (n, c, h + top + bottom, w + left + right)
        # one kernel, or one per offset on a GPU; writes, not adds, on the CPU (kernels/pooling.py)
        gx = kernels.pooling.max_pool_grad(gy, arg, geometry, padded_shape, _offset)
        if gx is None:
            gx = xp.zeros(padded_shape, dtype=_accumulation_dtype(gy))
            with np.errstate(invalid="ignore"):  # inf + -inf = NaN, silently (as PyTorch)
                for k in range(geometry[0] * geometry[1]):
                    window = _offset(gx, k, geometry)  # a view: += adds into gx in one pass
                    window += where_or_zero(arg == k, gy)
        ctx.arg, ctx.geometry = arg, geometry
        ctx.save_for_backward(anchor if ctx.needs_input_grad[4] else None)
        if any(geometry[8]):
            gx = xp.ascontiguousarray(gx[:, :, top : top + h, left : left + w])
        return gx.astype(gy.dtype, copy=False)

    @staticmethod
    def backward(ctx, ggx):
        (anchor,) = ctx.saved_tensors
        g_anchor = None
        if anchor is not None:
            g_anchor = type(ggx)._make(get_array_module(ggx._data).zeros_like(anchor._data))
        ggy = MaxPoolPick.apply(ggx, ctx.arg, ctx.geometry)
        return ggy, None, None, None, g_anchor


class MaxPoolPick(Op):
    """y[n, c, oh, ow] = g at the maximum of window (oh, ow) (the offsets ``arg``): the adjoint of
    MaxPoolGrad; dL/dg = MaxPoolGrad(dL/dy)."""

    @staticmethod
    def forward(ctx, g, arg, geometry):
        xp = get_array_module(g)
        g_pad = _padded(g, geometry[8], 0)
        y = xp.zeros(arg.shape, dtype=g.dtype)
        for k in range(geometry[0] * geometry[1]):
            xp.copyto(y, _offset(g_pad, k, geometry), where=arg == k)
        ctx.arg, ctx.geometry, ctx.g_shape = arg, geometry, g.shape
        return y

    @staticmethod
    def backward(ctx, gy):
        return MaxPoolGrad.apply(gy, ctx.arg, ctx.g_shape, ctx.geometry, None), None, None
