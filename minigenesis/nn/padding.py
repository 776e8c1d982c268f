"""Padding layers: ``nn.ZeroPad2d``, ``nn.ReflectionPad1d`` ... each calls ``F.pad`` with its mode.

``padding`` is one int (the same amount on every side) or one (before, after) pair per padded dim,
LAST dim first, as ``F.pad`` takes it: ``ZeroPad2d((left, right, top, bottom))``.

- constant / zero: the new border holds ``value`` (0 for the Zero layers);
- reflection: a mirror image without repeating the edge: ``[a b c] -> b | a b c | b``;
- replication: the edge value repeated: ``a | a b c | c``;
- circular: the other end wrapped round: ``c | a b c | a``.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..size import plain_int
from . import functional as F
from .module import Module


def _amounts(padding: Any, dims: int, name: str) -> tuple:
    """padding as 2 * dims ints (one int means the same amount everywhere)."""
    padding = plain_int(padding)  # (NumPy integers count as ints)
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * (2 * dims)
    padding = tuple(map(plain_int, padding))
    if len(padding) != 2 * dims or not all(isinstance(p, int) for p in padding):
        raise ValueError(f"{name}: padding must be an int or {2 * dims} ints, got {padding}")
    return padding


class _PadNd(Module):
    """One padding layer: ``dims`` padded dims in mode ``mode``."""

    dims: int = 1
    mode: str = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _amounts(padding, self.dims, type(self).__name__)

    def forward(self, input: Tensor) -> Tensor:
        if self.mode != "constant" and input.ndim not in (self.dims + 1, self.dims + 2):
            # the other modes pad the last ``dims`` dims of one sample or of a batch
            # PyTorch: ValueError from the circular layers' own check, NotImplementedError
            # from F.pad for reflect and replicate
            error = ValueError if self.mode == "circular" else NotImplementedError
            raise error(
                f"{type(self).__name__}: expected {self.dims + 1}D or {self.dims + 2}D input "
                f"(got {input.ndim}D input)"
            )
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``."""

    dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value``."""

    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value``."""

    dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:  # PyTorch prints only the amounts
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dim with zeros."""

    dims = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last 2 dims with zeros."""

    dims = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last 3 dims with zeros."""

    dims = 3


class ReflectionPad1d(_PadNd):
    """Mirror the last dim at its edges (each amount < that dim's size)."""

    dims, mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Mirror the last 2 dims at their edges."""

    dims, mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Mirror the last 3 dims at their edges."""

    dims, mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Repeat the edge values of the last dim."""

    dims, mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Repeat the edge values of the last 2 dims."""

    dims, mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Repeat the edge values of the last 3 dims."""

    dims, mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Wrap the last dim round (periodic boundary)."""

    dims, mode = 1, "circular"


class CircularPad2d(_PadNd):
    """Wrap the last 2 dims round."""

    dims, mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Wrap the last 3 dims round."""

    dims, mode = 3, "circular"
