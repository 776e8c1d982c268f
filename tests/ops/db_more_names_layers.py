"""The volumetric layers (conv3d, conv_transpose3d, avg_pool3d, max_pool3d), max unpooling, the
LU family and the other less common linear algebra, and special.erfcx (the losses are in
``db_more_names_losses.py``).

The references are the definitions in NumPy: a convolution as a sum over kernel offsets of
shifted slabs, its transpose as the matching scatter, a pool as a reduction over the windows,
unpooling as a write at flat indices, LU as Doolittle's elimination with partial pivoting in
plain Python, erfcx as exp(x^2) erfc(x) from the math module (exact enough at these x).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .core import T
from .db_nn import LOOSE
from .simple import S, op


def _f(x):
    return np.asarray(x, np.float64)


def _t3(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * 3


# ----------------------------------------------------------------------------- 3-d layers
def _conv3d(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
    x, w = _f(x), _f(w)
    unbatched = x.ndim == 4
    x = x[None] if unbatched else x
    s, p, d = _t3(stride), _t3(padding), _t3(dilation)
    x = np.pad(x, ((0, 0), (0, 0)) + tuple((a, a) for a in p))
    o, cg = w.shape[:2]
    k = w.shape[2:]
    outs = [(x.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(3)]
    y = np.zeros((x.shape[0], o, *outs))
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg : (g + 1) * cg]
        for i, j, l in itertools.product(*(range(a) for a in k)):
            slab = xs[
                :,
                :,
                i * d[0] : i * d[0] + s[0] * (outs[0] - 1) + 1 : s[0],
                j * d[1] : j * d[1] + s[1] * (outs[1] - 1) + 1 : s[1],
                l * d[2] : l * d[2] + s[2] * (outs[2] - 1) + 1 : s[2],
            ]
            y[:, g * og : (g + 1) * og] += np.einsum(
                "ncxyz,oc->noxyz", slab, w[g * og : (g + 1) * og, :, i, j, l]
            )
    if bias is not None:
        y += _f(bias)[:, None, None, None]
    return y[0] if unbatched else y


def _conv_transpose3d(x, w, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                      dilation=1):  # fmt: skip
    x, w = _f(x), _f(w)
    unbatched = x.ndim == 4
    x = x[None] if unbatched else x
    s, p, op_, d = _t3(stride), _t3(padding), _t3(output_padding), _t3(dilation)
    n, c = x.shape[:2]
    og = w.shape[1]
    k = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 + op_[i] for i in range(3)]
    y = np.zeros((n, og * groups, *full))
    cg = c // groups
    for g in range(groups):
        for i, j, l in itertools.product(*(range(a) for a in k)):
            contrib = np.einsum(
                "ncxyz,co->noxyz", x[:, g * cg : (g + 1) * cg], w[g * cg : (g + 1) * cg, :, i, j, l]
            )
            y[
                :,
                g * og : (g + 1) * og,
                i * d[0] : i * d[0] + s[0] * (x.shape[2] - 1) + 1 : s[0],
                j * d[1] : j * d[1] + s[1] * (x.shape[3] - 1) + 1 : s[1],
                l * d[2] : l * d[2] + s[2] * (x.shape[4] - 1) + 1 : s[2],
            ] += contrib
    y = y[:, :, p[0] : full[0] - p[0], p[1] : full[1] - p[1], p[2] : full[2] - p[2]]
    if bias is not None:
        y = y + _f(bias)[:, None, None, None]
    return y[0] if unbatched else y


def _windows(x, k, s, p, d, fill):
    """(N, C, D', H', W', K) windows of x (no ceil_mode)."""
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((a, a) for a in p), constant_values=fill)
    outs = [(xp.shape[2 + a] - d[a] * (k[a] - 1) - 1) // s[a] + 1 for a in range(3)]
    w = np.empty(x.shape[:2] + tuple(outs) + (k[0] * k[1] * k[2],))
    for m, (i, j, l) in enumerate(itertools.product(*(range(a) for a in k))):
        w[..., m] = xp[
            :,
            :,
            i * d[0] : i * d[0] + s[0] * (outs[0] - 1) + 1 : s[0],
            j * d[1] : j * d[1] + s[1] * (outs[1] - 1) + 1 : s[1],
            l * d[2] : l * d[2] + s[2] * (outs[2] - 1) + 1 : s[2],
        ]
    return w


def _avg_pool3d(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    x = _f(x)
    k = _t3(kernel_size)
    s, p = _t3(stride or kernel_size), _t3(padding)
    sums = _windows(x, k, s, p, (1, 1, 1), 0.0).sum(-1)
    if count_include_pad:
        return sums / (k[0] * k[1] * k[2])
    return sums / _windows(np.ones_like(x), k, s, p, (1, 1, 1), 0.0).sum(-1)


def _max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1):
    k = _t3(kernel_size)
    s, p, d = _t3(stride or kernel_size), _t3(padding), _t3(dilation)
    return _windows(_f(x), k, s, p, d, -np.inf).max(-1)


def _adaptive(x, out, reduce):
    """PyTorch's adaptive windows [floor(i n / m), ceil((i + 1) n / m)) reduced, per dim."""
    unbatched = x.ndim == 4
    x = x[None] if unbatched else x
    out = _t3(out)
    y = np.empty(x.shape[:2] + out)
    for idx in itertools.product(*(range(o) for o in out)):
        box = tuple(
            slice((i * x.shape[2 + t]) // out[t], -(-((i + 1) * x.shape[2 + t]) // out[t]))
            for t, i in enumerate(idx)
        )
        window = x[(slice(None), slice(None)) + box]
        y[(slice(None), slice(None)) + idx] = reduce(window, axis=(-3, -2, -1))
    return y[0] if unbatched else y


def _volumes(m, *shape, **k):
    """Distinct values (no tied maxima), as a float64 tensor."""
    n = int(np.prod(shape))
    return T(m.rng.permutation(n).reshape(shape) / n * 4 - 2, **k)


def _unpool(nd):
    def ref(x, indices, kernel_size, stride=None, padding=0, output_size=None):
        x = _f(x)
        size = output_size[-nd:]
        out = np.zeros(x.shape[:2] + (int(np.prod(size)),))
        idx = np.asarray(indices).reshape(x.shape[:2] + (-1,))
        np.put_along_axis(out, idx, x.reshape(x.shape[:2] + (-1,)), axis=-1)
        return out.reshape(x.shape[:2] + tuple(size))

    return ref


def _unpool_sample(m, nd):
    """Pooled values with distinct positions, one per 2-wide window (what max_pool gives)."""
    n_out = (2,) * nd
    size = (4,) * nd
    grid = np.stack(np.meshgrid(*[np.arange(o) for o in n_out], indexing="ij"), -1)
    offsets = m.rng.integers(0, 2, (1, 2) + n_out + (nd,))
    pos = grid * 2 + offsets  # inside each window
    flat = np.ravel_multi_index(np.moveaxis(pos, -1, 0), size)
    return S(m(1, 2, *n_out), T(flat.astype(np.int64), "int64", grad=False), 2,
             output_size=size)  # fmt: skip


# ----------------------------------------------------------------------------- LU family
def _lu_one(a):
    """Doolittle with partial pivoting (the first largest |pivot|), one matrix."""
    a = a.astype(np.float64).copy()
    m, n = a.shape
    piv = []
    for k in range(min(m, n)):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        piv.append(p + 1)
        a[[k, p]] = a[[p, k]]
        if a[k, k] != 0:
            a[k + 1 :, k] /= a[k, k]
        a[k + 1 :, k + 1 :] -= np.outer(a[k + 1 :, k], a[k, k + 1 :])
    return a, np.array(piv)


def _lu_factor(a):
    a = _f(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    parts = [_lu_one(x) for x in flat]
    lu = np.stack([p[0] for p in parts]).reshape(a.shape)
    piv = np.stack([p[1] for p in parts]).reshape(a.shape[:-2] + (min(a.shape[-2:]),))
    return lu, piv


def _lu_info(a):
    """0, or the first k (1-based) with U[k, k] = 0."""
    diag = np.diagonal(_lu_factor(a)[0], axis1=-2, axis2=-1)
    zero = diag == 0
    return np.where(zero.any(-1), zero.argmax(-1) + 1, 0)


def _lu(a):
    lu, piv = _lu_factor(a)
    m, n = np.shape(a)[-2:]
    k = min(m, n)
    perm = np.arange(m)
    for i, p in enumerate(piv - 1):  # (2-d samples only)
        perm[[i, p]] = perm[[p, i]]
    pmat = np.zeros((m, m))
    pmat[perm, np.arange(m)] = 1
    return pmat, np.tril(lu[:, :k], -1) + np.eye(m, k), np.triu(lu[:k])


def _householder(a, tau):
    a, tau = _f(a), _f(tau)
    m, n = a.shape
    q = np.eye(m)
    for i in range(len(tau)):
        v = np.concatenate([np.zeros(i), [1.0], a[i + 1 :, i]])
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q[:, :n]


def _well(m, n, batch=()):
    q1, _ = np.linalg.qr(m.rng.standard_normal(batch + (n, n)))
    q2, _ = np.linalg.qr(m.rng.standard_normal(batch + (n, n)))
    return T((q1 * m.rng.uniform(1, 3, batch + (1, n))) @ q2)


def _lu_solve_call(lib, a, b, **kw):
    lu, piv = lib.L.linalg.lu_factor(a)
    return lib.L.linalg.lu_solve(lu, piv, b, **kw)


# ------------------------------------------------------------------------------ fold / unfold
def _blocks(size, k, d, p, s):
    return [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]


def _pairs(*values):
    return [tuple(v) if isinstance(v, (tuple, list)) else (v, v) for v in values]


def _unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """out[n, (c, i, j), (oh, ow)] = xpad[n, c, oh s + i d, ow s + j d], one offset at a time."""
    x = _f(x)
    unbatched = x.ndim == 3
    x = x[None] if unbatched else x
    k, d, p, s = _pairs(kernel_size, dilation, padding, stride)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    ho, wo = _blocks(x.shape[2:], k, d, p, s)
    out = np.zeros((x.shape[0], x.shape[1], k[0], k[1], ho, wo))
    for i, j in itertools.product(range(k[0]), range(k[1])):
        rows = slice(i * d[0], i * d[0] + s[0] * (ho - 1) + 1, s[0])
        cols = slice(j * d[1], j * d[1] + s[1] * (wo - 1) + 1, s[1])
        out[:, :, i, j] = xp[:, :, rows, cols]
    out = out.reshape(x.shape[0], -1, ho * wo)
    return out[0] if unbatched else out


def _fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of _unfold: every column entry added back to its pixel, padding cropped."""
    x = _f(x)
    unbatched = x.ndim == 2
    x = x[None] if unbatched else x
    (h, w), k, d, p, s = _pairs(output_size, kernel_size, dilation, padding, stride)
    ho, wo = _blocks((h, w), k, d, p, s)
    cols = x.reshape(x.shape[0], -1, k[0], k[1], ho, wo)
    img = np.zeros((x.shape[0], cols.shape[1], h + 2 * p[0], w + 2 * p[1]))
    for i, j in itertools.product(range(k[0]), range(k[1])):
        rows = slice(i * d[0], i * d[0] + s[0] * (ho - 1) + 1, s[0])
        cc = slice(j * d[1], j * d[1] + s[1] * (wo - 1) + 1, s[1])
        img[:, :, rows, cc] += cols[:, :, i, j]
    img = img[:, :, p[0] : p[0] + h, p[1] : p[1] + w]
    return img[0] if unbatched else img


def _lp_pool(x, norm_type, kernel_size, stride=None):
    """(sum of x^p over each window)^(1/p), the windows as a strided view (ceil_mode off)."""
    x = _f(x)
    d = {3: 1, 4: 2, 5: 3}[x.ndim]  # the samples are batched
    k = tuple(kernel_size) if np.ndim(kernel_size) else (kernel_size,) * d
    s = k if stride is None else (tuple(stride) if np.ndim(stride) else (stride,) * d)
    windows = np.lib.stride_tricks.sliding_window_view(x**norm_type, k, axis=tuple(range(-d, 0)))
    windows = windows[(Ellipsis, *(slice(None, None, st) for st in s)) + (slice(None),) * d]
    return windows.sum(axis=tuple(range(-d, 0))) ** (1.0 / norm_type)


ENTRIES = [
    op(
        "F.lp_pool1d",
        _lp_pool,
        lambda m: [S(m(2, 3, 7), 2.0, 3, 2), S(m(1, 2, 6, lo=0.1, hi=2), 1.5, 2)],
        method=False,
        errors=lambda m: [(S(m(1, 2, 2), 2.0, 3), RuntimeError)],
    ),
    op(
        "F.lp_pool2d",
        _lp_pool,
        lambda m: [S(m(2, 2, 5, 6), 2.0, (2, 3)), S(m(1, 2, 4, 4, lo=0.1, hi=2), 3.0, 2, 1)],
        method=False,
    ),
    op(
        "F.lp_pool3d",
        _lp_pool,
        lambda m: [S(m(1, 2, 4, 5, 4), 2.0, 2), S(m(1, 1, 3, 4, 4, lo=0.1, hi=2), 1.5, (1, 2, 2))],
        method=False,
    ),
    op(
        "F.unfold",
        _unfold,
        lambda m: [
            S(m(2, 3, 5, 6), (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1)),
            S(m(3, 4, 4, layout="transposed"), 2, desc="unbatched, transposed"),
            S(m(1, 2, 3, 3), 3, padding=1, desc="padding"),
        ],
        method=False,
        errors=lambda m: [(S(m(4, 4), 2), RuntimeError), (S(m(1, 1, 2, 2), 3), RuntimeError)],
    ),
    op(
        "F.fold",
        _fold,
        lambda m: [
            S(m(2, 12, 9), (4, 4), 2),
            S(m(18, 6), (5, 6), (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1)),
            S(m(1, 4, 4, layout="transposed"), (3, 3), 2, desc="transposed"),
        ],
        method=False,
        errors=lambda m: [
            (S(m(1, 12, 8), (4, 4), 2), RuntimeError),
            (S(m(12), (4, 4), 2), RuntimeError),
        ],
    ),
    op(
        "F.conv3d",
        _conv3d,
        lambda m: [
            S(m(1, 2, 3, 4, 3), m(2, 2, 2, 2, 2), m(2)),
            S(m(2, 4, 4, 3, 5), m(2, 2, 1, 2, 3), None, (1, 2, 1), (1, 0, 1), (2, 1, 1), 2),
            S(m(2, 3, 3, 3), m(1, 2, 2, 2, 2), desc="unbatched"),
            S(m(1, 2, 3, 3, 3, dtype="float32"), m(2, 2, 2, 2, 2, dtype="float32")),
        ],
        method=False,
        tol=LOOSE,
    ),
    op(
        "F.conv_transpose3d",
        _conv_transpose3d,
        lambda m: [
            S(m(1, 2, 2, 3, 2), m(2, 2, 2, 2, 2), m(2)),
            S(m(1, 4, 2, 2, 2), m(4, 1, 2, 1, 2), None, 2, (1, 0, 0), 1, 2, (1, 2, 1)),
            S(m(2, 2, 2, 2, dtype="float32"), m(2, 1, 2, 2, 2, dtype="float32"), desc="unbatched"),
        ],
        method=False,
        tol=LOOSE,
    ),
    op(
        "F.avg_pool3d",
        _avg_pool3d,
        lambda m: [
            S(m(1, 2, 4, 4, 4), 2),
            S(m(1, 2, 5, 4, 3), (3, 2, 3), (2, 1, 1), 1, count_include_pad=False),
            S(m(1, 1, 4, 4, 4, dtype="float32"), 2),
        ],
        method=False,
        tol=LOOSE,
    ),
    op(
        "F.max_pool3d",
        _max_pool3d,
        lambda m: [
            S(_volumes(m, 1, 2, 4, 4, 4), 2),
            S(_volumes(m, 1, 1, 5, 4, 5), (2, 3, 2), (2, 1, 2), 1, (1, 1, 2)),
            S(_volumes(m, 1, 1, 4, 4, 4, dtype="float32"), 2),
        ],
        method=False,
        gradgrad=False,
    ),
    op(
        "F.adaptive_avg_pool3d",
        lambda x, out: _adaptive(_f(x), out, np.mean),
        lambda m: [S(m(1, 2, 5, 4, 3), (2, 3, 2)), S(m(2, 3, 4, 5, dtype="float32"), 2)],
        method=False,
        tol=LOOSE,
    ),
    op(
        "F.adaptive_max_pool3d",
        lambda x, out: _adaptive(_f(x), out, np.max),
        lambda m: [S(_volumes(m, 1, 2, 5, 4, 3), (2, 3, 2)), S(_volumes(m, 1, 4, 3, 3), 2)],
        method=False,
        gradgrad=False,
    ),
    *[
        op(
            f"F.max_unpool{nd}d",
            _unpool(nd),
            lambda m, nd=nd: [_unpool_sample(m, nd)],
            method=False,
        )  # fmt: skip
        for nd in (1, 2, 3)
    ],
    op(
        "linalg.lu_factor",
        _lu_factor,
        lambda m: [S(m(4, 4)), S(m(2, 3, 3)), S(m(3, 5)), S(m(5, 3))],
        method=False,
        tol=LOOSE,
    ),
    op(
        "linalg.lu_factor_ex",
        lambda a: (*_lu_factor(a), _lu_info(a)),
        lambda m: [
            S(m(4, 4)),
            S(m(2, 3, 3)),
            S(m.of([[1.0, 2.0], [2.0, 4.0]]), desc="singular", grad=False),
        ],  # fmt: skip
        method=False,
        tol=LOOSE,
    ),
    op(
        "linalg.lu",
        _lu,
        lambda m: [S(m(4, 4)), S(m(3, 5)), S(m(5, 3))],
        method=False,
        tol=LOOSE,
        dtype=None,
    ),  # fmt: skip
    op(
        "linalg.lu_solve",
        lambda a, b, left=True, adjoint=False: (
            np.linalg.solve(np.swapaxes(_f(a), -1, -2) if adjoint else _f(a), _f(b))
            if left
            else np.swapaxes(
                np.linalg.solve(
                    _f(a) if adjoint else np.swapaxes(_f(a), -1, -2), np.swapaxes(_f(b), -1, -2)
                ),
                -1,
                -2,
            )
        ),  # fmt: skip
        lambda m: [
            S(_well(m, 3), m(3, 2)),
            S(_well(m, 3, (2,)), m(2, 3, 2), adjoint=True),
            S(_well(m, 3), m(2, 3), left=False),
        ],
        call=_lu_solve_call,
        method=False,
        tol=LOOSE,
        torch=True,
    ),
    op(
        "linalg.solve_ex",
        lambda a, b: (np.linalg.solve(_f(a), _f(b)[..., None])[..., 0], np.zeros(np.shape(a)[:-2])),
        lambda m: [S(_well(m, 3), m(3)), S(_well(m, 3, (2,)), m(2, 3))],
        method=False,
        tol=LOOSE,
        dtype=None,
    ),
    op(
        "linalg.inv_ex",
        lambda a: (np.linalg.inv(_f(a)), np.zeros(np.shape(a)[:-2])),
        lambda m: [S(_well(m, 3)), S(_well(m, 2, (2,)))],
        method=False,
        tol=LOOSE,
        dtype=None,
    ),
    op(
        "linalg.tensorinv",
        lambda a, ind=2: np.linalg.tensorinv(_f(a), ind),
        lambda m: [
            S(T(_well(m, 6).values.reshape(2, 3, 6)), ind=2),
            S(T(_well(m, 6).values.reshape(6, 2, 3)), ind=1),
        ],  # fmt: skip
        method=False,
        tol=LOOSE,
    ),
    op(
        "linalg.tensorsolve",
        lambda a, b: np.linalg.tensorsolve(_f(a), _f(b)),
        lambda m: [S(T(_well(m, 6).values.reshape(2, 3, 6)), m(2, 3))],
        method=False,
        tol=LOOSE,
    ),
    op(
        "linalg.vander",
        lambda x, N=None: np.vander(_f(x), N, increasing=True),
        lambda m: [S(m(4)), S(m(3), N=5), S(m.of([0.0, 1.5, -2.0]))],
        method=False,
    ),
    op(
        "linalg.householder_product",
        _householder,
        lambda m: [S(m(4, 3), m(2)), S(m(3, 3), m(3, lo=-1, hi=1))],
        method=False,
        tol=LOOSE,
    ),
    op(
        "special.erfcx",
        lambda x: np.vectorize(lambda v: math.exp(v * v) * math.erfc(v))(_f(x)),
        lambda m: [
            S(m(3, 4, lo=-3, hi=5)),
            S(m(3, 4, lo=-3, hi=5, layout="transposed")),
            S(m(2, 3, lo=-2, hi=5, dtype="float32")),
            S(m.of([0.0, 0.5, 1.0, 2.0, 26.0, -1.0]), desc="switch points", grad=False),
        ],
        method=False,
        dtype="float",
        tol=LOOSE,
    ),
]
