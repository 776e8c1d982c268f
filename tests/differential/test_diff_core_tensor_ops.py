"""Differential tests of Tensor ops against PyTorch: type promotion over every dtype pair and
Python scalars (arithmetic, comparison, bitwise, in-place, with the in-place refusals), a 2-byte
float tensor with a Python number, integer division sign rules, reductions with dim / keepdim /
dtype=, empty reductions, NaN in max/min/sort/argmax, where/clamp with tensor bounds, random
indexing programs (basic, advanced, bool, None, Ellipsis; get, set with broadcasting, writes
through views) and view semantics (a write through a view reaches the base and the other views;
clone / contiguous strides).

Values must be equal bit for bit, except transcendental functions (pow, atan2), whose last
float32/float64 bit depends on the math library (PyTorch's SLEEF vs the C library), compared to
4 ulps. Where PyTorch's own choice is arbitrary (the order of ties in topk, which NaN ``mode``
reports) or PyTorch is less exact than the float64 truth (``s / x`` as ``x.reciprocal() * s``),
the case is left out and the reason written next to it.
"""

from __future__ import annotations

import itertools
import operator
import random
import warnings
from typing import Any

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
SCALARS = [True, False, 3, -2, 2.5, -0.5, 0, 300, -129, 0.1, 16777217, 2**40, 1e10]


def _values(dt: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    if dt == "bool":
        return rng.random(shape) > 0.5
    if dt == "uint8":
        return rng.integers(0, 7, shape)
    if dt.startswith("int"):
        return rng.integers(-6, 7, shape)
    return np.round(rng.standard_normal(shape) * 3, 2)


def _tensor(lib: Any, a: np.ndarray, dt: str) -> Any:
    data = a if dt == "bool" else a.astype(np.float64 if dt == "bfloat16" else dt)
    return lib.tensor(data, dtype=getattr(lib, dt))


def _host(x: Any) -> tuple:
    """(values as NumPy, dtype name, shape) of a result of either library."""
    x = x.detach()
    name = str(x.dtype).split(".")[-1]
    if name == "bfloat16":
        x = x.to(torch.float64) if isinstance(x, torch.Tensor) else x.to(mg.float64)
    return x.numpy().copy(), name, tuple(x.shape)


def _outcome(fn: Any, *args: Any) -> tuple:
    """(fn(*args), None), or (None, the exception it raised)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as err:  # noqa: BLE001 (the type is what is compared)
            return None, err


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in units in the last place of the larger (0 where equal, inf included)."""
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
    return np.where(
        a == b, 0, np.abs(a.astype(np.float64) - b) / np.abs(spacing.astype(np.float64))
    )


def _assert_same(label: str, ours: Any, theirs: Any, ulps: float = 0) -> None:
    (o, oerr), (t, terr) = ours, theirs
    assert (oerr is None) == (terr is None), f"{label}: PyTorch {terr!r}, ours {oerr!r}"
    if terr is not None:
        return
    (ov, od, os_), (tv, td, ts) = _host(o), _host(t)
    assert (od, os_) == (td, ts), f"{label}: dtype/shape {od}{os_} != PyTorch's {td}{ts}"
    if ulps and ov.dtype.kind == "f":
        with np.errstate(all="ignore"):
            if od in HALF:  # (held in float64 here) units of the 2-byte type's precision
                eps = 2.0**-7 if od == "bfloat16" else 2.0**-10
                near = np.isclose(ov, tv, rtol=ulps * eps, atol=0) | (ov == tv)
            else:
                near = _ulps(ov, tv) <= ulps
            close = (np.isnan(ov) & np.isnan(tv)) | near
        assert close.all(), f"{label}: {ov} != {tv}"
    else:
        assert np.array_equal(ov, tv, equal_nan=ov.dtype.kind == "f"), f"{label}: {ov} != {tv}"


BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "eq": operator.eq,
    "lt": operator.lt,
    "ge": operator.ge,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "atan2": lambda a, b: a.atan2(b),
    "fmod": lambda a, b: a.fmod(b),
    "remainder": lambda a, b: a.remainder(b),
    "div_trunc": lambda a, b: a.div(b, rounding_mode="trunc"),
    "div_floor": lambda a, b: a.div(b, rounding_mode="floor"),
    "rsub": lambda a, b: b - a,
    "rpow": lambda a, b: b**a,
    "rfloordiv": lambda a, b: b // a,
    "rmod": lambda a, b: b % a,
}
INPLACE = {
    "iadd": "add_",
    "isub": "sub_",
    "imul": "mul_",
    "idiv": "div_",
    "ifloordiv": "floor_divide_",
    "imod": "remainder_",
    "ipow": "pow_",
    "iand": "bitwise_and_",
    "ior": "__ior__",
    "ixor": "__ixor__",
    "lt_": "lt_",
    "eq_": "eq_",
    "ge_": "ge_",
}
TRANSCENDENTAL = {"pow", "rpow", "atan2", "ipow"}
HALF = {"float16", "bfloat16"}


