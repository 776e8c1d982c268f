"""Activations: relu, leaky_relu, sigmoid, tanh, gelu, silu, elu/selu/celu, hardswish, softplus,
softmax, log_softmax.

Softmax and log_softmax are written in their numerically stable forms; float16/bfloat16
inputs are computed in float32 and rounded back (as PyTorch's CPU kernels accumulate).

Each op is its formulas in NumPy (forward) and Tensor ops (backward). Where a faster path exists
(a GPU kernel, a 2-byte float's bit trick or table: ``kernels/activation.py`` and
``kernels/gelu.py``), one line hands the work to it, behind a test in this file (``type(x) is not
ndarray``: a GPU array; or, for a CPU path that pays only on large arrays, the size from which it
does, a constant of the kernels module), so the CPU path never enters the speed layer for nothing.
"""

from __future__ import annotations

import math

import numpy as np
from numpy import ndarray

from .. import kernels
from ..autocast_policy import CUDA_FLOAT32
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled, state
from ..autograd.tensor_base import TensorBase
from ..backend import erf, get_array_module, quiet_fp
from .elementwise import select_grad

# NumPy spends about 2,700 instructions more on a Python number operand than on an array of the
# other operand's dtype (NEP 50's "weak scalar" promotion): as much as the arithmetic itself on a
# few dozen floats. So the constant 1 of sigmoid and of the sigmoid/tanh gradients is given to a
# float32 NumPy array (the common case) as a float32 0-d array: the same numbers, a third cheaper.
_ONE_FLOAT32 = np.asarray(1, np.float32)
_FLOAT32 = _ONE_FLOAT32.dtype


def _one(a):
    """The number 1 as an operand for array ``a``, in the form NumPy takes fastest (see above)."""
    return _ONE_FLOAT32 if type(a) is np.ndarray and a.dtype is _FLOAT32 else 1


def _f32(x):
    """Compute 2-byte floats in float32; other dtypes as they are."""
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
        return x.astype(get_array_module(x).float32)
    return x


def _wide(t):
    """A Tensor's 2-byte floats as float32 (a differentiable cast); other dtypes as they are."""
    return t.float() if t.dtype.itemsize == 2 else t


# For x below about -88.7 (float32) e^-x overflows to inf and 1 / (1 + inf) is exactly 0, as in
# PyTorch: right (the true value is below float32's smallest normal number), so NumPy's overflow
# warning is silenced rather than shown to the learner (and the "invalid" one a signalling NaN
# input raises: NaN in, NaN out, as in PyTorch). No overflow-free form gives PyTorch's
# numbers (0.5 tanh(x/2) + 0.5 loses every digit below about -9; clamping -x gives tiny nonzero
# values where PyTorch has 0), and a test for the rare case (a min() over x) costs more than
# errstate. Used as a decorator, errstate costs half what a `with` block inside the function
# does (CuPy arrays never warn: the setting is NumPy's alone).
@np.errstate(over="ignore", invalid="ignore")
def _sigmoid(x):
    """1 / (1 + e^-x), the formula PyTorch's kernels use, in 4 array passes (2-byte floats
    computed in float32, rounded once at the end)."""
    if type(x) is not ndarray and (y := kernels.activation.sigmoid(x)) is not None:
        return y
    xp = get_array_module(x)
    xf = _f32(x)
    t = xp.negative(xf)
    if not t.ndim:  # NumPy returns a scalar for a 0-d array; out= needs an array
        t = xp.asarray(t)
    xp.exp(t, out=t)
    t += _one(t)
    xp.reciprocal(t, out=t)
    return t if xf is x else t.astype(x.dtype)


