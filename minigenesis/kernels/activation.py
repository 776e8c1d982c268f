"""The activations' fast paths: one GPU kernel per elementwise chain, the exact GELU in float32,
and the 2-byte floats' bit tricks and tables on the CPU.

Each function here returns its result, or None where it does not apply (the op then runs its
plain NumPy code, in ``ops/activation.py``, which is the definition: read that first). A GPU
kernel is the op's own arithmetic in the same order, so the CuPy stand-in of the tests gives the
plain code's numbers bit for bit (on a GPU, exp and tanh are CUDA's, within 2 ulp). A Python
float c written as (T)c rounds to T as NumPy rounds a Python float against a T array.
"""

from __future__ import annotations

import numpy as np

from ..backend import get_array_module
from .cuda import ElementwiseKernel, ReductionKernel, kernel_fits
from .elementwise import where_or_zero


def _f32(x):
    """Compute 2-byte floats in float32; other dtypes as they are."""
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
        return x.astype(get_array_module(x).float32)
    return x


def _two_byte_float(a) -> bool:
    """A float16 or bfloat16 NumPy array (not on a GPU)?"""
    return type(a) is np.ndarray and a.dtype.itemsize == 2 and a.dtype.kind in "fV"


# ---------------------------------------------------------------- elementwise kernels
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
# its backward (not under create_graph): 1 instead of 6; where c k != scale the slope is mixed
# with scale by products with the 0/1 mask (the same numbers as the op's masked_fill)
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


def sigmoid(x):
    """sigmoid(x) in one launch (2-byte floats computed in float32, rounded once), or None."""
    xf = _f32(x)
    if not kernel_fits(xf, contiguous=True):
        return None
    y = _SIGMOID(xf)
    return y if xf is x else y.astype(x.dtype)


def sigmoid_grad(gy, y):
    """(1 - y) gy y in one launch, or None."""
    return _SIGMOID_GRAD(gy, y) if kernel_fits(y, gy, contiguous=True) else None


def tanh_grad(gy, y):
    """(1 - y y) gy in one launch, or None."""
    return _TANH_GRAD(gy, y) if kernel_fits(y, gy, contiguous=True) else None


def silu(x):
    """x sigmoid(x) in one launch, rounded to x's dtype, or None."""
    xf = _f32(x)
    return _SILU(xf).astype(x.dtype, copy=False) if kernel_fits(xf, contiguous=True) else None


def silu_grad(gy, x):
    """silu's gradient gy s (1 + x (1 - s)) in one launch, or None."""
    return _SILU_GRAD(gy, x) if kernel_fits(x, gy, contiguous=True) else None


def leaky_relu(x, slope: float):
    """x > 0 ? x : x slope in one launch, or None."""
    return _LEAKY_RELU(x, slope) if kernel_fits(x, contiguous=True) else None


def elu(x, alpha: float, scale: float, k: float):
    """The ELU family's forward in one launch, rounded to x's dtype, or None."""
    xf = _f32(x)
    if not kernel_fits(xf, contiguous=True):
        return None
    return _ELU(xf, k, alpha * scale, scale).astype(x.dtype, copy=False)


def elu_grad(gy, x, k: float, c_k: float, scale: float):
    """The ELU family's gradient in one launch (rounded to gy's dtype), or None."""
    a, g = _f32(x), _f32(gy)
    if not kernel_fits(a, g, contiguous=True):
        return None
    if c_k != scale:
        gx = _ELU_GRAD_MIXED(g, a, k, c_k, scale)
    else:
        gx = _ELU_GRAD(g, a, k, c_k)
    return gx.astype(gy.dtype, copy=False)


def hardswish(x):
    """x relu6(x + 3) / 6 in one launch, rounded to x's dtype, or None."""
    xf = _f32(x)
    return _HARDSWISH(xf).astype(x.dtype, copy=False) if kernel_fits(xf, contiguous=True) else None


def hardswish_grad(gy, x):
    """hardswish's gradient in one launch, or None."""
    return _HARDSWISH_GRAD(gy, x) if kernel_fits(x, gy, contiguous=True) else None


