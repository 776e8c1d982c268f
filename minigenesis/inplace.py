"""In-place updates: how ``x.add_(y)`` writes into x's memory and keeps autograd right.

Every in-place method (``add_``, ``mul_``, ``x[i] = v``, ``+=``, ``F.relu(x, inplace=True)`` ...)
is written as its out-of-place op plus one call, ``x._inplace(op, *args)``, defined here once:

- outside a graph it is plain memory work: compute the result, write it into x's array, bump x's
  version counter (a backward that saved the old value then refuses to run, see
  ``Function.saved_tensors``);
- inside a graph, x takes over the graph node of the out-of-place result (PyTorch's "rebase
  history"), so backward sees the new value and the old one gets the gradient the op gives it;
- a view (``v = x[0]``, ``x.view(2, 1)``, ``x.t()``, ``x.diagonal()``, a piece of ``x.split``)
  that is changed in place passes the change on to its base as an ``index_put`` at the places
  it covers, and every view of a changed base follows its new history: each view remembers how
  to make itself again from its base (its *replay*), and is made again after the write.

What PyTorch refuses, this refuses too, with the reason: writing into a leaf that requires grad
(or a view of one) while grad mode is on, writing into a read-only (expanded) tensor, and a
result that does not fit self (a larger shape, or a floating result for an integer self).
"""

from __future__ import annotations

import weakref
from typing import Any

from .autograd.function import follow_counter
from .autograd.grad_mode import no_grad, state
from .autograd.grad_reuse import memory_is_private
from .autograd.tensor_base import TensorBase
from .backend import get_array_module, quiet_fp
from .dtypes import scalar_type_name
from .meta_array import MetaArray
from .ops import indexing as I
from .ops import shape as S
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
        strides = self._data.strides
        if (
            0 in strides
            and self._data.size > 1  # (NumPy may give an empty array zero strides)
            and any(s == 0 and n > 1 for s, n in zip(strides, self._data.shape))
            and type(self._data) is not MetaArray  # (data-less: a write keeps nothing)
        ):
            # a writable view with a stride-0 dim (as_strided(..., (0, 1))): the same refusal
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation."
            )
        if self._inference_tensor and not state.inference_mode:
            # it has no version counter: a graph that saved it could not see the change
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed. You "
                "can make a clone to get a normal tensor before doing inplace update."
            )
        if not state.grad_enabled:
            return
        if self._is_view and self.__dict__.get("_made_in_no_grad") and self._base.requires_grad:
            # its history was not recorded, so the write could not reach the base's graph: the
            # base's gradient would be taken as if the write never happened
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad mode "
                "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
                "You can clarify your code by moving both the view and the inplace either both "
                "inside the no_grad block (if you don't want the inplace to be tracked) or both "
                "outside (if you want the inplace to be tracked)."
            )
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
            if source is None:  # (every view op tracks its views: this is a safety net)
                raise RuntimeError(
                    "in-place operation on a view whose base is unknown: use the out-of-place "
                    "op (e.g. x = x.add(y))"
                )
            if getattr(source[1], "multiple_views", False):
                raise RuntimeError(
                    "a view made by a function that returns several views (split, chunk) is "
                    "being modified in place in a graph; as PyTorch, this is refused: use the "
                    "out-of-place op"
                )
            return self._inplace_on_view(fn, args, *source)
        # The op runs on a private copy of the old value: an op that saves its input for
        # backward (mul_, div_, pow_) must see the value before the write, as PyTorch's saved
        # `self` does. The copy stands in for self in the graph (same node, same output_nr).
        # When nothing but self holds its memory (grad_reuse.memory_is_private), the old array
        # itself is that private value, and self takes the result's array instead of copying it.
        private = memory_is_private(self) and not any(a is self for a in args)  # (h.mul_(h))
        old = self._data if private else self._data.copy()
        alias = TensorBase._make(old, self.requires_grad)
        alias.grad_fn, alias._output_nr = self.grad_fn, self._output_nr
        del old
        out = fn(alias, *args)
        check_inplace_result(out, self)
        if private and out._data.dtype == self._data.dtype:
            self._data = out._data
        else:
            self._data[...] = out._data
        self._bump_version()
        # a result without gradient (x //= 2) leaves self a constant of the graph, not a leaf
        self.grad_fn, self._output_nr = out.grad_fn, out._output_nr
        if out._vc is not None:
            # The op saved its output (relu_, exp_, sigmoid_ keep y for backward), and self is
            # that output from now on: a later write into self must show in the record's
            # version, as it does in PyTorch (y.relu_(); y += 1 -> backward refuses). Self keeps
            # its own counter, just bumped: a node that saved self's old value sees the change.
            follow_counter(out.grad_fn, out._vc, self._version_counter())
        self.requires_grad = out.requires_grad
        self._rebase_views()
        return self

    def _inplace_ufunc(self, ufunc: str, fn, other):
        """``self._inplace(fn, other)`` for an op that is the array module's ``ufunc`` ("add",
        "subtract", "multiply"), in one pass where that gives the same numbers: outside a graph
        (no anomaly mode), self float32/float64, and ``other`` a Python number or a tensor of
        self's dtype and array type and shape. The ufunc then writes into self's memory
        (``np.add(x, y, out=x)``); the general path computes the result into a new array and
        copies it back (``p.data += -lr * p.grad`` on 200 x 200 float32: 39 -> 15 us)."""
        if state.grad_enabled and (self.requires_grad or getattr(other, "requires_grad", False)):
            return self._inplace(fn, other)  # (holding self._data here would make it not private)
        data = self._data
        if data.dtype.kind != "f" or data.dtype.itemsize < 4 or state.anomaly:
            return self._inplace(fn, other)
        if isinstance(other, TensorBase):
            o = other._data
            if o.dtype is not data.dtype or type(o) is not type(data) or o.shape != data.shape:
                return self._inplace(fn, other)
        elif type(other) not in (float, int):
            return self._inplace(fn, other)
        else:
            o = other
        self._check_can_write_inplace()
        _ufunc_into(getattr(get_array_module(data), ufunc), data, o)
        self._bump_version()
        return self

    def _rebase_views(self):
        """The views of self now read self's new history (as PyTorch regenerates a view's grad_fn
        after its base changed in place), not the history of the old values: each is made again
        from self by its replay, and passes the change on to its own views."""
        for v in list(self.__dict__.get("_views") or ()):
            view = v._view_src[1](self)
            v.grad_fn, v._output_nr = view.grad_fn, view._output_nr
            v.requires_grad = view.requires_grad
            v._rebase_views()

    def _inplace_on_view(self, fn, args, parent, replay, index):
        """PyTorch's rebase for a view ``v = replay(parent)`` changed in place: the op's result
        goes into the parent as an index_put at the places v covers (so the parent's history
        records the change, and the overwritten values get no gradient), and v is made again from
        the new parent. A parent that is itself a view passes the change on to its own parent.

        A parent whose elements overlap in memory (an unfold with step < size, an as_strided)
        cannot take the write: its other copies of a written element would still hold the old
        value and could win the write into its own parent. The change then skips it and goes to
        the parent's parent, at the places of the composed view."""
        outer = parent.__dict__.get("_view_src")
        if outer is not None and outer[2] is None and _may_overlap(parent._data):
            grand, outer_replay, _ = outer
            return self._inplace_on_view(fn, args, grand, lambda b: replay(outer_replay(b)), None)
        alias = TensorBase._make(self._data.copy(), self.requires_grad)
        alias.grad_fn, alias._output_nr = self.grad_fn, self._output_nr
        out = fn(alias, *args)
        check_inplace_result(out, self)
        parent._inplace(_write_into(parent, replay, index), out)  # writes self's memory too
        view = replay(parent)  # (parent rebased self already: this is for a parent not tracked)
        self.grad_fn, self._output_nr = view.grad_fn, view._output_nr
        self.requires_grad = view.requires_grad
        return self


