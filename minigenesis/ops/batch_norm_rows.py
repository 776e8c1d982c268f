"""BatchNorm's training step on (N, C) input (BatchNorm1d after a linear layer) as one op.

Per channel c, over the N rows:

    mu  = mean_n x[n, c],   var = mean_n (x[n, c] - mu)^2,   r = 1 / sqrt(var + eps)
    xhat = (x - mu) r,      y = xhat w + b

and, with g = dL/dy, the closed form (mu and r depend on x; w, b per channel):

    dL/db = sum_n g,   dL/dw = sum_n g xhat,
    dL/dx = r w (g - dL/db / N - xhat dL/dw / N)

The general op (``Normalize`` in normalization.py) serves every layout through reductions along
the given axes; on the small batches of an MLP (32 x 200) its cost is the count of calls, not the
arithmetic. Here w and b stay (C,) vectors (no reshape nodes, and the engine has no gradient to
sum back to their shape), and every sum over rows is one vector-matrix product
(``ones @ a``, BLAS; NumPy's sum over axis 0 is a slower strided loop).
Float16/bfloat16 inputs are computed in float32 and rounded once at the end, as PyTorch does.
"""

from __future__ import annotations

from numpy import ndarray

from .. import kernels
from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..backend import get_array_module, quiet_fp
from .normalization import _wide


class BatchNormRows(Op):
    """y = (x - mu) / sqrt(var + eps) * w + b per column of (N, C) x, with this batch's
    statistics; see the module docstring. ``running``: None, or (running_mean, running_var,
    momentum), whose two arrays move towards the batch's statistics in place, as PyTorch's
    batch_norm updates its buffers inside the op. Keeps xhat (one (N, C) array) for backward,
    so backward makes no pass to rebuild it."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, w, b, running, eps):
        if type(x) is ndarray and (fast := kernels.batch_norm_rows.forward(x, w, b, running, eps)):
            y, ctx.xhat, ctx.r = fast  # the same in two compiled loops, where Numba is installed
            ctx.eps, ctx.b_dtype = eps, None if b is None else b.dtype
            ctx.save_for_backward(x, w)
            return y
        xw = _wide(x)
        n = xw.shape[0]
        weights = get_array_module(x).empty(n, xw.dtype)
        weights.fill(1.0 / n)
        mu = weights @ xw  # (a mean as one BLAS product: see the module docstring)
        xhat = xw - mu
        var = _sum_of_products(xhat, xhat)
        var /= n
        if xw.dtype == get_array_module(x).float32 and not get_array_module(x).isfinite(var).all():
            # the squares overflowed float32 (|x| ~ 1e19 and beyond): mu, xhat and var again
            # in float64, where they fit (r ~ 1/|x| stays float64; xhat, O(1), goes back)
            xw = xw.astype("float64")
            mu = xw.mean(axis=0)
            xhat = xw - mu
            var = _sum_of_products(xhat, xhat) / n
        if running is not None:
            _update_running(*running, mu, var * (n / (n - 1)))
        var += eps  # r = 1 / sqrt(var + eps), in var's own memory
        r = _reciprocal_sqrt(var)
        xhat *= r
        xhat = xhat.astype(x.dtype if x.dtype.itemsize > 2 else xhat.dtype, copy=False)
        y = xhat.copy() if w is None else xhat * w
        if b is not None:
            y += b
        ctx.xhat, ctx.r, ctx.eps = xhat, r, eps
        ctx.b_dtype = None if b is None else b.dtype  # dL/db in b's dtype (float32 beside bf16 x)
        ctx.save_for_backward(x, w)
        return y.astype(x.dtype, copy=False)

    @staticmethod
    @quiet_fp
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        if state.grad_enabled:  # create_graph=True: Tensor ops, statistics rebuilt from x
            grads = _backward_graph(x, w, gy, ctx.eps)
            return tuple(g if need else None for g, need in zip(grads, ctx.needs_input_grad))
        edges = ctx.next_edges  # (the three arguments that can want a gradient)
        wants, T = [e is not None for e in edges], type(x)
        if type(gy._data) is ndarray and (
            fast := kernels.batch_norm_rows.backward(ctx, w, gy, wants)
        ):
            return tuple(None if a is None else T._make(a) for a in fast) + (None, None)
        g = _wide(gy._data)
        n, xhat = g.shape[0], ctx.xhat
        ones = get_array_module(g).empty(n, g.dtype)
        ones.fill(1)
        g_b = ones @ g  # sum_n g
        g_w = _sum_of_products(g, xhat)  # sum_n g xhat
        gx = None
        if edges[0] is not None:
            gx = xhat * (g_w / n)
            gx += g_b / n
            get_array_module(g).subtract(g, gx, out=gx)
            gx *= ctx.r if w is None else ctx.r * _wide(w._data)
            gx = gx.astype(x._data.dtype, copy=False)
        gw = T._make(g_w.astype(w._data.dtype, copy=False)) if edges[1] is not None else None
        gb = T._make(g_b.astype(ctx.b_dtype, copy=False)) if edges[2] is not None else None
        return (None if gx is None else T._make(gx)), gw, gb, None, None


def _sum_of_products(a, b):
    """sum_n a[n, c] b[n, c] per column c, without an (N, C) temporary."""
    if type(a) is ndarray and type(b) is ndarray:  # (einsum without its Python wrapper)
        return kernels.sums.column_dots(a, b)
    return get_array_module(a).einsum("nc,nc->c", a, b)


def _reciprocal_sqrt(v):
    """1 / sqrt(v), computed in v's memory."""
    xp = get_array_module(v)
    xp.sqrt(v, out=v)
    return xp.divide(1.0, v, out=v)


def _update_running(running_mean, running_var, momentum: float, mu, unbiased_var) -> None:
    """running = (1 - momentum) running + momentum * batch statistic, in place (the variance
    unbiased: N / (N - 1) times the batch's). ``mu`` and ``unbiased_var`` are arrays made for
    this call and needed no more: scaled in their own memory."""
    for buf, stat in ((running_mean, mu), (running_var, unbiased_var)):
        stat *= momentum
        buf *= 1 - momentum
        buf += stat if stat.dtype == buf.dtype else stat.astype(buf.dtype)


def _backward_graph(x, w, gy, eps: float) -> tuple:
    """The same gradients as Tensor ops (for create_graph=True): mu and r are rebuilt from x,
    so the gradient is an exact function of x and second derivatives come out right."""
    xw = x._cast(_wide(x._data).dtype)
    g = gy._cast(xw._data.dtype)
    n = xw.shape[0]
    d = xw - xw.mean(dim=0)
    r = ((d * d).mean(dim=0) + eps).rsqrt()
    xhat = d * r
    g_b = g.sum(dim=0)
    g_w = (g * xhat).sum(dim=0)
    scale = r if w is None else r * w
    gx = (scale * (g - g_b / n - xhat * (g_w / n)))._cast(x._data.dtype)
    g_w = None if w is None else g_w._cast(w._data.dtype)
    return gx, g_w, g_b._cast(x._data.dtype), None, None, None, None
