"""Loop references of F.grid_sample and F.affine_grid in float64: each output point sampled on its
own from PyTorch's rules (unnormalisation, border clamp, reflection, nearest / bilinear / bicubic
taps), for the op database and tests/nn/test_grid_sample.py."""

from __future__ import annotations

import math

import numpy as np


def _unnorm(g: float, n: int, ac: bool) -> float:
    return (g + 1) / 2 * (n - 1) if ac else ((g + 1) * n - 1) / 2


def _reflect(i: float, lo2: int, hi2: int) -> float:
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    t = abs(i - lo)
    k = math.floor(t / span)
    r = t - k * span
    return lo + r if k % 2 == 0 else lo + span - r


def _pad(i: float, n: int, pm: str, ac: bool) -> float:
    if pm == "reflection":
        i = _reflect(i, 0, 2 * (n - 1)) if ac else _reflect(i, -1, 2 * n - 1)
    if pm in ("border", "reflection"):
        i = min(max(i, 0.0), n - 1.0)
    return i


def _value(img: np.ndarray, pos: tuple) -> float:
    """img[pos] or 0 outside (img is one channel's (D,) H, W)."""
    if all(0 <= p < n for p, n in zip(pos, img.shape)):
        return float(img[pos])
    return 0.0


def _cubic(t: float) -> list[float]:
    a = -0.75

    def k(x: float) -> float:
        x = abs(x)
        if x <= 1:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [k(1 + t), k(t), k(1 - t), k(2 - t)]


def _sample_point(img: np.ndarray, g: np.ndarray, mode: str, pm: str, ac: bool) -> float:
    """One channel read at one normalised point g = (x, y[, z])."""
    d = img.ndim
    i = [_unnorm(float(g[d - 1 - k]), img.shape[k], ac) for k in range(d)]
    if mode == "bicubic":
        y0, x0 = math.floor(i[0]), math.floor(i[1])
        wy, wx = _cubic(i[0] - y0), _cubic(i[1] - x0)
        total = 0.0
        for r in range(4):
            for c in range(4):
                yy = int(_pad(y0 - 1 + r, img.shape[0], pm, ac))
                xx = int(_pad(x0 - 1 + c, img.shape[1], pm, ac))
                total += wy[r] * wx[c] * _value(img, (yy, xx))
        return total
    i = [_pad(v, n, pm, ac) for v, n in zip(i, img.shape)]
    if mode == "nearest":
        return _value(img, tuple(int(np.round(v)) for v in i))
    lows = [math.floor(v) for v in i]
    total = 0.0
    for corner in np.ndindex(*(2,) * d):
        w = 1.0
        for v, lo, c in zip(i, lows, corner):
            w *= (v - lo) if c else (1 - (v - lo))
        total += w * _value(img, tuple(lo + c for lo, c in zip(lows, corner)))
    return total


def grid_sample_ref(x: np.ndarray, grid: np.ndarray, mode: str, pm: str, ac: bool) -> np.ndarray:
    n, c = x.shape[:2]
    out_sp = grid.shape[1:-1]
    out = np.zeros((n, c, *out_sp))
    for b in range(n):
        for ch in range(c):
            for pos in np.ndindex(*out_sp):
                out[(b, ch, *pos)] = _sample_point(x[b, ch], grid[(b, *pos)], mode, pm, ac)
    return out


def affine_grid_ref(theta: np.ndarray, size: tuple, ac: bool) -> np.ndarray:
    spatial = size[2:]

    def base(k: int, n: int) -> float:
        if n == 1:
            return 0.0
        v = -1 + 2 * k / (n - 1)
        return v if ac else v * (n - 1) / n

    out = np.zeros((size[0], *spatial, len(spatial)))
    for b in range(size[0]):
        for pos in np.ndindex(*spatial):
            # (x, y[, z], 1): x is the last spatial dim
            p = [base(pos[k], spatial[k]) for k in reversed(range(len(spatial)))] + [1.0]
            out[(b, *pos)] = theta[b] @ np.array(p)
    return out
