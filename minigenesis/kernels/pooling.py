"""``ops/pooling.py``'s max pooling loops as GPU kernels: a 2x2 max pool's forward in 1 launch
instead of 24, its gradient in 1 instead of 13 (see below)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..backend import get_array_module
from .cuda import FLOAT16_32_64, ElementwiseKernel, kernel_fits


def max_pool(x, geometry: tuple, views: Callable) -> tuple | None:
    """MaxPool.forward's (y, arg) in one launch, or None where the kernel does not apply.
    ``views()``: the kh*kw strided views of the padded x (comparisons and selections: exact in
    float16 too)."""
    n_offsets = geometry[0] * geometry[1]
    if not (kernel_fits(x, dtypes=FLOAT16_32_64) and n_offsets <= _MAX_KERNEL_OFFSETS):
        return None
    return tuple(_max_kernel(n_offsets, x.dtype == np.float16)(*views()))


def max_pool_grad(gy, arg, geometry: tuple, padded_shape: tuple, offset: Callable):
    """MaxPoolGrad's padded gradient image on a GPU, or None where the kernels do not apply.
    ``offset(a, k, geometry)``: the view of padded image a holding element k of every window."""
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
