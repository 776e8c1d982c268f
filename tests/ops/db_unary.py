"""Pointwise ops of one tensor: exp, log, trigonometry, rounding, predicates, activations.

Each row: the name, the float64 reference, the domain [lo, hi] its smooth samples are drawn
from, and how it treats integer inputs (computes in float32, keeps the dtype, or gives bool).
"""

from __future__ import annotations

import math

import numpy as np

import minigenesis as mg

from . import samples as S
from .core import FLOATS, OpEntry, Sample, T
from .references import digamma, erfinv, lgamma

INT_DTYPES = ("int64", "int32", "uint8", "bool")


def _vec(fn):
    """A math-module function applied elementwise (NaN where it raises, as a float op would)."""

    def ref(x):
        def one(v):
            try:
                return fn(float(v))
            except (ValueError, OverflowError):
                return float("nan")

        return np.vectorize(one, otypes=[np.float64])(np.asarray(x, np.float64))

    return ref


def pointwise(
    name: str,
    ref,
    lo: float = -2.0,
    hi: float = 2.0,
    ints: str | None = "float",
    edges=S.EDGES,
    gradgrad: bool = True,
    differentiable: bool = True,
    aliases: tuple = (),
    kwargs: dict | None = None,
    **extra,
) -> OpEntry:
    """An entry for ``mg.<name>`` (method and in-place forms where the Tensor has them).

    ints: how integer / bool inputs are treated: "float" (computed in float32), "same" (the
    dtype is kept), "bool" (a predicate), None (refused; not sampled). ``refused``: dtypes
    PyTorch's kernel does not implement (NotImplementedError): error samples, not samples."""
    # bool inputs: PyTorch refuses them for the arithmetic that keeps the dtype (abs, neg,
    # floor ...): an error sample there, unless the op keeps bools (sign)
    bools = extra.pop("bools", ints != "same")
    dtypes = FLOATS + (INT_DTYPES[:-1] if ints else ()) + (("bool",) if ints and bools else ())
    refused = extra.pop("refused", ())
    if refused:
        dtypes = tuple(d for d in dtypes if d not in refused)
        extra["errors"] = lambda: (
            (Sample((T(np.array([0.0, 1.0]), d),), {}, d), NotImplementedError) for d in refused
        )
    if ints == "same" and not bools:
        extra.setdefault("errors", _bool_error)
    dtype = extra.pop(
        "dtype", {"float": "float", "same": "same", "bool": "bool", None: "same"}[ints]
    )

    def samples(entry: OpEntry = None):
        return S.unary(entry.rng(), lo, hi, dtypes, edges, kwargs)

    if ints == "float" and ref is not None:  # NumPy computes bool inputs in float16: not ours
        ref = _as_float64(ref)
    entry = OpEntry(
        name=name,
        samples=lambda: samples(entry),
        ref=ref,
        method=name if hasattr(mg.Tensor, name) else None,
        inplace=f"{name}_" if hasattr(mg.Tensor, f"{name}_") else None,
        out=extra.pop("out", True),
        aliases=aliases,
        dtype=dtype,
        differentiable=differentiable and ints != "bool",
        gradgrad=gradgrad,
        **extra,
    )
    return entry


def _bool_error():
    yield Sample((T(np.array([True, False]), "bool"),), {}, "bool"), (TypeError, RuntimeError)


def _square_dtype(sample: Sample) -> str:
    dtype = sample.tensors()[0].dtype
    return "int64" if dtype == "bool" else dtype


def _sign(x):
    """sign, with PyTorch's 0 at NaN (NumPy gives NaN) and bools kept."""
    if x.dtype == bool:
        return x
    return np.where(np.isnan(x), 0.0, np.sign(x)) if x.dtype.kind == "f" else np.sign(x)


def _as_float64(fn):
    return lambda x, **kw: fn(np.asarray(x, np.float64), **kw)


def _round_half_even(x):
    return np.round(x)


def _sinc(x):
    return np.sinc(x)


def _logit(x):
    with np.errstate(all="ignore"):
        return np.log(x / (1 - x))


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf) if x.dtype.kind == "f" else x


def _sigmoid(x):
    with np.errstate(all="ignore"):
        return 1 / (1 + np.exp(-np.asarray(x, np.float64)))