class ReLU(Op):
    """y = 0 where x < 0, else x (-0 and NaN kept, as in PyTorch);   dy/dx = 1 where y > 0 (or
    NaN), else 0: PyTorch's threshold_backward, which reads the mask off the output and keeps it
    in the graph (see SelectGrad). 2-byte floats on the CPU are exact without widening: their
    values and mask are read off the bits (kernels/activation.py)."""

    @staticmethod
    def forward(ctx, x):
        if x.dtype.kind == "b":
            raise RuntimeError("relu() of a bool tensor is not supported, as in PyTorch")
        # maximum(0, x), not maximum(x, 0): of two equal zeros NumPy's loops return the second
        # operand, so -0 stays -0 (checked over SIMD bodies and tails by the parity tests);
        # a form defined for zeros (where(x < 0, 0, x), or a mask of x < 0) took 1.3-9x as long.
        y = None if x.dtype.itemsize != 2 else kernels.activation.relu_two_byte(x)
        if y is None:
            y = get_array_module(x).maximum(0, _f32(x)).astype(x.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        a, g, xp = y._data, gy._data, get_array_module(y._data)
        fast = type(a) is not ndarray or a.dtype.itemsize == 2  # a GPU kernel, or the bits
        keep = kernels.activation.relu_mask(a) if fast else None
        if keep is None:
            keep = xp.logical_not(a <= 0)
        if state.grad_enabled or not a.ndim:  # create_graph (or a 0-d y): the recorded op
            return select_grad(gy, keep, y)
        if type(g) is not ndarray or g.size >= kernels.elementwise.SELECT_BITS_MIN:
            return TensorBase._make(kernels.elementwise.where_or_zero(keep, g))  # kernel, bits
        return TensorBase._make(xp.where(keep, g, 0))  # gy where y > 0 (or NaN), else 0


class LeakyReLU(Op):
    """y = x where x > 0, else slope * x;   dy/dx = 1 where x > 0, else slope (PyTorch's
    leaky_relu_backward, which keeps x in the gradient's graph: see SelectGrad)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, slope):
        ctx.slope = slope
        ctx.save_for_backward(x)
        if type(x) is not ndarray and (y := kernels.activation.leaky_relu(x, slope)) is not None:
            return y
        return get_array_module(x).where(x > 0, x, x * slope).astype(x.dtype, copy=False)

    @staticmethod
    @quiet_fp
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
        if not state.grad_enabled:  # nothing records: the gradient on arrays, not as an op
            return type(gy)._make(_sigmoid_grad(gy._data, y._data))
        return SigmoidGrad.apply(gy, y)


def _sigmoid_grad(gy, y):
    """gy (1 - y) y on arrays."""
    if type(y) is not ndarray and (gx := kernels.activation.sigmoid_grad(gy, y)) is not None:
        return gx
    dtype, gy, y = gy.dtype, _f32(gy), _f32(y)  # 2-byte floats in float32, rounded once
    gx = _one(y) - y  # one temporary, reused in place
    if not gx.ndim:  # NumPy returns a scalar for a 0-d array; in place needs an array
        gx = get_array_module(y).asarray(gx)
    gx *= gy  # in PyTorch's order, (gy (1 - y)) y: the same roundings, the same numbers
    gx *= y
    return gx.astype(dtype, copy=False) if dtype.itemsize == 2 else gx


class SigmoidGrad(Op):
    """gx = gy (1 - y) y, fused into one op (one node instead of three in backward);
    d gx/d gy = y (1 - y),   d gx/d y = gy (1 - 2y)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, gy, y):
        ctx.save_for_backward(gy, y)
        return _sigmoid_grad(gy, y)

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
        if not state.grad_enabled:  # nothing records: the gradient on arrays, not as an op
            return type(gy)._make(_tanh_grad(gy._data, y._data))
        return TanhGrad.apply(gy, y)


def _tanh_grad(gy, y):
    """gy (1 - y^2) on arrays."""
    if type(y) is not ndarray and (gx := kernels.activation.tanh_grad(gy, y)) is not None:
        return gx
    xp = get_array_module(y)
    dtype, gy, y = gy.dtype, _f32(gy), _f32(y)  # 2-byte floats in float32, rounded once
    gx = y * y  # one temporary, reused in place: backward's peak memory is what counts here
    if not gx.ndim:  # NumPy returns a scalar for a 0-d array; out= needs an array
        gx = xp.asarray(gx)
    xp.subtract(_one(gx), gx, out=gx)
    gx *= gy
    return gx.astype(dtype, copy=False) if dtype.itemsize == 2 else gx


class TanhGrad(Op):
    """gx = gy (1 - y^2), fused into one op;   d gx/d gy = 1 - y^2,   d gx/d y = -2 y gy."""

    @staticmethod
    @quiet_fp
    def forward(ctx, gy, y):
        ctx.save_for_backward(gy, y)
        return _tanh_grad(gy, y)

    @staticmethod
    def backward(ctx, ggx):
        gy, y = ctx.saved_tensors
        return ggx * (1 - y * y), ggx * gy * y * -2


