"""BatchNorm's training step on the CPU: per-channel sums as BLAS products, the rest in place.

``ops/normalization.py``'s Normalize computes BatchNorm over the axes (0, 2, 3, ...) of an
(N, C, *) array with NumPy reductions over those axes and one new array per step of the formula.
Both are slow in NumPy: a reduction over non-adjacent axes walks the array in short strided runs
(0.24 ms for a 32x16x32x32 float32 conv output, against 0.04 ms for a dot product of the same
data laid out as rows), and a pass that writes a fresh array costs 2-3x one that updates an array
in place (0.15 against 0.06 ms: the new pages are not in the cache).

So here x is seen as a 2-D matrix of rows, each row one (sample, channel) or (channel, sample)
pair over the spatial positions, without a copy when x is laid out either way:

    "nc"  x C-contiguous (N, C, S)         rows (N*C, S), row i is channel i % C
    "cn"  x's (C, N, S) transpose is       rows (C*N, S), row i is channel i // N
          C-contiguous (the convolutions' outputs on the CPU are laid out this way)

and any other layout is copied once into "cn". Each row's sum is a matrix-vector product with a
vector of ones and each row's sum of products a ``vecdot`` (one pass, no temporary); the per-row
sums are then added per channel in float64, so a sum over N*S elements rounds like one over S.

Forward (statistics, then y): 1 copy or read for the row sums, x - mu into a new array, its
``vecdot`` with itself, then y = (x - mu) * (r w) + b as a new array and two in-place passes.
Backward: x - mu again (PyTorch keeps only x too), two row products (sum g and sum g (x - mu)),
and dL/dx = a g - a mean(g) - (x - mu) a r^2 mean(g (x - mu)) with a = r w per channel, as
two in-place passes over x - mu, one new array a g, and one in-place add. The same closed form
as the op's own code, in another order of operations: float rounding apart, the same numbers.
"""

from __future__ import annotations

import numpy as np

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _rows(a: np.ndarray, layout: str) -> np.ndarray:
    """``a`` (N, C, *) as the 2-D matrix of rows of ``layout`` (a view)."""
    if layout == "nc":
        return a.reshape(a.shape[0] * a.shape[1], -1)
    return a.transpose(1, 0, *range(2, a.ndim)).reshape(a.shape[0] * a.shape[1], -1)


def _layout(a: np.ndarray) -> str | None:
    """ "nc" or "cn" if ``a`` can be seen as rows without a copy (see the module docstring)."""
    if a.flags.c_contiguous:
        return "nc"
    if a.transpose(1, 0, *range(2, a.ndim)).flags.c_contiguous:
        return "cn"
    return None


def _per_channel(row_values: np.ndarray, shape: tuple, layout: str) -> np.ndarray:
    """Per-row sums -> per-channel sums (float64 vector of length C)."""
    n, c = shape[:2]
    if layout == "nc":
        return row_values.reshape(n, c).sum(axis=0, dtype=np.float64)
    return row_values.reshape(c, n).sum(axis=1, dtype=np.float64)


def _per_row(v: np.ndarray, shape: tuple, layout: str) -> np.ndarray:
    """A per-channel vector as a column over the rows of ``layout`` (broadcasts against them)."""
    n = shape[0]
    return (np.tile(v, n) if layout == "nc" else np.repeat(v, n))[:, None]


def _empty(shape: tuple, dtype, layout: str) -> np.ndarray:
    """A new (N, C, *) array laid out as ``layout``."""
    if layout == "nc":
        return np.empty(shape, dtype)
    n, c = shape[:2]
    return np.empty((c, n, *shape[2:]), dtype).transpose(1, 0, *range(2, len(shape)))


# Rows shorter than this (BatchNorm1d's (N, C) input has rows of 1) make the row products and the
# per-row columns cost more than NumPy's reductions over axis 0 (measured: 124 against 67 us for
# the forward of a 32 x 200 BatchNorm1d); such inputs keep the op's own code.
MIN_ROW = 16


