"""F.interpolate and the upsample forms: PyTorch's source-coordinate formulas per mode, the
resampling along each spatial dim in ops/interpolate.py.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autocast_policy import without_autocast
from ...backend import get_array_module
from ...ops.interpolate import UPSAMPLE_OPS, Resample
from ...ops.round_once import cuda_autocast_widens, in_float32, is_two_byte_float
from ...ops.same_dtype import SCALAR_NAMES
from .adaptive_pool3d import adaptive_avg_pool3d
from .interpolation_weights import antialias_matrix, bicubic_matrix, resample
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d

# ----------------------------------------------------------------------------------------------
# Interpolation (separable resampling along each spatial dim: ops/interpolate.py)
# ----------------------------------------------------------------------------------------------
_LINEAR_MODES = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _source_plan(
    n: int,
    m: int,
    scale: float | None,
    mode: str,
    align_corners: bool,
    dtype,
    xp,
    shortcuts: bool = True,
):
    """(i0, i1, lam) of resizing one dim from n to m (see ops/interpolate.py), with PyTorch's
    source coordinate of output o, in float32 (float64 for float64 linear inputs) as its kernels:

      nearest:         src = floor(o * r)            r = 1 / scale_factor if given, else n / m
      nearest-exact:   src = floor((o + 0.5) * r)    (both clamped to n - 1)
      linear, align_corners=True:   src = o * (n - 1) / (m - 1)   (the corners map to corners)
      linear, align_corners=False:  src = max((o + 0.5) * r - 0.5, 0)   (pixel centres map)
      then i0 = min(floor(src), n - 1), i1 = min(i0 + 1, n - 1), lam = clamp(src - i0, 0, 1).

    'nearest' keeps PyTorch's two shortcuts m == n (identity) and m == 2n (o // 2) where
    ``shortcuts`` (PyTorch's kernel for 4-d inputs takes them; its 3-d and 5-d kernels apply the
    formula, so a scale_factor of 1.02 on a size of 7 gives [0, 0, 1, ..., 5] there); linear
    keeps the identity when m == n. (``xp``: the input's array module.)"""
    o = xp.arange(m)
    if mode in ("nearest", "nearest-exact"):
        r = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(n) / m
        if mode == "nearest" and shortcuts and m == n:
            i0 = o
        elif mode == "nearest" and shortcuts and m == 2 * n:
            i0 = o // 2
        elif mode == "nearest":
            i0 = xp.floor(o.astype(np.float32) * r).astype(np.int64)
        else:
            i0 = xp.floor(((o + 0.5) * np.float64(r)).astype(np.float32)).astype(np.int64)
        return xp.minimum(i0, n - 1), None, None
    t = np.float64 if dtype == np.float64 else np.float32
    if m == n:
        return o, o, xp.zeros(m, dtype=t)
    if align_corners:
        r = t(n - 1) / t(m - 1) if m > 1 else t(0)
        src = r * o.astype(t)
    else:
        r = t(1.0 / scale) if scale is not None and scale > 0 else t(n) / t(m)
        src = xp.maximum(r * (o.astype(t) + t(0.5)) - t(0.5), t(0))
    i0 = xp.minimum(xp.floor(src).astype(np.int64), n - 1)
    lam = xp.clip(src - i0.astype(t), t(0), t(1))
    return i0, xp.minimum(i0 + 1, n - 1), lam


def _per_dim(value: Any, k: int, name: str) -> list:
    """``value`` (a number, or a sequence of k numbers) as a list of k."""
    if isinstance(value, (tuple, list)):
        if len(value) != k:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got "
                f"input with {k} spatial dimensions and {name} {tuple(value)}"
            )
        return list(value)
    return [value] * k


