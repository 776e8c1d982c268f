"""Ops PyTorch programs call that are compositions of others (tensor_aliases.py,
top_level/names.py): the scatters (a copy of self with a slice, a row, a diagonal or a strided
window replaced by src), ``sum_to_size``, ``adjoint``, ``nonzero_static``, ``unravel_index``,
``histogramdd``, the window functions, ``range`` and ``scalar_tensor``.

The references are the definitions written out in NumPy: the copy with the part assigned, the
sum over the broadcast dims, the flat index divided out, ``np.histogramdd``, the window's
cosine sum (``np.hanning`` and kin for the symmetric windows).
"""

from __future__ import annotations

import numpy as np

from .simple import S, op


def _assigned(x, src, index):
    out = np.array(x, copy=True)
    out[index] = src
    return out


def _slice_scatter(x, src, dim=0, start=None, end=None, step=1):
    return _assigned(x, src, (slice(None),) * (dim % x.ndim) + (slice(start, end, step),))


def _select_scatter(x, src, dim, index):
    return _assigned(x, src, (slice(None),) * (dim % x.ndim) + (index,))


def _diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    out = np.array(x, copy=True)
    rows = np.arange(src.shape[-1])
    i, j = (rows, rows + offset) if offset >= 0 else (rows - offset, rows)
    moved = np.moveaxis(out, (dim1, dim2), (-2, -1))  # a view of out
    moved[..., i, j] = src
    return out


def _as_strided_scatter(x, src, size, stride, offset=0):
    flat = np.array(x, copy=True).reshape(-1)
    index = offset + sum(
        np.arange(n).reshape((-1,) + (1,) * (len(size) - k - 1)) * st
        for k, (n, st) in enumerate(zip(size, stride))
    )
    flat[np.broadcast_to(index, size)] = src
    return flat.reshape(x.shape)


def _sum_to_size(x, *size):
    lead = x.ndim - len(size)
    out = x.sum(axis=tuple(range(lead))) if lead else x
    kept = tuple(d for d, (t, s) in enumerate(zip(size, out.shape)) if t == 1 and s != 1)
    return out.sum(axis=kept, keepdims=True) if kept else out


def _nonzero_static(x, *, size, fill_value=-1):
    found = np.argwhere(x)[:size]
    pad = np.full((size - len(found), x.ndim), fill_value, np.int64)
    return np.concatenate([found, pad]).astype(np.int64)


def _unravel_index(indices, shape):
    flat = np.asarray(indices) % int(np.prod(shape))  # -1 is the last element, as PyTorch's
    return tuple(np.asarray(c, np.int64) for c in np.unravel_index(flat, shape))


