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

from ..._tensor import Tensor


def _cubic(xp, x, a: float):
    """Keys' cubic convolution kernel of |x| (0 for |x| >= 2)."""
    x = xp.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return xp.where(x <= 1, near, xp.where(x < 2, far, 0.0))


def _ratio(n: int, m: int, scale: float | None, align_corners: bool) -> float:
    """PyTorch's area_pixel_compute_scale: input pixels per output pixel."""
    if align_corners:
        return (n - 1) / (m - 1) if m > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n / m


def bicubic_matrix(xp, n: int, m: int, scale: float | None, align_corners: bool):
    """The (m, n) float64 weights of bicubic resampling of one dim from n to m samples
    (``xp``: the array module of the input)."""
    r = _ratio(n, m, scale, align_corners)
    o = xp.arange(m, dtype=xp.float64)
    src = r * o if align_corners else r * (o + 0.5) - 0.5
    base = xp.floor(src)
    t = src - base
    taps = (t + 1, t, 1 - t, 2 - t)
    columns = xp.arange(n)[None, :]
    w = xp.zeros((m, n))
    for k, x in enumerate(taps):
        idx = xp.clip(base.astype(xp.int64) - 1 + k, 0, n - 1)
        # a tap clamped to the border adds to the border column
        w += _cubic(xp, x, -0.75)[:, None] * (idx[:, None] == columns)
    return w


def antialias_matrix(xp, n: int, m: int, scale: float | None, align_corners: bool, mode: str):
    """The (m, n) float64 weights of antialiased bilinear or bicubic resampling of one dim."""
    r = _ratio(n, m, scale, align_corners)
    half = 1.0 if mode == "bilinear" else 2.0
    support = half * r if r >= 1.0 else half
    inv = 1.0 / r if r >= 1.0 else 1.0
    w = xp.zeros((m, n))
    for o in range(m):
        centre = r * (o + 0.5)
        lo = max(math.trunc(centre - support + 0.5), 0)
        hi = min(math.trunc(centre + support + 0.5), n)
        x = (xp.arange(lo, hi) - centre + 0.5) * inv
        f = xp.maximum(0.0, 1.0 - xp.abs(x)) if mode == "bilinear" else _cubic(xp, x, -0.5)
        total = float(f.sum())
        w[o, lo:hi] = f / total if total != 0 else f
    return w


def resample(x: Tensor, axis: int, w) -> Tensor:
    """y = W x along ``axis`` (a matmul over that dim, so autograd gives W^T dL/dy)."""
    weights = Tensor._make(w.T.astype(x._data.dtype), False)
    return (x.movedim(axis, -1) @ weights).movedim(-1, axis)
