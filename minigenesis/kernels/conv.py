"""The convolutions' fast paths: ``ops/conv.py``'s Col2Im as one GPU kernel, for stride 1; and
on the CPU a stride-1 convolution as kh*kw matmuls over shifted views of the padded input (no
im2col copy; "The CPU" below), or on im2col's columns where those pay ("One direction"; with 4
or more input channels each window copied as one row, "Windows as rows"), with its weight
gradient; ``nchw`` writes a channels-first result out NCHW with the bias added in that pass."""

from __future__ import annotations

import functools

import numpy as np

from ..backend import get_array_module
from .blas import NO_TRANS as _NO_TRANS
from .blas import ROW_MAJOR as _ROW_MAJOR
from .blas import cblas_gemm as _cblas_gemm
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


# ----------------------------------------------------------------------------------------------
# The CPU: a stride-1 convolution as kh*kw matmuls over shifted views (no im2col copy)
# ----------------------------------------------------------------------------------------------
# ops/conv.py computes conv2d as ONE matmul against im2col's columns, which copy every input
# pixel kh*kw times (9x for 3x3: a 37.7 MB buffer for 16 x 64 maps of 32x32, written, read once,
# and faulted in fresh each step since it is over malloc's largest mmap threshold). For stride 1
# and dilation 1 the copy is avoidable. Lay the zero-padded input out as X (C, N*Hq*Wq + slack),
# every image's pixels in a row; the output pixel q = (n, h, w) of that same grid then reads
# input position q + i*Wq + j for kernel offset (i, j), so
#
#     Y (C_out, N*Hq*Wq) = sum over (i, j) of  W[:, :, i, j] @ X[:, s : s + N*Hq*Wq],  s = i*Wq + j
#
# where each X[:, s : s + M] is a VIEW (rows of stride N*Hq*Wq + slack, contiguous columns),
# which BLAS reads directly. Neighbours share their padding: each image row is its W pixels and
# then Wq - W = max(left, right) zeros, which serve as this row's right padding and the next
# row's left padding (a window reaching left of column 0 reads the previous row's zeros); each
# image is H rows and then Hq - H = max(top, bottom) zero rows, the bottom padding of this image
# and the top of the next; the first image's top rows and left zeros are put in front. The
# grid has Hq x Wq positions per image; the outputs are its top-left Ho x Wo corner, and the
# other positions (windows that wrap past a row's end) are computed and dropped: (Hq*Wq) /
# (Ho*Wo) times the matmul work, 1.06x for 3x3 on 32x32 with padding 1 (1.13x with both
# paddings in every row, 34 x 34), 1.13x on 16x16 (1.27x). The kh*kw products are summed over
# blocks of columns so that each partial product stays in the cache (one add per term and
# element, cheap next to the 2*C flops of the term), and the bias starts the first block's sum.
#
# The input gradient is the same computation (a "full" correlation with the kernel flipped and
# its channel axes swapped: padding kh-1-top ...), so no col2im scatter is needed; the weight
# gradient is kh*kw matmuls dY (C_out, N*Hq*Wq) @ X[:, s : s + M]^T with dY zero-padded to the
# same grid, so the dropped positions add nothing. Bits differ from the im2col path only by the
# order of the sums (each term is summed over C, then the kh*kw terms are added).
_BLOCK_BYTES = 2**19  # a block of partial products: 512 KiB, inside a core's L2 cache


def shifted_conv_applies(x, w, stride: tuple, dilation: tuple, groups: int, padding: tuple):
    """True where ``conv2d_shifted`` is the faster way on the CPU: stride 1, dilation 1, one
    group, float32/float64 NumPy arrays, padding at most kernel - 1 (so the input gradient is one
    too), at least 4 output channels, and a grid with few dropped positions (at most 1.5x) for
    the forward or the input gradient: each call takes the grid where its own pays, im2col's
    columns where it does not (see "One direction" below). With 1-3 input channels the forward
    and the weight gradient always take the columns (im2col's one matmul over kh*kw*C rows wins
    and its copy is small), and the input gradient, whose convolution has >= 4 input channels,
    the grid where it pays."""
    if type(x) is not np.ndarray or x.dtype not in _FLOATS or w.dtype != x.dtype:
        return False
    if tuple(stride) != (1, 1) or tuple(dilation) != (1, 1) or groups != 1 or x.ndim != 4:
        return False
    c_out, c_in, kh, kw = w.shape
    top, bottom, left, right = padding
    if max(top, bottom) > kh - 1 or max(left, right) > kw - 1 or c_out < _MIN_CHANNELS:
        return False
    h, wd = x.shape[2:]
    ho, wo = h + top + bottom - kh + 1, wd + left + right - kw + 1
    full = (kh - 1 - top, kh - 1 - bottom, kw - 1 - left, kw - 1 - right)
    return (
        ho > 0
        and wo > 0
        and (_grid_pays((h, wd), padding, (kh, kw)) or _grid_pays((ho, wo), full, (kh, kw)))
    )


