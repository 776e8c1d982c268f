"""The pointwise functions: ``mg.exp``, ``mg.sin``, ``mg.erf``, ``mg.floor``, ``mg.isnan``,
``mg.logical_and``, ``mg.sigmoid`` ... Each is the Tensor method of the same name under PyTorch's
top-level spelling (``mg.exp(x)`` is ``x.exp()``), most with ``out=``. The special functions here
(``erf``, ``lgamma``, ``digamma``, ``polygamma``, ``erfc``, ``i0``, ``sinc``, ``xlogy`` ...) are the
methods of ``tensor_pointwise.py``; ``mg.special`` (``special.py``) names them again."""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..backend import get_array_module
from ..out_arg import write_outs
from ._common import _check, _operands, _t, _with_out


@_with_out
def exp(x: Tensor) -> Tensor:
    return x.exp()


@_with_out
def log(x: Tensor) -> Tensor:
    return x.log()


@_with_out
def sqrt(x: Tensor) -> Tensor:
    return x.sqrt()


@_with_out
def rsqrt(x: Tensor) -> Tensor:
    return x.rsqrt()


@_with_out
def abs(x: Tensor) -> Tensor:  # noqa: A001
    return x.abs()


@_with_out
def sign(x: Tensor) -> Tensor:
    return x.sign()


@_with_out
def sgn(input: Tensor) -> Tensor:  # noqa: A002
    return input.sgn()


@_with_out
def signbit(input: Tensor) -> Tensor:  # noqa: A002
    return input.signbit()


@_with_out
def sin(x: Tensor) -> Tensor:
    return x.sin()


@_with_out
def cos(x: Tensor) -> Tensor:
    return x.cos()


@_with_out
def tan(x: Tensor) -> Tensor:
    return x.tan()


@_with_out
def asin(x: Tensor) -> Tensor:
    return x.asin()


@_with_out
def acos(x: Tensor) -> Tensor:
    return x.acos()


@_with_out
def atan(x: Tensor) -> Tensor:
    return x.atan()


