"""The Tensor's math methods: operators, reductions, shapes, indexing and in-place updates.

Each method is a thin call into an op of ``ops/``. What the methods share is written once
elsewhere: PyTorch's type promotion in ``promotion.py`` (every arithmetic operator goes through
``binary_op``), and the in-place machinery in ``inplace.py`` (every ``add_``, ``x[i] = v`` and
``+=`` is its out-of-place op passed to ``self._inplace``).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd.grad_mode import no_grad, state
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .inplace import track_view
from .ops import activation as A
from .ops import elementwise as E
from .ops import indexing as I
from .ops import math_functions as MF
from .ops import matmul as M
from .ops import reduce as R
from .ops import shape as S
from .ops import sorting as SO
from .promotion import (
    FLOAT_KINDS,
    as_tensor_like,
    binary_op,
    float_in,
    is_bool,
    is_float,
    result_type,
)
from .random import fill_normal, fill_uniform

ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def norm_dim(dim: Any, ndim: int) -> tuple | None:
    """None, an int or a sequence of ints -> None or a sorted tuple of non-negative dims."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    limit = max(ndim, 1)
    out = []
    for d in dims:
        if not -limit <= d < limit:
            raise IndexError(f"dim {d} is out of range for a tensor with {ndim} dims")
        out.append(d % limit)
    return tuple(sorted(out))


def _scaled(t: Any, other: Any, alpha: Any) -> Any:
    """alpha * other for add/sub(alpha=): PyTorch refuses a float alpha with integer tensors."""
    if alpha == 1 and alpha.__class__ is not float:
        return other
    if isinstance(alpha, float) and not (is_float(t) or is_float(other)):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    return other * alpha