def _grid_pays(size: tuple, padding: tuple, kernel: tuple) -> bool:
    """The grid of an image of ``size`` holds at most 1.5x the convolution's outputs."""
    (h, w), (top, bottom, left, right), (kh, kw) = size, padding, kernel
    outputs = (h + top + bottom - kh + 1) * (w + left + right - kw + 1)
    return (h + max(top, bottom)) * (w + max(left, right)) <= 1.5 * outputs


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Measured, forward + backward, 3x3 padding 1, one core: 8->16 on 32x8x32x32 7.5 ms shifted
# against 10.7 on im2col, 4->16 on 32x4x16x16 1.20 against 1.56, 16->4 1.18 against 4.26; with
# 3 input channels im2col wins (3->32 on 32x3x32x32, no input gradient: 3.7 against 7.7 ms; 1->8
# 5x5: 2.0 against 3.1 ms).
_MIN_CHANNELS = 4


def _padded_grid(x, padding: tuple, kernel: tuple):
    """x (N, C, H, W) -> (X (C, N*Hq*Wq + slack), Hq, Wq): the zero-padded grid of the notes
    above, channels first: pixel (n, r, c) at top*Wq + left + (n*Hq + r)*Wq + c, zeros elsewhere."""
    n, c, h, w = x.shape
    top, bottom, left, right = padding
    kh, kw = kernel
    hq, wq = h + max(top, bottom), w + max(left, right)
    m, origin = n * hq * wq, top * wq + left
    flat = np.empty((c, m + (kh - 1) * wq + kw - 1), dtype=x.dtype)
    grid = flat[:, origin : origin + m].reshape(c, n, hq, wq)
    # zero only the padding and the slack; the pixels are written once, transposed from x
    flat[:, :origin] = 0
    grid[:, :, h:] = 0
    grid[:, :, :h, w:] = 0
    flat[:, origin + m :] = 0
    grid[:, :, :h, :w] = x.transpose(1, 0, 2, 3)
    return flat, hq, wq


def conv2d_shifted(x, w, bias, padding: tuple) -> tuple:
    """(y, cols): y (N, C_out, Ho, Wo) = conv2d(x, w, bias, stride 1, ``padding`` (top, bottom,
    left, right)) for NumPy arrays, as kh*kw matmuls over shifted views (see the notes above),
    a view of a (C_out, N, Hq, Wq) array as im2col's is of a (C_out, N, Ho, Wo) one; or, where
    the columns are the faster way (see "One direction" below), as their one matmul, and then
    ``cols`` are those columns, or with 4 or more input channels the windows as rows (see
    "Windows as rows"; else None), which the weight gradient can use again, as im2col's path
    keeps them. (The grid is not kept: that would hold a second copy of x until
    backward, for 0.24 ms of 32x16x32x32's weight gradient.)"""
    n = x.shape[0]
    c_out, c_in, kh, kw = w.shape
    if _takes_columns(x, (kh, kw), padding):
        if c_in >= _MIN_CHANNELS:  # each window a row (see "Windows as rows" below)
            rows, ho, wo = _window_rows(x, (kh, kw), padding)
            y = rows @ w.transpose(0, 2, 3, 1).reshape(c_out, -1).T  # (N*Ho*Wo, C_out)
            return nchw(y.reshape(n, ho, wo, c_out).transpose(0, 3, 1, 2), bias), rows
        cols, ho, wo = _columns(x, (kh, kw), padding)  # (N, C*kh*kw, Ho*Wo)
        y = np.matmul(w.reshape(c_out, -1), cols)  # (N, C_out, Ho*Wo): NCHW as it is written
        if bias is not None:
            y += bias[:, None]
        return y.reshape(n, c_out, ho, wo), cols
    flat, hq, wq = _padded_grid(x, padding, (kh, kw))
    m = n * hq * wq
    taps = np.ascontiguousarray(w.transpose(2, 3, 0, 1))  # (kh, kw, C_out, C): each tap contiguous
    y = np.empty((c_out, m), dtype=x.dtype)
    gemm = _cblas_gemm(x.dtype)
    if gemm is not None:  # y = tap @ view + y: BLAS adds each product in as it writes it
        for t in range(kh * kw):
            i, j = divmod(t, kw)
            b_ptr = flat.ctypes.data + (i * wq + j) * x.itemsize
            a_ptr, beta = taps[i, j].ctypes.data, 1.0 if t else 0.0
            gemm(_ROW_MAJOR, _NO_TRANS, _NO_TRANS, c_out, m, c_in, 1.0, a_ptr, c_in, b_ptr,
                 flat.shape[1], beta, y.ctypes.data, m)  # fmt: skip
    else:  # NumPy's matmul: the products summed block by block, each block in the cache
        _sum_products_in_blocks(taps, flat, wq, bias, y)
        bias = None  # (added there)
    top, bottom, left, right = padding
    ho, wo = x.shape[2] + top + bottom - kh + 1, x.shape[3] + left + right - kw + 1
    return nchw(y.reshape(c_out, n, hq, wq)[:, :, :ho, :wo].transpose(1, 0, 2, 3), bias), None