def _skip(name: str, da: str, other: Any) -> bool:
    """Cases left out of the sweep, each for a reason of PyTorch's."""
    if name in ("div_trunc", "div_floor", "rfloordiv") and da in HALF:
        return True  # PyTorch's 2-byte rounding divisions: a unit off in rare large quotients
    if name in ("pow", "ipow") and isinstance(other, int) and abs(other) > 127:
        return True  # PyTorch refuses an integer exponent beyond the base's range
    if name in ("pow", "ipow") and da == "bfloat16" and type(other) is int and other in (3, -2, -3):
        return True  # PyTorch's x*x*x in bfloat16 steps; ours is the power rounded once
    big = isinstance(other, (int, float)) and abs(other) > 65504
    if name in ("pow", "ipow", "rpow") and da in HALF and big:
        return True  # PyTorch refuses a float16 exponent or base it cannot hold
    return name == "rtruediv"  # PyTorch's s / x is x.reciprocal() * s: two roundings


def _check_binary(label: str, da: str, a: np.ndarray, other: Any, db: str | None) -> None:
    def make(lib: Any) -> tuple:
        b = other if db is None else _tensor(lib, other, db)
        return _tensor(lib, a, da), b

    for name, fn in BINARY.items():
        if _skip(name, da, other):
            continue
        ulps = 4 if name in TRANSCENDENTAL else 0
        _assert_same(
            f"{label} {name}",
            _outcome(lambda lib, fn=fn: fn(*make(lib)), mg),
            _outcome(lambda lib, fn=fn: fn(*make(lib)), torch),
            ulps,
        )
    for name, method in INPLACE.items():
        if _skip(name, da, other):
            continue

        def run(lib: Any, method: str = method) -> Any:
            x, b = make(lib)
            getattr(x, method)(b)
            return x

        ulps = 4 if name in TRANSCENDENTAL else 0
        _assert_same(
            f"{label} {name}", _outcome(lambda: run(mg)), _outcome(lambda: run(torch)), ulps
        )


@pytest.mark.parametrize("da", DTYPES)
def test_tensor_tensor_promotion_and_values_match_pytorch(da: str) -> None:
    rng = np.random.default_rng(DTYPES.index(da))
    for db in DTYPES:
        a, b = _values(da, (3, 4), rng), _values(db, (4,), rng)
        if rng.random() < 0.5 and "bool" not in (da, db):  # equal values across dtypes
            b = a[0].astype(np.float64)
        for zero_d in (False, True):
            _check_binary(
                f"{da}/{db}{'/0-d' if zero_d else ''}",
                da,
                a,
                b[:1].reshape(()) if zero_d else b,
                db,
            )


@pytest.mark.parametrize("da", DTYPES)
def test_tensor_python_scalar_promotion_and_values_match_pytorch(da: str) -> None:
    a = _values(da, (3, 4), np.random.default_rng(10 + DTYPES.index(da)))
    for s in SCALARS:
        _check_binary(f"{da}/{s!r}", da, a, s, None)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_tensor_with_a_number_rounds_as_pytorch(dt: str) -> None:
    """x * s and x / s read s in float32; +, -, **, % round s to the tensor's type first."""
    x = np.random.default_rng(0).standard_normal(3000) * 3
    ops = {
        "mul": lambda a, s: a * s,
        "rmul": lambda a, s: s * a,
        "div": lambda a, s: a / s,
        "add": lambda a, s: a + s,
        "rsub": lambda a, s: s - a,
        "pow": lambda a, s: a**s,
        "mod": lambda a, s: a % s,
        "fmod": lambda a, s: a.fmod(s),
        "floordiv": lambda a, s: a // s,
        "mul_": lambda a, s: a.clone().mul_(s),
        "add_": lambda a, s: a.clone().add_(s),
        "mul_0d": lambda a, s: (
            a
            * (mg if isinstance(a, mg.Tensor) else torch).tensor(
                s, dtype=(mg if isinstance(a, mg.Tensor) else torch).float64
            )
        ),
    }
    for s in [0.1, 0.3, 1.1, 1e-6, 70000, 3]:
        for name, fn in ops.items():
            if _skip(name, dt, s):
                continue
            _assert_same(
                f"{dt} {name} {s}",
                _outcome(fn, mg.tensor(x).to(getattr(mg, dt)), s),
                _outcome(fn, torch.tensor(x).to(getattr(torch, dt)), s),
            )