def _check_index_add(t: Any, d: int, index: Any, source: Any) -> Any:
    """index_add's checks, with PyTorch's messages; returns the index array."""
    name = "index_add_()"
    if not isinstance(index, TensorBase) or index._data.ndim > 1:
        got = f"dim: {index.ndim}" if isinstance(index, TensorBase) else type(index).__name__
        raise IndexError(f"{name}: Index is supposed to be a vector, but got {got}")
    I.check_index_dtype(index, ("int64", "int32"), name, "index")
    if source._data.dtype != t._data.dtype:
        raise RuntimeError(
            f"{name}: self ({t.dtype.name}) and source ({source.dtype.name}) must have the "
            f"same scalar type"
        )
    idx = index._data.reshape(-1)
    n = source.shape[d] if source.ndim else 1
    if idx.size != n:
        raise RuntimeError(
            f"{name}: Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({n}), for dim: {d}"
        )
    expected = t.shape[:d] + (idx.size,) + t.shape[d + 1 :] if t.ndim else source.shape
    if tuple(source.shape) != tuple(expected):
        raise RuntimeError(
            f"{name}: source of shape {tuple(source.shape)} does not fit self of shape "
            f"{tuple(t.shape)}: expected {tuple(expected)}"
        )
    I.check_index_range(
        idx, t.shape[d] if t.ndim else 1, name, hint=f" (dim {d})", error=RuntimeError
    )
    return idx


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

    # //: PyTorch's promotion (as +). floor(x / y) is piecewise constant, so its gradient is 0:
    # the result is a constant of the graph here, where PyTorch's backward refuses (its
    # floor_divide has no derivative).
    def __floordiv__(self, other):
        with no_grad():
            return binary_op(E.FloorDiv, self, other)

    def __rfloordiv__(self, other):
        with no_grad():
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
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(as_tensor_like(other, self), self)

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
    mul, div, matmul = __mul__, __truediv__, __matmul__

    def add(self, other, *, alpha=1):
        """self + alpha * other"""
        return self + _scaled(self, other, alpha)

    def sub(self, other, *, alpha=1):
        """self - alpha * other"""
        return self - _scaled(self, other, alpha)

    def index_add(self, dim: int, index, source, *, alpha=1):
        """A copy of self with ``alpha * source`` added along ``dim`` at ``index``:
        out[..., index[i], ...] += alpha * source[..., i, ...], repeated indices adding up. The
        gradient goes to self unchanged and to source gathered at ``index`` (times alpha)."""
        d = norm_dim(dim, self.ndim)[0]
        idx = _check_index_add(self, d, index, source)
        where = (slice(None),) * d + (idx,) if self.ndim else (Ellipsis,)
        return self + I.IndexAddGrad.apply(_scaled(self, source, alpha), where, self.shape)

    def index_add_(self, dim: int, index, source, *, alpha=1):
        return self._inplace(lambda x, s: x.index_add(dim, index, s, alpha=alpha), source)

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
        return matmul(self, mat2)

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
        return matmul(self, mat2)

    def dot(self, other):
        """The inner product of two 1-D tensors of the same length."""
        if self.ndim != 1 or other.ndim != 1:
            raise RuntimeError(
                f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors"
            )
        return matmul(self, other)

    def mv(self, vec):
        """Matrix (n, m) times vector (m,) -> (n,)."""
        if self.ndim != 2 or vec.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
        return matmul(self, vec)

    def narrow(self, dim: int, start: int, length: int):
        """The view ``self[..., start:start + length, ...]`` along ``dim`` (a negative ``start``
        counts from the end)."""
        d = norm_dim(dim, self.ndim)[0]
        size = self.shape[d]
        if not -size <= start <= size:
            raise IndexError(
                f"start out of range (expected to be in range of [{-size}, {size}], but got "
                f"{start})"
            )
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        start = start + size if start < 0 else start
        if start + length > size:
            raise RuntimeError(
                f"start ({start}) + length ({length}) exceeds dimension size ({size})."
            )
        return self[(slice(None),) * d + (slice(start, start + length),)]

    def neg(self):
        return -self

    def square(self):
        return self * self

    negative = neg
    multiply, divide, true_divide, subtract = __mul__, __truediv__, __truediv__, sub

    def masked_fill(self, mask, value):
        m = mask._data if isinstance(mask, TensorBase) else mask
        v = value.item() if isinstance(value, TensorBase) else value
        return I.MaskedFill.apply(self, m, v)

    # ------------------------------------------------------------------ reductions
    def sum(self, dim=None, keepdim: bool = False, dtype=None, *, axis=None, keepdims=None):
        dim, keepdim = _numpy_spelling(dim, keepdim, axis, keepdims)
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64  # as PyTorch: bool and integer sums accumulate in int64
        x = self if dtype is None else self.to(dtype)
        return R.Sum.apply(x, norm_dim(dim, self.ndim), keepdim)

    def mean(self, dim=None, keepdim: bool = False, dtype=None, *, axis=None, keepdims=None):
        dim, keepdim = _numpy_spelling(dim, keepdim, axis, keepdims)
        x = self if dtype is None else self.to(dtype)
        if x._data.dtype.kind not in FLOAT_KINDS:
            raise TypeError(
                f"mean() needs a floating-point tensor, got {x.dtype.name}: "
                f"call .float() first or pass dtype="
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
        d = norm_dim(dim, self.ndim)[0]
        _refuse_empty(self, name, (d,))
        if self.ndim == 0:  # NumPy has no axis 0 here; PyTorch's answer is index 0
            return self._make(xp.zeros((), xp.int64), False)
        return self._make(fn(self._data, axis=d, keepdims=keepdim), False)

    def cumsum(self, dim: int, dtype=None):
        """y_i = x_0 + ... + x_i along ``dim`` (bool and integers accumulate in int64)."""
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = self if dtype is None else self.to(dtype)
        d = norm_dim(dim, self.ndim)[0]
        if self.ndim == 0:  # NumPy has no axis 0 here: the running sum of one value is itself
            return R.CumSum.apply(x.reshape(1), 0).reshape(())
        return R.CumSum.apply(x, d)

    def prod(self, dim=None, keepdim: bool = False, dtype=None):
        """The product of the elements (over one ``dim``, or all); 1 for an empty reduction."""
        if dtype is None and self._data.dtype.kind in "biu":
            dtype = _dt.int64
        x = self if dtype is None else self.to(dtype)
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

    # ------------------------------------------------------------------ sorting and selection
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

    def gather(self, dim: int, index, *, sparse_grad: bool = False):
        """out[i][j] = self[index[i][j]][j] (dim 0), out[i][j] = self[i][index[i][j]] (dim 1)."""
        return SO.gather(self, dim, index)

    # ------------------------------------------------------------------ shapes

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        try:
            return S.Reshape.apply(self, tuple(shape))._view_of(self)
        except ValueError:
            raise ValueError(
                f"reshape: cannot reshape a tensor of shape {self.shape} "
                f"({self.numel()} elements) into {tuple(shape)}"
            ) from None

    def view(self, *shape):
        """reshape that never copies: PyTorch's view refuses memory that the new shape cannot
        describe with strides (e.g. after transpose), where reshape would copy."""
        out = self.reshape(*shape)
        arr, src = out._data, self._data
        if arr is not src and arr.size and not get_array_module(src).may_share_memory(arr, src):
            raise RuntimeError(
                f"view: a tensor of shape {self.shape} and these strides cannot be viewed as "
                f"{out.shape} without a copy: use .reshape(...) or .contiguous().view(...)"
            )
        return out

    def view_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        if self.ndim == 0:
            return self.reshape(1)
        s, e = norm_dim(start_dim, self.ndim)[0], norm_dim(end_dim, self.ndim)[0]
        if s > e:
            raise ValueError(f"flatten: start_dim {start_dim} cannot come after end_dim {end_dim}")
        if s == e:  # nothing to flatten: PyTorch returns the tensor itself
            return self
        shape = self.shape
        middle = 1
        for n in shape[s : e + 1]:
            middle *= n
        return self.reshape(shape[:s] + (middle,) + shape[e + 1 :])

    def equal(self, other) -> bool:
        """True when ``other`` has this shape and these values (after type promotion)."""
        if not isinstance(other, TensorBase):
            raise TypeError(f"equal: other must be a Tensor, got {type(other).__name__}")
        return self.shape == other.shape and bool((self == other).all())

    def flip(self, *dims):
        """The elements in reverse order along each of ``dims`` (a copy)."""
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        axes = tuple(norm_dim(d, self.ndim)[0] for d in dims)
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"flip: dims {tuple(dims)} name a dim twice")
        return S.Flip.apply(self, axes) if axes else self.clone()

    def fliplr(self):
        """Reverse the columns (dim 1); needs at least 2 dims."""
        if self.ndim < 2:
            raise RuntimeError(f"fliplr needs a tensor with at least 2 dims, got {self.ndim}")
        return self.flip(1)

    def flipud(self):
        """Reverse the rows (dim 0); needs at least 1 dim."""
        if self.ndim < 1:
            raise RuntimeError("flipud needs a tensor with at least 1 dim")
        return self.flip(0)

    def unbind(self, dim: int = 0) -> tuple:
        """The slices along ``dim``, each without that dim: x.unbind(0) == (x[0], x[1], ...)."""
        d = norm_dim(dim, self.ndim)[0]
        lead = (slice(None),) * d
        return tuple(self[lead + (i,)] for i in range(self.shape[d]))

    def ravel(self):
        """The elements as one dim: a view when the layout allows it, else a copy (as reshape)."""
        return self.reshape(-1)

    def permute(self, *dims):
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        dims = tuple(norm_dim(d, self.ndim)[0] for d in dims)
        if sorted(dims) != list(range(self.ndim)):
            raise ValueError(f"permute: {dims} is not a permutation of the dims of {self.shape}")
        return S.Permute.apply(self, dims)._view_of(self)

    def transpose(self, dim0: int, dim1: int):
        d0, d1 = norm_dim(dim0, self.ndim)[0], norm_dim(dim1, self.ndim)[0]
        if self.ndim == 0:  # dims 0 and -1 of a 0-d tensor: a view of the whole tensor
            return self.reshape(())
        dims = list(range(self.ndim))
        dims[d0], dims[d1] = dims[d1], dims[d0]
        return self.permute(*dims)

    def t(self):
        if self.ndim > 2:
            raise ValueError(f"t() expects a tensor with <= 2 dims, got {self.ndim}: use transpose")
        return self.transpose(0, 1) if self.ndim == 2 else self.reshape(self.shape)  # a view

    def squeeze(self, dim=None):
        if dim is None:
            return self.reshape(tuple(n for n in self.shape if n != 1))
        dims = norm_dim(dim, self.ndim)
        return self.reshape(
            tuple(n for i, n in enumerate(self.shape) if not (i in dims and n == 1))
        )

    def unsqueeze(self, dim: int):
        d = norm_dim(dim, self.ndim + 1)[0]  # dims -ndim-1 .. ndim: the new dim's place
        shape = self.shape
        return self.reshape(shape[:d] + (1,) + shape[d:])

    def expand(self, *sizes):
        sizes = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
        lead = len(sizes) - self.ndim
        if lead < 0:
            raise ValueError(f"expand: cannot expand {self.shape} to fewer dims {tuple(sizes)}")
        shape = tuple(
            self.shape[i - lead] if (n == -1 and i >= lead) else n for i, n in enumerate(sizes)
        )
        if shape == self.shape:  # a view, as PyTorch (not self)
            return self.reshape(shape)
        try:
            return S.Expand.apply(self, shape)._view_of(self)
        except ValueError:
            raise ValueError(f"expand: cannot expand shape {self.shape} to {shape}") from None

    def expand_as(self, other):
        return self.expand(other.shape)

    def broadcast_to(self, shape):
        return self.expand(shape)

    def split(self, split_size_or_sections, dim: int = 0):
        d = norm_dim(dim, self.ndim)[0]
        n = self.shape[d]
        if isinstance(split_size_or_sections, int):
            step = split_size_or_sections
            if step < 0 or (step == 0 and n > 0):
                raise ValueError(f"split: the split size must be positive, got {step}")
            sizes = [min(step, n - i) for i in range(0, n, step)] if n else [0]
        else:
            sizes = list(split_size_or_sections)
            if sum(sizes) != n:
                raise ValueError(f"split: sizes {sizes} do not add up to dim {d} of size {n}")
        return tuple(p._view_of(self) for p in _tuple(S.Split.apply(self, tuple(sizes), d)))

    def chunk(self, chunks: int, dim: int = 0):
        n = self.shape[norm_dim(dim, self.ndim)[0]]
        if chunks <= 0:
            raise ValueError(f"chunk: the number of chunks must be greater than 0, got {chunks}")
        step = -(-n // chunks)
        return self.split(step, dim)

    def repeat(self, *repeats):
        repeats = (
            repeats[0] if len(repeats) == 1 and isinstance(repeats[0], (tuple, list)) else repeats
        )
        if len(repeats) < self.ndim:
            raise ValueError(
                f"repeat: {len(repeats)} repeat counts for a tensor with {self.ndim} dims"
            )
        return S.Repeat.apply(self, tuple(repeats))

    # ------------------------------------------------------------------ activations used as methods
    def gelu(self, approximate: str = "none"):
        return A.GELU.apply(self, approximate)

    def silu(self):
        return A.SiLU.apply(self)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, index):
        index = _unwrap_index(index, self._data)
        out = I.GetItem.apply(self, index)
        if I.is_basic_index(index):
            out._view_of(self)
            if out._is_view:  # an in-place op on it rebases self, and self's on it (inplace.py)
                track_view(out, self, index)
        return out

    def __setitem__(self, index, value):
        index = _unwrap_index(index, self._data)
        self._check_can_write_inplace()
        if state.grad_enabled and (
            self.requires_grad or (isinstance(value, TensorBase) and value.requires_grad)
        ):
            self._inplace(lambda x, v: I.IndexPut.apply(x, index, v), value)
            return
        v = value._data if isinstance(value, TensorBase) else value
        I.put(self._data, index, v)
        self._bump_version()

    # ------------------------------------------------------------------ in-place updates

    def add_(self, other, alpha=1):
        return self._inplace(lambda x, o: x + o * alpha if alpha != 1 else x + o, other)

    def sub_(self, other, alpha=1):
        return self._inplace(lambda x, o: x - o * alpha if alpha != 1 else x - o, other)

    def mul_(self, other):
        return self._inplace(lambda x, o: x * o, other)

    def div_(self, other):
        return self._inplace(lambda x, o: x / o, other)

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

    def clamp_(self, min=None, max=None):  # noqa: A002
        return self._inplace(lambda x: x.clamp(min, max))

    clip_ = clamp_

    def clamp_min_(self, min):  # noqa: A002
        return self._inplace(lambda x: x.clamp(min, None))

    def clamp_max_(self, max):  # noqa: A002
        return self._inplace(lambda x: x.clamp(None, max))

    def addcmul_(self, tensor1, tensor2, value=1):
        """self += value * tensor1 * tensor2"""
        return self._addc(lambda a, b: a * b, tensor1, tensor2, value)

    def addcdiv_(self, tensor1, tensor2, value=1):
        """self += value * tensor1 / tensor2"""
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

    def masked_fill_(self, mask, value):
        return self._inplace(lambda x: x.masked_fill(mask, value))

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


