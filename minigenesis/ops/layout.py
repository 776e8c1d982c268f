"""A copy of a tensor laid out in another memory format (``x.contiguous(memory_format=...)``,
``x.to(memory_format=...)``, ``x.clone(memory_format=...)``)."""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module
from ..memory_format import contiguous_format, copy_as, suggest_format


class ToMemoryFormat(Op):
    """y = x (the same values, in new memory laid out in ``fmt``);   dL/dx = dL/dy."""

    @staticmethod
    def forward(ctx, x, fmt):
        return copy_as(get_array_module(x), x, fmt)

    @staticmethod
    def backward(ctx, gy):
        return gy, None


def like_input_format(out, *inputs):
    """``out`` dense in the memory format PyTorch's convolutions and batch norm write: channels_last
    when one of ``inputs`` (of ``out``'s rank) looks channels_last, else contiguous (so that
    ``.view()`` works on it, as on theirs); ``out`` itself when it is already laid out so."""
    fmt = contiguous_format
    for t in inputs:
        if (
            t is not None
            and t.ndim == out.ndim
            and suggest_format(t._data) is not contiguous_format
        ):
            fmt = suggest_format(t._data)
            break
    return out if out.is_contiguous(memory_format=fmt) else ToMemoryFormat.apply(out, fmt)