def softplus(x, beta: float, threshold: float):
    """softplus in one launch, rounded to x's dtype, or None."""
    xf = _f32(x)
    if not kernel_fits(xf, contiguous=True):
        return None
    return _SOFTPLUS(xf, beta, threshold).astype(x.dtype, copy=False)


def softplus_grad(gy, x, beta: float, threshold: float):
    """softplus's gradient in one launch, or None."""
    ok = kernel_fits(x, gy, contiguous=True)
    return _SOFTPLUS_GRAD(gy, x, beta, threshold) if ok else None


# ---------------------------------------------------------------- ReLU on 2-byte floats
_NEGATIVE_ZERO_BITS = np.int16(-(2**15))  # a 2-byte float's -0 (the sign bit alone) as int16


def relu_two_byte(x):
    """relu of a 2-byte float NumPy array, never widened or rounded: x with the bits of its
    elements below 0 cleared (exact), or None for other arrays.

    ``not (x < 0)`` is read off the bits: as int16, the values below 0 are the negative numbers
    from the smallest subnormal (-32767) up to -inf's bits; -0 (-32768) and the negative NaNs
    (above -inf's bits) are kept, as PyTorch's relu keeps them."""
    if not _two_byte_float(x):
        return None
    bits = x.view(np.int16)
    keep = (bits > np.asarray(-np.inf, x.dtype).view(np.int16)) | (bits == _NEGATIVE_ZERO_BITS)
    return where_or_zero(keep, x)


def relu_mask(y):
    """ReLU's backward mask ``not (y <= 0)``: one launch on a GPU; for a 2-byte float NumPy
    array read off its bits (as int16, the values <= 0 are +0 (0) and the negative numbers, -0
    and -inf included; the negative NaNs lie above -inf's bits: two integer passes, where
    NumPy's bfloat16 comparison is an ml_dtypes loop ~6x slower); None for other arrays."""
    if kernel_fits(y):  # any layout: the mask is made as y
        return _ABOVE_ZERO_OR_NAN(y, get_array_module(y).empty_like(y, dtype=bool))
    if not _two_byte_float(y):
        return None
    bits = y.view(np.int16)
    return (bits > np.asarray(-np.inf, y.dtype).view(np.int16)) & (bits != 0)


# ---------------------------------------------------------------- softmax and log_softmax
# The row max (CuPy's), the row sums of e^(x - max) as one reduction kernel (the exponentials are
# not written out: the last kernel computes them again, with the same rounding), and one
# elementwise kernel for the result, the plain code's arithmetic in its order: 3 launches
# instead of 5-6. Backward: one reduction, one elementwise kernel (2, not 4). The sums add in
# another order than NumPy's, so the results differ in the last bits.
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


def _rows(xf, dim) -> tuple | None:
    """(max, sum of e^(x - max)) along ``dim`` (kept), or None where the kernels do not apply."""
    if not kernel_fits(xf, contiguous=True) or xf.size == 0 or xf.ndim == 0:
        return None
    m = xf.max(axis=dim, keepdims=True)
    return m, ROW_SUM_EXP(xf, m, axis=dim, keepdims=True)


def softmax(x, dim: int, log: bool = False):
    """softmax (or log_softmax) along ``dim`` in 3 launches, rounded to x's dtype, or None."""
    xf = _f32(x)
    rows = _rows(xf, dim)
    if rows is None:
        return None
    return (_LOG_SOFTMAX if log else _SOFTMAX)(xf, *rows).astype(x.dtype, copy=False)


def softmax_grad(gy, y, dim: int, log: bool = False):
    """softmax's (or log_softmax's) gradient in 2 launches, or None."""
    if not (kernel_fits(y, gy, contiguous=True) and y.ndim):
        return None
    if log:
        return _LOG_SOFTMAX_GRAD(gy, gy.sum(axis=dim, keepdims=True), y)
    return _SOFTMAX_GRAD(gy, ROW_DOTS(gy, y, axis=dim, keepdims=True), y)
