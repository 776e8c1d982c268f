"""Power-average pooling, ``F.lp_pool1d/2d/3d``: each window's p-norm,

    y = (sum over the window of x^p) ^ (1/p),

computed as PyTorch does, from the average pool of x^p times the window size (so a window that
ceil_mode cuts short is scaled like a whole one), with the sign kept through a relu of |.| so
the p-th root is of a non-negative number: y = (sign(a) relu(|a|) * |window|) ^ (1/p),
a = avg_pool(x^p). p = inf is not accepted (PyTorch's max pooling is that)."""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from .activations import relu
from .pool3d import avg_pool3d
from .pooling import avg_pool1d, avg_pool2d


def _root(out: Tensor, window: int, norm_type: float) -> Tensor:
    return (out.sign() * relu(out.abs()) * window).pow(1.0 / norm_type)


def _sizes(kernel_size: Any, n: int) -> tuple:
    return tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * n


def lp_pool1d(
    input: Tensor,  # noqa: A002  (PyTorch's name)
    norm_type: float,
    kernel_size: int,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The p-norm of each window of (N, C, L) or (C, L)."""
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(out, math.prod(_sizes(kernel_size, 1)), norm_type)


def lp_pool2d(
    input: Tensor,  # noqa: A002
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The p-norm of each window of (N, C, H, W) or (C, H, W)."""
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(out, math.prod(_sizes(kernel_size, 2)), norm_type)


def lp_pool3d(
    input: Tensor,  # noqa: A002
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The p-norm of each window of (N, C, D, H, W) or (C, D, H, W)."""
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _root(out, math.prod(_sizes(kernel_size, 3)), norm_type)
