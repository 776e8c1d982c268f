"""The Tensor's math methods: operators, pointwise math, rounding and comparison, matrix
products, reductions and scans, sorting and counting, and their in-place forms.

Each method is a thin call into an op of ``ops/``. What the methods share is written once
elsewhere: PyTorch's type promotion in ``promotion.py`` (every arithmetic operator goes through
``binary_op``), and the in-place machinery in ``inplace.py`` (every ``add_`` and ``+=`` is its
out-of-place op passed to ``self._inplace``). The shape methods are in ``tensor_shape.py``, the
indexing methods in ``tensor_indexing.py``.

Methods that return indices or counts (unique, bincount, isclose) work on arrays and give tensors
without gradient, as in PyTorch.
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from . import dtypes as _dt
from .autocast_policy import LOWER
from .autograd.grad_mode import state
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .deprecated_overloads import scalar_first, value_first
from .ops import activation as A
from .ops import elementwise as E
from .ops import math_functions as MF
from .ops import matmul as M
from .ops import reduce as R
from .ops import rounding as RD
from .ops import sampling as SM
from .ops import shape as S
from .ops import sorting as SO
from .ops import special as SP
from .ops.same_dtype import check_same_dtype
from .promotion import (
    FLOAT_KINDS,
    alpha_scaled,
    as_tensor_like,
    binary_op,
    float_in,
    is_bool,
    is_float,
    result_type,
)
from .random import fill, fill_normal, fill_uniform
from .size import norm_dim

ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def _refuse_empty(t: Any, name: str, axis: tuple | None, all_error: type = RuntimeError) -> None:
    """max, min, argmax... have no identity: PyTorch refuses to reduce an empty dim (or, with
    no dim, an empty tensor), naming the op."""
    if axis is None:
        if t._data.size == 0:
            raise all_error(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                f"Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in axis:
        if t._data.ndim and t._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _compare(a: Any, b: Any, fn: Any) -> Any:
    bd = b._data if isinstance(b, TensorBase) else b
    return TensorBase._make(fn(a._data, bd), False)  # (a NumPy scalar becomes a 0-d array there)


def _bitwise(a: Any, b: Any, fn: Any, name: str) -> Any:
    """&, |, ^ of bool/integer tensors (PyTorch has no bitwise op on floating-point ones)."""
    for x in (a, b):
        if is_float(x):
            kind = x.dtype.name if isinstance(x, TensorBase) else "float"
            raise TypeError(
                f"bitwise_{name} is only defined for bool and integer operands, got {kind}"
            )
    return _compare(a, b, fn)


def _refuse_dims(name: str, dim: Any) -> None:
    """max / min / argmax / argmin reduce along one dim: a tuple or list is PyTorch's TypeError
    (amax / amin take several)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")


def _rounded_division(mode: Any) -> Any:
    """The op of ``div(rounding_mode=mode)`` (a bad mode is refused with PyTorch's message)."""
    if mode not in ("trunc", "floor"):
        raise ValueError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {mode!r}"
        )
    return RD.DivFloor if mode == "floor" else RD.DivTrunc