@_with_out
def atan2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The angle of the point (other, input) in (-pi, pi]."""
    _operands("atan2", input, other)
    _check(input, "atan2")  # a number first is PyTorch's TypeError
    return input.atan2(other)


arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2


@_with_out
def sinh(x: Tensor) -> Tensor:
    return x.sinh()


@_with_out
def cosh(x: Tensor) -> Tensor:
    return x.cosh()


@_with_out
def expm1(x: Tensor) -> Tensor:
    return x.expm1()


@_with_out
def log1p(x: Tensor) -> Tensor:
    return x.log1p()


@_with_out
def log2(x: Tensor) -> Tensor:
    return x.log2()


@_with_out
def log10(x: Tensor) -> Tensor:
    return x.log10()


@_with_out
def exp2(input: Tensor) -> Tensor:  # noqa: A002
    return input.exp2()


@_with_out
def reciprocal(x: Tensor) -> Tensor:
    return x.reciprocal()


@_with_out
def deg2rad(input: Tensor) -> Tensor:  # noqa: A002
    return input.deg2rad()


@_with_out
def rad2deg(input: Tensor) -> Tensor:  # noqa: A002
    return input.rad2deg()


@_with_out
def logaddexp(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    _check(input, "logaddexp")  # a number first is PyTorch's TypeError
    return input.logaddexp(other)


@_with_out
def logaddexp2(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    _check(input, "logaddexp2")  # a number first is PyTorch's TypeError
    return input.logaddexp2(other)


@_with_out
def hypot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    _check(input, "hypot")  # a number first is PyTorch's TypeError
    return input.hypot(other)


@_with_out
def xlogy(input: Any, other: Any) -> Tensor:  # noqa: A002
    """x * log(y), 0 where x = 0; x may be a number."""
    if not isinstance(input, Tensor):
        other = _t(other)
        dt = other.dtype if other.is_floating_point() else _dt.get_default_dtype()
        x = Tensor._make(get_array_module(other._data).asarray(input, dt.numpy_dtype), False)
        return x.xlogy(other)
    return input.xlogy(other)


@_with_out
def logit(input: Tensor, eps: Any = None) -> Tensor:  # noqa: A002
    return input.logit(eps)


@_with_out
def copysign(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    _check(input, "copysign")  # a number first is PyTorch's TypeError
    return input.copysign(other)


@_with_out
def heaviside(input: Tensor, values: Tensor) -> Tensor:  # noqa: A002
    _check(input, "heaviside")  # a number first is PyTorch's TypeError
    return input.heaviside(values)


def frexp(input: Tensor, *, out: tuple | None = None) -> Any:  # noqa: A002
    """(mantissa, exponent) with input = mantissa * 2^exponent; ``out``: a pair to write into
    (the mantissa of input's dtype, the exponent int32)."""
    result = input.frexp()
    if out is None:
        return result
    return write_outs(
        "frexp",
        result,
        out,
        (
            "torch.frexp() expects mantissa to have dtype {want} but got {out}",
            "torch.frexp() expects exponent to have int dtype but got {out}",
        ),
    )


@_with_out
def ldexp(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    _check(input, "ldexp")  # a number first is PyTorch's TypeError
    return input.ldexp(other)


@_with_out
def erf(x: Tensor) -> Tensor:
    return x.erf()


@_with_out
def erfinv(x: Tensor) -> Tensor:
    return x.erfinv()


@_with_out
def erfc(input: Tensor) -> Tensor:  # noqa: A002
    return input.erfc()


@_with_out
def lgamma(x: Tensor) -> Tensor:
    return x.lgamma()


@_with_out
def digamma(x: Tensor) -> Tensor:
    return x.digamma()


@_with_out
def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002
    """psi^(n)(input): PyTorch's argument order, the order first."""
    return input.polygamma(n)


@_with_out
def i0(input: Tensor) -> Tensor:  # noqa: A002
    return input.i0()


@_with_out
def sinc(input: Tensor) -> Tensor:  # noqa: A002
    return input.sinc()


@_with_out
def tanh(x: Tensor) -> Tensor:
    return x.tanh()


@_with_out
def sigmoid(x: Tensor) -> Tensor:
    return x.sigmoid()


def relu(x: Tensor) -> Tensor:
    return x.relu()


def softmax(x: Tensor, dim: int = -1, dtype: Any = None) -> Tensor:
    """exp(x_i) / sum_j exp(x_j) along dim; ``dtype``: x cast to it first (as PyTorch)."""
    return x.softmax(dim, dtype)


def log_softmax(x: Tensor, dim: int = -1, dtype: Any = None) -> Tensor:
    """x_i - log sum_j exp(x_j) along dim; ``dtype``: x cast to it first."""
    return x.log_softmax(dim, dtype)


@_with_out
def floor(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "floor").floor()


@_with_out
def ceil(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "ceil").ceil()


@_with_out
def trunc(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "trunc").trunc()


fix = trunc


@_with_out
def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001, A002
    return _check(input, "round").round(decimals)


@_with_out
def frac(input: Tensor) -> Tensor:  # noqa: A002
    return _check(input, "frac").frac()


@_with_out
def nan_to_num(input: Tensor, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:  # noqa: A002
    return _check(input, "nan_to_num").nan_to_num(nan, posinf, neginf)


@_with_out
def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:  # noqa: A002
    return _check(input, "lerp").lerp(end, weight)


def isnan(x: Tensor) -> Tensor:
    return x.isnan()


def isinf(x: Tensor) -> Tensor:
    return x.isinf()


def isfinite(x: Tensor) -> Tensor:
    return x.isfinite()


def isclose(input: Tensor, other: Any, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:  # noqa: A002
    return _check(input, "isclose").isclose(other, rtol, atol, equal_nan)


@_with_out
def logical_and(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    _check(input, "logical_and")  # a number first is PyTorch's TypeError
    return input.logical_and(other)


@_with_out
def logical_or(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    _check(input, "logical_or")  # a number first is PyTorch's TypeError
    return input.logical_or(other)


@_with_out
def logical_xor(input: Tensor, other: Any) -> Tensor:  # noqa: A002
    _check(input, "logical_xor")  # a number first is PyTorch's TypeError
    return input.logical_xor(other)


@_with_out
def logical_not(input: Tensor) -> Tensor:  # noqa: A002
    return input.logical_not()


@_with_out
def bitwise_and(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _t(input, other if isinstance(other, Tensor) else None).bitwise_and(other)


@_with_out
def bitwise_or(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _t(input, other if isinstance(other, Tensor) else None).bitwise_or(other)


@_with_out
def bitwise_xor(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _t(input, other if isinstance(other, Tensor) else None).bitwise_xor(other)


@_with_out
def bitwise_not(input: Tensor) -> Tensor:  # noqa: A002
    return input.bitwise_not()


def is_floating_point(input: Tensor) -> bool:  # noqa: A002
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:  # noqa: A002
    return input.is_complex()
