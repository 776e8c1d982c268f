"""GELU's fast paths: one GPU kernel for y, its slope and its curvature; the exact GELU in float32
as a rational approximation of the normal tail (~27 float32 passes, where erf in float64 takes
~25 float64 passes for Phi alone); and, for 2-byte floats on the CPU, tables of every value.

The definition is GELU's plain code in ``ops/activation.py`` (the formulas): read that first.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from ..backend import get_array_module
from . import cpu_jit
from .activation import _f32, _two_byte_float
from .cuda import ElementwiseKernel, kernel_fits
from .gelu_loop import gelu as _gelu_loop

_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def gelu(x, approximate: str, want_slope: bool, formula: Callable) -> tuple | None:
    """(gelu(x) in x's dtype or float32, its slope in float32 or x's dtype, or None when not
    ``want_slope``), or None where no fast path applies. ``formula(xf, approximate, want_slope)``
    is the op's plain code, used to fill the tables of the tanh form."""
    if _two_byte_float(x):  # looked up: the bits of the float32 computation below
        y_table, slope_table = _gelu_tables(x.dtype, approximate, formula)
        if want_slope:
            return _look_up_both(x, y_table, slope_table)
        return np.asarray(y_table.take(x.view(np.uint16))), None
    xf = _f32(x)
    if kernel_fits(xf, contiguous=True):  # one launch (see _gelu_kernel)
        if want_slope:
            return tuple(_gelu_kernel(approximate, ("y", "s"))(xf))
        return _gelu_kernel(approximate, ("y",))(xf), None
    if approximate == "none" and (fast := _gelu_loop(xf, want_slope)) is not None:
        return fast  # one compiled loop, where Numba is installed (gelu_loop.py)
    if approximate == "none" and xf.dtype == np.float32:
        shape = xf.shape  # 1-D inside: NumPy turns 0-d results into scalars, which out= refuses
        y, slope = _gelu_float32(xf.reshape(-1), want_slope)
        return y.reshape(shape), None if slope is None else slope.reshape(shape)
    return None


def times_slope(gy, slope):
    """GELU's dL/dx = dL/dy * slope for a 2-byte NumPy dL/dy and forward's float32 slope, rounded
    once to dL/dy's dtype; None otherwise. The op's code widens dL/dy into a new float32 array,
    multiplies into another and rounds that (three passes, two float32 temporaries); one ufunc
    call with dtype=float32 widens each buffer of dL/dy as it goes, multiplies and rounds into
    the output: the same operations on each element (the same bits), 0.63 -> 0.51 ms on the
    char GPT's 16 x 64 x 512 bfloat16 gradient (Xeon, one core)."""
    if not _two_byte_float(gy) or type(slope) is not np.ndarray or slope.dtype != np.float32:
        return None
    if slope.shape != gy.shape:
        return None
    out = np.empty(gy.shape, gy.dtype)
    return np.multiply(gy, slope, out=out, dtype=np.float32, casting="unsafe")


def gelu_curvature(xf, approximate: str):
    """gelu''(x) in one launch, or None (see GELUSlope)."""
    return _gelu_kernel(approximate, ("c",))(xf) if kernel_fits(xf, contiguous=True) else None


def _look_up_both(x, y_table, slope_table) -> tuple:
    """(y_table[x's bits], slope_table[x's bits]) in x's shape. ``take`` converts 16-bit indices
    to intp on every call, so the two lookups share one conversion; and they run block by block
    (32,768 indices, 256 KiB as intp, reused by every block), so the indices are read from the
    cache rather than from an 8-byte-per-element array in memory: 1.13 -> 0.88 ms on
    16 x 64 x 512 bfloat16 (Xeon, one core; 1.14 with a conversion per lookup). ``mode="clip"``
    writes straight into ``out`` (every 16-bit index is in range: it clips nothing)."""
    bits = x.view(np.uint16).reshape(-1)
    y = np.empty(bits.size, y_table.dtype)
    slope = np.empty(bits.size, slope_table.dtype)
    index = np.empty(min(bits.size, _GELU_BLOCK), np.intp)
    for start in range(0, bits.size, _GELU_BLOCK):
        stop = min(start + _GELU_BLOCK, bits.size)
        i = index[: stop - start]
        np.copyto(i, bits[start:stop], casting="unsafe")
        y_table.take(i, out=y[start:stop], mode="clip")
        slope_table.take(i, out=slope[start:stop], mode="clip")
    return y.reshape(x.shape), slope.reshape(x.shape)


_GELU_TABLES: dict = {}


