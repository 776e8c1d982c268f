"""Keeping a first-order gradient in the graph of the input it was taken at.

PyTorch writes the backward of hardtanh, threshold, the shrinks, adaptive pooling and nll_loss as
ops of the input x (``threshold_backward(grad, self)``, ``nll_loss_backward(grad, self, ...)``).
Under ``create_graph=True`` their first-order gradient is therefore a tensor of x's graph even
where it does not depend on x (a mask times the upstream gradient): it requires grad, and a
gradient penalty built on it alone, ``(grad ** 2).sum().backward()``, works and gives x zeros.

Here those functions are compositions (where, clamp, matmul, gather) whose gradients are
selections or constant weights, not ops of x. :func:`anchor` gives them PyTorch's graph: the
result passes through :class:`AnchorGrad`, an identity whose backward adds to x's gradient a zero
that is itself an op of x (``ZerosOf``). Outside create_graph the backward
adds nothing.
"""

from __future__ import annotations

import types
from typing import Any

from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..backend import get_array_module


class AnchorGrad(Op):
    """z = y (the array itself, no copy);   dL/dy = dL/dz,   dL/dx = 0 as an op of x."""

    @staticmethod
    def forward(ctx, y, x):
        ctx.save_for_backward(x if ctx.needs_input_grad[1] else None)
        return y

    @staticmethod
    def backward(ctx, gz):
        (x,) = ctx.saved_tensors
        if x is None or not state.grad_enabled:  # no create_graph: nothing to keep
            return gz, None
        return gz, ZerosOf.apply(x)


class ZerosOf(Op):
    """z = 0 (x's shape and dtype), an op of x;   dz/dx = 0, again an op of x under
    create_graph, so every order of derivative stays in x's graph."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return get_array_module(x).zeros_like(x)

    @staticmethod
    def backward(ctx, gz):
        (x,) = ctx.saved_tensors
        if state.grad_enabled:
            return ZerosOf.apply(x)
        return type(gz)._make(get_array_module(x._data).zeros_like(x._data), False)


def anchor(y: Any, *inputs: Any, node: str | None = None) -> Any:
    """``y`` (a function of ``inputs``) whose gradient with respect to each input that requires
    grad stays in that input's graph under create_graph, as PyTorch's backward of the function
    does (see the module docstring). Numbers and tensors without gradient are skipped.
    ``node``: the PyTorch op it stands for, which names the result's grad_fn (``"NllLoss"``)."""
    if not state.grad_enabled:
        return y
    op = AnchorGrad if node is None else _named_anchor(node)
    for x in inputs:
        if getattr(x, "requires_grad", False):
            y = op.apply(y, x)
    return y


_NAMED: dict[str, type] = {}


def _named_anchor(node: str) -> type:
    """AnchorGrad under the name of the PyTorch op whose backward it stands for, so the result's
    grad_fn prints as PyTorch's (``node="NllLoss"``: ``grad_fn=<NllLossBackward0>``); still an
    AnchorGrad (a subclass)."""
    if node not in _NAMED:
        _NAMED[node] = types.new_class(
            node, (AnchorGrad,), {}, lambda ns: ns.update(__module__=__name__)
        )
    return _NAMED[node]


def keep_in_graph(g: Any, *inputs: Any) -> Any:
    """For a backward: gradient ``g`` plus a zero that is an op of each input requiring grad,
    while create_graph is on (grad mode is on in a backward only then); else ``g`` itself.
    (A backward-side anchor: differentiating it again gives those inputs zeros, not None.)"""
    if not state.grad_enabled:
        return g
    for x in inputs:
        if getattr(x, "requires_grad", False):
            g = g + ZerosOf.apply(x)
    return g
