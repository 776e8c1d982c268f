"""The ``*_with_indices`` names of the max poolings: PyTorch's functions that always return
(values, indices), whatever ``return_indices`` says."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .adaptive_pool3d import adaptive_max_pool3d
from .pool3d import max_pool3d
from .pooling import adaptive_max_pool1d, adaptive_max_pool2d, max_pool1d, max_pool2d


def max_pool1d_with_indices(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """F.max_pool1d(..., return_indices=True) whatever ``return_indices`` says."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """F.max_pool2d(..., return_indices=True) whatever ``return_indices`` says."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """F.max_pool3d(..., return_indices=True) whatever ``return_indices`` says."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(
    input: Tensor,  # noqa: A002
    output_size: Any,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """F.adaptive_max_pool1d(..., return_indices=True)."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(
    input: Tensor,  # noqa: A002
    output_size: Any,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """F.adaptive_max_pool2d(..., return_indices=True)."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(
    input: Tensor,  # noqa: A002
    output_size: Any,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """F.adaptive_max_pool3d(..., return_indices=True)."""
    return adaptive_max_pool3d(input, output_size, True)
