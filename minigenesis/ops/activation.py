"""Activations: relu, leaky_relu, sigmoid, tanh, gelu, silu, elu/selu/celu, hardswish, softplus,
softmax, log_softmax.

Softmax and log_softmax are written in their numerically stable forms; float16/bfloat16
inputs are computed in float32 and rounded back (as PyTorch's CPU kernels accumulate).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..autocast_policy import FLOAT32
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ..backend import erf, get_array_module
from ..gpu_kernels import ElementwiseKernel, ReductionKernel, kernel_fits
from .elementwise import select_grad, where_or_zero

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


# Elementwise chains as one GPU kernel each, the same arithmetic in the same order as the NumPy
# code of the op that calls it (so the CPU stand-in for CuPy gives its numbers bit for bit; on a
# GPU, exp and tanh are CUDA's, within 2 ulp). A Python float c written as (T)c rounds to T as
# NumPy rounds a Python float against a T array.
# sigmoid: 1 launch instead of 4 (negate, exp, add, reciprocal)
_SIGMOID = ElementwiseKernel("sigmoid", "T x", "T y", "y = (T)1 / ((T)1 + exp(-x));")
# silu: 1 instead of 5
_SILU = ElementwiseKernel("silu", "T x", "T y", "y = x * ((T)1 / ((T)1 + exp(-x)));")
# silu's backward (not under create_graph): 1 instead of 9 (sigmoid's 4 and 5 products and sums)
_SILU_GRAD = ElementwiseKernel(
    "silu_grad",
    "T gy, T x",
    "T gx",
    "T s = (T)1 / ((T)1 + exp(-x)); gx = gy * s * ((T)1 + x * ((T)1 - s));",
)
# SigmoidGrad and TanhGrad's forward: 1 instead of 3
_SIGMOID_GRAD = ElementwiseKernel("sigmoid_grad", "T gy, T y", "T gx", "gx = ((T)1 - y) * gy * y;")
_TANH_GRAD = ElementwiseKernel("tanh_grad", "T gy, T y", "T gx", "gx = ((T)1 - y * y) * gy;")
# ReLU's backward mask, not (y <= 0): 1 launch instead of 2
_ABOVE_ZERO_OR_NAN = ElementwiseKernel(
    "above_zero_or_nan", "T y", "bool keep", "keep = y <= (T)0 ? 0 : 1;"
)
# leaky_relu: 1 instead of 3 (compare, product, where)
_LEAKY_RELU = ElementwiseKernel(
    "leaky_relu", "T x, T slope", "T y", "y = x > (T)0 ? x : x * slope;"
)
# The ELU family's forward: 1 instead of 4-5 (fmin, product, expm1, product, where)
_ELU = ElementwiseKernel(
    "elu",
    "T x, T k, T c, T scale",
    "T y",
    "T e = expm1(fmin(x, (T)0) * k) * c; y = x < (T)0 ? e : x * scale;",
)
# its backward (not under create_graph): 1 instead of 4-8; where c k != scale the slope is
# mixed with scale by products with the 0/1 mask, as the NumPy code does
_ELU_GRAD = ElementwiseKernel(
    "elu_grad", "T gy, T x, T k, T ck", "T gx", "gx = gy * (exp(fmin(x, (T)0) * k) * ck);"
)
_ELU_GRAD_MIXED = ElementwiseKernel(
    "elu_grad_mixed",
    "T gy, T x, T k, T ck, T scale",
    "T gx",
    "T s = exp(fmin(x, (T)0) * k) * ck; T neg = x <= (T)0 ? (T)1 : (T)0;"
    " gx = gy * (s * neg + ((T)1 - neg) * scale);",
)
# hardswish: 1 instead of 4 (add, clip, product, quotient); its backward 1 instead of 8
_HARDSWISH = ElementwiseKernel(
    "hardswish",
    "T x",
    "T y",
    "T r = x + (T)3; r = r < (T)0 ? (T)0 : r; r = r > (T)6 ? (T)6 : r; y = x * r / (T)6;",
)
_HARDSWISH_GRAD = ElementwiseKernel(
    "hardswish_grad",
    "T gy, T x",
    "T gx",
    "T s = x / (T)3 + (T)0.5; s = x <= (T)(-3) ? (T)0 : s; s = x < (T)3 ? s : (T)1; gx = gy * s;",
)
# softplus: 1 instead of 5; its backward 1 instead of 7
_SOFTPLUS = ElementwiseKernel(
    "softplus",
    "T x, T beta, T threshold",
    "T y",
    "T z = x * beta; y = z > threshold ? x : log1p(exp(z)) / beta;",
)
_SOFTPLUS_GRAD = ElementwiseKernel(
    "softplus_grad",
    "T gy, T x, T beta, T threshold",
    "T gx",
    "T z = x * beta; T zc = z > threshold ? threshold : z; T e = exp(zc); T s = e / (e + (T)1);"
    " s = z > threshold ? (T)1 : s; gx = gy * s;",
)


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
    xp = get_array_module(x)
    xf = _f32(x)
    if xp is not np and kernel_fits(xf, contiguous=True):  # one launch (see _SIGMOID)
        t = _SIGMOID(xf)
        return t if xf is x else t.astype(x.dtype)
    t = xp.negative(xf)
    if not t.ndim:  # NumPy returns a scalar for a 0-d array; out= needs an array
        t = xp.asarray(t)
    xp.exp(t, out=t)
    t += _one(t)
    xp.reciprocal(t, out=t)
    return t if xf is x else t.astype(x.dtype)


def _two_byte_float(a) -> bool:
    """A float16 or bfloat16 NumPy array (not on a GPU)?"""
    return type(a) is np.ndarray and a.dtype.itemsize == 2 and a.dtype.kind in "fV"


def _above_zero_or_nan(a):
    """``not (a <= 0)`` of a 2-byte float NumPy array, read off its bits: as int16, the values
    <= 0 are +0 (0) and the negative numbers, -0 and -inf included (-32768 up to -inf's bits);
    the negative NaNs lie above -inf's bits. Two integer passes, where NumPy's bfloat16
    comparison is an ml_dtypes loop ~6x slower."""
    bits = a.view(np.int16)
    return (bits > np.asarray(-np.inf, a.dtype).view(np.int16)) & (bits != 0)


_NEGATIVE_ZERO_BITS = np.int16(-(2**15))  # a 2-byte float's -0 (the sign bit alone) as int16


def _not_below_zero(a):
    """``not (a < 0)`` of a 2-byte float NumPy array, read off its bits: as int16, the values
    below 0 are the negative numbers from the smallest subnormal (-32767) up to -inf's bits; -0
    (-32768) and the negative NaNs (above -inf's bits) are kept, as PyTorch's relu keeps them."""
    bits = a.view(np.int16)
    return (bits > np.asarray(-np.inf, a.dtype).view(np.int16)) | (bits == _NEGATIVE_ZERO_BITS)


class ReLU(Op):
    """y = 0 where x < 0, else x (-0 and NaN kept, as in PyTorch);   dy/dx = 1 where y > 0 (or
    NaN), else 0: PyTorch's threshold_backward, which reads the mask off the output and keeps it
    in the graph (see SelectGrad).
    A 2-byte float (autocast's activations) is never widened or rounded: y is x with the bits
    of its elements below 0 cleared, and the mask is read off the bits (exact either way)."""

    @staticmethod
    def forward(ctx, x):
        if _two_byte_float(x):
            y = where_or_zero(_not_below_zero(x), x)
        else:  # 2-byte floats on a GPU are computed in float32 (CuPy lacks some bfloat16 loops)
            # maximum(0, x), not maximum(x, 0): of two equal zeros NumPy's loops return the second
            # operand, so -0 stays -0 (checked over SIMD bodies and tails by the parity tests);
            # a form defined for zeros (where(x < 0, 0, x), or a mask of x < 0) took 1.3-9x as long.
            y = get_array_module(x).maximum(0, _f32(x)).astype(x.dtype, copy=False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        a = y._data
        if kernel_fits(a):  # one launch (see _ABOVE_ZERO_OR_NAN), any layout: the mask
            keep = _ABOVE_ZERO_OR_NAN(a, get_array_module(a).empty_like(a, dtype=bool))  # as y
        elif _two_byte_float(a):
            keep = _above_zero_or_nan(a)
        else:
            keep = get_array_module(a).logical_not(a <= 0)
        return select_grad(gy, keep, y)


class LeakyReLU(Op):
    """y = x where x > 0, else slope * x;   dy/dx = 1 where x > 0, else slope (PyTorch's
    leaky_relu_backward, which keeps x in the gradient's graph: see SelectGrad)."""

    @staticmethod
    def forward(ctx, x, slope):
        xp = get_array_module(x)
        ctx.slope = slope
        ctx.save_for_backward(x)
        if kernel_fits(x, contiguous=True):  # one launch (see _LEAKY_RELU)
            return _LEAKY_RELU(x, slope)
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
    """gx = gy (1 - y) y, fused into one op (one node instead of three in backward);
    d gx/d gy = y (1 - y),   d gx/d y = gy (1 - 2y)."""

    @staticmethod
    def forward(ctx, gy, y):
        ctx.save_for_backward(gy, y)
        # one launch (see _SIGMOID_GRAD); the type test first, so the CPU path (tanh's and
        # sigmoid's gradients are in every chain of small ops) pays a comparison, not a call
        if type(y) is not np.ndarray and kernel_fits(y, gy, contiguous=True):
            return _SIGMOID_GRAD(gy, y)
        gx = _one(y) - y  # one temporary, reused in place
        if not gx.ndim:  # NumPy returns a scalar for a 0-d array; in place needs an array
            gx = get_array_module(y).asarray(gx)
        gx *= gy  # in PyTorch's order, (gy (1 - y)) y: the same roundings, the same numbers
        gx *= y
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
        # one launch (see _TANH_GRAD); the type test first, as in SigmoidGrad
        if type(y) is not np.ndarray and kernel_fits(y, gy, contiguous=True):
            return _TANH_GRAD(gy, y)
        xp = get_array_module(y)
        gx = y * y  # one temporary, reused in place: backward's peak memory is what counts here
        if not gx.ndim:  # NumPy returns a scalar for a 0-d array; out= needs an array
            gx = xp.asarray(gx)
        xp.subtract(_one(gx), gx, out=gx)
        gx *= gy
        return gx

    @staticmethod
    def backward(ctx, ggx):
        gy, y = ctx.saved_tensors
        return ggx * (1 - y * y), ggx * gy * y * -2


class GELU(Op):
    """y = x Phi(x), Phi the standard normal CDF = (1 + erf(x / sqrt 2)) / 2;
    dy/dx = Phi(x) + x phi(x), phi(x) = e^(-x^2/2) / sqrt(2 pi).

    ``approximate="tanh"``: Phi(x) ~ (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2.

    When x wants a gradient, forward also computes the slope dy/dx (it shares Phi and e^(-x^2/2)
    with y) and keeps it, so backward is one multiply. Under create_graph the slope comes from
    GELUSlope instead, an op of its own, so that second derivatives are exact.

    float16/bfloat16 x: y and the slope are those of the float32 kernel, y rounded once; backward
    rounds dL/dy * slope once (as PyTorch's gelu_backward). A 2-byte float has only 65,536
    values, so on the CPU both come from tables of every value (see _gelu_tables): forward is one
    gather instead of ~30 float32 passes, and backward gathers the slope from the x it kept."""

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.approximate = approximate
        if _tabulated(x):  # the same bits as the kernel below, looked up
            ctx.save_for_backward(x, None)
            return np.asarray(_gelu_tables(x, approximate)[0].take(x.view(np.uint16)))
        y, slope = _gelu(_f32(x), approximate, ctx.needs_input_grad[0])
        ctx.save_for_backward(x, slope)  # the slope in float32 for 2-byte x: rounded only in gx
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        x, slope = ctx.saved_tensors
        if is_grad_enabled():  # create_graph=True: the slope as a differentiable op
            return gy * GELUSlope.apply(x, ctx.approximate), None
        if slope is None:  # tabulated: the slope of each x, gathered
            slope = _gelu_tables(x._data, ctx.approximate)[1].take(x._data.view(np.uint16))
        else:
            slope = slope._data
        gx = get_array_module(slope).multiply(_f32(gy._data), slope)
        return type(gy)._make(gx.astype(gy._data.dtype, copy=False)), None


def _tabulated(x) -> bool:
    """Is GELU of x looked up in a table? For a 2-byte float NumPy array (not on a GPU)."""
    return type(x) is np.ndarray and x.dtype.itemsize == 2 and x.dtype.kind in "fV"


_GELU_TABLES: dict = {}


def _gelu_tables(x, approximate: str) -> tuple:
    """(y, slope) of GELU at every value of x's 2-byte float dtype, indexed by its 16-bit pattern:
    the float32 kernel's y rounded to the dtype (2 bytes each) and its slope in float32 (4 bytes
    each). Made on first use (~1 ms), then kept: 384 KiB per dtype and approximation."""
    key = (x.dtype, approximate)
    tables = _GELU_TABLES.get(key)
    if tables is None:
        every = get_array_module(x).arange(2**16, dtype=np.uint16).view(x.dtype)
        with np.errstate(all="ignore"):  # inf and NaN among them: as the kernel computes them
            y, slope = _gelu(every.astype(np.float32), approximate, True)
        tables = _GELU_TABLES[key] = (y.astype(x.dtype), slope)
    return tables


class GELUSlope(Op):
    """s = d gelu(x)/dx (see GELU);   ds/dx = 2 phi(x) - x^2 phi(x) for the exact form.

    GELU's backward under create_graph (second derivatives). The curvature ds/dx is computed
    and kept only when this op is itself recorded."""

    @staticmethod
    def forward(ctx, x, approximate):
        xf = _f32(x)
        want_curv = ctx.needs_input_grad[0]
        if kernel_fits(xf, contiguous=True):  # slope (and curvature) in one launch
            out = _gelu_kernel(approximate, ("s", "c") if want_curv else ("s",))(xf)
            slope, curv = out if want_curv else (out, None)
        else:
            slope = _gelu(xf, approximate, True)[1]
            curv = _gelu_curvature(xf, approximate) if want_curv else None
        if curv is not None:
            ctx.save_for_backward(curv.astype(x.dtype, copy=False))
        return slope.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gs):
        (curv,) = ctx.saved_tensors
        return gs * curv, None


def _gelu(xf, approximate: str, want_slope: bool) -> tuple:
    """(gelu(x), its slope or None) for float32/float64 x: the exact form in float32 by
    _gelu_float32, in float64 through backend.erf; the tanh form by its formula."""
    if kernel_fits(xf, contiguous=True):  # one launch (see _gelu_kernel)
        if want_slope:
            return _gelu_kernel(approximate, ("y", "s"))(xf)
        return _gelu_kernel(approximate, ("y",))(xf), None
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
    if xf.dtype == xp.float32:
        shape = xf.shape  # 1-D inside: NumPy turns 0-d results into scalars, which out= refuses
        y, slope = _gelu_float32(xf.reshape(-1), want_slope)
        return y.reshape(shape), None if slope is None else slope.reshape(shape)
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


def _normal_pdf(x):
    """phi(x) = e^(-x^2/2) / sqrt(2 pi) as a new array."""
    xp = get_array_module(x)
    pdf = xp.asarray(x * x)  # (NumPy makes a scalar of a 0-d product; in place needs an array)
    pdf *= -0.5
    xp.exp(pdf, out=pdf)
    pdf *= 1 / math.sqrt(2 * math.pi)
    return pdf


# ---------------------------------------------------------------- the exact GELU in float32
# With E = Phi(-|x|), the normal tail (no cancellation in it: relative accuracy kept for all x):
#
#     Phi(x)   = E + [x >= 0] (1 - 2 E)           (1 - E for x >= 0, and E itself below 0)
#     gelu(x)  = x Phi(x),   gelu'(x) = Phi(x) + x phi(x),   phi(x) = e^(-x^2/2) / sqrt(2 pi)
#
# E = e^(-a^2/2) R(a), a = |x|, where R(a) = Phi(-a) e^(a^2/2) is smooth and slowly varying
# (1/2 at 0, ~1/(a sqrt(2 pi)) for large a): R = P/Q with P, Q polynomials of degrees 4 and 5,
# all coefficients positive (no cancellation, no poles), fitted for least maximum relative error
# on [0, 15]: 6e-9, a tenth of float32's resolution, and P(0)/Q(0) = 1/2 exactly. Beyond a = 15,
# e^(-a^2/2) is 0 in float32, so a is clamped there (R stays finite for infinite x).
#
# Cost: 30 float32 passes over x and one exp (which takes as long as ~8 passes) for gelu, 3 more
# for gelu', each written into a buffer in place (backend.erf's float64 evaluation made ~25
# passes over float64 temporaries for Phi alone). Accuracy: within 4 ulp of the true gelu
# for x >= -1 (NumPy's float32 exp alone errs by up to 2.3 ulp; PyTorch's float32 gelu by up to
# 9), and a relative error below 3e-6 in the negative tail, where PyTorch's float32 erf loses
# all digits (1 + erf(x) cancels) and returns 0 from x = -5.6 on.
_GELU_P = (48.45803, 42.478283, 17.758734, 3.9381046, 0.3989469)
_GELU_Q = (96.91606, 162.28444, 116.54321, 45.500042, 9.871989)  # and a^5: Q is monic
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _gelu_float32_passes(x, want_slope: bool) -> tuple:
    """(gelu(x), gelu'(x) or None) for a 1-D float32 array x (see the notes above)."""
    xp, f32 = get_array_module(x), x.dtype.type
    u = xp.multiply(x, x)
    u *= f32(-0.5)
    xp.exp(u, out=u)  # e^(-x^2/2) = sqrt(2 pi) phi(x)
    a = xp.abs(x)
    xp.minimum(a, f32(15), out=a)  # the same E, and R finite for infinite x
    e = _polynomial(a, _GELU_P, xp.empty_like(x))
    cdf = _polynomial(a, _GELU_Q + (1.0,), xp.empty_like(x))
    xp.divide(e, cdf, out=e)  # R(a)
    e *= u  # E
    xp.multiply(e, f32(-2), out=cdf)
    cdf += f32(1)
    cdf *= x >= 0
    cdf += e  # Phi(x)
    y = xp.multiply(x, cdf, out=a)  # (at x = -inf: -inf * 0 = NaN, as in PyTorch)
    if not want_slope:
        return y, None
    slope = xp.multiply(x, u, out=u)
    slope *= f32(_INV_SQRT_2PI)
    slope += cdf
    return y, slope


# Infinite x: x^2 overflows (its e^(-x^2/2) = 0 is right), and the slope there is inf * 0 = NaN,
# as in PyTorch; NumPy's warnings for them are silenced (see _sigmoid_numpy for why a decorator).
_gelu_float32_numpy = np.errstate(over="ignore", invalid="ignore")(_gelu_float32_passes)


def _gelu_float32(x, want_slope: bool) -> tuple:
    if isinstance(x, np.ndarray):
        return _gelu_float32_numpy(x, want_slope)
    return _gelu_float32_passes(x, want_slope)


def _polynomial(t, coefs: tuple, out):
    """sum_k coefs[k] t^k by Horner's rule, written into ``out`` (t's shape and dtype)."""
    f = t.dtype.type
    if coefs[-1] == 1.0:
        get_array_module(t).add(t, f(coefs[-2]), out=out)
    else:
        get_array_module(t).multiply(t, f(coefs[-1]), out=out)
        out += f(coefs[-2])
    for c in coefs[-3::-1]:
        out *= t
        out += f(c)
    return out


# ---------------------------------------------------------------- GELU as one GPU kernel
# The NumPy code above, one element at a time, for the outputs asked for: y = gelu(x), s = its
# slope gelu'(x), c = its curvature gelu''(x) (GELUSlope's backward). The tanh form is _gelu's and
# _gelu_curvature's arithmetic in their order (the CPU stand-in gives their numbers bit for bit).
# The exact form takes Phi(x) = erfc(-x / sqrt 2) / 2 from CUDA's erfc (within 4 ulp): the same
# number as (1 + erf(x / sqrt 2)) / 2, without that form's cancellation for x << 0, so the
# negative tail keeps its relative accuracy as _gelu_float32 does (about 1e-5 down to x = -13,
# from the rounding of x / sqrt 2). One launch where _gelu_float32 makes 33 (float64: ~10).
_GELU_TEMPORARIES = {
    "none": (
        f"T cdf = erfc(-x / (T){math.sqrt(2)!r}) * (T)0.5;",
        "T e = exp(-x * x * (T)0.5);",  # e^(-x^2/2) = sqrt(2 pi) phi(x)
    ),
    "tanh": (
        f"T t = tanh((T){math.sqrt(2 / math.pi)!r} * (x + (T)0.044715 * (x * x * x)));",
        "T q = (T)1 - t * t;",
        "T cdf = (T)0.5 * ((T)1 + t);",
        f"T du = (T){math.sqrt(2 / math.pi)!r} * ((T)1 + (T){3 * 0.044715!r} * x * x);",
    ),
}
_GELU_OUTPUTS = {
    "none": {
        "y": "y = cdf * x;",
        "s": f"s = x * e * (T){_INV_SQRT_2PI!r} + cdf;",
        "c": f"c = e * (T){_INV_SQRT_2PI!r} * ((T)2 - x * x);",
    },
    "tanh": {
        "y": "y = cdf * x;",
        "s": (
            f"s = x * ((T)0.5 * q * (T){math.sqrt(2 / math.pi)!r}"
            f" * ((T)1 + (T){3 * 0.044715!r} * x * x)) + cdf;"
        ),
        "c": (
            "c = (T)2 * ((T)0.5 * q * du) + x * ((T)0.5 * ((T)(-2) * t * q * du * du"
            f" + q * (T){math.sqrt(2 / math.pi)!r} * (T)6 * (T)0.044715 * x));"
        ),
    },
}


@functools.cache
def _gelu_kernel(approximate: str, outputs: tuple) -> ElementwiseKernel:
    """The kernel computing ``outputs`` (of "y", "s", "c") of GELU's form ``approximate``."""
    body = _GELU_TEMPORARIES[approximate] + tuple(_GELU_OUTPUTS[approximate][o] for o in outputs)
    return ElementwiseKernel(
        f"gelu_{approximate}_{''.join(outputs)}",
        "T x",
        ", ".join(f"T {o}" for o in outputs),
        "\n".join(body),
    )


class SiLU(Op):
    """y = x sigmoid(x);   dy/dx = s (1 + x (1 - s)),  s = sigmoid(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xf = _f32(x)
        fused = kernel_fits(xf, contiguous=True)
        y = _SILU(xf) if fused else xf * _sigmoid(xf)  # (one launch: see _SILU)
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        if not is_grad_enabled() and kernel_fits(x._data, gy._data, contiguous=True):
            # one launch (see _SILU_GRAD)
            return type(gy)._make(_SILU_GRAD(gy._data, x._data))
        s = x.sigmoid()  # (as differentiable ops under create_graph)
        return gy * s * (1 + x * (1 - s))


class ELU(Op):
    """The ELU family (elu, selu, celu) in PyTorch's form, with c = alpha * scale:
    y = scale * x for x > 0, else c (e^(x k) - 1);   dy/dx = scale for x > 0, else c k e^(x k).
    elu: scale = k = 1;  selu: alpha, scale = SELU_ALPHA, SELU_SCALE, k = 1;  celu: k = 1/alpha.
    As in PyTorch: -0 stays -0, NaN propagates and passes its gradient on (it is not <= 0), and
    the slope is c k e^(x k), not recovered from y, so it keeps e^(x k)'s subnormals far below 0.
    float16/bfloat16 are computed in float32 and rounded once."""

    @staticmethod
    def forward(ctx, x, alpha, scale, k):
        xp = get_array_module(x)
        xf = _f32(x)
        if kernel_fits(xf, contiguous=True):  # one launch (see _ELU)
            y = _ELU(xf, k, alpha * scale, scale)
        else:
            # x k where x < 0, else 0 (fmin ignores NaN), so e^(x k) cannot overflow where
            # unused. The zeros take the scale * x branch: the same value, their sign kept.
            y = xp.expm1(_negative_part(xf, k))
            y *= alpha * scale
            y = xp.where(xf < 0, y, xf if scale == 1 else xf * scale)
        ctx.save_for_backward(x)
        ctx.alpha, ctx.scale, ctx.k = alpha, scale, k
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        c_k = ctx.alpha * ctx.scale * ctx.k
        if is_grad_enabled():  # create_graph=True: the slope as differentiable ops of x
            above = x._data > 0
            above |= x._data != x._data  # ... or NaN
            slope = (x.masked_fill(above, 0.0) * ctx.k).exp() * c_k
            return gy * slope.masked_fill(above, ctx.scale), None, None, None
        a, g = _f32(x._data), _f32(gy._data)
        if kernel_fits(a, g, contiguous=True):  # one launch (see _ELU_GRAD)
            if c_k != ctx.scale:
                gx = _ELU_GRAD_MIXED(g, a, ctx.k, c_k, ctx.scale)
            else:
                gx = _ELU_GRAD(g, a, ctx.k, c_k)
            return type(gy)._make(gx.astype(gy._data.dtype, copy=False)), None, None, None
        xp = get_array_module(a)
        slope = xp.exp(_negative_part(a, ctx.k))  # 1 where x > 0 or NaN
        slope *= c_k
        if c_k != ctx.scale:  # scale where x > 0 or NaN (elu with alpha 1 and celu: already)
            # by exact arithmetic on the mask (one of the two terms is 0): 4x faster than where
            negative = a <= 0
            slope *= negative
            slope += xp.multiply(~negative, ctx.scale, dtype=slope.dtype)
        gx = g * slope
        return type(gy)._make(gx.astype(gy._data.dtype, copy=False)), None, None, None


def _negative_part(xf, k: float):
    """min(x, 0) * k, with 0 for NaN (fmin), as a new array."""
    z = get_array_module(xf).fmin(xf, 0)
    if k != 1:
        z *= k
    return z


class Hardswish(Op):
    """y = x relu6(x + 3) / 6, PyTorch's formula everywhere (no branches): so -0 for
    -3 >= x > -inf, NaN at -inf (-inf * 0), and inf where x * 6 overflows;
    dy/dx = 0 for x <= -3, x/3 + 1/2 for -3 < x < 3, else 1 (NaN and x >= 3: the gradient
    passes, as in PyTorch). float16/bfloat16 are computed in float32 and rounded once."""

    @staticmethod
    def forward(ctx, x):
        xp = get_array_module(x)
        xf = _f32(x)
        if kernel_fits(xf, contiguous=True):  # one launch (see _HARDSWISH)
            y = _HARDSWISH(xf)
        else:
            with np.errstate(over="ignore", invalid="ignore"):  # x * 6 near max; -inf * 0
                y = xf * xp.clip(xf + 3, 0, 6) / 6
        ctx.save_for_backward(x)
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        a = x._data
        if not is_grad_enabled() and kernel_fits(a, gy._data, contiguous=True):
            # one launch (see _HARDSWISH_GRAD)
            return type(gy)._make(_HARDSWISH_GRAD(gy._data, a))
        beyond = get_array_module(a).logical_not(a < 3)  # x >= 3, or NaN
        slope = (x / 3 + 0.5).masked_fill(a <= -3, 0.0).masked_fill(beyond, 1.0)
        return gy * slope


class Softplus(Op):
    """y = log1p(e^z) / beta with z = beta x, and y = x where z > threshold (PyTorch's formula);
    dy/dx = sigmoid(z) = e^z / (e^z + 1), and 1 where z > threshold.

    log1p keeps e^z's value when it is tiny (log(1 + e^z) would round 1 + e^-30 to 1 and give 0);
    float16/bfloat16 are computed in float32 and rounded once, as PyTorch's CPU kernel does."""

    @staticmethod
    def forward(ctx, x, beta, threshold):
        xp = get_array_module(x)
        xf = _f32(x)
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        if kernel_fits(xf, contiguous=True):  # one launch (see _SOFTPLUS)
            return _SOFTPLUS(xf, beta, threshold).astype(x.dtype, copy=False)
        z = xf * beta
        with np.errstate(over="ignore"):  # e^z overflows only where z > threshold: not used
            soft = xp.log1p(xp.exp(z)) / beta
        return xp.where(z > threshold, xf, soft).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        if not is_grad_enabled() and kernel_fits(x._data, gy._data, contiguous=True):
            # one launch (see _SOFTPLUS_GRAD)
            gx = _SOFTPLUS_GRAD(gy._data, x._data, ctx.beta, ctx.threshold)
            return type(gy)._make(gx), None, None
        z = x * ctx.beta
        # sigmoid(z) as e^z / (e^z + 1), PyTorch's form: for z below about -88.7 it is e^z itself
        # (a subnormal), where 1 / (1 + e^-z) overflows to 1 / inf = 0. Above the threshold 1
        # replaces it; z is clamped there so that e^z does not overflow (inf / inf would put NaN
        # in second derivatives, masked or not).
        e = z.clamp(max=ctx.threshold).exp()
        return gy * (e / (e + 1)).masked_fill(z > ctx.threshold, 1.0), None, None


def _row_max(xf, dim):
    """The max along ``dim`` (kept), subtracted before exp so that nothing overflows. An inf there
    is kept, as in PyTorch: a row with +inf, or only -inf, gives NaN (inf - inf). An empty row
    has no max: 0 (the result is empty anyway)."""
    if xf.size == 0:
        return xf.dtype.type(0)
    return xf.max(axis=dim, keepdims=True)


# Softmax and log_softmax on a GPU: the row max (CuPy's), the row sums of e^(x - max) as one
# reduction kernel (the exponentials are not written out: the last kernel computes them again,
# with the same rounding), and one elementwise kernel for the result, the NumPy code's arithmetic
# in its order: 3 launches instead of 5-6. Backward: one reduction, one elementwise kernel (2, not
# 4). The sums add in another order than NumPy's, so the results differ in the last bits.
ROW_SUM_EXP = ReductionKernel(
    "row_sum_exp", "T x, T m", "T total", "exp(x - m)", "a + b", "total = a", "0", "T"
)
ROW_DOTS = ReductionKernel("row_dots", "T x, T y", "T dot", "x * y", "a + b", "dot = a", "0", "T")
_SOFTMAX = ElementwiseKernel("softmax", "T x, T m, T total", "T y", "y = exp(x - m) / total;")
_SOFTMAX_GRAD = ElementwiseKernel(
    "softmax_grad", "T gy, T dot, T y", "T gx", "gx = y * (gy - dot);"
)
_LOG_SOFTMAX = ElementwiseKernel(
    "log_softmax", "T x, T m, T total", "T y", "y = (x - m) - log(total);"
)
_LOG_SOFTMAX_GRAD = ElementwiseKernel(
    "log_softmax_grad", "T gy, T total, T y", "T gx", "gx = gy - exp(y) * total;"
)


def _rows_on_gpu(xf, dim) -> tuple | None:
    """(max, sum of e^(x - max)) along ``dim`` (kept) for the kernels above, or None where they
    do not apply (not a GPU float32/float64 array, or an empty one)."""
    if not kernel_fits(xf, contiguous=True) or xf.size == 0 or xf.ndim == 0:
        return None
    m = xf.max(axis=dim, keepdims=True)
    return m, ROW_SUM_EXP(xf, m, axis=dim, keepdims=True)


class Softmax(Op):
    """y_i = e^(x_i - m) / sum_j e^(x_j - m), m = max x (no overflow: see _row_max);
    dL/dx = y * (dL/dy - sum_j dL/dy_j y_j)."""

    autocast = FLOAT32

    @staticmethod
    def forward(ctx, x, dim):
        xp = get_array_module(x)
        xf = _f32(x)
        rows = _rows_on_gpu(xf, dim)
        if rows is not None:  # 3 launches (see ROW_SUM_EXP)
            y = _SOFTMAX(xf, *rows)
        else:
            e = xp.exp(xf - _row_max(xf, dim))
            y = e / e.sum(axis=dim, keepdims=True)
        y = y.astype(x.dtype, copy=False)
        ctx.dim = dim
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        a, g = y._data, gy._data
        if not is_grad_enabled() and kernel_fits(a, g, contiguous=True) and a.ndim:  # 2 launches
            dot = ROW_DOTS(g, a, axis=ctx.dim, keepdims=True)
            return type(gy)._make(_SOFTMAX_GRAD(g, dot, a)), None
        return y * (gy - (gy * y).sum(dim=ctx.dim, keepdim=True)), None


class LogSoftmax(Op):
    """y_i = x_i - logsumexp(x);   dL/dx = dL/dy - softmax(x) * sum_j dL/dy_j."""

    autocast = FLOAT32

    @staticmethod
    def forward(ctx, x, dim):
        xp = get_array_module(x)
        xf = _f32(x)
        rows = _rows_on_gpu(xf, dim)
        if rows is not None:  # 3 launches (see ROW_SUM_EXP)
            y = _LOG_SOFTMAX(xf, *rows)
        else:
            shifted = xf - _row_max(xf, dim)
            total = xp.exp(shifted).sum(axis=dim, keepdims=True) if x.size else 1
            y = shifted - xp.log(total)
        y = y.astype(x.dtype, copy=False)
        ctx.dim = dim
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        a, g = y._data, gy._data
        if not is_grad_enabled() and kernel_fits(a, g, contiguous=True) and a.ndim:  # 2 launches
            total = g.sum(axis=ctx.dim, keepdims=True)
            return type(gy)._make(_LOG_SOFTMAX_GRAD(g, total, a)), None
        return gy - y.exp() * gy.sum(dim=ctx.dim, keepdim=True), None