def _may_overlap(a: Any) -> bool:
    """False when no two elements of array ``a`` share memory: its dims, sorted by stride, each
    step past everything the smaller-stride dims span (True is a "maybe", e.g. unfold windows)."""
    span = a.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(a.strides, a.shape) if n > 1):
        if stride < span:
            return True
        span += stride * (n - 1)
    return False


def _write_into(parent: Any, replay, index: Any):
    """The out-of-place op ``(p, v) -> p with the view's elements replaced by v``: an index_put
    at the view's own index (a view made by indexing), else at the flat positions of p that the
    view covers, found by replaying the view on the numbers 0 .. p.numel() - 1."""
    if index is not None:
        return lambda p, v: I.IndexPut.apply(p, index, v)
    xp = get_array_module(parent._data)
    numbers = TensorBase._make(xp.arange(parent._data.size).reshape(parent._data.shape))
    with no_grad():
        places = (replay(numbers)._data.reshape(-1),)

    def write(p, v):
        flat = I.IndexPut.apply(S.Reshape.apply(p, (-1,)), places, S.Reshape.apply(v, (-1,)))
        return S.Reshape.apply(flat, p._data.shape)

    return write


def track_view(view: Any, base: Any, replay, index: Any = None) -> None:
    """Remember that ``view`` is ``replay(base)``, a view of base's memory (``index``: the basic
    index when it was made by base[index]), so that an in-place change of the view can be passed
    on to base, and a change of base to the view (replay makes it again, in the graph)."""
    view._view_src = (base, replay, index)
    if not state.grad_enabled:  # (PyTorch refuses to write into it later with grad mode on)
        view._made_in_no_grad = True
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
            f"result type {scalar_type_name(out.dtype)} can't be cast to the desired output type "
            f"{scalar_type_name(target.dtype)} (an in-place op keeps self's dtype; the "
            "out-of-place op promotes)"
        )


@quiet_fp  # inf - inf is NaN and a product past the range is inf, silently, as in PyTorch
def _ufunc_into(ufunc: Any, data: Any, other: Any) -> None:
    """data = ufunc(data, other), written into data's own memory."""
    ufunc(data, other, out=data)