def nchw(grid, bias=None):
    """A convolution's output grid (N, C_out, Ho, Wo), a view of a channels-first array, written
    out NCHW-contiguous, + bias per channel in the same pass. PyTorch's output has this layout
    (``y.view(n, -1)`` after a convolution works); the crop of the padded grid needs a copy
    anyway, and the bias's add rides along instead of being a pass of its own."""
    out = np.empty(grid.shape, dtype=grid.dtype)
    if bias is None:
        np.copyto(out, grid)
    else:
        np.add(grid, bias[:, None, None], out=out)
    return out


def _takes_columns(x, kernel: tuple, padding: tuple) -> bool:
    """The forward and the weight gradient of x's convolution take im2col's columns: 1-3 input
    channels, or a grid that does not pay (see "One direction" below)."""
    return x.shape[1] < _MIN_CHANNELS or not _grid_pays(x.shape[2:], padding, kernel)


def _sum_products_in_blocks(taps, flat, wq: int, bias, y) -> None:
    """y = bias + sum over (i, j) of taps[i, j] @ flat[:, s : s + M], s = i*wq + j, with matmul
    and one add per term (a block of columns at a time, so the partial products stay cached)."""
    kh, kw, c_out = taps.shape[:3]
    m = y.shape[1]
    block = max(256, _BLOCK_BYTES // (y.itemsize * c_out))
    part = np.empty((c_out, min(block, m)), dtype=y.dtype)
    for start in range(0, m, block):
        stop = min(start + block, m)
        acc, tmp = y[:, start:stop], part[:, : stop - start]
        np.matmul(taps[0, 0], flat[:, start:stop], out=acc)
        if bias is not None:
            acc += bias[:, None]
        for t in range(1, kh * kw):
            s = (t // kw) * wq + t % kw
            np.matmul(taps[t // kw, t % kw], flat[:, start + s : stop + s], out=tmp)
            acc += tmp


# NumPy's matmul cannot add into its output (C = A B + C), and the kh*kw adds of the partial
# products cost half as much again as the products (measured: 64 channels of 16 x 34 x 34
# positions, 12 ms of matmuls and 6 ms of adds). BLAS's gemm can (beta = 1): blas.py finds NumPy's
# own OpenBLAS. Where it is not found (another NumPy build), the blocks of matmul + add above do
# the same sums.


def conv2d_shifted_weight_grad(x, gy, kernel: tuple, padding: tuple, cols=None):
    """dL/dw (C_out, C, kh, kw) of ``conv2d_shifted(x, w, b, padding)`` given dL/dy: kh*kw
    matmuls X[:, s : s + N*Hq*Wq] (C, M) @ dY^T (M, C_out), dY zero-padded to the input's grid
    and laid out pixel by pixel (see below); or one matmul over im2col's columns or the windows
    as rows (``cols``, the forward's, or None: copied again here) where the forward took them."""
    kh, kw = kernel
    n, c_out, ho, wo = gy.shape
    if _takes_columns(x, kernel, padding):  # (see "One direction" below)
        if x.shape[1] >= _MIN_CHANNELS:  # the windows as rows (see "Windows as rows" below)
            rows = _window_rows(x, kernel, padding)[0] if cols is None else cols
            gw = gy.transpose(0, 2, 3, 1).reshape(-1, c_out).T @ rows  # (C_out, kh*kw*C)
            return np.ascontiguousarray(gw.reshape(c_out, kh, kw, -1).transpose(0, 3, 1, 2))
        cols = _columns(x, kernel, padding)[0] if cols is None else cols
        g = gy.reshape(n, c_out, ho * wo)  # sum over images of dY_n (C_out, Ho*Wo) @ cols_n^T
        gw = np.matmul(g, cols.transpose(0, 2, 1)).sum(axis=0)  # (sizes spelled out: N may be 0)
        return gw.reshape(c_out, x.shape[1], kh, kw)
    flat, hq, wq = _padded_grid(x, padding, kernel)
    m = n * hq * wq
    g = np.empty((n, hq, wq, c_out), dtype=gy.dtype)
    g[:, ho:] = 0  # the dropped positions
    g[:, :ho, wo:] = 0
    g[:, :ho, :wo] = gy.transpose(0, 2, 3, 1)
    g = g.reshape(m, c_out)
    c = x.shape[1]
    if kh * kw * c <= _STACK_MAX_ROWS and c_out >= _STACK_MIN_OUT:  # (see "Taps stacked" below)
        gw = _weight_grad_stacked(flat, g, kernel, wq).reshape(kh, kw, c, c_out)
        return np.ascontiguousarray(gw.transpose(3, 2, 0, 1))
    gw = np.empty((kh, kw, c, c_out), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            s = i * wq + j
            np.matmul(flat[:, s : s + m], g, out=gw[i, j])
    return np.ascontiguousarray(gw.transpose(3, 2, 0, 1))  # a weight's gradient: PyTorch's layout


# Taps stacked. Each of the kh*kw products above has a C x C_out result: for 32 channels that
# is a 32 x 64 block per pass over the M pixels, and OpenBLAS's rate with such a small result is
# low (77 GFLOP/s for 32 -> 64 on 32 x 16x16 maps). Copying a block of B pixels of every tap's
# view into a (kh*kw*C, B) buffer that stays in the cache (im2col's columns, one block at a
# time: never the whole 9x copy) makes it one product per block with a kh*kw*C x C_out result,
# added up over the blocks. Measured on one core, float32, nine products -> blocks of 1,024
# pixels, ms: 32 -> 64 on 32 x 16x16 4.44 -> 3.16, 32 -> 32 2.46 -> 2.16, 16 -> 32 1.34 -> 1.10,
# 32 -> 32 on 32 x 32x32 8.99 -> 8.33; slower where the nine results are big enough already (64
# -> 32 3.84 -> 4.44, 64 -> 64 on 16 x 32x32 12.7 -> 13.1) or C_out is 16 (16 -> 16 2.76 -> 3.37).
# So: at most 288 rows (3x3 taps of 32 channels: a 1.2 MB block) and at least 32 outputs.
_STACK_MAX_ROWS, _STACK_MIN_OUT, _STACK_BLOCK = 288, 32, 1024


def _weight_grad_stacked(flat, g, kernel: tuple, wq: int):
    """(kh*kw*C, C_out): sum over blocks of B pixels of cols (kh*kw*C, B) @ g[block] (B,
    C_out), cols holding the block of each tap's view flat[:, s : s + M] (s = i*wq + j)."""
    (kh, kw), c, (m, c_out) = kernel, flat.shape[0], g.shape
    cols = np.empty((kh * kw, c, min(_STACK_BLOCK, m)), dtype=flat.dtype)
    gw = np.zeros((kh * kw * c, c_out), dtype=flat.dtype)
    part = np.empty_like(gw)
    for start in range(0, m, _STACK_BLOCK):
        k = min(_STACK_BLOCK, m - start)
        for t in range(kh * kw):
            s = start + (t // kw) * wq + t % kw
            np.copyto(cols[t, :, :k], flat[:, s : s + k])
        gw += np.matmul(cols[:, :, :k].reshape(-1, k), g[start : start + k], out=part)
    return gw


# The weight gradient's products have a long contraction (the N*Hq*Wq pixels) and a small result
# (C x C_out). OpenBLAS runs them at ~81 GFLOP/s on this machine with dY as (C_out, M) (the
# contraction along both operands' rows: "A B^T"), ~102 with dY^T as a (M, C_out) array ("A B",
# each row of B one pixel's C_out values); measured for 64 x 18,496 x 64 on one core. The
# pixel-major copy of dY costs a transposing pass (1.4 ms against 0.5 for the plain copy it
# replaces on 16 x 64 maps of 32x32), the nine products gain ~3 ms: 18.9 -> 16.3 ms in all.


# One direction. A convolution's forward and its input gradient have grids of their own: LeNet's
# 8->16 5x5 layer on 12x12 maps without padding computes 8x8 outputs over a 12x12 grid (2.25x the
# work: im2col's columns are the faster way), while its input gradient, a "full" correlation
# with padding 4, computes 12x12 outputs over a 12x12 grid (no position dropped; 1.5 ms against
# 2.35 for im2col's matmul and col2im's scatter of 25 slabs with rows of 8). So the op is taken
# where either direction's grid pays, and each call picks: the grid, or im2col's columns, the
# same windows as ops/conv.py's Im2Col copies, but image by image: (N, C*kh*kw, Ho*Wo). Then
# the forward W (C_out, C*kh*kw) @ cols_n is one batched matmul whose output is already NCHW
# (no transposing copy of y), and the weight gradient is the sum over images of dY_n (C_out,
# Ho*Wo) @ cols_n^T, again one batched matmul (the (N, C_out, C*kh*kw) partial products are
# small) and a sum. Against the (C*kh*kw, N*Ho*Wo) columns with one matmul each way and y's
# NCHW copy, measured on one core, float32, forward / weight gradient in ms: cnn's 3->32 on
# 32x3x32x32 2.30 / 1.60 -> 1.58 / 0.66, cnn-wide's 3->64 on 16x3x32x32 1.80 / 1.50 -> 1.33 /
# 1.11, ResNet's stem 3->16 1.44 / 0.84 -> 0.92 / 0.43, LeNet's 1->8 5x5 on 64x1x28x28 1.04 /
# 0.61 -> 0.65 / 0.24.
def _columns(x, kernel: tuple, padding: tuple) -> tuple:
    """(cols (N, C*kh*kw, Ho*Wo), Ho, Wo): im2col's columns of x for a stride-1 convolution,
    image by image."""
    (kh, kw), (top, bottom, left, right) = kernel, padding
    if any(padding):
        x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, c, hp, wp = x.shape
    ho, wo = hp - kh + 1, wp - kw + 1
    s_n, s_c, s_h, s_w = x.strides
    windows = np.lib.stride_tricks.as_strided(
        x, (n, c, kh, kw, ho, wo), (s_n, s_c, s_h, s_w, s_h, s_w), writeable=False
    )
    return np.ascontiguousarray(windows).reshape(n, c * kh * kw, ho * wo), ho, wo


# Windows as rows. With 4 or more input channels the columns are taken where the grid does not
# pay (LeNet's 8->16 5x5 layer on 12x12 maps), and there im2col's copy is slow: each of its
# C*kh*kw*N*Ho rows is a run of only Wo pixels (8 floats), gathered run by run. Laid out pixel by
# pixel (N, H, W, C), the input gives every output pixel's window as kh runs of kw*C contiguous
# floats (40 for 8 channels of a 5x5 kernel), so the same windows copy as one row per output
# pixel, (N*Ho*Wo, kh*kw*C), 2x faster (0.30 against 0.61 ms for LeNet's layer at batch 64; the
# forward 0.71 against 1.20 ms in all); the product rows @ W^T (W's taps ordered (i, j, c) to
# match) is a (N*Ho*Wo, C_out) array, and NCHW is the transposing copy the output makes anyway.
# The weight gradient dY^T (C_out, N*Ho*Wo) @ rows reads the same rows (0.46 against 0.38 ms on
# the columns: the copy saved in the forward is worth more). With 1-3 channels the runs are
# shorter than Wo (kw*C = 5 floats for LeNet's first layer: 1.09 against 0.35 ms): the columns.
def _window_rows(x, kernel: tuple, padding: tuple) -> tuple:
    """(rows (N*Ho*Wo, kh*kw*C), Ho, Wo): x's windows for a stride-1 convolution, one row per
    output pixel (n, h, w), its elements in (i, j, c) order."""
    (kh, kw), (top, bottom, left, right) = kernel, padding
    n, c, h, w = x.shape
    xp = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    if any(padding):
        xp = np.pad(xp, ((0, 0), (top, bottom), (left, right), (0, 0)))
    ho, wo = xp.shape[1] - kh + 1, xp.shape[2] - kw + 1
    s_n, s_h, s_w, s_c = xp.strides
    windows = np.lib.stride_tricks.as_strided(
        xp, (n, ho, wo, kh, kw, c), (s_n, s_h, s_w, s_h, s_w, s_c), writeable=False
    )
    return np.ascontiguousarray(windows).reshape(n * ho * wo, kh * kw * c), ho, wo
