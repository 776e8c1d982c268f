"""nextafter(x, y): the floating-point number next to x in the direction of y.

Its gradient to x is PyTorch's: 1 where x != y (a step of one ulp moves with x), 0 where x == y
(the result is y itself); y gets none.
"""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module


class NextAfter(Op):
    """y = nextafter(x, other);   dy/dx = (x != other)."""

    @staticmethod
    def forward(ctx, x, other):
        xp = get_array_module(x)
        ctx.moved = x != other
        return xp.nextafter(x, other)

    @staticmethod
    def backward(ctx, gy):
        moved = type(gy)._make(ctx.moved.astype(gy._data.dtype), False)
        return gy * moved, None
