"""Reductions and scans: sum, mean, prod, extrema, arg-extrema, logsumexp, var/std, all/any,
cumsum/cumprod.

Every reduction meets all dims, one (negative) dim, keepdim, a dims tuple, a 0-d input, views,
size-0 dims (where it has an identity) and ties / NaN (gradients there compared with PyTorch).
"""

from __future__ import annotations

import numpy as np

import minigenesis as mg

from . import samples as S
from .core import FLOATS, OpEntry, Sample, T


def _axis(x: np.ndarray, dim):
    """NumPy's axis for PyTorch's dim (a 0-d tensor takes dim 0 or -1 as "itself")."""
    if dim is None or np.ndim(x) == 0:
        return None
    return dim


def _reduce(fn):
    def ref(x, dim=None, keepdim=False, **kw):
        x = np.asarray(x, np.float64) if x.dtype != bool else x
        out = fn(x, axis=_axis(x, dim), keepdims=keepdim and np.ndim(x) > 0, **kw)
        return np.asarray(out)

    return ref


def reduction(name: str, ref, dtype="same", empty=True, ties=True, dims=True, **extra) -> OpEntry:
    dtypes = extra.pop("dtypes", FLOATS)
    one_dim = extra.pop("one_dim", False)  # dim is one int (max, argmax ...): a tuple must raise

    def samples():
        yield from S.reduction(entry.rng(), dtypes=dtypes, dims=dims, empty=empty, ties=ties,
                               dims_tuple=not one_dim)  # fmt: skip

    def errors():
        yield Sample((T(np.ones((2, 3, 2))),), {"dim": (0, 2)}, "dims tuple"), TypeError

    if one_dim:
        extra["errors"] = errors

    entry = OpEntry(
        name=name,
        samples=samples,
        ref=ref,
        method=name if hasattr(mg.Tensor, name) else None,
        inplace=None,
        dtype=dtype,
        **extra,
    )
    return entry


def _values_indices(fn):
    def ref(x, dim=None, keepdim=False):
        if dim is None:
            return np.asarray(fn(x))
        ax = _axis(x, dim)
        values = fn(x, axis=ax, keepdims=keepdim and np.ndim(x) > 0)
        return np.asarray(values), None  # the index of a tie is PyTorch's choice: checked there

    return ref


def _amax(x, dim=None, keepdim=False):
    return _reduce(np.max)(x, dim, keepdim)


def _amin(x, dim=None, keepdim=False):
    return _reduce(np.min)(x, dim, keepdim)


def _arg(fn):
    def ref(x, dim=None, keepdim=False):
        if dim is None:
            return np.asarray(fn(np.asarray(x).ravel()))
        ax = _axis(x, dim)
        out = fn(x, axis=ax) if ax is not None else np.asarray(0)
        return np.expand_dims(out, ax) if keepdim and ax is not None else np.asarray(out)

    return ref


def _logsumexp(x, dim, keepdim=False):
    x = np.asarray(x, np.float64)
    ax = _axis(x, dim)
    m = np.max(x, axis=ax, keepdims=True) if x.size else np.zeros([1] * x.ndim)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=ax, keepdims=True)) + m
    return out if keepdim or ax is None and x.ndim == 0 else np.squeeze(out, axis=ax)


def _var(ddof):
    def ref(x, dim=None, keepdim=False, correction=1):
        x = np.asarray(x, np.float64)
        return np.asarray(np.var(x, axis=_axis(x, dim), ddof=correction, keepdims=keepdim))

    return ref


def _scan(fn):
    def ref(x, dim):
        x = np.asarray(x, np.float64) if x.dtype != bool else x.astype(np.int64)
        return fn(x, axis=_axis(x, dim)) if x.ndim else x.astype(np.float64)

    return ref


def _scan_samples(rng_name: str):
    def gen():
        rng = np.random.default_rng(len(rng_name))
        for desc, t in S.layouts(rng, -2, 2):
            yield Sample((t,), {"dim": -1}, desc)
        yield Sample((T(S.values(rng, (2, 3), dtype="float32"), "float32"),), {"dim": 0}, "f32")
        yield Sample((T(S.values(rng, (2, 3), dtype="int64"), "int64"),), {"dim": 1}, "int64")

    return gen


def _int_to_int64(sample: Sample) -> str:
    d = sample.tensors()[0].dtype
    return d if d in FLOATS else "int64"


ENTRIES = [
    reduction("sum", _reduce(np.sum), dtype=_int_to_int64, dtypes=FLOATS + ("int64", "bool")),
    reduction("mean", _reduce(np.mean)),
    reduction("prod", _reduce(np.prod), dims=False, dtype=_int_to_int64),
    reduction("amax", _amax, empty=False),
    reduction("amin", _amin, empty=False),
    reduction("max", _values_indices(np.max), empty=False, one_dim=True),
    reduction("min", _values_indices(np.min), empty=False, one_dim=True),
    reduction(
        "argmax", _arg(np.argmax), empty=False, dtype="int64", differentiable=False, one_dim=True
    ),
    reduction(
        "argmin", _arg(np.argmin), empty=False, dtype="int64", differentiable=False, one_dim=True
    ),
    reduction("nansum", _reduce(np.nansum)),
    reduction("var", _var(1), empty=False),
    reduction("std", lambda *a, **k: np.sqrt(_var(1)(*a, **k)), empty=False),
    reduction(
        "all",
        _reduce(np.all),
        dtype="bool",
        differentiable=False,
        dtypes=FLOATS + ("int64", "bool"),
    ),  # fmt: skip
    reduction(
        "any",
        _reduce(np.any),
        dtype="bool",
        differentiable=False,
        dtypes=FLOATS + ("int64", "bool"),
    ),  # fmt: skip
    reduction(
        "count_nonzero",
        lambda x, dim=None: np.asarray(np.count_nonzero(x, axis=dim)),
        dtype="int64",
        differentiable=False,
        dims=False,
    ),  # fmt: skip
    OpEntry(
        name="logsumexp",
        samples=lambda: _with_dim(S.reduction(np.random.default_rng(3))),
        ref=_logsumexp,
        method="logsumexp",
        dtype="same",
    ),  # fmt: skip
    OpEntry(
        name="cumsum",
        samples=_scan_samples("cumsum"),
        ref=_scan(np.cumsum),
        method="cumsum",
        out=True,
        dtype=_int_to_int64,
    ),  # fmt: skip
    OpEntry(
        name="cumprod",
        samples=_scan_samples("cumprod"),
        ref=_scan(np.cumprod),
        method="cumprod",
        inplace="cumprod_",
        out=True,
        dtype=_int_to_int64,
    ),  # fmt: skip
]


def _with_dim(samples):
    """logsumexp needs a dim: the all-dims samples get dim=(0, 1) (0 for 0-d / 1-d)."""
    for s in samples:
        if "dim" not in s.kwargs:
            s.kwargs["dim"] = 0 if len(s.args[0].shape) < 2 else (0, 1)
        yield s
