"""Pooling: the windows of an image as columns (``Im2Col`` with the pooling layout), and the two
ops that the pooling functions add to them.

    max_pool2d(x)   = max over each window of im2col(x, padded with -inf)
    avg_pool2d(x)   = sum over each window of im2col(x) / window size

``F.max_pool2d`` and ``F.avg_pool2d`` (``nn/functional.py``) are those two lines; this file gives
them the windows (:func:`pool_windows`), the max of each window (``WindowMax``, whose gradient goes
to the window's largest element) and ``KeepInput``, which keeps the input in the gradient's graph
as PyTorch's pooling backward does.
"""

from __future__ import annotations

from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module
from .conv import POOL_ORDER, Im2Col, pair
from .elementwise import select_grad
from .reduce import MaxDim


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


def pool_windows(x, kernel, stride, padding, dilation, ceil_mode, pad_value, name):
    """im2col with the pooling layout: (N, C, H_out, W_out, kh*kw), plus the geometry
    (kh, kw, sh, sw, ph, pw, dh, dw, H_out, W_out)."""
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