def interpolate(
    input: Tensor,  # noqa: A002
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dims of a (N, C, L), (N, C, H, W) or (N, C, D, H, W) input to ``size``,
    or to floor(in * scale_factor). Modes: 'nearest', 'nearest-exact', 'area' and 'linear' /
    'bilinear' / 'trilinear' (3-d / 4-d / 5-d input); 'bicubic' and antialias=True (4-d input)
    resample by dense weight matrices (interpolation_weights.py). Each dim is resampled on its
    own (last dim first, as PyTorch's kernel weights them), y = M x with a sparse matrix M whose
    source coordinates are given in ``_source_plan``; dL/dx = M^T dL/dy. ``scale_factor`` also
    sets the source coordinate's ratio (1 / scale_factor) unless ``recompute_scale_factor`` is
    True, which uses in / out from the computed size, as PyTorch does."""
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate: input must be a Tensor, got {type(input).__name__}")
    k = input.ndim - 2
    if align_corners is not None and mode not in (*_LINEAR_MODES, "bicubic"):
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    # PyTorch checks the lengths of size and scale_factor against the input's spatial dims
    # (ValueError) before it looks at the mode (NotImplementedError for a mode's wrong rank)
    for value, name in ((size, "output size"), (scale_factor, "scale_factor")):
        if isinstance(value, (tuple, list)):
            _per_dim(value, k, name)
    if is_two_byte_float(input) and not cuda_autocast_widens(input):
        # float32 inside, one rounding at the output, as PyTorch's kernels
        return in_float32(interpolate, input, size, scale_factor, mode, align_corners,
                          recompute_scale_factor, antialias)  # fmt: skip
    if mode == "area":  # each output cell the mean of its input window, as PyTorch does it
        return _interpolate_area(input, size, scale_factor, recompute_scale_factor, k)
    if input._data.dtype == np.uint8 and mode in ("nearest", "nearest-exact", "bilinear"):
        # PyTorch resamples images of bytes: computed in float32, rounded back to bytes
        out = interpolate(input.float(), size, scale_factor, mode, align_corners,
                          recompute_scale_factor, antialias)  # fmt: skip
        if mode != "bilinear":
            return out.to(input.dtype)  # nearest copies values: exact
        return _bilinear_bytes(input, tuple(out.shape[2:]), scale_factor, align_corners)
    dt = input._data.dtype
    if dt.itemsize == 2 and dt.kind in "fV" and mode in _LINEAR_MODES and not antialias:
        # float16 / bfloat16: PyTorch weighs the neighbours in float32 and rounds once
        out = interpolate(input.float(), size, scale_factor, mode, align_corners,
                          recompute_scale_factor)  # fmt: skip
        return out.to(input.dtype)
    if mode == "bicubic" or antialias:
        return _interpolate_by_matrices(
            input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias
        )
    if mode not in ("nearest", "nearest-exact", *_LINEAR_MODES) or k not in (1, 2, 3):
        raise NotImplementedError(
            f"interpolate: only 3-d, 4-d and 5-d inputs are supported, for the modes nearest | "
            f"nearest-exact | linear | bilinear | trilinear (got {input.ndim}-d input, "
            f"mode {mode!r})"
        )
    if mode in _LINEAR_MODES:
        if _LINEAR_MODES[mode] != input.ndim:
            raise NotImplementedError(
                f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR_MODES[mode]}D input"
            )
        align_corners = bool(align_corners)
    in_sizes = list(input.shape[2:])
    out_sizes, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor)
    xp = get_array_module(input._data)
    # last dim first. Resampling to the same size without a scale_factor is a copy, and so is
    # 'nearest' in PyTorch's 4-d kernel: skipped, unless every dim is one (then one copy is
    # made, so the output is still a new tensor with PyTorch's node)
    axes = [
        a
        for a in range(input.ndim - 1, 1, -1)
        if mode in _LINEAR_MODES
        or out_sizes[a - 2] != in_sizes[a - 2]
        or not (scales[a - 2] is None or (mode == "nearest" and k == 2))
    ]
    axes = axes or [2]
    y = input
    for axis in axes:
        d = axis - 2
        i0, i1, lam = _source_plan(
            in_sizes[d],
            int(out_sizes[d]),
            scales[d],
            mode,
            align_corners,
            input._data.dtype,
            xp,
            shortcuts=k == 2,
        )
        # the last resampling is recorded as PyTorch's node for the call (UpsampleNearest2D ...)
        op = UPSAMPLE_OPS[mode, k] if axis == axes[-1] else Resample
        y = op.apply(y, axis, i0, i1, lam)
    return y


def _scaled_sizes(in_sizes: Any, scales: list[float]) -> list[int]:
    """floor(in * scale) per dim; a product that is no int64 (NaN, inf, > 2**63) is PyTorch's
    RuntimeError, naming it (math.floor raised ValueError or OverflowError without context)."""
    for n, f in zip(in_sizes, scales):
        if not abs(n * f) < 2**63:
            raise RuntimeError(
                f"interpolate: the output size {n} x scale_factor {f} = {n * f} cannot be "
                "converted to type int64_t without overflow"
            )
    return [math.floor(n * f) for n, f in zip(in_sizes, scales)]


def _output_sizes(input, size, scale_factor, recompute_scale_factor) -> tuple:  # noqa: A002
    """(output sizes, scales the kernel uses) per spatial dim, with PyTorch's checks: a scale is
    1 / scale_factor unless the size is given or recompute_scale_factor (then in / out)."""
    k = input.ndim - 2
    if (size is None) == (scale_factor is None):
        raise ValueError(
            "only one of size or scale_factor should be defined"
            if size is not None
            else "either size or scale_factor should be defined"
        )
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        out_sizes, scales = _per_dim(size, k, "output size"), [None] * k
    else:
        scales = [float(s) for s in _per_dim(scale_factor, k, "scale_factor")]
        out_sizes = _scaled_sizes(input.shape[2:], scales)
        if recompute_scale_factor:
            scales = [None] * k  # the kernel then uses in / out
    for m in out_sizes:
        if not isinstance(m, (int, np.integer)) or isinstance(m, bool):
            raise TypeError(f"interpolate: the output size must be ints, got {tuple(out_sizes)}")
        if m <= 0:  # PyTorch's kernels refuse it (RuntimeError)
            raise RuntimeError(
                f"interpolate: input and output sizes should be greater than 0, got output "
                f"{tuple(out_sizes)} (input spatial size {tuple(input.shape[2:])})"
            )
    if input._data.dtype.kind not in "fV":  # PyTorch's index-weight kernels are floating-only
        d = input._data.dtype.name
        raise NotImplementedError(
            f"interpolate: \"upsample\" not implemented for '{SCALAR_NAMES.get(d, d)}' input"
        )
    return out_sizes, scales


@without_autocast  # one kernel in PyTorch, on no CPU autocast list: matmuls here
def _interpolate_by_matrices(
    input,
    size,
    scale_factor,
    mode,
    align_corners,
    recompute_scale_factor,
    antialias,  # noqa: A002
) -> Tensor:
    """mode='bicubic', and antialias=True (bilinear or bicubic): each spatial dim resampled by
    a dense weight matrix (interpolation_weights.py), last dim first; antialiasing keeps a dim
    whose size does not change (the identity matrix)."""
    if antialias and (mode not in ("bilinear", "bicubic") or input.ndim != 4):
        raise NotImplementedError(
            "Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D "
            f"tensor as input (got mode {mode!r}, {input.ndim}-d input)"
        )
    if input.ndim != 4:
        raise NotImplementedError(f"Got {input.ndim}D input, but bicubic mode needs 4D input")
    align_corners = bool(align_corners)
    out_sizes, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor)
    y, xp = input, get_array_module(input._data)
    for axis in (3, 2):
        n, m, scale = input.shape[axis], int(out_sizes[axis - 2]), scales[axis - 2]
        if antialias and m == n:
            # PyTorch's antialiased kernel leaves a dim of unchanged size as it is, whatever the
            # scale_factor (the filter would otherwise blur it)
            w = xp.eye(n)
        elif antialias:
            w = antialias_matrix(xp, n, m, scale, align_corners, mode)
        else:
            w = bicubic_matrix(xp, n, m, scale, align_corners)
        y = resample(y, axis, w)
    return y


def _bilinear_bytes(x: Tensor, out_sizes: tuple, scale_factor: Any, align_corners) -> Tensor:
    """Bilinear resizing of uint8 images as PyTorch's byte kernel computes it: the width first,
    then the height, each pass with its two weights in fixed point (w * 2^p rounded to ints, p as
    large as int16 allows) and its result rounded back to bytes."""
    xp = get_array_module(x._data)
    scales = (
        [None] * 2
        if scale_factor is None
        else [float(f) for f in _per_dim(scale_factor, 2, "scale_factor")]
    )
    a = x._data.astype(np.int64)
    for axis in (3, 2):
        n, m = a.shape[axis], int(out_sizes[axis - 2])
        if n == m:
            continue
        i0, i1, lam = _source_plan(n, m, scales[axis - 2], "bilinear", bool(align_corners),
                                   np.float64, xp)  # fmt: skip
        w = xp.stack([1 - lam, lam]).astype(np.float64)
        p = 0  # PyTorch's precision: the most bits before the largest weight leaves int16
        while p < 22 and int(0.5 + float(w.max()) * (1 << (p + 1))) < (1 << 15):
            p += 1
        wi = xp.floor(w * (1 << p) + 0.5).astype(np.int64)
        shape = [1] * a.ndim
        shape[axis] = m
        mixed = xp.take(a, i0, axis) * wi[0].reshape(shape) + xp.take(a, i1, axis) * wi[1].reshape(
            shape
        )
        a = xp.clip((mixed + (1 << (p - 1))) >> p, 0, 255)
    return Tensor._make(a.astype(np.uint8), False)


def _interpolate_area(input, size, scale_factor, recompute_scale_factor, k: int) -> Tensor:  # noqa: A002
    """mode='area': adaptive average pooling to the output size (PyTorch's definition)."""
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined (not both)")
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f"interpolate(mode='area') is not implemented for {input.dtype}")
    if size is None:
        scales = [float(f) for f in _per_dim(scale_factor, k, "scale_factor")]
        size = _scaled_sizes(input.shape[2:], scales)
    size = _per_dim(size, k, "output size")
    if k == 1:
        return adaptive_avg_pool1d(input, size[0])
    if k == 2:
        return adaptive_avg_pool2d(input, tuple(size))
    if k == 3:
        return adaptive_avg_pool3d(input, tuple(size))
    raise NotImplementedError("interpolate(mode='area') supports 3-d, 4-d and 5-d inputs")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """The old name of ``interpolate`` (PyTorch warns that it is deprecated)."""
    warnings.warn(
        "nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    """``interpolate(..., mode='nearest')`` (deprecated in PyTorch)."""
    warnings.warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    """``interpolate(..., mode='bilinear', align_corners=True)`` (deprecated in PyTorch)."""
    warnings.warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
