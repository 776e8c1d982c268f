"""``ops/pooling.py``'s max pooling loops as GPU kernels: a 2x2 max pool's forward in 1 launch
instead of 24, its gradient in 1 instead of 13 (see below); on the CPU, the same loops with
fewer array passes (see "The CPU" below)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..backend import get_array_module
from .cuda import FLOAT16_32_64, ElementwiseKernel, kernel_fits


def max_pool(x, geometry: tuple, views: Callable) -> tuple | None:
    """MaxPool.forward's (y, arg) in one launch, or on the CPU in fewer passes; None where
    neither applies. ``views(a)``: the kh*kw strided views of the padded image ``a``
    (comparisons and selections: exact in float16 too)."""
    if type(x) is np.ndarray:
        return _max_pool_cpu(x, geometry, views)
    n_offsets = geometry[0] * geometry[1]
    if not (kernel_fits(x, dtypes=FLOAT16_32_64) and n_offsets <= _MAX_KERNEL_OFFSETS):
        return None
    return tuple(_max_kernel(n_offsets, x.dtype == np.float16)(*views(x)))


def max_pool_grad(gy, arg, geometry: tuple, padded_shape: tuple, offset: Callable):
    """MaxPoolGrad's padded gradient image on a GPU, or on the CPU where no two windows overlap;
    None where neither applies. ``offset(a, k, geometry)``: the view of padded image a holding
    element k of every window."""
    if type(gy) is np.ndarray:
        return _max_pool_grad_cpu(gy, arg, geometry, padded_shape, offset)
    if not kernel_fits(gy, dtypes=FLOAT16_32_64):  # (each launch writes a value or adds one)
        return None
    xp = get_array_module(gy)
    n_offsets = geometry[0] * geometry[1]
    if n_offsets <= _MAX_KERNEL_OFFSETS and _disjoint(geometry):
        # each pixel is in one window at most: the kh*kw adds as one kernel that writes each
        # offset's view (no sum, so no wider type); zeros first only where some pixels are in
        # no window
        tiled = _tiles(geometry, padded_shape)
        gx = (xp.empty if tiled else xp.zeros)(padded_shape, dtype=gy.dtype)
        _max_grad_kernel(n_offsets)(gy, arg, *(offset(gx, k, geometry) for k in range(n_offsets)))
        return gx
    if arg.dtype != np.uint8:
        return None
    wide = xp.float32 if gy.dtype.itemsize == 2 else gy.dtype  # (2-byte floats add in float32)
    gx = xp.zeros(padded_shape, dtype=wide)
    with np.errstate(invalid="ignore"):  # inf + -inf = NaN, silently (as PyTorch)
        for k in range(n_offsets):  # each add one launch
            _MAX_GRAD_ADD(gy, arg, k, offset(gx, k, geometry))
    return gx


# On a GPU every array operation is a kernel launch (~10 us of host work): MaxPool.forward's loop
# is 7 launches per kernel offset after the first (21 for a 2x2 window, with 3 more around it),
# MaxPoolGrad's 4 per offset. The kernels take the kh*kw strided views of the loop as separate
# arguments and do one output element's whole loop, with the same comparisons in the same order
# (so the same maximum, argmax, NaN and -0 results, bit for bit): 24 launches -> 1 for a 2x2
# max pool's forward, 13 -> 1 for its gradient (windows that do not overlap).
_MAX_KERNEL_OFFSETS = 25  # one kernel argument per offset: windows up to 5x5


@functools.cache
def _max_kernel(n: int, first_of_ties: bool) -> ElementwiseKernel:
    """MaxPool.forward's loop for one output element over the views v0..v{n-1}: y = the running
    maximum by xp.maximum's rule (a NaN on either side wins; of two equal values, -0 and +0
    included, NumPy's float32/float64 loops return the second, its float16 loop the first),
    arg = the offset of the first largest, or of the last NaN (``v > y || isnan(v)``)."""
    keep = ">=" if first_of_ties else ">"
    lines = ["y = v0;", "arg = 0;"]
    for k in range(1, n):
        lines += [
            f"arg = (v{k} > y) ? {k} : arg;",
            f"arg = isnan(v{k}) ? {k} : arg;",
            f"T m{k} = (y {keep} v{k}) ? y : v{k};",
            f"m{k} = isnan(y) ? y : m{k};",
            f"y = isnan(v{k}) ? v{k} : m{k};",
        ]
    inputs = ", ".join(f"T v{k}" for k in range(n))
    name = f"max_pool_{n}{'_first_of_ties' if first_of_ties else ''}"
    return ElementwiseKernel(name, inputs, "T y, uint8 arg", "\n".join(lines))


@functools.cache
def _max_grad_kernel(n: int) -> ElementwiseKernel:
    """MaxPoolGrad's adds where no two windows overlap: each offset's view o_k of the gradient
    image gets 0 + g where the window's maximum is at offset k, else 0."""
    # ((T) around the sum: CuPy's float16 adds in float32, and ?: refuses float against float16)
    lines = [f"o{k} = (arg == {k}) ? (T)((T)0 + g) : (T)0;" for k in range(n)]
    outputs = ", ".join(f"T o{k}" for k in range(n))
    return ElementwiseKernel(f"max_pool_grad_{n}", "T g, uint8 arg", outputs, "\n".join(lines))


