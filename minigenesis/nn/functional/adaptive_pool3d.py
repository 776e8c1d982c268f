"""``F.adaptive_avg_pool3d`` and ``F.adaptive_max_pool3d``: pooling a volume (N, C, D, H, W) to a
fixed (d, h, w), whatever its size, over PyTorch's adaptive windows: along a dim of size n
pooled to m, output i covers [floor(i n / m), ceil((i + 1) n / m)).

    average:  y = A_D x A_H x A_W (one averaging matrix per dim, applied with einsum)
    max:      the largest element of each window (the first in row-major order), picked by a
              gather at its flat position (z H + r) W + q, so the gradient is a scatter there
"""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...autocast_policy import without_autocast
from ...backend import get_array_module
from ...functions import einsum
from ...ops.anchor import anchor
from .pool3d import _volume_input
from .pooling import _adaptive_windows, _averaging_matrix, check_adaptive_output


def _sizes(x: Tensor, output_size: Any, name: str) -> tuple[int, int, int]:
    """(d, h, w): an int, or three entries whose None keeps the input's size."""
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    if len(sizes) != 3:
        raise ValueError(f"{name}: output_size must be 1 or 3 ints, got {output_size!r}")
    out = tuple(x.shape[2 + i] if s is None else s for i, s in enumerate(sizes))
    check_adaptive_output(out, name, output_size)
    return out  # type: ignore[return-value]


@without_autocast  # one kernel in PyTorch, on no autocast list: an einsum here
def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """The mean of each adaptive window: three averaging matrices, one einsum (its gradient
    spreads dL/dy evenly over each window)."""
    x, unbatched = _volume_input(input, "adaptive_avg_pool3d", "fV", adaptive=True)
    d, h, w = _sizes(x, output_size, "adaptive_avg_pool3d")
    a_d, a_h, a_w = (_averaging_matrix(x.shape[2 + i], s, x) for i, s in enumerate((d, h, w)))
    out = anchor(einsum("ncxyz,ix,jy,kz->ncijk", x, a_d, a_h, a_w), x)
    return out.squeeze(0) if unbatched else out


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    """The largest element of each adaptive window (the first of equal ones); with
    ``return_indices`` also its flat position in the input volume."""
    x, unbatched = _volume_input(input, "adaptive_max_pool3d", "fV", adaptive=True)
    sizes = _sizes(x, output_size, "adaptive_max_pool3d")
    xp = get_array_module(x._data)
    if 0 in sizes:  # an empty output: no window to take a maximum of
        values = x.flatten(2)[..., :0].reshape(*x.shape[:2], *sizes)
        indices = Tensor._make(xp.zeros(values.shape, xp.int64), False)
        if unbatched:
            values, indices = values.squeeze(0), indices.squeeze(0)
        return (values, indices) if return_indices else values
    d_in, h_in, w_in = x.shape[2:]
    wd, wh, ww = (_adaptive_windows(x.shape[2 + i], s, xp) for i, s in enumerate(sizes))
    # (d, h, w, kd, kh, kw) flat positions of every window element
    flat = (
        wd[:, None, None, :, None, None] * (h_in * w_in)
        + wh[None, :, None, None, :, None] * w_in
        + ww[None, None, :, None, None, :]
    ).reshape(*sizes, -1)
    volume = math.prod(x.shape[2:])  # (not -1: the batch may be empty)
    windows = x._data.reshape(*x.shape[:2], volume)[:, :, flat]  # (N, C, d, h, w, K)
    best = xp.argmax(windows, axis=-1)[..., None]
    index = xp.take_along_axis(xp.broadcast_to(flat, windows.shape), best, axis=-1)[..., 0]
    indices = Tensor._make(xp.ascontiguousarray(index, dtype=xp.int64), False)
    picked = x.flatten(2).gather(-1, indices.flatten(2)).reshape(indices.shape)
    values = anchor(picked, x)
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return (values, indices) if return_indices else values