def _gelu_tables(dtype, approximate: str, formula: Callable) -> tuple:
    """(y, slope) of GELU at every value of the 2-byte float ``dtype``, indexed by its 16-bit
    pattern: the float32 computation's y rounded to the dtype (2 bytes each) and its slope in
    float32 (4 bytes each). Made on first use (~1 ms), then kept: 384 KiB per dtype and form."""
    # from the float32 path the op takes (the compiled loop where it runs), so a 2-byte GELU is
    # always the float32 one rounded once; the key says which (MINIGENESIS_NUMBA may change)
    key = (dtype, approximate, approximate == "none" and cpu_jit.available())
    tables = _GELU_TABLES.get(key)
    if tables is None:
        every = np.arange(2**16, dtype=np.uint16).view(dtype).astype(np.float32)
        loop = _gelu_loop(every, True) if key[2] else None
        with np.errstate(all="ignore"):  # inf and NaN among them: as the kernel computes them
            if loop is not None:
                y, slope = loop
            elif approximate == "none":
                y, slope = _gelu_float32(every, True)
            else:
                y, slope = formula(every, approximate, True)
        tables = _GELU_TABLES[key] = (y.astype(dtype), slope)
    return tables


# ---------------------------------------------------------------- the exact GELU in float32
# With E = Phi(-|x|), the normal tail (no cancellation in it: relative accuracy kept for all x):
#
#     Phi(x)   = |[x >= 0] - E|                   (1 - E for x >= 0, and E itself below 0)
#     gelu(x)  = x Phi(x),   gelu'(x) = Phi(x) + x phi(x),   phi(x) = e^(-x^2/2) / sqrt(2 pi)
#
# E = e^(-a^2/2) R(a), a = |x|, where R(a) = Phi(-a) e^(a^2/2) is smooth and slowly varying
# (1/2 at 0, ~1/(a sqrt(2 pi)) for large a): R = P/Q with P, Q polynomials of degrees 4 and 5,
# all coefficients positive (no cancellation, no poles), fitted for least maximum relative error
# on [0, 15]: 6e-9, a tenth of float32's resolution, and P(0)/Q(0) = 1/2 exactly. Beyond a = 15,
# e^(-a^2/2) is 0 in float32, so a is clamped there (R stays finite for infinite x); on the CPU
# only when some |x| exceeds 15 (one max over the block instead of a pass that rewrites it).
#
# On the CPU a shorter fit serves |x| <= 8, where nearly every activation lies: R = P/Q of degrees
# 3 and 4, fitted on [0, 8] for the least maximum of the relative error weighted to what each
# range needs (2.3e-8 on [0, 1], up to 30x that from a = 3.3 on, where E is below 1.2e-3 of
# Phi for x > 0 and the negative tail asks for 3e-6), P(0)/Q(0) = 1/2 exactly again: 4 passes
# fewer than the degrees 4/5 (13 against 17 for P and Q). Past 8 that fit is not used: for
# x > 8, e^(-x^2/2) < 1.3e-14 makes E vanish against 1 whatever R is (R stays positive and
# finite: all coefficients positive), and the few x < -8 are computed again with the wide fit
# (one comparison and a gather, only in a block where some |x| exceeds 8; a block made mostly of
# x < -8 costs about twice what it did). Each element's value depends on it alone. The same
# accuracy on the test grids (4 ulp on [-1, 10], 2.3e-6 in the negative tail); about a third of
# the results differ from the wide fit's in their last bits.
#
# Cost: 23 float32 passes over x and one exp (which takes as long as ~4 passes) for gelu, 3 more
# for gelu', each written into a buffer in place (backend.erf's float64 evaluation made ~25
# passes over float64 temporaries for Phi alone). Accuracy: within 4 ulp of the true gelu
# for x >= -1 (NumPy's float32 exp alone errs by up to 2.3 ulp; PyTorch's float32 gelu by up to
# 9), and a relative error below 3e-6 in the negative tail, where PyTorch's float32 erf loses
# all digits (1 + erf(x) cancels) and returns 0 from x = -5.6 on.
_GELU_P = (48.45803, 42.478283, 17.758734, 3.9381046, 0.3989469)
_GELU_Q = (96.91606, 162.28444, 116.54321, 45.500042, 9.871989)  # and a^5: Q is monic
_WIDE_FIT = (_GELU_P, _GELU_Q + (1.0,))
_NEAR = 8.0  # the short fit's range, |x| <= _NEAR
_NEAR_FIT = (
    (15.265137, 10.082013, 3.1138766, 0.39868334),
    (30.530273, 44.523613, 26.487843, 7.787418, 1.0),  # Q(0) = 2 P(0) in float32; Q monic
)


