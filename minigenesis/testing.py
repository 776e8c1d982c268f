"""``mg.testing.assert_close``: compare results the way PyTorch's tests do.

Two floating values are close when ``|actual - expected| <= atol + rtol * |expected|``, element by
element. The default tolerances depend on the dtype, because each dtype rounds differently: a
float32 result is good to about 7 significant digits, a bfloat16 one to about 3. They are
PyTorch's defaults, so a test written for PyTorch passes or fails here for the same reasons:

    dtype       rtol      atol
    float16     1e-3      1e-5
    bfloat16    1.6e-2    1e-5
    float32     1.3e-6    1e-5
    float64     1e-7      1e-7
    int, bool   0         0      (exact)

Tensors must also agree in shape, dtype (``check_dtype=False`` relaxes it) and device. Python
numbers compare as numbers of their type (a float as float64); lists, tuples and dicts compare
item by item, and a failure names the item. NaN never equals NaN unless ``equal_nan=True``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import dtypes as _dt
from ._tensor import Tensor
from .creation import empty, from_numpy, randint, tensor
from .tensor_math import integers_close

# dtype -> (rtol, atol), PyTorch's defaults
_TOLERANCES = {
    _dt.float16: (1e-3, 1e-5),
    _dt.bfloat16: (1.6e-2, 1e-5),
    _dt.float32: (1.3e-6, 1e-5),
    _dt.float64: (1e-7, 1e-7),
}

__all__ = ["assert_allclose", "assert_close", "make_tensor"]


def _tolerances(dtype: Any, rtol: float | None, atol: float | None) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
        )
    if rtol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype, (0.0, 0.0))


def _fail(msg: Any, default: str, where: str) -> None:
    if callable(msg):
        raise AssertionError(msg(default))
    if msg is not None:
        raise AssertionError(msg)
    raise AssertionError(default + (f"\n\nThe failure occurred for item {where}" if where else ""))


def _mismatch_report(
    actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float, equal_nan: bool
) -> str | None:
    """None if every element is close; else PyTorch's summary of the worst elements. As PyTorch,
    the check runs in float64 (integers and bools: exactly, in int64) and the reported
    differences in the pair's floating dtype (float32 for integers and bools)."""
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    if actual.dtype == expected.dtype and actual.dtype.kind in "fV":  # V: bfloat16
        report = actual.dtype
    else:
        report = np.float64 if np.float64 in (actual.dtype, expected.dtype) else np.float32
    if actual.dtype.kind in "biu" and expected.dtype.kind in "biu":  # exact, in int64
        close = integers_close(actual.astype(np.int64), expected.astype(np.int64), rtol, atol)
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            within = np.abs(a - e) <= atol + rtol * np.abs(e)
            close = np.where(np.isfinite(a) & np.isfinite(e), within, a == e)  # inf only: inf
            if equal_nan:
                close |= np.isnan(a) & np.isnan(e)
    if close.all():
        return None
    exact = rtol == 0 and atol == 0
    ar, er = actual.astype(report), expected.astype(report)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(ar - er)
        rel_diff = abs_diff / np.abs(er)
        if actual.dtype.kind in "biu" and expected.dtype.kind in "biu":  # (2^53 + 1 - 2^53)
            abs_diff = np.abs(actual.astype(np.int64) - expected.astype(np.int64))
    abs_diff = np.where(close, 0.0, abs_diff)
    rel_diff = np.where(close, 0.0, rel_diff)
    total, bad = close.size, int((~close).sum())
    lines = [
        f"Tensor-likes are not {'equal' if exact else 'close'}!",
        "",
        f"Mismatched elements: {bad} / {total} ({100 * bad / total:.1f}%)",
    ]
    for name, diff, allowed in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        nan = np.isnan(diff)
        i = np.unravel_index(int(np.argmax(nan) if nan.any() else np.argmax(diff)), diff.shape)
        value = float(diff[i])
        if np.issubdtype(actual.dtype, np.integer) and name == "absolute":
            value = int(value)
        tail = "" if exact else f" (up to {allowed} allowed)"
        lines.append(
            f"Greatest {name} difference: {value} at index {tuple(int(k) for k in i)}{tail}"
        )
    return "\n".join(lines)


def _compare_tensors(a: Tensor, e: Tensor, opts: dict, where: str) -> None:
    if a.shape != e.shape:
        _fail(
            opts["msg"],
            f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.",
            where,
        )
    if opts["check_device"] and a.device != e.device:
        _fail(
            opts["msg"],
            f"The values for attribute 'device' do not match: {a.device} != {e.device}.",
            where,
        )
    if opts["check_dtype"] and a.dtype != e.dtype:
        _fail(
            opts["msg"],
            f"The values for attribute 'dtype' do not match: {a.dtype} != {e.dtype}.",
            where,
        )
    dtype = _dt.promote_types(a.dtype, e.dtype) if a.dtype != e.dtype else a.dtype
    rtol, atol = _tolerances(dtype, opts["rtol"], opts["atol"])
    a_np = np.asarray(a.detach().cpu()._data)
    e_np = np.asarray(e.detach().cpu()._data)
    report = _mismatch_report(a_np, e_np, rtol, atol, opts["equal_nan"])
    if report is not None:
        _fail(opts["msg"], report, where)


