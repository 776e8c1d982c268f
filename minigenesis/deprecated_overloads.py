"""The old argument orders PyTorch still accepts (with a deprecation warning):
``x.add_(2, y)`` for ``x.add_(y, alpha=2)`` and ``x.addcmul_(2, a, b)`` for
``x.addcmul_(a, b, value=2)``. Older programs (and tutorials written for PyTorch 0.4) use them."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from .autograd.tensor_base import TensorBase


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, bool | TensorBase)


def scalar_first(other: Any, rest: tuple, alpha: Any, name: str) -> tuple:
    """``(other, alpha)`` for ``name(other, alpha=...)`` or the old ``name(alpha, other)``."""
    if not rest:
        return other, alpha
    if len(rest) == 1 and _is_number(other) and isinstance(rest[0], TensorBase | numbers.Number):
        warnings.warn(
            f"This overload of {name} is deprecated: {name}(Number alpha, Tensor other). "
            f"Use {name}(Tensor other, *, Number alpha = 1) instead",
            UserWarning,
            stacklevel=3,
        )
        return rest[0], other
    raise TypeError(
        f"{name}() takes a tensor or number and the keyword alpha=, got {1 + len(rest)} "
        "positional arguments"
    )


def value_first(tensor1: Any, tensor2: Any, rest: tuple, value: Any, name: str) -> tuple:
    """``(tensor1, tensor2, value)`` for ``name(t1, t2, value=...)`` or the old
    ``name(value, t1, t2)``."""
    if not rest:
        return tensor1, tensor2, value
    if len(rest) == 1 and _is_number(tensor1) and isinstance(rest[0], TensorBase):
        warnings.warn(
            f"This overload of {name} is deprecated: {name}(Number value, Tensor tensor1, "
            f"Tensor tensor2). Use {name}(Tensor tensor1, Tensor tensor2, *, Number value = 1)",
            UserWarning,
            stacklevel=3,
        )
        return tensor2, rest[0], tensor1
    raise TypeError(f"{name}() takes two tensors and the keyword value=")
