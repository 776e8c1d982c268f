"""Pointwise ops of two (or three) tensors: arithmetic, powers, extrema, comparisons, logic.

The samples (``samples.binary``) broadcast both ways, pair a tensor with a 0-d tensor or a Python
number, mix dtypes (float32 with float64, int with float) and view operands non-contiguously;
the edge sample pairs NaN, +-inf, +-0 and ties with each other.
"""

from __future__ import annotations

import numpy as np

import minigenesis as mg

from . import samples as S
from .core import FLOATS, OpEntry, Sample, T

EDGE_POINTS = (float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -2.0)
GRID_EDGES = tuple(S.grid_edges(EDGE_POINTS))
NUMERIC = FLOATS + ("int64", "int32")
# fmod and remainder by an infinity differ between C's fmod and PyTorch's a - floor(a/b) b
FINITE_EDGES = tuple(S.grid_edges((float("nan"), 0.0, -0.0, 1.0, -2.0)))


def binop(
    name: str,
    ref,
    lo: float = -2.0,
    hi: float = 2.0,
    lo2: float | None = None,
    hi2: float | None = None,
    dtypes=NUMERIC,
    scalars: bool = True,
    edges=GRID_EDGES,
    kwargs: dict | None = None,
    method: str | None = "",
    mixed: bool = True,
    **extra,
) -> OpEntry:
    """An entry for a pointwise op of two tensors, ``name(a, b, **kwargs)``; the method and the
    in-place form are found on the Tensor (``method=None`` for a method-less op)."""
    mname = name.rpartition(".")[2] if method == "" else method

    def samples():
        yield from S.binary(entry.rng(), lo, hi, lo2, hi2, dtypes, scalars, edges, kwargs, mixed)

    entry = OpEntry(
        name=name,
        samples=samples,
        ref=ref,
        method=mname if mname and hasattr(mg.Tensor, mname) else None,
        inplace=f"{mname}_" if mname and hasattr(mg.Tensor, f"{mname}_") else None,
        out=extra.pop("out", True),
        **extra,
    )
    return entry


def _f64(fn):
    """The reference in float64 whatever the inputs (NumPy computes bools in float16)."""
    return lambda a, b, **kw: fn(np.asarray(a, np.float64), np.asarray(b, np.float64), **kw)


def _div(a, b, rounding_mode=None):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    q = a / b
    if rounding_mode == "trunc":
        return np.trunc(q)
    if rounding_mode == "floor":
        return np.floor(q)
    return q


def _int_div(sample: Sample) -> str:
    """True division computes integers in float32; trunc / floor keep the promoted dtype."""
    from .core import promote

    d = promote(sample)
    if sample.kwargs.get("rounding_mode") is None and d not in FLOATS:
        return "float32"
    return d


def _float(sample: Sample) -> str:
    from .core import promote

    d = promote(sample)
    return d if d in FLOATS else "float32"


def _fmod(a, b):
    return np.fmod(a, b)


