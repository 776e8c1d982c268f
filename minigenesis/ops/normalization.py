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

On the GPU (float16/32/64) the op runs as a few fused kernels, see the end of this file: LayerNorm,
RMSNorm and GroupNorm take 3 launches forward and 5 backward instead of 12 and 15 array operations;
BatchNorm and InstanceNorm 2 for the statistics, 2 forward and 5 backward instead of 4, 7 and 13.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..autocast_policy import FLOAT32
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module
from ..gpu_kernels import FLOAT16_32_64, ElementwiseKernel, ReductionKernel, kernel_fits


def _wide(x):
    """2-byte floats are computed in float32; float32/float64 as they are."""
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
        return x.astype(get_array_module(x).float32)
    return x


def normalize_stats(x, axes: tuple, center: bool):
    """(mu, var) over ``axes``, keepdims, in at least float32 (mu is 0.0 when not centering)."""
    if center and _on_kernels(x):  # the same, as 2 GPU kernels
        n = math.prod(x.shape[a] for a in axes)
        mu = _mean_kernel(x.dtype)(x, n, axis=axes, keepdims=True)
        return mu, _var_kernel(x.dtype)(x, mu, n, axis=axes, keepdims=True)
    xw = _wide(x)
    if center:
        mu = xw.mean(axis=axes, keepdims=True)
        d = xw - mu
        return mu, (d * d).mean(axis=axes, keepdims=True)
    return 0.0, (xw * xw).mean(axis=axes, keepdims=True)


class Normalize(Op):
    """y = (x - mu) / sqrt(var + eps) * w + b over ``axes`` (see the module docstring).

    ``w``/``b`` are None or already broadcastable to x. ``stats=(mu, var)`` passes statistics that
    the caller computed (BatchNorm, which also needs them for its running averages).

    Keeps only x and the per-group mu and r; backward recomputes xhat from them. When ``axes``
    are x's last dims (LayerNorm, RMSNorm, GroupNorm) x is a (groups, N) matrix and every sum
    is a matrix-vector product (see _row_mean): forward makes 5 passes over x and 2 such
    products, backward 8 passes and 4 products. Other axes (BatchNorm) take NumPy reductions.
    On the GPU both cases run as the fused kernels at the end of this file."""

    autocast = FLOAT32

    @staticmethod
    def forward(ctx, x, w, b, axes, eps, center, stats):
        n = math.prod(x.shape[a] for a in axes)
        ctx.rows = stats is None and axes == tuple(range(x.ndim - len(axes), x.ndim)) and x.size > 0
        ctx.axes, ctx.eps, ctx.center, ctx.n = axes, eps, center, n
        ctx.save_for_backward(x, w)
        # the cases the GPU kernels serve: per-row statistics, or given ones (eps a C constant)
        ctx.fusable = (ctx.rows or stats is not None) and math.isfinite(eps)
        if ctx.fusable and _on_kernels(x, w, b, shape=_affine_shape(ctx, x)):
            y, ctx.mu, ctx.r = _forward_kernels(ctx, x, w, b, stats)  # the same, as GPU kernels
            return y
        xp = get_array_module(x)
        xw = _wide(x)
        if ctx.rows:  # x as (groups, n): statistics per row, as vectors
            y = xw.reshape(-1, n)
            mu = _row_mean(y, n) if center else 0.0
            y = y - mu[:, None] if center else y.copy()
            var = _row_mean(y * y, n)
        elif stats is not None:
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
        y *= r[:, None] if ctx.rows else r
        y = y.reshape(x.shape)
        if w is not None:
            y *= w
        if b is not None:
            y += b
        ctx.mu, ctx.r = mu, r
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        if is_grad_enabled():  # create_graph=True: a graph of Tensor ops, see _backward_graph
            return _backward_graph(ctx, gy) + (None, None, None, None)
        x, w = ctx.saved_tensors
        wd, shape = None if w is None else w._data, _affine_shape(ctx, x)
        if ctx.fusable and gy.dtype == x.dtype and _on_kernels(x._data, wd, shape=shape):
            return _backward_kernels(ctx, gy) + (None,) * 4
        if ctx.rows:
            return _backward_rows(ctx, gy) + (None,) * 4
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        xw, g_y = _wide(x._data), _wide(gy._data)
        xhat = xw - ctx.mu
        xhat *= ctx.r
        gx = gw = gb = None
        if need_w:
            gw = g_y * xhat  # the engine sums it to w's shape
        if need_b:
            gb = gy._data
        if need_x:
            g = g_y * w._data if w is not None else g_y.copy()
            xhat *= (g * xhat).mean(axis=ctx.axes, keepdims=True)
            if ctx.center:
                xhat += g.mean(axis=ctx.axes, keepdims=True)
            g -= xhat
            g *= ctx.r
            gx = g.astype(x._data.dtype, copy=False)
        T = type(x)
        return tuple(None if a is None else T._make(a) for a in (gx, gw, gb)) + (None,) * 4


