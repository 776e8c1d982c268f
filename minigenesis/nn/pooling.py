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
        return self._pool(
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


class _AvgPoolNd(Module):
    """Mean over each kernel_size window, moved by ``stride`` (default: kernel_size); the options
    AvgPool1d and AvgPool2d share. AvgPool2d adds ``divisor_override`` (AvgPool1d has none, as in
    PyTorch), so each layer calls its own ``F`` function with its own options. ``_sizes`` is how
    a layer keeps kernel_size, stride and padding: as given (2-d) or as 1-tuples (1-d), as
    PyTorch keeps them."""

    _sizes: Any = staticmethod(lambda value: value)

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = self._sizes(kernel_size)
        self.stride = self._sizes(stride if stride is not None else kernel_size)
        self.padding = self._sizes(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def _window(self) -> tuple:
        """The arguments both ``F.avg_pool1d`` and ``F.avg_pool2d`` take after the input."""
        return (self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolDivisorNd(_AvgPoolNd):
    """The average poolings with ``divisor_override`` (2-d and 3-d, as in PyTorch); they differ
    only in the ``F`` function they call (``_pool``)."""

    _pool: Any

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._pool(input, *self._window(), self.divisor_override)


class AvgPool2d(_AvgPoolDivisorNd):
    """Mean over each kernel_size window of a (N, C, H, W) input, divided by ``divisor_override``
    when given (otherwise by the window's size); see ``F.avg_pool2d``."""

    _pool = staticmethod(F.avg_pool2d)


class _AdaptiveAvgPoolNd(Module):
    """Average pooling to a fixed output size, whatever the input size; the 1-d and 2-d layers
    differ only in the ``F`` function they call (``_pool``)."""

    _pool: Any

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output size (oh, ow), whatever the input size; see
    ``F.adaptive_avg_pool2d``. ``output_size``: an int, or a pair whose None entries keep
    the input's size."""

    _pool = staticmethod(F.adaptive_avg_pool2d)


class MaxPool1d(_MaxPoolNd):
    """Max over each kernel_size window of a (N, C, L) input, moved by ``stride`` (default:
    kernel_size); see ``F.max_pool1d``."""

    _pool = staticmethod(F.max_pool1d)


def _single(value: Any) -> tuple:
    """PyTorch's ``_single``: an int as a 1-tuple (AvgPool1d keeps its sizes so)."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class AvgPool1d(_AvgPoolNd):
    """Mean over each kernel_size window of a (N, C, L) input; see ``F.avg_pool1d``."""

    _sizes = staticmethod(_single)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.avg_pool1d(input, *self._window())


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of a (N, C, L) input to a fixed length ``output_size``."""

    _pool = staticmethod(F.adaptive_avg_pool1d)


class _AdaptiveMaxPoolNd(Module):
    """Max pooling to a fixed output size, with the maxima's positions when ``return_indices``;
    the 1-d and 2-d layers differ only in the ``F`` function they call (``_pool``)."""

    _pool: Any

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return self._pool(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of a (N, C, L) input to a fixed length ``output_size``."""

    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output size (oh, ow) (None keeps that input size), with the
    maxima's flat positions h * W + w when ``return_indices``; see ``F.adaptive_max_pool2d``."""

    _pool = staticmethod(F.adaptive_max_pool2d)
