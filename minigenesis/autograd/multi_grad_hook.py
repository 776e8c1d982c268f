"""``register_multi_grad_hook(tensors, fn, mode=...)`` (PyTorch's ``torch.autograd.graph``): one
hook over several tensors' gradients, once per backward pass.

- ``mode="all"`` (default): ``fn(grads)`` once every tensor of ``tensors`` that this backward
  reaches has its gradient; ``grads`` is aligned with ``tensors``, None for a tensor that got
  none in this pass.
- ``mode="any"``: ``fn(grad)`` with the first gradient of any of ``tensors`` in this pass.

Each tensor gets an ordinary gradient hook (``Tensor.register_hook``) that reports to the
shared state of its backward pass: the one the engine records as running in this thread
(``grad_mode.state.backward``). Which tensors count is decided as PyTorch's engine decides which
nodes it runs: a tensor's vertex (its ``grad_fn``, or the tensor itself for a leaf) must be reached
by the pass and, when the pass computes the gradients of given inputs only (``autograd.grad``,
``backward(inputs=...)``), be one of them or lead to one. Inside ``autograd.grad`` mode="all"
refuses a leaf that is one of the grad's inputs, with PyTorch's RuntimeError (its engine cannot
say whether a leaf's node will run there); mode="any" takes it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..hook_handle import RemovableHandle
from .engine import _Backward
from .function import Function
from .grad_mode import state


def current_backward() -> _Backward | None:
    """The backward pass that is running the caller (None outside of backward)."""
    return state.backward


def _running_backward() -> _Backward:
    task = current_backward()
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def _will_run(task: _Backward, vertex: Any) -> bool:
    """Whether PyTorch's engine would run ``vertex`` in the pass ``task`` (see above)."""
    if vertex not in task.waiting:
        return False
    if not task.capture:
        return True
    inputs = {key[0] for key in task.wanted}  # (id of vertex, output_nr) of each input
    stack, seen = [vertex], set()
    while stack:  # does some path from vertex lead to an input?
        v = stack.pop()
        if id(v) in inputs:
            return True
        if id(v) not in seen and isinstance(v, Function):
            seen.add(id(v))
            stack.extend(edge[0] for edge in v.next_edges if edge is not None)
    return False


def _refuse_leaf_inputs(task: _Backward, vertices: list) -> None:
    """PyTorch's mode="all" asks its engine whether each tensor's node will run, which it
    cannot answer inside autograd.grad for a leaf that is one of the grad's inputs."""
    if task.capture and not task.into_grad:
        inputs = {key[0] for key in task.wanted}
        if any(not isinstance(v, Function) and id(v) in inputs for v in vertices):
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported."
            )


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
    vertices = [t.grad_fn if t.grad_fn is not None else t for t in tensors]
    if mode == "any":
        return _MultiHandle(_any_hooks(tensors, vertices, fn))
    # per backward pass: [hooks run so far, hooks expected, the gradients, which ones count]
    passes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def hook_for(index: int) -> Callable:
        def inner_hook(grad: Any) -> None:
            task = _running_backward()
            if task not in passes:  # the first of these hooks in this pass
                _refuse_leaf_inputs(task, vertices)
                runs = [_will_run(task, v) for v in vertices]
                passes[task] = [0, sum(runs), [None] * len(tensors), runs]
            state = passes[task]
            if not state[3][index]:
                return
            state[0] += 1
            state[2][index] = grad
            if state[0] == state[1]:
                del passes[task]
                fn(state[2])

        return inner_hook

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))


def _any_hooks(tensors: list, vertices: list, fn: Callable[[Any], None]) -> tuple:
    ran: weakref.WeakSet = weakref.WeakSet()  # the backward passes fn has run in

    def hook_for(vertex: Any) -> Callable:
        def wrapped_fn(grad: Any) -> None:
            task = _running_backward()
            if task in ran or not _will_run(task, vertex):
                return
            ran.add(task)
            fn(grad)

        return wrapped_fn

    return tuple(t.register_hook(hook_for(v)) for t, v in zip(tensors, vertices) if t.requires_grad)
