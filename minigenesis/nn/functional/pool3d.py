"""``F.avg_pool3d`` and ``F.max_pool3d``: pooling over volumes (N, C, D, H, W).

Both reduce the windows of the (padded) input, gathered as columns by ``ops/windows_nd.py``'s
``WindowsNd`` (N, C, D', H', W', kd*kh*kw):

    avg_pool3d(x)[.., z, r, c] = (sum of window (z, r, c)) / divisor
    max_pool3d(x)[.., z, r, c] = max of window (z, r, c)

The average's gradient is shared over each window (WindowsNd's adjoint adds it back); the max's
goes to the window's maximum, picked by a gather whose gradient is a scatter into the window. The
geometry (output sizes, ceil_mode, what padding counts) is PyTorch's, dim by dim, as in 2-d
(``ops/pooling.py``'s ``pool_geometry``).
"""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...backend import get_array_module
from ...ops.pooling import KeepInput, default_stride, first_inside, pool_geometry
from ...ops.windows_nd import POOL, WindowsNd, ntuple
from .pooling import check_adaptive_sizes


def _volume_input(input: Any, name: str, kinds: str, adaptive: bool = False) -> tuple[Tensor, bool]:  # noqa: A002
    """A (N, C, D, H, W) tensor of a dtype kind in ``kinds``, or an unbatched (C, D, H, W) one
    made a batch of one. Only the batch may be empty; for an ``adaptive`` pooling the first dim
    (an unbatched input's channels too, as PyTorch allows: see check_adaptive_sizes)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (4, 5):
        raise RuntimeError(
            f"{name}: expected a 5-d input (N, C, D, H, W) or a 4-d unbatched one (C, D, H, W), "
            f"got shape {tuple(input.shape)}"
        )
    if adaptive:
        check_adaptive_sizes(input, name)
    elif 0 in input.shape[-4:]:
        raise RuntimeError(f"{name}: only the batch dim may be empty, got {tuple(input.shape)}")
    if input._data.dtype.kind not in kinds:
        raise NotImplementedError(f'"{name}" not implemented for {input.dtype.name}')
    return (input.unsqueeze(0), True) if input.ndim == 4 else (input, False)


def _geometry(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode, name) -> tuple:
    """(kernel, stride, dilation, pads, outs, pad_lo) of a 3-d pooling: pads per dim (lo, hi)
    include what ceil_mode adds; PyTorch's checks and messages."""
    k = ntuple(kernel_size, 3, "kernel_size")
    s = k if default_stride(stride) else ntuple(stride, 3, "stride")
    p, d = ntuple(padding, 3, "padding"), ntuple(dilation, 3, "dilation")
    if 0 in k or 0 in s or 0 in d:
        raise RuntimeError(f"{name}: kernel_size, stride and dilation must be positive")
    for i in range(3):
        if p[i] > k[i] // 2:  # PyTorch bounds the pad by the kernel, not the dilated span
            raise RuntimeError(
                f"{name}: pad should be at most half of kernel size, but got "
                f"pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}"
            )
    dims = [pool_geometry(x.shape[2 + i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(3)]
    outs = tuple(out for out, _, _ in dims)
    if min(outs) <= 0:
        raise RuntimeError(
            f"{name}: input of spatial size {tuple(x.shape[2:])} is too small for kernel {k} "
            f"with padding {p} and dilation {d}: the output would be empty"
        )
    return k, s, d, tuple((lo, hi) for _, lo, hi in dims), outs, p


def avg_pool3d(
    input: Tensor,  # noqa: A002  (PyTorch's name)
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """y[n, c, z, r, q] = (sum of the window at (z s - p, r s - p, q s - p)) / divisor. The
    divisor is ``divisor_override``, else the window's size counting the zero padding
    (``count_include_pad=True``) or only the real elements; a ceil_mode window that overhangs the
    padded input counts only its part inside it (PyTorch's rule). dL/dx = dL/dy / divisor over
    each window. Integer inputs pool in their dtype (the division truncates), as PyTorch."""
    x, unbatched = _volume_input(input, "avg_pool3d", "fViu")
    if x._data.dtype.kind in "iu" and x._data.dtype.itemsize != 8 or x.dtype.name == "uint64":
        # (PyTorch's kernel is compiled for the floating types and int64 only)
        raise NotImplementedError(f'"avg_pool3d" not implemented for {x.dtype.name}')
    k, s, d, pads, outs, p = _geometry(x, kernel_size, stride, padding, 1, ceil_mode, "avg_pool3d")
    n, c = x.shape[:2]
    cols = WindowsNd.apply(x, k, s, d, pads, outs, POOL, 0)
    total = cols.reshape(n, c, *outs, math.prod(k)).sum(dim=-1)
    xp = get_array_module(x._data)
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("avg_pool3d: divisor must be not zero")
        divisor: Any = xp.asarray(divisor_override)
    else:
        divisor = 1
        for i in range(3):  # per output position and dim: how many elements the divisor counts
            start = xp.arange(outs[i]) * s[i] - p[i]
            end = xp.minimum(start + k[i], x.shape[2 + i] + p[i])
            if not count_include_pad:
                start, end = xp.maximum(start, 0), xp.minimum(end, x.shape[2 + i])
            divisor = divisor * (end - start).reshape((-1,) + (1,) * (2 - i))
    divisor = divisor.astype(x._data.dtype)
    if x._data.dtype.kind in "iu":  # C's division, which truncates towards zero
        t = total._data
        q = xp.abs(t) // xp.abs(divisor) * xp.sign(t) * xp.sign(divisor)
        out = Tensor._make(q.astype(x._data.dtype), False)
    else:
        # KeepInput: the input stays in the gradient's graph, as in PyTorch's backward
        out = KeepInput.apply(total / Tensor._make(divisor, False), x)
    return out.squeeze(0) if unbatched else out


def max_pool3d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """y[n, c, z, r, q] = max of the (dilated) window at (z s - p, r s - p, q s - p); the padding
    never wins. The first maximum of a window (in row-major order) is picked, a NaN beats every
    number and the last NaN wins (PyTorch's CPU rule ``val > max || isnan(val)``); dL/dx goes to
    the picked element. ``return_indices`` also returns its flat position (z H + r) W + q in its
    input volume, what ``F.max_unpool3d`` takes."""
    x, unbatched = _volume_input(input, "max_pool3d", "fViu")
    geometry = _geometry(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d")
    k, s, d, pads, outs, _ = geometry
    xp = get_array_module(x._data)
    dt = x._data.dtype
    lowest: Any = -math.inf
    if dt.kind in "iu":  # integers pool as int64, padded with its smallest value
        lowest = int(xp.iinfo(xp.int64).min)
        x = x._cast(xp.int64)
    n, c = x.shape[:2]
    cols = WindowsNd.apply(x, k, s, d, pads, outs, POOL, lowest).reshape(n, c, *outs, math.prod(k))
    a = cols._data
    arg = xp.argmax(a, axis=-1)  # the first maximum (NumPy's argmax also stops at a NaN ...)
    if dt.kind in "fV":
        nan = xp.isnan(a)
        last_nan = a.shape[-1] - 1 - xp.argmax(nan[..., ::-1], axis=-1)  # ... PyTorch's: the last
        arg = xp.where(nan.any(axis=-1), last_nan, arg)
    if any(lo for lo, _ in pads):  # a window of padding values only: its first element inside
        first = 0
        for i in range(3):
            inside = first_inside(outs[i], s[i], pads[i][0], d[i], xp)
            first = first * k[i] + inside.reshape((-1,) + (1,) * (2 - i))
        best = xp.take_along_axis(a, arg[..., None], axis=-1)[..., 0]  # (a NaN: not equal)
        arg = xp.where(best == lowest, first, arg)
    pick = Tensor._make(arg[..., None].astype(xp.int64), False)
    values = cols.gather(-1, pick).squeeze(-1)._cast(dt)
    if not return_indices:
        return values.squeeze(0) if unbatched else values
    # the picked offset (i, j, l) in the kernel -> its position in the unpadded input
    offset = xp.unravel_index(arg, k)
    flat = xp.zeros(arg.shape, dtype=xp.int64)
    for i in range(3):
        shape = (-1,) + (1,) * (2 - i)
        pos = (xp.arange(outs[i]) * s[i] - pads[i][0]).reshape(shape) + offset[i] * d[i]
        flat = flat * x.shape[2 + i] + pos
    indices = Tensor._make(flat, False)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices
