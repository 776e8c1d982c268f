"""What every ``mg.*`` form shares: PyTorch's ``out=`` keyword (``_with_out``, written in
out_arg.py: the result written into a given tensor, with PyTorch's checks), a Python number made
a tensor on its partner's device (``_t``, ``_first``) and the check that the input is a tensor
(``_check``), and PyTorch's TypeError for a list or tuple operand (``_operands``)."""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..conversions import as_array
from ..out_arg import with_out as _with_out  # noqa: F401 (each functions/ file takes it here)
from ..promotion import refuse_sequence
from ..size import python_number


def _t(x: Any, like: Tensor | None = None) -> Tensor:
    """``x`` as a tensor on ``like``'s device. A Python float joining a float64 tensor keeps its
    double precision: the op runs in float64, and the default float32 would round the number
    first (PyTorch computes with the number as given)."""
    if isinstance(x, Tensor) or getattr(x, "is_sparse", False):  # (a sparse tensor as it is)
        return x
    x = python_number(x)  # (as in x + t)
    double = like is not None and isinstance(x, float) and like.dtype == _dt.float64
    dtype = _dt.float64 if double else None
    return Tensor._make(as_array(x, dtype, like.device if like is not None else None), False)


def _first(x: Any, other: Any) -> Tensor:
    """``x`` as a tensor (a Python number joins ``other``'s device), for mg.add(2, t) ..."""
    return _t(x, other if isinstance(other, Tensor) else None)


def _check(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, got {type(x).__name__}")
    return x


def _operands(name: str, x: Any, other: Any) -> None:
    """mg.add(x, other) and its kin take tensors and numbers: a list or tuple in either place
    is PyTorch's TypeError (naming the argument and its position)."""
    refuse_sequence(name, x, 1, "input")
    refuse_sequence(name, other, 2)
