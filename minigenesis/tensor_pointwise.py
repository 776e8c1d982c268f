"""The Tensor's further pointwise methods: logical and bitwise ops, sign bits, exp2 / logaddexp /
hypot / xlogy / logit, fmax / fmin, frexp / ldexp / copysign / heaviside, degrees and radians, and
the special functions (erf, erfinv, erfc, lgamma, digamma, polygamma, i0, sinc, logcumsumexp).

Most are compositions of existing differentiable ops (their gradients follow from the chain rule
and match PyTorch's, including the special points noted in each docstring); erfc, i0, xlogy and
logcumsumexp are ops of ``ops/special_functions.py``, erf and erfinv of ``ops/math_functions.py``,
lgamma, digamma and polygamma of ``ops/special.py``. Results that are bool (logical ops, signbit)
or integer (bitwise ops, frexp's exponent) carry no gradient, as in PyTorch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as _dt
from . import return_types
from .autograd.tensor_base import TensorBase
from .backend import get_array_module, quiet_fp
from .ops import math_functions as MF
from .ops import special as SP
from .ops import special_functions as SF
from .ops.round_once import in_float32
from .promotion import FLOAT_KINDS, float_in, refuse_sequence, result_type
from .size import broadcast_checked, norm_dim, python_number

Frexp = return_types.frexp


def _data(x: Any, like: Any) -> Any:
    return x._data if isinstance(x, TensorBase) else get_array_module(like._data).asarray(x)


def _truth(x: Any) -> Any:
    """An array for a logical ufunc: on the GPU, a non-bool array becomes x != 0 (the truth of an
    element in PyTorch), since CuPy's logical_xor and logical_not have no bfloat16 loop."""
    if isinstance(x, np.ndarray) or np.isscalar(x) or x.dtype == np.bool_:
        return x
    return x != 0


def _float_pair(a: Any, b: Any, name: str) -> tuple:
    """a and b as tensors of their promoted dtype, the default float dtype if that is integral
    (PyTorch's rule for float-valued binary functions such as hypot, logaddexp, xlogy)."""
    b = python_number(b)
    dt = result_type(a, b)
    if not dt.is_floating_point:
        dt = _dt.get_default_dtype()
    np_dt = dt.numpy_dtype
    if not isinstance(b, TensorBase):
        if not isinstance(b, (int, float)):
            raise TypeError(f"{name}(): argument 'other' must be Tensor or Number, not {type(b)}")
        b = a._make(get_array_module(a._data).asarray(b, np_dt), False)
    return a._cast(np_dt), b._cast(np_dt)


def _need_int_or_bool(t: Any, name: str) -> None:
    if t._data.dtype.kind in FLOAT_KINDS:
        raise NotImplementedError(
            f"{name}(): only bool and integer tensors are supported, got {t.dtype.name}"
        )


def _inplace_form(name: str) -> Any:
    """``x.name_(*args)``: the out-of-place ``x.name(*args)`` written into x (inplace.py's
    ``_inplace``: the version bump, the graph's rebase, the dtype check)."""

    def method(self, *args, **kwargs):
        return self._inplace(lambda x, *a: getattr(x, name)(*a, **kwargs), *args)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place {name}: self = self.{name}(...)."
    return method