ENTRIES = [
    pointwise("abs", np.abs, ints="same", aliases=("absolute",)),
    pointwise("neg", np.negative, ints="same", aliases=("negative",)),
    pointwise("square", np.square, ints="same", bools=True, dtype=_square_dtype),
    pointwise("sign", _sign, ints="same", bools=True, aliases=("sgn",)),
    pointwise("exp", np.exp),
    pointwise("exp2", np.exp2),
    pointwise("expm1", np.expm1),
    pointwise("log", np.log, lo=0.1, hi=3.0),
    pointwise("log2", np.log2, lo=0.1, hi=3.0),
    pointwise("log10", np.log10, lo=0.1, hi=3.0),
    pointwise("log1p", np.log1p, lo=-0.9, hi=3.0, edges=(*S.EDGES, -1.0, -2.0)),
    pointwise("sqrt", np.sqrt, lo=0.1, hi=3.0),
    pointwise("rsqrt", lambda x: 1 / np.sqrt(x), lo=0.1, hi=3.0),
    pointwise("reciprocal", lambda x: 1 / np.asarray(x, np.float64), lo=0.2, hi=2.0),
    pointwise("sin", np.sin),
    pointwise("cos", np.cos),
    pointwise("tan", np.tan, lo=-1.2, hi=1.2),
    pointwise("asin", np.arcsin, lo=-0.9, hi=0.9, aliases=("arcsin",)),
    pointwise("acos", np.arccos, lo=-0.9, hi=0.9, aliases=("arccos",)),
    pointwise("atan", np.arctan, aliases=("arctan",)),
    pointwise("sinh", np.sinh),
    pointwise("cosh", np.cosh),
    pointwise("tanh", np.tanh),
    pointwise("sigmoid", _sigmoid, edges=(*S.EDGES, 800.0, -800.0)),
    pointwise("logit", _logit, lo=0.05, hi=0.95, edges=(*S.EDGES, 0.5, 2.0, -0.5)),
    pointwise("sinc", _sinc),
    pointwise("deg2rad", np.deg2rad, lo=-200, hi=200),
    pointwise("rad2deg", np.rad2deg),
    pointwise("erf", _vec(math.erf)),
    pointwise("erfc", _vec(math.erfc)),
    pointwise("erfinv", erfinv, lo=-0.9, hi=0.9),
    pointwise("lgamma", lgamma, lo=0.2, hi=4.0, edges=(*S.EDGES, -2.0, 2.0, -2.5)),
    pointwise(
        "digamma",
        digamma,
        lo=0.2,
        hi=4.0,
        edges=(*S.EDGES, -2.0, -1.903, -0.5),
        tol={"float64": (1e-9, 1e-11)},
    ),
    pointwise("i0", np.i0, lo=-3.0, hi=3.0),
    pointwise("relu", lambda x: np.maximum(x, 0), ints="same", out=False),
    pointwise("floor", np.floor, ints="same", lo=-3, hi=3),
    pointwise("ceil", np.ceil, ints="same", lo=-3, hi=3),
    pointwise("trunc", np.trunc, ints="same", lo=-3, hi=3, aliases=("fix",)),
    pointwise(
        "round",
        _round_half_even,
        ints="same",
        lo=-3,
        hi=3,
        edges=(*S.EDGES, 0.5, 1.5, 2.5, -0.5, -2.5),
    ),  # fmt: skip
    pointwise("frac", lambda x: x - np.trunc(x), ints=None, lo=-3, hi=3),
    pointwise("isnan", np.isnan, ints="bool", differentiable=False, out=False),
    pointwise("isinf", np.isinf, ints="bool", differentiable=False, out=False),
    pointwise("isfinite", np.isfinite, ints="bool", differentiable=False, out=False),
    pointwise("signbit", np.signbit, ints="bool", differentiable=False),
    pointwise("nan_to_num", None, ints="same", bools=True),  # the default limits: PyTorch's
    pointwise(
        "nan_to_num",
        _nan_to_num,
        ints="same",
        bools=True,
        variant="limits",
        kwargs={"nan": 0.5, "posinf": 1e3, "neginf": -1e3},
    ),  # fmt: skip
]

# ------------------------------------------------------------------ ops with a parameter


def _param(name, ref, kwargs_list, lo=-2.0, hi=2.0, **extra) -> OpEntry:
    """A pointwise op with keyword parameters: every parameter set over the unary samples."""

    def samples():
        rng = entry.rng()
        for kw in kwargs_list:
            yield from S.unary(rng, lo, hi, FLOATS, S.EDGES, kw)

    entry = OpEntry(
        name=name,
        samples=samples,
        ref=ref,
        method=name if hasattr(mg.Tensor, name) else None,
        inplace=f"{name}_" if hasattr(mg.Tensor, f"{name}_") else None,
        out=True,
        dtype="same",
        **extra,
    )
    return entry


def _clamp(x, min=None, max=None):  # noqa: A002
    out = np.asarray(x, np.float64)
    if min is not None:
        out = np.where(np.isnan(out), out, np.maximum(out, min))
    if max is not None:
        out = np.where(np.isnan(out), out, np.minimum(out, max))
    return out


ENTRIES += [
    _param(
        "clamp", _clamp, [{"min": -0.5, "max": 0.7}, {"min": -0.5}, {"max": 0.3}], aliases=("clip",)
    ),  # fmt: skip
    _param("clamp_min", lambda x, min: _clamp(x, min=min), [{"min": 0.25}]),
    _param("clamp_max", lambda x, max: _clamp(x, max=max), [{"max": 0.25}]),
    _param(
        "round", lambda x, decimals: np.round(x, decimals), [{"decimals": 2}], variant="decimals"
    ),  # fmt: skip
]


def _bitwise_not_samples():
    rng = np.random.default_rng(5)
    for dtype in ("int64", "int32", "uint8", "bool"):
        yield Sample((T(S.values(rng, (2, 3), -4, 4, dtype), dtype),), {}, dtype)
    yield Sample(
        (T(S.values(rng, (3, 4), 0, 4, "int64"), "int64", "transposed"),), {}, "transposed"
    )


def _bitwise_not_errors():
    yield Sample((T(np.ones(3)),), {}, "float"), NotImplementedError  # (no float kernel)


ENTRIES.append(
    OpEntry(
        name="bitwise_not",
        samples=_bitwise_not_samples,
        ref=None,
        method="bitwise_not",
        inplace="bitwise_not_",
        out=True,
        dtype="same",
        differentiable=False,
        errors=_bitwise_not_errors,
    )
)
