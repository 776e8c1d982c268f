"""TensorBase: the part of a tensor that autograd works with.

Layers point down: ``autograd`` is built before ``ops``, and ``Tensor``'s methods are built on ops,
so autograd cannot import Tensor. Instead it defines here what it needs of a tensor (the array,
``requires_grad``, ``grad``, ``grad_fn``, the version counter), and ``Tensor`` (``_tensor.py``)
subclasses it. Autograd tests ``isinstance(x, TensorBase)`` and never names Tensor.

Ops must still *return* full Tensors, with all their methods. So the subclass declares, in its
class statement, that it is the class ops return::

    class Tensor(TensorMath, InPlace, ToShortcuts, TensorBase, ops_return=True): ...

``TensorBase._make`` then builds instances of that class. (The other choices were worse: a Tensor
class patched into this package after the fact is invisible to a reader of this package, and
passing the class to every ``Function.apply`` would put it on every call.)

Gradients are Tensors too, so the engine sums, reduces and casts them with Tensor's own methods
(``+``, ``sum_to_shape``, ``_cast``), which ops provide.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .vmap_samples import RUNNING as vmap_running
from .vmap_samples import spread as spread_vmap_sample

_ops_return: type  # the class ops return: the subclass declared with ops_return=True
# An instance without running __init__. Bound once here: looking `object.__new__` up costs more
# than the rest of _make's work, and every op makes a tensor this way.
_new = object.__new__
# True inside an inference_mode() block (grad_mode.inference_mode keeps it): a tensor made then is
# an inference tensor (Tensor.is_inference). One flag for the process, not per thread, so that
# making a tensor costs one global read.
_inference = False


class TensorBase:
    """An array plus the fields autograd reads and writes."""

    # The array lives in a slot; everything else in the instance dict, which Python creates only
    # when a first attribute is set. With the defaults below on the class, a tensor that is not
    # part of a graph never needs that dict: making one stays cheap (every op makes one).
    __slots__ = ("_data", "__dict__", "__weakref__")
    requires_grad = False
    grad = None
    _grad = None  # the field behind Tensor's ``grad`` property, which the engine writes
    grad_fn = None  # the node (Function) that made this tensor; None for a leaf
    _output_nr = 0  # which output of grad_fn this tensor is
    _n_outputs = 1  # as a vertex of the backward graph (a leaf), it has one output
    _vc = None  # version counter: a one-item list shared with views, created on first need
    _hooks = None  # a leaf's gradient hooks (a non-leaf's live on its grad_fn)
    _post_accumulate_grad_hooks = None  # a leaf's hooks run after its .grad was updated
    _is_view = False
    _inference_tensor = False  # made inside inference_mode()

    def __init_subclass__(cls, ops_return: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if ops_return:
            global _ops_return
            _ops_return = cls

    @staticmethod
    def _make(data: Any, requires_grad: bool = False) -> Any:
        """Wrap an array in a Tensor, without checks or copies (the internal constructor). A NumPy
        scalar (what NumPy returns for a full reduction or an elementwise op on a 0-d array)
        becomes a 0-d array: every tensor holds an ndarray (or CuPy array)."""
        t = _new(_ops_return)
        if type(data) is not np.ndarray and isinstance(data, np.generic):  # (the exact-type
            data = np.asarray(data)  # test first: it is cheaper, and nearly always decides)
        t._data = data
        if requires_grad:
            t.requires_grad = True
        if _inference:
            t._inference_tensor = True
        return t

    def _derived(self, data: Any, *others: Any) -> Any:
        """``data`` as a tensor outside the graph computed from this tensor (and ``others``):
        ``_make(data)``, and inside vmap one sample's result when an input is a sample."""
        t = TensorBase._make(data)
        if vmap_running:
            spread_vmap_sample((self, *others), t)
        return t

    def is_inference(self) -> bool:
        """Was this tensor made inside an ``inference_mode()`` block?"""
        return self._inference_tensor

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    # ------------------------------------------------------------------ versions
    def _version_counter(self) -> list:
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    @property
    def _version(self) -> int:
        return self._vc[0] if self._vc is not None else 0

    def _bump_version(self) -> None:
        """One more in-place write (the first makes the counter: see _version_counter)."""
        vc = self._vc
        if vc is None:
            self._vc = [1]
        else:
            vc[0] += 1

    def detach(self) -> Any:
        """The same memory, cut from the graph (shares the version counter, as in PyTorch)."""
        t = TensorBase._make(self._data)
        t._vc = self._version_counter()
        if vmap_running:  # still one sample of a running vmap
            spread_vmap_sample((self,), t)
        return t


# PyTorch's words (a learner searching for them finds the explanations)
_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead."
)


def warn_non_leaf_grad(t: TensorBase) -> None:
    """``.grad`` read on a non-leaf tensor: unless it retains its gradient, warn as PyTorch
    does (backward never fills it there, so its ``None`` is almost always a slip)."""
    if not t.__dict__.get("_retains_grad"):
        warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=3)
