"""``ops/conv.py``'s Col2Im as one GPU kernel, for stride 1."""

from __future__ import annotations

import functools

from ..backend import get_array_module
from .cuda import ElementwiseKernel, kernel_fits


def col2im(c6, x_shape: tuple, kernel: tuple, stride: tuple, dilation: tuple, padding: tuple, nc):
    """Col2Im.forward in 3 launches (stride 1, windows up to 5x5, float32/float64 on a GPU), or
    None where the kernel does not apply. ``c6``: the columns as (lead, lead, kh, kw, H_out,
    W_out), the leading pair in the order ``nc`` of (N, C)."""
    (kh, kw) = kernel
    if tuple(stride) != (1, 1) or kh * kw > _MAX_KERNEL_TERMS or not kernel_fits(c6):
        return None
    return _col2im_stride1(c6, x_shape, kernel, dilation, padding, nc)


# On a GPU each array operation is a kernel launch (~10 us of host work): the loop above is 2
# launches per kernel offset (19 for a 3x3 kernel, with the zeros, and 1 more for the layout).
# With stride 1, pixel (h, w) collects term (i, j) from column position (h - i*dh, w - j*dw):
# once the columns are zero-padded, that is one strided view per (i, j), of the output's shape, and
# one kernel sums the kh*kw views in the loop's order, writing the output in its final layout:
# 3 launches (zeros, the padded copy, the sum). Where a window does not reach a pixel, its term
# reads the padding: adding +0 leaves every sum the same, as the sums start from +0 and so never
# hold -0 (the loop's numbers, bit for bit).
# float32/float64 only (kernel_fits' default): the loop sums 2-byte floats in float32 and rounds
# once, where a float16 kernel would round at every assignment.
_MAX_KERNEL_TERMS = 25  # one kernel argument per kernel offset: up to 5x5


@functools.cache
def _col2im_kernel(n: int) -> ElementwiseKernel:
    """x = ((0 + c0) + c1) + ... + c{n-1}: the loop's sum for one pixel."""
    lines = ["T s = (T)0 + c0;"] + [f"s = s + c{k};" for k in range(1, n)] + ["x = s;"]
    inputs = ", ".join(f"T c{k}" for k in range(n))
    return ElementwiseKernel(f"col2im_{n}", inputs, "T x", "\n".join(lines))


def _col2im_stride1(c6, x_shape: tuple, kernel: tuple, dilation: tuple, padding: tuple, nc):
    """Col2Im.forward for stride 1 with one kernel: ``c6`` is the columns as
    (lead, lead, kh, kw, H_out, W_out), the leading pair in the order ``nc`` of (N, C)."""
    xp = get_array_module(c6)
    (kh, kw), (dh, dw) = kernel, dilation
    top, _, left, _ = padding
    n, c, h, w = x_shape
    ph, pw = dh * (kh - 1), dw * (kw - 1)  # zero rows/columns around the columns' image
    ho, wo = c6.shape[4:]
    padded = xp.zeros(c6.shape[:4] + (ho + 2 * ph, wo + 2 * pw), dtype=c6.dtype)
    padded[..., ph : ph + ho, pw : pw + wo] = c6
    # term (i, j) of output pixel (y, x) (x_pad's pixel (top + y, left + x)) is column position
    # (top + y - i*dh, left + x - j*dw), here shifted by the padding
    terms = [
        padded[:, :, i, j, top + ph - i * dh :, left + pw - j * dw :][:, :, :h, :w]
        for i in range(kh)
        for j in range(kw)
    ]
    out = xp.empty((n, c, h, w), dtype=c6.dtype)
    _col2im_kernel(kh * kw)(*terms, out.transpose(nc + (2, 3)))  # written in (N, C, H, W) order
    return out