DIVISION = {
    "floordiv": lambda L, a, b: a // b,
    "mod": lambda L, a, b: a % b,
    "fmod": lambda L, a, b: L.fmod(a, b),
    "div_floor": lambda L, a, b: L.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
    "truediv": lambda L, a, b: a / b,
    "mod_scalar": lambda L, a, b: a % -3,
    "rmod_scalar": lambda L, a, b: 7 % b,
    "floordiv_scalar": lambda L, a, b: a // -3,
    "remainder_scalar_first": lambda L, a, b: L.remainder(-7, b),
    "mod_float": lambda L, a, b: a % 2.5,
    "floordiv_float": lambda L, a, b: a // -2.5,
}


@pytest.mark.parametrize("dt", ["int8", "int32", "int64", "float32", "float64"])
def test_division_and_remainder_sign_rules_match_pytorch(dt: str) -> None:
    rng = np.random.default_rng(5)
    if dt.startswith("int"):
        a, b = rng.integers(-9, 10, (5, 6)), rng.integers(-4, 5, (5, 6))
        b[b == 0] = 3
    else:
        a, b = rng.standard_normal((5, 6)) * 4, rng.standard_normal((5, 6))
        b[0, 0], a[1, 1], b[1, 1] = 0.0, -0.0, -2.0  # x / 0 and signed zeros
    for name, fn in DIVISION.items():
        _assert_same(
            f"{dt} {name}",
            _outcome(fn, mg, _tensor(mg, a, dt), _tensor(mg, b, dt)),
            _outcome(fn, torch, _tensor(torch, a, dt), _tensor(torch, b, dt)),
        )


def _reduction_inputs() -> dict:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4, 5))
    xn = x.copy()
    xn[0, 1, 2] = xn[2, 3, 0] = np.nan
    xi = rng.integers(-5, 6, (3, 4, 5))
    return {
        "f64": (x, "float64"),
        "f32": (x, "float32"),
        "i64": (xi, "int64"),
        "i8": (xi, "int8"),
        "u8": (xi % 7, "uint8"),
        "bool": (rng.random((3, 4, 5)) > 0.5, "bool"),
        "nan": (xn, "float64"),
    }


REDUCTIONS = {
    "sum": lambda L, a, kw: a.sum(**kw),
    "prod": lambda L, a, kw: a.prod(**kw) if "dim" not in kw or isinstance(kw["dim"], int) else a,
    "amax": lambda L, a, kw: a.amax(**kw),
    "amin": lambda L, a, kw: a.amin(**kw),
    "sum_dtype_f64": lambda L, a, kw: a.sum(dtype=L.float64, **kw),
    "sum_dtype_i32": lambda L, a, kw: a.sum(dtype=L.int32, **kw),
    "mean_dtype_f64": lambda L, a, kw: a.mean(dtype=L.float64, **kw),
    "all": lambda L, a, kw: a.all(**kw) if "dim" not in kw or isinstance(kw["dim"], int) else a,
    "any": lambda L, a, kw: a.any(**kw) if "dim" not in kw or isinstance(kw["dim"], int) else a,
    "count_nonzero": lambda L, a, kw: L.count_nonzero(a, dim=kw.get("dim")),
    "cumsum": lambda L, a, kw: a.cumsum(kw["dim"] if isinstance(kw.get("dim"), int) else 0),
    "cumsum_f32": lambda L, a, kw: a.cumsum(
        kw["dim"] if isinstance(kw.get("dim"), int) else 0, dtype=L.float32
    ),
}
FLOAT_REDUCTIONS = {
    "mean": lambda L, a, kw: a.mean(**kw),
    "std": lambda L, a, kw: a.std(**kw),
    "var_correction_0": lambda L, a, kw: a.var(correction=0, **kw),
    "nansum": lambda L, a, kw: L.nansum(a, **kw),
    "norm": lambda L, a, kw: a.norm(dim=kw.get("dim"), keepdim=kw.get("keepdim", False)),
}
DIM_REDUCTIONS = {  # dim must be an int; values and indices both compared
    "max": lambda a, d, k: a.max(dim=d, keepdim=k),
    "min": lambda a, d, k: a.min(dim=d, keepdim=k),
    "argmax": lambda a, d, k: a.argmax(dim=d, keepdim=k),
    "argmin": lambda a, d, k: a.argmin(dim=d, keepdim=k),
    "median": lambda a, d, k: a.median(dim=d, keepdim=k),
    "sort": lambda a, d, k: a.sort(dim=d, stable=True),
    "sort_descending": lambda a, d, k: a.sort(dim=d, descending=True, stable=True),
    "kthvalue": lambda a, d, k: a.kthvalue(2, dim=d, keepdim=k),
    "cummax": lambda a, d, k: a.cummax(d),
    "cummin": lambda a, d, k: a.cummin(d),
}


