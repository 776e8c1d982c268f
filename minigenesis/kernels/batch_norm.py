"""BatchNorm's training step on the CPU: a few channels at a time, each block's passes in the cache.

``ops/normalization.py``'s Normalize computes BatchNorm over the axes (0, 2, 3, ...) of an
(N, C, *) array with NumPy reductions over those axes and one new array per step of the formula.
Both are slow in NumPy: a reduction over non-adjacent axes walks the array in short strided runs
(0.24 ms for a 32x16x32x32 float32 conv output, against 0.04 ms for a dot product of the same
data laid out as rows), and every pass over a 2 MB array goes to memory (0.15 ms), where the
same pass over a block that sits in the cache costs a fraction of that.

So x is taken channels first, xc = x.transpose(1, 0, ...) (C, N, S) whatever its memory layout
(the convolutions' outputs are (C, N, H, W) arrays, or views of a larger grid), a block of whole
channels at a time (about 512 KiB): copied into a contiguous buffer where it is not one already,
it is a matrix of rows, one row per (channel, sample) over the S positions:

- statistics: each row's sum is a matrix-vector product with a vector of ones, then x - mu
  into a second buffer and each row's sum of squares a ``vecdot`` (no temporary); the per-row
  sums are added per channel in float64, so a sum over N*S elements rounds like one over S,
  and the variance is taken about the mean (E[x^2] - mu^2 would lose every digit of a large
  mean). x is read once.
- y = (x - mu) * (r w) + b, computed as PyTorch's CPU kernel does, x alpha + beta with alpha
  = r w and beta = b - mu alpha per channel: the product writes the block of y, the sum updates
  it while it is in the cache: x read once, y written once. (Rounding: x alpha carries an error
  of about eps |mu| alpha, which is PyTorch's too.)
- backward: g and d = x - mu for the block, sum g and sum g d per channel, and then at once
  (the block holds whole channels, so its coefficients are known) dL/dx = a g - a mean(g) -
  d a r^2 mean(g d) with a = r w, as in-cache passes over the two buffers and one write of
  the block of dL/dx: x and g read once, dL/dx written once (was 9 passes over memory).

y and dL/dx come out channels first (C, N, S) in memory, as the convolutions take them. The
same closed form as the op's own code, in another order of operations: float rounding apart,
the same numbers. Measured on 32 x 16 x 32 x 32 float32, one core, x a view of a convolution's
(C, N, 33, 33) grid as ResNet's are: statistics 0.63 -> 0.34 ms, y 0.57 -> 0.38, backward 1.33 ->
0.84 against the whole-array passes this replaced (blocks of 64 KiB: 0.47 / 0.41 / 0.96, Python's
calls per block; 1 MiB: 0.40 / 0.37 / 1.03, out of the cache).
"""

from __future__ import annotations

import math

import numpy as np

from . import batch_norm_loops, cpu_jit

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


# Rows shorter than this (BatchNorm1d's (N, C) input has rows of 1) make the row products and the
# per-row columns cost more than NumPy's reductions over axis 0 (measured: 124 against 67 us for
# the forward of a 32 x 200 BatchNorm1d); such inputs keep the op's own code.
MIN_ROW = 16
_BLOCK_BYTES = 2**19  # a block of whole channels, ~512 KiB: it and its buffers stay in L2


def _applies(x, axes: tuple, *others) -> bool:
    """BatchNorm's axes over a non-empty float32/float64 NumPy array (others of its dtype or
    None). The compiled loops take any such array they can lay out; the NumPy passes below
    take it only where its rows are long (``_long_rows``)."""
    return (
        type(x) is np.ndarray
        and x.dtype in _FLOATS
        and x.ndim >= 3
        and axes == (0, *range(2, x.ndim))
        and x.size > 0
        and all(o is None or (type(o) is np.ndarray and o.dtype == x.dtype) for o in others)
    )


def _long_rows(x: np.ndarray) -> bool:
    """x's spatial size is at least MIN_ROW (where the row products pay)."""
    return x.size >= MIN_ROW * x.shape[0] * x.shape[1]


def _channels_first(a: np.ndarray) -> np.ndarray:
    """(N, C, *) -> its (C, N, *) view."""
    return a.transpose(1, 0, *range(2, a.ndim))


