"""Tensor.unfold's sliding windows: a view of x whose dim ``dim`` holds the window starts
0, step, 2 step ... and whose new last dim holds the ``size`` elements of each window.

    y[..., i, ..., k] = x[..., i * step + k, ...]     (i < (n - size) // step + 1, k < size)

It costs no copy: the window index moves by ``step`` elements of x, the new last dim by one, so
y is x's memory seen with those two strides (``as_strided``). Windows overlap when step < size;
the gradient then adds up every window's share of an element (``FoldWindows``).
"""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module


def window_view(x, dim: int, size: int, step: int):
    """The array of sliding windows of x along dim (a view of x's memory)."""
    xp = get_array_module(x)
    count = (x.shape[dim] - size) // step + 1
    shape = x.shape[:dim] + (count,) + x.shape[dim + 1 :] + (size,)
    s = x.strides
    strides = s[:dim] + (s[dim] * step,) + s[dim + 1 :] + (s[dim],)
    return xp.lib.stride_tricks.as_strided(x, shape, strides)


class UnfoldWindows(Op):
    """y = the windows of x along dim (a view);   dL/dx[j] = the sum of dL/dy over every
    (window i, offset k) with i * step + k = j (FoldWindows)."""

    @staticmethod
    def forward(ctx, x, dim, size, step):
        ctx.args = (x.shape, dim, size, step)
        return window_view(x, dim, size, step)

    @staticmethod
    def backward(ctx, gy):
        return FoldWindows.apply(gy, *ctx.args), None, None, None


class FoldWindows(Op):
    """x = the windows y added back into a tensor of ``shape`` (each element collects every
    window it appears in): the adjoint of UnfoldWindows;   dL/dy = the windows of dL/dx."""

    @staticmethod
    def forward(ctx, y, shape, dim, size, step):
        ctx.args = (dim, size, step)
        xp = get_array_module(y)
        x = xp.zeros(shape, y.dtype)
        # window_view(x) is a view: add offset k of every window into x, one offset at a time
        # (within one offset the windows never share an element, so += adds each once)
        windows = window_view(x, dim, size, step)
        for k in range(size):
            windows[..., k] += y[..., k]
        return x

    @staticmethod
    def backward(ctx, gx):
        return UnfoldWindows.apply(gx, *ctx.args), None, None, None, None
