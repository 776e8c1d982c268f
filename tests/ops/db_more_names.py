"""Names PyTorch programs use that are composed of other ops (tensor_composites.py,
composite_functions.py: inverse hyperbolics, the add* fused products, take / put / index_put /
masked_scatter, in-place activations ...), the sparse product, and the volumetric, unpooling,
margin / likelihood loss, LU-family and erfcx additions.

The references are NumPy's functions or the definitions written out (an outer product added,
a flat index written, a window reduced, a hinge per wrong class). An in-place function
(``mg.relu_``) is called on a copy of its input, so the battery differentiates it as the
out-of-place op it computes.
"""

from __future__ import annotations

import numpy as np

from .core import T
from .db_nn import LOOSE
from .simple import S, op


def _f(x):
    return np.asarray(x, np.float64)


def _floats(m, lo=-2.0, hi=2.0, shape=(3, 4)):
    """A matrix, its transposed view, a 0-d tensor and a float32 matrix in [lo, hi]."""
    return [
        S(m(*shape, lo=lo, hi=hi)),
        S(m(*shape, lo=lo, hi=hi, layout="transposed"), desc="transposed"),
        S(m(lo=lo, hi=hi), desc="0-d"),
        S(m(2, 3, lo=lo, hi=hi, dtype="float32")),
    ]


def _inverse_hyperbolic(name, ref, lo, hi, arc):
    return op(
        name,
        ref,
        lambda m: _floats(m, lo, hi),
        inplace=f"{name}_",
        aliases=(arc, f"{name}_"),
        dtype="float",
        out=True,
    )


def _on_a_copy(name: str, ref, lo=-2.0, hi=2.0, grad=True, **kw):
    """An in-place function (mg.relu_) called on a copy of its input: as differentiable as the
    out-of-place op; the copy keeps the sample's tensor unchanged."""
    short = name.rpartition(".")[2]

    def call(lib, x, *args, **kwargs):
        return getattr(x.clone(), short)(*args, **kwargs)

    return op(
        name,
        ref,
        lambda m: [
            S(m(3, 4, lo=lo, hi=hi)),
            S(m(3, 4, lo=lo, hi=hi, layout="transposed"), desc="transposed"),
            S(m(2, 3, lo=lo, hi=hi, dtype="float32")),
        ],
        method=False,
        call=call,
        differentiable=grad,
        **kw,
    )


def _erf(x):
    from math import erf

    return np.vectorize(erf)(_f(x))


def _put(x, index, source, accumulate=False):
    out = _f(x).copy().reshape(-1)
    if accumulate:
        np.add.at(out, np.asarray(index).reshape(-1), _f(source).reshape(-1))
    else:
        out[np.asarray(index).reshape(-1)] = _f(source).reshape(-1)
    return out.reshape(np.shape(x))


def _index_put(x, indices, values, accumulate=False):
    out = _f(x).copy()
    idx = tuple(np.asarray(i) for i in indices)
    if accumulate:
        np.add.at(out, idx, _f(values))
    else:
        out[idx] = _f(values)
    return out


def _masked_scatter(x, mask, source):
    out = _f(x).copy()
    mask = np.broadcast_to(np.asarray(mask, bool), out.shape)
    out[mask] = _f(source).reshape(-1)[: int(mask.sum())]
    return out


def _unique_consecutive(x, return_inverse=False, return_counts=False):
    x = np.asarray(x).reshape(-1)
    starts = np.r_[True, x[1:] != x[:-1]] if x.size else np.zeros(0, bool)
    values = x[starts]
    out = [values]
    if return_inverse:
        out.append(np.cumsum(starts) - 1)
    if return_counts:
        out.append(np.diff(np.r_[np.flatnonzero(starts), x.size]))
    return tuple(out) if len(out) > 1 else values


def _fill_diagonal(x, value, wrap=False):
    out = _f(x).copy()
    np.fill_diagonal(out, value, wrap=wrap)
    return out


def _distinct(m, *shape):
    """Values without ties (a permutation scaled), for min/max/sort picks."""
    n = int(np.prod(shape))
    return T(m.rng.permutation(n).reshape(shape) / n * 4 - 2)


