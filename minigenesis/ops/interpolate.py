"""Resampling along one axis: the building block of ``F.interpolate``.

Nearest and (bi/tri)linear interpolation are separable: resizing an image is resizing along W,
then along H (then along D). Along one axis of input size n and output size m, output o reads at
most two input positions,

    y[o] = (1 - lam[o]) * x[i0[o]] + lam[o] * x[i1[o]]        (nearest: lam = 0, i1 = i0)

that is, y = M x with a sparse (m, n) interpolation matrix M (two non-zeros a row). The gradient
is the adjoint, dL/dx = M^T dL/dy: each output's gradient goes back to the (one or two) input
positions it read, weighted as it read them; for nearest that is a scatter-add to the source
pixel. ``Resample`` computes M x by two gathers (exact, and an Inf or NaN stays where it is);
``ResampleAdjoint`` computes M^T g as one small dense matmul (exact, fast); each is the other's
backward, so double backward comes for free. The indices and weights are computed in
``nn/functional/interpolation.py`` (PyTorch's source coordinate formulas are there).
"""

from __future__ import annotations

import types

from ..autocast_policy import CUDA_FLOAT32
from ..autograd.function import Op
from ..autograd.node_names import UPSAMPLE_KERNELS
from ..backend import get_array_module, quiet_fp


def _along(weights, ndim: int, axis: int):
    """``weights`` (a 1-d array) shaped to broadcast along ``axis`` of an ndim-d array."""
    shape = [1] * ndim
    shape[axis] = weights.shape[0]
    return weights.reshape(shape)


def interpolation_matrix(i0, i1, lam, n: int, dtype):
    """The (m, n) matrix M of y = M x: row o holds 1 - lam[o] at i0[o] and lam[o] at i1[o]."""
    xp = get_array_module(i0)
    m = i0.shape[0]
    rows = xp.arange(m)
    a = xp.zeros((m, n), dtype=dtype)
    if lam is None:
        a[rows, i0] = 1
    else:  # (each statement writes each row once, so the += adds when i1 == i0 at the edge)
        a[rows, i0] = 1 - lam
        a[rows, i1] += lam
    return a


class Resample(Op):
    """y = M x along ``axis``: y[o] = (1 - lam[o]) x[i0[o]] + lam[o] x[i1[o]] (indexing that axis;
    ``lam`` None: nearest, y[o] = x[i0[o]]).   dL/dx = M^T dL/dy (ResampleAdjoint)."""

    autocast = CUDA_FLOAT32  # the upsample kernels: on PyTorch's CUDA float32 list

    @staticmethod
    @quiet_fp
    def forward(ctx, x, axis, i0, i1, lam):
        ctx.plan, ctx.n = (axis, i0, i1, lam), x.shape[axis]
        y = x.take(i0, axis=axis)
        if lam is not None:
            lam = lam.astype(x.dtype)
            # (1 - lam) x0 + lam x1, in the order PyTorch's kernel computes it
            w0, w1 = _along(1 - lam, x.ndim, axis), _along(lam, x.ndim, axis)
            y = y * w0 + x.take(i1, axis=axis) * w1
        return y

    @staticmethod
    def backward(ctx, gy):
        return ResampleAdjoint.apply(gy, ctx.n, *ctx.plan), None, None, None, None


class ResampleAdjoint(Op):
    """x = M^T g along ``axis`` (the (m, n) matrix M of Resample, n the input size): one matmul
    with the axis moved last.   dL/dg = M dL/dx (Resample)."""

    @staticmethod
    def forward(ctx, g, n, axis, i0, i1, lam):
        ctx.plan = (axis, i0, i1, lam)
        xp = get_array_module(g)
        m = interpolation_matrix(i0, i1, lam, n, g.dtype)
        out = xp.moveaxis(g, axis, -1) @ m  # (..., m) @ (m, n) = (..., n)
        return xp.ascontiguousarray(xp.moveaxis(out, -1, axis))

    @staticmethod
    def backward(ctx, gx):
        return Resample.apply(gx, *ctx.plan), None, None, None, None, None


# One Resample subclass per PyTorch kernel (UpsampleBilinear2D ...), for the last resampling of
# an F.interpolate call: its node is then named as PyTorch's (UpsampleBilinear2DBackward0).
# Autocast: float32 on CUDA only (Resample's rule), as PyTorch, whose CPU autocast lists no
# upsample kernel: on the CPU an interpolation runs in its input's dtype, bfloat16 in bfloat16 out.
UPSAMPLE_OPS: dict[tuple[str, int], type[Resample]] = {
    key: types.new_class(name, (Resample,), {}, lambda ns: ns.update(__module__=__name__))
    for key, name in UPSAMPLE_KERNELS.items()
}