def _pair(out: Any) -> list:
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name", list(_reduction_inputs()))
def test_reductions_with_dim_keepdim_and_dtype_match_pytorch(name: str) -> None:
    data, dt = _reduction_inputs()[name]
    rtol = {"float32": 2e-6, "float64": 1e-12}.get(dt, 0)
    for dim, keep in [(None, False), (0, False), (1, True), (-1, False), ((0, 2), True)]:
        kw = {} if dim is None else {"dim": dim, "keepdim": keep}
        table = dict(REDUCTIONS, **(FLOAT_REDUCTIONS if dt.startswith("float") else {}))
        for op, fn in table.items():
            ours = _outcome(fn, mg, _tensor(mg, data, dt), kw)
            theirs = _outcome(fn, torch, _tensor(torch, data, dt), kw)
            label = f"{name} {op} dim={dim} keepdim={keep}"
            exact = op in ("amax", "amin", "all", "any", "count_nonzero") or not rtol
            if exact or ours[1] is not None or theirs[1] is not None:
                _assert_same(label, ours, theirs)
            else:  # sums in another order: a few ulps
                (o, od, os_), (t, td, ts) = _host(ours[0]), _host(theirs[0])
                assert (od, os_) == (td, ts), label
                np.testing.assert_allclose(
                    o, t, rtol=rtol, atol=1e-300, equal_nan=True, err_msg=label
                )
        if not isinstance(dim, int) or dt == "bool":
            continue  # (PyTorch has no median / kthvalue / sort ... of bool tensors)
        for op, fn in DIM_REDUCTIONS.items():
            ours = _outcome(lambda t, f=fn, d=dim, k=keep: _pair(f(t, d, k)), _tensor(mg, data, dt))
            theirs = _outcome(
                lambda t, f=fn, d=dim, k=keep: _pair(f(t, d, k)), _tensor(torch, data, dt)
            )
            assert (ours[1] is None) == (theirs[1] is None), (op, ours[1], theirs[1])
            if ours[1] is None:
                for o, t in zip(ours[0], theirs[0]):
                    _assert_same(f"{name} {op} dim={dim}", (o, None), (t, None))


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_reductions_of_empty_tensors_match_pytorch(shape: tuple) -> None:
    ops = {
        "sum": lambda L, a: a.sum(),
        "sum0": lambda L, a: a.sum(0),
        "sum_last": lambda L, a: a.sum(-1),
        "prod": lambda L, a: a.prod(),
        "mean": lambda L, a: a.mean(),
        "mean_last": lambda L, a: a.mean(-1),
        "amax0": lambda L, a: a.amax(0),
        "max": lambda L, a: a.max(),
        "argmax": lambda L, a: a.argmax(),
        "long_sum": lambda L, a: a.long().sum(),
        "all": lambda L, a: a.all(),
        "any": lambda L, a: a.any(),
        "std": lambda L, a: a.std(),
        "logsumexp": lambda L, a: L.logsumexp(a, 0),
        "cumsum": lambda L, a: a.cumsum(0),
        "norm": lambda L, a: a.norm(),
    }
    e = np.zeros(shape)
    for name, fn in ops.items():
        _assert_same(
            f"{shape} {name}",
            _outcome(fn, mg, mg.tensor(e)),
            _outcome(fn, torch, torch.tensor(e)),
        )


