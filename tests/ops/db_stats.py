"""Statistics, sorting and searching: sort / argsort / topk / kthvalue, median / nanmedian /
mode, quantile / nanquantile, std_mean / var_mean with a correction, cov / corrcoef, histc /
histogram / bincount, unique, cummax / cummin / logcumsumexp, nanmean and gradient.

Which of equal values an index names is PyTorch's choice (its quickselect, its sort), so the
index outputs are compared with the NumPy reference only where no values tie (or the sort is
stable) and with PyTorch everywhere. Values, and gradients (which flow to the picked elements),
are compared at every sample.
"""

from __future__ import annotations

import numpy as np

from .core import T
from .simple import S, op

TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 0.5], [0.0, -1.0, 4.0, -1.0]])
NANS = np.array([[1.0, np.nan, 3.0, -1.0], [np.inf, 2.0, -np.inf, 0.5]])


def _f(x):
    return np.asarray(x, np.float64)


def _ax(x, dim):
    return None if np.ndim(x) == 0 else dim


def _sorted(x, dim=-1, descending=False, stable=False):
    x = _f(x)
    if x.ndim == 0:
        return x, np.asarray(0)
    key = -x if descending else x
    idx = np.argsort(key, axis=dim, kind="stable")
    return np.take_along_axis(x, idx, dim), idx if stable else None


def _order_samples(m, **kw):
    return [
        S(m(3, 4), **kw),
        S(m(3, 4), dim=0, **kw),
        S(m(3, 4, layout="transposed"), descending=True, **kw),
        S(m(2, 3, layout="strided"), dim=-1, **kw),
        S(m(), **kw, desc="0-d"),
        S(m(0, 3), **kw, desc="size-0"),
        S(m(2, 3, dtype="float32"), **kw),
        S(m(2, 3, dtype="int64", lo=-4, hi=4), stable=True, **kw),
        S(T(TIES), stable=True, desc="ties, stable", grad=False, **kw),
        S(T(TIES), descending=True, stable=True, desc="ties, descending", grad=False, **kw),
        S(T(NANS), desc="nan, inf", grad=False, **kw),
    ]


def _topk(x, k, dim=-1, largest=True, sorted=True):
    v, _ = _sorted(x, dim, descending=largest)
    return np.take(v, range(k), axis=dim), None


def _kthvalue(x, k, dim=-1, keepdim=False):
    v = np.take(np.sort(_f(x), axis=_ax(x, dim)), k - 1, axis=_ax(x, dim)) if np.ndim(x) else x
    return (np.expand_dims(v, dim) if keepdim and np.ndim(x) else np.asarray(v)), None