def _backward_rows(ctx, gy) -> tuple:
    """Normalize's gradients (gx, gw, gb) when x is (groups, n) rows: the module docstring's
    closed form, with mean(g) = g_y . w / n and mean(g xhat) = (g_y xhat) . w / n per row, and
    dL/dw, dL/db the column sums of g_y xhat and g_y, all as matrix-vector products."""
    x, w = ctx.saved_tensors
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    n, r = ctx.n, ctx.r[:, None]
    xp = get_array_module(x._data)
    g_y = _wide(gy._data).reshape(-1, n)
    xhat = _wide(x._data).reshape(-1, n)
    xhat = (xhat - ctx.mu[:, None]) if ctx.center else xhat.copy()
    xhat *= r
    gy_xhat = g_y * xhat
    shape = x.shape[x.ndim - len(ctx.axes) :]  # the engine sums it on to w's / b's own shape
    gw = _column_sum(gy_xhat).reshape(shape) if need_w else None
    gb = _column_sum(g_y).reshape(shape) if need_b else None
    gx = None
    if need_x:
        wv = None if w is None else _wide(w._data).reshape(-1)
        w_n = xp.full(n, 1.0 / n, g_y.dtype) if wv is None else wv / n
        xhat *= (gy_xhat @ w_n)[:, None]  # xhat mean(g xhat)
        if ctx.center:
            xhat += (g_y @ w_n)[:, None]  # + mean(g)
        g = g_y.copy() if wv is None else g_y * wv
        g -= xhat
        g *= r
        gx = g.reshape(x.shape).astype(x._data.dtype, copy=False)
    T = type(x)
    return tuple(None if a is None else T._make(a) for a in (gx, gw, gb))


# NumPy's reductions along an axis (mean(axis=-1), sum(axis=0)) are slow loops next to BLAS:
# on a (1024, 128) float32 matrix a row mean took 50 us as a reduction and 12 us as the product
# with a vector of 1/n, a column sum 33 us against 13 us. Same sums, in float32 (or float64).
def _row_mean(a, n: int):
    """The mean of each row of a 2-D array, as a vector (a matrix-vector product)."""
    return a @ get_array_module(a).full(n, 1.0 / n, a.dtype)


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


# ----------------------------------------------------------------------------------------------
# The op as GPU kernels (see gpu_kernels.py), for per-row statistics (LayerNorm, RMSNorm,
# GroupNorm) and for given ones (BatchNorm, InstanceNorm). Each kernel computes what the NumPy
# code above computes, in the same order where it is elementwise, so given the same statistics
# it gives the same bits; the sums are CUDA reductions (another summation order than NumPy's).
# ----------------------------------------------------------------------------------------------
def _on_kernels(x, *affine, shape: tuple = ()) -> bool:
    """The kernels apply: x on the GPU in float16/32/64 (float16 too: the kernels compute in
    float32 and round once, as the code above does), and each of ``affine`` (weight, bias) None
    or of x's dtype and ``shape``."""
    fits = kernel_fits(x, *affine, dtypes=FLOAT16_32_64)
    return fits and all(a is None or tuple(a.shape) == shape for a in affine)


def _affine_shape(ctx, x) -> tuple:
    """The shape the kernels take w and b in: the normalised dims (rows), or keepdims (stats)."""
    if ctx.rows:
        return tuple(x.shape[x.ndim - len(ctx.axes) :])
    return tuple(1 if i in ctx.axes else s for i, s in enumerate(x.shape))


