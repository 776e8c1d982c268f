"""``register_multi_grad_hook(tensors, fn, mode=...)`` (PyTorch's ``torch.autograd.graph``): one
hook over several tensors' gradients, once per backward pass.

- ``mode="all"`` (default): ``fn(grads)`` once every tensor of ``tensors`` that this backward
  reaches has its gradient; ``grads`` is aligned with ``tensors``, None for a tensor that got
  none in this pass.
- ``mode="any"``: ``fn(grad)`` with the first gradient of any of ``tensors`` in this pass.

Each tensor gets an ordinary gradient hook (``Tensor.register_hook``) that reports to the
shared state of its backward pass. Which pass is running is read off the call stack (the
engine's ``_Backward`` whose method runs the tensor hooks), so the engine pays nothing for this
rarely used feature; and which tensors the pass will reach is its table of vertices still
waiting for gradients (a tensor's vertex: its ``grad_fn``, or the tensor itself for a leaf).
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..hook_handle import RemovableHandle
from .engine import _Backward


def current_backward() -> _Backward | None:
    """The backward pass that is running the caller (None outside of backward)."""
    frame = sys._getframe(1)
    while frame is not None:
        task = frame.f_locals.get("self")
        if type(task) is _Backward:
            return task
        frame = frame.f_back
    return None


def _running_backward() -> _Backward:
    task = current_backward()
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


class _MultiHandle(RemovableHandle):
    """``remove()`` unregisters the hook from every tensor."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(
    tensors: Sequence[Any], fn: Callable[..., None], *, mode: str = "all"
) -> RemovableHandle:
    """Call ``fn`` once per backward pass over the gradients of ``tensors`` (see above)."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = list(tensors)
    if mode == "any":
        return _MultiHandle(_any_hooks(tensors, fn))
    vertices = [t.grad_fn if t.grad_fn is not None else t for t in tensors]
    # per backward pass: [hooks run so far, hooks expected, the gradients]
    passes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def hook_for(index: int) -> Callable:
        def inner_hook(grad: Any) -> None:
            task = _running_backward()
            if task not in passes:  # the first of these hooks in this pass
                expected = sum(v in task.waiting for v in vertices)  # (vertices it reaches)
                passes[task] = [0, expected, [None] * len(tensors)]
            state = passes[task]
            state[0] += 1
            state[2][index] = grad
            if state[0] == state[1]:
                del passes[task]
                fn(state[2])

        return inner_hook

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))


def _any_hooks(tensors: list, fn: Callable[[Any], None]) -> tuple:
    ran: weakref.WeakSet = weakref.WeakSet()  # the backward passes fn has run in

    def wrapped_fn(grad: Any) -> None:
        task = _running_backward()
        if task in ran:
            return
        ran.add(task)
        fn(grad)

    return tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
