"""The Tensor's in-place methods: add_, sub_, mul_, div_, pow_ and the augmented assignments
(+=, -=, ...), the in-place pointwise forms (sin_, floor_, clamp_ ...), addcmul_ / addcdiv_,
lerp_, copy_, zero_ and fill_.

Each is its out-of-place op passed to ``self._inplace`` (``inplace.py``): the result is written
into self's memory, the version counter bumped, and self's place in the graph rebased, so that
backward sees the new value's history.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .autograd.grad_mode import state
from .autograd.tensor_base import TensorBase
from .backend import cast_array, get_array_module
from .deprecated_overloads import scalar_first, value_first
from .ops import elementwise as E
from .ops.as_strided import storage_geometry, strided_positions
from .promotion import (
    SEQUENCES,
    refuse_integer_addcdiv,
    refuse_sequence,
    written_int,
)
from .size import broadcast_error


def _augmented(method: Any) -> Any:
    """``+=`` and its kin: the in-place method, or NotImplemented for a list or tuple operand,
    as PyTorch's (Python then raises "unsupported operand type(s) for +=")."""

    def op(self, other):
        if isinstance(other, SEQUENCES):
            return NotImplemented
        return method(self, other)

    op.__doc__ = method.__doc__
    return op


class TensorInPlace:
    """Mixin of Tensor: the in-place updates, each an out-of-place op written into self."""

    __slots__ = ()

    _data: Any

    def add_(self, other, *deprecated, alpha=1):
        other, alpha = scalar_first(other, deprecated, alpha, "add_")
        refuse_sequence("add_", other)
        if alpha == 1:  # (one pass where it can be: inplace.py)
            return self._inplace_ufunc("add", lambda x, o: x + o, other)
        return self._inplace(lambda x, o: x + o * alpha, other)

    def sub_(self, other, *deprecated, alpha=1):
        other, alpha = scalar_first(other, deprecated, alpha, "sub_")
        refuse_sequence("sub_", other)
        # sub refuses a bool operand before alpha would turn it into a number
        if alpha == 1:
            return self._inplace_ufunc("subtract", lambda x, o: x - o, other)
        return self._inplace(lambda x, o: x.sub(o, alpha=alpha), other)

    def mul_(self, other):
        refuse_sequence("mul_", other)
        if getattr(other, "is_sparse", False):  # dense *= sparse stays dense: 0 where unstored
            other = other.to_dense()
        return self._inplace_ufunc("multiply", lambda x, o: x * o, other)

    def div_(self, other, *, rounding_mode=None):
        refuse_sequence("div_", other)
        return self._inplace(lambda x, o: x.div(o, rounding_mode=rounding_mode), other)

    def pow_(self, exponent):
        refuse_sequence("pow_", exponent, arg="exponent")
        return self._inplace(lambda x, o: x**o, exponent)

    # Augmented assignment is the in-place op, as in PyTorch (``p -= lr * p.grad`` changes p).
    # Without these Python falls back to ``p = p - lr * p.grad``: the name is rebound and the
    # parameter never changes. There is no ``__imatmul__``, as in PyTorch: ``a @= b`` rebinds a.
    __iadd__, __isub__, __imul__ = _augmented(add_), _augmented(sub_), _augmented(mul_)
    __itruediv__, __ipow__ = _augmented(div_), _augmented(pow_)

    @_augmented
    def __ifloordiv__(self, other):
        return self._inplace(lambda x, o: x // o, other)

    @_augmented
    def __imod__(self, other):
        return self._inplace(lambda x, o: x % o, other)

    @_augmented
    def __iand__(self, other):
        return self._inplace(lambda x, o: x & o, other)

    @_augmented
    def __ior__(self, other):
        return self._inplace(lambda x, o: x | o, other)

    @_augmented
    def __ixor__(self, other):
        return self._inplace(lambda x, o: x ^ o, other)

    # comparisons in place: self becomes 1 where the comparison holds and 0 elsewhere, in its
    # own dtype (PyTorch's lt_ ...); the operands compare in their promoted dtype, as ``<`` does
    def lt_(self, other):
        refuse_sequence("lt_", other)
        return self._inplace(lambda x, o: x < o, other)

    def le_(self, other):
        refuse_sequence("le_", other)
        return self._inplace(lambda x, o: x <= o, other)

    def gt_(self, other):
        refuse_sequence("gt_", other)
        return self._inplace(lambda x, o: x > o, other)

    def ge_(self, other):
        refuse_sequence("ge_", other)
        return self._inplace(lambda x, o: x >= o, other)

    def eq_(self, other):
        refuse_sequence("eq_", other)
        return self._inplace(lambda x, o: x == o, other)

    def ne_(self, other):
        refuse_sequence("ne_", other)
        return self._inplace(lambda x, o: x != o, other)

    less_, less_equal_, greater_, greater_equal_, not_equal_ = lt_, le_, gt_, ge_, ne_

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
        return self._inplace(lambda x, a, b: x.addcmul(a, b, value=value), tensor1, tensor2)

    def addcdiv_(self, tensor1, tensor2, *deprecated, value=1):
        """self += value * tensor1 / tensor2"""
        tensor1, tensor2, value = value_first(tensor1, tensor2, deprecated, value, "addcdiv_")
        refuse_integer_addcdiv(tensor1, tensor2)
        return self._inplace(lambda x, a, b: x.addcdiv(a, b, value=value), tensor1, tensor2)

    def lerp_(self, end, weight):
        """self += weight * (end - self)"""
        try:  # lerp checks the dtypes (one dtype, as PyTorch's kernel)
            return self._inplace(lambda x, e: x.lerp(e, weight), end)
        except RuntimeError as err:  # name the operands in PyTorch's order: self, end, weight
            if "must match the size" not in str(err):
                raise
            shapes = [t.shape for t in (self, end, weight) if isinstance(t, TensorBase)]
            raise broadcast_error(*shapes) from None

    def cumprod_(self, dim: int):
        return self._inplace(lambda x: x.cumprod(dim))

    def tril_(self, diagonal: int = 0):
        return self._inplace(lambda x: x.tril(diagonal))

    def triu_(self, diagonal: int = 0):
        return self._inplace(lambda x: x.triu(diagonal))

    def copy_(self, src, non_blocking: bool = False):
        """Copy src's values (broadcast, cast, moved across devices) into self. ``non_blocking``
        is accepted as PyTorch's is; the copy is synchronous either way."""
        if not isinstance(src, TensorBase):
            src = TensorBase._make(get_array_module(self._data).asarray(src), False)
        if src._data.shape != self._data.shape:  # src broadcasts to self; self cannot grow
            try:
                shape = np.broadcast_shapes(self._data.shape, src._data.shape)
            except ValueError:
                raise broadcast_error(self.shape, src.shape) from None
            if shape != self._data.shape:
                raise RuntimeError(
                    f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                    f"{list(shape)}"
                )
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
        (copy_'s rule). An expanded tensor may be filled (its shared places all take the one
        value), as PyTorch allows: the value is written into the memory it reads."""
        if _fills_shared_memory(self, value):
            return self
        self._check_can_write_inplace()
        if isinstance(value, TensorBase):
            if value.ndim:
                raise RuntimeError(
                    f"fill_ only supports a 0-dim value tensor, got one of shape {value.shape}"
                )
            if state.grad_enabled and (self.requires_grad or value.requires_grad):
                return self.copy_(value)
            # cast as copy_ casts (uint8 takes 300.5 as 44, as PyTorch's), then written
            value = cast_array(value._data, self._data.dtype).item()
        # A computed tensor takes the fill's graph node, so its old history gets no gradient;
        # anything else (no graph to keep) is written directly.
        if state.grad_enabled and self.grad_fn is not None:
            filled = get_array_module(self._data).asarray(value)  # a constant: no gradient
            return self._inplace(lambda x: E.CopyInto.apply(x, filled))
        self._data[...] = written_int(value, self._data.dtype)
        self._bump_version()
        return self


def _fills_shared_memory(t: Any, value: Any) -> bool:
    """Fill a read-only NumPy view whose elements share memory (an expanded tensor) through
    the writable array that owns the memory, at the places the view reads; False (nothing
    done) for any other tensor, or where a graph or a tensor value is involved."""
    flags = getattr(t._data, "flags", None)
    # (CuPy's arrays have no writeable flag: an expanded CuPy array is written as it is)
    if getattr(flags, "writeable", True) or isinstance(value, TensorBase):
        return False
    if (state.grad_enabled and t.requires_grad) or t.device.type == "meta":  # (meta: no data)
        return False
    geometry = storage_geometry(t._data)
    if geometry is None or not getattr(geometry[0].flags, "writeable", True):
        return False
    storage, offset, strides = geometry
    storage[strided_positions(np, t._data.shape, strides, offset)] = written_int(
        value, t._data.dtype
    )
    t._bump_version()
    return True