class GELU(Op):
    """y = x Phi(x), Phi the standard normal CDF = (1 + erf(x / sqrt 2)) / 2;
    dy/dx = Phi(x) + x phi(x), phi(x) = e^(-x^2/2) / sqrt(2 pi).

    ``approximate="tanh"``: Phi(x) ~ (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2.

    When x wants a gradient, forward also computes the slope dy/dx (it shares Phi and e^(-x^2/2)
    with y) and keeps it, so backward is one multiply by GELUSlope's output (the kept slope; under
    create_graph also differentiable, so second derivatives are exact).

    float16/bfloat16 x: y and the slope are those of the float32 computation, y rounded once;
    the slope stays float32, so dL/dy * slope is rounded once (as PyTorch's gelu_backward)."""

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.approximate = approximate
        y, slope = _gelu_parts(x, approximate, ctx.needs_input_grad[0])
        ctx.save_for_backward(x, slope)
        return y.astype(x.dtype, copy=False)

    @staticmethod
    @quiet_fp  # (dL/dy * slope may overflow to inf, quietly as in PyTorch)
    def backward(ctx, gy):
        x, slope = ctx.saved_tensors
        slope = None if slope is None else slope._data  # (forward's, or None: computed again)
        g = gy._data  # a 2-byte dL/dy: the same product, widened and rounded in one pass
        if not is_grad_enabled() and slope is not None:  # no graph: the product of the arrays
            if g.dtype.itemsize == 2 and (gx := kernels.gelu.times_slope(g, slope)) is not None:
                return type(gy)._make(gx), None
            if g.dtype == slope.dtype and g.shape == slope.shape:
                return type(gy)._make(g * slope), None
        return gy * GELUSlope.apply(x, ctx.approximate, slope), None


def _gelu_parts(x, approximate: str, want_slope: bool) -> tuple:
    """(gelu(x), its slope or None): the fast path where one applies (a GPU kernel, the float32
    exact form, a 2-byte float's tables: kernels/gelu.py), else the formulas (_gelu)."""
    if (fast := kernels.gelu.gelu(x, approximate, want_slope, _gelu)) is not None:
        return fast
    return _gelu(_f32(x), approximate, want_slope)


class GELUSlope(Op):
    """s = d gelu(x)/dx (see GELU);   ds/dx = 2 phi(x) - x^2 phi(x) for the exact form.

    GELU's backward: ``slope`` is the one GELU's forward computed (None: computed here). The
    curvature ds/dx is computed and kept only when this op is itself recorded (create_graph)."""

    @staticmethod
    def forward(ctx, x, approximate, slope):
        if slope is None:
            slope = _gelu_parts(x, approximate, True)[1]
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(_gelu_curvature(_f32(x), approximate))
        return slope

    @staticmethod
    def backward(ctx, gs):
        (curv,) = ctx.saved_tensors
        return gs * curv, None, None


@quiet_fp
def _gelu(xf, approximate: str, want_slope: bool) -> tuple:
    """(gelu(x), its slope or None) for float32/float64 x by the formulas: the exact form through
    backend.erf, the tanh form by its own."""
    xp = get_array_module(xf)
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = xp.tanh(k * (xf + 0.044715 * (xf * xf * xf)))  # x^3 as x x x, as PyTorch computes it
        cdf = 0.5 * (1 + t)
        slope = None
        if want_slope:
            slope = xf * (0.5 * (1 - t * t) * k * (1 + 3 * 0.044715 * xf * xf))
            slope += cdf
        return cdf * xf, slope
    cdf = _normal_cdf(xf)
    slope = None
    with np.errstate(invalid="ignore"):  # x = +-inf: inf * 0 is NaN, as in PyTorch
        if want_slope:
            slope = _normal_pdf(xf)
            slope *= xf
            slope += cdf
        cdf *= xf
    return cdf, slope