def _histogramdd(x, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    flat_range = None if range is None else list(zip(range[::2], range[1::2]))
    hist, edges = np.histogramdd(x, bins, range=flat_range, weights=weight, density=density)
    return (hist, *edges)


def _histogramdd_call(lib, x, *args, **kwargs):
    hist, edges = lib.L.histogramdd(x, *args, **kwargs)
    return (hist, *edges)


def _window(cosines):
    """sum_k (-1)^k a_k cos(2 pi k n / (N - 1)) over n < N (N = length + 1 when periodic)."""

    def ref(length, periodic=True, *params, **kw):
        if length <= 1:
            return np.ones(length)
        n_points = length + 1 if periodic else length
        n = np.arange(n_points)
        a = cosines(*params)
        w = sum((-1) ** k * c * np.cos(2 * np.pi * k * n / (n_points - 1)) for k, c in enumerate(a))
        return w[:length]

    return ref


def _bartlett(length, periodic=True, **kw):
    if length <= 1:
        return np.ones(length)
    n_points = length + 1 if periodic else length
    return np.bartlett(n_points)[:length]


def _kaiser(length, periodic=True, beta=12.0, **kw):
    if length <= 1:
        return np.ones(length)
    n_points = length + 1 if periodic else length
    return np.kaiser(n_points, beta)[:length]


def _window_entry(name, ref, *params):
    """Samples: periodic and symmetric, lengths 1 and 0 (all ones, empty), the window's own
    parameters (hamming's alpha, beta; kaiser's beta) where it has them."""
    return op(
        name,
        ref,
        lambda m: [S(5), S(6, False), S(1), S(0), *(S(7, False, *p) for p in params)],
        method=False,
        dtype="float",
        differentiable=False,
    )


def _range(start, end, step=1, **kw):
    return start + step * np.arange(int(np.floor((end - start) / step)) + 1, dtype=np.float64)


ENTRIES = [
    op(
        "slice_scatter",
        _slice_scatter,
        lambda m: [
            S(m(4, 3), m(2, 3), 0, 1, 3),
            S(m(3, 4, layout="transposed"), m(3, 2), 1, 0, None, 2, desc="step 2"),
            S(m(4, 3), m(4, 3), desc="the whole tensor"),
            S(m(3, 4, dtype="float32"), m(3, 1, dtype="float32"), dim=-1, start=-1),
        ],
        errors=lambda m: [(S(m(4, 3), m(1, 3), 0, 1, 3), RuntimeError)],
    ),
    op(
        "select_scatter",
        _select_scatter,
        lambda m: [
            S(m(4, 3), m(3), 0, 1),
            S(m(3, 4, layout="transposed"), m(3), 1, -1),
            S(m(2, 3, 4), m(2, 4), 1, 2),
        ],
        errors=lambda m: [(S(m(4, 3), m(4), 0, 1), RuntimeError)],
    ),
    op(
        "diagonal_scatter",
        _diagonal_scatter,
        lambda m: [
            S(m(3, 3), m(3)),
            S(m(3, 4, layout="transposed"), m(2), 2),
            S(m(4, 3), m(2), -2),
            S(m(2, 3, 3), m(2, 3), 0, 1, 2, desc="batched"),
        ],
    ),
    # a contiguous self only: PyTorch's clone keeps a transposed self's strides, and as_strided's
    # strides address that memory
    op(
        "as_strided_scatter",
        _as_strided_scatter,
        lambda m: [
            S(m(3, 4), m(2, 2), (2, 2), (4, 1), 1),
            S(m(12), m(3, 2), (3, 2), (1, 4)),
            S(m(2, 3, dtype="float32"), m(3, dtype="float32"), (3,), (2,), 0),
        ],
    ),
    op(
        "Tensor.sum_to_size",
        _sum_to_size,
        lambda m: [
            S(m(2, 3, 4), 3, 1, desc="lead dim and a kept dim summed"),
            S(m(3, 4, layout="transposed"), 1, 4),
            S(m(2, 3, dtype="float32"), 1, 1),
        ],
        errors=lambda m: [(S(m(2, 3), 4, 3), RuntimeError)],
    ),
    op(
        "adjoint",
        lambda x: np.swapaxes(x, -2, -1),
        lambda m: [
            S(m(3, 4)),
            S(m(2, 3, 4, layout="transposed")),
            S(m(2, 0, 3)),
        ],
        errors=lambda m: [(S(m(3)), RuntimeError)],
    ),
    op(
        "nonzero_static",
        _nonzero_static,
        lambda m: [
            S(m.of([[0.0, 1.5], [-2.0, 0.0]]), size=4, desc="padded"),
            S(m.of([[0.0, 1.5], [-2.0, 3.0]]), size=2, desc="cut"),
            S(m(2, 3, dtype="int64", lo=-1, hi=1), size=3, fill_value=7),
        ],
        dtype="int64",
        differentiable=False,
    ),
    op(
        "unravel_index",
        _unravel_index,
        lambda m: [
            S(m.ints(0, 24, 5), (2, 3, 4)),
            S(m.of([-1, 0, 7], "int64"), (3, 4), desc="negative wraps"),
            S(m.ints(0, 6, 2, 3), (6,)),
        ],
        method=False,
        dtype="int64",
        differentiable=False,
        errors=lambda m: [(S(m.of([0.5]), (2,)), TypeError)],
    ),
    op(
        "histogramdd",
        _histogramdd,
        lambda m: [
            S(m(20, 2), 3),
            S(m(10, 2), [2, 4], range=[-2.0, 2.0, -1.0, 1.0]),
            S(m(12, 3), 2, weight=m(12, lo=0.0, hi=1.0, grad=False), density=True),
        ],
        method=False,
        call=_histogramdd_call,
        dtype="float",
        differentiable=False,
    ),
    _window_entry("hann_window", _window(lambda: (0.5, 0.5))),
    _window_entry(
        "hamming_window", _window(lambda alpha=0.54, beta=0.46: (alpha, beta)), (0.5, 0.5)
    ),
    _window_entry("blackman_window", _window(lambda: (0.42, 0.5, 0.08))),
    _window_entry("bartlett_window", _bartlett),
    _window_entry("kaiser_window", _kaiser, (5.0,)),
    op(
        "range",
        _range,
        lambda m: [S(1.0, 4.0), S(0.0, 1.0, 0.25), S(-1, 2), S(3.0, 0.0, -1.5)],
        method=False,
        dtype="float",
        differentiable=False,
        # end is required (torch.range(5.0) is a TypeError: unlike arange, no one-argument form)
        errors=lambda m: [(S(0.0, 1.0, -1.0), RuntimeError), (S(5.0), TypeError)],
    ),
    op(
        "scalar_tensor",
        lambda s, **kw: np.asarray(s, np.float64),
        lambda m: [S(1.5), S(-2), S(True)],
        method=False,
        dtype="float",
        differentiable=False,
    ),
]