# one offset's add where windows overlap: o += where(arg == k, g, 0), in o's (maybe wider) type
_MAX_GRAD_ADD = ElementwiseKernel(
    "max_pool_grad_add", "G g, uint8 arg, int32 k", "T o", "o = (arg == k) ? o + (T)g : o + (T)0;"
)


def _disjoint(geometry: tuple) -> bool:
    """No two windows share a pixel: the stride is at least the (dilated) window's span."""
    kh, kw, sh, sw, dh, dw = geometry[:6]
    return sh >= dh * (kh - 1) + 1 and sw >= dw * (kw - 1) + 1


def _tiles(geometry: tuple, padded_shape: tuple) -> bool:
    """The windows cover the padded image exactly: every pixel is in one window."""
    kh, kw, sh, sw, dh, dw, ho, wo = geometry[:8]
    return (dh, dw) == (1, 1) and (sh, sw) == (kh, kw) and padded_shape[2:] == (ho * kh, wo * kw)


# ----------------------------------------------------------------------------------------------
# The CPU: the same loops, fewer passes
# ----------------------------------------------------------------------------------------------
# MaxPool.forward's plain loop spends 7 array passes per kernel offset after the first: compare,
# isnan, or, maximum, and 3 for arg's update. Here:
# - arg's update is one pass: the offsets k come in increasing order, so "arg = k where better"
#   is arg = max(arg, better * k) (better * k in uint8, a byte per element);
# - NaN is looked for once, in the result: a NaN anywhere in a window makes that window's
#   maximum NaN (np.maximum propagates it), so where the result holds none, no window did and
#   the isnan passes would have changed nothing; where it does, None sends the op to its exact
#   loop;
# - the passes run in the input's memory order: a convolution's output, and a ReLU of it, is a
#   (C, N, H, W) array seen as (N, C, H, W); pooling treats every (n, c) plane alike, so the
#   planes are walked in the order memory holds them and the result keeps that layout (no
#   contiguous copy of the input first).
# Same values and the same arg, bit for bit: 2 passes over the output per offset instead of 7.
#
# MaxPoolGrad's loop adds where(arg == k, g, 0) into each offset's view of a zero image. Where no
# two windows share a pixel, each pixel gets one term at most, so each view is WRITTEN instead:
# (arg == k) times g's bits, as unsigned integers (the bits of g, or 0: exact for inf and NaN,
# where a float product by 0 would give NaN), and no zero fill where the windows tile the image.
# g + 0 first, as the loop's 0 + g is: -0 becomes +0 (PyTorch's zero-initialised sum does so).
def _leading_in_memory_order(a) -> bool:
    """True where a (N, C, H, W) array's C axis is the outer one in memory (a (C, N, H, W)
    array's transpose, as a convolution's output is)."""
    return a.ndim == 4 and a.strides[1] > a.strides[0]


def _swap(a):
    return a.transpose(1, 0, 2, 3)


def _max_pool_cpu(x, geometry: tuple, views: Callable) -> tuple | None:
    """(y, arg) of MaxPool.forward for a NumPy array (see the notes above), or None where x
    holds a NaN (the op's exact loop then decides the argmax) or is not a real number type."""
    if x.dtype.kind not in "fiu":
        return None
    swapped = _leading_in_memory_order(x)
    vs = views(_swap(x) if swapped else x)
    best = vs[0].copy()  # (a copy: best is written below)
    arg = np.zeros(best.shape, dtype=np.min_scalar_type(len(vs) - 1))
    better = np.empty(best.shape, dtype=bool)
    step = np.empty(best.shape, dtype=arg.dtype)
    with np.errstate(invalid="ignore"):
        for k in range(1, len(vs)):
            np.greater(vs[k], best, out=better)
            np.maximum(best, vs[k], out=best)
            np.multiply(better, arg.dtype.type(k), out=step)
            np.maximum(arg, step, out=arg)
    if best.dtype.kind == "f" and np.isnan(best).any():
        return None
    return (_swap(best), _swap(arg)) if swapped else (best, arg)


def _max_pool_grad_cpu(gy, arg, geometry: tuple, padded_shape: tuple, offset: Callable):
    """MaxPoolGrad's padded gradient image for NumPy arrays where no two windows share a pixel
    (see the notes above), in arg's memory order; None otherwise."""
    if not _disjoint(geometry) or gy.dtype.kind not in "fiu":
        return None
    swapped = _leading_in_memory_order(arg)
    if swapped:
        gy, arg = _swap(gy), _swap(arg)
        padded_shape = (padded_shape[1], padded_shape[0]) + tuple(padded_shape[2:])
    # -0 -> +0, as the loop's 0 + g; written in arg's layout (gy may come in another one, and
    # the passes below then read all three arrays in one order)
    g = np.add(gy, gy.dtype.type(0), out=np.empty(arg.shape, dtype=gy.dtype))
    gx = (np.empty if _tiles(geometry, padded_shape) else np.zeros)(padded_shape, dtype=gy.dtype)
    bits = np.dtype(f"uint{gy.dtype.itemsize * 8}") if gy.dtype.kind == "f" else gy.dtype
    g_bits, gx_bits = g.view(bits), gx.view(bits)
    keep = np.empty(arg.shape, dtype=bool)
    for k in range(geometry[0] * geometry[1]):
        np.equal(arg, k, out=keep)
        np.multiply(keep, g_bits, out=offset(gx_bits, k, geometry))
    return _swap(gx) if swapped else gx
