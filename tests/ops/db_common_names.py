"""Names common PyTorch programs use: the comparisons as functions (``mg.eq``, ``mg.greater`` ...),
``rsub``, ``dist``, ``gcd`` / ``lcm``, ``Tensor.renorm``, ``Tensor.unfold`` and the in-place
functional activations (``F.relu_`` ...).

The references are NumPy's functions or the definitions written out: a p-norm of the
difference, a scale of each slice whose norm is too large, a sliding window gathered with
``sliding_window_view``. An in-place function is called on a copy of its input, so the battery
differentiates it as the out-of-place op it computes.
"""

from __future__ import annotations

import numpy as np

from .db_binary import NUMERIC, _f64, binop
from .simple import S, op


def _f(x):
    return np.asarray(x, np.float64)


def _compare(name: str, fn, *aliases: str):
    return binop(name, _f64(fn), dtype="bool", differentiable=False,
                 dtypes=NUMERIC + ("bool",), aliases=aliases)  # fmt: skip


def _dist(a, b, p=2):
    d = np.abs(_f(a) - _f(b)).reshape(-1)
    if p == 0:
        return np.asarray(np.count_nonzero(d), np.float64)
    if p == np.inf:
        return d.max()
    return (d**p).sum() ** (1 / p)


def _renorm(x, p, dim, maxnorm):
    x = _f(x)
    others = tuple(i for i in range(x.ndim) if i != dim % x.ndim)
    norm = (np.abs(x) ** p).sum(axis=others, keepdims=True) ** (1 / p)
    return x * np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


def _unfold(x, dimension, size, step):
    x = np.asarray(x)
    if x.ndim == 0:
        return x.reshape(1)[:size]
    d = dimension % x.ndim
    windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=d)
    return np.take(windows, np.arange(0, windows.shape[d], step), axis=d)


def _activation_in_place(name: str, ref, variant: str = "", **kw):
    """F.relu_ ... called on a copy of the sample's tensor (which the battery reuses)."""

    def call(lib, x, *args, **kwargs):
        return lib.resolve(name)(x.clone(), *args, **kwargs)

    return op(
        name,
        ref,
        lambda m: [
            S(m(3, 4, lo=-3, hi=3), **kw),
            S(m(3, 4, lo=-3, hi=3, layout="transposed"), desc="transposed", **kw),
            S(m(2, 3, lo=-3, hi=3, dtype="float32"), **kw),
        ],
        method=False,
        call=call,
        variant=variant,
    )


def _leaky(x, negative_slope=0.01):
    x = _f(x)
    return np.where(x > 0, x, negative_slope * x)


def _elu(x, alpha=1.0):
    x = _f(x)
    return np.where(x > 0, x, alpha * np.expm1(x))


