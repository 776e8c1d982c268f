"""``ops/normalization.py``'s Normalize as GPU kernels, for per-row statistics (LayerNorm,
RMSNorm, GroupNorm) and for given ones (BatchNorm, InstanceNorm). Each kernel computes what the
op's NumPy code computes, in the same order where it is elementwise, so given the same statistics
it gives the same bits; the sums are CUDA reductions (another summation order than NumPy's).

LayerNorm, RMSNorm and GroupNorm take 3 launches forward and 5 backward instead of 12 and 15
array operations; BatchNorm and InstanceNorm 2 for the statistics, 2 forward and 5 backward
instead of 4, 7 and 13.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .cuda import FLOAT16_32_64, ElementwiseKernel, ReductionKernel, kernel_fits


def stats(x, axes: tuple, center: bool) -> tuple | None:
    """(mu, var) over ``axes``, keepdims, as 2 GPU kernels; None where they do not apply."""
    if not (center and _on_kernels(x)):
        return None
    n = math.prod(x.shape[a] for a in axes)
    mu = _mean_kernel(x.dtype)(x, n, axis=axes, keepdims=True)
    return mu, _var_kernel(x.dtype)(x, mu, n, axis=axes, keepdims=True)


def forward(ctx, x, w, b, given_stats) -> tuple | None:
    """Normalize.forward's (y, mu, r) on the GPU, or None where the kernels do not apply."""
    if not (ctx.fusable and _on_kernels(x, w, b, shape=_affine_shape(ctx, x))):
        return None
    return _forward_kernels(ctx, x, w, b, given_stats)


def backward(ctx, gy) -> tuple | None:
    """Normalize.backward's (gx, gw, gb) on the GPU, or None where the kernels do not apply."""
    x, w = ctx.saved_tensors
    wd, shape = None if w is None else w._data, _affine_shape(ctx, x)
    if not (ctx.fusable and gy.dtype == x.dtype and _on_kernels(x._data, wd, shape=shape)):
        return None
    return _backward_kernels(ctx, gy)


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


def _sum_kernel(
    name: str, in_params: str, map_expr: str, post: str, dtype, sum_type: str | None = None
) -> ReductionKernel:
    """total = post(a), a = the sum of ``map_expr`` (in the statistics' type) along the axes given
    when called: along rows for per-group statistics, down columns for dL/dw and dL/db.

    A mean divides by ``n``, the count per group, passed as an input: CuPy runs a reduction with
    one input through CUB, which has no ``_in_ind.size()`` (and rewrites the input's and the
    output's names in the expressions as plain text, so those names must not occur inside
    other words). ``sum_type``: the C type the sum runs in, when not the statistics' type."""
    c, wide = _types(dtype)
    post = f"total = {post}"
    return ReductionKernel(
        name, in_params, f"{wide} total", map_expr, "a + b", post, "0", sum_type or c
    )


@functools.cache
def _mean_kernel(dtype) -> ReductionKernel:
    """mu = sum(x) / n (1 launch; the arrays take 2, a vector of 1/n and a product), summed in
    double: a float sum of a row of one repeated value c rounds (n c needs more bits than c),
    and a mean a few ulps off c turns x - mu = 0 into those ulps times 1 / sqrt(eps); in double
    n c and the division are exact for a float32 c, so mu = c (the sum is memory-bound)."""
    wide = _types(dtype)[1]
    return _sum_kernel("norm_mean", f"T x, {wide} n", "(double)x", "a / n", dtype, "double")


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
