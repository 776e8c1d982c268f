"""Normalisation as one fused op: LayerNorm, RMSNorm and BatchNorm's training step share it.

Over the reduced ``axes`` (N elements per group):

    mu   = mean(x)                      (0 for RMSNorm: ``center=False``)
    r    = 1 / sqrt(mean((x - mu)^2) + eps)
    xhat = (x - mu) * r
    y    = xhat * w + b

Written with separate ops, backward would keep five intermediate arrays alive; fused, it keeps
x and the per-group statistics (mu, r) and uses the closed form

    g    = dL/dy * w
    dL/dx = r * (g - mean(g) - xhat * mean(g * xhat))     (drop mean(g) when center=False)
    dL/dw = dL/dy * xhat,    dL/db = dL/dy                 (the engine sums them to w's shape)

Float16/bfloat16 inputs are normalised in float32 and rounded once at the end, as PyTorch does.

On the GPU (float16/32/64) the op runs as a few fused kernels (kernels/normalization.py): LayerNorm,
RMSNorm and GroupNorm take 3 launches forward and 5 backward instead of 12 and 15 array operations;
BatchNorm and InstanceNorm 2 for the statistics, 2 forward and 5 backward instead of 4, 7 and 13.
"""

from __future__ import annotations

import math

import numpy as np
from numpy import ndarray

from .. import kernels
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module, quiet_fp


def _wide(x):
    """2-byte floats are computed in float32; float32/float64 as they are."""
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
        return x.astype(get_array_module(x).float32)
    return x


@quiet_fp
def normalize_stats(x, axes: tuple, center: bool):
    """(mu, var) over ``axes``, keepdims, in at least float32 (mu is 0.0 when not centering)."""
    if type(x) is not ndarray and (fast := kernels.normalization.stats(x, axes, center)):
        return fast
    if center and (fast := kernels.batch_norm.stats(x, axes)) and _finite(fast[1]):
        return fast  # BatchNorm's axes, on the CPU
    xw = _wide(x)
    if center:
        mu = xw.mean(axis=axes, keepdims=True)
        d = xw - mu
        var = (d * d).mean(axis=axes, keepdims=True)
        if xw.dtype == get_array_module(x).float32 and not _finite(var):
            # float32 overflowed (|x| ~ 1e19 and beyond: the squares, or the sum near 1e38):
            # both again in float64, where they fit; Normalize then computes y from them in
            # float64 and rounds once, where float32 statistics would give 0 * inf = NaN
            mu = xw.mean(axis=axes, keepdims=True, dtype=np.float64)
            d = xw - mu
            var = (d * d).mean(axis=axes, keepdims=True)
        return mu, var
    return 0.0, (xw * xw).mean(axis=axes, keepdims=True)


def _fits_float32(r, n: int) -> bool:
    """Whether float32 held a row normalisation whose per-row 1 / std is ``r``: every
    |x - mu| <= sqrt(n) std = sqrt(n) / r (the row's sum of squares holds each square), so
    r > sqrt(n) / 3.4e38 keeps x - mu finite, and r above float32's smallest normal keeps r's
    24 bits (a NaN or an overflowed var, r = 0, fails too). One pass over r, one per row."""
    f32 = np.finfo(np.float32)
    return bool(r.min() > max(float(f32.tiny), math.sqrt(n) / float(f32.max)))


def _finite(a) -> bool:
    """Every element finite (a vector of statistics: one cheap pass)."""
    return bool(get_array_module(a).isfinite(a).all())


