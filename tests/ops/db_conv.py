"""Convolutions (1-d and 2-d, transposed too), pools (max, average, adaptive) and resampling
(interpolate and the upsample aliases), at small sizes.

The references are the definitions as sums over kernel offsets: a convolution adds
w[o, c, k] x[c, s*i + d*k - p] over c and k; its transpose scatters each input element into
s*i + d*k - p; a pool reduces the same windows (padding never wins a max, and is counted in an
average only with count_include_pad); an adaptive pool's window i is
[floor(i n / m), ceil((i + 1) n / m)).
"""

from __future__ import annotations

import math

import numpy as np

from .db_nn import LOOSE
from .simple import S, op


def _f(x):
    return np.asarray(x, np.float64)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _as2d(x, nd):
    """A 1-d problem as a 2-d one with a height of 1."""
    return x[..., None, :] if nd == 1 else x


def _conv(nd):
    def ref(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
        x, w = _f(x), _f(w)
        unbatched = x.ndim == nd + 1
        x = x[None] if unbatched else x
        x, w = _as2d(x, nd), _as2d(w, nd)
        s, d = (_tuple(v, nd) for v in (stride, dilation))
        if padding == "same":  # total d (k - 1), the odd one on the right
            p = tuple(di * (k - 1) for di, k in zip(d, w.shape[2:][-nd:]))
            p = tuple((t // 2, t - t // 2) for t in p)
        else:
            p = tuple((v, v) for v in _tuple(padding, nd))
        if nd == 1:
            s, p, d = (1, *s), ((0, 0), *p), (1, *d)
        x = np.pad(x, ((0, 0), (0, 0), *p))
        n, c, h, wd = x.shape
        o, cg, kh, kw = w.shape
        oh, ow = (h - d[0] * (kh - 1) - 1) // s[0] + 1, (wd - d[1] * (kw - 1) - 1) // s[1] + 1
        out = np.zeros((n, o, oh, ow))
        og = o // groups
        for g in range(groups):
            xs = x[:, g * cg : (g + 1) * cg]
            for i in range(kh):
                for j in range(kw):
                    patch = xs[:, :, i * d[0] :: s[0], j * d[1] :: s[1]][:, :, :oh, :ow]
                    out[:, g * og : (g + 1) * og] += np.einsum(
                        "nchw,oc->nohw", patch, w[g * og : (g + 1) * og, :, i, j]
                    )
        if bias is not None:
            out += _f(bias)[:, None, None]
        out = out[:, :, 0] if nd == 1 else out
        return out[0] if unbatched else out

    return ref


def _conv_transpose(nd):
    def ref(x, w, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        x, w = _f(x), _f(w)
        unbatched = x.ndim == nd + 1
        x = x[None] if unbatched else x
        x, w = _as2d(x, nd), _as2d(w, nd)
        s, p, op_, d = (_tuple(v, nd) for v in (stride, padding, output_padding, dilation))
        if nd == 1:
            s, p, op_, d = (1, *s), (0, *p), (0, *op_), (1, *d)
        n, c, h, wd = x.shape
        _, og, kh, kw = w.shape
        cg = c // groups
        full = [(h - 1) * s[0] + d[0] * (kh - 1) + 1 + op_[0],
                (wd - 1) * s[1] + d[1] * (kw - 1) + 1 + op_[1]]  # fmt: skip
        out = np.zeros((n, og * groups, *full))
        for g in range(groups):
            xs = x[:, g * cg : (g + 1) * cg]
            for i in range(kh):
                for j in range(kw):
                    part = np.einsum("nchw,co->nohw", xs, w[g * cg : (g + 1) * cg, :, i, j])
                    rows = slice(i * d[0], i * d[0] + (h - 1) * s[0] + 1, s[0])
                    cols = slice(j * d[1], j * d[1] + (wd - 1) * s[1] + 1, s[1])
                    out[:, g * og : (g + 1) * og, rows, cols] += part
        out = out[:, :, p[0] : full[0] - p[0], p[1] : full[1] - p[1]]
        if bias is not None:
            out = out + _f(bias)[:, None, None]
        out = out[:, :, 0] if nd == 1 else out
        return out[0] if unbatched else out

    return ref


def _windows(x, nd, kernel, stride, padding, dilation, fill):
    """(.., oh, ow, kh*kw): each output's window of the padded input."""
    k, s, p, d = (_tuple(v, nd) for v in (kernel, stride or kernel, padding, dilation))
    if nd == 1:
        k, s, p, d = (1, *k), (1, *s), (0, *p), (1, *d)
    x = _as2d(_f(x), nd)
    widths = [(0, 0)] * (x.ndim - 2) + [(p[0], p[0]), (p[1], p[1])]
    x = np.pad(x, widths, constant_values=fill)
    h, w = x.shape[-2:]
    oh, ow = (h - d[0] * (k[0] - 1) - 1) // s[0] + 1, (w - d[1] * (k[1] - 1) - 1) // s[1] + 1
    parts = [
        x[..., i * d[0] :: s[0], j * d[1] :: s[1]][..., :oh, :ow]
        for i in range(k[0])
        for j in range(k[1])
    ]
    return np.stack(parts, -1)


def _max_pool(nd):
    def ref(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, **_):
        y = _windows(x, nd, kernel_size, stride, padding, dilation, -np.inf).max(-1)
        return y[..., 0, :] if nd == 1 else y

    return ref


def _avg_pool(nd):
    def ref(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
            divisor_override=None):  # fmt: skip
        total = _windows(x, nd, kernel_size, stride, padding, 1, 0.0).sum(-1)
        if divisor_override:
            count = divisor_override
        elif count_include_pad:
            count = math.prod(_tuple(kernel_size, nd))
        else:
            count = _windows(np.ones(np.shape(x)), nd, kernel_size, stride, padding, 1, 0.0)
            count = count.sum(-1)
        y = total / count
        return y[..., 0, :] if nd == 1 else y

    return ref


def _adaptive(nd, reduce):
    def ref(x, output_size, return_indices=False):
        x = _f(x)
        sizes = _tuple(output_size, nd)
        out = x
        for axis, m in zip(range(x.ndim - nd, x.ndim), sizes):
            n = out.shape[axis]
            m = n if m is None else m
            parts = [
                reduce(
                    np.take(out, range(i * n // m, -(-(i + 1) * n // m)), axis=axis),
                    axis=axis,
                    keepdims=True,
                )
                for i in range(m)
            ]
            out = np.concatenate(parts, axis=axis)
        return out

    return ref


def _source(n, m, mode, align_corners, scale):
    """For each of the m outputs along an axis of n inputs: (lo, hi, weight of hi)."""
    i = np.arange(m, dtype=np.float64)
    if mode == "nearest":
        src = np.floor(i * (n / m if scale is None else 1 / scale)).astype(int)
        return np.minimum(src, n - 1), None, None
    if mode == "nearest-exact":
        src = np.floor((i + 0.5) * (n / m if scale is None else 1 / scale)).astype(int)
        return np.minimum(src, n - 1), None, None
    if align_corners:
        pos = i * (n - 1) / (m - 1) if m > 1 else np.zeros(m)
    else:
        r = n / m if scale is None else 1 / scale
        pos = np.maximum((i + 0.5) * r - 0.5, 0)
    lo = np.minimum(np.floor(pos).astype(int), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    return lo, hi, pos - lo


def _interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=None, **_):
    x = _f(x)
    nd = x.ndim - 2
    sizes = _tuple(size, nd) if size is not None else None
    scales = _tuple(scale_factor, nd) if scale_factor is not None else (None,) * nd
    if mode == "area":
        out_sizes = sizes or tuple(int(math.floor(n * s)) for n, s in zip(x.shape[2:], scales))
        return _adaptive(nd, np.mean)(x, out_sizes)
    base = {"linear": "linear", "bilinear": "linear", "trilinear": "linear"}.get(mode, mode)
    for k in range(nd):
        axis = 2 + k
        n = x.shape[axis]
        m = sizes[k] if sizes else int(math.floor(n * scales[k]))
        lo, hi, t = _source(n, m, base, align_corners, None if sizes else scales[k])
        a = np.take(x, lo, axis=axis)
        if hi is None:
            x = a
        else:
            shape = [1] * x.ndim
            shape[axis] = m
            x = a + (np.take(x, hi, axis=axis) - a) * t.reshape(shape)
    return x


def _pool_samples(m, nd):
    sp = (5,) if nd == 1 else (4, 5)
    return [
        S(m(2, 3, *sp), 2),
        S(m(1, 2, *sp), 3, stride=1, padding=1, desc="stride 1, padding"),
        S(m(2, *sp, layout="transposed"), 2, stride=1, desc="unbatched, transposed"),
        S(m(1, 2, *sp, dtype="float32"), 2),
    ]


def _max_pool_samples(m, nd):
    sp = (5,) if nd == 1 else (4, 5)
    tied = np.zeros((1, 1, *sp))
    return [
        *_pool_samples(m, nd),
        S(m(1, 2, *sp), 2, dilation=2, stride=1, desc="dilation"),
        S(m(1, 2, *sp), 2, ceil_mode=True, desc="ceil_mode", ref=False),
        S(m.of(tied), 2, stride=1, desc="ties", grad=False),
    ]


def _conv_samples(m, nd):
    sp = (6,) if nd == 1 else (5, 4)
    k = (3,) if nd == 1 else (3, 2)
    return [
        S(m(2, 3, *sp), m(4, 3, *k), m(4)),
        S(m(1, 4, *sp), m(4, 2, *k), stride=2, padding=1, groups=2, desc="stride, groups"),
        S(m(1, 2, *sp, layout="transposed"), m(3, 2, *k), dilation=2, padding=2, desc="dilation"),
        S(m(3, *sp), m(2, 3, *k), desc="unbatched"),
        S(m(1, 2, *sp), m(3, 2, *k), padding="same", desc="same"),
        S(m(1, 2, *sp, dtype="float32"), m(3, 2, *k, dtype="float32"), m(3, dtype="float32")),
    ]


def _conv_transpose_samples(m, nd):
    sp = (4,) if nd == 1 else (3, 4)
    k = (3,) if nd == 1 else (2, 3)
    return [
        S(m(2, 3, *sp), m(3, 2, *k), m(2)),
        S(
            m(1, 4, *sp),
            m(4, 1, *k),
            stride=2,
            padding=1,
            output_padding=1,
            groups=2,
            desc="stride, groups",
        ),  # fmt: skip
        S(m(1, 2, *sp, layout="transposed"), m(2, 3, *k), dilation=2, desc="dilation"),
        S(m(2, *sp), m(2, 3, *k), desc="unbatched"),
        S(m(1, 2, *sp, dtype="float32"), m(2, 3, *k, dtype="float32")),
    ]


def _interp_samples(m):
    return [
        S(m(1, 2, 3), size=5),
        S(m(1, 2, 4), scale_factor=2, mode="linear"),
        S(m(1, 2, 4), size=7, mode="linear", align_corners=True),
        S(m(1, 2, 5), size=3, mode="linear", desc="downsample"),
        S(m(2, 1, 3, 4), size=(5, 3), mode="bilinear"),
        S(m(1, 2, 3, 4, layout="transposed"), scale_factor=2, mode="bilinear", align_corners=True),
        S(m(1, 2, 3, 4), size=(5, 7), mode="nearest"),
        S(m(1, 2, 5), size=3, mode="nearest-exact"),
        S(m(1, 2, 6, 4), size=(3, 2), mode="area"),
        S(m(1, 2, 3, dtype="float32"), size=6, mode="linear"),
    ]


INTERP_ERRORS = (ValueError, NotImplementedError)

ENTRIES = [
    op("F.conv1d", _conv(1), lambda m: _conv_samples(m, 1), method=False, tol=LOOSE,
       errors=lambda m: [(S(m(1, 3, 5, dtype="float32"), m(2, 3, 2)), RuntimeError)]),
    op("F.conv2d", _conv(2), lambda m: _conv_samples(m, 2), method=False, tol=LOOSE,
       errors=lambda m: [(S(m(1, 3, 4, 4), m(2, 2, 2, 2)), (ValueError, RuntimeError))]),
    op("F.conv_transpose1d", _conv_transpose(1), lambda m: _conv_transpose_samples(m, 1),
       method=False, tol=LOOSE),
    op("F.conv_transpose2d", _conv_transpose(2), lambda m: _conv_transpose_samples(m, 2),
       method=False, tol=LOOSE),
    op("F.max_pool1d", _max_pool(1), lambda m: _max_pool_samples(m, 1), method=False),
    op("F.max_pool2d", _max_pool(2), lambda m: _max_pool_samples(m, 2), method=False),
    op("F.avg_pool1d", _avg_pool(1), lambda m: [
        *_pool_samples(m, 1),
        S(m(1, 2, 5), 3, stride=2, padding=1, count_include_pad=False, desc="pad not counted"),
    ], method=False, tol=LOOSE),
    op("F.avg_pool2d", _avg_pool(2), lambda m: [
        *_pool_samples(m, 2),
        S(m(1, 2, 4, 5), 3, stride=2, padding=1, count_include_pad=False, desc="pad not counted"),
        S(m(1, 2, 4, 5), 2, divisor_override=3, desc="divisor_override"),
    ], method=False, tol=LOOSE),
    op("F.adaptive_avg_pool1d", _adaptive(1, np.mean), lambda m: [
        S(m(2, 3, 7), 3), S(m(3, 5, layout="transposed"), 5), S(m(1, 2, 4, dtype="float32"), 3),
    ], method=False, tol=LOOSE),
    op("F.adaptive_avg_pool2d", _adaptive(2, np.mean), lambda m: [
        S(m(2, 3, 5, 7), (2, 3)), S(m(3, 4, 5, layout="transposed"), 2),
        S(m(1, 2, 4, 6), (None, 4), desc="None keeps a size"),
    ], method=False, tol=LOOSE),
    op("F.adaptive_max_pool1d", _adaptive(1, np.max), lambda m: [
        S(m(2, 3, 7), 3), S(m(3, 5, layout="transposed"), 2),
    ], method=False),
    op("F.adaptive_max_pool2d", _adaptive(2, np.max), lambda m: [
        S(m(2, 3, 5, 7), (2, 3)), S(m(3, 4, 5, layout="strided"), 2),
    ], method=False),
    op("F.interpolate", _interpolate, _interp_samples, method=False, tol=LOOSE,
       errors=lambda m: [(S(m(1, 2, 3), size=4, mode="bilinear"), INTERP_ERRORS)]),
    op("F.upsample", _interpolate, lambda m: _interp_samples(m)[:3], method=False, tol=LOOSE),
    op("F.upsample_nearest", _interpolate, lambda m: [S(m(1, 2, 3, 4), size=(5, 6))],
       method=False),
    op("F.upsample_bilinear", lambda x, size=None, scale_factor=None: _interpolate(
        x, size, scale_factor, "bilinear", True), lambda m: [S(m(1, 2, 3, 4), size=(5, 6))],
       method=False, tol=LOOSE),
]  # fmt: skip
