"""PReLU as PyTorch differentiates it, to every order.

.. code-block:: text

    y  = x            where x > 0,   a x  elsewhere      (a: one slope per channel, broadcast)
    gx = gy           where x > 0,   a gy elsewhere      (PReLUGradInput)
    ga = 0            where x > 0,   x gy elsewhere      (PReLUGradWeight, summed to a's shape)

The first derivative is an op of x and a, as PyTorch's prelu backward is, so differentiating it
again gives zeros for x where it has no x in it (not "no graph"). Its own derivatives follow
PyTorch's double backward, which takes x = 0 with the positive side (x >= 0) where the first
order takes it with the negative side (x > 0): at x = 0 exactly, d gx / d gy = 1 and
d gx / d a = 0, though gx itself is a gy there.
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.function import Op
from ...backend import get_array_module, quiet_fp
from ...functions import where
from ...ops.anchor import ZerosOf


def _sum_to(g: Tensor, shape: tuple) -> Tensor:
    """``g`` summed over the dims ``shape`` broadcast (a 0-d slope: over all of them)."""
    if len(shape) == 0:
        return g.sum()
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(dims, keepdim=True) if dims else g


def _positive_or_zero(x: Tensor) -> Tensor:
    """The mask x >= 0 of the double backward (a constant)."""
    return Tensor._make(x._data >= 0, False)


class PReLU(Op):
    """y = where(x > 0, x, a x), ``a`` broadcast to x."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, a):
        ctx.save_for_backward(x, a)
        return get_array_module(x).where(x > 0, x, a * x).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        x, a = ctx.saved_tensors
        need_x, need_a = ctx.needs_input_grad
        gx = PReLUGradInput.apply(gy, x, a) if need_x else None
        ga = _sum_to(PReLUGradWeight.apply(gy, x, a), tuple(a.shape)) if need_a else None
        return gx, ga


class PReLUGradInput(Op):
    """gx = where(x > 0, gy, a gy);   d/d gy = where(x >= 0, 1, a), d/dx = 0 (an op of x),
    d/da = where(x >= 0, 0, gy) (PyTorch's double backward)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, gy, x, a):
        ctx.save_for_backward(gy, x, a)
        return get_array_module(gy).where(x > 0, gy, a * gy).astype(gy.dtype, copy=False)

    @staticmethod
    def backward(ctx, ggx):
        gy, x, a = ctx.saved_tensors
        pos = _positive_or_zero(x)
        g_gy = where(pos, ggx, a * ggx)
        g_a = _sum_to(where(pos, 0.0, gy * ggx), tuple(a.shape))
        return g_gy, ZerosOf.apply(x), g_a


class PReLUGradWeight(Op):
    """ga (before the sum) = where(x > 0, 0, x gy);   d/d gy = where(x >= 0, 0, x),
    d/dx = where(x >= 0, 0, gy), d/da = 0 (an op of a: ga is one of PyTorch's prelu backward,
    which takes a)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, gy, x, a):
        ctx.save_for_backward(gy, x, a)
        xp = get_array_module(gy)
        return xp.where(x > 0, xp.zeros((), gy.dtype), x * gy).astype(gy.dtype, copy=False)

    @staticmethod
    def backward(ctx, gga):
        gy, x, a = ctx.saved_tensors
        pos = _positive_or_zero(x)
        return where(pos, 0.0, gga * x), where(pos, 0.0, gy * gga), ZerosOf.apply(a)
