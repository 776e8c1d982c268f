"""Parameter: a Tensor that a Module registers as something to learn.

A Parameter is an ordinary Tensor with two differences: it requires grad by default, and assigning
one to a Module attribute (``self.weight = Parameter(...)``) registers it, so ``parameters()``,
``state_dict()`` and ``to()`` find it. Everything else (math, ``.grad``, ``.data``) is the Tensor's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..backend import get_array_module, to_numpy
from ..creation import empty


class Parameter(Tensor):
    """``Parameter(data, requires_grad=True)``: wraps ``data``'s memory (no copy) as a leaf."""

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = empty(0)
        if isinstance(data, Tensor):
            self._data = data._data
            # Same memory, so the same version counter: an in-place change through either name
            # is seen by a graph that saved the other.
            self._vc = data._version_counter()
        else:
            Tensor.__init__(self, data)
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol: int):
        # A Parameter pickles as a Parameter (a plain Tensor would lose its registration role).
        return (_rebuild_parameter, (to_numpy(self._data), self.requires_grad))

    def __deepcopy__(self, memo: dict) -> Parameter:
        """A copy with its own memory on the same device (``copy.deepcopy(model)``). As
        PyTorch's, it copies the values and ``requires_grad`` only: the copy has no ``grad``."""
        if id(self) in memo:
            return memo[id(self)]
        xp = get_array_module(self._data)
        out = Parameter(Tensor._make(xp.array(self._data, copy=True), False), self.requires_grad)
        memo[id(self)] = out
        return out


def _rebuild_parameter(array: Any, requires_grad: bool) -> Parameter:
    """Unpickling entry point of a Parameter."""
    if not getattr(array, "flags", None) or not array.flags.writeable:
        array = np.array(array, copy=True)
    return Parameter(Tensor._make(array, False), bool(requires_grad))
