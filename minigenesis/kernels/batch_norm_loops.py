"""BatchNorm2d/3d's training step as compiled loops (Numba, ``cpu_jit``): x read once per pass.

``batch_norm.py`` runs BatchNorm over an (N, C, *) array as NumPy passes over blocks of whole
channels: the statistics, y and the gradient are about 2 + 2 + 6 array passes, each a call. Here
each is one loop over every channel c, reading x (and dL/dy) where they lie in memory, through
their strides, so no layout is copied first:

- ``stats``: per channel, sum x, then sum (x - mu)^2 (the variance about the mean: E[x^2] -
  mu^2 would lose every digit of a large mean). A channel of the ResNet's layers is 8-128 KiB,
  so the second pass reads it from L2: one pass over memory, where NumPy took three.
- ``forward``: y = (x - mu) alpha + b with alpha = r w, one pass that reads x and writes y.
- ``backward``: per channel, sum g and sum g (x - mu) in one pass over g and x, then, the
  channel's coefficients known, dL/dx = a g - a mean(g) - (x - mu) a r^2 mean(g (x - mu)) with a
  = r w in a second pass over the same channel (from L2): g and x read once from memory and
  dL/dx written once, where NumPy made about nine passes.

Every sum is taken in float64 and every element's formula evaluated in float64 and rounded once
to x's dtype: for float32 input at least as close to float64 as the NumPy passes (float32
products, a float32 sum per row); for float64 input the same precision, summed in another order.
Without fastmath, LLVM does not reorder a sum, so a loop that adds into one scalar runs at one
add per add's latency; the sums here go into a vector of partial sums, one per position of
an inner run (``acc[l] += x[.., l]``), whose lanes are independent, so the loop vectorises as it
is, and the partial sums are added at the channel's end.

An array enters as a flat 1-D view starting at its first element plus its strides (in elements)
for (channel, sample, outer spatial run); its innermost spatial run must be contiguous (stride 1),
which the NCHW arrays, the channels-first convolution outputs and the views of their padded grids
all are. A channels-last input (stride C along W, runs of one element) returns None: the NumPy
passes serve it.
"""

from __future__ import annotations

import math

import numpy as np

from . import cpu_jit

# No size guard: the loops pay from the smallest arrays on (one call each, where the NumPy passes
# are ~6-10 calls): statistics, y and gradient of 2 x 4 x 4 x 4 float32 35.6 against 77.7 us,
# 16 x 16 x 16 x 16 135 against 299 us (one core, process time, on a loaded machine).
MIN_RUN = 4  # the shortest contiguous spatial run the loops take


def _split(shape: tuple, strides: tuple, p: int) -> tuple[int, int, int] | None:
    """(R, L, stride of R) for the spatial dims ``shape`` / ``strides`` (in elements) cut at
    ``p``: dims[p:] a contiguous run of L elements, dims[:p] R runs at one stride apart; None
    where that cut does not describe the array."""
    run = 1
    for size, stride in zip(shape[p:][::-1], strides[p:][::-1]):
        if size != 1 and stride != run:
            return None
        run *= size
    outer, outer_stride = 1, 0
    for size, stride in zip(shape[:p][::-1], strides[:p][::-1]):
        if size == 1:
            continue
        if outer == 1:
            outer_stride = stride
        elif stride != outer_stride * outer:
            return None
        outer *= size
    return outer, run, outer_stride


def _channel_sample(a: np.ndarray) -> tuple[int, int]:
    """a's channel and sample strides in elements."""
    return a.strides[1] // a.itemsize, a.strides[0] // a.itemsize


