"""F.fractional_max_pool2d/3d (Graham, 2014): max pooling to any output size, with windows
placed at pseudo-random, overlapping-free-ish starts, and their ``*_with_indices`` names.

Along an axis of n inputs pooled to m outputs with windows of k, PyTorch's kernel places window
i at start_i = floor((i + u) alpha) - floor(u alpha) for i < m - 1 and the last at n - k,
alpha = (n - k) / (m - 1), u ~ U(0, 1) drawn once per (sample, channel) and axis (the
``_random_samples`` argument, shape (N, C, 2) or (N, C, 3); drawn from the minigenesis
generator when not given). The arithmetic is done in the input's dtype, as PyTorch's kernel
does, so the same samples give the same windows. The maximum of each window (its first
maximum; a NaN wins) is gathered from the input, so the gradient goes to that element.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...backend import get_array_module, quiet_fp
from ...creation import rand
from ...size import plain_int


def _ntuple(value: Any, nd: int, name: str) -> tuple:
    value = plain_int(value)  # (a NumPy integer counts as an int)
    values = (value,) * nd if isinstance(value, (int, float)) else tuple(value)
    if len(values) != nd:
        raise ValueError(f"{name} must be a number or a tuple of {nd}, got {value!r}")
    return values


def _starts(u: Any, n: int, m: int, k: int, dtype: Any) -> Any:
    """Window starts (…, m) for the samples u (…,), computed in ``dtype`` as PyTorch's kernel."""
    xp = get_array_module(u)
    out = xp.empty(u.shape + (m,), np.int64)
    if m == 0:  # (an output ratio that rounds a size to 0: no windows)
        return out
    if m > 1:
        alpha = dtype(n - k) / dtype(m - 1)
        i = xp.arange(m - 1).astype(dtype)
        first = (u[..., None].astype(dtype) + i) * alpha
        out[..., :-1] = (
            first.astype(np.int64) - (u * alpha).astype(dtype).astype(np.int64)[..., None]
        )
    out[..., -1] = n - k
    return out


@quiet_fp  # samples outside [0, 1) (as _random_samples) overflow the window starts silently
def _fractional_max_pool(
    input: Tensor,  # noqa: A002
    nd: int,
    kernel_size: Any,
    output_size: Any,
    output_ratio: Any,
    random_samples: Any,
) -> tuple[Tensor, Tensor]:
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {tuple(input.shape)}"
        )
    if 0 in input.shape[1:]:  # (PyTorch's check: dims after the first non-empty)
        raise RuntimeError(
            f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got "
            f"{list(input.shape)}"
        )
    x = input if input.ndim == nd + 2 else input.unsqueeze(0)
    spatial = tuple(x.shape[2:])
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    if output_size is None:
        if nd == 2 and isinstance(output_ratio, (int, float)):  # PyTorch's 2-d F takes its len()
            raise TypeError(
                f"{name}(): output_ratio must be a tuple of {nd} fractions, got a number "
                f"({output_ratio}); the layer accepts a single number"
            )
        ratio = _ntuple(output_ratio, nd, "output_ratio")
        output_size = tuple(int(s * r) for s, r in zip(spatial, ratio))
    outs = tuple(int(o) for o in _ntuple(output_size, nd, "output_size"))
    for axis, (n, m, k) in enumerate(zip(spatial, outs, kernel)):
        if m + k - 1 > n:
            raise RuntimeError(
                f"{name}(): pool size {k} too large relative to input size {n} along spatial "
                f"dim {axis} for an output of {m}"
            )
    batch, channels = x.shape[0], x.shape[1]
    if random_samples is None:
        random_samples = rand(batch, channels, nd, dtype=input.dtype, device=input.device)
    xp = get_array_module(x._data)
    u = random_samples.detach()._data.astype(np.float64)
    if u.shape != (batch, channels, nd):
        raise RuntimeError(
            f"{name}(): expected _random_samples of shape {(batch, channels, nd)}, got {u.shape}"
        )
    dtype = np.float64 if input.dtype.name == "float64" else np.float32
    # PyTorch's 2-d kernel takes sample 0 for the width and 1 for the height; the 3-d one
    # takes 0, 1, 2 for depth, height, width
    which = (1, 0) if nd == 2 else (0, 1, 2)
    index = xp.zeros((batch, channels) + outs + kernel, np.int64)
    for axis in range(nd):
        starts = _starts(u[..., which[axis]], spatial[axis], outs[axis], kernel[axis], dtype)
        cells = starts[..., None] + xp.arange(kernel[axis])  # (N, C, m, k)
        shape = [batch, channels] + [1] * (2 * nd)
        shape[2 + axis], shape[2 + nd + axis] = outs[axis], kernel[axis]
        stride = math.prod(spatial[axis + 1 :])
        index = index + cells.reshape(shape) * stride
    # (explicit sizes, not -1: an empty batch or channel dim would make -1 ambiguous)
    flat = x.reshape(batch, channels, math.prod(spatial))
    window = index.reshape(batch, channels, math.prod(outs) * math.prod(kernel))
    values = (
        flat.detach()
        ._data[xp.arange(batch)[:, None, None], xp.arange(channels)[None, :, None], window]
        .reshape(index.shape[: 2 + nd] + (math.prod(kernel),))
    )
    best = _first_max(values)
    chosen = xp.take_along_axis(index.reshape(values.shape), best[..., None], -1)[..., 0]
    idx = Tensor._make(chosen, False)
    out = flat.gather(2, idx.reshape(batch, channels, math.prod(outs)))
    out = out.reshape(batch, channels, *outs)
    if input.ndim == nd + 1:
        return out.squeeze(0), idx.squeeze(0)
    return out, idx


def _first_max(values: Any) -> Any:
    """The position of each window's first maximum (last axis); a window with NaN: its last
    NaN (PyTorch's kernel replaces its pick at every NaN)."""
    xp = get_array_module(values)
    nan = xp.isnan(values)
    best = xp.argmax(xp.where(nan, -np.inf, values), -1)
    last_nan = values.shape[-1] - 1 - xp.argmax(nan[..., ::-1], -1)
    return xp.where(nan.any(-1), last_nan, best)


def fractional_max_pool2d_with_indices(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Fractional max pooling of a (N, C, H, W) or (C, H, W) input: (values, flat indices in
    H * W). ``output_size`` or ``output_ratio`` (a fraction of each input size) sets the size."""
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """The values of fractional_max_pool2d_with_indices (and the indices, ``return_indices``)."""
    out = _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Fractional max pooling of a (N, C, D, H, W) or (C, D, H, W) input: (values, flat
    indices in D * H * W)."""
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """The values of fractional_max_pool3d_with_indices (and the indices, ``return_indices``)."""
    out = _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]
