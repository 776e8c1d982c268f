"""The Tensor's operators and pointwise math: + - * / // % ** @, the comparisons and & | ^ ~,
add / sub / div with ``alpha`` and ``rounding_mode``, exp, log, the trigonometric and hyperbolic
functions, clamp, maximum / minimum, the activations used as methods (relu,
sigmoid, softmax, gelu ...), rounding, isclose / equal / lerp.

Each method is a thin call into an op of ``ops/``. What the methods share is written once
elsewhere: PyTorch's type promotion in ``promotion.py`` (every arithmetic operator goes through
``binary_op``), and the in-place machinery in ``inplace.py``. The Tensor's other methods are
mixins of their own: reductions, scans, sorting and counting in ``tensor_reductions.py``, matrix
products in ``tensor_linalg.py``, the in-place forms (``add_``, ``+=`` ...) in
``tensor_inplace.py``, random fills in ``tensor_random.py``, shapes in ``tensor_shape.py``,
indexing in ``tensor_indexing.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd.tensor_base import TensorBase
from .autograd.vmap_samples import one_bool
from .backend import get_array_module, quiet_fp
from .deprecated_overloads import scalar_first
from .ops import activation as A
from .ops import elementwise as E
from .ops import math_functions as MF
from .ops import matmul as M
from .ops import rounding as RD
from .ops.same_dtype import check_same_dtype
from .promotion import (
    FLOAT_KINDS,
    NOT_MATRICES,
    SEQUENCES,
    alpha_scaled,
    as_tensor_like,
    binary_op,
    compare_operands,
    float_in,
    is_bool,
    is_float,
    need_float,
    refuse_sequence,
    result_type,
    written_int,
)
from .size import broadcast_checked, broadcast_error, norm_dim, plain_int, python_number


def _compare(a: Any, b: Any, fn: Any) -> Any:
    """``fn`` of the arrays of ``a`` and ``b`` in their promoted dtype, outside the graph
    (NotImplemented for a list or tuple ``b``, as PyTorch's operators: ``t == [1]`` is False)."""
    if isinstance(b, SEQUENCES):
        return NotImplemented
    try:
        if isinstance(b, TensorBase) and a._data.dtype == b._data.dtype and a._data.itemsize > 2:
            return a._derived(fn(a._data, b._data), b)  # (NumPy's own never warn)
        return _compare_quietly(a, b, fn)
    except ValueError as err:  # checked only on failure: the shapes do not broadcast
        if "broadcast" not in str(err):
            raise
        shapes = [x.shape for x in (a, b) if hasattr(x, "shape")]
        raise broadcast_error(*shapes) from None


@quiet_fp  # ml_dtypes' bfloat16 comparisons warn on NaN; a cast to float16 may overflow
def _compare_quietly(a: Any, b: Any, fn: Any) -> Any:
    ad, bd = compare_operands(a, b)
    return a._derived(fn(ad, bd), b)  # (a NumPy scalar becomes a 0-d array there)


def _bitwise(a: Any, b: Any, fn: Any, name: str) -> Any:
    """&, |, ^ of bool/integer tensors (PyTorch has no bitwise op on floating-point ones)."""
    if isinstance(b, SEQUENCES):  # refused before any dtype check: Python's TypeError
        return NotImplemented
    b = python_number(b)
    for x in (a, b):
        if is_float(x):
            kind = x.dtype.name if isinstance(x, TensorBase) else "float"
            raise NotImplementedError(
                f"bitwise_{name} is only defined for bool and integer operands, got {kind}"
            )
    return _compare(a, b, fn)


def _rounded_division(mode: Any) -> Any:
    """The op of ``div(rounding_mode=mode)`` (a bad mode is refused with PyTorch's
    RuntimeError and message)."""
    if mode not in ("trunc", "floor"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {mode!r}"
        )
    return RD.DivFloor if mode == "floor" else RD.DivTrunc


def _refuse_bool_sub() -> None:
    raise RuntimeError(  # PyTorch's exception type
        "Subtraction, the `-` operator, with a bool tensor is not supported: to invert a mask "
        "use ~ or logical_not(); for arithmetic convert it first (.int(), .float())"
    )


def _bool_pow(t: Any, exponent: Any) -> Any:
    """PyTorch's rules for a bool tensor base: ** True / ** False stay bool (x and all-True),
    ** int is int64, ** bool tensor is refused; float exponents promote as usual."""
    if exponent.__class__ is bool:
        if exponent:
            return t.clone()
        return t._make(get_array_module(t._data).ones_like(t._data), False)
    if is_bool(exponent):
        raise NotImplementedError("pow of two bool operands is not supported, as in PyTorch")
    if isinstance(exponent, int):
        t = t._cast(np.int64)
        return t**exponent  # (int64's rules: a negative exponent is refused)
    return binary_op(E.Pow, t, exponent)


def _method(operator: Any, name: str) -> Any:
    """The method form of an operator (``t.mul(o)`` of ``t * o``): where the operator returns
    NotImplemented, for a list (or, for @, a number), the method raises PyTorch's TypeError."""

    def method(self, other):
        out = operator(self, other)
        if out is NotImplemented:
            refuse_sequence(name, other, kinds=NOT_MATRICES)  # (only @ refuses numbers)
            # a sparse other: its reflected form (``__rmul__`` of ``__mul__``) computes it
            reflected = getattr(other, "__r" + operator.__name__[2:], None)
            if reflected is not None:
                out = reflected(self)
        return out

    method.__name__ = method.__qualname__ = name
    method.__doc__ = operator.__doc__
    return method


class TensorMath:
    """Mixin of Tensor: the operators and pointwise math, each built on ``self._data`` and ops."""

    __slots__ = ()

    _data: Any

    # ----------------------------------------------------------------------------------- arithmetic
    def __add__(self, other):
        return binary_op(E.Add, self, other)

    def __radd__(self, other):
        return binary_op(E.Add, other, self)

    def __sub__(self, other):
        if self._data.dtype.kind == "b" or is_bool(other):
            _refuse_bool_sub()
        return binary_op(E.Sub, self, other)

    def __rsub__(self, other):
        if self._data.dtype.kind == "b" or is_bool(other):
            _refuse_bool_sub()
        return binary_op(E.Sub, other, self)

    def __mul__(self, other):  # (str, bytes: NotImplemented, Python repeats "ab" by __index__)
        return NotImplemented if isinstance(other, str | bytes) else binary_op(E.Mul, self, other)

    def __rmul__(self, other):
        return NotImplemented if isinstance(other, str | bytes) else binary_op(E.Mul, other, self)

    def __truediv__(self, other):
        # true division of integers gives the default float, unless the other operand already
        # makes the result floating (int / float16 is float16)
        if self._data.dtype.kind in "iub" and not is_float(other):
            return binary_op(E.Div, self.to(_dt.get_default_dtype()), other)
        return binary_op(E.Div, self, other)

    def __rtruediv__(self, other):
        # number / x is other * (1 / x), as PyTorch computes it (Tensor.__rdiv__): its rounding
        # (two roundings, not one), and its graph: reciprocal saves its output, not x, so x may
        # be written in place afterwards. (__mul__, not *: an operand it refuses, a list,
        # gives NotImplemented here too, so Python raises its TypeError for /)
        return self.reciprocal().__mul__(other)

    # //: PyTorch's promotion (as +). floor(x / y) is in the graph, but a backward through it
    # raises, as PyTorch's floor_divide has no derivative (ops/elementwise.py FloorDiv).
    def __floordiv__(self, other):
        return binary_op(E.FloorDiv, self, other)

    def __rfloordiv__(self, other):
        return binary_op(E.FloorDiv, other, self)

    def __mod__(self, other):
        return binary_op(E.Mod, self, other)

    def __rmod__(self, other):
        return binary_op(E.Mod, other, self)

    remainder = _method(__mod__, "remainder")  # x - floor(x / other) * other: other's sign

    def fmod(self, other):
        """x - trunc(x / other) * other (the sign of x)."""
        refuse_sequence("fmod", other)
        return binary_op(E.Fmod, self, other)

    def __pow__(self, other):
        other = python_number(other)
        if self._data.dtype.kind == "b":
            return _bool_pow(self, other)
        if self._data.dtype.kind in "iu" and other.__class__ is int:
            if other < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            if other > np.iinfo(self._data.dtype).max:  # PyTorch's check: no wrapped exponent
                raise RuntimeError(f"value cannot be converted to {self.dtype} without overflow")
        return binary_op(E.Pow, self, other)

    def __rpow__(self, other):
        if self._data.dtype.kind == "b" and other.__class__ is bool:
            raise NotImplementedError("pow of two bool operands is not supported, as in PyTorch")
        return binary_op(E.Pow, other, self)

    def __neg__(self):
        if self._data.dtype == np.bool_:  # PyTorch's RuntimeError (NumPy's is a TypeError)
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                "to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return E.Neg.apply(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    def __matmul__(self, other):  # (a number or a list: Python's TypeError, as PyTorch's)
        if isinstance(other, NOT_MATRICES) or getattr(other, "is_sparse", False):
            return NotImplemented  # (a sparse other computes dense @ sparse: __rmatmul__)
        return M.matmul(self, as_tensor_like(other, self))  # (an ndarray other: as a tensor)

    def __rmatmul__(self, other):  # only a tensor, as PyTorch's (ndarray @ t: numpy_ufuncs.py)
        return M.matmul(other, self) if isinstance(other, TensorBase) else NotImplemented

    def __invert__(self):
        return self._derived(~self._data)

    def __and__(self, other):
        return _bitwise(self, other, lambda a, b: a & b, "and")

    def __or__(self, other):
        return _bitwise(self, other, lambda a, b: a | b, "or")

    def __xor__(self, other):
        return _bitwise(self, other, lambda a, b: a ^ b, "xor")

    # comparisons: boolean results, never differentiable
    def __lt__(self, other):
        return _compare(self, other, lambda a, b: a < b)

    def __le__(self, other):
        return _compare(self, other, lambda a, b: a <= b)

    def __gt__(self, other):
        return _compare(self, other, lambda a, b: a > b)

    def __ge__(self, other):
        return _compare(self, other, lambda a, b: a >= b)

    def __eq__(self, other):  # type: ignore[override]
        return _compare(self, other, lambda a, b: a == b)

    def __ne__(self, other):  # type: ignore[override]
        return _compare(self, other, lambda a, b: a != b)

    eq, ne = _method(__eq__, "eq"), _method(__ne__, "ne")
    lt, le = _method(__lt__, "lt"), _method(__le__, "le")
    gt, ge = _method(__gt__, "gt"), _method(__ge__, "ge")
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

    mul, matmul = _method(__mul__, "mul"), _method(__matmul__, "matmul")

    def div(self, other, *, rounding_mode=None):
        """self / other; ``rounding_mode="floor"`` rounds the quotient down, ``"trunc"``
        towards zero (integer inputs keep their promoted integer dtype; the gradient is 0)."""
        refuse_sequence("div", other)
        if rounding_mode is None:
            return self.__truediv__(other)
        return binary_op(_rounded_division(rounding_mode), self, other)

    def add(self, other, *deprecated, alpha=1):
        """self + alpha * other"""
        other, alpha = scalar_first(other, deprecated, alpha, "add")
        refuse_sequence("add", other)
        return self + alpha_scaled(self, other, alpha)

    def sub(self, other, *deprecated, alpha=1):
        """self - alpha * other"""
        other, alpha = scalar_first(other, deprecated, alpha, "sub")
        refuse_sequence("sub", other)
        if self._data.dtype.kind == "b" or is_bool(other):  # before alpha makes it a number
            _refuse_bool_sub()
        return self - alpha_scaled(self, other, alpha)

    _pow = _method(__pow__, "pow")  # x.pow: tensor_aliases.py (PyTorch's keyword, exponent=)

    # ----------------------------------------------------------------------------------- unary math
    def exp(self):
        return E.Exp.apply(float_in(self))

    def log(self):
        return E.Log.apply(float_in(self))

    def sqrt(self):
        return E.Sqrt.apply(float_in(self))

    # trigonometric, hyperbolic, exp/log variants (ops/math_functions.py)
    def sin(self):
        return MF.Sin.apply(float_in(self))

    def cos(self):
        return MF.Cos.apply(float_in(self))

    def tan(self):
        return MF.Tan.apply(float_in(self))

    def asin(self):
        return MF.Asin.apply(float_in(self))

    def acos(self):
        return MF.Acos.apply(float_in(self))

    def atan(self):
        return MF.Atan.apply(float_in(self))

    @broadcast_checked
    def atan2(self, other):
        """The angle of the point (other, self): atan2(y=self, x=other), in (-pi, pi]."""
        if not isinstance(other, TensorBase):
            raise TypeError(f"atan2: other must be a Tensor, got {type(other).__name__}")
        target = result_type(self, other)
        if target.numpy_dtype.kind not in FLOAT_KINDS:
            target = _dt.get_default_dtype()
        return MF.Atan2.apply(self._cast(target.numpy_dtype), other._cast(target.numpy_dtype))

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2

    def sinh(self):
        return MF.Sinh.apply(float_in(self))

    def cosh(self):
        return MF.Cosh.apply(float_in(self))

    def expm1(self):
        return MF.Expm1.apply(float_in(self))

    def log1p(self):
        return MF.Log1p.apply(float_in(self))

    def log2(self):
        return MF.Log2.apply(float_in(self))

    def log10(self):
        return MF.Log10.apply(float_in(self))

    def reciprocal(self):
        return MF.Reciprocal.apply(float_in(self))

    def rsqrt(self):
        """1 / sqrt(x); a 2-byte float through float32, rounded once at the end (as PyTorch:
        rounding sqrt(x) to float16 first puts a quarter of the results a unit off)."""
        x = float_in(self)
        if x._data.dtype.itemsize == 2:
            return (1 / E.Sqrt.apply(x._cast(np.float32)))._cast(x._data.dtype)
        return 1 / E.Sqrt.apply(x)

    def abs(self):
        if self._data.dtype.kind == "b":
            raise NotImplementedError("abs() of a bool tensor is not supported, as in PyTorch")
        return E.Abs.apply(self)

    def sign(self):
        if self._data.dtype.kind == "b":  # PyTorch: sign of a bool is itself
            return self.clone()
        return E.Sign.apply(self)

    def clamp(self, min=None, max=None):  # noqa: A002 (PyTorch's names)
        if min is None and max is None:
            raise RuntimeError("clamp(): at least one of min and max must not be None")
        refuse_sequence("clamp", min, 1, "min")
        refuse_sequence("clamp", max, 2, "max")
        # a NumPy scalar bound is the Python number it holds (np.int64(2) keeps an int dtype)
        min, max = python_number(min), python_number(max)  # noqa: A001
        # the bounds take part in the type promotion (bool.clamp(2) is int64, int.clamp(0.5)
        # float32), and tensor bounds are cast to the result's dtype
        target = result_type(self, min, max).numpy_dtype
        # an int bound converts to an integer dtype as a written value does (uint8 takes -1 as
        # 255, as PyTorch; int8 refuses 300)
        lo, hi = (
            b._cast(target) if isinstance(b, TensorBase) else written_int(b, target)
            for b in (min, max)
        )
        return E.Clamp.apply(self._cast(target), lo, hi)

    clip = clamp

    def clamp_min(self, min):  # noqa: A002
        """max(self, min) elementwise: clamp with only a lower bound."""
        return self.clamp(min, None)

    def clamp_max(self, max):  # noqa: A002
        """min(self, max) elementwise: clamp with only an upper bound."""
        return self.clamp(None, max)

    def isnan(self):
        return self._derived(get_array_module(self._data).isnan(self._data))

    def isinf(self):
        return self._derived(get_array_module(self._data).isinf(self._data))

    def isfinite(self):
        return self._derived(get_array_module(self._data).isfinite(self._data))

    def maximum(self, other):
        if not isinstance(other, TensorBase):  # PyTorch: a tensor only (clamp takes numbers)
            raise TypeError(
                "maximum(): argument 'other' (position 2) must be Tensor, not "
                f"{type(other).__name__}"
            )
        return binary_op(E.Maximum, self, other)

    def minimum(self, other):
        if not isinstance(other, TensorBase):  # PyTorch: a tensor only (clamp takes numbers)
            raise TypeError(
                "minimum(): argument 'other' (position 2) must be Tensor, not "
                f"{type(other).__name__}"
            )
        return binary_op(E.Minimum, self, other)

    def neg(self):
        return -self

    def square(self):
        """x * x; a bool tensor squares to int64, as ``x ** 2`` does (PyTorch's rule)."""
        if self._data.dtype == np.bool_:
            return self.pow(2)
        return self * self

    negative = neg

    multiply, divide, subtract = mul, div, sub
    true_divide = _method(__truediv__, "true_divide")

    # ------------------------------------------------------------------ activations used as methods
    def relu(self):
        if self._data.dtype.kind == "b":
            raise RuntimeError("relu() of a bool tensor is not supported, as in PyTorch")
        return A.ReLU.apply(self)

    def tanh(self):
        return A.Tanh.apply(float_in(self))

    def sigmoid(self):
        return A.Sigmoid.apply(float_in(self))

    def softmax(self, dim: int = -1, dtype: Any = None):
        x = self if dtype is None else self.to(dtype)  # dtype: cast first, as PyTorch
        need_float(x, "softmax", NotImplementedError)
        return A.Softmax.apply(x, norm_dim(dim, x.ndim)[0])

    def log_softmax(self, dim: int = -1, dtype: Any = None):
        x = self if dtype is None else self.to(dtype)
        need_float(x, "log_softmax", NotImplementedError)
        return A.LogSoftmax.apply(x, norm_dim(dim, x.ndim)[0])

    def gelu(self, approximate: str = "none"):
        return A.GELU.apply(self, approximate)

    def silu(self):
        return A.SiLU.apply(self)

    # ---------------------------------------------------------------------- rounding and comparison
    def floor(self):
        return RD.Floor.apply(self)

    def ceil(self):
        return RD.Ceil.apply(self)

    def trunc(self):
        return RD.Trunc.apply(self)

    fix = trunc

    def round(self, decimals: int = 0):
        """Round halves to even; ``decimals`` digits after the point (negative: before it)."""
        decimals = plain_int(decimals)
        if not isinstance(decimals, int) or isinstance(decimals, bool):
            raise TypeError(f"round(): decimals must be an int, got {type(decimals).__name__}")
        return RD.Round.apply(self, decimals)

    def frac(self):
        """x - trunc(x): the fractional part, with x's sign."""
        need_float(self, "frac", NotImplementedError)
        return RD.Frac.apply(self)

    def nan_to_num(self, nan: float = 0.0, posinf=None, neginf=None):
        """NaN -> ``nan``, +inf -> ``posinf``, -inf -> ``neginf`` (default: the dtype's largest and
        smallest finite values)."""
        return E.NanToNum.apply(self, nan, posinf, neginf)

    def allclose(self, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
        """``isclose`` everywhere, as one Python bool (``other`` a tensor of self's dtype)."""
        if not isinstance(other, TensorBase):
            raise TypeError(
                "allclose(): argument 'other' (position 2) must be Tensor, not "
                f"{type(other).__name__}"
            )
        return one_bool("allclose", self.isclose(other, rtol, atol, equal_nan).all())

    @quiet_fp  # |a - b| of huge opposite values overflows to inf: not close, silently
    @broadcast_checked
    def isclose(self, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
        """|self - other| <= atol + rtol * |other| elementwise (equal infinities are close; NaN is
        close to NaN only with ``equal_nan``). A bool tensor without gradient."""
        if rtol < 0 or atol < 0:
            raise ValueError(f"isclose: rtol and atol must be non-negative, got {rtol}, {atol}")
        refuse_sequence("isclose", other)
        if isinstance(other, TensorBase) and other.dtype is not self.dtype:
            raise RuntimeError(  # PyTorch compares in one dtype and promotes nothing
                f"isclose(): {self.dtype.name} did not match {other.dtype.name}: both tensors "
                "must have the same dtype"
            )
        a = self._data
        b = other._data if isinstance(other, TensorBase) else get_array_module(a).asarray(other)
        if a.dtype.kind == "b" or b.dtype.kind == "b":
            a, b = a.astype(b.dtype) if a.dtype.kind == "b" else a, b
        xp = get_array_module(a)
        if a.dtype.kind in "iu" and b.dtype.kind in "iu":
            return self._derived(integers_close(a, b, rtol, atol), other)
        close = xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
        return self._derived(xp.asarray(close), other)

    def equal(self, other) -> bool:
        """True when ``other`` has this shape and these values (after type promotion)."""
        if not isinstance(other, TensorBase):
            raise TypeError(f"equal: other must be a Tensor, got {type(other).__name__}")
        return self.shape == other.shape and one_bool("equal", (self == other).all())

    def lerp(self, end, weight):
        """self + weight * (end - self); ``weight`` a number or a tensor (all three broadcast).

        As PyTorch's kernel: end - (end - self) * (1 - weight) where |weight| >= 0.5, so that
        weight 1 gives end exactly, and float16 / bfloat16 computed in float32, rounded once."""
        if not isinstance(end, TensorBase):
            raise TypeError(f"lerp(): end must be a Tensor, got {type(end).__name__}")
        weight = python_number(weight)  # (np.uint8(3) is 3)
        # one dtype, as PyTorch's kernel; only a 0-d weight tensor may differ (a scalar to it);
        # checked before the float check, as PyTorch (int lerp float is a dtype mismatch)
        w = weight if isinstance(weight, TensorBase) and weight.ndim > 0 else None
        check_same_dtype("lerp", input=self, end=end, weight=w)
        need_float(self, "lerp", NotImplementedError)
        try:
            return _lerp(self, end, weight)
        except RuntimeError as err:  # name the operands in PyTorch's order: self, end, weight
            if "must match the size" not in str(err):
                raise
            shapes = [x.shape for x in (self, end, weight) if isinstance(x, TensorBase)]
            raise broadcast_error(*shapes) from None


def _lerp(start: Any, end: Any, weight: Any) -> Any:
    """PyTorch's two-sided lerp: start + w (end - start) for |w| < 0.5, else
    end - (end - start)(1 - w); 2-byte floats in float32."""
    dtype = start._data.dtype
    if dtype.itemsize == 2:  # float16, bfloat16: compute in float32, round once
        f32 = np.dtype(np.float32)
        if isinstance(weight, TensorBase):
            weight = weight._cast(f32)
        return _lerp(start._cast(f32), end._cast(f32), weight)._cast(dtype)
    diff = end - start
    if not isinstance(weight, TensorBase):
        return start + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)
    return (start + weight * diff).where(weight.abs() < 0.5, end - diff * (1 - weight))


def integers_close(a: Any, b: Any, rtol: float, atol: float) -> Any:
    """|a - b| <= atol + rtol |b| on integers, exactly (NumPy's isclose compares float64s, so
    2^53 and 2^53 + 1 came out close even with zero tolerances). The tolerance is computed in the
    default float dtype, as PyTorch does; |a - b| is an exact uint64 (PyTorch's own difference
    wraps in the dtype: uint8 5 - 10 is 251), compared with the tolerance rounded down."""
    xp = get_array_module(a)
    close = a == b
    if rtol == 0 and atol == 0:
        return close
    f = _dt.get_default_dtype().numpy_dtype
    with np.errstate(over="ignore"):
        allowed = f.type(atol) + xp.abs(f.type(rtol) * b.astype(f))
    u64 = np.dtype("uint64")
    a, b = a.astype(np.int64).view(u64), b.astype(np.int64).view(u64)
    apart = xp.where(a.view(np.int64) >= b.view(np.int64), a - b, b - a)  # (mod 2^64: exact)
    huge = allowed >= 2.0**64
    floor = xp.floor(xp.where(huge, 0, allowed)).astype(u64)
    return close | huge | (apart <= floor)