def _lower_median(x, dim=None, keepdim=False, nan=False):
    x = _f(x)
    if dim is None:
        flat = x.ravel()
        if nan:
            flat = flat[~np.isnan(flat)]
        elif np.isnan(flat).any():
            return np.asarray(np.nan)
        return np.asarray(np.sort(flat)[(flat.size - 1) // 2] if flat.size else np.nan)
    if x.ndim == 0:
        return x, None

    def one(row):
        row = row[~np.isnan(row)] if nan else row
        if not nan and np.isnan(row).any():
            return np.nan
        return np.sort(row)[(row.size - 1) // 2] if row.size else np.nan

    v = np.apply_along_axis(one, dim, x)
    return (np.expand_dims(v, dim) if keepdim else v), None


def _mode(x, dim=-1, keepdim=False):
    x = _f(x)
    if x.ndim == 0:
        return x, None

    def one(row):
        values, counts = np.unique(row, return_counts=True)
        return values[np.argmax(counts)]  # the smallest of the most frequent

    v = np.apply_along_axis(one, dim, x)
    return (np.expand_dims(v, dim) if keepdim else v), None


def _quantile(nan):
    def ref(x, q, dim=None, keepdim=False, interpolation="linear"):
        x = _f(x)
        q = _f(q) if not isinstance(q, float) else q
        fn = np.nanquantile if nan else np.quantile
        if not nan and np.isnan(x).any() and dim is None:
            return np.full(np.shape(q), np.nan)
        out = fn(x, q, axis=_ax(x, dim), keepdims=keepdim, method=interpolation)
        if interpolation in ("linear", "midpoint"):  # PyTorch's lerp, from the nearer end
            a = fn(x, q, axis=_ax(x, dim), keepdims=keepdim, method="lower")
            b = fn(x, q, axis=_ax(x, dim), keepdims=keepdim, method="higher")
            qa = np.asarray(q, np.float64)
            if nan:  # the position among each row's valid values
                valid = (~np.isnan(x)).sum(axis=_ax(x, dim), keepdims=keepdim)
                pos = np.multiply.outer(qa, valid - 1)
            else:
                n = x.size if dim is None else x.shape[dim]
                pos = (qa * (n - 1)).reshape(qa.shape + (1,) * (np.ndim(out) - qa.ndim))
            w = pos % 1 if interpolation == "linear" else 0.5
            out = np.where(w < 0.5, a + (b - a) * w, b - (b - a) * (1 - w))
        if not nan and dim is not None and x.ndim:  # a row with a NaN is NaN
            bad = np.isnan(x).any(axis=dim, keepdims=keepdim)
            out = np.where(bad, np.nan, out)
        return np.asarray(out)

    return ref


def _quantile_samples(m, nan=False):
    x = m(3, 5)
    rows = [
        S(x, 0.3),
        S(x, m.of([0.0, 0.25, 1.0], grad=False), dim=1, desc="q tensor"),
        S(m(3, 5, layout="transposed"), 0.5, dim=0, keepdim=True),
        *[
            S(m(4, 3), 0.4, dim=0, interpolation=k, desc=k)
            for k in ("lower", "higher", "nearest", "midpoint")
        ],  # fmt: skip
        S(m(2, 4, dtype="float32"), 0.7, dim=1),
        S(T(NANS[:, :2]), 0.5, dim=1, desc="nan", grad=False),
    ]
    if nan:
        rows.append(S(T(NANS), m.of([0.2, 0.9], grad=False), dim=1, desc="nan rows", grad=False))
    return rows


def _moments(fn):
    def ref(x, dim=None, correction=1, keepdim=False, **_):
        x = _f(x)
        ax = _ax(x, dim)
        spread = fn(x, axis=ax, ddof=correction, keepdims=keepdim)
        return np.asarray(spread), np.asarray(x.mean(axis=ax, keepdims=keepdim))

    return ref


def _moment_samples(m):
    return [
        S(m(3, 4)),
        S(m(3, 4), dim=1, correction=0),
        S(m(3, 4, layout="transposed"), dim=0, correction=2, keepdim=True),
        S(m(2, 3, 2), dim=(0, 2)),
        S(m(2, 3, dtype="float32"), dim=1),
    ]


def _cov(x, correction=1, fweights=None, aweights=None):
    return np.asarray(np.cov(_f(x), ddof=correction, fweights=fweights, aweights=aweights))


def _hist_samples(m):
    return [
        S(m(3, 4), bins=5),
        S(m(3, 4, layout="transposed"), bins=3, min=-1.0, max=1.0, desc="a range"),
        S(m.of([1.0, 1.0, 1.0]), bins=4, desc="one value"),
        S(m(2, 3, dtype="float32"), bins=4, min=-2.0, max=2.0),
    ]


def _histc(x, bins=100, min=0, max=0):  # noqa: A002
    x = _f(x)
    lo, hi = (min, max) if (min, max) != (0, 0) else (x.min(), x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    inside = x[(x >= lo) & (x <= hi)]
    return np.histogram(inside, bins=bins, range=(lo, hi))[0].astype(np.float64)


def _histogram(x, bins=100, range=None, weight=None, density=False):  # noqa: A002
    h, e = np.histogram(_f(x), bins=bins, range=range, weights=weight, density=density)
    return h.astype(np.float64), e


def _unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    out = np.unique(x, return_inverse=return_inverse, return_counts=return_counts, axis=dim)
    if not isinstance(out, tuple):
        return out
    if return_inverse:
        out = (out[0], out[1].reshape(np.shape(x)) if dim is None else out[1], *out[2:])
    return out


def _cumext(fn):
    def ref(x, dim):
        x = _f(x)
        return (fn.accumulate(x, axis=dim) if x.ndim else x), None

    return ref


def _logcumsumexp(x, dim):
    x = _f(x)
    return np.logaddexp.accumulate(x, axis=dim) if x.ndim else x


def _scan_samples(m):
    return [
        S(m(3, 4), 1),
        S(m(3, 4, layout="transposed"), 0),
        S(m(), 0, desc="0-d"),
        S(m(0, 3), 0, desc="size-0"),
        S(m(2, 3, dtype="float32"), -1),
        S(T(TIES), 1, desc="ties", grad=False),
    ]


def _nanmean(x, dim=None, keepdim=False):
    return np.asarray(np.nanmean(_f(x), axis=_ax(x, dim), keepdims=keepdim))


def _gradient(x, spacing=1, dim=None, edge_order=1):
    x = _f(x)
    axes = range(x.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
    out = np.gradient(x, spacing, axis=tuple(axes), edge_order=edge_order)
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def _index_out(sample) -> str:
    return sample.tensors()[0].dtype


ENTRIES = [
    op("sort", _sorted, _order_samples, out=True),
    op(
        "argsort",
        lambda x, **kw: _sorted(x, **kw)[1],
        lambda m: [s for s in _order_samples(m) if s.kwargs.get("stable")],
        dtype="int64",
        differentiable=False,
    ),
    op(
        "argsort",
        None,
        lambda m: [s for s in _order_samples(m) if not s.kwargs.get("stable")],
        dtype="int64",
        differentiable=False,
        variant="unstable",
    ),
    op(
        "topk",
        _topk,
        lambda m: [
            S(m(3, 4), 2),
            S(m(3, 4), 3, dim=0, largest=False),
            S(m(3, 4, layout="transposed"), 1),
            S(m(4), 0, desc="k = 0"),
            S(m(2, 3, dtype="float32"), 2),
            S(T(TIES), 2, desc="ties", grad=False),
        ],
        out=True,
        errors=lambda m: [(S(m(3, 4), 5), RuntimeError)],
    ),
    op(
        "kthvalue",
        _kthvalue,
        lambda m: [
            S(m(3, 4), 2),
            S(m(3, 4), 3, dim=0, keepdim=True),
            S(m(3, 4, layout="transposed"), 1),
            S(m(), 1, desc="0-d"),
            S(m(2, 3, dtype="float32"), 3),
            S(T(TIES), 2, desc="ties", grad=False),
        ],
        out=True,
        errors=lambda m: [(S(m(3, 4), 5), RuntimeError)],
    ),
    op(
        "median",
        _lower_median,
        lambda m: [
            S(m(3, 4)),
            S(m(3, 5), dim=1),
            S(m(4, 3, layout="transposed"), dim=0, keepdim=True),
            S(m(), desc="0-d"),
            S(m(2, 3, dtype="float32"), dim=1),
            S(T(TIES), dim=1, desc="ties", grad=False),
            S(T(NANS), dim=1, desc="nan", grad=False),
        ],
    ),
    op(
        "nanmedian",
        lambda x, dim=None, keepdim=False: _lower_median(x, dim, keepdim, nan=True),
        lambda m: [
            S(m(3, 4)),
            S(m(3, 5), dim=1),
            S(m(4, 3, layout="transposed"), dim=0),
            S(T(NANS), dim=1, desc="nan", grad=False),
            S(T(NANS), desc="nan, all dims", grad=False),
        ],
    ),
    op(
        "mode",
        _mode,
        lambda m: [
            S(m(3, 4, lo=-2, hi=2, dtype="int64")),
            S(T(TIES), desc="ties", grad=False),
            S(T(TIES.T.copy()), 0, keepdim=True, desc="dim 0", grad=False),
            S(m(3, 4), desc="no repeats"),
        ],
    ),
    op("quantile", _quantile(False), _quantile_samples, dtype="same"),
    op("nanquantile", _quantile(True), lambda m: _quantile_samples(m, True), dtype="same"),
    op("std_mean", _moments(np.std), _moment_samples, method=False),
    op("var_mean", _moments(np.var), _moment_samples, method=False),
    op(
        "cov",
        _cov,
        lambda m: [
            S(m(3, 5)),
            S(m(3, 5, layout="transposed"), correction=0),
            S(m(6), desc="1-d"),
            S(m(2, 4), fweights=m.ints(1, 4, 4), aweights=m(4, lo=0.2, hi=2, grad=False)),
            S(m(2, 4, dtype="float32")),
        ],
    ),
    op(
        "corrcoef",
        lambda x: np.asarray(np.corrcoef(_f(x))),
        lambda m: [S(m(3, 5)), S(m(2, 4, layout="transposed")), S(m(2, 4, dtype="float32"))],
    ),
    op("histc", _histc, _hist_samples, out=True, differentiable=False),
    op(
        "histogram",
        _histogram,
        lambda m: [
            S(m(3, 4), bins=5),
            S(m(3, 4), bins=3, range=(-1.0, 1.0), density=True),
            S(m(6), bins=4, weight=m(6, lo=0, hi=1, grad=False), desc="weights"),
            S(m(6), m.of([-2.0, -0.5, 0.0, 2.0], grad=False), desc="bin edges"),
        ],
        differentiable=False,
    ),
    op(
        "bincount",
        lambda x, weights=None, minlength=0: np.bincount(x, weights, minlength),
        lambda m: [
            S(m.ints(0, 5, 8)),
            S(m.ints(0, 3, 6), minlength=5),
            S(m.ints(0, 3, 6), weights=m(6, grad=False), desc="weights"),
            S(m.ints(0, 3, 0), desc="size-0"),
        ],
        dtype=None,
        differentiable=False,
        errors=lambda m: [(S(m.of([1, -1], "int64")), RuntimeError)],
    ),
    op(
        "unique",
        _unique,
        lambda m: [
            S(m(3, 4, lo=-2, hi=2, dtype="int64")),
            S(T(TIES), return_inverse=True, return_counts=True),
            S(T(np.array([[1, 2], [1, 2], [0, 5]]), "int64", grad=False), dim=0),
            S(m(0, dtype="int64"), desc="size-0"),
        ],
        differentiable=False,
    ),
    op("cummax", _cumext(np.maximum), _scan_samples),
    op("cummin", _cumext(np.minimum), _scan_samples),
    op("logcumsumexp", _logcumsumexp, _scan_samples),
    op(
        "nanmean",
        _nanmean,
        lambda m: [
            S(m(3, 4)),
            S(m(3, 4, layout="transposed"), dim=1, keepdim=True),
            S(T(NANS), dim=1, desc="nan", grad=False),
            S(m(2, 3, dtype="float32"), dim=0),
        ],
    ),
    op(
        "gradient",
        _gradient,
        lambda m: [
            S(m(5)),
            S(m(3, 4), dim=1, spacing=2.0),
            S(m(4, 5, layout="transposed"), edge_order=2),
            S(m(3, 4, dtype="float32"), dim=0),
        ],
        method=False,
    ),
]
