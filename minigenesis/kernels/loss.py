"""Cross entropy over class indices on a GPU (``ops/loss.py``'s CrossEntropyIndices).

On a GPU each array operation is a kernel launch (~10 us of host work). These do the same
arithmetic in the same order as the array passes they replace: forward 15 launches -> 7 (the
log of the sum of e^(x - m) in one reduction, each sample's loss and log-sum-exp in one pass,
the mean in one), backward 10 -> 2 (softmax times the sample's scale, the scale subtracted at
the target: the kernel sees no indices, so each element's class comes from a broadcast arange).
"""

from __future__ import annotations

import numpy as np

from ..backend import get_array_module
from .cuda import ElementwiseKernel, ReductionKernel, kernel_fits

_LOG_SUM_EXP_SHIFTED = ReductionKernel(
    "log_sum_exp_shifted", "T x, T m", "T y", "exp(x - m)", "a + b", "y = log(a)", "0", "T"
)
_SAMPLE_LOSS = ElementwiseKernel(
    "cross_entropy_loss",
    "T x_t, T m, T log_total, bool valid",
    "T loss, T lse",
    "loss = valid ? -((x_t - m) - log_total) : (T)0;\nlse = m + log_total;",
)
_MEAN = ElementwiseKernel(
    "mean_of_valid", "T total, int64 count", "T mean", "mean = total / (T)count;"
)
_GRAD = ElementwiseKernel(
    "cross_entropy_grad",
    "T x, T lse, bool valid, int64 count, T gl, int64 t, int64 c",
    "T g",
    """T k = (T)count;
    k = (k > (T)1) ? k : (T)1;
    T s = ((T)valid / k) * gl;
    T e = exp(x - lse) * s;
    g = (c == t) ? e - s : e;""",
)


def _fits(x, target) -> bool:
    return kernel_fits(x) and target.dtype == np.int64


def cross_entropy(x, m, target, valid, count, reduction: str) -> tuple | None:
    """(the reduced loss, each sample's log-sum-exp) of the logits ``x`` (row max ``m``, kept)
    in 2-4 launches, or None where the kernels do not apply."""
    if not _fits(x, target):
        return None
    xp = get_array_module(x)
    log_total = _LOG_SUM_EXP_SHIFTED(x, m, axis=1, keepdims=True)
    x_t = xp.take_along_axis(x, xp.expand_dims(target, 1), axis=1)
    loss, lse = _SAMPLE_LOSS(x_t, m, log_total, xp.expand_dims(valid, 1))
    loss = loss.squeeze(1)
    if reduction == "sum":
        loss = loss.sum()
    elif reduction == "mean":
        loss = _MEAN(loss.sum(), count)
    return loss, lse


def cross_entropy_grad(x, lse, target, valid, count, gl, reduction: str):
    """dL/dx in one launch (and an arange), or None where the kernel does not apply."""
    if not _fits(x, target):
        return None
    xp = get_array_module(x)
    n_classes = x.shape[1]
    classes = xp.arange(n_classes).reshape((n_classes,) + (1,) * (x.ndim - 2))
    count = count if reduction == "mean" else 1
    gl_b = xp.expand_dims(gl, 1) if gl.ndim else gl
    idx = xp.expand_dims(target, 1)
    return _GRAD(x, lse, xp.expand_dims(valid, 1), count, gl_b, idx, classes)