def _refuse_bool_sub() -> None:
    raise TypeError(
        "subtraction (-) with a bool operand is not supported, as in PyTorch: to invert a mask "
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
        raise TypeError("pow of two bool operands is not supported, as in PyTorch")
    if isinstance(exponent, int):
        t = t._cast(np.int64)
    return binary_op(E.Pow, t, exponent)


def _need_float(t: Any, name: str) -> None:
    """PyTorch's float-only ops (var, std, norm, softmax) refuse bool/integer tensors."""
    if t._data.dtype.kind not in FLOAT_KINDS:
        raise TypeError(
            f"{name}() needs a floating-point tensor, got {t.dtype.name}: call .float() first"
        )


def _check_probabilities(p: Any, name: str) -> None:
    """Bernoulli probabilities (a number or an array) must lie in [0, 1]."""
    xp = get_array_module(p) if hasattr(p, "dtype") else np
    arr = xp.asarray(p, dtype=xp.float64)
    if arr.size and not bool(((arr >= 0) & (arr <= 1)).all()):
        got = p if arr.ndim == 0 else "a tensor with values outside [0, 1]"
        raise RuntimeError(f"{name} expects p to be in [0, 1], but got p={got}")


def _array(x: Any, like: Any) -> Any:
    """A tensor's array, or data made an array of ``like``'s module (no gradient)."""
    return x._data if isinstance(x, TensorBase) else get_array_module(like).asarray(x)


class TensorMath:
    """Mixin of Tensor: every method here builds on ``self._data`` and ops."""

    __slots__ = ()

    _data: Any

    # ------------------------------------------------------------------ arithmetic
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

    def __mul__(self, other):
        return binary_op(E.Mul, self, other)

    def __rmul__(self, other):
        return binary_op(E.Mul, other, self)

    def __truediv__(self, other):
        # true division of integers gives the default float, unless the other operand already
        # makes the result floating (int / float16 is float16)
        if self._data.dtype.kind in "iub" and not is_float(other):
            return binary_op(E.Div, self.to(_dt.get_default_dtype()), other)
        return binary_op(E.Div, self, other)

    def __rtruediv__(self, other):
        if self._data.dtype.kind in "iub" and not is_float(other):
            return binary_op(E.Div, other, self.to(_dt.get_default_dtype()))
        return binary_op(E.Div, other, self)

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

    remainder = __mod__  # x - floor(x / other) * other: the sign of other

    def fmod(self, other):
        """x - trunc(x / other) * other (the sign of x)."""
        return binary_op(E.Fmod, self, other)

    def __pow__(self, other):
        if self._data.dtype.kind == "b":
            return _bool_pow(self, other)
        if self._data.dtype.kind in "iu" and other.__class__ is int and other < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return binary_op(E.Pow, self, other)

    def __rpow__(self, other):
        if self._data.dtype.kind == "b" and other.__class__ is bool:
            raise TypeError("pow of two bool operands is not supported, as in PyTorch")
        return binary_op(E.Pow, other, self)

    def __neg__(self):
        return E.Neg.apply(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    def __matmul__(self, other):
        return M.matmul(self, other)

    def __rmatmul__(self, other):
        return M.matmul(as_tensor_like(other, self), self)

    def __invert__(self):
        return self._make(~self._data, False)

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

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__

    mul, matmul = __mul__, __matmul__

    def div(self, other, *, rounding_mode=None):
        """self / other; ``rounding_mode="floor"`` rounds the quotient down, ``"trunc"``
        towards zero (integer inputs keep their promoted integer dtype; the gradient is 0)."""
        if rounding_mode is None:
            return self.__truediv__(other)
        return binary_op(_rounded_division(rounding_mode), self, other)

    def add(self, other, *deprecated, alpha=1):
        """self + alpha * other"""
        other, alpha = scalar_first(other, deprecated, alpha, "add")
        return self + alpha_scaled(self, other, alpha)

    def sub(self, other, *deprecated, alpha=1):
        """self - alpha * other"""
        other, alpha = scalar_first(other, deprecated, alpha, "sub")
        return self - alpha_scaled(self, other, alpha)

    pow = __pow__

    # ------------------------------------------------------------------ unary math
    def exp(self):
        return E.Exp.apply(float_in(self))

    def log(self):
        return E.Log.apply(float_in(self))

    def sqrt(self):
        return E.Sqrt.apply(float_in(self))

    # trigonometric, hyperbolic, exp/log variants, erf (ops/math_functions.py)

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

    def erf(self):
        return MF.Erf.apply(float_in(self))

    def erfinv(self):
        return MF.Erfinv.apply(float_in(self))

    def lgamma(self):
        """log |Gamma(x)|."""
        return SP.Lgamma.apply(float_in(self))

    def digamma(self):
        """psi(x) = d/dx log Gamma(x)."""
        return SP.Digamma.apply(float_in(self))

    def polygamma(self, n: int):
        """psi^(n)(x), the n-th derivative of digamma (n >= 1; defined here for x > 0)."""
        return SP.polygamma(float_in(self), n)

    def rsqrt(self):
        return 1 / E.Sqrt.apply(float_in(self))

    def abs(self):
        if self._data.dtype.kind == "b":
            raise TypeError("abs() of a bool tensor is not supported, as in PyTorch")
        return E.Abs.apply(self)

    def sign(self):
        if self._data.dtype.kind == "b":  # PyTorch: sign of a bool is itself
            return self.clone()
        return E.Sign.apply(self)

    def clamp(self, min=None, max=None):  # noqa: A002 (PyTorch's names)
        if min is None and max is None:
            raise ValueError("clamp() needs at least one of min and max")
        # the bounds take part in the type promotion (bool.clamp(2) is int64, int.clamp(0.5)
        # float32), and tensor bounds are cast to the result's dtype
        target = result_type(self, min, max).numpy_dtype
        lo, hi = (b._cast(target) if isinstance(b, TensorBase) else b for b in (min, max))
        return E.Clamp.apply(self._cast(target), lo, hi)

    clip = clamp

    def clamp_min(self, min):  # noqa: A002
        """max(self, min) elementwise: clamp with only a lower bound."""
        return self.clamp(min, None)

    def clamp_max(self, max):  # noqa: A002
        """min(self, max) elementwise: clamp with only an upper bound."""
        return self.clamp(None, max)

    def relu(self):
        if self._data.dtype.kind == "b":
            raise TypeError("relu() of a bool tensor is not supported, as in PyTorch")
        return A.ReLU.apply(self)

    def tanh(self):
        return A.Tanh.apply(float_in(self))

    def sigmoid(self):
        return A.Sigmoid.apply(float_in(self))

    def softmax(self, dim: int = -1):
        _need_float(self, "softmax")
        return A.Softmax.apply(self, norm_dim(dim, self.ndim)[0])

    def log_softmax(self, dim: int = -1):
        _need_float(self, "log_softmax")
        return A.LogSoftmax.apply(self, norm_dim(dim, self.ndim)[0])

    def isnan(self):
        return self._make(get_array_module(self._data).isnan(self._data), False)

    def isinf(self):
        return self._make(get_array_module(self._data).isinf(self._data), False)

    def isfinite(self):
        return self._make(get_array_module(self._data).isfinite(self._data), False)

    def maximum(self, other):
        return binary_op(E.Maximum, self, other)

    def minimum(self, other):
        return binary_op(E.Minimum, self, other)

    def neg(self):
        return -self

    def square(self):
        """x * x; a bool tensor squares to int64, as ``x ** 2`` does (PyTorch's rule)."""
        if self._data.dtype == np.bool_:
            return self.pow(2)
        return self * self

    negative = neg

    multiply, divide, true_divide, subtract = __mul__, div, __truediv__, sub

    # ------------------------------------------------------------------ rounding and comparison
    def floor(self):
        return RD.Floor.apply(self)

    def ceil(self):
        return RD.Ceil.apply(self)

    def trunc(self):
        return RD.Trunc.apply(self)

    fix = trunc

    def round(self, decimals: int = 0):
        """Round halves to even; ``decimals`` digits after the point (negative: before it)."""
        if not isinstance(decimals, int) or isinstance(decimals, bool):
            raise TypeError(f"round(): decimals must be an int, got {type(decimals).__name__}")
        return RD.Round.apply(self, decimals)

    def frac(self):
        """x - trunc(x): the fractional part, with x's sign."""
        _need_float(self, "frac")
        return RD.Frac.apply(self)

    def nan_to_num(self, nan: float = 0.0, posinf=None, neginf=None):
        """NaN -> ``nan``, +inf -> ``posinf``, -inf -> ``neginf`` (default: the dtype's largest and
        smallest finite values)."""
        return E.NanToNum.apply(self, nan, posinf, neginf)

    def isclose(self, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
        """|self - other| <= atol + rtol * |other| elementwise (equal infinities are close; NaN is
        close to NaN only with ``equal_nan``). A bool tensor without gradient."""
        if rtol < 0 or atol < 0:
            raise ValueError(f"isclose: rtol and atol must be non-negative, got {rtol}, {atol}")
        if isinstance(other, TensorBase) and other.dtype is not self.dtype:
            raise RuntimeError(  # PyTorch compares in one dtype and promotes nothing
                f"isclose(): {self.dtype.name} did not match {other.dtype.name}: both tensors "
                "must have the same dtype"
            )
        a, b = self._data, _array(other, self._data)
        if a.dtype.kind == "b" or b.dtype.kind == "b":
            a, b = a.astype(b.dtype) if a.dtype.kind == "b" else a, b
        xp = get_array_module(a)
        close = xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
        return self._make(xp.asarray(close), False)

    def equal(self, other) -> bool:
        """True when ``other`` has this shape and these values (after type promotion)."""
        if not isinstance(other, TensorBase):
            raise TypeError(f"equal: other must be a Tensor, got {type(other).__name__}")
        return self.shape == other.shape and bool((self == other).all())

    def lerp(self, end, weight):
        """self + weight * (end - self); ``weight`` a number or a tensor (all three broadcast)."""
        if not isinstance(end, TensorBase):
            raise TypeError(f"lerp(): end must be a Tensor, got {type(end).__name__}")
        _need_float(self, "lerp")
        # one dtype, as PyTorch's kernel; only a 0-d weight tensor may differ (a scalar to it)
        w = weight if isinstance(weight, TensorBase) and weight.ndim > 0 else None
        check_same_dtype("lerp", input=self, end=end, weight=w)
        return self + weight * (end - self)

    # -- matrix products with PyTorch's shape checks (all of them matmul underneath)
    def mm(self, mat2):
        """The matrix product of two 2-D tensors (``self @ mat2`` without broadcasting)."""
        if self.ndim != 2:
            raise RuntimeError(f"self must be a matrix (mm needs 2-D tensors), got {self.ndim}-D")
        if mat2.ndim != 2:
            raise RuntimeError(f"mat2 must be a matrix (mm needs 2-D tensors), got {mat2.ndim}-D")
        if self.shape[1] != mat2.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x{self.shape[1]} and "
                f"{mat2.shape[0]}x{mat2.shape[1]})"
            )
        return M.matmul(self, mat2, "mm")

    def bmm(self, mat2):
        """Batched matrix product of two 3-D tensors: (b, n, m) @ (b, m, p) -> (b, n, p)."""
        if self.ndim != 3:
            raise RuntimeError(f"batch1 must be a 3D tensor, got {self.ndim}-D")
        if mat2.ndim != 3:
            raise RuntimeError(f"batch2 must be a 3D tensor, got {mat2.ndim}-D")
        if self.shape[0] != mat2.shape[0]:
            raise RuntimeError(
                f"bmm: batch sizes differ: {self.shape[0]} and {mat2.shape[0]} (no broadcasting)"
            )
        return M.matmul(self, mat2, "bmm")

    def dot(self, other):
        """The inner product of two 1-D tensors of the same length."""
        if self.ndim != 1 or other.ndim != 1:
            raise RuntimeError(
                f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors"
            )
        return M.matmul(self, other, "dot")

    def mv(self, vec):
        """Matrix (n, m) times vector (m,) -> (n,)."""
        if self.ndim != 2 or vec.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
        return M.matmul(self, vec, "mv")

    def outer(self, vec2):
        """out[i][j] = x[i] * vec2[j] for two 1-d tensors."""
        if self.ndim != 1 or vec2.ndim != 1:
            raise RuntimeError(
                f"outer: expected two 1-d tensors, got {self.ndim} and {vec2.ndim} dims"
            )
        return self.reshape(-1, 1) * vec2.reshape(1, -1)

    ger = outer

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * x + alpha * (mat1 @ mat2); with beta = 0, x is ignored (its NaNs too)."""
        if mat1.ndim != 2 or mat2.ndim != 2:
            raise RuntimeError(
                f"addmm: mat1 and mat2 must be matrices, got {mat1.ndim} and {mat2.ndim} dims"
            )
        check_same_dtype("addmm", LOWER, self=self, mat1=mat1, mat2=mat2)
        return _add_scaled(self, mat1.mm(mat2), beta, alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * x + alpha * bmm(batch1, batch2); with beta = 0, x is ignored (its NaNs too)."""
        if batch1.ndim != 3 or batch2.ndim != 3:
            raise RuntimeError(
                f"baddbmm: batch1 and batch2 must be 3-d, got {batch1.ndim} and {batch2.ndim} dims"
            )
        check_same_dtype("baddbmm", LOWER, self=self, batch1=batch1, batch2=batch2)
        return _add_scaled(self, batch1.bmm(batch2), beta, alpha)

    def diag(self, diagonal: int = 0):
        """1-d v: the square matrix with v on diagonal ``diagonal``; 2-d x: that diagonal of x."""
        k = diagonal
        xp = get_array_module(self._data)
        if self.ndim == 1:
            n = self.shape[0] + abs(k)
            rows = xp.arange(self.shape[0]) + max(-k, 0)
            out = type(self)._make(xp.zeros((n, n), dtype=self._data.dtype), False)
            where = (type(self)._make(rows, False), type(self)._make(rows + k, False))
            out[where] = self  # a tracked write: the gradient reads the diagonal back
            return out
        if self.ndim == 2:
            r, c = self.shape
            m = max(0, min(r + min(k, 0), c - max(k, 0)))
            rows = xp.arange(m) + max(-k, 0)
            return self[type(self)._make(rows, False), type(self)._make(rows + k, False)]
        raise RuntimeError(f"diag: expected a 1-d or 2-d tensor, got {self.ndim} dims")

    def trace(self):
        """The sum of the main diagonal of a 2-d tensor."""
        if self.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix (2 dims), got {self.ndim} dims")
        return self.diag().sum()

    # ------------------------------------------------------------------ reductions
    def sum(self, dim=None, keepdim: bool = False, dtype=None, *, axis=None, keepdims=None):
        dim, keepdim = _numpy_spelling(dim, keepdim, axis, keepdims)
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64  # as PyTorch: bool and integer sums accumulate in int64
        x = _accumulate_in(self, dtype)
        return R.Sum.apply(x, norm_dim(dim, self.ndim), keepdim)

    def mean(self, dim=None, keepdim: bool = False, dtype=None, *, axis=None, keepdims=None):
        dim, keepdim = _numpy_spelling(dim, keepdim, axis, keepdims)
        x = self if dtype is None else self.to(dtype)
        if x._data.dtype.kind not in FLOAT_KINDS:  # RuntimeError, as PyTorch
            raise RuntimeError(
                f"mean(): could not infer output dtype: it needs a floating-point tensor, got "
                f"{x.dtype.name}: call .float() first or pass a floating dtype="
            )
        return R.Mean.apply(x, norm_dim(dim, self.ndim), keepdim)

    def var(self, dim=None, unbiased=None, keepdim: bool = False, correction=None):
        _need_float(self, "var/std")
        if correction is None:
            correction = 1 if unbiased is None or unbiased else 0
        return R.Var.apply(self, norm_dim(dim, self.ndim), correction, keepdim)

    def std(self, dim=None, unbiased=None, keepdim: bool = False, correction=None):
        return R.StdSqrt.apply(self.var(dim, unbiased, keepdim, correction))

    def _extreme(self, dim, keepdim, all_op, dim_op):
        name = "max" if all_op is R.MaxAll else "min"
        if dim is None:
            _refuse_empty(self, name, None)
            return all_op.apply(self)
        if isinstance(dim, TensorBase):  # max(other): the elementwise form
            return binary_op(E.Maximum if all_op is R.MaxAll else E.Minimum, self, dim)
        _refuse_dims(name, dim)
        d = norm_dim(dim, self.ndim)[0]
        _refuse_empty(self, name, (d,))
        if self.ndim == 0:  # the value itself, as a new tensor (not self: writes must not alias)
            xp = get_array_module(self._data)
            return ValuesIndices(S.Clone.apply(self), self._make(xp.zeros((), xp.int64), False))
        return ValuesIndices(*dim_op.apply(self, d, keepdim))

    def max(self, dim=None, keepdim: bool = False):
        """max() -> the largest element;  max(dim) -> (values, indices);  max(other) -> maximum."""
        return self._extreme(dim, keepdim, R.MaxAll, R.MaxDim)

    def min(self, dim=None, keepdim: bool = False):
        return self._extreme(dim, keepdim, R.MinAll, R.MinDim)

    def amax(self, dim=None, keepdim: bool = False):
        return self._amax_amin(dim, keepdim, R.AMax)

    def amin(self, dim=None, keepdim: bool = False):
        return self._amax_amin(dim, keepdim, R.AMin)

    def _amax_amin(self, dim, keepdim, op):
        axis = norm_dim(dim, self.ndim)
        _refuse_empty(self, "amax" if op is R.AMax else "amin", axis or None)
        # None or (): every dim, as PyTorch; still amax's gradient (shared by the elements equal
        # to the result, NaN everywhere for a NaN result), not max()'s
        if not axis or not self.ndim:
            axis = None
        return op.apply(self, axis, keepdim)

    def argmax(self, dim=None, keepdim: bool = False):
        return self._arg_extreme("argmax", dim, keepdim)

    def argmin(self, dim=None, keepdim: bool = False):
        return self._arg_extreme("argmin", dim, keepdim)

    def _arg_extreme(self, name: str, dim, keepdim: bool):
        """argmax / argmin: the (first) index of the extreme, over all elements or along ``dim``."""
        if self._data.dtype.kind == "b":
            raise TypeError(f"{name}() of a bool tensor is not supported, as in PyTorch")
        xp = get_array_module(self._data)
        fn = getattr(xp, name)
        if dim is None:
            _refuse_empty(self, name, None, IndexError)
            flat = xp.asarray(fn(self._data))  # keepdim: every dim kept as size 1
            return self._make(flat.reshape((1,) * self.ndim) if keepdim else flat, False)
        _refuse_dims(name, dim)
        d = norm_dim(dim, self.ndim)[0]
        _refuse_empty(self, name, (d,))
        if self.ndim == 0:  # NumPy has no axis 0 here; PyTorch's answer is index 0
            return self._make(xp.zeros((), xp.int64), False)
        return self._make(fn(self._data, axis=d, keepdims=keepdim), False)

    def cumsum(self, dim: int, dtype=None):
        """y_i = x_0 + ... + x_i along ``dim`` (bool and integers accumulate in int64)."""
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = _accumulate_in(self, dtype)
        d = norm_dim(dim, self.ndim)[0]
        if self.ndim == 0:  # NumPy has no axis 0 here: the running sum of one value is itself
            return R.CumSum.apply(x.reshape(1), 0).reshape(())
        return R.CumSum.apply(x, d)

    def cumprod(self, dim: int, dtype=None):
        """y_i = x_0 * ... * x_i along ``dim`` (bool and integers accumulate in int64)."""
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = _accumulate_in(self, dtype)
        d = norm_dim(dim, max(self.ndim, 1))[0]
        if self.ndim == 0:
            return R.Cumprod.apply(x.reshape(1), 0).reshape(())
        return R.Cumprod.apply(x, d)

    def cummax(self, dim: int):
        """(values, indices) of the running maximum along ``dim``: values_i = max_{j <= i} x_j,
        indices_i the last j where it was reached (a NaN stays the maximum once seen)."""
        return self._cum_extreme(dim, R.CumMax)

    def cummin(self, dim: int):
        """(values, indices) of the running minimum along ``dim`` (as cummax)."""
        return self._cum_extreme(dim, R.CumMin)

    def _cum_extreme(self, dim: int, op):
        d = norm_dim(dim, max(self.ndim, 1))[0]
        if self.ndim == 0:
            values, indices = op.apply(self.reshape(1), 0)
            return ValuesIndices(values.reshape(()), indices.reshape(()))
        return ValuesIndices(*op.apply(self, d))

    def prod(self, dim=None, keepdim: bool = False, dtype=None):
        """The product of the elements (over one ``dim``, or all); 1 for an empty reduction."""
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = _accumulate_in(self, dtype)
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"prod: dim must be an int (one dim) or None, got {dim!r}")
        axis = None if dim is None or self.ndim == 0 else norm_dim(dim, self.ndim)[0]
        if dim is not None and self.ndim == 0:
            norm_dim(dim, 0)  # range check only
        return R.Prod.apply(x, axis, keepdim)

    def logsumexp(self, dim=None, keepdim: bool = False):
        return R.LogSumExp.apply(float_in(self), norm_dim(dim, self.ndim), keepdim)

    def norm(self, p="fro", dim=None, keepdim: bool = False):
        """The p-norm (sum |x|^p)^(1/p); p=inf is max |x|; "fro" and 2 are the Euclidean norm."""
        _need_float(self, "norm")
        if p == "nuc":  # the sum of the singular values (tensor_composites.py)
            return self._nuclear_norm(dim, keepdim)
        if p == "fro":
            p = 2
        axis = norm_dim(dim, self.ndim) if self.ndim else None
        if p in (float("inf"), "inf", float("-inf"), "-inf"):
            # max |x| (min |x|), ties share the gradient; max has no identity, so an empty
            # reduction is refused, as in PyTorch
            empty = self.numel() == 0 if axis is None else any(self.shape[d] == 0 for d in axis)
            if empty:
                where = "an empty tensor" if axis is None else f"the dims {axis}"
                raise RuntimeError(f"norm cannot compute the {p} norm on {where} (no identity)")
            a = self.abs()
            return a.amax(dim, keepdim) if p in (float("inf"), "inf") else a.amin(dim, keepdim)
        if p == 0:
            return R.CountNonzero.apply(self, axis, keepdim)
        return R.PNorm.apply(self, float(p), axis, keepdim)

    def any(self, dim=None, keepdim: bool = False):
        return self._any_all("any", dim, keepdim)

    def all(self, dim=None, keepdim: bool = False):
        return self._any_all("all", dim, keepdim)

    def _any_all(self, name: str, dim, keepdim: bool):
        d = norm_dim(dim, self.ndim)
        if not self.ndim:  # a 0-d tensor's dim 0 (or -1) is the tensor itself
            d = None
        out = getattr(self._data, name)(axis=d, keepdims=keepdim)
        return self._make(get_array_module(self._data).asarray(out), False)

    def sum_to_shape(self, shape: tuple):
        """Sum broadcast dims away until the shape is ``shape`` (the inverse of expand)."""
        if tuple(self._data.shape) == tuple(shape):
            return self
        return S.SumTo.apply(self, tuple(shape))

    # ------------------------------------------------------------ sorting, sampling and counting
    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        """(values, indices) sorted along ``dim`` (always stable; NaN sorts as the largest)."""
        return ValuesIndices(*SO.sort(self, dim, descending))

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        return SO.sort(self, dim, descending)[1]

    def topk(self, k: int, dim=None, largest: bool = True, sorted: bool = True):  # noqa: A002
        """(values, indices) of the k largest (smallest) entries along ``dim`` (last by
        default), always in sorted order (a valid answer for sorted=False too)."""
        return ValuesIndices(*SO.topk(self, k, -1 if dim is None else dim, largest))

    def tril(self, diagonal: int = 0):
        """Zero the elements above the ``diagonal``-th diagonal of the last two dims."""
        return SO.triangle(self, diagonal, upper=False)

    def triu(self, diagonal: int = 0):
        """Zero the elements below the ``diagonal``-th diagonal of the last two dims."""
        return SO.triangle(self, diagonal, upper=True)

    def multinomial(self, num_samples: int, replacement: bool = False, *, generator=None):
        return SO.multinomial(self, num_samples, replacement, generator)

    def unique(
        self,
        sorted: bool = True,  # noqa: A002
        return_inverse: bool = False,
        return_counts: bool = False,
        dim=None,
    ):
        """The distinct elements, sorted (always: ``sorted=False`` is allowed to sort too), and
        optionally the index of each element in them (shaped like self) and their counts.

        With ``dim``, the distinct slices along ``dim`` (sorted lexicographically, as PyTorch);
        the inverse then has one entry per slice: x == values.index_select(dim, inverse)."""
        xp = get_array_module(self._data)
        data = self._data
        if dim is None:
            data, axis = data.reshape(-1), None
        else:
            if self.ndim == 0:
                raise IndexError(f"unique: dim {dim} is out of range for a 0-d tensor")
            axis = norm_dim(dim, self.ndim)[0]
        low = data.dtype.kind == "V"  # bfloat16: NumPy's sort needs a native float
        values, inverse, counts = xp.unique(
            data.astype(xp.float32) if low else data,
            return_inverse=True,
            return_counts=True,
            axis=axis,
        )
        out = [self._make(values.astype(data.dtype, copy=False), False)]
        if return_inverse:
            shape = self.shape if dim is None else (self.shape[axis],)
            out.append(self._make(inverse.reshape(shape).astype(xp.int64), False))
        if return_counts:
            out.append(self._make(counts.astype(xp.int64), False))
        return out[0] if len(out) == 1 else tuple(out)

    def histc(self, bins: int = 100, min: float = 0, max: float = 0):  # noqa: A002
        """A histogram of ``bins`` equal-width bins over [min, max] (the last bin includes max;
        values outside are not counted). With min == max (the default) the data's own range is
        used, widened by 1 on each side when all values are equal. No gradient, as in PyTorch."""
        if not isinstance(bins, int) or isinstance(bins, bool) or bins <= 0:
            raise RuntimeError(f"histc: bins must be a positive int, got {bins!r}")
        if self._data.dtype.kind not in FLOAT_KINDS:
            raise RuntimeError(f"histc: input must be a floating-point tensor, got {self.dtype}")
        lo, hi = float(min), float(max)
        if lo > hi:
            raise RuntimeError(f"histc: max must be larger than min, got min={lo}, max={hi}")
        xp = get_array_module(self._data)
        data = self._data.reshape(-1).astype(xp.float64)
        if lo == hi and data.size:
            lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"histc: range of [{lo}, {hi}] is not finite")
        counts, _ = xp.histogram(data[~xp.isnan(data)], bins=bins, range=(lo, hi))
        return self._make(counts.astype(self._data.dtype), False)

    def bincount(self, weights=None, minlength: int = 0):
        """How often each value 0, 1, ..., max occurs in a 1-D non-negative integer tensor (or the
        sum of ``weights`` per value); at least ``minlength`` bins."""
        data = self._data
        if data.ndim != 1 or data.dtype.kind not in "biu":
            raise RuntimeError(
                f"bincount only supports 1-d non-negative integral inputs, got a {data.ndim}-d "
                f"{self.dtype.name} tensor"
            )
        if minlength < 0:
            raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
        xp = get_array_module(data)
        if data.size and int(data.min()) < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs")
        if weights is None:
            return self._make(xp.bincount(data, minlength=minlength).astype(xp.int64), False)
        w = _array(weights, data)
        if w.shape != data.shape:
            raise RuntimeError(
                f"bincount: weights should be 1-d and have the same length as input, got "
                f"{tuple(w.shape)} for {tuple(data.shape)}"
            )
        # float32 weights give float32 counts; any other dtype float64, as in PyTorch
        dtype = w.dtype if w.dtype in (xp.float32, xp.float64) else xp.float64
        counts = xp.bincount(data, weights=w.astype(xp.float64), minlength=minlength)
        return self._make(counts.astype(dtype), False)

    # ------------------------------------------------------------------ activations used as methods
    def gelu(self, approximate: str = "none"):
        return A.GELU.apply(self, approximate)

    def silu(self):
        return A.SiLU.apply(self)

    # ------------------------------------------------------------------ in-place updates
    def add_(self, other, *deprecated, alpha=1):
        other, alpha = scalar_first(other, deprecated, alpha, "add_")
        return self._inplace(lambda x, o: x + o * alpha if alpha != 1 else x + o, other)

    def sub_(self, other, *deprecated, alpha=1):
        other, alpha = scalar_first(other, deprecated, alpha, "sub_")
        return self._inplace(lambda x, o: x - o * alpha if alpha != 1 else x - o, other)

    def mul_(self, other):
        return self._inplace(lambda x, o: x * o, other)

    def div_(self, other, *, rounding_mode=None):
        return self._inplace(lambda x, o: x.div(o, rounding_mode=rounding_mode), other)

    def pow_(self, exponent):
        return self._inplace(lambda x, o: x**o, exponent)

    # Augmented assignment is the in-place op, as in PyTorch (``p -= lr * p.grad`` changes p).
    # Without these Python falls back to ``p = p - lr * p.grad``: the name is rebound and the
    # parameter never changes. There is no ``__imatmul__``, as in PyTorch: ``a @= b`` rebinds a.

    __iadd__, __isub__, __imul__, __itruediv__, __ipow__ = add_, sub_, mul_, div_, pow_

    def __ifloordiv__(self, other):
        return self._inplace(lambda x, o: x // o, other)

    def __imod__(self, other):
        return self._inplace(lambda x, o: x % o, other)

    def __iand__(self, other):
        return self._inplace(lambda x, o: x & o, other)

    def __ior__(self, other):
        return self._inplace(lambda x, o: x | o, other)

    def __ixor__(self, other):
        return self._inplace(lambda x, o: x ^ o, other)

    def sin_(self):
        return self._inplace(lambda x: x.sin())

    def cos_(self):
        return self._inplace(lambda x: x.cos())

    def floor_(self):
        return self._inplace(lambda x: x.floor())

    def ceil_(self):
        return self._inplace(lambda x: x.ceil())

    def trunc_(self):
        return self._inplace(lambda x: x.trunc())

    fix_ = trunc_

    def round_(self, decimals: int = 0):
        return self._inplace(lambda x: x.round(decimals))

    def frac_(self):
        return self._inplace(lambda x: x.frac())

    def abs_(self):
        return self._inplace(lambda x: x.abs())

    def sign_(self):
        return self._inplace(lambda x: x.sign())

    def exp_(self):
        return self._inplace(lambda x: x.exp())

    def sqrt_(self):
        return self._inplace(lambda x: x.sqrt())

    def nan_to_num_(self, nan: float = 0.0, posinf=None, neginf=None):
        return self._inplace(lambda x: x.nan_to_num(nan, posinf, neginf))

    def clamp_(self, min=None, max=None):  # noqa: A002
        return self._inplace(lambda x: x.clamp(min, max))

    clip_ = clamp_

    def clamp_min_(self, min):  # noqa: A002
        return self._inplace(lambda x: x.clamp(min, None))

    def clamp_max_(self, max):  # noqa: A002
        return self._inplace(lambda x: x.clamp(None, max))

    def addcmul_(self, tensor1, tensor2, *deprecated, value=1):
        """self += value * tensor1 * tensor2"""
        tensor1, tensor2, value = value_first(tensor1, tensor2, deprecated, value, "addcmul_")
        return self._addc(lambda a, b: a * b, tensor1, tensor2, value)

    def addcdiv_(self, tensor1, tensor2, *deprecated, value=1):
        """self += value * tensor1 / tensor2"""
        tensor1, tensor2, value = value_first(tensor1, tensor2, deprecated, value, "addcdiv_")
        return self._addc(lambda a, b: a / b, tensor1, tensor2, value)

    def _addc(self, op, tensor1, tensor2, value):
        def update(x, a, b):
            # the product (quotient) is taken in the result's dtype, as PyTorch: two bfloat16
            # operands added into a float32 tensor are not rounded to bfloat16 first
            target = result_type(x, a, b).numpy_dtype
            a, b = (t._cast(target) if isinstance(t, TensorBase) else t for t in (a, b))
            return x + op(a, b) * value

        return self._inplace(update, tensor1, tensor2)

    def lerp_(self, end, weight):
        """self += weight * (end - self)"""
        return self._inplace(lambda x, e: x + (e - x) * weight, end)

    def cumprod_(self, dim: int):
        return self._inplace(lambda x: x.cumprod(dim))

    def tril_(self, diagonal: int = 0):
        return self._inplace(lambda x: x.tril(diagonal))

    def triu_(self, diagonal: int = 0):
        return self._inplace(lambda x: x.triu(diagonal))

    def copy_(self, src):
        """Copy src's values (broadcast, cast, moved across devices) into self."""
        if not isinstance(src, TensorBase):
            src = TensorBase._make(get_array_module(self._data).asarray(src), False)
        # the gradient flows to src, and the old self's history gets a zero gradient (PyTorch's
        # copy_ backward), not none

        def copy(x, s):
            return E.CopyInto.apply(x, s.to(x.device)._cast(x._data.dtype))

        return self._inplace(copy, src)

    def zero_(self):
        return self.fill_(0)

    def fill_(self, value):
        """Every element becomes ``value`` (a number or a 0-d tensor). In a graph the old value's
        gradient is 0 (a copy_ of the constant), and a tensor value gets the summed gradient
        (copy_'s rule)."""
        self._check_can_write_inplace()
        if isinstance(value, TensorBase):
            if value.ndim:
                raise RuntimeError(
                    f"fill_ only supports a 0-dim value tensor, got one of shape {value.shape}"
                )
            if state.grad_enabled and (self.requires_grad or value.requires_grad):
                return self.copy_(value)
            value = value.item()
        # A computed tensor takes the fill's graph node, so its old history gets no gradient;
        # anything else (no graph to keep) is written directly.
        if state.grad_enabled and self.grad_fn is not None:
            filled = get_array_module(self._data).asarray(value)  # a constant: no gradient
            return self._inplace(lambda x: E.CopyInto.apply(x, filled))
        self._data[...] = value
        self._bump_version()
        return self

    def normal_(self, mean: float = 0.0, std: float = 1.0, generator=None):
        self._check_can_write_inplace()
        fill_normal(self, mean, std, generator)
        return self

    def uniform_(self, a: float = 0.0, b: float = 1.0, generator=None):
        self._check_can_write_inplace()
        fill_uniform(self, a, b, generator)
        return self

    # -- the other in-place draws: each checks its parameters as PyTorch does, then fills self
    def bernoulli_(self, p=0.5, *, generator=None):
        """Every element 1 with probability p (a number, or a tensor of probabilities that
        broadcasts to self), else 0."""
        probs = p._data if isinstance(p, TensorBase) else p
        _check_probabilities(probs, "bernoulli_")
        self._check_can_write_inplace()
        if isinstance(p, TensorBase):
            probs = get_array_module(self._data).broadcast_to(probs, self.shape)
        fill(self, "bernoulli", probs, generator=generator)
        return self

    def bernoulli(self, p=None, *, generator=None):
        """A new tensor of 0/1 draws shaped like self: 1 with probability self (elementwise), or
        with probability p (a number) when given. Self's gradient is 0, as in PyTorch."""
        if p is not None:
            out = self._make(get_array_module(self._data).empty_like(self._data), False)
            return out.bernoulli_(p, generator=generator)
        _need_float(self, "bernoulli")
        _check_probabilities(self._data, "bernoulli")
        return SM.bernoulli(self, generator)

    def exponential_(self, lambd: float = 1.0, *, generator=None):
        """Samples of Exp(lambd): density lambd * exp(-lambd * x) on x >= 0 (mean 1/lambd)."""
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
        return self._fill_float("exponential_", "exponential", generator, lambd)

    def geometric_(self, p: float, *, generator=None):
        """The number of Bernoulli(p) trials up to and including the first success (1, 2, ...):
        P(k) = (1 - p)^(k - 1) p."""
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
        self._check_can_write_inplace()
        fill(self, "geometric", p, generator=generator)
        return self

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator=None):
        """exp(N(mean, std^2)): samples whose logarithm is normal with this mean and std."""
        if not std > 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
        return self._fill_float("log_normal_", "log_normal", generator, mean, std)

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator=None):
        """Cauchy samples: density 1 / (pi sigma (1 + ((x - median) / sigma)^2))."""
        if not sigma > 0:
            raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
        return self._fill_float("cauchy_", "cauchy", generator, median, sigma)

    def random_(self, from_=0, to=None, *, generator=None):
        """Integers drawn uniformly from [from_, to - 1]; random_(to) draws from [0, to - 1].
        Without ``to``: up to the dtype's largest integer (for floats, 2^mantissa bits, so that
        every value is exact)."""
        if to is None and from_ != 0:
            from_, to = 0, from_
        if to is None:
            dt = self._data.dtype
            digits = {2: 11, 4: 24, 8: 53}[dt.itemsize] if dt.kind in FLOAT_KINDS else None
            if dt.kind == "V":
                digits = 8
            to = 2**digits + 1 if digits else (2 if dt.kind == "b" else int(np.iinfo(dt).max) + 1)
        if not from_ < to:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
            )
        self._check_can_write_inplace()
        fill(self, "integers", from_, to, generator=generator)
        return self

    def _fill_float(self, name: str, kind: str, generator, *params):
        if self._data.dtype.kind not in FLOAT_KINDS:
            raise RuntimeError(
                f"{name}: the distribution is continuous: self must be floating point, got "
                f"{self.dtype.name}"
            )
        self._check_can_write_inplace()
        fill(self, kind, *params, generator=generator)
        return self


