"""Indexing: gather / scatter and their reductions, index_select / index_add / index_copy /
index_fill, masks (masked_fill, masked_select, where), take_along_dim, nonzero, and the
searches over sorted values (searchsorted, bucketize, isin).

Scatter samples use indices without repeats along the scattered dim (a permutation per column),
where PyTorch leaves the order of writes to one place unspecified; scatter_add and
scatter_reduce, which combine repeats, get repeated indices.
"""

from __future__ import annotations

import numpy as np

from .core import T
from .simple import S, op


def _perm_index(m, rows: int, cols: int, n: int) -> T:
    """(rows, cols) indices into a dim of size n >= rows, no repeat within a column."""
    idx = np.stack([m.rng.permutation(n)[:rows] for _ in range(cols)], axis=1)
    return T(idx, "int64", grad=False)


def _gather(x, dim, index, **_):
    return np.take_along_axis(x, index, dim)


def _scatter(x, dim, index, src=None, value=None, reduce=None):
    out = np.array(x, np.float64 if x.dtype.kind == "f" else x.dtype)
    src = np.full(index.shape, value) if src is None else src
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        out[tuple(target)] = src[pos]
    return out


def _scatter_reduce(x, dim, index, src, reduce, include_self=True):
    out = np.array(x, np.float64)
    groups: dict = {}
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        groups.setdefault(tuple(target), []).append(src[pos])
    fn = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}
    for target, vals in groups.items():
        vals = ([out[target]] if include_self else []) + vals
        out[target] = fn[reduce](vals)
    return out


def _index_add(x, dim, index, source, alpha=1):
    out = np.array(x, np.float64)
    moved = np.moveaxis(out, dim, 0)
    for i, k in enumerate(index):
        moved[k] += alpha * np.moveaxis(source, dim, 0)[i]
    return out


def _index_copy(x, dim, index, source):
    out = np.array(x, np.float64)
    np.moveaxis(out, dim, 0)[index] = np.moveaxis(source, dim, 0)
    return out


def _index_fill(x, dim, index, value):
    out = np.array(x, np.float64)
    np.moveaxis(out, dim, 0)[index] = value
    return out


def _masked_select(x, mask):
    x, mask = np.broadcast_arrays(x, mask)
    return x[mask]


def _take_along_dim(x, indices, dim=None):
    if dim is None:
        return np.take(x.ravel(), indices.ravel())
    return np.take_along_axis(x, indices, dim)


def _searchsorted(seq, values, right=False, **_):
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side)
    return np.stack([np.searchsorted(s, v, side) for s, v in zip(seq, values)])


def _scatter_samples(m, reduce=False):
    samples = [
        S(m(4, 3), 0, _perm_index(m, 2, 3, 4), m(2, 3), desc="dim 0"),
        S(
            m(3, 4),
            1,
            T(_perm_index(m, 2, 3, 4).values.T.copy(), "int64", grad=False),
            m(3, 2),
            desc="dim 1",
        ),
        S(m(4, 3, layout="transposed"), 0, _perm_index(m, 3, 2, 4), m(3, 3), desc="smaller src"),
        S(m(4, 3, dtype="float32"), 0, _perm_index(m, 2, 3, 4), m(2, 3, dtype="float32")),
    ]
    if reduce:
        rep = T(np.array([[0, 1, 1], [0, 3, 1], [2, 1, 1]]), "int64", grad=False)
        samples.append(S(m(4, 3), 0, rep, m(3, 3), desc="repeated indices", gradgrad=False))
    return samples


def _index_samples(m, source=True):
    def src(*shape, **k):
        return (m(*shape, **k),) if source else (0.5,)

    return [
        S(m(4, 3), 0, m.of([2, 0], "int64", grad=False), *src(2, 3)),
        S(m(3, 4, layout="transposed"), 1, m.of([3, 1, 0], "int64", grad=False), *src(3, 3)),
        S(m(4, 3, dtype="float32"), 0, m.of([1], "int64", grad=False), *src(1, 3, dtype="float32")),
        S(m(4, 3), 0, m.of([], "int64", grad=False), *src(0, 3), desc="empty index"),
    ]