def _compare_scalars(a: Any, e: Any, opts: dict, where: str) -> None:
    if type(a) is not type(e):
        _fail(opts["msg"], f"The (d)types do not match: {type(a)} != {type(e)}.", where)
    kind = _dt.float64 if isinstance(a, float) else None
    rtol, atol = _tolerances(kind, opts["rtol"], opts["atol"])
    if a == e or (opts["equal_nan"] and isinstance(a, float) and math.isnan(a) and math.isnan(e)):
        return
    diff = abs(a - e)
    if kind is not None and diff <= atol + rtol * abs(e):
        return
    exact = rtol == 0 and atol == 0
    rel = diff / abs(e) if e != 0 else math.inf
    tail = ("", "") if exact else (f" (up to {atol} allowed)", f" (up to {rtol} allowed)")
    _fail(
        opts["msg"],
        f"Scalars are not {'equal' if exact else 'close'}!\n\nExpected {e} but got {a}.\n"
        f"Absolute difference: {diff}{tail[0]}\nRelative difference: {rel}{tail[1]}",
        where,
    )


def _compare(actual: Any, expected: Any, opts: dict, where: str) -> None:
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        if actual.ndim == 0 and expected.ndim == 0 and actual.dtype == expected.dtype:
            # 0-d tensors report as scalars, as PyTorch does
            a, e = actual.item(), expected.item()
            if opts["rtol"] is None and actual.dtype in _TOLERANCES:
                opts = dict(
                    opts, rtol=_TOLERANCES[actual.dtype][0], atol=_TOLERANCES[actual.dtype][1]
                )
            return _compare_scalars(a, e, opts, where)
        return _compare_tensors(actual, expected, opts, where)
    if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        return _compare_tensors(from_numpy(actual), from_numpy(expected), opts, where)
    if isinstance(actual, (bool, int, float)) and isinstance(expected, (bool, int, float)):
        return _compare_scalars(actual, expected, opts, where)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            _fail(
                opts["msg"],
                f"The keys of the mappings do not match:\nactual: {sorted(map(str, actual))}\n"
                f"expected: {sorted(map(str, expected))}",
                where,
            )
        for key in expected:
            _compare(actual[key], expected[key], opts, f"{where}[{key!r}]")
        return None
    if (
        isinstance(actual, Sequence)
        and isinstance(expected, Sequence)
        and not isinstance(actual, (str, bytes))
        and not isinstance(expected, (str, bytes))
    ):
        if len(actual) != len(expected):
            _fail(
                opts["msg"],
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                where,
            )
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, opts, f"{where}[{i}]")
        return None
    raise TypeError(
        f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}."
    )


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Any = None,
) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (see the module
    docstring for the rule and the default tolerances). ``msg`` replaces the message (a callable
    receives the generated one and returns the text). ``check_layout``/``check_stride`` are
    accepted for PyTorch's signature: every tensor here is dense and strides are not compared."""
    opts = {
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_device": check_device,
        "check_dtype": check_dtype,
        "msg": msg,
    }
    _tolerances(None, rtol, atol)  # the both-or-neither check, before anything else
    _compare(actual, expected, opts, "")


def make_tensor(
    *shape: Any,
    dtype: Any,
    device: Any = "cpu",
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A test tensor of ``shape``: floats drawn uniformly from ``[low, high)`` (default [-9, 9)),
    integers from ``low .. high - 1`` (default -9 .. 8), bools at random, as PyTorch's helper."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    low = -9 if low is None else low
    high = 9 if high is None else high
    if dtype == _dt.bool_:
        t = randint(0, 2, shape, device=device).bool()
    elif dtype.is_floating_point:
        t = empty(shape, dtype=dtype, device=device).uniform_(low, high)
    else:
        t = randint(int(low), int(high), shape, dtype=dtype, device=device)
    return t.requires_grad_(requires_grad)


# assert_allclose's own (looser) defaults, {dtype name: (rtol, atol)}
_ALLCLOSE_TOLERANCES = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(
    actual: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """The deprecated forerunner of ``assert_close`` (a FutureWarning), which old tests still
    call: non-tensors become tensors (``expected`` in ``actual``'s dtype), NaNs compare equal, the
    dtypes may differ, and the default tolerances are the loosest of the two dtypes' from its own
    table (float16 1e-3/1e-3, float32 1e-4/1e-5, float64 1e-5/1e-8; others exact)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(r for r, _ in pairs), max(a for _, a in pairs)
    assert_close(
        actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
        check_dtype=False, check_stride=False, msg=msg or None,
    )  # fmt: skip