def _accumulate_in(t: Any, dtype: Any) -> Any:
    """``t`` cast to a reduction's ``dtype=`` (sum, prod, cumsum, cumprod). A tensor that requires
    grad cannot be reduced into an integer or bool dtype while grad mode is on: the result could
    carry no gradient back, so PyTorch refuses it outright rather than cut the graph quietly."""
    if dtype is None:
        return t
    dt = _dt.to_dtype(dtype)
    if not dt.is_floating_point and t.requires_grad and state.grad_enabled:
        raise RuntimeError(f"Autograd not support dtype: {_dt.scalar_type_name(dt)}")
    return t.to(dt)


def _numpy_spelling(dim: Any, keepdim: bool, axis: Any, keepdims: bool | None) -> tuple:
    """PyTorch also takes NumPy's names ``axis=`` and ``keepdims=`` for ``dim=`` and ``keepdim=``
    (``counts.sum(1, keepdims=True)``); giving both spellings of one argument is an error."""
    if axis is not None:
        if dim is not None:
            raise TypeError("got both dim= and its NumPy spelling axis=: pass one")
        dim = axis
    return dim, (keepdim if keepdims is None else bool(keepdims))


def _add_scaled(x: Any, prod: Any, beta: Any, alpha: Any) -> Any:
    """beta * x + alpha * prod, x broadcast to prod's shape; beta = 0 skips x (as PyTorch, so a
    NaN in x does not leak through 0 * NaN)."""
    scaled = prod if alpha == 1 else prod * alpha
    try:
        x.expand(prod.shape)
    except ValueError:
        raise RuntimeError(
            f"input {tuple(x.shape)} cannot be broadcast to the product's shape {tuple(prod.shape)}"
        ) from None
    if beta == 0:
        return scaled.clone() if alpha == 1 else scaled
    return (x if beta == 1 else x * beta) + scaled
