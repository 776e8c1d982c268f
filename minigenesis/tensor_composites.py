"""Tensor methods PyTorch programs reach for that are compositions of existing ops: the in-place
forms of common math (``sigmoid_``, ``relu_`` ...), ``addr``/``addmv``/``addbmm``/``addcmul``,
``inner``, ``aminmax``, ``argwhere``, ``unique_consecutive``, ``msort``, ``take``/``put``,
``index_put``, ``masked_scatter``, ``fill_diagonal_``, the inverse hyperbolic functions, the shift
operators and the reflected bitwise operators (``3 & t``).

Each is written with ops that already have gradients, so its gradient (and second derivative)
follows by the chain rule; the ones that only pick or compare (argwhere, unique_consecutive, the
bitwise ops) carry no gradient, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import return_types
from .autocast_policy import LOWER, autocast_function
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .dtypes import scalar_type_name
from .meta_array import refuse_data_dependent
from .ops import indexing as I
from .ops.beta_zero import beta_zero_sum
from .ops.inverse_hyperbolic import Acosh, Asinh, Atanh
from .ops.nextafter import NextAfter
from .ops.round_once import in_float32, same_two_byte_float
from .promotion import (
    SEQUENCES,
    as_tensor_like,
    float_in,
    is_bool,
    is_float,
    refuse_integer_addcdiv,
    refuse_sequence,
    result_type,
    wrap_int,
)
from .size import broadcast_error, check_unique_dim, norm_dim, python_number

MinMax = return_types.aminmax


def _inplace_of(name: str) -> Any:
    """``x.name_(*args)``: the out-of-place method written into x (``inplace.py``)."""

    def method(self, *args, **kwargs):
        return self._inplace(lambda x, *a: getattr(x, name)(*a, **kwargs), *args)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place {name}: self = self.{name}(...)."
    return method


def _shift(a: Any, s: Any, left: bool) -> Any:
    """a << s or a >> s as PyTorch computes them: a shift by a negative count or by at least the
    width of the type gives 0 (left) or the sign fill, 0 or -1 (right); left shifts wrap."""
    xp = get_array_module(a)
    bits = a.dtype.itemsize * 8
    s = xp.asarray(s)
    inside = (s >= 0) & (s < bits)
    count = xp.where(inside, s, bits - 1).astype(a.dtype)
    zero = xp.zeros((), a.dtype)
    if left:
        return xp.where(inside, xp.left_shift(a, count), zero).astype(a.dtype)
    if a.dtype.kind == "u":  # unsigned: shifted out entirely
        return xp.where(inside, xp.right_shift(a, count), zero).astype(a.dtype)
    return xp.right_shift(a, count).astype(a.dtype)  # by bits - 1 for the rest: the sign fill


def _addc(x: Any, t1: Any, t2: Any, value: Any, divide: bool) -> Any:
    """x + value * t1 * t2 (or t1 / t2) as PyTorch's kernel computes it: all three cast to
    their promoted dtype first (an int8 product must not wrap before it meets a float16 x),
    float16 and bfloat16 in float32 and rounded once, and value cast to an integer result's
    dtype (0.5 is 0 for int8, as C's cast)."""
    dtype = result_type(x, t1, t2).numpy_dtype
    work = np.dtype(np.float32) if dtype.itemsize == 2 and dtype.kind in "fV" else dtype
    value = python_number(value)
    x, t1, t2 = (t._cast(work) if isinstance(t, TensorBase) else t for t in (x, t1, t2))
    if dtype.kind in "iu" and isinstance(value, float):
        value = int(value)
    part = t1 / t2 if divide else t1 * t2
    out = x + (part if value == 1 else value * part)
    return out._cast(dtype) if work != dtype else out


def _long_index(name: str, index: Any) -> None:
    """take and put_ take int64 positions only (PyTorch: not int32, not a uint8 or bool mask)."""
    if isinstance(index, TensorBase) and index._data.dtype != np.int64:
        got = scalar_type_name(index.dtype)
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {got}")


def _number_as_tensor(x: Any, ref: Any) -> Any:
    """A Python int on the left of a shift, as a tensor of ref's integer dtype (int64 for bool)."""
    _integer_operands(x, ref, "bitwise shift")
    dtype = ref._data.dtype if ref._data.dtype.kind in "iu" else np.dtype(np.int64)
    if x.__class__ is int:  # cast to the dtype as PyTorch does: 300 << int8 shifts 44
        x = wrap_int(x, dtype)
    return ref._make(get_array_module(ref._data).asarray(x, dtype=dtype), False)


def _integer_operands(a: Any, b: Any, name: str) -> None:
    for x in (a, b):
        if is_float(x):
            kind = x.dtype.name if isinstance(x, TensorBase) else "float"
            raise NotImplementedError(
                f"{name} is only defined for bool and integer operands, got {kind}"
            )


class TensorComposites:
    """Mixin of Tensor: methods composed of existing ops."""

    __slots__ = ()

    # ------------------------------------------------------------------ in-place forms
    sigmoid_ = _inplace_of("sigmoid")
    tanh_ = _inplace_of("tanh")
    relu_ = _inplace_of("relu")
    erf_ = _inplace_of("erf")
    erfinv_ = _inplace_of("erfinv")
    neg_ = negative_ = _inplace_of("neg")
    log_ = _inplace_of("log")
    square_ = _inplace_of("square")
    reciprocal_ = _inplace_of("reciprocal")
    rsqrt_ = _inplace_of("rsqrt")
    atan2_ = _inplace_of("atan2")
    fmod_ = _inplace_of("fmod")
    remainder_ = _inplace_of("remainder")
    cumsum_ = _inplace_of("cumsum")
    floor_divide_ = _inplace_of("floor_divide")
    addmm_ = _inplace_of("addmm")
    addr_ = _inplace_of("addr")
    addmv_ = _inplace_of("addmv")
    addbmm_ = _inplace_of("addbmm")
    asinh_ = arcsinh_ = _inplace_of("asinh")
    acosh_ = arccosh_ = _inplace_of("acosh")
    atanh_ = arctanh_ = _inplace_of("atanh")

    # ------------------------------------------------------------------ pointwise
    def positive(self):
        """+self: self itself (refused for bool, as PyTorch)."""
        if is_bool(self):
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def asinh(self):
        return Asinh.apply(float_in(self))

    def acosh(self):
        return Acosh.apply(float_in(self))

    def atanh(self):
        return Atanh.apply(float_in(self))

    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def isposinf(self):
        return self._make(get_array_module(self._data).isposinf(self._data), False)

    def isneginf(self):
        return self._make(get_array_module(self._data).isneginf(self._data), False)

    def isreal(self):
        """Every real tensor's elements are real: all True."""
        return self._make(get_array_module(self._data).ones(self._data.shape, bool), False)

    def floor_divide(self, other):
        """floor(self / other), PyTorch's floor_divide since 1.13 (the same as //)."""
        return self // other

    def nextafter(self, other):
        """The float next to self in the direction of other."""
        refuse_sequence("nextafter", other)
        other = as_tensor_like(other, self)
        target = result_type(self, other)  # the operands promote, as in a + b
        if not target.is_floating_point:
            raise NotImplementedError(f"nextafter: not implemented for {target.name} tensors")
        a, b = self._cast(target.numpy_dtype), other._cast(target.numpy_dtype)
        shape = np.broadcast_shapes(a.shape, b.shape)
        return NextAfter.apply(a.expand(shape), b.expand(shape))

    # ------------------------------------------------------------------ shifts and bitwise
    def bitwise_left_shift(self, other):
        return self._shift(other, "bitwise_left_shift", left=True)

    def bitwise_right_shift(self, other):
        return self._shift(other, "bitwise_right_shift", left=False)

    def _shift(self, other, name: str, left: bool):
        refuse_sequence(name, other)  # (<< too: PyTorch's operator gives Python's TypeError)
        _integer_operands(self, other, name)
        s = other._data if isinstance(other, TensorBase) else other
        # a 0-d tensor count does not widen a tensor with dims (int32 >> int64 0-d is int32)
        if isinstance(other, TensorBase):
            dtype = result_type(self, other).numpy_dtype
        else:
            dtype = self._data.dtype
        if dtype == np.bool_:  # bool << 1 counts in int64, as PyTorch
            dtype = np.dtype(np.int64)
        # PyTorch casts the count to the result's dtype first, wrapping: int8 << 257 shifts by
        # 1, int8 << 2**53 by 0, and uint8 << a 0-d int16 256 by 0
        if s.__class__ is int:
            s = wrap_int(s, dtype)
        elif isinstance(other, TensorBase):
            s = s.astype(dtype, copy=False)
        return self._make(_shift(self._data.astype(dtype), s, left), False)

    # the operators return NotImplemented for a list or tuple, as PyTorch's: Python's TypeError
    def __lshift__(self, other):
        return NotImplemented if isinstance(other, SEQUENCES) else self.bitwise_left_shift(other)

    def __rshift__(self, other):
        return NotImplemented if isinstance(other, SEQUENCES) else self.bitwise_right_shift(other)

    def __rlshift__(self, other):  # 1 << t
        if isinstance(other, SEQUENCES):
            return NotImplemented
        return _number_as_tensor(other, self).bitwise_left_shift(self)

    def __rrshift__(self, other):
        if isinstance(other, SEQUENCES):
            return NotImplemented
        return _number_as_tensor(other, self).bitwise_right_shift(self)

    def __rand__(self, other):  # 3 & t: & is symmetric
        return NotImplemented if isinstance(other, SEQUENCES) else self & other

    def __ror__(self, other):
        return NotImplemented if isinstance(other, SEQUENCES) else self | other

    def __rxor__(self, other):
        return NotImplemented if isinstance(other, SEQUENCES) else self ^ other

    # ------------------------------------------------------------------ products
    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        """beta * self + alpha * outer(vec1, vec2)"""
        if same_two_byte_float(self, vec1, vec2):  # float32 inside, rounded once, as PyTorch
            return in_float32(
                lambda x, a, b: x.addr(a, b, beta=beta, alpha=alpha), self, vec1, vec2
            )
        return _scaled_sum(self, vec1.outer(vec2), beta, alpha)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        """beta * self + alpha * (mat @ vec)"""
        if same_two_byte_float(self, mat, vec):  # float32 inside, rounded once, as PyTorch
            return in_float32(lambda x, a, b: x.addmv(a, b, beta=beta, alpha=alpha), self, mat, vec)
        return _scaled_sum(self, mat @ vec, beta, alpha)

    @autocast_function(LOWER)  # one unit on PyTorch's lower-precision lists, as addmm
    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * sum_b batch1[b] @ batch2[b]"""
        if same_two_byte_float(self, batch1, batch2):  # float32 inside, rounded once
            return in_float32(
                lambda x, a, b: x.addbmm(a, b, beta=beta, alpha=alpha), self, batch1, batch2
            )
        return _scaled_sum(self, (batch1 @ batch2).sum(0), beta, alpha)

    def addcmul(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 * tensor2"""
        return _addc(self, tensor1, tensor2, value, divide=False)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 / tensor2 (refused when both operands are integers, as
        PyTorch, whose historic addcdiv rounded that quotient)."""
        refuse_integer_addcdiv(tensor1, tensor2)
        return _addc(self, tensor1, tensor2, value, divide=True)

    def inner(self, other):
        """The sum over the last dims of both: out[i.., j..] = sum_k self[i.., k] other[j.., k]."""
        if self.ndim == 0 or other.ndim == 0:
            return self * other
        if self.ndim == 1 and other.ndim == 1:  # PyTorch's dot (so off autocast's lists too)
            return self.dot(other)
        k = self.shape[-1]
        flat = self.reshape(-1, k) @ other.reshape(-1, k).mT
        return flat.reshape(tuple(self.shape[:-1]) + tuple(other.shape[:-1]))

    def _nuclear_norm(self, dim, keepdim: bool):
        """norm(p="nuc"): the sum of the singular values of the matrices over ``dim`` (the last
        two dims when dim is None); its gradient is U V^T, through the SVD's."""
        if self.ndim < 2:
            raise RuntimeError(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
            )
        dims = (-2, -1) if dim is None else tuple(dim) if not isinstance(dim, int) else (dim,)
        if len(dims) != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dims}")
        d0, d1 = (d % self.ndim for d in dims)
        singular = self.movedim((d0, d1), (-2, -1)).svd().S
        out = singular.sum(-1)
        if keepdim:
            for d in sorted((d0, d1)):
                out = out.unsqueeze(d)
        return out

    # ------------------------------------------------------------------ selection
    def aminmax(self, *, dim=None, keepdim: bool = False):
        """(min, max) in one call, over everything or along dim."""
        if dim is None:  # keepdim keeps every dim, with size 1
            shape = (1,) * self.ndim if keepdim else ()
            return MinMax(self.amin().reshape(shape), self.amax().reshape(shape))
        return MinMax(self.amin(dim, keepdim), self.amax(dim, keepdim))

    def argwhere(self):
        """The indices of the nonzero elements, one row each (nonzero())."""
        return self.nonzero()

    def msort(self):
        """Sorted along dim 0."""
        return self.sort(dim=0).values

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Each run of equal consecutive elements (or slices along dim) kept once."""
        refuse_data_dependent("unique_consecutive", self._data)
        xp = get_array_module(self._data)
        if dim is not None:
            dim = norm_dim(dim, self.ndim)[0]
            check_unique_dim(self.shape, dim)
        a = self._data.reshape(-1) if dim is None else xp.moveaxis(self._data, dim, 0)
        if a.shape[0] == 0:
            starts = xp.zeros(0, dtype=bool)
        else:
            differs = a[1:] != a[:-1]  # one flag per step along dim (any element of a slice)
            if a.ndim > 1:  # (reshape(n - 1, -1) cannot infer -1 when n - 1 is 0)
                differs = differs.any(axis=tuple(range(1, a.ndim)))
            starts = xp.concatenate([xp.ones(1, dtype=bool), differs])
        kept = a[starts] if dim is None else xp.moveaxis(a[starts], 0, dim)
        out = [self._make(xp.ascontiguousarray(kept), False)]
        if return_inverse:
            inverse = xp.cumsum(starts) - 1
            out.append(self._make(inverse.reshape(self.shape if dim is None else -1), False))
        if return_counts:
            bounds = xp.concatenate([xp.flatnonzero(starts), xp.asarray([a.shape[0]])])
            out.append(self._make(xp.diff(bounds).astype(xp.int64), False))
        return out[0] if len(out) == 1 else tuple(out)

    # ------------------------------------------------------------------ flat indexing
    def take(self, index):
        """Elements of the flattened self at ``index`` (the result has index's shape)."""
        _long_index("take", index)
        return self.reshape(-1)[index]

    def put(self, index, source, accumulate: bool = False):
        """self with the flattened positions ``index`` set to (or, accumulating, added) source."""
        _long_index("put_", index)
        if source.numel() != index.numel():  # one source element per index, never broadcast
            raise IndexError(
                f"put_(): Expected source and index to have the same number of elements, but "
                f"got source.numel() = {source.numel()}, index.numel() = {index.numel()}"
            )
        flat = self.reshape(-1).index_put((index.reshape(-1),), source.reshape(-1), accumulate)
        return flat.reshape(self.shape)

    put_ = _inplace_of("put")

    def index_put(self, indices, values, accumulate: bool = False):
        """self with self[indices] = values (accumulate: += values, repeats adding up)."""
        # tensors by indexing's rules: a uint8 tensor is a mask, int8/int16 are refused
        index = tuple(I.index_array(i._data) if isinstance(i, TensorBase) else i for i in indices)
        values = as_tensor_like(values, self)
        if not accumulate:
            return I.IndexPut.apply(self, index, values)
        picked_shape = I.take(self._data, index).shape
        added = I.IndexAddGrad.apply(values.expand(picked_shape), index, tuple(self.shape))
        return self + added

    index_put_ = _inplace_of("index_put")

    def masked_scatter(self, mask, source):
        """self with the positions where mask is True filled, in order, with the first
        elements of source (self and mask broadcast together, as PyTorch's)."""
        xp = get_array_module(self._data)
        if mask._data.dtype.kind != "b":  # a float mask of 0.5s must not read as True
            raise RuntimeError(
                f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}"
            )
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"masked_scatter: expected self and source to have same dtypes but got "
                f"{self.dtype} and {source.dtype}"
            )
        try:
            shape = xp.broadcast_shapes(self._data.shape, mask._data.shape)
        except ValueError:
            raise broadcast_error(mask.shape, self.shape) from None  # (PyTorch's order)
        if not shape:  # 0-d: as a 1-element 1-d tensor (NumPy has no nonzero of a 0-d array)
            return self.reshape(1).masked_scatter(mask.reshape(1), source).reshape(())
        full_mask = xp.broadcast_to(mask._data, shape)
        count = int(full_mask.sum())
        if source.numel() < count:
            raise RuntimeError(
                f"masked_scatter: expected source to have at least {count} elements, got "
                f"{source.numel()}"
            )
        positions = tuple(xp.nonzero(full_mask))
        self_b = self.expand(shape) if self._data.shape != shape else self
        return self_b.index_put(positions, source.reshape(-1)[:count])

    def masked_scatter_(self, mask, source):
        """In-place masked_scatter: the mask must expand to self's shape (self cannot grow)."""
        mask.expand(self.shape)  # (RuntimeError where it cannot, as PyTorch's)
        return self._inplace(lambda x, m, s: x.masked_scatter(m, s), mask, source)

    def fill_diagonal_(self, fill_value, wrap: bool = False):
        """Write fill_value on the main diagonal (all indices equal); ``wrap`` restarts it every
        ncols + 1 rows of a tall matrix, as NumPy's fill_diagonal."""
        if self.ndim < 2 or (self.ndim > 2 and len(set(self.shape)) != 1):
            raise RuntimeError("fill_diagonal_: dimensions must be >= 2 and all of equal length")
        xp = get_array_module(self._data)
        mask = xp.zeros(self._data.shape, dtype=bool)
        if self.ndim == 2:
            np_mask = np.zeros(self._data.shape, dtype=bool)
            np.fill_diagonal(np_mask, True, wrap=wrap)
            mask = xp.asarray(np_mask)
        else:
            mask[(xp.arange(self.shape[0]),) * self.ndim] = True
        m = self._make(mask, False)
        return self._inplace(lambda x: x.masked_fill(m, fill_value))


def _scaled_sum(self: Any, product: Any, beta: Any, alpha: Any) -> Any:
    """beta * self + alpha * product, with beta = 0 ignoring self (NaN in self included)."""
    scaled = product if alpha == 1 else alpha * product
    if beta == 0:  # PyTorch: self is not read at all
        shape = np.broadcast_shapes(self.shape, scaled.shape)
        scaled = scaled if tuple(scaled.shape) == shape else scaled.expand(shape).clone()
        return beta_zero_sum(self, scaled)
    return (self if beta == 1 else beta * self) + scaled