class Normalize(Op):
    """y = (x - mu) / sqrt(var + eps) * w + b over ``axes`` (see the module docstring).

    ``w``/``b`` are None or already broadcastable to x. ``stats=(mu, var)`` passes statistics that
    the caller computed (BatchNorm, which also needs them for its running averages).

    Keeps only x and the per-group mu and r; backward recomputes x - mu from them. When
    ``axes`` are x's last dims (LayerNorm, RMSNorm, GroupNorm) x is a (groups, N) matrix and
    every sum is a matrix-vector product (see _row_mean) or, for the sums of squares, an einsum
    (no temporary): forward makes 4 passes over x, backward 7 passes and 5 products. Other axes
    (BatchNorm) take NumPy reductions. On the GPU both cases run as fused kernels
    (kernels/normalization.py)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, w, b, axes, eps, center, stats):
        n = math.prod(x.shape[a] for a in axes)
        ctx.rows = stats is None and axes == tuple(range(x.ndim - len(axes), x.ndim)) and x.size > 0
        ctx.axes, ctx.eps, ctx.center, ctx.n = axes, eps, center, n
        ctx.save_for_backward(x, w)
        # the cases the GPU kernels serve: per-row statistics, or given ones (eps a C constant)
        ctx.fusable = (ctx.rows or stats is not None) and math.isfinite(eps)
        if type(x) is not ndarray and (fast := kernels.normalization.forward(ctx, x, w, b, stats)):
            y, ctx.mu, ctx.r = fast  # the same, as GPU kernels
            return y
        if stats is not None and (fast := kernels.batch_norm.forward(x, w, b, *stats, eps, axes)):
            (y, ctx.r), ctx.mu = fast, stats[0]  # the same on the CPU, fewer passes
            return y
        xp = get_array_module(x)
        xw = _wide(x)
        if ctx.rows:
            y, ctx.mu, ctx.r = _forward_rows(xw, w, b, axes, eps, center)
            if xw.dtype == np.float32 and not _fits_float32(ctx.r, n):
                # float32 overflowed: the sum of squares (|x| from ~1e19: var = inf, r = 0 and
                # y = 0) or x - mu (y = inf) passed 3.4e38. Retaken in float64, where they fit,
                # and rounded once; backward then works in float64 too (r's dtype).
                y, ctx.mu, ctx.r = _forward_rows(xw.astype(np.float64), w, b, axes, eps, center)
            return y.reshape(x.shape).astype(x.dtype, copy=False)
        if stats is not None:
            mu, var = stats
            y = xw - mu
        elif center:
            mu = xw.mean(axis=axes, keepdims=True)
            y = xw - mu
            var = (y * y).mean(axis=axes, keepdims=True)
        else:
            mu, var = 0.0, (xw * xw).mean(axis=axes, keepdims=True)
            y = xw.copy()
        r = 1.0 / xp.sqrt(var + eps)
        y *= r
        if w is not None:
            y *= w
        if b is not None:
            y += b
        ctx.mu, ctx.r = mu, r
        return y.astype(x.dtype, copy=False)

    @staticmethod
    @quiet_fp
    def backward(ctx, gy):
        if is_grad_enabled():  # create_graph=True: a graph of Tensor ops, see _backward_graph
            return _backward_graph(ctx, gy) + (None, None, None, None)
        if type(gy._data) is not ndarray and (fast := kernels.normalization.backward(ctx, gy)):
            return fast + (None,) * 4
        x, w = ctx.saved_tensors
        T = type(x)
        retaken = ctx.rows and ctx.r.dtype != _wide(x._data).dtype  # forward's float64 retake
        if ctx.rows and not retaken and (fast := kernels.layer_norm.backward(ctx, x, w, gy)):
            return tuple(None if a is None else T._make(a) for a in fast) + (None,) * 4
        if ctx.rows:
            return _backward_rows(ctx, gy) + (None,) * 4
        if fast := kernels.batch_norm.backward(ctx, x, w, gy):  # BatchNorm's, on the CPU
            return tuple(None if a is None else T._make(a) for a in fast) + (None,) * 4
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        xw, g_y = _wide(x._data), _wide(gy._data)
        xhat = xw - ctx.mu
        xhat *= ctx.r
        gx = gw = gb = None
        if need_w:  # (in xw's dtype: xhat is float64 after float64 statistics)
            gw = (g_y * xhat).astype(xw.dtype, copy=False)  # the engine sums it to w's shape
        if need_b:
            gb = g_y  # widened: a float32 bias sums a bfloat16 gradient in float32
        if need_x:
            g = g_y * w._data if w is not None else g_y.copy()
            xhat *= (g * xhat).mean(axis=ctx.axes, keepdims=True)
            if ctx.center:
                xhat += g.mean(axis=ctx.axes, keepdims=True)
            g -= xhat
            g *= ctx.r
            gx = g.astype(x._data.dtype, copy=False)
        return tuple(None if a is None else T._make(a) for a in (gx, gw, gb)) + (None,) * 4


@quiet_fp
def _forward_rows(xw, w, b, axes: tuple, eps: float, center: bool) -> tuple:
    """(y as (groups, n) rows, mu per row or 0.0, r per row) for xw (float32/float64, non-empty)
    normalised over its last dims ``axes``: x as (groups, n), statistics per row, as vectors."""
    if fast := kernels.layer_norm.forward(xw, w, b, axes, eps, center):
        y, mu, r = fast  # the same on the CPU, fewer passes (BLAS outer products)
        return y, mu, r
    xp = get_array_module(xw)
    n = math.prod(xw.shape[a] for a in axes)
    y = xw.reshape(-1, n)
    mu, y = _centered_rows(y, n) if center else (0.0, y.copy())
    var = xp.einsum("ij,ij->i", y, y) / n  # (no y * y temporary)
    r = 1.0 / xp.sqrt(var + eps)
    y *= r[:, None]
    y = y.reshape(xw.shape)
    if w is not None:
        y *= w
    if b is not None:
        y += b
    return y, mu, r


@quiet_fp
def _backward_rows(ctx, gy) -> tuple:
    """Normalize's gradients (gx, gw, gb) when x is (groups, n) rows: the module docstring's
    closed form, with mean(g) = g_y . w / n and mean(g xhat) = (g_y xhat) . w / n per row, and
    dL/dw, dL/db the column sums of g_y xhat and g_y, all as matrix-vector products."""
    x, w = ctx.saved_tensors
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    n, r = ctx.n, ctx.r[:, None]
    xp = get_array_module(x._data)
    # in r's dtype: float64 where forward retook an overflowing float32 input in float64
    g_y = _wide(gy._data).reshape(-1, n).astype(r.dtype, copy=False)
    d = _wide(x._data).reshape(-1, n).astype(r.dtype, copy=False)
    d = (d - ctx.mu[:, None]) if ctx.center else d.copy()  # x - mu; xhat = d r, not formed:
    gy_d = g_y * d  # r is a per-row factor, so it joins the products below instead of a pass
    shape = x.shape[x.ndim - len(ctx.axes) :]  # the engine sums it on to w's / b's own shape
    wide = _wide(x._data).dtype  # the gradients' dtype, float32 after a float64 retake too
    gw = (ctx.r @ gy_d).reshape(shape).astype(wide, copy=False) if need_w else None
    gb = _column_sum(g_y).reshape(shape).astype(wide, copy=False) if need_b else None
    gx = None
    if need_x:
        wv = None if w is None else _wide(w._data).reshape(-1)
        w_n = xp.full(n, 1.0 / n, g_y.dtype) if wv is None else wv / n
        d *= (ctx.r * ctx.r * (gy_d @ w_n))[:, None]  # xhat mean(g xhat) = d r^2 mean(g d)
        if ctx.center:
            d += (g_y @ w_n)[:, None]  # + mean(g)
        g = g_y.copy() if wv is None else g_y * wv
        g -= d
        g *= r
        gx = g.reshape(x.shape).astype(x._data.dtype, copy=False)
    T = type(x)
    return tuple(None if a is None else T._make(a) for a in (gx, gw, gb))


# NumPy's reductions along an axis (mean(axis=-1), sum(axis=0)) are slow loops next to BLAS:
# on a (1024, 128) float32 matrix a row mean took 50 us as a reduction and 12 us as the product
# with a vector of 1/n, a column sum 33 us against 13 us. Same sums, in float32 (or float64).
@quiet_fp
def _row_mean(a, n: int):
    """The mean of each row of a 2-D array, as a vector (a matrix-vector product)."""
    return a @ get_array_module(a).full(n, 1.0 / n, a.dtype)


def _centered_rows(a, n: int) -> tuple:
    """(mu, a - mu) per row of a 2-D array: the mean of each row as a product with 1/n, then
    corrected by the mean of a - mu, which is the first mean's rounding (see
    kernels/layer_norm.py's _centered): a row of one repeated value gives exactly 0."""
    mu = _row_mean(a, n)
    d = a - mu[:, None]
    s = _column_sum(d.T)
    s /= n
    d -= s[:, None]
    mu += s
    return mu, d


def _column_sum(a):
    """The sum of each column of a 2-D array, as a vector (a vector-matrix product)."""
    return get_array_module(a).ones(a.shape[0], a.dtype) @ a


def _backward_graph(ctx, gy) -> tuple:
    """The same gradients written with Tensor ops, for create_graph=True: the statistics are
    rebuilt from x, so the gradient is an exact function of x and second derivatives come out
    right."""
    x, w = ctx.saved_tensors
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    axes, center = ctx.axes, ctx.center
    xw = x._cast(_wide(x._data).dtype)
    mu = xw.mean(dim=axes, keepdim=True) if center else 0.0
    d = xw - mu
    r = ((d * d).mean(dim=axes, keepdim=True) + ctx.eps).rsqrt()
    xhat = (xw - mu) * r
    gx = gw = gb = None
    if need_x:
        g = gy if w is None else gy * w
        g = g._cast(xhat._data.dtype)
        inner = g - xhat * (g * xhat).mean(dim=axes, keepdim=True)
        if center:
            inner = inner - g.mean(dim=axes, keepdim=True)
        gx = r * inner
    if need_w:
        gw = gy * xhat
    if need_b:
        gb = gy
    return gx, gw, gb