def _types(dtype) -> tuple[str, str]:
    """(C type, NumPy name) the statistics are computed in: float32, or float64 for float64 x."""
    return ("double", "float64") if dtype == np.float64 else ("float", "float32")


def _sum_kernel(name: str, in_params: str, map_expr: str, post: str, dtype) -> ReductionKernel:
    """total = post(a), a = the sum of ``map_expr`` (in the statistics' type) along the axes given
    when called: along rows for per-group statistics, down columns for dL/dw and dL/db.

    A mean divides by ``n``, the count per group, passed as an input: CuPy runs a reduction with
    one input through CUB, which has no ``_in_ind.size()`` (and rewrites the input's and the
    output's names in the expressions as plain text, so those names must not occur inside
    other words)."""
    c, wide = _types(dtype)
    post = f"total = {post}"
    return ReductionKernel(name, in_params, f"{wide} total", map_expr, "a + b", post, "0", c)


@functools.cache
def _mean_kernel(dtype) -> ReductionKernel:
    """mu = sum(x) / n (1 launch; the arrays take 2, a vector of 1/n and a product)."""
    c, wide = _types(dtype)
    return _sum_kernel("norm_mean", f"T x, {wide} n", f"({c})x", "a / n", dtype)


@functools.cache
def _var_kernel(dtype) -> ReductionKernel:
    """var = sum((x - mu)^2) / n (1 launch for 3), normalize_stats' variance."""
    c, wide = _types(dtype)
    d = f"(({c})x - mu)"
    return _sum_kernel("norm_var", f"T x, {wide} mu, {wide} n", f"{d} * {d}", "a / n", dtype)


@functools.cache
def _rstd_kernel(dtype, center: bool, eps: float) -> ReductionKernel:
    """r = 1 / sqrt(sum((x - mu)^2) / n + eps) (1 launch for 7), eps a constant of the kernel."""
    c, wide = _types(dtype)
    d = f"(({c})x - mu)" if center else f"({c})x"
    post = f"({c})1 / sqrt(a / n + ({c})({eps!r}))"
    params = (f"T x, {wide} mu" if center else "T x") + f", {wide} n"
    return _sum_kernel("norm_rstd", params, f"{d} * {d}", post, dtype)


@functools.cache
def _rstd_of_var_kernel(dtype) -> ElementwiseKernel:
    """r = 1 / sqrt(var + eps) from given statistics (1 launch for 3)."""
    c, wide = _types(dtype)
    return ElementwiseKernel(
        "norm_rstd_of_var", f"{wide} var, {wide} eps", f"{wide} r", f"r = ({c})1 / sqrt(var + eps);"
    )


@functools.cache
def _affine_kernel(dtype, center: bool, weight: bool, bias: bool) -> ElementwiseKernel:
    """y = ((x - mu) * r) * w + b, rounded to x's dtype (1 launch for 3-5)."""
    c, wide = _types(dtype)
    params = (f"T x, {wide} mu" if center else "T x") + f", {wide} r"
    body = [f"{c} v = ({c})x - mu;" if center else f"{c} v = ({c})x;", "v = v * r;"]
    body += [f"v = v * ({c})w;"] * weight + [f"v = v + ({c})b;"] * bias + ["y = (T)v;"]
    params += ", T w" * weight + ", T b" * bias
    return ElementwiseKernel("norm_affine", params, "T y", "\n".join(body))


def _forward_kernels(ctx, x, w, b, stats) -> tuple:
    """Normalize.forward on the GPU: (y, mu, r) as the array code gives them. Rows (x as
    (groups, n)): 3 launches, mu and r vectors (mu 0.0 when not centering); given statistics
    (BatchNorm, keepdims): 2 launches."""
    center = ctx.center
    affine = _affine_kernel(x.dtype, center, w is not None, b is not None)
    wb = [a for a in (w, b) if a is not None]
    if stats is not None:
        mu, var = stats
        r = _rstd_of_var_kernel(x.dtype)(var, ctx.eps)
        return affine(*([x, mu] if center else [x]), r, *wb), mu, r
    x2 = x.reshape(-1, ctx.n)
    mu = _mean_kernel(x.dtype)(x2, ctx.n, axis=1) if center else 0.0
    stats = [x2, mu[:, None]] if center else [x2]
    r = _rstd_kernel(x.dtype, center, ctx.eps)(*stats, ctx.n, axis=1)
    wb = [a.reshape(ctx.n) for a in wb]
    return affine(*stats, r[:, None], *wb).reshape(x.shape), mu, r


