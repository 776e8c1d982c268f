"""In-place updates: how ``x.add_(y)`` writes into x's memory and keeps autograd right.

Every in-place method (``add_``, ``mul_``, ``x[i] = v``, ``+=``, ``F.relu(x, inplace=True)`` ...)
is written as its out-of-place op plus one call, ``x._inplace(op, *args)``, defined here once:

- outside a graph it is plain memory work: compute the result, write it into x's array, bump x's
  version counter (a backward that saved the old value then refuses to run, see
  ``Function.saved_tensors``);
- inside a graph, x takes over the graph node of the out-of-place result (PyTorch's "rebase
  history"), so backward sees the new value and the old one gets the gradient the op gives it;
- a view made by indexing (``v = x[0]``) that is changed in place passes the change on to its
  base as an ``index_put``, and the views of a changed base follow its new history.

What PyTorch refuses, this refuses too, with the reason: writing into a leaf that requires grad
(or a view of one) while grad mode is on, writing into a read-only (expanded) tensor, and a
result that does not fit self (a larger shape, or a floating result for an integer self).
"""

from __future__ import annotations

import weakref
from typing import Any

from .autograd.grad_mode import no_grad, state
from .autograd.tensor_base import TensorBase
from .ops import indexing as I
from .promotion import CATEGORY


class InPlace:
    """Mixin of Tensor: the in-place machinery every in-place method calls."""

    __slots__ = ()

    _data: Any

    def _check_can_write_inplace(self) -> None:
        """Refuse an in-place change that cannot be right. A read-only array (an expanded
        tensor) cannot be written. And PyTorch refuses, while grad mode is on, to change a leaf
        that requires grad (or a view of one) in place: its gradient would be taken at a value it
        no longer has, and nothing in the graph could notice. Under ``no_grad`` (optimizer steps,
        nn.init) that is allowed."""
        flags = getattr(self._data, "flags", None)
        if flags is not None and not getattr(flags, "writeable", True):
            # NumPy marks an expanded (broadcast) array read-only: its elements share memory, so
            # one write would change several of them. PyTorch refuses most such writes too.
            raise RuntimeError(
                "unsupported operation: the tensor written in place is read-only (an expanded "
                "tensor, where several elements share one memory location, or a read-only "
                "array); clone() it before the in-place operation"
            )
        if not state.grad_enabled:
            return
        if self.requires_grad and self.grad_fn is None:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation. "
                "Change it under `with mg.no_grad():` (as optimizers do), or use the "
                "out-of-place op"
            )
        base = self._base
        if base is not None and base.requires_grad and base.grad_fn is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation. Change the leaf under `with mg.no_grad():`, or use the out-of-place op"
            )

    def _inplace(self, fn, *args):
        """Apply ``fn(self, *args)`` (an out-of-place op) and write its result into self.

        Outside autograd this is plain memory work. If self is part of a graph, self takes over the
        graph node of the result (PyTorch's "rebase history"), so backward sees the new value.
        """
        self._check_can_write_inplace()
        tracked = state.grad_enabled and (
            self.requires_grad or any(isinstance(a, TensorBase) and a.requires_grad for a in args)
        )
        if not tracked:
            with no_grad():
                out = fn(self, *args)
            check_inplace_result(out, self)
            self._data[...] = out._data
            self._bump_version()
            return self
        if self._is_view:
            source = self.__dict__.get("_view_src")
            if source is None:
                raise RuntimeError(
                    "in-place operations on a view of a tensor that is part of a graph are only "
                    "supported for views made by indexing (x[0], x[:, 1:3]), not by reshape, "
                    "permute, expand or split: use the out-of-place op (e.g. x = x.add(y))"
                )
            return self._inplace_on_view(fn, args, *source)
        # The op runs on a private copy of the old value: an op that saves its input for
        # backward (mul_, div_, pow_) must see the value before the write, as PyTorch's saved
        # `self` does. The copy stands in for self in the graph (same node, same output_nr).
        alias = TensorBase._make(self._data.copy(), self.requires_grad)
        alias.grad_fn, alias._output_nr = self.grad_fn, self._output_nr
        out = fn(alias, *args)
        check_inplace_result(out, self)
        self._data[...] = out._data
        self._bump_version()
        # a result without gradient (x //= 2) leaves self a constant of the graph, not a leaf
        self.grad_fn, self._output_nr = out.grad_fn, out._output_nr
        self.requires_grad = out.requires_grad
        self._rebase_views()
        return self

    def _rebase_views(self):
        """Views made by indexing self now read self's new history (as PyTorch regenerates a
        view's grad_fn after its base changed in place), not the history of the old values."""
        for v in list(self.__dict__.get("_views") or ()):
            view = I.GetItem.apply(self, v._view_src[1])
            v.grad_fn, v._output_nr, v.requires_grad = view.grad_fn, view._output_nr, True
            v._rebase_views()

    def _inplace_on_view(self, fn, args, parent, index):
        """PyTorch's rebase for a view ``v = parent[index]`` changed in place: the op's result goes
        into the parent as an index_put (so the parent's history records the change, and the
        overwritten values get no gradient), and v becomes ``parent[index]`` of the new parent.
        A parent that is itself such a view passes the change on to its own parent."""
        alias = TensorBase._make(self._data.copy(), self.requires_grad)
        alias.grad_fn, alias._output_nr = self.grad_fn, self._output_nr
        out = fn(alias, *args)
        check_inplace_result(out, self)
        parent._inplace(lambda p, v: I.IndexPut.apply(p, index, v), out)  # writes self's memory
        view = I.GetItem.apply(parent, index)
        self.grad_fn, self._output_nr = view.grad_fn, view._output_nr
        self.requires_grad = view.requires_grad
        return self


def track_view(view: Any, base: Any, index: Any) -> None:
    """Remember that ``view`` is ``base[index]`` (a basic index: a view of base's memory), so that
    an in-place change of the view can be passed on to base, and a change of base to the view."""
    view._view_src = (base, index)
    views = base.__dict__.get("_views")
    if views is None:
        views = base._views = weakref.WeakSet()
    views.add(view)


def check_inplace_result(out: Any, target: Any) -> None:
    """An in-place op's result must fit self: the same shape (self cannot grow by broadcasting)
    and, for an integer self, no floating result."""
    if out._data.shape != target._data.shape:
        raise RuntimeError(
            f"output with shape {list(target.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)} (an in-place op cannot change self's shape)"
        )
    if target._data.dtype.kind in "biu":
        check_inplace_cast(out, target)


def check_inplace_cast(out: Any, target: Any) -> None:
    """PyTorch refuses an in-place result of a higher category than self (int.add_(1.5))."""
    if CATEGORY[out._data.dtype.kind] > CATEGORY[target._data.dtype.kind]:
        raise RuntimeError(
            f"result type {out.dtype.name} can't be cast to the desired output type "
            f"{target.dtype.name} (an in-place op keeps self's dtype): use the out-of-place op"
        )