def test_nan_propagates_through_max_min_sort_and_argmax_as_in_pytorch() -> None:
    a = np.array([[1.0, np.nan, 3.0, -1.0], [2.0, 0.5, np.nan, np.nan], [0.0, -2.0, 4.0, 1.0]])
    ops = {
        "max": lambda L, x: x.max(),
        "min": lambda L, x: x.min(),
        "argmax": lambda L, x: x.argmax(),
        "argmin": lambda L, x: x.argmin(),
        "argmax1": lambda L, x: x.argmax(1),
        "max1": lambda L, x: x.max(1).values,
        "max1_idx": lambda L, x: x.max(1).indices,
        "amax": lambda L, x: x.amax(0),
        "sort": lambda L, x: x.sort(1).values,
        "sort_idx": lambda L, x: x.sort(dim=1, stable=True).indices,
        "sort_desc": lambda L, x: x.sort(dim=1, descending=True, stable=True).values,
        "maximum": lambda L, x: L.maximum(x, x.flip(0)),
        "fmax": lambda L, x: L.fmax(x, x.flip(0)),
        "clamp": lambda L, x: x.clamp(-0.5, 0.5),
        "clamp_nan_bound": lambda L, x: x.clamp(min=L.tensor([np.nan, 0.0, 0.0, 0.0])),
        "median": lambda L, x: x.median(),
        "nanmedian": lambda L, x: x.nanmedian(),
        "cummax": lambda L, x: x.cummax(1).values,
        "topk": lambda L, x: x.topk(1, dim=1).values,
    }
    for name, fn in ops.items():
        _assert_same(
            name,
            _outcome(fn, mg, mg.tensor(a)),
            _outcome(fn, torch, torch.tensor(a)),
        )


@pytest.mark.parametrize(
    "dts",
    [
        ("float32", "float64"),
        ("float64", "float32"),
        ("int64", "float32"),
        ("int32", "int64"),
        ("float16", "float32"),
    ],
)
def test_where_and_clamp_with_tensor_bounds_match_pytorch(dts: tuple) -> None:
    rng = np.random.default_rng(3)
    w, lo = rng.standard_normal((4, 5)) * 3, rng.standard_normal(5) - 0.5
    a = np.trunc(w) if dts[0].startswith("int") else w
    lo = np.floor(lo * 3) if dts[1].startswith("int") else lo
    hi = lo + 1
    ops = {
        "clamp": lambda L, x, l, h: x.clamp(l, h),
        "clamp_min": lambda L, x, l, h: x.clamp(min=l),
        "clamp_crossed": lambda L, x, l, h: x.clamp(h, l),
        "clamp_numbers": lambda L, x, l, h: x.clamp(-1.5, 2),
        "where": lambda L, x, l, h: L.where(x > 0, x, l),
        "where_number": lambda L, x, l, h: L.where(x > 0, x, 2.5),
        "where_number_first": lambda L, x, l, h: L.where(x > 0, 1, l),
        "where_0d": lambda L, x, l, h: L.where(x > 0, x, l[0]),
    }
    for name, fn in ops.items():

        def run(L: Any, fn: Any = fn) -> Any:
            return fn(L, _tensor(L, a, dts[0]), _tensor(L, lo, dts[1]), _tensor(L, hi, dts[1]))

        _assert_same(f"{dts} {name}", _outcome(run, mg), _outcome(run, torch))


def _random_index(r: random.Random, shape: tuple) -> tuple:
    """A random index: ints, slices (negative, out of range, steps), int arrays (1-d and 2-d,
    negative), bool masks, None, one Ellipsis."""
    parts: list = []
    i, ellipsis = 0, False
    while i < len(shape):
        n, c = shape[i], r.random()
        if c < 0.2:
            parts.append(r.randrange(-n, n))
            i += 1
        elif c < 0.4:
            parts.append(
                slice(
                    r.randrange(-n - 1, n + 1), r.randrange(-n - 1, n + 2), r.choice([1, 1, 2, 3])
                )
            )
            i += 1
        elif c < 0.55:
            parts.append(np.array([r.randrange(-n, n) for _ in range(r.randrange(1, 4))]))
            i += 1
        elif c < 0.62:
            parts.append(None)
        elif c < 0.7 and not ellipsis:
            parts.append(Ellipsis)
            ellipsis = True
            i += r.randrange(0, len(shape) - i + 1)
        elif c < 0.8:
            parts.append(np.array([r.random() > 0.5 for _ in range(n)]))
            i += 1
        elif c < 0.85:
            parts.append(slice(None))
            i += 1
        else:
            parts.append(np.array([[r.randrange(-n, n)], [r.randrange(-n, n)]]))
            i += 1
        if r.random() < 0.2:
            break
    return tuple(parts)