@functools.cache
def _grad_kernels(dtype, center: bool, weight: bool) -> tuple:
    """Backward's kernels (xhat = (x - mu) * r recomputed in each, g = g_y * w):

    dL/dw = sums of g_y * xhat                  norm_grad_w (1 launch for 3)
    dL/db = sums of g_y                         norm_grad_b (1 launch for 1-2)
    mean(g), mean(g * xhat) per group           norm_mean_g, norm_mean_gxhat (1 each for 5)
    dL/dx = (g - (xhat * mean(g xhat) + mean(g))) * r, rounded to x's dtype
                                                norm_grad_x (1 launch for 6)
    """
    c, wide = _types(dtype)
    stats_in = f"T x, {wide} mu, {wide} r" if center else f"T x, {wide} r"
    xhat = f"((({c})x - mu) * r)" if center else f"(({c})x * r)"
    g_in, g = ("T gy, T w", f"(({c})gy * ({c})w)") if weight else ("T gy", f"({c})gy")
    grad_w = _sum_kernel("norm_grad_w", f"T gy, {stats_in}", f"({c})gy * {xhat}", "a", dtype)
    grad_b = _sum_kernel("norm_grad_b", "T gy", f"({c})gy", "a", dtype)
    mean_g = _sum_kernel("norm_mean_g", f"{g_in}, {wide} n", g, "a / n", dtype)
    mean_gx = _sum_kernel(
        "norm_mean_gxhat", f"{g_in}, {stats_in}, {wide} n", f"{g} * {xhat}", "a / n", dtype
    )
    params = f"T gy, {stats_in}" + ", T w" * weight + f", {wide} mean_g" * center
    body = [f"{c} xh = {xhat};", "xh = xh * mean_gx;"] + ["xh = xh + mean_g;"] * center
    body += [f"{c} g = {g};", "g = g - xh;", "g = g * r;", "gx = (T)g;"]
    grad_x = ElementwiseKernel("norm_grad_x", f"{params}, {wide} mean_gx", "T gx", "\n".join(body))
    return grad_w, grad_b, mean_g, mean_gx, grad_x


def _backward_kernels(ctx, gy) -> tuple:
    """Normalize.backward on the GPU: (gx, gw, gb), 5 launches (3 without w and b). Rows: the
    statistics are row sums and dL/dw, dL/db column sums, as in _backward_rows. Given statistics
    (BatchNorm): all are sums over ``axes``, and dL/dw, dL/db come out in w's shape."""
    x, w = ctx.saved_tensors
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    center, shape = ctx.center, _affine_shape(ctx, x)
    grad_w, grad_b, mean_g, mean_gx, grad_x = _grad_kernels(x._data.dtype, center, w is not None)
    g_y, xs, mu, r = gy._data, x._data, ctx.mu, ctx.r
    per_group = columns = {"axis": ctx.axes, "keepdims": True}
    if ctx.rows:  # (groups, n) matrices, the statistics as (groups, 1) columns
        g_y, xs = g_y.reshape(-1, ctx.n), xs.reshape(-1, ctx.n)
        mu, r = (mu[:, None] if center else mu), r[:, None]
        per_group, columns = {"axis": 1, "keepdims": True}, {"axis": 0}
    stats = [xs, mu, r] if center else [xs, r]
    gw = grad_w(g_y, *stats, **columns).reshape(shape) if need_w else None
    gb = grad_b(g_y, **columns).reshape(shape) if need_b else None
    gx = None
    if need_x:
        wv = [] if w is None else [w._data.reshape(-1) if ctx.rows else w._data]
        means = [mean_g(g_y, *wv, ctx.n, **per_group)] if center else []
        means.append(mean_gx(g_y, *wv, *stats, ctx.n, **per_group))
        gx = grad_x(g_y, *stats, *wv, *means).reshape(x.shape)
    T = type(x)
    return tuple(None if a is None else T._make(a) for a in (gx, gw, gb))
