"""The CPU's strided convolution as matmuls over shifted views of the input's stride phases.

``ops/conv.py`` computes a strided convolution as one matmul against im2col's columns: for a 3x3
kernel with stride 2 those copy every input pixel 9/4 times, gathering every other element (a
slow copy: 1.1 ms for 16 x 32 x 32 x 32 float32), and the input gradient is a col2im scatter-add
of 9 strided slabs into zeros. ``kernels/conv.py`` avoids the copy for stride 1 by reading
shifted views of one zero-padded grid. With stride (sh, sw) the windows' pixels are not shifted
copies of one grid, but of sh*sw: split the zero-padded input xpad into its stride phases

    P_ab[n, c, r, s] = xpad[n, c, a + sh*r, b + sw*s]      (a < sh, b < sw)

Kernel tap (i, j) of output pixel (h, w) reads xpad[n, c, sh*h + i, sw*w + j], which is phase
(i % sh, j % sw) at (h + i // sh, w + j // sw): a shift of that phase by (i // sh, j // sw). Lay
every phase out channels first as X_ab (C, N*Hg*Wg + slack) over the same grid of Hg = Ho +
(kh - 1) // sh rows and Wg = Wo + (kw - 1) // sw columns per image (the outputs are its top-left
Ho x Wo corner; the extra rows and columns hold the phase's pixels that the last windows read, or
zeros), and the convolution is one matmul per tap on a view, summed by BLAS's gemm (beta = 1):

    Y (C_out, N*Hg*Wg) = sum over (i, j) of  W[:, :, i, j] @ X_ab[:, t : t + N*Hg*Wg],
                         (a, b) = (i % sh, j % sw),  t = (i // sh) * Wg + j // sw

The phases are one transposing copy of the input (each pixel is in exactly one phase), 1/(9/4)
of im2col's; the extra grid positions cost (Hg*Wg) / (Ho*Wo) times the matmul work (1.13x for a
16x16 output of a 3x3 kernel, 1.27x for 8x8). A 1x1 kernel with stride 2 is one phase and one
matmul over the subsampled input.

The input gradient goes the other way: with dY zero-padded on the same grid (and t zeros in
front), phase (a, b)'s gradient is dX_ab (C, N*Hg*Wg) = sum over its taps of W[:, :, i, j]^T @
dY[:, front - t : front - t + N*Hg*Wg], a "full" correlation per phase, and each phase's
gradient is written back to its pixels of dL/dx (no scatter-add: the phases do not overlap;
pixels no window reads get 0). The weight gradient is one matmul per tap, X_ab[:, t : t + M]
(C, M) @ dY^T (M, C_out), with dY laid out pixel by pixel on the grid and zero where outputs are
dropped. Bits differ from the im2col path only by the order of the sums.
"""

from __future__ import annotations

import numpy as np

from .blas import NO_TRANS as _NO_TRANS
from .blas import ROW_MAJOR as _ROW_MAJOR
from .blas import cblas_gemm as _cblas_gemm
from .conv import nchw

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def phase_conv_applies(x, w, stride: tuple, dilation: tuple, groups: int, padding: tuple) -> bool:
    """True where ``conv2d_phases`` is the faster way on the CPU: a stride other than (1, 1),
    dilation 1, one group, float32/float64 NumPy arrays of one dtype, a kernel of more than one
    tap, at least 4 channels each way, and a non-empty output. (A 1x1 kernel's im2col is already
    one subsampling copy and one matmul, and its weight gradient reuses that copy: measured 0.29
    / 0.59 / 0.17 ms forward / input / weight gradient for 16 -> 32 channels on 32 x 16 x 32 x
    32, against 0.30 / 0.61 / 0.40 on the phases. With 1-3 input channels im2col's one matmul
    over kh*kw*C rows wins, as for stride 1.)"""
    if type(x) is not np.ndarray or x.dtype not in _FLOATS or w.dtype != x.dtype or x.ndim != 4:
        return False
    if tuple(stride) == (1, 1) or tuple(dilation) != (1, 1) or groups != 1:
        return False
    c_out, c_in, kh, kw = w.shape
    ho, wo = _out_size(x.shape[2:], (kh, kw), stride, padding)
    return kh * kw > 1 and min(c_in, c_out) >= _MIN_CHANNELS and ho > 0 and wo > 0


_MIN_CHANNELS = 4


def _out_size(size: tuple, kernel: tuple, stride: tuple, padding: tuple) -> tuple:
    (h, w), (kh, kw), (sh, sw), (top, bottom, left, right) = size, kernel, stride, padding
    return (h + top + bottom - kh) // sh + 1, (w + left + right - kw) // sw + 1


