"""A copy of a tensor laid out in another memory format (``x.contiguous(memory_format=...)``,
``x.to(memory_format=...)``, ``x.clone(memory_format=...)``)."""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module
from ..memory_format import copy_as


class ToMemoryFormat(Op):
    """y = x (the same values, in new memory laid out in ``fmt``);   dL/dx = dL/dy."""

    @staticmethod
    def forward(ctx, x, fmt):
        return copy_as(get_array_module(x), x, fmt)

    @staticmethod
    def backward(ctx, gy):
        return gy, None