ENTRIES = [
    _compare("eq", np.equal),
    _compare("ne", np.not_equal, "not_equal", "Tensor.not_equal"),
    _compare("lt", np.less, "less", "Tensor.less"),
    _compare("le", np.less_equal, "less_equal", "Tensor.less_equal"),
    _compare("gt", np.greater, "greater", "Tensor.greater"),
    _compare("ge", np.greater_equal, "greater_equal", "Tensor.greater_equal"),
    op(
        "rsub",
        lambda a, b, alpha=1: _f(b) - alpha * _f(a),
        lambda m: [
            S(m(3, 4), m(3, 4)),
            S(m(3, 4, layout="transposed"), m(4), desc="broadcast"),
            S(m(3, 4), m(3, 4), alpha=2.5, desc="alpha"),
            S(m(2, 3), 1.5, desc="number"),
            S(m(2, 3, dtype="float32"), m(2, 3, dtype="float32")),
            S(m(2, 3, dtype="int64"), m(2, 3, dtype="int64"), alpha=3, desc="int64"),
        ],
        dtype="promote",
        out=True,
    ),
    op(
        "dist",
        _dist,
        lambda m: [
            S(m(3, 4), m(3, 4)),
            S(m(3, 4, layout="transposed"), m(4), desc="broadcast"),
            S(m(3, 4), m(3, 4), 1, desc="p=1"),
            S(m(3, 4), m(3, 4), 3.5, desc="p=3.5"),
            S(m(3, 4), m(3, 4), np.inf, desc="p=inf"),
            S(m(3, 4), m(3, 4), 0, desc="p=0", grad=False),
            S(m(2, 3, dtype="float32"), m(2, 3, dtype="float32")),
        ],
        out=True,
    ),
    *[
        op(
            name,
            ref,
            lambda m: [
                S(m(3, 4, dtype="int64", lo=-30, hi=30), m(3, 4, dtype="int64", lo=-30, hi=30)),
                S(m(3, 4, dtype="int32", lo=0, hi=12), m(4, dtype="int64", lo=0, hi=12)),
                S(m.of([0, 0, 7, -12], "int64"), m.of([0, 5, 0, 18], "int64"), desc="zeros"),
            ],
            inplace=f"{name}_",
            dtype="promote",
            differentiable=False,
            out=True,
            errors=lambda m: [
                (S(m(3), m(3)), NotImplementedError),
                (S(m(3, dtype="bool"), m(3, dtype="bool")), NotImplementedError),
                (S(m(3, dtype="int64"), 2), TypeError),
            ],
        )
        for name, ref in (("gcd", np.gcd), ("lcm", np.lcm))
    ],
    op(
        "renorm",
        _renorm,
        lambda m: [
            S(m(4, 3), 2, 0, 1.0),
            S(m(3, 4, layout="transposed"), 1, 1, 2.0, desc="transposed"),
            S(m(2, 3, 4), 3.0, -1, 1.5, desc="3-d"),
            S(m(3, 4), 2, 0, 100.0, desc="no slice too long"),
            S(m(3, 4, dtype="float32"), 2, 1, 1.0),
        ],
        inplace="renorm_",
        out=True,
        errors=lambda m: [
            (S(m(3), 2, 0, 1.0), RuntimeError),
            (S(m(3, 4), 0, 0, 1.0), RuntimeError),
            (S(m(3, 4), 2, 0, -1.0), RuntimeError),
        ],
    ),
    op(
        "Tensor.unfold",
        _unfold,
        lambda m: [
            S(m(7), 0, 2, 2),
            S(m(7), 0, 3, 1, desc="overlapping windows"),
            S(m(3, 5, layout="transposed"), 0, 2, 1, desc="transposed"),
            S(m(2, 6, 3), -2, 4, 2, desc="middle dim"),
            S(m(4), 0, 0, 1, desc="empty windows"),
            S(m(), 0, 1, 1, desc="0-d"),
            S(m(2, 5, dtype="float32"), 1, 2, 3),
        ],
        errors=lambda m: [
            (S(m(7), 0, 8, 1), RuntimeError),
            (S(m(7), 0, 2, 0), RuntimeError),
            (S(m(7), 1, 2, 1), IndexError),
        ],
    ),
    _activation_in_place("F.relu_", lambda x: np.maximum(_f(x), 0)),
    _activation_in_place("F.elu_", _elu),
    _activation_in_place("F.elu_", lambda x, alpha: _elu(x, alpha), "alpha", alpha=0.5),
    _activation_in_place("F.hardtanh_", lambda x: np.clip(_f(x), -1, 1)),
    _activation_in_place(
        "F.hardtanh_",
        lambda x, min_val, max_val: np.clip(_f(x), min_val, max_val),
        "bounds",
        min_val=-0.5,
        max_val=2.0,
    ),  # fmt: skip
    _activation_in_place("F.leaky_relu_", lambda x: np.where(_f(x) > 0, _f(x), 0.01 * _f(x))),
    _activation_in_place(
        "F.leaky_relu_",
        lambda x, negative_slope: np.where(_f(x) > 0, _f(x), negative_slope * _f(x)),
        "slope",
        negative_slope=0.2,
    ),  # fmt: skip
]
