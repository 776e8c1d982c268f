"""Parameter: a Tensor that a Module registers as something to learn.

A Parameter is an ordinary Tensor with two differences: it requires grad by default, and assigning
one to a Module attribute (``self.weight = Parameter(...)``) registers it, so ``parameters()``,
``state_dict()`` and ``to()`` find it. Everything else (math, ``.grad``, ``.data``) is the Tensor's.

``Buffer`` marks a tensor that a Module attribute assignment registers as a buffer; the lazy
placeholders (``UninitializedParameter``) are reachable here too, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..backend import get_array_module, pickled_array, unpickled_array
from ..creation import empty
from ..storage_sharing import with_attributes


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
        # Attributes the user set (p.no_weight_decay = True) follow, as PyTorch's pickle keeps
        # them (its deepcopy below does not, and neither does ours).
        array, *location = pickled_array(self._data)  # a GPU array names its device
        return with_attributes(self, (_rebuild_parameter, (array, self.requires_grad, *location)))

    def __deepcopy__(self, memo: dict) -> Parameter:
        """A copy with its own memory on the same device (``copy.deepcopy(model)``). As
        PyTorch's, it copies the values and ``requires_grad`` only: the copy has no ``grad``."""
        if id(self) in memo:
            return memo[id(self)]
        xp = get_array_module(self._data)
        out = Parameter(Tensor._make(xp.array(self._data, copy=True), False), self.requires_grad)
        memo[id(self)] = out
        return out


def _rebuild_parameter(array: Any, requires_grad: bool, location: str | None = None) -> Parameter:
    """Unpickling entry point of a Parameter (one pickled on a GPU comes back on it)."""
    return Parameter(Tensor._make(unpickled_array(array, location), False), bool(requires_grad))


def __getattr__(name: str) -> Any:
    """``nn.parameter.UninitializedParameter`` / ``UninitializedBuffer`` / ``is_lazy``, where
    PyTorch keeps them: they are defined with the lazy modules (``nn/lazy.py``, which imports
    this module), so they are looked up there on first use."""
    if name in ("UninitializedParameter", "UninitializedBuffer", "is_lazy"):
        from . import lazy

        return getattr(lazy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _BufferMeta(type(Tensor)):
    """``isinstance(t, Buffer)`` is true for a tensor marked by ``Buffer(...)``: the marker is an
    attribute, so the object itself stays a plain Tensor (``type(module.buf)`` is ``Tensor``)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and getattr(obj, "_is_buffer", False) is True


class Buffer(Tensor, metaclass=_BufferMeta):
    """``nn.Buffer(data, persistent=True)``: assigning it to a Module attribute registers a buffer
    (``self.mean = nn.Buffer(torch.zeros(n))`` is ``self.register_buffer("mean", ...)``).
    Like PyTorch's, it returns ``data.detach()`` marked as a buffer, not a new Tensor class."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:
        if data is None:
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
