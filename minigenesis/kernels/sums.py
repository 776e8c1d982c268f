"""Sums of products per column on NumPy arrays, without ``np.einsum``'s Python wrapper; and
per-channel sums of an image batch as BLAS row sums (``channel_sums``, a convolution's bias
gradient).

``np.einsum`` is a Python function (the ``__array_function__`` dispatch, its ``optimize``
keyword) around NumPy's C einsum, ``c_einsum``, which it calls as it is when ``optimize`` is off
(the default): the same call, the same bits. On the small arrays of an MLP's BatchNorm (32 x 200
float32, two such sums per layer and step) the wrapper is a third of the call: 5.4 against 3.5 us
on one core of an Intel Xeon (family 6, model 207). ``c_einsum`` is not NumPy's public API, so it
is looked up once and, where it is missing, ``np.einsum`` is used.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from numpy._core.multiarray import c_einsum as _c_einsum
except ImportError:  # (another NumPy layout: the public function)
    _c_einsum = np.einsum


def column_dots(a: Any, b: Any) -> Any:
    """sum_n a[n, c] b[n, c] for each column c of two (N, C) NumPy arrays (no (N, C)
    temporary): ``np.einsum("nc,nc->c", a, b)``."""
    return _c_einsum("nc,nc->c", a, b)


_CHANNEL_SUM_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Below this many elements NumPy's reduction is as fast (measured, float32, one core: 4 x 16 x 16
# x 16 6 against 6 us, 8 x 16 x 16 x 16 11 against 7, 4 x 16 x 8 x 8 3 against 4).
CHANNEL_SUMS_MIN = 2**14


def channel_sums(g: Any) -> Any:
    """sum_{n, h, w} g[n, c, h, w] for each channel c of an (N, C, H, W) float32/float64 NumPy
    array laid out NCHW or channels first (C, N, H, W): a convolution's bias gradient. Its rows
    of H*W (or N*H*W) contiguous values are summed by one BLAS matrix-vector product with a
    vector of ones, where NumPy's reduction over the non-adjacent axes (0, 2, 3) walks the array
    in short strided runs (float32, one core: 16 x 64 x 32 x 32 0.23 ms against 0.16, 32 x 64 x 8
    x 8 0.059 against 0.015); the per-sample row sums are then added in float64. None where this
    does not apply."""
    if (
        type(g) is not np.ndarray
        or g.ndim != 4
        or g.dtype not in _CHANNEL_SUM_FLOATS
        or g.size < CHANNEL_SUMS_MIN
    ):
        return None
    n, c = g.shape[:2]
    ones = np.ones(g.size // (n * c), g.dtype)
    if g.flags.c_contiguous:  # (N*C, H*W) rows -> (N, C) sums -> per channel
        return (
            (g.reshape(n * c, -1) @ ones)
            .reshape(n, c)
            .sum(axis=0, dtype=np.float64)
            .astype(g.dtype)
        )
    gc = g.transpose(1, 0, 2, 3)
    if gc.flags.c_contiguous:  # channels first: (C, N*H*W) rows
        return (
            (gc.reshape(c * n, -1) @ ones)
            .reshape(c, n)
            .sum(axis=1, dtype=np.float64)
            .astype(g.dtype)
        )
    return None