def _indexing_program(lib: Any, base: np.ndarray, index: tuple, mode: str) -> list:
    x = lib.tensor(base.copy())
    k = tuple(lib.tensor(p) if isinstance(p, np.ndarray) else p for p in index)
    if mode == "get":
        return [x[k], x]
    if mode == "set_number":
        x[k] = -1.5
    elif mode == "set_broadcast":  # a value of the selection's last dim, broadcast
        shape = tuple(x[k].shape)
        n = shape[-1] if shape else 1
        value = -100 - np.arange(n, dtype=np.float64)
        x[k] = lib.tensor(value.reshape(shape[-1:]))
    elif mode == "set_from_itself":  # duplicates: the last write wins in both
        x[k] = x[k] + 1000
    elif mode == "write_through_view":
        y = x[k]
        y.add_(7)  # a view when the index is basic; a copy otherwise
        return [x, y]
    return [x]


@pytest.mark.parametrize(
    "seed", [pytest.param(s, marks=() if s < 3 else pytest.mark.slow) for s in range(12)]
)
def test_random_indexing_programs_match_pytorch(seed: int) -> None:
    r = random.Random(seed)
    for _ in range(120):
        shape = tuple(r.randrange(1, 5) for _ in range(r.randrange(1, 4)))
        base = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
        index = _random_index(r, shape)
        mode = r.choice(
            ["get", "set_number", "set_broadcast", "set_from_itself", "write_through_view"]
        )
        ours = _outcome(_indexing_program, mg, base, index, mode)
        theirs = _outcome(_indexing_program, torch, base, index, mode)
        label = f"{mode} shape={shape} index={index}"
        assert (ours[1] is None) == (theirs[1] is None), (label, ours[1], theirs[1])
        if ours[1] is None:
            for o, t in zip(ours[0], theirs[0]):
                _assert_same(label, (o, None), (t, None))


VIEW_STEPS = [
    "t",
    "slice",
    "view",
    "transpose",
    "narrow",
    "unsqueeze",
    "select",
    "diagonal",
    "flatten",
    "permute",
]


def _long_strides(t: Any) -> tuple:
    """The strides of the dims longer than 1 (a length-1 dim's stride is arbitrary)."""
    return tuple(s for s, n in zip(t.stride(), t.shape) if n > 1)


def _view_program(lib: Any, steps: list) -> list:
    x = lib.tensor(np.arange(24.0).reshape(4, 6))
    views = [x]
    cur = x
    for step in steps:
        if step == "t" and cur.dim() == 2:
            cur = cur.t()
        elif step == "slice" and cur.dim() and cur.shape[0] > 1:
            cur = cur[1:]
        elif step in ("view", "flatten") and cur.is_contiguous():
            cur = cur.view(-1) if step == "view" else cur.flatten()
        elif step == "transpose" and cur.dim() >= 2:
            cur = cur.transpose(0, 1)
        elif step == "narrow" and cur.dim() and cur.shape[-1] > 2:
            cur = cur.narrow(-1, 1, 2)
        elif step == "unsqueeze":
            cur = cur.unsqueeze(0)
        elif step == "select" and cur.dim() >= 2:
            cur = cur.select(0, 0)
        elif step == "diagonal" and cur.dim() == 2:
            cur = cur.diagonal()
        elif step == "permute" and cur.dim() >= 2:
            cur = cur.permute(*reversed(range(cur.dim())))
        views.append(cur)
    cur.mul_(-1)
    views[1].add_(0.5)
    clone, contiguous = cur.clone(), cur.contiguous()
    clone.add_(100)  # their own memory (contiguous: unless cur already was)
    layout = [(tuple(v.shape), _long_strides(v), v.is_contiguous()) for v in views]
    layout += [_long_strides(clone), contiguous.stride()]
    return [*views, x, layout]


