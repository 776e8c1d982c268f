"""Activations: relu, leaky_relu, sigmoid, tanh, gelu, silu, softplus, softmax, log_softmax.

Softmax and log_softmax are written in their numerically stable forms; float16/bfloat16
inputs are computed in float32 and rounded back (as PyTorch's CPU kernels accumulate).
"""

from __future__ import annotations

import math

import numpy as np

from ..autocast_policy import FLOAT32
from ..autograd.function import Op
from ..backend import erf, get_array_module
from .elementwise import select_grad


def _f32(x):
    """Compute 2-byte floats in float32; other dtypes as they are."""
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
        return x.astype(get_array_module(x).float32)
    return x


def _sigmoid_passes(x):
    """1 / (1 + e^-x), the formula PyTorch's kernels use, in 4 array passes."""
    xp = get_array_module(x)
    t = xp.negative(x)
    if not t.ndim:  # NumPy returns a scalar for a 0-d array; out= needs an array
        t = xp.asarray(t)
    xp.exp(t, out=t)
    t += 1
    return xp.reciprocal(t, out=t)


# For x < -88 (float32) e^-x overflows to inf and the result is exactly 0, as in PyTorch: right (the
# true value is below float32's smallest normal number), so NumPy's overflow warning is silenced
# rather than shown to the learner. Used as a decorator, errstate costs half what a `with` block
# inside the function does, and sigmoid is a hot op. (CuPy never warns.)
_sigmoid_numpy = np.errstate(over="ignore")(_sigmoid_passes)


def _sigmoid(x):
    """Sigmoid of an array (2-byte floats computed in float32, rounded once at the end)."""
    xf = _f32(x)
    y = _sigmoid_numpy(xf) if isinstance(xf, np.ndarray) else _sigmoid_passes(xf)
    return y if xf is x else y.astype(x.dtype)


