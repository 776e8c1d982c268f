"""interpolate's bicubic mode and its antialiased bilinear/bicubic modes, as PyTorch computes them:
each spatial dim is resampled by a dense (out, in) weight matrix W, y = W x along that dim, so
dL/dx = W^T dL/dy comes from the matmul's own backward.

Bicubic (Keys' cubic convolution with A = -0.75, PyTorch's choice): output o reads the input at

    src = o * (n - 1) / (m - 1)                       align_corners=True
    src = (o + 0.5) * r - 0.5   (not clamped)         align_corners=False, r = 1/scale or n/m

and mixes the four samples floor(src) - 1 ... floor(src) + 2 (indices clamped to the border)
with weights [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)], t = src - floor(src), where

    c1(x) = ((A + 2) x - (A + 3)) x^2 + 1              for |x| <= 1
    c2(x) = ((A x - 5 A) x + 8 A) x - 4 A              for 1 < |x| < 2.

Antialias (PyTorch's ``_upsample_*_aa``): when shrinking by r = n/m > 1 the filter is stretched
by r, so every input sample under it is averaged instead of skipped: output o is centred at
c = r (o + 0.5), takes the inputs j in [c - s + 0.5, c + s + 0.5) with s = r * (filter half-width:
1 bilinear, 2 bicubic), each weighted f((j - c + 0.5) / r), the weights normalised to sum 1;
f is the triangle max(0, 1 - |x|) for bilinear and the cubic above with A = -0.5 for bicubic.
"""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ...backend import get_array_module


def _cubic(x: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution kernel of |x| (0 for |x| >= 2)."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def _ratio(n: int, m: int, scale: float | None, align_corners: bool) -> float:
    """PyTorch's area_pixel_compute_scale: input pixels per output pixel."""
    if align_corners:
        return (n - 1) / (m - 1) if m > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n / m


def bicubic_matrix(n: int, m: int, scale: float | None, align_corners: bool) -> np.ndarray:
    """The (m, n) weights of bicubic resampling of one dim from n to m samples."""
    r = _ratio(n, m, scale, align_corners)
    o = np.arange(m, dtype=np.float64)
    src = r * o if align_corners else r * (o + 0.5) - 0.5
    base = np.floor(src)
    t = src - base
    weights = [_cubic(t + 1, -0.75), _cubic(t, -0.75), _cubic(1 - t, -0.75), _cubic(2 - t, -0.75)]
    w = np.zeros((m, n))
    for k, wk in enumerate(weights):
        idx = np.clip(base.astype(np.int64) - 1 + k, 0, n - 1)
        np.add.at(w, (np.arange(m), idx), wk)  # clamped taps at the border add up
    return w


def antialias_matrix(
    n: int, m: int, scale: float | None, align_corners: bool, mode: str
) -> np.ndarray:
    """The (m, n) weights of antialiased bilinear or bicubic resampling of one dim."""
    r = _ratio(n, m, scale, align_corners)
    half = 1.0 if mode == "bilinear" else 2.0
    support = half * r if r >= 1.0 else half
    inv = 1.0 / r if r >= 1.0 else 1.0
    w = np.zeros((m, n))
    for o in range(m):
        centre = r * (o + 0.5)
        lo = max(math.trunc(centre - support + 0.5), 0)
        hi = min(math.trunc(centre + support + 0.5), n)
        x = (np.arange(lo, hi) - centre + 0.5) * inv
        f = np.maximum(0.0, 1.0 - np.abs(x)) if mode == "bilinear" else _cubic(x, -0.5)
        total = f.sum()
        w[o, lo:hi] = f / total if total != 0 else f
    return w


def resample(x: Tensor, axis: int, w: np.ndarray) -> Tensor:
    """y = W x along ``axis`` (a matmul over that dim, so autograd gives W^T dL/dy)."""
    xp = get_array_module(x._data)
    weights = Tensor._make(xp.asarray(w.T, dtype=x._data.dtype), False)
    return (x.movedim(axis, -1) @ weights).movedim(-1, axis)
