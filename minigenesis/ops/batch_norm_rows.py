"""BatchNorm's training step on (N, C) input (BatchNorm1d after a linear layer) as one op.

Per channel c, over the N rows (statistics given: ``row_stats``, which BatchNorm also needs for
its running averages):

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

from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import get_array_module, quiet_fp
from .normalization import _wide


@quiet_fp
def row_stats(x) -> tuple:
    """(mu, var) per column of the (N, C) array ``x``: the mean and biased variance, (C,)
    vectors in at least float32."""
    xw = _wide(x)
    xp = get_array_module(xw)
    mean = xp.full(xw.shape[0], 1.0 / xw.shape[0], xw.dtype)
    mu = mean @ xw
    d = xw - mu
    return mu, xp.einsum("nc,nc->c", d, d) / xw.shape[0]  # (no d * d temporary)


class BatchNormRows(Op):
    """y = (x - mu) / sqrt(var + eps) * w + b per column of (N, C) x, with the batch's
    statistics ``mu``, ``var`` (from ``row_stats(x)``); see the module docstring."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, w, b, mu, var, eps):
        xp = get_array_module(x)
        r = 1.0 / xp.sqrt(var + eps)
        y = _wide(x) - mu
        y *= r if w is None else r * w
        if b is not None:
            y += b
        ctx.mu, ctx.r, ctx.eps = mu, r, eps
        ctx.save_for_backward(x, w)
        return y.astype(x.dtype, copy=False)

    @staticmethod
    @quiet_fp
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        if is_grad_enabled():  # create_graph=True: Tensor ops, statistics rebuilt from x
            grads = _backward_graph(x, w, gy, ctx.eps)
            return tuple(g if need else None for g, need in zip(grads, ctx.needs_input_grad))
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        xp = get_array_module(x._data)
        g = _wide(gy._data)
        n = g.shape[0]
        xhat = _wide(x._data) - ctx.mu
        xhat *= ctx.r
        g_b = xp.ones(n, g.dtype) @ g  # sum_n g
        g_w = xp.einsum("nc,nc->c", g, xhat)  # sum_n g xhat
        gx = None
        if need_x:
            xhat *= g_w / n
            xhat += g_b / n
            gx = g - xhat
            gx *= ctx.r if w is None else ctx.r * _wide(w._data)
            gx = gx.astype(x._data.dtype, copy=False)
        T = type(x)
        gw = T._make(g_w.astype(w._data.dtype, copy=False)) if need_w else None
        gb = T._make(g_b.astype(x._data.dtype, copy=False)) if need_b else None
        return (None if gx is None else T._make(gx)), gw, gb, None, None, None


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
    return gx, g_w, g_b._cast(x._data.dtype), None, None, None
