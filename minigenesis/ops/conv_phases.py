"""The strided convolution as ops, for the CPU: its arrays are computed in the speed layer
(``kernels/conv_phases.py``: one matmul per kernel tap over shifted views of the input's stride
phases, no im2col copy, no col2im scatter).

``ops/conv.py``'s im2col + matmul is the definition and stays the path a learner reads;
``F.conv2d``'s hand-off (``ops/conv_shifted.py``) sends a convolution here where
``kernels.conv_phases.phase_conv_applies`` says this way is faster. With conv(x, w) the
correlation y[n, o, h, w'] = sum_{c, i, j} w[o, c, i, j] xpad[n, c, sh h + i, sw w' + j]:

    dL/dx = conv^T(dL/dy, w): each dL/dy[n, o, h, w'] w[o, c, i, j] added back to the pixel
            xpad[n, c, sh h + i, sw w' + j] it multiplied (the transposed convolution)
    dL/dw[o, c, i, j] = sum_{n, h, w'} dL/dy[n, o, h, w'] xpad[n, c, sh h + i, sw w' + j]
    dL/db[o] = sum_{n, h, w'} dL/dy[n, o, h, w']

Each of the three is an op whose gradients are the other two, so second derivatives come for
free: conv^T(g, w) is linear in g and in w, its gradients conv(dL/dgx, w) and the weight
gradient for the input dL/dgx; the weight gradient's are conv^T(g, dL/dgw) and conv(x, dL/dgw).
"""

from __future__ import annotations

from .. import kernels
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import quiet_fp


class PhaseConv2d(Op):
    """y = conv(x, w, stride, padding) + b, dilation 1, one group (x (N, C, H, W), w (C_out, C,
    kh, kw), b (C_out,) or None, stride (sh, sw), padding (top, bottom, left, right))."""

    @staticmethod
    @quiet_fp  # overflow to inf is silent, as in PyTorch's convolution
    def forward(ctx, x, w, b, stride, padding):
        need_x, need_w = ctx.needs_input_grad[:2]
        ctx.save_for_backward(x if need_w else None, w if need_x else None)
        ctx.geometry = (tuple(x.shape), tuple(w.shape[2:]), stride, padding)
        y, phases = kernels.conv_phases.conv2d_phases(x, w, b, stride, padding)
        ctx.phases = phases if need_w else None  # x's phase layout, for the weight gradient
        return y

    @staticmethod
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        x_shape, kernel, stride, padding = ctx.geometry
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        gx = PhaseConvTranspose.apply(gy, w, x_shape, stride, padding) if need_x else None
        gw = (
            PhaseConvWeightGrad.apply(x, gy, kernel, stride, padding, ctx.phases)
            if need_w
            else None
        )
        gb = bias_grad(gy) if need_b else None
        return gx, gw, gb, None, None


class PhaseConvTranspose(Op):
    """gx = conv^T(gy, w): the input gradient of conv(., w, stride, padding) for an input of
    ``x_shape``. Its gradients: dL/dgy = conv(dL/dgx, w), dL/dw = the weight gradient of that
    convolution of dL/dgx, given gy."""

    @staticmethod
    @quiet_fp  # overflow to inf is silent, as in PyTorch's convolution
    def forward(ctx, gy, w, x_shape, stride, padding):
        need_gy, need_w = ctx.needs_input_grad[:2]
        ctx.save_for_backward(gy if need_w else None, w if need_gy else None)
        ctx.geometry = (tuple(w.shape[2:]), stride, padding)
        return kernels.conv_phases.conv2d_phases_input_grad(gy, w, x_shape, stride, padding)

    @staticmethod
    def backward(ctx, ggx):
        gy, w = ctx.saved_tensors
        kernel, stride, padding = ctx.geometry
        need_gy, need_w = ctx.needs_input_grad[:2]
        ggy = PhaseConv2d.apply(ggx, w, None, stride, padding) if need_gy else None
        gw = PhaseConvWeightGrad.apply(ggx, gy, kernel, stride, padding, None) if need_w else None
        return ggy, gw, None, None, None


class PhaseConvWeightGrad(Op):
    """gw[o, c, i, j] = sum_{n, h, w'} gy[n, o, h, w'] xpad[n, c, sh h + i, sw w' + j]
    (``phases``: x's phase layout from the forward, or None). Its gradients: dL/dx =
    conv^T(gy, dL/dgw), dL/dgy = conv(x, dL/dgw)."""

    @staticmethod
    @quiet_fp  # overflow to inf is silent, as in PyTorch's convolution
    def forward(ctx, x, gy, kernel, stride, padding, phases):
        need_x, need_gy = ctx.needs_input_grad[:2]
        ctx.save_for_backward(x if need_gy else None, gy if need_x else None)
        ctx.geometry = (tuple(x.shape), stride, padding)
        weight_grad = kernels.conv_phases.conv2d_phases_weight_grad
        return weight_grad(x, gy, kernel, stride, padding, phases)

    @staticmethod
    def backward(ctx, ggw):
        x, gy = ctx.saved_tensors
        x_shape, stride, padding = ctx.geometry
        need_x, need_gy = ctx.needs_input_grad[:2]
        gx = PhaseConvTranspose.apply(gy, ggw, x_shape, stride, padding) if need_x else None
        ggy = PhaseConv2d.apply(x, ggw, None, stride, padding) if need_gy else None
        return gx, ggy, None, None, None, None


def bias_grad(gy):
    """dL/db[o] = sum_{n, h, w} dL/dy[n, o, h, w]; where nothing records, the speed layer's BLAS
    row sums compute it on the arrays."""
    g = gy._data
    if g.size >= kernels.sums.CHANNEL_SUMS_MIN and not is_grad_enabled():
        if (fast := kernels.sums.channel_sums(g)) is not None:
            return type(gy)._make(fast)
    return gy.sum(dim=(0, 2, 3))
