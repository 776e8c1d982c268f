"""The ops the losses need beyond arithmetic: log sigmoid, picking each sample's target class,
binary cross entropy, and cross entropy over class indices fused into one op (its common case).
The loss functions themselves (``F.cross_entropy`` ...) are short
compositions in ``nn/functional/losses.py``, which explains their numerics and reductions.
"""

from __future__ import annotations

import numpy as np
from numpy import ndarray

from .. import kernels
from ..autocast_policy import CPU_FLOAT32
from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..backend import get_array_module, quiet_fp
from .activation import _f32


# ----------------------------------------------------------------------------------------------
# Three small ops that the compositions in nn/functional/losses.py need
# ----------------------------------------------------------------------------------------------
class LogSigmoid(Op):
    """y = log sigmoid(x) = min(x, 0) - log(1 + e^-|x|)  (stable for any x);
    dy/dx = 1 - sigmoid(x) = sigmoid(-x)."""

    @staticmethod
    def forward(ctx, x):
        xp = get_array_module(x)
        xf = _f32(x)
        ctx.save_for_backward(x)
        return (xp.minimum(xf, 0) - xp.log1p(xp.exp(-xp.abs(xf)))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * (-x).sigmoid()


class PickClass(Op):
    """y[n, d...] = x[n, t[n, d...], d...] where ``valid``, else 0: each sample's entry at its
    target class (dim 1);   dL/dx = zeros with dL/dy placed at the picked entries."""

    @staticmethod
    def forward(ctx, x, target, valid):
        xp = get_array_module(x)
        ctx.target, ctx.valid, ctx.shape = target, valid, x.shape
        y = xp.take_along_axis(x, xp.expand_dims(target, 1), axis=1).squeeze(1)
        return xp.where(valid, y, xp.zeros((), dtype=y.dtype))

    @staticmethod
    def backward(ctx, gy):
        return PlaceClass.apply(gy, ctx.target, ctx.valid, ctx.shape), None, None


class PlaceClass(Op):
    """x = zeros(shape) with x[n, t[n, d...], d...] = g[n, d...] where ``valid`` (the adjoint
    of PickClass; each sample has one target, so no two values land on one entry);
    dL/dg = PickClass(dL/dx)."""

    @staticmethod
    def forward(ctx, g, target, valid, shape):
        xp = get_array_module(g)
        ctx.target, ctx.valid = target, valid
        n, c = shape[0], shape[1]
        rest = int(np.prod(shape[2:], dtype=np.int64))
        # flat position of (n, t, r) in a C-contiguous (N, C, R) array
        sample = xp.arange(n).reshape((n,) + (1,) * (len(shape) - 2))
        within = xp.arange(rest).reshape(shape[2:])
        flat = (sample * c + target) * rest + within
        out = xp.zeros(shape, dtype=g.dtype)
        out.reshape(-1)[flat.reshape(-1)] = xp.where(valid, g, 0).reshape(-1)
        return out

    @staticmethod
    def backward(ctx, gx):
        return PickClass.apply(gx, ctx.target, ctx.valid), None, None, None


class CrossEntropyIndices(Op):
    """cross_entropy of logits x (N, C, d...) against class indices, unweighted, as one op:

        l_i = log sum_c e^(x[i, c]) - x[i, t_i]      (0 where ``valid`` is False)
        dl_i/dx[i, c] = softmax(x)[i, c] - [c == t_i]

    ``reduction``: "none", "sum", or "mean" over the valid samples (NaN when there are none,
    with a gradient of 0); ``valid`` None: every sample is (no mask to apply). Computed as
    PyTorch's log_softmax + nll_loss are: m = row max,
    log p_t = (x_t - m) - log sum e^(x - m). Keeps x and the per-sample log-sum-exp; backward
    rebuilds the softmax from them (2 passes over x) and subtracts 1 at each target, in place.
    (Composed from log_softmax, a pick and a weighted mean, the same loss costs ~8 op calls.)
    Each sample's target entry is read and written through one index, (rows, targets) on an
    (N, C) batch (NumPy's take_along_axis builds the same index in Python on every call)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, target, valid, reduction):
        xp = get_array_module(x)
        at = (xp.arange(len(target)), target) if x.ndim == 2 else _target_index(xp, target)
        ctx.target, ctx.at, ctx.valid, ctx.reduction = target, at, valid, reduction
        ctx.save_for_backward(x)
        if type(x) is ndarray and x.size >= kernels.cross_entropy_loop.CROSS_ENTROPY_LOOP_MIN:
            if (y := kernels.cross_entropy_loop.forward(ctx, x)) is not None:
                return y  # one compiled loop each way (ctx.grad_loop), where Numba is installed
        xw = _f32(x)
        m = xw.max(axis=1, keepdims=True)
        count = valid.sum() if valid is not None else np.int64(target.size)
        fast = None if type(x) is ndarray else kernels.loss.cross_entropy  # (GPU kernels)
        if fast is not None and (done := fast(xw, m, target, valid, count, reduction)) is not None:
            loss, lse = done
        else:
            shifted = xw - m
            log_total = xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
            logp_t = shifted[at] - log_total.squeeze(1)
            loss = -logp_t if valid is None else xp.where(valid, -logp_t, logp_t.dtype.type(0))
            lse = m + log_total
            if reduction == "sum":
                loss = loss.sum()
            elif reduction == "mean":  # all ignored: 0/0 = NaN (quietly: quiet_fp), as PyTorch
                loss = xp.asarray(loss.sum() / count.astype(loss.dtype))
        ctx.lse, ctx.count, ctx.grad_loop = lse, count, None
        return loss.astype(x.dtype, copy=False)

    @staticmethod
    @quiet_fp
    def backward(ctx, gl):
        (x,) = ctx.saved_tensors
        if state.grad_enabled:  # create_graph: Tensor ops, differentiable in x and in gl
            return _cross_entropy_grad_recorded(ctx, x, gl), None, None, None
        args = (ctx.lse, ctx.target, ctx.valid, ctx.count)
        fast = ctx.grad_loop if type(x._data) is ndarray else kernels.loss.cross_entropy_grad
        if fast is not None and (g := fast(x._data, *args, gl._data, ctx.reduction)) is not None:
            return type(x)._make(g), None, None, None
        xp = get_array_module(x._data)
        if ctx.valid is None and ctx.reduction != "none":  # one number scales every sample
            scale = picked = _f32(gl._data) * _reduction_scale(ctx, ctx.lse.dtype)
        else:
            scale = xp.expand_dims(_per_sample_scale(xp, ctx, ctx.lse.dtype) * _f32(gl._data), 1)
            picked = scale.squeeze(1)
        g = _f32(x._data) - ctx.lse
        xp.exp(g, out=g)  # softmax(x)
        g *= scale
        g[ctx.at] -= picked
        return type(x)._make(g.astype(x._data.dtype, copy=False)), None, None, None


def _cross_entropy_grad_recorded(ctx, x, gl):
    """CrossEntropyIndices' gradient (softmax minus one-hot, times the reduction's per-sample
    scale) written with ops that record, for create_graph."""
    xp = get_array_module(x._data)
    T = type(x)
    onehot = xp.zeros(x.shape, dtype=x._data.dtype)
    onehot[ctx.at] = 1
    scale = _per_sample_scale(xp, ctx, x._data.dtype)
    return (x.softmax(dim=1) - T._make(onehot)) * (gl * T._make(scale)).unsqueeze(1)


def _target_index(xp, target):
    """The index of x[n, target[n, d...], d...] in an (N, C, d...) x: open grids over target's
    dims, with target itself in the class dim (the grids and target broadcast to its shape)."""
    grids = [
        xp.arange(size).reshape((-1,) + (1,) * (target.ndim - 1 - k))
        for k, size in enumerate(target.shape)
    ]
    return (grids[0], target, *grids[1:])


def _reduction_scale(ctx, dtype):
    """_per_sample_scale's one number when every sample counts: 1/N ("mean") or 1 ("sum")."""
    one = dtype.type(1)
    return one / dtype.type(ctx.count) if ctx.reduction == "mean" and ctx.count else one