@pytest.mark.parametrize("seed", range(4))
def test_view_programs_write_through_and_keep_strides_as_pytorch(seed: int) -> None:
    r = random.Random(100 + seed)
    for _ in range(40):
        steps = [r.choice(VIEW_STEPS) for _ in range(3)]
        ours, theirs = _view_program(mg, steps), _view_program(torch, steps)
        assert ours[-1] == theirs[-1], (steps, ours[-1], theirs[-1])
        for o, t in zip(ours[:-1], theirs[:-1]):
            _assert_same(str(steps), (o, None), (t, None))


def test_every_dtype_pair_is_covered() -> None:
    """The sweep above runs the 100 ordered dtype pairs (a guard against a shrunken table)."""
    assert len(list(itertools.product(DTYPES, DTYPES))) == 100 and len(BINARY) >= 20


def _written_values(lib: Any, dt: str, vdt: str) -> list:
    x = lib.zeros(3, 4, dtype=getattr(lib, dt))
    if vdt == "bool":
        v = lib.tensor([True, False, True, True])
    else:
        v = lib.tensor(np.array([1.7, -2.2, 3.5, 0.0]), dtype=getattr(lib, vdt))
    x[1] = v  # cast to x's dtype, broadcast over a row
    x[:, 0] = v[:3]
    x[x > 0] = v[0]
    y = lib.zeros(3, dtype=getattr(lib, dt))
    y[0] = 1
    y[lib.tensor([1, 2])] = True
    return [x, y]


@pytest.mark.parametrize(
    "dt", ["int64", "int32", "uint8", "float32", "float16", "bfloat16", "bool"]
)
def test_setitem_casts_values_to_the_tensor_dtype_as_pytorch(dt: str) -> None:
    for vdt in ["float64", "int64", "bool", "float32"]:
        ours, theirs = (
            _outcome(_written_values, mg, dt, vdt),
            _outcome(_written_values, torch, dt, vdt),
        )
        assert (ours[1] is None) == (theirs[1] is None), (dt, vdt, ours[1], theirs[1])
        for o, t in zip(ours[0] or [], theirs[0] or []):
            _assert_same(f"{dt} <- {vdt}", (o, None), (t, None))


@pytest.mark.parametrize("dt", ["uint8", "int8", "int16"])
def test_ints_written_into_integer_tensors_are_checked_as_pytorch(dt: str) -> None:
    for value in [-1, -128, -129, -255, -256, 127, 128, 255, 256, 40000]:
        for how in ("setitem", "fill_", "masked_fill"):

            def write(lib: Any, how: str = how, value: int = value) -> Any:
                x = lib.zeros(3, dtype=getattr(lib, dt))
                if how == "setitem":
                    x[1] = value
                elif how == "fill_":
                    x.fill_(value)
                else:
                    x = x.masked_fill(lib.tensor([True, False, True]), value)
                return x

            _assert_same(f"{dt} {how} {value}", _outcome(write, mg), _outcome(write, torch))


@pytest.mark.parametrize("seed", range(3))
def test_accumulating_writes_with_duplicate_indices_match_pytorch(seed: int) -> None:
    r = random.Random(seed)
    for _ in range(40):
        n = r.randrange(2, 6)
        idx = np.array([r.randrange(-n, n) for _ in range(r.randrange(1, 8))])
        vals = np.arange(len(idx), dtype=np.float64) + 1

        def run(lib: Any, n: int = n, idx: np.ndarray = idx, vals: np.ndarray = vals) -> list:
            x = lib.zeros(n, 2, dtype=lib.float64)
            v = lib.tensor(vals)[:, None].expand(len(idx), 2).clone()
            x.index_put_((lib.tensor(idx),), v, accumulate=True)
            y = lib.zeros(n, dtype=lib.float64).index_add(
                0, lib.tensor(idx % n), lib.tensor(vals), alpha=2
            )
            z = lib.zeros(n, dtype=lib.float64).scatter_add(
                0, lib.tensor(idx % n), lib.tensor(vals)
            )
            w = lib.zeros(n, dtype=lib.float64)
            w[lib.tensor(idx)] += 1  # a read, an add, a write: duplicates count once
            return [x, y, z, w]

        for o, t in zip(run(mg), run(torch)):
            _assert_same(f"n={n} idx={idx}", (o, None), (t, None))