def _gelu_float32_passes(x, want_slope: bool, y=None, slope=None, work=None, fit=None) -> tuple:
    """(gelu(x), gelu'(x) or None) for a 1-D float32 array x (see the notes above), written into
    ``y`` and ``slope`` where given; ``work``: four scratch arrays of x's shape (else made);
    ``fit``: R's (P, Q), by default the short one for NumPy arrays (then x < -8 again with the
    wide one) and the wide one for others (one pass each, no host sync)."""
    xp, f32 = get_array_module(x), x.dtype.type
    u, a, e, cdf = work if work is not None else [xp.empty_like(x) for _ in range(4)]
    xp.square(x, out=u)
    u *= f32(-0.5)
    xp.exp(u, out=u)  # e^(-x^2/2) = sqrt(2 pi) phi(x)
    xp.abs(x, out=a)
    top = a.max() if xp is np and a.size else None  # (NaN if x has one)
    if top is None or not top <= 15:  # (a NaN is clamped too: E stays NaN)
        xp.minimum(a, f32(15), out=a)  # the same E, and R finite for infinite x
    near = fit is None and top is not None  # (a NumPy array)
    p, q = _NEAR_FIT if near else fit or _WIDE_FIT
    _polynomial(a, p, e)
    _polynomial(a, q, cdf)
    xp.divide(e, cdf, out=e)  # R(a)
    e *= u  # E
    # [x >= 0] written as float32 0/1 by the comparison itself (NumPy's subtract of a bool array
    # from a float32 one casts through a buffer: 19 us per block, against 8 + 4 us this way)
    xp.greater_equal(x, f32(0), out=cdf, casting="unsafe")
    xp.subtract(cdf, e, out=cdf)
    xp.abs(cdf, out=cdf)  # Phi(x) = |[x >= 0] - E|
    y = xp.multiply(x, cdf, out=a if y is None else y)  # (x = -inf: -inf * 0 = NaN, as PyTorch)
    if want_slope:
        slope = xp.multiply(x, u, out=u if slope is None else slope)
        slope *= f32(_INV_SQRT_2PI)
        slope += cdf
    else:
        slope = None
    if near and not top <= _NEAR:  # (also for a NaN)
        _far_tail(x, y, slope)
    return y, slope


def _far_tail(x, y, slope) -> None:
    """y and the slope (where not None) at the x < -8 of a NumPy array again, by the wide fit
    (see the notes above)."""
    far = np.flatnonzero(x < -_NEAR)
    if far.size:
        y_far, slope_far = _gelu_float32_passes(x[far], slope is not None, fit=_WIDE_FIT)
        y[far] = y_far
        if slope is not None:
            slope[far] = slope_far


# Infinite x: x^2 overflows (its e^(-x^2/2) = 0 is right), and the slope there is inf * 0 = NaN,
# as in PyTorch; NumPy's warnings for them are silenced (a decorator costs half what a `with`
# block does).
_gelu_float32_numpy = np.errstate(over="ignore", invalid="ignore")(_gelu_float32_passes)


def _gelu_float32(x, want_slope: bool) -> tuple:
    if isinstance(x, np.ndarray):
        return _gelu_float32_blocks(x, want_slope)
    return _gelu_float32_passes(x, want_slope)


# On the CPU the ~30 passes above each stream the whole array through memory when it is larger
# than the cache (a 16 x 64 x 512 activation: 2 MiB per float32 temporary). Evaluated over
# blocks of 32,768 elements (128 KiB per temporary, four of them, reused by every block: inside
# a core's 2 MiB L2), every pass after the first reads what the previous one just wrote in the
# cache, and the last ones write y and gelu' straight into the outputs. Each element goes
# through the same operations either way, so the values are the same bits
# (tests/core/test_gelu_blocks.py). Measured on 16 x 64 x 512 (Xeon, one core): y and slope
# 5.9-6.7 -> 3.2-4.6 ms, y alone 5.4-6.6 -> 2.7 ms; with Phi as |[x >= 0] - E|, the clamp only
# where needed and the outputs written in place, y and slope 3.11-3.15 -> 2.78-2.89 ms.
_GELU_BLOCK = 32_768


def _gelu_float32_blocks(x, want_slope: bool) -> tuple:
    """_gelu_float32_passes of a 1-D NumPy array, block by block (same bits, cache-resident)."""
    if x.size <= _GELU_BLOCK:
        return _gelu_float32_numpy(x, want_slope)
    y = np.empty_like(x)
    slope = np.empty_like(x) if want_slope else None
    work = [np.empty(_GELU_BLOCK, x.dtype) for _ in range(4)]
    for start in range(0, x.size, _GELU_BLOCK):
        stop = min(start + _GELU_BLOCK, x.size)
        n = stop - start
        _gelu_float32_numpy(
            x[start:stop],
            want_slope,
            y[start:stop],
            slope[start:stop] if want_slope else None,
            [w[:n] for w in work],
        )
    return y, slope


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
# The plain code, one element at a time, for the outputs asked for: y = gelu(x), s = its slope
# gelu'(x), c = its curvature gelu''(x) (GELUSlope's backward). The tanh form is the formulas'
# arithmetic in their order (the CPU stand-in gives their numbers bit for bit). The exact form
# takes Phi(x) = erfc(-x / sqrt 2) / 2 from CUDA's erfc (within 4 ulp): the same number as
# (1 + erf(x / sqrt 2)) / 2, without that form's cancellation for x << 0, so the negative tail
# keeps its relative accuracy as _gelu_float32 does (about 1e-5 down to x = -13, from the
# rounding of x / sqrt 2). One launch where _gelu_float32 makes ~30 (float64: ~10).
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
