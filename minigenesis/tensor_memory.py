"""Tensor methods about memory: layouts (``contiguous``, ``clone`` and ``is_contiguous`` with a
``memory_format``)."""

from __future__ import annotations

from typing import Any

from .memory_format import (
    check_format,
    contiguous_format,
    is_contiguous_as,
    memory_format,
    preserve_format,
    suggest_format,
)
from .ops import shape as S
from .ops.layout import ToMemoryFormat


class TensorMemory:
    """Mixin of Tensor: memory formats."""

    __slots__ = ()

    _data: Any

    # ------------------------------------------------------------------ memory formats
    def is_contiguous(self, memory_format: memory_format = contiguous_format) -> bool:
        """True when the elements lie in memory in the order of ``memory_format``: row-major by
        default (so .view() needs no copy), NHWC for ``channels_last``. Dims of size 1 do not
        count; a tensor of another rank than the format's is not contiguous in it."""
        fmt = check_format(memory_format, "is_contiguous")
        if fmt is contiguous_format:
            return bool(self._data.flags.c_contiguous)
        return is_contiguous_as(self._data, fmt)

    def contiguous(self, memory_format: memory_format = contiguous_format):
        """Self when already laid out in ``memory_format``, else a copy that is (differentiable;
        ``preserve_format`` is refused, as PyTorch refuses it)."""
        fmt = check_format(memory_format, "contiguous")
        if fmt is preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        if fmt is contiguous_format:
            return self if self._data.flags.c_contiguous else S.Contiguous.apply(self)
        return self if is_contiguous_as(self._data, fmt) else ToMemoryFormat.apply(self, fmt)

    def clone(self, *, memory_format: memory_format = preserve_format):
        """A copy with its own memory: with self's layout (``preserve_format``: a transposed or
        channels_last tensor stays so), or laid out in ``memory_format``. Differentiable."""
        fmt = check_format(memory_format, "clone")
        if fmt is preserve_format:
            return S.Clone.apply(self)
        return ToMemoryFormat.apply(self, fmt)

    def _to_memory_format(self, fmt: memory_format):
        """``to(memory_format=fmt)``: self for ``preserve_format`` or when self's strides
        already suggest ``fmt`` (PyTorch's test, not ``is_contiguous``: a transposed matrix is
        kept as it is, a (N, 1, H, W) contiguous tensor is copied to channels_last strides),
        else a copy laid out in ``fmt``."""
        fmt = check_format(fmt, "to")
        if fmt is preserve_format or suggest_format(self._data) is fmt:
            return self
        return ToMemoryFormat.apply(self, fmt)
