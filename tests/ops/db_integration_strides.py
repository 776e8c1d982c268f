"""The trapezoidal rule (trapezoid, trapz, cumulative_trapezoid), angle of real numbers,
index_reduce and as_strided.

The references are the definitions written out in NumPy: the sum of (x_{i+1} - x_i)(y_i + y_{i+1})/2
(and its running sums), pi where x < 0, each target slice folded with the source slices that name
it, and the element offset + sum_k i_k stride_k of the row-major values.
"""

from __future__ import annotations

import math

import numpy as np

from .core import T
from .simple import S, op


def _f(x):
    return np.asarray(x, np.float64)


def _pairs(y, x, dx, dim):
    y = np.moveaxis(_f(y), dim, -1)
    if x is None:
        spacing = 1.0 if dx is None else dx
    else:
        x = _f(x)
        spacing = np.diff(x) if x.ndim == 1 else np.moveaxis(np.diff(x, axis=dim), dim, -1)
    return (y[..., 1:] + y[..., :-1]) * spacing / 2


def _trapezoid(y, x=None, *, dx=None, dim=-1):
    return _pairs(y, x, dx, dim).sum(-1)


def _cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    return np.moveaxis(np.cumsum(_pairs(y, x, dx, dim), -1), -1, dim)


def _trapezoid_samples(m):
    return [
        S(m(3, 5)),
        S(m(3, 5), T(np.array([0.0, 0.5, 1.5, 2.0, 3.5]), "float64", grad=False), desc="x"),
        S(m(4, 3), dx=0.25, dim=0, desc="dx"),
        S(m(2, 4), m(2, 4), desc="x like y"),
        S(m(3, 5, dtype="float32")),
    ]


def _angle(x):
    x = _f(x)
    return np.where(np.isnan(x), x, np.where(x < 0, np.pi, 0.0))


def _index_reduce(x, dim, index, source, reduce, include_self=True):
    out = np.moveaxis(_f(x).copy(), dim, 0)
    src = np.moveaxis(_f(source), dim, 0)
    fold = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    for target in set(np.asarray(index).tolist()):
        rows = [src[i] for i in range(len(index)) if index[i] == target]
        rows += [out[target]] if include_self else []
        out[target] = fold(np.stack(rows), axis=0)
    return np.moveaxis(out, 0, dim)


def _mvlgamma(x, p):
    x = _f(x)
    terms = sum(np.vectorize(math.lgamma)(x - j / 2) for j in range(p))
    return terms + p * (p - 1) / 4 * math.log(math.pi)


def _as_strided(x, size, stride, storage_offset=0):
    flat = _f(x).reshape(-1)
    out = np.empty(size)
    for i in np.ndindex(*size):
        out[i] = flat[storage_offset + sum(a * s for a, s in zip(i, stride))]
    return out


ENTRIES = [
    op("trapezoid", _trapezoid, _trapezoid_samples, method=False, dtype="float"),
    op("trapz", _trapezoid, lambda m: _trapezoid_samples(m)[:3], method=False, dtype="float"),
    op(
        "cumulative_trapezoid",
        _cumulative_trapezoid,
        _trapezoid_samples,
        method=False,
        dtype="float",
    ),
    op(
        "angle",
        _angle,
        lambda m: [S(m(3, 4)), S(m(5, dtype="float32")), S(m(2, 3, layout="transposed"))],
        out=True,
        dtype="float",
    ),
    *[
        op(
            "index_reduce",
            lambda x, d, i, s, reduce, include_self=True: _index_reduce(
                x, d, i, s, reduce, include_self
            ),
            lambda m, r=r, inc=inc: [
                S(
                    m(3, 4),
                    0,
                    T(np.array([2, 0, 2, 1, 0]), "int64", grad=False),
                    m(5, 4),
                    r,
                    include_self=inc,
                    gradgrad=False,
                ),
                S(
                    m(2, 3),
                    1,
                    T(np.array([1, 1]), "int64", grad=False),
                    m(2, 2),
                    r,
                    include_self=inc,
                    desc="dim 1",
                    gradgrad=False,
                ),
            ],  # fmt: skip
            variant=f"{r}{'' if inc else '/exclude'}",
            inplace="index_reduce_",
            out=True,
        )
        for r in ("prod", "mean", "amax", "amin")
        for inc in (True, False)
    ],
    op(
        "mvlgamma",
        _mvlgamma,
        lambda m: [
            S(m(3, 4, lo=1.6, hi=4.0), 3),
            S(m(5, lo=0.6, hi=3.0, dtype="float32"), 1),
            S(m(2, 3, lo=2.0, hi=6.0, layout="transposed"), 4),
        ],
        inplace="mvlgamma_",
        out=True,
        errors=lambda m: [(S(m(3, lo=2.0, hi=3.0), 0), RuntimeError)],
    ),
    op(
        "as_strided",
        _as_strided,
        lambda m: [
            S(m(3, 4), (2, 3), (4, 1)),
            S(m(3, 4), (4, 3), (2, 1), 1, desc="overlapping"),
            S(m(6), (3, 2), (0, 1), 2, desc="zero stride"),
        ],
        errors=lambda m: [
            (S(m(6), (2, 3), (1, 2), 1), RuntimeError),
            (S(m(6), (2, 3), (-1, 2)), RuntimeError),
        ],
    ),
]
