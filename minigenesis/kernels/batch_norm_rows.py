"""BatchNorm1d's training step on (N, C) input as two compiled loops (Numba, ``cpu_jit``).

``ops/batch_norm_rows.py`` computes it with NumPy: on an MLP's small batches (32 x 200) each of
its ~15 calls forward and ~9 backward costs more in its fixed part (~1 us) than in its arithmetic,
and the step is the count of calls. Here each direction is one call (~2 us of Numba's dispatch
for eight arrays) whose loops run along the rows of x, C columns wide, so every column's sum
is a vector of C partial sums that the loop vectorises as it is:

- forward: mu and var per column (two passes over x, in float64), the running averages moved
  towards them (the variance unbiased, N / (N - 1) times the batch's), r = 1 / sqrt(var + eps),
  xhat = (x - mu) r (kept for backward, as the op keeps it) and y = xhat w + b;
- backward: dL/db = sum_n g, dL/dw = sum_n g xhat (one pass, float64) and dL/dx = r w (g -
  dL/db / N - xhat dL/dw / N) (one more).

Every sum is taken in float64 and each element's formula evaluated in float64 and rounded once,
so float32 results are at least as close to float64 as the op's float32 products (float64 ones
the same precision, summed in another order). x, the gradient
and the parameters must be C-contiguous float32/float64 arrays of one dtype, the parameters and
running averages vectors of C elements (the loops index them unchecked); anything else returns
None and the op's NumPy code runs.
"""

from __future__ import annotations

import numpy as np

from . import cpu_jit

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _fits(x: np.ndarray, columns: tuple, full: tuple = ()) -> bool:
    """x (N, C), N > 1, and the others (None or arrays) C-contiguous, of x's float dtype: those
    in ``columns`` vectors of C elements, those in ``full`` of x's shape. (The loops index them
    so, without bounds checks: a (1, C, 1) running mean would be written past its end.)"""
    return (
        cpu_jit.available()  # first: where the loops are off, nothing else is looked at
        and type(x) is np.ndarray
        and x.dtype in _FLOATS
        and x.ndim == 2
        and x.shape[0] > 1
        and x.flags.c_contiguous
        and all(_laid_out(o, x, (x.shape[1],)) for o in columns)
        and all(_laid_out(o, x, x.shape) for o in full)
    )


def _laid_out(o: np.ndarray | None, x: np.ndarray, shape: tuple) -> bool:
    """o is None, or a C-contiguous NumPy array of x's dtype and this shape."""
    if o is None:
        return True
    return (
        type(o) is np.ndarray and o.dtype == x.dtype and o.shape == shape and o.flags.c_contiguous
    )


@cpu_jit.cpu_kernel()
def _forward_loop(
    x, w, b, rm, rv, momentum, eps, has_w, has_b, track, y, xhat, r
):  # pragma: no cover
    n, c = x.shape
    mu = np.zeros(c, np.float64)
    var = np.zeros(c, np.float64)
    for i in range(n):
        for j in range(c):
            mu[j] += x[i, j]
    mu /= n
    for i in range(n):
        for j in range(c):
            d = x[i, j] - mu[j]
            var[j] += d * d
    var /= n
    if track:
        for j in range(c):
            rm[j] = (1.0 - momentum) * rm[j] + momentum * mu[j]
            rv[j] = (1.0 - momentum) * rv[j] + momentum * (var[j] * n / (n - 1))
    rr = 1.0 / np.sqrt(var + eps)
    scale = rr * w if has_w else rr
    shift = b.astype(np.float64) if has_b else np.zeros(c, np.float64)
    for j in range(c):
        r[j] = rr[j]
    for i in range(n):
        for j in range(c):
            d = x[i, j] - mu[j]
            xhat[i, j] = d * rr[j]
            y[i, j] = d * scale[j] + shift[j]


def forward(x, w, b, running, eps: float) -> tuple | None:
    """(y, xhat, r) of BatchNormRows.forward (see the module docstring), the running averages
    moved in place where ``running`` = (running_mean, running_var, momentum) is given; None
    where the loop does not apply."""
    rm, rv, momentum = running if running is not None else (None, None, 0.0)
    if not _fits(x, (w, b, rm, rv)):
        return None
    y, xhat, r = np.empty_like(x), np.empty_like(x), np.empty(x.shape[1], x.dtype)
    dummy = r  # (an array of the dtype for the parameters that are None; never read)
    _forward_loop(
        x,
        dummy if w is None else w,
        dummy if b is None else b,
        dummy if rm is None else rm,
        dummy if rv is None else rv,
        float(momentum),
        float(eps),
        w is not None,
        b is not None,
        running is not None,
        y,
        xhat,
        r,
    )
    return y, xhat, r


@cpu_jit.cpu_kernel()
def _backward_loop(g, xhat, r, w, has_w, want_gx, gx, g_w, g_b):  # pragma: no cover
    n, c = g.shape
    sb = np.zeros(c, np.float64)
    sw = np.zeros(c, np.float64)
    for i in range(n):
        for j in range(c):
            gij = np.float64(g[i, j])
            sb[j] += gij
            sw[j] += gij * xhat[i, j]
    for j in range(c):
        g_b[j] = sb[j]
        g_w[j] = sw[j]
    if not want_gx:
        return
    scale = r.astype(np.float64) * w if has_w else r.astype(np.float64)
    mean_b, mean_w = sb / n, sw / n
    for i in range(n):
        for j in range(c):
            gx[i, j] = scale[j] * (g[i, j] - mean_b[j] - xhat[i, j] * mean_w[j])


def backward(ctx, w, gy, wants: list) -> tuple | None:
    """BatchNormRows.backward's arrays (dL/dx, dL/dw, dL/db; None where not wanted) for dL/dy
    ``gy`` (a tensor; ``w`` a tensor or None; ``ctx`` holds forward's xhat and r), in g's
    dtype; None where the loop does not apply."""
    g, w = gy._data, None if w is None else w._data
    if not _fits(g, (ctx.r, w), (ctx.xhat,)):
        return None
    c = g.shape[1]
    g_w, g_b = np.empty(c, g.dtype), np.empty(c, g.dtype)
    gx = np.empty_like(g) if wants[0] else g[:0]
    _backward_loop(g, ctx.xhat, ctx.r, ctx.r if w is None else w, w is not None, wants[0], gx,
                   g_w, g_b)  # fmt: skip
    return (gx if wants[0] else None), (g_w if wants[1] else None), (g_b if wants[2] else None)
