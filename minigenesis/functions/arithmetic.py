"""The arithmetic functions: ``mg.add``, ``mg.sub``, ``mg.mul``, ``mg.div``, ``mg.pow``,
``mg.remainder``, ``mg.fmod``, ``mg.maximum`` / ``mg.minimum`` (and NaN-ignoring ``fmax`` /
``fmin``), ``mg.clamp``.

A Python number may come first (``mg.add(2, t)``): it becomes a tensor on the other operand's
device, then the Tensor's operator runs (``promotion.binary_op`` picks the dtype)."""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..conversions import as_array
from ..ops import elementwise as E
from ..promotion import binary_op
from ..size import python_number
from ._common import _check, _first, _operands, _t, _with_out


@_with_out
def add(x: Any, other: Any, *deprecated: Any, alpha: Any = 1) -> Tensor:
    """x + alpha * other (and the old order add(x, alpha, other))"""
    _operands("add", x, other)
    return _t(x, other if isinstance(other, Tensor) else None).add(other, *deprecated, alpha=alpha)


@_with_out
def sub(x: Any, other: Any, *deprecated: Any, alpha: Any = 1) -> Tensor:
    """x - alpha * other (and the old order sub(x, alpha, other))"""
    _operands("sub", x, other)
    return _t(x, other if isinstance(other, Tensor) else None).sub(other, *deprecated, alpha=alpha)


@_with_out
def mul(x: Any, other: Any) -> Tensor:
    """x * other"""
    _operands("mul", x, other)
    return _first(x, other) * other


@_with_out
def div(x: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """x / other (true division); ``rounding_mode="floor"`` rounds the quotient down,
    ``"trunc"`` towards zero (both with integer results for integer inputs, as in PyTorch)."""
    _operands("div", x, other)
    return _first(x, other).div(other, rounding_mode=rounding_mode)


@_with_out
def neg(x: Tensor) -> Tensor:
    return -x


@_with_out
def square(x: Tensor) -> Tensor:
    return x.square()


@_with_out
def pow(x: Any, exponent: Any) -> Tensor:  # noqa: A001
    _operands("pow", x, exponent)
    return x**exponent if isinstance(x, Tensor) else binary_op(E.Pow, x, exponent)


@_with_out
def float_power(input: Any, exponent: Any) -> Tensor:  # noqa: A002
    """input ** exponent in float64. A number base is made float64 at once: the default float32
    would round it, or overflow it to inf (1e40), before the float64 power."""
    if not isinstance(input, Tensor):
        _operands("float_power", input, exponent)
        if not isinstance(exponent, Tensor):
            raise TypeError("float_power(): needs a tensor, as input or exponent, not two numbers")
        base = Tensor._make(as_array(python_number(input), _dt.float64, exponent.device), False)
        return base.float_power(exponent)
    return input.float_power(exponent)


@_with_out
def remainder(x: Any, other: Any) -> Tensor:
    """x - floor(x / other) * other (Python's %: the sign of ``other``)."""
    _operands("remainder", x, other)
    return binary_op(E.Mod, x, other)


@_with_out
def fmod(x: Any, other: Any) -> Tensor:
    """x - trunc(x / other) * other (C's fmod: the sign of ``x``)."""
    _operands("fmod", x, other)
    _check(x, "fmod")  # a number first is PyTorch's TypeError
    return binary_op(E.Fmod, x, other)


@_with_out
def maximum(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    _operands("maximum", input, other)
    _check(input, "maximum")  # a number first is PyTorch's TypeError
    return input.maximum(other)


@_with_out
def minimum(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    _operands("minimum", input, other)
    _check(input, "minimum")  # a number first is PyTorch's TypeError
    return input.minimum(other)


@_with_out
def fmax(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    _check(input, "fmax")  # a number first is PyTorch's TypeError
    return input.fmax(other)


@_with_out
def fmin(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    _check(input, "fmin")  # a number first is PyTorch's TypeError
    return input.fmin(other)


@_with_out
def clamp(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return x.clamp(min, max)


def clip(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return x.clamp(min, max)


@_with_out
def clamp_min(x: Tensor, min: Any) -> Tensor:  # noqa: A002
    return x.clamp_min(min)


@_with_out
def clamp_max(x: Tensor, max: Any) -> Tensor:  # noqa: A002
    return x.clamp_max(max)


multiply, divide, true_divide, subtract, negative = mul, div, div, sub, neg