class ReLU(Op):
    """y = max(x, 0);   dy/dx = 1 where y > 0 (or NaN), else 0: PyTorch's threshold_backward,
    which reads the mask off the output and keeps it in the graph (see SelectGrad)."""

    @staticmethod
    def forward(ctx, x):
        xf = _f32(x)  # exact either way; 2-byte floats' own loops are just slow
        y = get_array_module(x).maximum(xf, 0).astype(x.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return select_grad(gy, get_array_module(y._data).logical_not(y._data <= 0), y)


class LeakyReLU(Op):
    """y = x where x > 0, else slope * x;   dy/dx = 1 where x > 0, else slope (PyTorch's
    leaky_relu_backward, which keeps x in the gradient's graph: see SelectGrad)."""

    @staticmethod
    def forward(ctx, x, slope):
        xp = get_array_module(x)
        ctx.slope = slope
        ctx.save_for_backward(x)
        return xp.where(x > 0, x, x * slope).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return select_grad(gy, x._data > 0, x, ctx.slope), None


class Sigmoid(Op):
    """y = 1 / (1 + e^-x);   dy/dx = y (1 - y)."""

    @staticmethod
    def forward(ctx, x):
        y = _sigmoid(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return SigmoidGrad.apply(gy, y)


class SigmoidGrad(Op):
    """gx = gy * y (1 - y), fused into one op (one node instead of three in backward);
    d gx/d gy = y (1 - y),   d gx/d y = gy (1 - 2y)."""

    @staticmethod
    def forward(ctx, gy, y):
        ctx.save_for_backward(gy, y)
        gx = 1 - y  # one temporary, reused in place
        if not gx.ndim:  # NumPy returns a scalar for a 0-d array; in place needs an array
            gx = get_array_module(y).asarray(gx)
        gx *= y
        gx *= gy
        return gx

    @staticmethod
    def backward(ctx, ggx):
        gy, y = ctx.saved_tensors
        return ggx * y * (1 - y), ggx * gy * (1 - 2 * y)


class Tanh(Op):
    """y = tanh(x);   dy/dx = 1 - tanh(x)^2 = 1 - y^2."""

    @staticmethod
    def forward(ctx, x):
        y = get_array_module(x).tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return TanhGrad.apply(gy, y)


class TanhGrad(Op):
    """gx = gy (1 - y^2), fused into one op;   d gx/d gy = 1 - y^2,   d gx/d y = -2 y gy."""

    @staticmethod
    def forward(ctx, gy, y):
        ctx.save_for_backward(gy, y)
        xp = get_array_module(y)
        gx = y * y  # one temporary, reused in place: backward's peak memory is what counts here
        if not gx.ndim:  # NumPy returns a scalar for a 0-d array; out= needs an array
            gx = xp.asarray(gx)
        xp.subtract(1, gx, out=gx)
        gx *= gy
        return gx

    @staticmethod
    def backward(ctx, ggx):
        gy, y = ctx.saved_tensors
        return ggx * (1 - y * y), ggx * gy * y * -2


class GELU(Op):
    """y = x Phi(x), Phi the standard normal CDF = (1 + erf(x / sqrt 2)) / 2;
    dy/dx = Phi(x) + x phi(x), phi(x) = e^(-x^2/2) / sqrt(2 pi).

    ``approximate="tanh"``: Phi(x) ~ (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2."""

    @staticmethod
    def forward(ctx, x, approximate):
        xp = get_array_module(x)
        xf = _f32(x)
        if approximate == "tanh":
            k = math.sqrt(2 / math.pi)
            inner = k * (xf + 0.044715 * xf**3)
            cdf = 0.5 * (1 + xp.tanh(inner))
        else:
            cdf = _normal_cdf(xf)
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        cdf *= xf
        return cdf.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * GELUSlope.apply(x, ctx.approximate), None


class GELUSlope(Op):
    """s = d gelu(x)/dx (see GELU);   ds/dx = 2 phi(x) - x^2 phi(x) for the exact form.

    A separate op so that GELU's backward is itself differentiable (second derivatives). The
    curvature ds/dx is computed and kept only when this op is itself recorded (create_graph)."""

    @staticmethod
    def forward(ctx, x, approximate):
        xp = get_array_module(x)
        xf = _f32(x)
        if approximate == "tanh":
            k = math.sqrt(2 / math.pi)
            t = xp.tanh(k * (xf + 0.044715 * xf**3))
            du = k * (1 + 3 * 0.044715 * xf * xf)
            dcdf = 0.5 * (1 - t * t) * du
            slope = 0.5 * (1 + t) + xf * dcdf
            if ctx.needs_input_grad[0]:  # d/dx of slope = 2 dcdf + x * d(dcdf)/dx
                d2cdf = 0.5 * (-2 * t * (1 - t * t) * du * du + (1 - t * t) * k * 6 * 0.044715 * xf)
                curv = 2 * dcdf + xf * d2cdf
                ctx.save_for_backward(curv.astype(x.dtype, copy=False))
        else:
            pdf = _normal_pdf(xf)
            slope = _normal_cdf(xf)
            slope += xf * pdf
            if ctx.needs_input_grad[0]:
                pdf *= 2 - xf * xf
                ctx.save_for_backward(pdf.astype(x.dtype, copy=False))
        return slope.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gs):
        (curv,) = ctx.saved_tensors
        return gs * curv, None


def _normal_cdf(x):
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2 as a new array (x: float32 or float64)."""
    cdf = get_array_module(x).asarray(erf(x / math.sqrt(2)))
    cdf += 1
    cdf *= 0.5
    return cdf


def _normal_pdf(x):
    """phi(x) = e^(-x^2/2) / sqrt(2 pi) as a new array."""
    xp = get_array_module(x)
    pdf = xp.asarray(x * x)  # (NumPy makes a scalar of a 0-d product; in place needs an array)
    pdf *= -0.5
    xp.exp(pdf, out=pdf)
    pdf *= 1 / math.sqrt(2 * math.pi)
    return pdf


class SiLU(Op):
    """y = x sigmoid(x);   dy/dx = s (1 + x (1 - s)),  s = sigmoid(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xf = _f32(x)
        return (xf * _sigmoid(xf)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return gy * s * (1 + x * (1 - s))


class Softplus(Op):
    """y = log1p(e^z) / beta with z = beta x, and y = x where z > threshold (PyTorch's formula);
    dy/dx = sigmoid(z), and 1 where z > threshold.

    log1p keeps e^z's value when it is tiny (log(1 + e^z) would round 1 + e^-30 to 1 and give 0);
    float16/bfloat16 are computed in float32 and rounded once, as PyTorch's CPU kernel does."""

    @staticmethod
    def forward(ctx, x, beta, threshold):
        xp = get_array_module(x)
        xf = _f32(x)
        z = xf * beta
        with np.errstate(over="ignore"):  # e^z overflows only where z > threshold: not used
            soft = xp.log1p(xp.exp(z)) / beta
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        return xp.where(z > threshold, xf, soft).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        z = x * ctx.beta
        # sigmoid on a 1-D view: Sigmoid's in-place passes fail on a 0-d NumPy scalar
        slope = z.reshape(-1).sigmoid().reshape(z.shape)
        return gy * slope.masked_fill(z > ctx.threshold, 1.0), None, None


def _row_max(xf, dim):
    """The max along ``dim`` (kept), subtracted before exp so that nothing overflows. An inf there
    is kept, as in PyTorch: a row with +inf, or only -inf, gives NaN (inf - inf). An empty row
    has no max: 0 (the result is empty anyway)."""
    if xf.size == 0:
        return xf.dtype.type(0)
    return xf.max(axis=dim, keepdims=True)


class Softmax(Op):
    """y_i = e^(x_i - m) / sum_j e^(x_j - m), m = max x (no overflow: see _row_max);
    dL/dx = y * (dL/dy - sum_j dL/dy_j y_j)."""

    autocast = FLOAT32

    @staticmethod
    def forward(ctx, x, dim):
        xp = get_array_module(x)
        xf = _f32(x)
        e = xp.exp(xf - _row_max(xf, dim))
        y = (e / e.sum(axis=dim, keepdims=True)).astype(x.dtype, copy=False)
        ctx.dim = dim
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return y * (gy - (gy * y).sum(dim=ctx.dim, keepdim=True)), None


class LogSoftmax(Op):
    """y_i = x_i - logsumexp(x);   dL/dx = dL/dy - softmax(x) * sum_j dL/dy_j."""

    autocast = FLOAT32

    @staticmethod
    def forward(ctx, x, dim):
        xp = get_array_module(x)
        xf = _f32(x)
        shifted = xf - _row_max(xf, dim)
        total = xp.exp(shifted).sum(axis=dim, keepdims=True) if x.size else 1
        y = (shifted - xp.log(total)).astype(x.dtype, copy=False)
        ctx.dim = dim
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return gy - y.exp() * gy.sum(dim=ctx.dim, keepdim=True), None