class _Geometry:
    """The grid shared by the phases: Hg x Wg positions per image, M = N*Hg*Wg in all; the
    phases a kernel tap reads, and each phase's pixels of the input (``rows``/``cols``)."""

    def __init__(self, x_shape: tuple, kernel: tuple, stride: tuple, padding: tuple):
        n, _, h, w = x_shape
        (kh, kw), (sh, sw) = kernel, stride
        self.kernel, self.stride, self.x_shape = kernel, stride, x_shape
        self.ho, self.wo = _out_size((h, w), kernel, stride, padding)
        self.hg, self.wg = self.ho + (kh - 1) // sh, self.wo + (kw - 1) // sw
        self.m = n * self.hg * self.wg
        self.slack = ((kh - 1) // sh) * self.wg + (kw - 1) // sw  # the largest shift t
        # the phases some tap reads, in order; tap (i, j) -> (index into phases, shift t)
        self.phases = sorted({(i % sh, j % sw) for i in range(kh) for j in range(kw)})
        self.taps = [
            (i, j, self.phases.index((i % sh, j % sw)), (i // sh) * self.wg + j // sw)
            for i in range(kh)
            for j in range(kw)
        ]
        top, _, left, _ = padding
        self.rows = {a: _span(a, top, sh, h, self.hg) for a in range(sh)}
        self.cols = {b: _span(b, left, sw, w, self.wg) for b in range(sw)}


def _span(a: int, pad: int, s: int, size: int, grid: int) -> tuple:
    """Phase a's pixels along one axis: (first grid index, first input index, count). Grid
    index r holds xpad's a + s*r, the input's a + s*r - pad, for 0 <= that < size."""
    r0 = max(0, -((a - pad) // s))  # the first r with a + s*r - pad >= 0
    first = a + s * r0 - pad
    count = max(0, min(grid - r0, (size - 1 - first) // s + 1)) if first < size else 0
    return r0, first, count


def _phases(x, g: _Geometry):
    """x (N, C, H, W) -> X (phases, C, M + slack): each phase of the zero-padded input on the
    grid, channels first. Only the zeros are written besides the one copy of each pixel."""
    n, c = x.shape[:2]
    (sh, sw), m = g.stride, g.m
    flat = np.empty((len(g.phases), c, m + g.slack), dtype=x.dtype)
    flat[:, :, m:] = 0
    for p, (a, b) in enumerate(g.phases):
        grid = flat[p, :, :m].reshape(c, n, g.hg, g.wg)
        (r0, h0, nr), (s0, w0, ns) = g.rows[a], g.cols[b]
        grid[:, :, :r0] = 0
        grid[:, :, r0 + nr :] = 0
        grid[:, :, r0 : r0 + nr, :s0] = 0
        grid[:, :, r0 : r0 + nr, s0 + ns :] = 0
        src = x[:, :, h0 : h0 + sh * (nr - 1) + 1 : sh, w0 : w0 + sw * (ns - 1) + 1 : sw]
        grid[:, :, r0 : r0 + nr, s0 : s0 + ns] = src.transpose(1, 0, 2, 3)
    return flat


def _gemm_sum(products, out) -> None:
    """out (rows, M) = sum of A_k @ B_k over ``products`` [(A_k, B_k, offset_k)], each B_k the
    view flat[:, offset : offset + M] of a 2-D C-contiguous array ``flat``: with gemm's beta = 1
    through NumPy's own OpenBLAS, or matmul and an add per term where it is not found."""
    gemm, m = _cblas_gemm(out.dtype), out.shape[1]
    for k, (a, flat, offset) in enumerate(products):
        if gemm is not None:
            rows, inner = a.shape
            b_ptr = flat.ctypes.data + offset * flat.itemsize
            gemm(_ROW_MAJOR, _NO_TRANS, _NO_TRANS, rows, m, inner, 1.0, a.ctypes.data, inner,
                 b_ptr, flat.shape[1], 1.0 if k else 0.0, out.ctypes.data, m)  # fmt: skip
        elif k == 0:
            np.matmul(a, flat[:, offset : offset + m], out=out)
        else:
            out += a @ flat[:, offset : offset + m]


def conv2d_phases(x, w, b, stride: tuple, padding: tuple) -> tuple:
    """(y, phases): y (N, C_out, Ho, Wo) = conv2d(x, w, b, ``stride``, ``padding`` (top, bottom,
    left, right)) for NumPy arrays, as one matmul per kernel tap over shifted views of x's
    stride phases (see the module docstring); y is a view of a (C_out, N, Hg, Wg) array.
    ``phases`` is the phase layout of x, which the weight gradient reads again."""
    c_out = w.shape[0]
    g = _Geometry(x.shape, w.shape[2:], stride, padding)
    flat = _phases(x, g)
    taps = np.ascontiguousarray(w.transpose(2, 3, 0, 1))  # (kh, kw, C_out, C): each tap contiguous
    y = np.empty((c_out, g.m), dtype=x.dtype)
    _gemm_sum([(taps[i, j], flat[p], t) for i, j, p, t in g.taps], y)
    grid = y.reshape(c_out, x.shape[0], g.hg, g.wg)
    return nchw(grid[:, :, : g.ho, : g.wo].transpose(1, 0, 2, 3), b), flat


def _dy_grid(gy, g: _Geometry, front: int):
    """dY (C_out, front + M): gy (N, C_out, Ho, Wo) on the grid, channels first, zeros at the
    dropped positions and ``front`` zeros before."""
    n, c_out = gy.shape[:2]
    flat = np.empty((c_out, front + g.m), dtype=gy.dtype)
    flat[:, :front] = 0
    grid = flat[:, front:].reshape(c_out, n, g.hg, g.wg)
    grid[:, :, g.ho :] = 0
    grid[:, :, : g.ho, g.wo :] = 0
    grid[:, :, : g.ho, : g.wo] = gy.transpose(1, 0, 2, 3)
    return flat


def conv2d_phases_input_grad(gy, w, x_shape: tuple, stride: tuple, padding: tuple):
    """dL/dx (N, C, H, W) of ``conv2d_phases(x, w, stride, padding)`` given dL/dy: per phase, a
    sum of matmuls W[:, :, i, j]^T @ (dY shifted back by its tap's t), written to the phase's
    pixels (a view of a (C, N, H, W) array)."""
    n, c, h, wd = x_shape
    g = _Geometry(x_shape, w.shape[2:], stride, padding)
    (sh, sw), front = g.stride, g.slack
    dy = _dy_grid(gy, g, front)
    taps = np.ascontiguousarray(w.transpose(2, 3, 1, 0))  # (kh, kw, C, C_out)
    gx_nchw = np.empty((n, c, h, wd), dtype=gy.dtype)  # PyTorch's layout, written in place:
    gx = gx_nchw.transpose(1, 0, 2, 3)  # the phases are filled through this (C, N, H, W) view
    part = np.empty((c, g.m), dtype=gy.dtype)
    for a in range(sh):
        for b in range(sw):
            (r0, h0, nr), (s0, w0, ns) = g.rows[a], g.cols[b]
            target = gx[:, :, h0::sh, w0::sw]  # the phase's pixels of the input
            used = [(taps[i, j], dy, front - t) for i, j, p, t in g.taps if g.phases[p] == (a, b)]
            if not used:  # no tap reads this phase: its pixels get no gradient
                target[...] = 0
                continue
            _gemm_sum(used, part)
            grid = part.reshape(c, n, g.hg, g.wg)
            target[:, :, :nr, :ns] = grid[:, :, r0 : r0 + nr, s0 : s0 + ns]
            target[:, :, nr:] = 0  # pixels past the grid: no window reads them
            target[:, :, :nr, ns:] = 0
    return gx_nchw


def conv2d_phases_weight_grad(x, gy, kernel: tuple, stride: tuple, padding: tuple, phases=None):
    """dL/dw (C_out, C, kh, kw) of ``conv2d_phases(x, w, b, stride, padding)`` given dL/dy, and
    ``phases`` its layout of x (or None: made again here). The taps' shifted views of the phases
    are copied into columns (C*kh*kw, M), contiguous runs of M (3x faster than im2col's
    gather from the input: 0.36 against 1.1 ms for 16 x 32 x 32 x 32, stride 2), and one matmul
    columns @ dY^T (M, C_out) gives every tap's gradient, dY laid out pixel by pixel on the grid
    (the A B form, which OpenBLAS runs faster for this long contraction; 0.82 ms against 1.29
    for a matmul per tap, 16 -> 32 channels). Where the columns would pass 16 MiB, one matmul
    per tap reads the views in place instead."""
    (kh, kw), c, c_out = kernel, x.shape[1], gy.shape[1]
    g = _Geometry(x.shape, kernel, stride, padding)
    flat = _phases(x, g) if phases is None else phases
    dy = np.zeros((x.shape[0], g.hg, g.wg, c_out), dtype=gy.dtype)
    dy[:, : g.ho, : g.wo] = gy.transpose(0, 2, 3, 1)
    dy = dy.reshape(g.m, c_out)
    if c * kh * kw * g.m * x.itemsize <= _MAX_COLUMNS_BYTES:
        cols = np.empty((c, kh, kw, g.m), dtype=x.dtype)
        for i, j, p, t in g.taps:
            cols[:, i, j] = flat[p, :, t : t + g.m]
        gw = cols.reshape(c * kh * kw, g.m) @ dy  # (C*kh*kw, C_out)
        return np.ascontiguousarray(gw.reshape(c, kh, kw, c_out).transpose(3, 0, 1, 2))
    gw = np.empty((kh, kw, c, c_out), dtype=x.dtype)
    for i, j, p, t in g.taps:
        np.matmul(flat[p, :, t : t + g.m], dy, out=gw[i, j])
    return np.ascontiguousarray(gw.transpose(3, 2, 0, 1))  # a parameter's gradient: PyTorch's


_MAX_COLUMNS_BYTES = 2**24  # under glibc's largest mmap threshold (see kernels/memory.py)
