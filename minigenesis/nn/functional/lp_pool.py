"""Power-average pooling, ``F.lp_pool1d/2d/3d``: each window's p-norm,

    y = (sum over the window of x^p) ^ (1/p),

computed as PyTorch does, from the average pool of x^p times the window size (so a window that
ceil_mode cuts short is scaled like a whole one), with the sign kept through a relu of |.| so
the p-th root is of a non-negative number: y = (sign(a) relu(|a|) * |window|) ^ (1/p),
a = avg_pool(x^p). The limits p = +-inf are the largest and the smallest |x| of each window,
taken by max pooling (as PyTorch does: x^inf would leave only 0, 1 and inf)."""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...ops.round_once import in_float32, is_two_byte_float
from .activations import relu
from .pool3d import avg_pool3d, max_pool3d
from .pooling import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

_MAX_POOL = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}


def _lp_pool(pool, nd: int, input, norm_type, kernel_size, stride, ceil_mode) -> Tensor:
    """(sign(a) relu(|a|) * |window|) ^ (1/p), a = pool(x^p); float16/bfloat16 in float32,
    rounded once (the five steps each rounded in the 2-byte dtype: ~2 ulps off). p = inf: the
    window's max |x|; p = -inf: its min |x|."""
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        max_pool = _MAX_POOL[nd]
        if norm_type > 0:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if is_two_byte_float(input):
        args = (pool, nd, input, norm_type, kernel_size, stride, ceil_mode)
        return in_float32(_lp_pool, *args)
    out = pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    window = math.prod(_sizes(kernel_size, nd))
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
    return _lp_pool(avg_pool1d, 1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(
    input: Tensor,  # noqa: A002
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The p-norm of each window of (N, C, H, W) or (C, H, W)."""
    return _lp_pool(avg_pool2d, 2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(
    input: Tensor,  # noqa: A002
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """The p-norm of each window of (N, C, D, H, W) or (C, D, H, W)."""
    return _lp_pool(avg_pool3d, 3, input, norm_type, kernel_size, stride, ceil_mode)
