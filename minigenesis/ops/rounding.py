"""Rounding: floor, ceil, trunc, round (with decimals) and frac.

Each op's forward works on arrays; its backward on Tensors. Rounding is piecewise constant, so its
gradient is 0 wherever it is defined (PyTorch's choice at the jumps too); frac = x - trunc(x) has
gradient 1.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ..backend import get_array_module, quiet_fp


def _zeros_like(g):
    """A zero gradient (not g * 0: an inf or NaN g must not give NaN)."""
    return type(g)._make(get_array_module(g._data).zeros_like(g._data), False)


class _Rounding(Op):
    """y = round_fn(x);   dy/dx = 0 (piecewise constant). Integers pass through unchanged."""

    fn = "floor"

    @classmethod
    def forward(cls, ctx, x):
        if x.dtype.kind == "b":
            raise NotImplementedError(
                f"{cls.fn}() of a bool tensor is not supported, as in PyTorch"
            )
        if x.dtype.kind in "iu":
            return x.copy()
        return getattr(get_array_module(x), cls.fn)(x)

    @staticmethod
    def backward(ctx, gy):
        return _zeros_like(gy)


class Floor(_Rounding):
    """y = floor(x), the largest integer <= x;   dy/dx = 0."""

    fn = "floor"


class Ceil(_Rounding):
    """y = ceil(x), the smallest integer >= x;   dy/dx = 0."""

    fn = "ceil"


class Trunc(_Rounding):
    """y = trunc(x), x rounded toward zero;   dy/dx = 0."""

    fn = "trunc"


class Round(Op):
    """y = round(x * 10^d) / 10^d for d > 0, round(x / 10^-d) * 10^-d for d < 0, halves to even
    (as PyTorch and NumPy);   dy/dx = 0.

    As PyTorch's kernel, a 2-byte float computes in float32 (x * 100 would overflow float16,
    and bfloat16's 8 bits would round the scaled value before it is rounded to an integer), and
    a negative d divides by the exact power 10^-d instead of multiplying by the inexact 10^d
    (x * 0.001 / 0.001 is not x's thousands)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, decimals):
        xp = get_array_module(x)
        if x.dtype.kind == "b" or (x.dtype.kind in "iu" and decimals != 0):
            raise NotImplementedError(
                f"round(decimals={decimals}) of a {x.dtype} tensor is not supported"
            )
        if x.dtype.kind in "iu":
            return x.copy()
        if decimals == 0:
            return xp.round(x)
        compute = np.float32 if x.dtype.itemsize == 2 else x.dtype.type
        scale = compute(10.0 ** abs(decimals))
        wide = x.astype(compute, copy=False)
        y = xp.round(wide * scale) / scale if decimals > 0 else xp.round(wide / scale) * scale
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, gy):
        return _zeros_like(gy), None


class Frac(Op):
    """y = x - trunc(x) (the fractional part, with x's sign);   dy/dx = 1."""

    @staticmethod
    def forward(ctx, x):
        with np.errstate(invalid="ignore"):  # frac(+-inf) is NaN, as in PyTorch
            return x - get_array_module(x).trunc(x)

    @staticmethod
    def backward(ctx, gy):
        return gy


class DivFloor(Op):
    """z = floor(x / y) (``div(rounding_mode="floor")``), PyTorch's rule for floats (inf // 1 is
    NaN, as C's fmod(inf, 1) is);   dz/dx = dz/dy = 0 (piecewise constant: PyTorch's zero
    gradient, not an error as for ``//``). Integer division by zero raises."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, y):
        _refuse_int_zero_division(x, y)
        xp = get_array_module(x if hasattr(x, "dtype") else y)
        dtype, (x, y) = _in_float32_if_half(xp, x, y)
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.floor_divide(x, y).astype(dtype, copy=False)

    @staticmethod
    def backward(ctx, gz):
        return _zeros_like(gz), _zeros_like(gz)


class DivTrunc(DivFloor):
    """z = trunc(x / y) (``div(rounding_mode="trunc")``): trunc(inf / 1) is inf;
    dz/dx = dz/dy = 0. Integers: the floor quotient, moved up by one where the remainder is
    not 0 and the operands' signs differ (C's integer division)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, x, y):
        _refuse_int_zero_division(x, y)
        xp = get_array_module(x if hasattr(x, "dtype") else y)
        z = xp.floor_divide(x, y) if _is_integral(x) and _is_integral(y) else None
        if z is None:
            dtype, (x, y) = _in_float32_if_half(xp, x, y)
            with np.errstate(divide="ignore", invalid="ignore"):
                return xp.trunc(xp.true_divide(x, y)).astype(dtype, copy=False)
        inexact = (x - z * y != 0) & ((xp.asarray(x) < 0) != (xp.asarray(y) < 0))
        return z + inexact.astype(z.dtype)


def _in_float32_if_half(xp, x, y) -> tuple:
    """(the result's dtype, the operands): a float16/bfloat16 quotient is computed in float32,
    PyTorch's "opmath" type, a Python number read in float32 too (not rounded to 11 or 8 bits
    first: x // 0.001 divides by 0.001, not by float16's 0.0010004). A float32 quotient of
    2-byte floats is exact enough that no 2.9997 rounds to the integer 3 before the floor."""
    arrays = [v for v in (x, y) if hasattr(v, "dtype")]
    if len(arrays) == 2 or arrays[0].dtype.kind in "biu":
        dtype = xp.result_type(x, y)
    else:  # a float array and a number: the array's dtype (NumPy would widen bfloat16)
        dtype = arrays[0].dtype
    if dtype.itemsize == 2 and dtype.kind not in "biu":
        return dtype, tuple(xp.asarray(v, np.float32) for v in (x, y))
    return dtype, (x, y)


def _is_integral(v) -> bool:
    return v.dtype.kind in "biu" if hasattr(v, "dtype") else isinstance(v, (bool, int))


class IntegerDivisionByZero(RuntimeError, ZeroDivisionError):
    """An integer division by zero: PyTorch's RuntimeError, and Python's ZeroDivisionError."""


def refuse_integer_zero_divisor(x, y, name: str) -> None:
    """PyTorch's error for an integer x / 0 (//, %, fmod, rounded div): raised only where a
    division happens, so not for an empty x (whose broadcast result is empty)."""
    if not (_is_integral(x) and _is_integral(y)):
        return
    xp = get_array_module(x if hasattr(x, "dtype") else y)
    if xp.asarray(x).size and bool(xp.any(xp.asarray(y) == 0)):
        raise IntegerDivisionByZero(f"integer {name} by zero")


def _refuse_int_zero_division(x, y) -> None:
    """PyTorch's errors: no rounded division of two bools, no integer division by zero."""
    kinds = [v.dtype.kind if hasattr(v, "dtype") else type(v) for v in (x, y)]
    if all(k in ("b", bool) for k in kinds):
        raise NotImplementedError("rounded division is not implemented for 'Bool'")
    refuse_integer_zero_divisor(x, y, "division")
