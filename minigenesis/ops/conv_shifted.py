"""The stride-1 convolution as one op, for the CPU: its arrays are computed in the speed layer
(``kernels/conv.py``: kh*kw matmuls over shifted views of the padded input, no im2col copy).

``ops/conv.py``'s im2col + matmul is the definition and stays the path a learner reads;
``F.conv2d`` hands a convolution here in one line where ``kernels.conv.shifted_conv_applies``
says this way is faster. The maths, with conv(x, w) the stride-1 correlation
y[n, o, h, w'] = sum_{c, i, j} w[o, c, i, j] xpad[n, c, h + i, w' + j]:

    dL/dx = conv(dL/dy, w~, padding kh-1-top, kh-1-bottom, kw-1-left, kw-1-right)
            with w~[c, o, i, j] = w[o, c, kh-1-i, kw-1-j]  (the kernel flipped, channels swapped)
    dL/dw[o, c, i, j] = sum_{n, h, w'} dL/dy[n, o, h, w'] xpad[n, c, h + i, w' + j]
    dL/db[o] = sum_{n, h, w'} dL/dy[n, o, h, w']

Both backward pieces are again these ops, so second derivatives come for free (the weight
gradient's own gradients are two convolutions).
"""

from __future__ import annotations

from .. import kernels
from ..autograd.function import Op
from ..backend import quiet_fp
from .conv_phases import PhaseConv2d, bias_grad


class ShiftedConv2d(Op):
    """y = conv(x, w, padding) + b, stride 1, dilation 1, one group (x (N, C, H, W), w (C_out,
    C, kh, kw), b (C_out,) or None, padding (top, bottom, left, right), each <= kernel - 1)."""

    @staticmethod
    @quiet_fp  # overflow to inf is silent, as in PyTorch's convolution
    def forward(ctx, x, w, b, padding):
        need_x, need_w = ctx.needs_input_grad[:2]
        ctx.save_for_backward(x if need_w else None, w if need_x else None)
        ctx.geometry = (w.shape[2:], padding)
        y, cols = kernels.conv.conv2d_shifted(x, w, b, padding)
        ctx.cols = cols if need_w else None  # im2col's columns, where the forward took them
        return y

    @staticmethod
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        kernel, padding = ctx.geometry
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        gx = ShiftedConv2d.apply(gy, _flipped(w), None, _full(kernel, padding)) if need_x else None
        gw = ShiftedConvWeightGrad.apply(x, gy, kernel, padding, ctx.cols) if need_w else None
        gb = bias_grad(gy) if need_b else None
        return gx, gw, gb, None


class ShiftedConvWeightGrad(Op):
    """gw[o, c, i, j] = sum_{n, h, w'} gy[n, o, h, w'] xpad[n, c, h + i, w' + j]: ShiftedConv2d's
    weight gradient. Its gradients: dL/dgy = conv(x, dL/dgw, padding), and dL/dx is the input
    gradient of that same convolution, conv(gy, flipped dL/dgw, full padding). (``cols``: the
    forward's im2col columns of x, or None.)"""

    @staticmethod
    @quiet_fp  # overflow to inf is silent, as in PyTorch's convolution
    def forward(ctx, x, gy, kernel, padding, cols):
        need_x, need_gy = ctx.needs_input_grad[:2]
        ctx.save_for_backward(x if need_gy else None, gy if need_x else None)
        ctx.geometry = (kernel, padding)
        return kernels.conv.conv2d_shifted_weight_grad(x, gy, kernel, padding, cols)

    @staticmethod
    def backward(ctx, ggw):
        x, gy = ctx.saved_tensors
        kernel, padding = ctx.geometry
        need_x, need_gy = ctx.needs_input_grad[:2]
        full = _full(kernel, padding)
        gx = ShiftedConv2d.apply(gy, _flipped(ggw), None, full) if need_x else None
        ggy = ShiftedConv2d.apply(x, ggw, None, padding) if need_gy else None
        return gx, ggy, None, None, None


def _flipped(w):
    """w~[c, o, i, j] = w[o, c, kh-1-i, kw-1-j]: the kernel of the input gradient's convolution."""
    return w.transpose(0, 1).flip(2, 3)


def _full(kernel: tuple, padding: tuple) -> tuple:
    """The padding of the input gradient's convolution (``padding`` must be <= kernel - 1): the
    "full" correlation, which gives back the input's size."""
    (kh, kw), (top, bottom, left, right) = kernel, padding
    return (kh - 1 - top, kh - 1 - bottom, kw - 1 - left, kw - 1 - right)


def shifted_conv2d(x, weight, bias, stride: tuple, dilation: tuple, groups: int, padding: tuple):
    """F.conv2d's hand-off: the convolution of Tensors x (N, C, H, W) and weight as a
    ShiftedConv2d (stride 1) or a PhaseConv2d (other strides, ``ops/conv_phases.py``), or None
    where the speed layer's ``*_applies`` says im2col is the way."""
    if bias is not None and bias._data.dtype != x._data.dtype:
        return None
    args = (x._data, weight._data, stride, dilation, groups, padding)
    if kernels.conv.shifted_conv_applies(*args):
        return ShiftedConv2d.apply(x, weight, bias, padding)
    if kernels.conv_phases.phase_conv_applies(*args):
        return PhaseConv2d.apply(x, weight, bias, stride, padding)
    return None
