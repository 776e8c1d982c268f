"""``Variable``: the name tensors had before PyTorch 0.4 merged the two classes.

Old tutorials still write ``Variable(torch.randn(3), requires_grad=True)``. As in PyTorch today,
the constructor returns a plain Tensor (sharing the data) and every Tensor counts as a Variable
for ``isinstance``; nothing else of the old API (``.data`` aside, which Tensor has) is needed.
"""

from __future__ import annotations

from typing import Any

from .tensor_base import TensorBase


class _VariableMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, TensorBase)


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)`` -> ``tensor`` itself (a leaf that requires grad
    when asked), as PyTorch's legacy constructor behaves."""

    def __new__(cls, data: TensorBase, requires_grad: bool = False, volatile: bool = False) -> Any:
        if not isinstance(data, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad:
            return data.detach().requires_grad_(True)
        return data