ENTRIES = [
    _inverse_hyperbolic("asinh", np.arcsinh, -3.0, 3.0, "arcsinh"),
    _inverse_hyperbolic("acosh", np.arccosh, 1.1, 3.0, "arccosh"),
    _inverse_hyperbolic("atanh", np.arctanh, -0.9, 0.9, "arctanh"),
    op(
        "positive",
        lambda x: np.asarray(x),
        lambda m: [*_floats(m), S(m(2, 3, dtype="int64"), desc="int64")],
        dtype="same",
    ),
    *[
        op(
            name,
            ref,
            lambda m: [
                S(m.of([np.inf, -np.inf, np.nan, 0.0, 1.0])),
                S(m.of([np.inf, -2.0], dtype="float32")),
                S(m(2, 3, dtype="int64"), desc="int64"),
            ],
            dtype="bool",
            differentiable=False,
        )
        for name, ref in (
            ("isposinf", np.isposinf),
            ("isneginf", np.isneginf),
            ("isreal", lambda x: np.ones(np.shape(x), bool)),
        )
    ],
    op(
        "floor_divide",
        lambda a, b: np.floor_divide(_f(a), _f(b)),
        lambda m: [
            S(m(3, 4), m(3, 4, lo=0.5, hi=2.0)),
            S(m(3, 4), 0.75, desc="scalar"),
            S(m(2, 3, dtype="int64", lo=-5, hi=5), m(2, 3, dtype="int64", lo=1, hi=3)),
        ],
        inplace="floor_divide_",
        differentiable=False,
    ),
    op(
        "nextafter",
        lambda a, b: np.nextafter(_f(a), _f(b)),
        lambda m: [S(m(3, 4), m(3, 4)), S(m(2, 3, dtype="float32"), m(2, 3, dtype="float32"))],
        gradgrad=False,
        out=True,
        inplace="nextafter_",
    ),
    *[
        op(
            name,
            ref,
            lambda m: [
                S(m(2, 3, dtype="int64", lo=-8, hi=8), m(2, 3, dtype="int64", lo=0, hi=4)),
                S(m(3, dtype="int32", lo=0, hi=50), 2, desc="scalar shift"),
            ],
            differentiable=False,
            out=True,
            inplace=f"{name}_",
        )
        for name, ref in (
            ("bitwise_left_shift", lambda a, b: np.left_shift(a, b)),
            ("bitwise_right_shift", lambda a, b: np.right_shift(a, b)),
        )
    ],
    op(
        "addr",
        lambda c, a, b, beta=1, alpha=1: beta * _f(c) + alpha * np.outer(a, b),
        lambda m: [
            S(m(3, 2), m(3), m(2)),
            S(m(3, 2, layout="transposed"), m(3), m(2), beta=0.5, alpha=2.0),
        ],
        inplace="addr_",
    ),
    op(
        "addmv",
        lambda c, a, v, beta=1, alpha=1: beta * _f(c) + alpha * _f(a) @ _f(v),
        lambda m: [S(m(3), m(3, 4), m(4)), S(m(3), m(3, 4, layout="transposed"), m(4), beta=2.0)],
        inplace="addmv_",
        tol=LOOSE,
    ),
    op(
        "addbmm",
        lambda c, a, b, beta=1, alpha=1: beta * _f(c) + alpha * np.einsum("bij,bjk->ik", a, b),
        lambda m: [
            S(m(3, 2), m(4, 3, 5), m(4, 5, 2)),
            S(m(3, 2), m(2, 3, 4), m(2, 4, 2), alpha=0.5),
        ],
        inplace="addbmm_",
        tol=LOOSE,
    ),
    op(
        "addcmul",
        lambda x, a, b, value=1: _f(x) + value * _f(a) * _f(b),
        lambda m: [S(m(3, 4), m(3, 4), m(4)), S(m(3, 4), m(3, 1), m(3, 4), value=-0.5)],
    ),
    op(
        "addcdiv",
        lambda x, a, b, value=1: _f(x) + value * _f(a) / _f(b),
        lambda m: [
            S(m(3, 4), m(3, 4), m(4, lo=0.5, hi=2)),
            S(m(3, 4), m(3, 4), m(3, 4, lo=1, hi=2), value=2.0),
        ],
    ),
    op(
        "inner",
        lambda a, b: np.inner(a, b),
        lambda m: [S(m(3, 4), m(2, 4)), S(m(4), m(4)), S(m(2, 3, 4), m(4))],
        tol=LOOSE,
    ),
    op(
        "aminmax",
        lambda x, dim=None, keepdim=False: (
            np.asarray(np.min(x, axis=dim, keepdims=keepdim)),
            np.asarray(np.max(x, axis=dim, keepdims=keepdim)),
        ),
        lambda m: [
            S(_distinct(m, 3, 4)),
            S(_distinct(m, 3, 4), dim=1),
            S(_distinct(m, 3, 4), dim=0, keepdim=True),
        ],
        dtype="same",
    ),
    op(
        "argwhere",
        lambda x: np.argwhere(x),
        lambda m: [S(m.of([[0.0, 1.5], [2.0, 0.0]])), S(m(3, dtype="int64", lo=-1, hi=1))],
        dtype="int64",
        differentiable=False,
    ),
    op(
        "msort",
        lambda x: np.sort(x, axis=0),
        lambda m: [S(_distinct(m, 4, 3)), S(_distinct(m, 5))],
        dtype="same",
    ),
    op(
        "unique_consecutive",
        _unique_consecutive,
        lambda m: [
            S(m.of([1, 1, 2, 2, 2, 3, 1, 1], "int64")),
            S(m.of([1.0, 1.0, 0.5, 0.5, 1.0]), return_inverse=True, return_counts=True),
        ],
        dtype="same",
        differentiable=False,
    ),
    op(
        "take",
        lambda x, index: _f(x).reshape(-1)[np.asarray(index)],
        lambda m: [
            S(m(3, 4), m.of([[0, 11], [5, 5]], "int64", grad=False)),
            S(m(3, 4, layout="transposed"), m.of([3, 7, 2], "int64", grad=False)),
        ],
        gradgrad=False,
    ),
    op(
        "Tensor.put",
        _put,
        lambda m: [
            S(m(3, 4), m.of([0, 11, 5], "int64", grad=False), m(3)),
            S(m(3, 4), m.of([2, 2, 7], "int64", grad=False), m(3), accumulate=True),
        ],
        inplace="put_",
        aliases=("put",),
        gradgrad=False,
    ),
    op(
        "index_put",
        _index_put,
        lambda m: [
            S(
                m(3, 4),
                (m.of([0, 2], "int64", grad=False), m.of([1, 3], "int64", grad=False)),
                m(2),
            ),
            S(m(3, 4), (m.of([1, 1], "int64", grad=False),), m(2, 4), accumulate=True),
        ],
        inplace="index_put_",
        aliases=("index_put_",),
        gradgrad=False,
    ),
    op(
        "masked_scatter",
        _masked_scatter,
        lambda m: [
            S(m(3, 4), m.mask(3, 4), m(12)),
            S(m(3, 4), m.mask(4), m(3, 5), desc="broadcast mask"),
        ],
        inplace="masked_scatter_",
        gradgrad=False,
    ),
    op(
        "Tensor.fill_diagonal_",
        _fill_diagonal,
        lambda m: [S(m(3, 3), 0.5), S(m(7, 3), -1.0, wrap=True), S(m(2, 4), 2.0)],
        call=lambda lib, x, *a, **k: x.clone().fill_diagonal_(*a, **k),
        aliases=("fill_diagonal_",),
    ),
    op(
        "Tensor.cumsum_",
        lambda x, dim: np.cumsum(x, axis=dim),
        lambda m: [S(m(3, 4), 1), S(m(3, 4, layout="transposed"), 0)],
        call=lambda lib, x, dim: x.clone().cumsum_(dim),
    ),
    op(
        "Tensor.addmm_",
        lambda c, a, b, beta=1, alpha=1: beta * _f(c) + alpha * _f(a) @ _f(b),
        lambda m: [S(m(3, 2), m(3, 4), m(4, 2)), S(m(3, 2), m(3, 4), m(4, 2), beta=0.5, alpha=2)],
        call=lambda lib, c, *a, **k: c.clone().addmm_(*a, **k),
        tol=LOOSE,
    ),
    _on_a_copy("relu_", lambda x: np.maximum(_f(x), 0)),
    _on_a_copy("sigmoid_", lambda x: 1 / (1 + np.exp(-_f(x)))),
    _on_a_copy("tanh_", lambda x: np.tanh(x)),
    _on_a_copy("erf_", _erf),
    _on_a_copy("neg_", lambda x: -_f(x)),
    _on_a_copy("negative_", lambda x: -_f(x)),
    op(
        "broadcast_tensors",
        lambda *ts: tuple(np.broadcast_arrays(*[_f(t) for t in ts])),
        lambda m: [S(m(3, 1), m(4)), S(m(2, 1, 3), m(4, 1), m())],
        dtype=None,
    ),
    op(
        "spmm",
        lambda a, b: _f(a) @ _f(b),
        lambda m: [
            S(
                T(
                    np.where(m.rng.random((3, 4)) < 0.5, 0, m.rng.uniform(-2, 2, (3, 4))),
                    grad=False,
                ),
                m(4, 2),
            ),
        ],
        call=lambda lib, a, b: lib.L.spmm(a.to_sparse(), b),
        tol=LOOSE,
    ),
]