def _flat(a: np.ndarray, strides: tuple) -> np.ndarray:
    """A 1-D contiguous view of a's memory from its first element on (strides in elements)."""
    if a.flags.c_contiguous:
        return a.reshape(-1)
    if (cf := a.swapaxes(0, 1)).flags.c_contiguous:  # channels first: the same first element
        return cf.reshape(-1)
    strides = strides or tuple(s // a.itemsize for s in a.strides)
    span = 1 + sum((n - 1) * s for n, s in zip(a.shape, strides))
    return np.lib.stride_tricks.as_strided(a, shape=(span,), strides=(a.itemsize,))


def _layout(*arrays: np.ndarray) -> tuple | None:
    """The common (R, L) cut of the (N, C, *) arrays' spatial dims and, per array, its flat view
    and (channel, sample, run) strides in elements; None where no cut fits them all."""
    for a in arrays:  # (a flat view runs forward from the first element)
        if any(s < 0 or s % a.itemsize for s in a.strides) or a.shape != arrays[0].shape:
            return None  # (nor are they indexed past the first array's shape)
    if all(a[0, 0].flags.c_contiguous for a in arrays):  # (the usual case: no cut, one run)
        run = math.prod(arrays[0].shape[2:])
        return 1, run, [(_flat(a, ()), *_channel_sample(a), 0) for a in arrays]
    shape = arrays[0].shape[2:]
    element_strides = [tuple(s // a.itemsize for s in a.strides) for a in arrays]
    for p in range(len(shape) + 1):  # the longest contiguous run first
        cuts = [_split(shape, st[2:], p) for st in element_strides]
        if all(cut is not None for cut in cuts):
            break
    else:
        return None
    r, run = cuts[0][0], cuts[0][1]
    if run < MIN_RUN and r > 1:  # (channels last: a run of one element, no loop to vectorise)
        return None
    views = [
        (_flat(a, st), st[1], st[0], cut[2]) for a, st, cut in zip(arrays, element_strides, cuts)
    ]
    return r, run, views


@cpu_jit.cpu_kernel()
def _stats_loop(x, sc, sn, sr, c_count, n_count, r_count, run, mean, var):  # pragma: no cover
    acc = np.empty(run, np.float64)
    count = n_count * r_count * run
    for c in range(c_count):
        acc[:] = 0.0
        for n in range(n_count):
            for r in range(r_count):
                base = c * sc + n * sn + r * sr
                xs = x[base : base + run]
                for i in range(run):
                    acc[i] += xs[i]
        mu = acc.sum() / count
        acc[:] = 0.0
        for n in range(n_count):
            for r in range(r_count):
                base = c * sc + n * sn + r * sr
                xs = x[base : base + run]
                for i in range(run):
                    d = xs[i] - mu
                    acc[i] += d * d
        mean[c] = mu
        var[c] = acc.sum() / count


def stats(x: np.ndarray) -> tuple | None:
    """(mu, var) per channel of an (N, C, *) float array (float64 vectors, the variance biased),
    or None where the loops do not apply (Numba absent or off, a layout without a contiguous
    inner run)."""
    if not cpu_jit.available() or (lay := _layout(x)) is None:
        return None
    r, run, ((flat, sc, sn, sr),) = lay
    c = x.shape[1]
    mean, var = np.empty(c, np.float64), np.empty(c, np.float64)
    _stats_loop(flat, sc, sn, sr, c, x.shape[0], r, run, mean, var)
    return mean, var


@cpu_jit.cpu_kernel()
def _affine_loop(x, xs, y, ys, c_count, n_count, r_count, run, mu, alpha, beta):  # pragma: no cover
    for c in range(c_count):
        m, a, b = mu[c], alpha[c], beta[c]
        for n in range(n_count):
            for r in range(r_count):
                xb = c * xs[0] + n * xs[1] + r * xs[2]
                yb = c * ys[0] + n * ys[1] + r * ys[2]
                xr, yr = x[xb : xb + run], y[yb : yb + run]
                for i in range(run):
                    yr[i] = (xr[i] - m) * a + b


def forward(x: np.ndarray, y: np.ndarray, mu, alpha, beta) -> bool:
    """y = (x - mu) alpha + beta per channel (float64 vectors), written into ``y`` (N, C, *) in
    its own layout; False where the loops do not apply."""
    if not cpu_jit.available() or (lay := _layout(x, y)) is None:
        return False
    r, run, ((xf, xc, xn, xr), (yf, yc, yn, yr)) = lay
    _affine_loop(xf, (xc, xn, xr), yf, (yc, yn, yr), x.shape[1], x.shape[0], r, run, mu, alpha,
                 beta)  # fmt: skip
    return True


@cpu_jit.cpu_kernel()
def _backward_loop(
    x, xs, g, gs, gx, gxs, c_count, n_count, r_count, run, mu, a, r2, sum_g, sum_gd
):  # pragma: no cover
    acc_g = np.empty(run, np.float64)
    acc_gd = np.empty(run, np.float64)
    count = n_count * r_count * run
    for c in range(c_count):
        m = mu[c]
        acc_g[:] = 0.0
        acc_gd[:] = 0.0
        for n in range(n_count):
            for r in range(r_count):
                xb = c * xs[0] + n * xs[1] + r * xs[2]
                gb = c * gs[0] + n * gs[1] + r * gs[2]
                xr, gr = x[xb : xb + run], g[gb : gb + run]
                for i in range(run):
                    gi = np.float64(gr[i])
                    acc_g[i] += gi
                    acc_gd[i] += gi * (xr[i] - m)
        sg, sgd = acc_g.sum(), acc_gd.sum()
        sum_g[c], sum_gd[c] = sg, sgd
        if gx.size == 0:  # (no input gradient wanted)
            continue
        k_g = a[c]
        k_d = a[c] * r2[c] * sgd / count
        k_0 = a[c] * sg / count
        for n in range(n_count):
            for r in range(r_count):
                xb = c * xs[0] + n * xs[1] + r * xs[2]
                gb = c * gs[0] + n * gs[1] + r * gs[2]
                ob = c * gxs[0] + n * gxs[1] + r * gxs[2]
                xr, gr, outr = x[xb : xb + run], g[gb : gb + run], gx[ob : ob + run]
                for i in range(run):
                    outr[i] = k_g * gr[i] - k_d * (xr[i] - m) - k_0


def backward(x: np.ndarray, g: np.ndarray, gx: np.ndarray | None, mu, a, r2) -> tuple | None:
    """(sum g, sum g (x - mu)) per channel (float64 vectors) and, where ``gx`` is given (an
    (N, C, *) array), dL/dx = a g - a mean(g) - (x - mu) a r2 mean(g (x - mu)) written into it;
    None where the loops do not apply. ``mu``, ``a`` = r w and ``r2`` = r^2 are float64 vectors."""
    arrays = (x, g) if gx is None else (x, g, gx)
    if not cpu_jit.available() or (lay := _layout(*arrays)) is None:
        return None
    r, run, views = lay
    (xf, xc, xn, xr), (gf, gc, gn, gr) = views[:2]
    if gx is None:
        of, out_strides = np.empty(0, x.dtype), (0, 0, 0)
    else:
        of, oc, on, orr = views[2]
        out_strides = (oc, on, orr)
    c = x.shape[1]
    sum_g, sum_gd = np.empty(c, np.float64), np.empty(c, np.float64)
    _backward_loop(xf, (xc, xn, xr), gf, (gc, gn, gr), of, out_strides, c, x.shape[0], r, run,
                   mu, a, r2, sum_g, sum_gd)  # fmt: skip
    return sum_g, sum_gd