def _applies(x, axes: tuple, *others) -> bool:
    """BatchNorm's axes over a float32/float64 NumPy array (others of its dtype or None) whose
    spatial size is at least MIN_ROW."""
    return (
        type(x) is np.ndarray
        and x.dtype in _FLOATS
        and x.ndim >= 3
        and axes == (0, *range(2, x.ndim))
        and x.size >= MIN_ROW * x.shape[0] * x.shape[1] > 0
        and all(o is None or (type(o) is np.ndarray and o.dtype == x.dtype) for o in others)
    )


def stats(x, axes: tuple) -> tuple | None:
    """(mu, var) of x over BatchNorm's ``axes``, keepdims (biased var), or None where this path
    does not apply."""
    if not _applies(x, axes):
        return None
    layout = _layout(x)
    if layout is None:  # one copy, channels first; then the "cn" rows are contiguous
        x = np.ascontiguousarray(x.transpose(1, 0, *range(2, x.ndim))).transpose(
            1, 0, *range(2, x.ndim)
        )
        layout = "cn"
    rows = _rows(x, layout)
    count = rows.size // x.shape[1]
    mu = _per_channel(rows @ np.ones(rows.shape[1], x.dtype), x.shape, layout) / count
    d = rows - _per_row(mu.astype(x.dtype), x.shape, layout)
    var = _per_channel(np.vecdot(d, d), x.shape, layout) / count
    keep = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return mu.astype(x.dtype).reshape(keep), var.astype(x.dtype).reshape(keep)


def forward(x, w, b, mu, var, eps: float, axes: tuple):
    """(y, r): y = (x - mu) r w + b with r = 1 / sqrt(var + eps), the statistics given
    (keepdims, per channel); None where this path does not apply."""
    if not _applies(x, axes, w, b, mu, var):
        return None
    layout = _layout(x) or "cn"
    r = 1.0 / np.sqrt(var + eps)
    scale = r if w is None else r * w
    y = _empty(x.shape, x.dtype, layout)
    np.subtract(x, mu, out=y)
    rows, c = _rows(y, layout), x.shape[1]
    rows *= _per_row(scale.reshape(c), x.shape, layout)
    if b is not None:
        rows += _per_row(b.reshape(c), x.shape, layout)
    return y, r


def backward(ctx, x, w, gy) -> tuple | None:
    """Normalize.backward's arrays (gx, gw, gb) for forward's y, given dL/dy (gw, gb keepdims,
    per channel; None where not needed), or None where this path does not apply. ``x``, ``w``
    (or None) and ``gy`` are tensors; ``ctx`` holds forward's mu and r."""
    x, w, gy, mu, r, needs = (
        x._data,
        w if w is None else w._data,
        gy._data,
        ctx.mu,
        ctx.r,
        ctx.needs_input_grad,
    )
    if not _applies(x, ctx.axes, w, gy, mu, r):
        return None
    layout = _layout(gy)
    if layout is None:
        gy = np.ascontiguousarray(gy)
        layout = "nc"
    shape, c = x.shape, x.shape[1]
    keep = (1, c) + (1,) * (x.ndim - 2)
    d = _empty(shape, x.dtype, layout)
    np.subtract(x, mu, out=d)
    g_rows, d_rows = _rows(gy, layout), _rows(d, layout)
    count = g_rows.size // c
    sum_g = _per_channel(g_rows @ np.ones(g_rows.shape[1], x.dtype), shape, layout)
    sum_gd = _per_channel(np.vecdot(g_rows, d_rows), shape, layout)
    rv = r.reshape(c).astype(np.float64)
    gw = (sum_gd * rv).astype(x.dtype).reshape(keep) if needs[1] else None
    gb = sum_g.astype(x.dtype).reshape(keep) if needs[2] else None
    gx = None
    if needs[0]:
        a = rv if w is None else rv * w.reshape(c)
        # dL/dx = a g - a mean(g) - d a r^2 mean(g d): the last two in place over d
        d_rows *= _per_row((-a * rv * rv * sum_gd / count).astype(x.dtype), shape, layout)
        d_rows -= _per_row((a * sum_g / count).astype(x.dtype), shape, layout)
        gx = _empty(shape, x.dtype, layout)
        gx_rows = _rows(gx, layout)
        np.multiply(g_rows, _per_row(a.astype(x.dtype), shape, layout), out=gx_rows)
        gx_rows += d_rows
    return gx, gw, gb
