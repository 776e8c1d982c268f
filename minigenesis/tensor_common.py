"""Tensor methods common PyTorch programs call that are composed of existing ops: the in-place
forms of more pointwise math (``expm1_``, ``log1p_``, ``sinh_``, ``asin_`` ...) and of the
arithmetic aliases (``true_divide_``, ``subtract_`` ...), the shifts in place (``<<=``),
``dist``, ``gcd`` / ``lcm``, ``renorm``, ``stride()`` and ``unfold`` (sliding windows, a view).

The differentiable ones are written with ops that have gradients (``dist`` is a norm of a
difference, ``renorm`` a scale by a factor computed from a norm), so their derivatives follow by
the chain rule; ``gcd`` / ``lcm`` are integer functions without a gradient, as in PyTorch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .autograd.tensor_base import TensorBase
from .autograd.vmap_samples import RUNNING as vmap_running
from .autograd.vmap_samples import sample_of
from .backend import get_array_module
from .ops import shape as S
from .ops.as_strided import (
    AsStrided,
    check_geometry,
    check_inside_sample,
    elements_read,
    storage_geometry,
    storage_owner,
)
from .ops.round_once import in_float32, is_two_byte_float, same_two_byte_float
from .ops.unfold import UnfoldWindows
from .ops.view_dtype import contiguous_strides
from .promotion import float_in, result_type
from .size import norm_dim


def _inplace_of(name: str) -> Any:
    """``x.name_()``: the out-of-place ``x.name()`` written into x (``inplace.py``)."""

    def method(self):
        return self._inplace(lambda x: getattr(x, name)())

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place {name}: self = self.{name}()."
    return method


def _integer_pair(a: Any, b: Any, name: str) -> tuple[Any, Any]:
    """gcd / lcm operands: as arrays of their promoted dtype, which must be an integer one (a
    bool operand promotes with an integer one, as in PyTorch; two bools or a float do not)."""
    if not isinstance(b, TensorBase):
        raise TypeError(f"{name}(): argument 'other' must be Tensor, not {type(b).__name__}")
    target = result_type(a, b)
    if target.numpy_dtype.kind not in "iu":  # PyTorch has no kernel for bool or floats
        raise NotImplementedError(f'"{name}" not implemented for {target!r}')
    dtype = target.numpy_dtype
    return a._data.astype(dtype, copy=False), b._data.astype(dtype, copy=False)


class TensorCommon:
    """Mixin of Tensor: in-place pointwise forms, dist, gcd/lcm, renorm, stride, unfold."""

    __slots__ = ()

    _data: Any

    # ------------------------------------------------------------------ in-place forms
    expm1_ = _inplace_of("expm1")
    log1p_ = _inplace_of("log1p")
    sinh_ = _inplace_of("sinh")
    cosh_ = _inplace_of("cosh")
    tan_ = _inplace_of("tan")
    log2_ = _inplace_of("log2")
    log10_ = _inplace_of("log10")
    asin_ = arcsin_ = _inplace_of("asin")
    acos_ = arccos_ = _inplace_of("acos")
    atan_ = arctan_ = _inplace_of("atan")

    def absolute(self):
        """|x|, PyTorch's other name for abs."""
        return self.abs()

    absolute_ = _inplace_of("abs")

    # PyTorch's other names for the in-place arithmetic, each the method it names
    def true_divide_(self, other):
        return self._inplace(lambda x, o: x.div(o), other)

    def divide_(self, other, *, rounding_mode=None):
        return self._inplace(lambda x, o: x.div(o, rounding_mode=rounding_mode), other)

    def multiply_(self, other):
        return self._inplace(lambda x, o: x * o, other)

    def subtract_(self, other, *, alpha=1):
        return self._inplace(lambda x, o: x.sub(o, alpha=alpha), other)

    def arctan2_(self, other):
        return self._inplace(lambda x, o: x.atan2(o), other)

    def nextafter_(self, other):
        return self._inplace(lambda x, o: x.nextafter(o), other)

    def mvlgamma(self, p: int):
        """log of the multivariate gamma function of dimension p:
        p (p - 1) / 4 log(pi) + sum_{j=0}^{p-1} lgamma(x - j/2) (integers compute as floats)."""
        if p < 1:
            raise RuntimeError("p has to be greater than or equal to 1")
        x = float_in(self)
        out = x.lgamma()  # the j = 0 term first: a start of 0 * x would be NaN at x = +-inf
        for j in range(1, p):
            out = out + (x - j / 2).lgamma()
        return out + p * (p - 1) / 4 * math.log(math.pi)

    def mvlgamma_(self, p: int):
        return self._inplace(lambda x: x.mvlgamma(p))

    def polygamma_(self, n: int):
        return self._inplace(lambda x: x.polygamma(n))

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """self = beta * self + alpha * (batch1 @ batch2), batch by batch."""
        return self._inplace(
            lambda x, a, b: x.baddbmm(a, b, beta=beta, alpha=alpha), batch1, batch2
        )

    # the shifts in place; ``x <<= k`` and ``x >>= k`` are these, as in PyTorch
    def bitwise_left_shift_(self, other):
        return self._inplace(lambda x, o: x.bitwise_left_shift(o), other)

    def bitwise_right_shift_(self, other):
        return self._inplace(lambda x, o: x.bitwise_right_shift(o), other)

    __ilshift__, __irshift__ = bitwise_left_shift_, bitwise_right_shift_

    def angle(self):
        """The argument of each (real) number: pi where x < 0, else 0 (NaN stays NaN); integers
        give floats. Its gradient is 0 (it is constant where it is differentiable)."""
        x = float_in(self)
        negative = (x < 0)._cast(x._data.dtype) * math.pi
        # x * 0 carries the graph (a zero gradient, as PyTorch's) and a NaN through; an infinite
        # x would make x * 0 NaN, so the finite mask keeps that term to the NaNs
        return negative + (x * 0).where(x.isnan(), 0.0)

    # ------------------------------------------------------------------ distances
    def dist(self, other, p: float = 2):
        """||self - other||_p over all elements (after broadcasting): (sum |d|^p)^(1/p);
        p = 0 counts the nonzero differences, p = inf is max |d|."""
        if not isinstance(other, TensorBase):
            raise TypeError(f"dist(): argument 'other' must be Tensor, not {type(other).__name__}")
        if same_two_byte_float(self, other):  # in float32, rounded once (PyTorch: ~1 ulp)
            return in_float32(TensorCommon.dist, self, other, p)
        return (self - other).norm(p)

    # ------------------------------------------------------------------ integer functions
    def gcd(self, other):
        """The greatest common divisor of each pair, >= 0 (gcd(0, 0) = 0)."""
        a, b = _integer_pair(self, other, "gcd")
        return self._make(get_array_module(a).gcd(a, b), False)

    def lcm(self, other):
        """The least common multiple of each pair, |a b| / gcd(a, b), >= 0 (0 if either is 0).

        Computed as PyTorch's C++ does, |(a / gcd) * b|: in C's int for the types narrower
        than int (C promotes them), in the dtype otherwise, and wrapped back into the dtype, so
        an lcm too large wraps (NumPy's lcm takes the absolute values first)."""
        a, b = _integer_pair(self, other, "lcm")
        xp = get_array_module(a)
        g = xp.gcd(a, b)
        zero = g == 0
        dtype = g.dtype  # (the promoted dtype)
        work = np.int32 if dtype.itemsize < 4 else dtype
        a, b, g = a.astype(work), b.astype(work), g.astype(work)
        with np.errstate(over="ignore"):  # the wrap is the defined result
            out = xp.abs((a // xp.where(zero, xp.ones_like(g), g)) * b)
        return self._make(xp.where(zero, xp.zeros_like(out), out).astype(dtype), False)

    def gcd_(self, other):
        return self._inplace(lambda x, o: x.gcd(o), other)

    def lcm_(self, other):
        return self._inplace(lambda x, o: x.lcm(o), other)

    # ------------------------------------------------------------------ renorm
    def renorm(self, p: float, dim: int, maxnorm: float):
        """Each slice self.select(dim, i) whose p-norm exceeds maxnorm, scaled down to norm
        maxnorm: x_i * maxnorm / (||x_i||_p + 1e-7) (PyTorch's epsilon); the others unchanged."""
        if self.ndim < 2:
            raise RuntimeError(
                f"renorm: input needs at least 2 dimensions, got {self.ndim} dimensions"
            )
        if p <= 0:
            raise RuntimeError("renorm: non-positive-norm not supported")
        if maxnorm < 0:
            raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
        if is_two_byte_float(self):  # norms and scaling in float32, rounded once, as PyTorch
            return in_float32(lambda x: x.renorm(p, dim, maxnorm), self)
        d = norm_dim(dim, self.ndim)[0]
        others = tuple(i for i in range(self.ndim) if i != d)
        norm = self.norm(p, others, keepdim=True)
        factor = (maxnorm / (norm + 1e-7)).where(norm > maxnorm, 1.0)
        return self * factor

    def renorm_(self, p: float, dim: int, maxnorm: float):
        return self._inplace(lambda x: x.renorm(p, dim, maxnorm))

    # ------------------------------------------------------------------ memory layout
    def as_strided(self, size, stride, storage_offset: int | None = None):
        """The view y[i_0, ...] = storage[storage_offset + sum_k i_k stride_k] of the memory
        behind this tensor and its views (ops/as_strided.py), the offset counted from the
        storage's start as in PyTorch (default: this tensor's own storage_offset())."""
        size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
        geometry = storage_geometry(self._data)
        if geometry is None:
            raise RuntimeError(
                "as_strided: this tensor's memory is not one row-major block of its dtype "
                "(call .contiguous() first)"
            )
        storage, own_offset, own_strides = geometry
        offset = own_offset if storage_offset is None else int(storage_offset)
        if vmap_running and (sample := sample_of(self)) is not None:
            # one sample inside vmap: the offset counts from this sample's start, and the view
            # must stay inside the sample's memory (PyTorch's batching rule)
            shift = sample.shift if storage_owner(self._data) is sample.owner else 0
            own = (own_offset - shift, self._data.shape, own_strides)
            if storage_offset is not None:
                check_inside_sample(own, size, stride, offset)
                offset += shift
            else:
                check_inside_sample(own, size, stride, own_offset - shift)
        check_geometry(storage.size, self._data.itemsize, size, stride, offset)

        view = AsStrided.apply(self, size, stride, offset)
        # An in-place write through the view is replayed on other tensors shaped like self (its
        # new history, the numbers 0..n-1 that find the places written): there the view is the
        # gather of the elements of self it reads, by their row-major index in self.
        elements = elements_read(self._data, size, stride, offset)
        if elements is None:  # it reads storage outside self: no replay can make it from self
            return view

        def strided(b):
            if b is self:
                return AsStrided.apply(b, size, stride, offset)
            return b.reshape(-1).take(b._make(elements, False))

        return view._view_of(self, strided)

    def as_strided_(self, size, stride, storage_offset: int | None = None):
        """``as_strided`` in place: this tensor takes the new sizes, strides and offset over the
        same storage (``_reshape_inplace``, as unsqueeze_ and t_ do)."""
        return self._reshape_inplace(lambda x: x.as_strided(size, stride, storage_offset))

    def stride(self, dim: int | None = None):
        """How many elements one step along each dim moves in memory (a tuple, or one dim's);
        0 along an expanded dim. The array's byte strides divided by the element size; for an
        empty array that NumPy gives all-zero strides, PyTorch's row-major strides, each the
        product of the later sizes counted as at least 1 (zeros(2, 0, 3): (3, 3, 1))."""
        size = self._data.itemsize
        strides = tuple(s // size for s in self._data.strides)
        if self._data.size == 0 and not any(strides):  # NumPy keeps no strides for it
            strides = contiguous_strides(self._data.shape)
        if dim is None:
            return strides
        if not self.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return strides[norm_dim(dim, self.ndim)[0]]

    def unfold(self, dimension: int, size: int, step: int):
        """The windows of ``size`` elements along ``dimension``, ``step`` apart, in a new last
        dim: out[..., i, ..., k] = self[..., i * step + k, ...] (ops/unfold.py); a view."""
        d = norm_dim(dimension, self.ndim)[0]  # (0 or -1 for a 0-d tensor: one element)
        shape = self.shape if self.ndim else (1,)
        if size < 0:
            raise RuntimeError(f"size is {size} but must be >= 0")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        if size > shape[d]:
            raise RuntimeError(
                f"maximum size for tensor at dimension {d} is {shape[d]} but size is {size}"
            )

        def windows(b):
            if not self.ndim:  # a 0-d tensor unfolds as one element, into shape (size,)
                one = UnfoldWindows.apply(S.Reshape.apply(b, (1,)), 0, size, 1)
                return S.Reshape.apply(one, (size,))
            return UnfoldWindows.apply(b, d, size, step)

        return windows(self)._view_of(self, windows)