def _normal_cdf(x):
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2 as a new array (x: float32 or float64)."""
    cdf = get_array_module(x).asarray(erf(x / math.sqrt(2)))
    cdf += 1
    cdf *= 0.5
    return cdf


def _gelu_curvature(xf, approximate: str):
    """d^2 gelu(x)/dx^2 = d slope/dx: 2 phi(x) - x^2 phi(x) = phi(x) (2 - x^2) for the exact form;
    for the tanh form, 2 dcdf + x d(dcdf)/dx with cdf = (1 + t) / 2, t = tanh(u)."""
    if type(xf) is not ndarray and (c := kernels.gelu.gelu_curvature(xf, approximate)) is not None:
        return c
    if approximate == "tanh":
        xp = get_array_module(xf)
        k = math.sqrt(2 / math.pi)
        t = xp.tanh(k * (xf + 0.044715 * (xf * xf * xf)))
        du = k * (1 + 3 * 0.044715 * xf * xf)
        dcdf = 0.5 * (1 - t * t) * du
        d2cdf = 0.5 * (-2 * t * (1 - t * t) * du * du + (1 - t * t) * k * 6 * 0.044715 * xf)
        return 2 * dcdf + xf * d2cdf
    curv = _normal_pdf(xf)
    curv *= 2 - xf * xf
    return curv


@quiet_fp
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
    @quiet_fp
    def forward(ctx, x):
        ctx.save_for_backward(x)
        if type(x) is not ndarray and (y := kernels.activation.silu(x)) is not None:
            return y
        xf = _f32(x)
        return (xf * _sigmoid(xf)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        if _gpu_grad(gy) and (gx := kernels.activation.silu_grad(gy._data, x._data)) is not None:
            return type(gy)._make(gx)
        xf = _wide(x)  # 2-byte floats in float32, gx rounded once (by the engine's cast)
        s = xf.sigmoid()
        return _wide(gy) * s * (1 + xf * (1 - s))


def _gpu_grad(gy) -> bool:
    """May a backward hand its work to a GPU kernel? Only for a GPU array, and not under
    create_graph (a kernel's result is no op of the graph)."""
    return type(gy._data) is not ndarray and not is_grad_enabled()


class ELU(Op):
    """The ELU family (elu, selu, celu) in PyTorch's form, with c = alpha * scale:
    y = scale * x for x > 0, else c (e^(x k) - 1);   dy/dx = scale for x > 0, else c k e^(x k).
    elu: scale = k = 1;  selu: alpha, scale = SELU_ALPHA, SELU_SCALE, k = 1;  celu: k = 1/alpha.
    As in PyTorch: -0 stays -0, NaN propagates and passes its gradient on (it is not <= 0), and
    the slope is c k e^(x k), not recovered from y, so it keeps e^(x k)'s subnormals far below 0.
    float16/bfloat16 are computed in float32 and rounded once."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, alpha, scale, k):
        ctx.save_for_backward(x)
        ctx.alpha, ctx.scale, ctx.k = alpha, scale, k
        if type(x) is not ndarray and (y := kernels.activation.elu(x, alpha, scale, k)) is not None:
            return y
        xp = get_array_module(x)
        xf = _f32(x)
        # x k where x < 0, else 0 (fmin ignores NaN), so e^(x k) cannot overflow where unused.
        # The zeros take the scale * x branch: the same value, their sign kept.
        z = xp.fmin(xf, 0)
        if k != 1:
            z *= k
        y = xp.expm1(z)
        y *= alpha * scale
        y = xp.where(xf < 0, y, xf if scale == 1 else xf * scale)
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        c_k = ctx.alpha * ctx.scale * ctx.k
        if (
            _gpu_grad(gy)
            and (gx := kernels.activation.elu_grad(gy._data, x._data, ctx.k, c_k, ctx.scale))
            is not None
        ):
            return type(gy)._make(gx), None, None, None
        xf = _wide(x)  # 2-byte floats in float32, gx rounded once (by the engine's cast)
        above = xf._data > 0
        above |= xf._data != xf._data  # ... or NaN
        # x enters the exponential only where x < 0: at x = 0 the slope is c k, a constant, so
        # the second derivative there is 0, as PyTorch's (x < 0) mask makes it
        slope = (xf.masked_fill(~(xf._data < 0), 0.0) * ctx.k).exp() * c_k
        return _wide(gy) * slope.masked_fill(above, ctx.scale), None, None, None


class Hardswish(Op):
    """y = x relu6(x + 3) / 6, PyTorch's formula everywhere (no branches): so -0 for
    -3 >= x > -inf, NaN at -inf (-inf * 0), and inf where x * 6 overflows;
    dy/dx = 0 for x <= -3, x/3 + 1/2 for -3 < x < 3, else 1 (NaN and x >= 3: the gradient
    passes, as in PyTorch). float16/bfloat16 are computed in float32 and rounded once."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        if type(x) is not ndarray and (y := kernels.activation.hardswish(x)) is not None:
            return y
        xf = _f32(x)
        with np.errstate(over="ignore", invalid="ignore"):  # x * 6 near max; -inf * 0
            y = xf * get_array_module(x).clip(xf + 3, 0, 6) / 6
        return y.astype(x.dtype, copy=False)

    @staticmethod
    @quiet_fp
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        a = x._data
        if _gpu_grad(gy) and (gx := kernels.activation.hardswish_grad(gy._data, a)) is not None:
            return type(gy)._make(gx)
        beyond = get_array_module(a).logical_not(a < 3)  # x >= 3, or NaN
        slope = (_wide(x) / 3 + 0.5).masked_fill(a <= -3, 0.0).masked_fill(beyond, 1.0)
        return _wide(gy) * slope  # float32 for 2-byte floats, rounded once


class Softplus(Op):
    """y = log1p(e^z) / beta with z = beta x, and y = x where z > threshold (PyTorch's formula);
    dy/dx = sigmoid(z) = e^z / (e^z + 1), and 1 where z > threshold.

    log1p keeps e^z's value when it is tiny (log(1 + e^z) would round 1 + e^-30 to 1 and give 0);
    float16/bfloat16 are computed in float32 and rounded once, as PyTorch's CPU kernel does."""

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp
    def forward(ctx, x, beta, threshold):
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        fast = type(x) is not ndarray
        if fast and (y := kernels.activation.softplus(x, beta, threshold)) is not None:
            return y
        xp = get_array_module(x)
        xf = _f32(x)
        z = xf * beta
        with np.errstate(over="ignore"):  # e^z overflows only where z > threshold: not used
            soft = xp.log1p(xp.exp(z)) / beta
        return xp.where(z > threshold, xf, soft).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        if (
            _gpu_grad(gy)
            and (gx := kernels.activation.softplus_grad(gy._data, x._data, ctx.beta, ctx.threshold))
            is not None
        ):
            return type(gy)._make(gx), None, None
        z = _wide(x) * ctx.beta  # 2-byte floats in float32, gx rounded once
        # sigmoid(z) as e^z / (e^z + 1), PyTorch's form: for z below about -88.7 it is e^z itself
        # (a subnormal), where 1 / (1 + e^-z) overflows to 1 / inf = 0. Above the threshold 1
        # replaces it; z is held at the threshold from there on so that e^z does not overflow
        # (inf / inf would put NaN in second derivatives, masked or not), as a constant: the
        # second derivative is 0 from z = threshold on, as PyTorch's (z < threshold) mask makes it
        e = z.masked_fill(z._data >= ctx.threshold, ctx.threshold).exp()
        return _wide(gy) * (e / (e + 1)).masked_fill(z > ctx.threshold, 1.0), None, None


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

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp  # a row of all -inf: -inf - -inf = NaN, as in PyTorch
    def forward(ctx, x, dim):
        ctx.dim = dim
        if type(x) is not ndarray and (y := kernels.activation.softmax(x, dim)) is not None:
            ctx.save_for_backward(y)
            return y
        xf = _f32(x)
        e = get_array_module(x).exp(xf - _row_max(xf, dim))
        y = (e / e.sum(axis=dim, keepdims=True)).astype(x.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        if (
            _gpu_grad(gy)
            and (gx := kernels.activation.softmax_grad(gy._data, y._data, ctx.dim)) is not None
        ):
            return type(gy)._make(gx), None
        g, yd = gy._data, y._data
        if not state.grad_enabled and g.dtype.itemsize >= 4 and g.dtype is yd.dtype:
            # nothing records: the same three passes on arrays, not as four ops
            return type(gy)._make(yd * (g - (g * yd).sum(axis=ctx.dim, keepdims=True))), None
        y, gy = _wide(y), _wide(gy)  # 2-byte floats in float32, gx rounded once
        return y * (gy - (gy * y).sum(dim=ctx.dim, keepdim=True)), None


class LogSoftmax(Op):
    """y_i = x_i - logsumexp(x);   dL/dx = dL/dy - softmax(x) * sum_j dL/dy_j."""

    autocast = CUDA_FLOAT32

    @staticmethod
    @quiet_fp  # a row of all -inf: -inf - -inf = NaN, as in PyTorch
    def forward(ctx, x, dim):
        ctx.dim = dim
        fast = type(x) is not ndarray
        if fast and (y := kernels.activation.softmax(x, dim, log=True)) is not None:
            ctx.save_for_backward(y)
            return y
        xp = get_array_module(x)
        xf = _f32(x)
        shifted = xf - _row_max(xf, dim)
        total = xp.exp(shifted).sum(axis=dim, keepdims=True) if x.size else 1
        y = (shifted - xp.log(total)).astype(x.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        if (
            _gpu_grad(gy)
            and (gx := kernels.activation.softmax_grad(gy._data, y._data, ctx.dim, log=True))
            is not None
        ):
            return type(gy)._make(gx), None
        y, gy = _wide(y), _wide(gy)  # 2-byte floats in float32, gx rounded once
        return gy - y.exp() * gy.sum(dim=ctx.dim, keepdim=True), None
