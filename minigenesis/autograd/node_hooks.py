"""Hooks on a graph node, PyTorch's ``grad_fn.register_prehook`` / ``grad_fn.register_hook``:

- ``node.register_prehook(hook)``: ``hook(grad_outputs)`` when the gradients of the node's
  outputs are complete, before its backward runs (after the hooks of the output tensors,
  ``Tensor.register_hook``); returning a tuple replaces ``grad_outputs``;
- ``node.register_hook(hook)``: ``hook(grad_inputs, grad_outputs)`` after its backward, with the
  gradients it computed for its inputs (those PyTorch's node lists, ``next_functions``: not
  arguments such as ``dim``); returning a tuple replaces ``grad_inputs``.

A node no gradient reached does not run, and neither do its hooks. Each registration returns a
handle whose ``remove()`` unregisters the hook.

How: the first registration gives the node its own ``backward`` (an instance attribute over the
class's), which runs the hooks around the class's backward, so the engine's loop over nodes is
unchanged. An output no gradient reached is None in ``grad_outputs`` (as in PyTorch): the engine
zero-fills it for backward, so it runs ``before_materializing`` first where that can happen.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from types import GeneratorType
from typing import Any

from ..hook_handle import RemovableHandle, add_hook
from .node_names import listed_places


class NodeHooks:
    """The hook registration of a graph node (``Function`` derives from it)."""

    _node_pre_hooks: OrderedDict | None = None  # grad_fn.register_prehook
    _node_post_hooks: OrderedDict | None = None  # grad_fn.register_hook

    def register_hook(self, output_nr: Any, hook: Any = None) -> Any:
        """``register_hook(hook)``: PyTorch's node hook ``hook(grad_inputs, grad_outputs)``
        after this node's backward (returns a handle). ``register_hook(nr, hook)``: run
        ``hook(grad)`` on the gradient of output ``nr`` before this node uses it (what
        Tensor.register_hook does on a non-leaf)."""
        if hook is None:
            return add_node_hook(self, output_nr, pre=False)
        if self._grad_hooks is None:
            self._grad_hooks = {}
        self._grad_hooks.setdefault(output_nr, []).append(hook)
        return None

    def register_prehook(self, hook: Callable) -> RemovableHandle:
        """PyTorch's node pre-hook ``hook(grad_outputs)`` before this node's backward."""
        return add_node_hook(self, hook, pre=True)


def add_node_hook(node: Any, hook: Callable, pre: bool) -> RemovableHandle:
    """Register ``hook`` on ``node`` (a pre-hook if ``pre``) and return its handle."""
    if not callable(hook):
        raise TypeError(f"hook must be callable, got {type(hook).__name__}")
    name = "_node_pre_hooks" if pre else "_node_post_hooks"
    hooks = node.__dict__.get(name)
    if hooks is None:
        hooks = OrderedDict()
        setattr(node, name, hooks)
    node.backward = _hooked_backward  # (the engine calls node.backward(node, *grads))
    return add_hook(hooks, hook)


def _replaced(new: Any, old: tuple, hook: Callable) -> tuple:
    """A hook's return value as the new gradients (checked: as many as before)."""
    new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
    if len(new) != len(old):
        raise RuntimeError(
            f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of "
            f"values (got {len(new)}, but expected {len(old)})"
        )
    return new


def _run_pre_hooks(node: Any, grad_outputs: tuple) -> tuple:
    for hook in list((node._node_pre_hooks or {}).values()):
        new = hook(grad_outputs)
        if new is not None:
            grad_outputs = _replaced(new, grad_outputs, hook)
    return grad_outputs


def before_materializing(node: Any, grads: list) -> list:
    """The engine's call before it zero-fills missing output gradients: the pre-hooks run here
    (seeing None there), and the result is kept for the hooks after backward."""
    grad_outputs = _run_pre_hooks(node, tuple(grads))
    node._hook_grad_outputs = grad_outputs  # (_hooked_backward takes it off again)
    return list(grad_outputs)


def _hooked_backward(node: Any, *grads: Any) -> tuple:
    """The node's backward with its hooks around the class's backward."""
    grad_outputs = node.__dict__.pop("_hook_grad_outputs", None)
    if grad_outputs is None:  # (the engine did not call before_materializing: run them here)
        grads = grad_outputs = _run_pre_hooks(node, grads)
    in_grads = type(node).backward(node, *grads)
    edges = node.next_edges
    if type(in_grads) is GeneratorType:  # (index, gradient) pairs: one per input, in order
        pairs, in_grads = in_grads, [None] * len(edges)
        for i, g in pairs:
            in_grads[i] = g
    in_grads = tuple(in_grads) if isinstance(in_grads, (tuple, list)) else (in_grads,)
    while len(in_grads) > len(edges) and in_grads[-1] is None:  # (PyTorch drops extra Nones)
        in_grads = in_grads[:-1]
    hooks = list((node._node_post_hooks or {}).values())
    if not hooks or len(in_grads) != len(edges):  # (a wrong count: the engine's error)
        return in_grads
    listed = listed_places(node)
    places = [i for i, e in enumerate(edges) if listed is None or i in listed or e]
    shown = tuple(in_grads[i] for i in places)
    for hook in hooks:
        new = hook(shown, tuple(grad_outputs))
        if new is not None:
            shown = _replaced(new, shown, hook)
    out = list(in_grads)
    for i, g in zip(places, shown):
        out[i] = g
    return tuple(out)