def _remainder(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a - np.floor(a / b) * b


def _extremum(fn, nan_wins: bool):
    def ref(a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        out = fn(a, b) if nan_wins else np.where(np.isnan(a), b, np.where(np.isnan(b), a, fn(a, b)))
        return out

    return ref


def _xlogy(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    out = a * np.log(b)
    return np.where((a == 0) & ~np.isnan(b), 0.0, out)


def _heaviside(a, b):
    """PyTorch's rule: ``b`` where a == 0, else a > 0 (0 at NaN; NumPy gives NaN)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.where(a == 0, b, (a > 0).astype(np.float64))


def _pow(a, b):
    return np.power(np.asarray(a, np.float64), np.asarray(b, np.float64))


_NOT_TIES = {"grad": True}

ENTRIES = [
    binop("add", _f64(np.add), aliases=()),
    binop(
        "add",
        lambda a, b, alpha: np.add(a, alpha * np.asarray(b, np.float64)),
        kwargs={"alpha": 0.5},
        variant="alpha",
        dtypes=FLOATS,
    ),  # fmt: skip
    binop("sub", _f64(np.subtract), aliases=("subtract",)),
    binop("mul", _f64(np.multiply), aliases=("multiply",)),
    binop("div", _div, lo2=0.3, hi2=2.0, aliases=("divide", "true_divide"), dtype=_int_div),
    # floor division by PyTorch's rule (inf // 1 is NaN): the edges are compared with PyTorch
    binop(
        "div",
        _div,
        lo2=0.3,
        hi2=2.0,
        kwargs={"rounding_mode": "floor"},
        variant="floor",
        edges=(),
        gradgrad=False,
    ),  # fmt: skip
    binop(
        "div",
        _div,
        lo2=0.3,
        hi2=2.0,
        kwargs={"rounding_mode": "trunc"},
        variant="trunc",
        gradgrad=False,
    ),  # fmt: skip
    binop("pow", _pow, lo=0.2, hi=2.0, dtypes=FLOATS),
    binop(
        "float_power", _pow, lo=0.2, hi=2.0, dtype="float64", dtypes=FLOATS, inplace_same_dtype=True
    ),  # fmt: skip
    binop("atan2", _f64(np.arctan2), aliases=("arctan2",), dtype=_float, scalars=False),
    binop("hypot", _f64(np.hypot), dtypes=FLOATS, scalars=False),
    binop("fmod", _fmod, lo2=0.3, hi2=2.0, edges=FINITE_EDGES),
    binop("remainder", _remainder, lo2=0.3, hi2=2.0, edges=FINITE_EDGES),
    binop("maximum", _extremum(np.maximum, True), scalars=False),
    binop("minimum", _extremum(np.minimum, True), scalars=False),
    binop("fmax", _extremum(np.maximum, False), scalars=False),
    binop("fmin", _extremum(np.minimum, False), scalars=False),
    binop("copysign", _f64(np.copysign), dtype=_float),
    binop("logaddexp", _f64(np.logaddexp), dtypes=FLOATS, scalars=False),
    binop("logaddexp2", _f64(np.logaddexp2), dtypes=FLOATS, scalars=False),
    binop("xlogy", _xlogy, lo2=0.2, hi2=3.0, dtype=_float),
    binop(
        "Tensor.xlog1py",
        lambda a, b: _xlogy(a, 1 + np.asarray(b, np.float64)),
        lo2=0.2,
        hi2=3.0,
        dtype=_float,
        out=False,
        torch=False,
    ),  # fmt: skip  (PyTorch: special only)
    binop(
        "heaviside",
        _heaviside,
        dtypes=FLOATS,
        scalars=False,
        differentiable=False,
        mixed=False,
        errors=lambda: iter(
            [(Sample((T(np.ones(2), "float32"), T(np.ones(2)))), (TypeError, RuntimeError))]
        ),
    ),  # fmt: skip
]

# ------------------------------------------------------------------- comparisons and logic


def _two_dtypes():
    yield Sample((T(np.ones(2), "float32"), T(np.ones(2)))), RuntimeError
    yield Sample((T(np.ones(2), "int64"), T(np.ones(2), "float32"))), RuntimeError


ENTRIES += [
    binop(
        "logical_and",
        _f64(np.logical_and),
        dtype="bool",
        differentiable=False,
        dtypes=NUMERIC + ("bool",),
        scalars=False,
    ),  # fmt: skip
    binop(
        "logical_or",
        _f64(np.logical_or),
        dtype="bool",
        differentiable=False,
        dtypes=NUMERIC + ("bool",),
        scalars=False,
    ),  # fmt: skip
    binop(
        "logical_xor",
        _f64(np.logical_xor),
        dtype="bool",
        differentiable=False,
        dtypes=NUMERIC + ("bool",),
        scalars=False,
    ),  # fmt: skip
    binop(
        "isclose",
        lambda a, b: np.isclose(a, b, rtol=1e-5, atol=1e-8),
        dtype="bool",
        differentiable=False,
        out=False,
        scalars=False,
        mixed=False,  # both tensors in one dtype (PyTorch promotes nothing here)
        errors=_two_dtypes,
    ),  # fmt: skip
]


def _bitwise_samples():
    rng = np.random.default_rng(7)
    for dtype in ("int64", "int32", "uint8", "bool"):
        x = T(S.values(rng, (2, 3), -4, 4, dtype), dtype)
        y = T(S.values(rng, (3,), -4, 4, dtype), dtype)
        yield Sample((x, y), {}, dtype)
    yield Sample((T(S.values(rng, (2, 3), 0, 4, "int64"), "int64"), 3), {}, "python int")


def _bitwise(name: str, fn) -> OpEntry:
    def errors():
        yield Sample((T(np.ones(2)), T(np.ones(2))), {}, "float"), (TypeError, RuntimeError)

    return OpEntry(
        name=name, samples=_bitwise_samples, ref=lambda a, b: fn(a, b), method=name,
        inplace=f"{name}_", out=True, differentiable=False, errors=errors,
    )  # fmt: skip


ENTRIES += [
    _bitwise("bitwise_and", np.bitwise_and),
    _bitwise("bitwise_or", np.bitwise_or),
    _bitwise("bitwise_xor", np.bitwise_xor),
]

# ---------------------------------------------------------------------- three operands


def _ternary_samples(lo: float = -2.0, hi: float = 2.0, weight=None):
    def gen():
        rng = np.random.default_rng(11)

        def x(shape, dtype="float64", layout="contiguous", **k):
            return T(S.values(rng, shape, lo, hi, dtype), dtype, layout, **k)

        def w(shape, dtype="float64"):
            return weight(rng, shape, dtype) if weight else x(shape, dtype)

        yield Sample((x((3, 4)), x((3, 4)), w((3, 4))), {}, "same shape")
        yield Sample((x((3, 4)), x((4,)), w((3, 1))), {}, "broadcast")
        yield Sample((x(()), x(()), w(())), {}, "0-d")
        yield Sample((x((3, 4), layout="transposed"), x((3, 4), layout="strided"), w((3, 4))), {},
                     "views")  # fmt: skip
        yield Sample((x((0, 3)), x((3,)), w((3,))), {}, "size-0")
        for dtype in ("float32", "float16", "bfloat16"):
            yield Sample((x((2, 3), dtype), x((2, 3), dtype), w((2, 3), dtype)), {}, dtype)

    return gen


def _lerp_weight(rng, shape, dtype="float64"):
    return T(rng.uniform(0, 1, shape), dtype)


def _lerp_errors():
    x = T(np.ones(3), "float32")
    yield Sample((x, x, T(np.full(3, 0.5)))), (TypeError, RuntimeError)  # a float64 weight


def _lerp(a, b, w):
    return a + w * (b - a)


def _where_samples():
    rng = np.random.default_rng(13)
    for desc, (cs, xs, ys) in {
        "same shape": ((3, 4), (3, 4), (3, 4)),
        "broadcast": ((3, 1), (4,), (3, 4)),
        "0-d": ((), (), ()),
        "size-0": ((0, 3), (3,), (1,)),
    }.items():
        c = T(rng.random(cs) < 0.5, "bool")
        yield Sample((c, T(S.values(rng, xs)), T(S.values(rng, ys))), {}, desc)
    c = T(rng.random((2, 3)) < 0.5, "bool")
    yield Sample((c, T(S.values(rng, (2, 3), dtype="float32"), "float32"),
                  T(S.values(rng, (2, 3)))), {}, "float32 with float64")  # fmt: skip
    yield Sample((c, T(S.values(rng, (2, 3), dtype="int64"), "int64"), 0.5), {}, "int with float")


def _where_ref(c, x, y):
    return np.where(c, x, y)


def _where_dtype(sample: Sample) -> str:
    from .core import promote

    return promote(Sample(sample.args[1:]))


ENTRIES += [
    OpEntry(
        name="lerp",
        samples=_ternary_samples(weight=_lerp_weight),
        ref=_lerp,
        method="lerp",
        inplace="lerp_",
        out=True,
        dtype="same",
        errors=_lerp_errors,
    ),  # fmt: skip
    OpEntry(
        name="where",
        samples=_where_samples,
        ref=_where_ref,
        method=None,
        out=True,
        dtype=_where_dtype,
    ),  # fmt: skip
    OpEntry(
        name="Tensor.addcmul_",
        samples=_ternary_samples(),
        call=lambda lib, a, b, c, **k: a.clone().addcmul_(b, c, value=0.5, **k),
        ref=lambda a, b, c: a + 0.5 * b * c,
        dtype="same",
    ),  # fmt: skip
    OpEntry(
        name="Tensor.addcdiv_",
        samples=_ternary_samples(),
        call=lambda lib, a, b, c, **k: a.clone().addcdiv_(b, c.abs() + 0.5, value=0.5, **k),
        ref=lambda a, b, c: a + 0.5 * b / (np.abs(c) + 0.5),
        dtype="same",
    ),  # fmt: skip
]