class TensorPointwise:
    """Mixin of Tensor: pointwise methods built on existing ops and ``ops/special_functions``."""

    __slots__ = ()

    # ----------------------------------------------------------------- logical and bitwise
    @broadcast_checked
    def _logical(self, other, fn: str):
        refuse_sequence(fn, other)
        xp = get_array_module(self._data)
        return self._derived(getattr(xp, fn)(_truth(self._data), _truth(_data(other, self))), other)

    def logical_and(self, other):
        """Elementwise (self != 0) and (other != 0), a bool tensor."""
        return self._logical(other, "logical_and")

    def logical_or(self, other):
        return self._logical(other, "logical_or")

    def logical_xor(self, other):
        return self._logical(other, "logical_xor")

    def logical_not(self):
        return self._derived(get_array_module(self._data).logical_not(_truth(self._data)))

    def bitwise_and(self, other):
        refuse_sequence("bitwise_and", other)
        _need_int_or_bool(self, "bitwise_and")
        return self & other

    def bitwise_or(self, other):
        refuse_sequence("bitwise_or", other)
        _need_int_or_bool(self, "bitwise_or")
        return self | other

    def bitwise_xor(self, other):
        refuse_sequence("bitwise_xor", other)
        _need_int_or_bool(self, "bitwise_xor")
        return self ^ other

    def bitwise_not(self):
        _need_int_or_bool(self, "bitwise_not")
        return ~self

    # ----------------------------------------------------------------- signs
    def sgn(self):
        """sign(x) (for real tensors sgn and sign agree)."""
        return self.sign()

    def signbit(self):
        """True where the sign bit is set: negative numbers and -0.0 (a bool tensor)."""
        return self._derived(get_array_module(self._data).signbit(self._data))

    @broadcast_checked
    def copysign(self, other):
        """|self| with the sign of ``other`` (-0.0 counts as negative);
        d/dself = +-1 (0 at self = 0, NaN at NaN), d/dother = 0, as in PyTorch."""
        a, b = _float_pair(self, other, "copysign")
        return MF.Copysign.apply(a, b)

    @broadcast_checked
    @quiet_fp
    def heaviside(self, values):
        """0 where self < 0, ``values`` where self == 0, 1 where self > 0 (not differentiable)."""
        if not isinstance(values, TensorBase) or values.dtype is not self.dtype:
            got = values.dtype.name if isinstance(values, TensorBase) else type(values).__name__
            # PyTorch: a TypeError for a number, a RuntimeError for a tensor of another dtype
            raise (RuntimeError if isinstance(values, TensorBase) else TypeError)(
                f"heaviside(): 'values' must be a tensor of the input's dtype {self.dtype.name}, "
                f"got {got}"
            )
        xp = get_array_module(self._data)
        x, v = self._data, values._data
        out = xp.where(x == 0, v, (x > 0).astype(x.dtype))
        return self._make(xp.asarray(out, dtype=x.dtype), False)

    # ----------------------------------------------------------------- exponentials and logs
    def exp2(self):
        """2^x;   d/dx = ln 2 * 2^x."""
        return MF.Exp2.apply(float_in(self))

    def logaddexp(self, other):
        """log(e^a + e^b) = max(a, b) + log1p(e^-|a - b|), which cannot overflow;
        d/da = e^a / (e^a + e^b) (1/2 each where a = b)."""
        a, b = _float_pair(self, other, "logaddexp")
        return in_float32(lambda a: _logaddexp(a, b._cast(a._data.dtype)), a)

    def logaddexp2(self, other):
        """log2(2^a + 2^b) = logaddexp(a ln 2, b ln 2) / ln 2."""
        a, b = _float_pair(self, other, "logaddexp2")
        ln2 = math.log(2)  # (2-byte floats in float32, rounded once, as PyTorch)
        return in_float32(lambda a: _logaddexp(a * ln2, b._cast(a._data.dtype) * ln2) / ln2, a)

    @broadcast_checked
    def hypot(self, other):
        """sqrt(a^2 + b^2) (inf where a or b is infinite);   d/da = a / hypot(a, b)."""
        a, b = _float_pair(self, other, "hypot")
        return MF.Hypot.apply(a, b)

    @broadcast_checked
    def xlogy(self, other):
        """x * log(y), and 0 where x = 0 (even for y = 0 or y = inf; NaN stays NaN);
        d/dx = log y (0 where x = 0 and y <= 0), d/dy = x / y (ops/special_functions.py)."""
        x, y = _float_pair(self, other, "xlogy")
        return SF.Xlogy.apply(x, y, False)

    @quiet_fp
    def logit(self, eps=None):
        """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when ``eps`` is given;
        d/dp = 1 / (p (1 - p)) inside the clamp, 0 outside it (PyTorch's rule). Without eps, p
        outside [0, 1] gives NaN, and so does its gradient (as PyTorch's)."""
        p = float_in(self)
        if eps is not None:  # clamped in p's dtype, as PyTorch: 1 - eps rounded to float16
            p = p.clamp(eps, 1 - eps)
        return in_float32(lambda p: _logit(p, eps is None), p)

    @broadcast_checked
    def xlog1py(self, other):
        """x * log1p(y), and 0 where x = 0 (unless y is NaN)."""
        x, y = _float_pair(self, other, "xlog1py")
        return SF.Xlogy.apply(x, y, True)

    def float_power(self, exponent):
        """self ** exponent computed in float64 (PyTorch's float_power)."""
        e = exponent.double() if isinstance(exponent, TensorBase) else float(exponent)
        return self.double() ** e

    # ----------------------------------------------------------------- max/min that skip NaN
    def fmax(self, other):
        """max(a, b), but a NaN loses to a number (NaN only where both are NaN). At a tie the
        value and the whole gradient are self's (PyTorch's rule; maximum splits it)."""
        return self._fmax_fmin(other, "maximum")

    def fmin(self, other):
        """min(a, b), a NaN losing to a number; at a tie self's value and gradient (as fmax)."""
        return self._fmax_fmin(other, "minimum")

    def _fmax_fmin(self, other, which: str):
        """a where a wins (a >= b for fmax, a <= b for fmin) or b is NaN, else b: the gradient
        goes to the picked side, so all of it to self at a tie (-0 and +0 included)."""
        refuse_sequence("fmax" if which == "maximum" else "fmin", other)
        other = other if isinstance(other, TensorBase) else self._make(_data(other, self), False)
        out = getattr(self, which)(other)
        if out._data.dtype.kind not in FLOAT_KINDS:
            return out
        a, b = self._cast(out._data.dtype), other._cast(out._data.dtype)
        wins = a >= b if which == "maximum" else a <= b
        return a.where(wins | b.isnan(), b)

    # ----------------------------------------------------------------- mantissa and exponent
    def frexp(self):
        """(mantissa, exponent) with self = mantissa * 2^exponent, 0.5 <= |mantissa| < 1;
        the exponent is int32; d mantissa / d self = 2^-exponent (differentiable, as PyTorch's).
        The mantissa is self * 2^-exponent in two exact halves, 2^-(e // 2) then the rest: one
        factor 2^-e overflows for a subnormal self (2^1070 in float64, 2^23 in float16)."""
        if self._data.dtype.kind not in FLOAT_KINDS:
            raise TypeError(f"frexp(): expected a floating-point tensor, got {self.dtype.name}")
        xp = get_array_module(self._data)
        data = self._data
        _, e = xp.frexp(data.astype(xp.float32) if data.dtype.itemsize == 2 else data)
        one = xp.ones_like(data, dtype=xp.float64)
        half = -(e // 2)
        first = self._make(xp.ldexp(one, half).astype(data.dtype), False)
        rest = self._make(xp.ldexp(one, -e - half).astype(data.dtype), False)
        mantissa = self * first * rest
        return Frexp(mantissa, self._make(e.astype(xp.int32), False))

    def ldexp(self, other):
        """self * 2^other (float result);   d/dself = 2^other, d/dother = ln 2 * self * 2^other."""
        refuse_sequence("ldexp", other)
        other = other if isinstance(other, TensorBase) else self._make(_data(other, self), False)
        a, b = _float_pair(self, other, "ldexp")
        if other._data.dtype.kind in "iu":  # an exact scaling (a * exp2(e) overflows 2^e)
            return MF.Ldexp.apply(a, other)
        return a * b.exp2()

    # ----------------------------------------------------------------- angles
    def deg2rad(self):
        return float_in(self) * (math.pi / 180)

    def rad2deg(self):
        return float_in(self) * (180 / math.pi)

    # ----------------------------------------------------------------- special functions
    def erf(self):
        """2 / sqrt(pi) * integral from 0 to x of exp(-t^2) dt (ops/math_functions.py)."""
        return MF.Erf.apply(float_in(self))

    def erfinv(self):
        return MF.Erfinv.apply(float_in(self))

    def lgamma(self):
        """log |Gamma(x)| (ops/special.py, as digamma and polygamma)."""
        return SP.Lgamma.apply(float_in(self))

    def digamma(self):
        """psi(x) = d/dx log Gamma(x)."""
        return SP.Digamma.apply(float_in(self))

    def polygamma(self, n: int):
        """psi^(n)(x), the n-th derivative of digamma (n >= 1; defined here for x > 0)."""
        return SP.polygamma(float_in(self), n)

    def erfc(self):
        return SF.Erfc.apply(float_in(self))

    def i0(self):
        return SF.I0.apply(float_in(self))

    def sinc(self):
        """sin(pi x) / (pi x), 1 at x = 0 (where its derivative is 0)."""
        return in_float32(_sinc, float_in(self))

    def logcumsumexp(self, dim: int):
        """log(cumsum(exp(x))) along ``dim``, without overflow (ops/special_functions.py)."""
        (d,) = norm_dim(dim, self.ndim)
        if self._data.dtype.kind not in FLOAT_KINDS:  # PyTorch has no integer or bool kernel
            name = _dt.scalar_type_name(self.dtype)
            raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for {name!r}')
        x = float_in(self)
        if not self.ndim:  # a 0-d tensor is its own running logsumexp
            return SF.LogCumSumExp.apply(x.reshape(1), 0).reshape(())
        return SF.LogCumSumExp.apply(x, d)

    # ----------------------------------------------------------------- in-place forms
    logical_and_, logical_or_, logical_xor_, logical_not_ = (
        _inplace_form(n) for n in ("logical_and", "logical_or", "logical_xor", "logical_not")
    )
    bitwise_and_, bitwise_or_, bitwise_xor_, bitwise_not_ = (
        _inplace_form(n) for n in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not")
    )
    sgn_, exp2_, logit_, xlogy_, hypot_, copysign_, ldexp_ = (
        _inplace_form(n) for n in ("sgn", "exp2", "logit", "xlogy", "hypot", "copysign", "ldexp")
    )
    heaviside_, deg2rad_, rad2deg_ = (_inplace_form(n) for n in ("heaviside", "deg2rad", "rad2deg"))

    def float_power_(self, exponent):
        """In-place float_power: only a float64 self can hold the float64 result."""
        if self.dtype is not _dt.float64:
            raise RuntimeError(
                f"the base given to float_power_ has dtype {self.dtype.name} but the operation's "
                "result requires dtype float64"
            )
        return self._inplace(lambda x, e: x.float_power(e), exponent)

    erfc_, lgamma_, digamma_, i0_, sinc_ = (
        _inplace_form(n) for n in ("erfc", "lgamma", "digamma", "i0", "sinc")
    )

    # ----------------------------------------------------------------- dtype questions
    def is_complex(self) -> bool:
        return False  # minigenesis has no complex dtypes

    def short(self):
        return self.to(_dt.int16)

    def char(self):
        return self.to(_dt.int8)

    def byte(self):
        return self.to(_dt.uint8)


def _sinc(x: Any) -> Any:
    zero = x == 0
    px = x.where(zero.logical_not(), 1.0) * math.pi
    return (px.sin() / px).where(zero.logical_not(), 1.0)


def _logit(p: Any, nan_outside: bool) -> Any:
    if nan_outside:  # p * (1, or NaN outside [0, 1]): the value is the same, the slope NaN there
        xp = get_array_module(p._data)
        inside = (p._data >= 0) & (p._data <= 1)
        p = p * p._make(xp.where(inside, 1.0, xp.nan).astype(p._data.dtype), False)
    with np.errstate(divide="ignore", invalid="ignore"):  # p = 0 or 1: -inf or inf, quietly
        return p.log() - (-p).log1p()


def _logaddexp(a: Any, b: Any) -> Any:
    m = a.maximum(b)
    with np.errstate(invalid="ignore"):  # inf - inf where both are inf: replaced below
        out = m + (-(a - b).abs()).exp().log1p()
    xp = get_array_module(a._data)
    both_inf = (a._data == b._data) & xp.isinf(a._data)
    # -inf, -inf -> -inf (not nan from inf - inf); inf, inf -> inf. Asked on the CPU only: on
    # the GPU, both_inf.any() would wait for the device, so the where always runs there.
    if xp is not np or both_inf.any():
        out = out.where(a._make(~both_inf, False), a)
    return out