ENTRIES = [
    op(
        "gather",
        _gather,
        lambda m: [
            S(m(3, 4), 1, m.ints(0, 4, 3, 2)),
            S(m(3, 4, layout="transposed"), 0, m.ints(0, 3, 2, 4)),
            S(m(3, 4), 1, m.ints(0, 4, 3, 5), desc="repeats"),
            S(m(3, 4, dtype="float32"), 0, m.ints(0, 3, 1, 4)),
            S(m(3, 4), 1, m.ints(0, 4, 3, 0), desc="size-0 index"),
        ],
        out=True,
        errors=lambda m: [(S(m(3, 4), 1, m.of([[4]], "int64")), (IndexError, RuntimeError))],
    ),
    op("scatter", _scatter, _scatter_samples, inplace="scatter_"),
    op(
        "scatter",
        lambda x, dim, index, value: _scatter(x, dim, index, value=value),
        lambda m: [S(m(4, 3), 0, _perm_index(m, 2, 3, 4), value=1.5)],
        variant="value",
        inplace="scatter_",
    ),
    op(
        "scatter_add",
        lambda *a: _scatter_reduce(*a, "sum"),
        lambda m: _scatter_samples(m, True),
        inplace="scatter_add_",
    ),
    *[
        op(
            "scatter_reduce",
            lambda x, d, i, s, reduce, include_self=True: _scatter_reduce(
                x, d, i, s, reduce, include_self
            ),
            lambda m, r=r, inc=inc: [
                S(
                    *s.args,
                    r,
                    include_self=inc,
                    desc=s.desc,
                    grad=s.desc != "repeated indices" or r in ("sum", "mean", "prod"),
                    gradgrad=False,
                )
                for s in _scatter_samples(m, True)
                if s.args[0].dtype == "float64"
            ],
            variant=f"{r}{'' if inc else '/exclude'}",
            inplace="scatter_reduce_",
        )
        for r in ("sum", "prod", "mean", "amax", "amin")
        for inc in (True, False)
    ],
    op(
        "index_select",
        lambda x, d, i: np.take(x, i, d),
        lambda m: [S(*s.args[:3], desc=s.desc) for s in _index_samples(m)],
        out=True,
    ),
    op(
        "index_add",
        _index_add,
        lambda m: [
            *_index_samples(m),
            S(m(4, 3), 0, m.of([1, 1, 2], "int64", grad=False), m(3, 3), alpha=0.5, desc="repeats"),
        ],
        inplace="index_add_",
    ),
    op("index_copy", _index_copy, _index_samples, inplace="index_copy_"),
    op("index_fill", _index_fill, lambda m: _index_samples(m, False), inplace="index_fill_"),
    op(
        "masked_fill",
        lambda x, mask, v: np.where(mask, v, x),
        lambda m: [
            S(m(3, 4), m.mask(3, 4), 0.5),
            S(m(3, 4, layout="transposed"), m.mask(4), -1.0, desc="broadcast mask"),
            S(m(3, 4), m.mask(3, 4), T(np.array(2.0)), desc="0-d value"),
            S(m(2, 3, dtype="float32"), m.mask(2, 3), float("inf"), grad=False),
            S(m(0, 3), m.mask(3), 1.0, desc="size-0"),
        ],
        inplace="masked_fill_",
    ),
    op(
        "masked_select",
        _masked_select,
        lambda m: [
            S(m(3, 4), m.mask(3, 4)),
            S(m(3, 4, layout="transposed"), m.mask(4)),
            S(m(3), m.mask(2, 3), desc="broadcast self"),
            S(m(0, 3), m.mask(3)),
        ],
        out=True,
    ),
    op(
        "Tensor.where",
        lambda x, c, y: np.where(c, x, y),
        lambda m: [
            S(m(3, 4), m.mask(3, 4), m(3, 4)),
            S(m(3, 4), m.mask(4), 0.5),
        ],
    ),
    op(
        "take_along_dim",
        _take_along_dim,
        lambda m: [
            S(m(3, 4), m.ints(0, 4, 3, 2), 1),
            S(m(3, 4), m.ints(0, 12, 5)),
            S(m(3, 4, layout="transposed"), m.ints(0, 3, 1, 4), 0),
        ],
        out=True,
    ),
    op(
        "nonzero",
        lambda x: np.argwhere(x),
        lambda m: [
            S(m.of([[0.0, 1.5], [-2.0, 0.0]])),
            S(m.of([0.0, 0.0])),
            S(m(2, 3, dtype="int64", lo=-1, hi=1)),
            S(m.of([True, False], "bool")),
        ],
        dtype="int64",
        differentiable=False,
    ),
    op(
        "searchsorted",
        _searchsorted,
        lambda m: [
            S(m.of([-1.0, 0.0, 0.5, 2.0]), m(3, 2)),
            S(m.of([-1.0, 0.0, 0.5, 2.0]), m.of([0.0, 0.5, 3.0]), right=True, desc="ties right"),
            S(m.of([[-1.0, 0.0, 2.0], [0.0, 1.0, 1.5]]), m(2, 3), desc="batched"),
            S(m.of([1, 3, 5], "int64"), m.of([0, 3, 6], "int64")),
        ],
        dtype="int64",
        differentiable=False,
        out=True,
    ),
    op(
        "bucketize",
        lambda x, b, right=False: np.searchsorted(b, x, "right" if right else "left"),
        lambda m: [
            S(m(3, 2), m.of([-1.0, 0.0, 1.5])),
            S(m.of([0.0, 1.5, 3.0]), m.of([0.0, 1.5]), right=True),
        ],
        dtype="int64",
        differentiable=False,
        out=True,
    ),
    op(
        "isin",
        lambda e, t, invert=False: np.isin(e, t, invert=invert),
        lambda m: [
            S(m.of([[1, 2], [3, 4]], "int64"), m.of([2, 4, 9], "int64")),
            S(m.of([1.0, 2.5, 3.0]), m.of([2.5]), invert=True),
            S(m.of([1, 2], "int64"), 2),
        ],
        dtype="bool",
        differentiable=False,
        method=False,
    ),
]