def _tuple(x: Any) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def _numpy_spelling(dim: Any, keepdim: bool, axis: Any, keepdims: bool | None) -> tuple:
    """PyTorch also takes NumPy's names ``axis=`` and ``keepdims=`` for ``dim=`` and ``keepdim=``
    (``counts.sum(1, keepdims=True)``); giving both spellings of one argument is an error."""
    if axis is not None:
        if dim is not None:
            raise TypeError("got both dim= and its NumPy spelling axis=: pass one")
        dim = axis
    return dim, (keepdim if keepdims is None else bool(keepdims))


def _unwrap_index(index: Any, like: Any) -> Any:
    """Tensors, lists, ranges and NumPy arrays inside an index become arrays of ``like``'s module
    (indices never get gradients; CuPy data needs CuPy index arrays). A ``range`` is a sequence of
    ints to PyTorch, so ``x[range(n), target]`` picks one element per row."""
    xp = get_array_module(like)

    def one(i: Any) -> Any:
        if isinstance(i, TensorBase):
            return i._data
        if isinstance(i, list):
            return xp.asarray([j.item() if isinstance(j, TensorBase) else j for j in i])
        if isinstance(i, range):
            return xp.arange(i.start, i.stop, i.step, dtype=np.int64)
        if xp is not np and isinstance(i, np.ndarray):
            return xp.asarray(i)
        return i

    return tuple(one(i) for i in index) if isinstance(index, tuple) else one(index)


def matmul(a: Any, b: Any) -> Any:
    """PyTorch's matmul: 1-D operands get a dim added (and removed from the result), batch dims
    broadcast. Mixed float dtypes promote to the wider one."""
    if a._data.dtype != b._data.dtype:
        target = _dt.promote_types(a.dtype, b.dtype).numpy_dtype
        a, b = a._cast(target), b._cast(target)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: both operands need at least 1 dim, got {a.shape} and {b.shape}")
    if a.ndim == 1 and b.ndim == 1:
        if a.shape != b.shape:
            raise ValueError(f"matmul: vectors of shapes {a.shape} and {b.shape} differ in length")
        return M.MatMul.apply(a.unsqueeze(0), b.unsqueeze(1)).reshape(())
    if a.ndim == 1:
        return M.MatMul.apply(a.unsqueeze(0), b).squeeze(-2)
    if b.ndim == 1:
        return M.MatMul.apply(a, b.unsqueeze(1)).squeeze(-1)
    try:
        return M.MatMul.apply(a, b)
    except ValueError as err:
        if "cannot be multiplied" in str(err):
            raise
        raise ValueError(
            f"matmul: batch dims of shapes {a.shape} and {b.shape} cannot be broadcast"
        ) from None
