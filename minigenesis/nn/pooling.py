"""Pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d, the
options of their ``F.*`` forms.

Max and average pooling are a reduction over each window (``ops/pooling.py``): a max, whose
gradient goes to the window's largest element, or a mean, whose gradient is shared evenly. The
1-d layers pool a (N, C, L) input as a (N, C, 1, L) image with a 1 x k window.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .module import Module


class _MaxPoolNd(Module):
    """Max over each kernel_size window, moved by ``stride`` (default: kernel_size); the 1-d and
    2-d layers differ only in the ``F`` function they call (``_pool``)."""

    _pool: Any

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return type(self)._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool2d(_MaxPoolNd):
    """Max over each kernel_size window of a (N, C, H, W) input; see ``F.max_pool2d``."""

    _pool = staticmethod(F.max_pool2d)


class AvgPool2d(Module):
    """Mean over each kernel_size window, moved by ``stride`` (default: kernel_size)."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size (oh, ow), whatever the input size; see
    ``F.adaptive_avg_pool2d``. ``output_size``: an int, or a pair whose None entries keep
    the input's size."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxPool1d(_MaxPoolNd):
    """Max over each kernel_size window of a (N, C, L) input, moved by ``stride`` (default:
    kernel_size); see ``F.max_pool1d``."""

    _pool = staticmethod(F.max_pool1d)


def _single(value: Any) -> tuple:
    """PyTorch's ``_single``: an int as a 1-tuple (AvgPool1d keeps its sizes so)."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class AvgPool1d(Module):
    """Mean over each kernel_size window of a (N, C, L) input; see ``F.avg_pool1d``."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(Module):
    """Average pooling of a (N, C, L) input to a fixed length ``output_size``."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveMaxPoolNd(Module):
    """Max pooling to a fixed output size, with the maxima's positions when ``return_indices``;
    the 1-d and 2-d layers differ only in the ``F`` function they call (``_pool``)."""

    _pool: Any

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return type(self)._pool(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of a (N, C, L) input to a fixed length ``output_size``."""

    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output size (oh, ow) (None keeps that input size), with the
    maxima's flat positions h * W + w when ``return_indices``; see ``F.adaptive_max_pool2d``."""

    _pool = staticmethod(F.adaptive_max_pool2d)
