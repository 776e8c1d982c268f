"""AccumulateGrad: the graph node that stands for a leaf tensor, as PyTorch shows it.

Inside minigenesis a node's ``next_edges`` point at a leaf tensor directly (the engine adds the
gradient into its ``.grad``). PyTorch instead shows an ``AccumulateGrad`` node there, whose
``.variable`` is the leaf; ``grad_fn.next_functions`` builds these so code that walks the graph
PyTorch's way (``fn.next_functions[0][0].variable``) works. One node per leaf, kept on the leaf
(the node holds the leaf weakly, so the two form no reference cycle). Its pre- and post-hooks
(``register_prehook``, ``register_hook``) are kept on the leaf, as its tensor and
post-accumulate-grad hooks.
"""

from __future__ import annotations

import weakref
from typing import Any

from .grad_mode import state


class AccumulateGrad:
    """The node that accumulates a leaf's gradient into ``leaf.grad``."""

    __slots__ = ("_variable", "__weakref__")

    def __init__(self, variable: Any) -> None:
        self._variable = weakref.ref(variable)

    @property
    def variable(self) -> Any:
        """The leaf tensor this node accumulates into (None once the leaf is gone)."""
        return self._variable()

    @property
    def next_functions(self) -> tuple:
        """A leaf's node leads nowhere: ``()``."""
        return ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def register_prehook(self, hook: Any) -> Any:
        """``hook((grad,))`` before the leaf's incoming gradient is added into ``.grad``; a
        returned tuple replaces it. It runs as one of the leaf's tensor hooks (in registration
        order with them), but not for ``autograd.grad``: that pass takes the leaf's gradient
        without running its AccumulateGrad node, as PyTorch's engine. Returns a handle."""

        def pre(g: Any) -> Any:
            task = state.backward
            if task is not None and task.capture and not task.into_grad:
                return g  # (autograd.grad: the node does not run)
            return _checked(hook((g,)), hook, g)

        return self.variable.register_hook(pre)

    def register_hook(self, hook: Any) -> Any:
        """``hook((), (grad,))`` after the leaf's incoming gradient was added into ``.grad``
        (a post-accumulate-grad hook shown the gradient that came in; Megatron-style data
        parallelism starts a bucket's reduction from here). Returns a handle."""
        incoming: list = [None]  # this pass's gradient, as the leaf's earlier hooks left it
        leaf = self.variable
        keep = leaf.register_hook(lambda g: incoming.__setitem__(0, g))
        post = leaf.register_post_accumulate_grad_hook(lambda t: hook((), (incoming[0],)))
        return _Handles(keep, post)

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"


def _checked(result: Any, hook: Any, g: Any) -> Any:
    """A pre-hook's result as the new gradient: the first of a returned tuple; anything else
    leaves it unchanged (PyTorch 2.13 ignores a non-tuple result on this node)."""
    if isinstance(result, (tuple, list)) and len(result) > 0 and result[0] is not None:
        return result[0]
    return g


class _Handles:
    """One handle for the two hooks a post-hook is made of."""

    def __init__(self, *handles: Any) -> None:
        self._handles = handles

    def remove(self) -> None:
        for h in self._handles:
            h.remove()


def accumulate_grad_node(leaf: Any) -> AccumulateGrad:
    """The (one) AccumulateGrad node of ``leaf``, made on first request."""
    node = leaf.__dict__.get("_accumulate_grad")
    if node is None:
        node = leaf.__dict__["_accumulate_grad"] = AccumulateGrad(leaf)
    return node