def _blocks(shape: tuple, itemsize: int):
    """Slices of whole channels, about _BLOCK_BYTES each."""
    c, per_channel = shape[1], itemsize * (math.prod(shape) // shape[1])
    k = max(1, min(c, _BLOCK_BYTES // per_channel))
    return [slice(c0, min(c0 + k, c)) for c0 in range(0, c, k)]


def _rows(block: np.ndarray, buffer: np.ndarray) -> np.ndarray:
    """A (k, N, *) block as a (k*N, S) matrix of rows: a view where it is contiguous, else its
    copy into ``buffer``."""
    k, n = block.shape[:2]
    if not block.flags.c_contiguous:
        out = buffer[: block.size].reshape(block.shape)
        np.copyto(out, block)
        block = out
    return block.reshape(k * n, -1)


def _per_channel(row_values: np.ndarray, k: int) -> np.ndarray:
    """Per-row sums of a block of k channels -> per-channel sums (float64, length k)."""
    return row_values.reshape(k, -1).sum(axis=1, dtype=np.float64)


def stats(x, axes: tuple) -> tuple | None:
    """(mu, var) of x over BatchNorm's ``axes``, keepdims (biased var), or None where this path
    does not apply."""
    if not _applies(x, axes):
        return None
    keep = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    if cpu_jit.available() and (loops := batch_norm_loops.stats(x)) is not None:
        return tuple(s.astype(x.dtype).reshape(keep) for s in loops)
    if not _long_rows(x):
        return None
    c, xc = x.shape[1], _channels_first(x)
    count = x.size // c
    mu, var = np.empty(c, np.float64), np.empty(c, np.float64)
    blocks = _blocks(x.shape, x.itemsize)
    size = (blocks[0].stop - blocks[0].start) * count
    buf, d = np.empty(size, x.dtype), np.empty(size, x.dtype)
    ones = np.ones(math.prod(x.shape[2:]), x.dtype)
    for ch in blocks:
        k = ch.stop - ch.start
        rows = _rows(xc[ch], buf)
        mu[ch] = _per_channel(rows @ ones, k) / count
        dr = d[: rows.size].reshape(rows.shape)
        np.subtract(rows.reshape(k, -1), mu[ch, None].astype(x.dtype), out=dr.reshape(k, -1))
        var[ch] = _per_channel(np.vecdot(dr, dr), k) / count
    return mu.astype(x.dtype).reshape(keep), var.astype(x.dtype).reshape(keep)


def _empty_channels_first(shape: tuple, dtype) -> np.ndarray:
    """A new (N, C, *) array laid out (C, N, *) in memory."""
    return _channels_first(np.empty((shape[1], shape[0], *shape[2:]), dtype))


def forward(x, w, b, mu, var, eps: float, axes: tuple):
    """(y, r): y = (x - mu) r w + b with r = 1 / sqrt(var + eps), the statistics given
    (keepdims, per channel), computed as x alpha + beta (alpha = r w, beta = b - mu alpha, as
    PyTorch's CPU kernel does); None where this path does not apply."""
    if not _applies(x, axes, w, b, mu, var):
        return None
    if cpu_jit.available() and (loops := _forward_loops(x, w, b, mu, var, eps)):
        return loops
    if not _long_rows(x):
        return None
    c = x.shape[1]
    r = 1.0 / np.sqrt(var + eps)
    per_channel = (c, *(1,) * (x.ndim - 1))
    scale = (r if w is None else r * w).reshape(per_channel)
    shift = None if b is None else b.reshape(per_channel)
    mu_c = mu.reshape(per_channel)
    beta = -mu_c * scale if shift is None else shift - mu_c * scale
    if x.flags.c_contiguous:
        # y in x's layout (PyTorch's BatchNorm keeps a contiguous input's layout, so
        # y.view(n, -1) works), over the whole array: x's rows of S values are contiguous
        # already, and the blocks below would walk them channel by channel across samples
        # (measured, 32 x 16 x 32 x 32 float32: 1.16 ms in blocks, 0.46 ms whole). Two passes,
        # as PyTorch's CPU kernel computes it: y = x alpha + beta, alpha = r w, beta = b - mu
        # alpha (0.62 -> 0.48 ms against (x - mu) r w + b's three on 32 x 16 x 32 x 32).
        # alpha and beta are repeated into rows of C*S, one value per element of a sample, so
        # that the passes run over N long rows (NumPy's broadcast of a (1, C, 1, 1) factor runs
        # its inner loop once per row of S): the same products and sums, measured on float32
        # (ms, one core) 32 x 16 x 32 x 32 0.44 -> 0.30, 32 x 32 x 16 x 16 0.18 -> 0.09.
        per_sample = x.size // x.shape[0]
        s = per_sample // c
        y = np.multiply(x.reshape(-1, per_sample), np.repeat(scale.reshape(c), s))
        y += np.repeat(beta.reshape(c), s)
        return y.reshape(x.shape), r
    y = _empty_channels_first(x.shape, x.dtype)  # channels first, as the convolutions' grids
    xc, yc = _channels_first(x), _channels_first(y)
    for ch in _blocks(x.shape, x.itemsize):
        out = yc[ch]  # a view: the passes write y in place
        np.multiply(xc[ch], scale[ch], out=out)
        out += beta[ch]
    return y, r


def _forward_loops(x, w, b, mu, var, eps: float) -> tuple | None:
    """forward's (y, r) by the compiled loop (batch_norm_loops.forward), y in the layout the
    NumPy passes give it; None where the loop does not apply. alpha = r w and beta = b are taken
    in float64, and y = (x - mu) alpha + beta rounded once."""
    c = x.shape[1]
    r = 1.0 / np.sqrt(var.reshape(c).astype(np.float64) + eps)
    alpha = r if w is None else r * w.reshape(c)
    beta = np.zeros(c) if b is None else b.reshape(c).astype(np.float64)
    y = np.empty_like(x) if x.flags.c_contiguous else _empty_channels_first(x.shape, x.dtype)
    mu64 = mu.reshape(c).astype(np.float64)
    if not batch_norm_loops.forward(x, y, mu64, alpha, beta):
        return None
    return y, r.astype(x.dtype).reshape(var.shape)


def _backward_loops(x, w, gy, mu, r, needs) -> tuple | None:
    """backward's (gx, gw, gb) by the compiled loops (batch_norm_loops.backward); None where
    they do not apply."""
    shape, c, dtype = x.shape, x.shape[1], x.dtype
    keep = (1, c) + (1,) * (x.ndim - 2)
    rv = r.reshape(c).astype(np.float64)
    a = rv if w is None else rv * w.reshape(c)
    gx = _empty_channels_first(shape, dtype) if needs[0] else None
    sums = batch_norm_loops.backward(x, gy, gx, mu.reshape(c).astype(np.float64), a, rv * rv)
    if sums is None:
        return None
    sum_g, sum_gd = sums
    gw = (sum_gd * rv).astype(dtype).reshape(keep) if needs[1] else None
    gb = sum_g.astype(dtype).reshape(keep) if needs[2] else None
    return gx, gw, gb


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
    if cpu_jit.available() and (loops := _backward_loops(x, w, gy, mu, r, needs)):
        return loops
    if not _long_rows(x):
        return None
    shape, c, dtype = x.shape, x.shape[1], x.dtype
    count = x.size // c
    keep = (1, c) + (1,) * (x.ndim - 2)
    rv = r.reshape(c).astype(np.float64)
    a = rv if w is None else rv * w.reshape(c)
    sum_g, sum_gd = np.empty(c, np.float64), np.empty(c, np.float64)
    xc, gc = _channels_first(x), _channels_first(gy)
    gx = _empty_channels_first(shape, dtype) if needs[0] else None
    blocks = _blocks(shape, x.itemsize)
    # g and d = x - mu of a block side by side, (k, 2, N*S): each channel's pair is the (2, N*S)
    # right factor of one small product (see below)
    pairs = np.empty((blocks[0].stop - blocks[0].start, 2, count), dtype)
    ones = np.ones(math.prod(shape[2:]), dtype)
    mu_c = mu.reshape(c, *(1,) * (x.ndim - 1))
    for ch in blocks:
        k = ch.stop - ch.start
        pair = pairs[:k]
        g_rows = pair[:, 0].reshape(k, shape[0], -1)  # (k, N, S) views of the buffer's rows
        d_rows = pair[:, 1].reshape(k, shape[0], -1)
        np.copyto(g_rows.reshape(gc[ch].shape), gc[ch])
        np.subtract(xc[ch], mu_c[ch], out=d_rows.reshape(gc[ch].shape))
        sum_g[ch] = (g_rows @ ones).sum(axis=1, dtype=np.float64)
        sum_gd[ch] = np.vecdot(g_rows, d_rows).sum(axis=1, dtype=np.float64)
        if gx is None:
            continue
        # dL/dx = a g - a mean(g) - d a r^2 mean(g d), per channel of the block, in the cache:
        # [a, -a r^2 mean(g d)] @ [g; d] per channel, one batched product, then - a mean(g):
        # two passes instead of four per-channel scales and adds (in the cache, 32 x 64 x 8 x 8
        # float32: 0.07 against 0.17 ms; the whole backward 0.42 -> 0.39 ms, 32 x 16 x 32 x 32
        # 0.95 -> 0.89). The float rounding differs by an ulp where BLAS fuses a multiply-add.
        ak = a[ch]
        coef = np.stack([ak, -ak * rv[ch] ** 2 * sum_gd[ch] / count], axis=1).astype(dtype)
        out = _channels_first(gx)[ch].reshape(k, 1, count)
        np.matmul(coef[:, None, :], pair, out=out)
        out -= (ak * sum_g[ch] / count).astype(dtype)[:, None, None]
    gw = (sum_gd * rv).astype(dtype).reshape(keep) if needs[1] else None
    gb = sum_g.astype(dtype).reshape(keep) if needs[2] else None
    return gx, gw, gb
