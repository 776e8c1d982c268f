"""NumPy ufuncs called with a tensor: ``np.exp(t)``, ``np.isfinite(t)``, ``np.add(a, t)``.

PyTorch answers these with a Tensor: NumPy computes on the tensor's array (``t.numpy()``, so a
tensor that requires grad is refused) and the result is wrapped back as a tensor. The ufuncs
that are Python operators (``+``, ``*``, ``<``, ``@`` ...) are what ``ndarray (op) Tensor`` calls,
so they run as the Tensor's own operator instead (PyTorch's type promotion, autograd kept):
``np.add(a, t)``, ``a + t`` and ``t + a`` are the same tensor. ``out=`` and the ufunc methods
(``np.add.reduce`` ...) are refused (TypeError from NumPy), as a tensor is no NumPy output.

One exception: ``a @ t`` (``np.matmul(a, t)``: the same call here) raises PyTorch's TypeError,
"unsupported operand type(s) for @: 'numpy.ndarray' and 'Tensor'" (its ``Tensor.__rmatmul__``
takes only tensors). ``t @ a`` is the tensor product, as it is in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .autograd.tensor_base import TensorBase
from .conversions import as_array

# ufunc: (the Tensor's operator when it is the left operand, the one when it is the right)
_OPERATORS = {
    np.add: ("__add__", "__radd__"),
    np.subtract: ("__sub__", "__rsub__"),
    np.multiply: ("__mul__", "__rmul__"),
    np.true_divide: ("__truediv__", "__rtruediv__"),
    np.floor_divide: ("__floordiv__", "__rfloordiv__"),
    np.remainder: ("__mod__", "__rmod__"),
    np.power: ("__pow__", "__rpow__"),
    np.matmul: ("__matmul__", "__rmatmul__"),
    np.bitwise_and: ("__and__", "__rand__"),
    np.bitwise_or: ("__or__", "__ror__"),
    np.bitwise_xor: ("__xor__", "__rxor__"),
    np.left_shift: ("__lshift__", "__rlshift__"),
    np.right_shift: ("__rshift__", "__rrshift__"),
    np.less: ("__lt__", "__gt__"),  # a < t is t > a
    np.less_equal: ("__le__", "__ge__"),
    np.greater: ("__gt__", "__lt__"),
    np.greater_equal: ("__ge__", "__le__"),
    np.equal: ("__eq__", "__eq__"),
    np.not_equal: ("__ne__", "__ne__"),
}


def tensor_array_ufunc(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Tensor.__array_ufunc__``: an operator ufunc as the Tensor's operator, any other ufunc
    computed by NumPy on the tensors' arrays and returned as tensor(s)."""
    if method != "__call__" or kwargs.get("out") is not None:
        return NotImplemented
    names = _OPERATORS.get(ufunc)
    if names is not None and len(inputs) == 2 and not kwargs:
        a, b = inputs
        out = getattr(a, names[0])(b) if isinstance(a, TensorBase) else getattr(b, names[1])(a)
        if out is NotImplemented and ufunc is np.matmul:  # (a @ t, t @ np.float64(2))
            raise TypeError(
                f"unsupported operand type(s) for @: '{_type_name(a)}' and '{_type_name(b)}'"
            )
        return out
    device = next(x.device for x in inputs if isinstance(x, TensorBase))
    arrays = [np.asarray(x) if isinstance(x, TensorBase) else x for x in inputs]
    out = ufunc(*arrays, **kwargs)
    if isinstance(out, tuple):  # np.modf, np.frexp, np.divmod
        return tuple(TensorBase._make(as_array(np.asarray(o), None, device), False) for o in out)
    return TensorBase._make(as_array(np.asarray(out), None, device), False)


def _type_name(x: Any) -> str:
    """A type as Python's operator errors name it: 'numpy.ndarray', 'float', 'Tensor'."""
    t = type(x)
    return f"numpy.{t.__name__}" if t.__module__.startswith("numpy") else t.__name__
