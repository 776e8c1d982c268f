"""``F.max_unpool1d/2d/3d``: the partial inverse of max pooling.

Max pooling with ``return_indices=True`` gives each maximum and its flat position in its input
plane (volume). Unpooling writes each value back at that position of a zero output:

    y = zeros(N, C, *output_size);   y.flatten(2)[n, c, indices[n, c, i]] = x[n, c, i]

one scatter along the flattened spatial dims, whose gradient to x is the gather of dL/dy at the
same positions. The output size is by default the pooling's input size
(in - 1) * stride - 2 * padding + kernel_size per dim; ``output_size`` may pick another one
within a stride of it, as PyTorch allows (a pooled odd size, e.g.).
"""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...ops.pooling import default_stride
from ...ops.same_dtype import check_floating
from ...ops.windows_nd import ntuple


def _unpool_output_size(x: Tensor, kernel: tuple, stride: tuple, padding: tuple, output_size):
    """PyTorch's rule: the default size per dim, or ``output_size`` (n or n + 2 entries; each
    strictly within one stride of the default)."""
    n = len(kernel)
    default = [(x.shape[-n + i] - 1) * stride[i] + kernel[i] - 2 * padding[i] for i in range(n)]
    if output_size is None:
        return default
    size = list(output_size)
    if len(size) == n + 2:
        size = size[2:]
    if len(size) != n:
        raise ValueError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
            f"length of '{len(size)}'"
        )
    for i in range(n):
        lo, hi = default[i] - stride[i], default[i] + stride[i]
        if not lo < size[i] < hi:
            raise ValueError(
                f'invalid output_size "{tuple(output_size)}" (dim {i} must be between {lo} '
                f"and {hi})"
            )
    return size


def _max_unpool(
    input: Tensor,  # noqa: A002
    indices: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    output_size: Any,
    n: int,
) -> Tensor:
    name = f"max_unpool{n}d"
    if not isinstance(input, Tensor) or not isinstance(indices, Tensor):
        raise TypeError(f"{name}: input and indices must be Tensors")
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(
            f"{name}: expected a {n + 2}-d input (N, C, ...) or a {n + 1}-d unbatched one, got "
            f"shape {tuple(input.shape)}"
        )
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"{name}: expected indices of the input's shape {tuple(input.shape)}, got "
            f"{tuple(indices.shape)}"
        )
    if indices.dtype.name != "int64":
        raise RuntimeError(
            f"{name}: elements in indices should be type int64 but got: {indices.dtype.name}"
        )
    kernel = ntuple(kernel_size, n, "kernel_size")
    stride = kernel if default_stride(stride) else ntuple(stride, n, "stride")
    size = _unpool_output_size(input, kernel, stride, ntuple(padding, n, "padding"), output_size)
    if min(size) < 0:
        raise ValueError(f"{name}: output_size must be non-negative, got {tuple(size)}")
    unbatched = input.ndim == n + 1
    x, idx = (input.unsqueeze(0), indices.unsqueeze(0)) if unbatched else (input, indices)
    batch, channels = x.shape[:2]
    volume = 1
    for s in size:
        volume *= s
    flat_idx = idx.reshape(batch, channels, math.prod(idx.shape[2:]))
    if flat_idx.numel() and (int(flat_idx.min()) < 0 or int(flat_idx.max()) >= volume):
        bad = int(flat_idx.max()) if int(flat_idx.max()) >= volume else int(flat_idx.min())
        raise RuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size "
            f"{'x'.join(str(s) for s in size)})"
        )
    zeros = x.new_zeros((batch, channels, volume))
    out = zeros.scatter(2, flat_idx, x.reshape(batch, channels, math.prod(x.shape[2:])))
    out = out.reshape(batch, channels, *size)
    return out.squeeze(0) if unbatched else out


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """y[n, c, indices[n, c, i]] = x[n, c, i], zero elsewhere: input (N, C, L) or (C, L)."""
    check_floating("max_unpool2d", input)  # (PyTorch unpools 1-d as 2-d)
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """y[n, c].flatten()[indices[n, c, i, j]] = x[n, c, i, j], zero elsewhere: input (N, C, H,
    W) or (C, H, W), indices as ``F.max_pool2d(..., return_indices=True)`` gives them."""
    check_floating("max_unpool2d", input)
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """y[n, c].flatten()[indices[n, c, ...]] = x[n, c, ...], zero elsewhere: input (N, C, D,
    H, W) or (C, D, H, W), indices as ``F.max_pool3d(..., return_indices=True)`` gives them."""
    check_floating("max_unpool3d", input)
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)