def _per_sample_scale(xp, ctx, dtype):
    """d(reduced loss)/d l_i: 1 for a valid sample (1/count for "mean"), 0 for an ignored one."""
    valid = ctx.valid  # (None: every sample is)
    scale = xp.ones(ctx.target.shape, dtype) if valid is None else valid.astype(dtype)
    if ctx.reduction == "mean":  # (an array maximum: no read back from a GPU)
        scale /= xp.maximum(ctx.count, 1).astype(dtype)
    return scale


class BinaryCrossEntropy(Op):
    """l = -(y log x + (1 - y) log(1 - x)), each log clamped at -100;
    dl/dx = (x - y) / max(x (1 - x), 1e-12),   dl/dy = log(1 - x) - log x = -logit(x)."""

    autocast = CPU_FLOAT32

    @staticmethod
    def forward(ctx, x, y):
        xp = get_array_module(x)
        xf, yf = _f32(x), _f32(y)
        with np.errstate(divide="ignore"):  # log(0) = -inf, then clamped
            log_x = xp.maximum(xp.log(xf), -100)
            log_1mx = xp.maximum(xp.log1p(-xf), -100)
        ctx.save_for_backward(x, y)
        return ((yf - 1) * log_1mx - yf * log_x).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gl):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        gx = gl * (x - y) / (x * (1 - x)).clamp(min=1e-12) if need_x else None
        with np.errstate(divide="ignore"):
            gy = gl * ((1 - x).log() - x.log()) if need_y else None  # unclamped, as PyTorch
        return gx, gy
