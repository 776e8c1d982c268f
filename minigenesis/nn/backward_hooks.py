"""A Module's full backward hooks, as PyTorch's:

- ``register_full_backward_pre_hook(hook)``: ``hook(module, grad_output)`` when the gradient of the
  module's outputs is known; returning a tuple replaces grad_output;
- ``register_full_backward_hook(hook)``: ``hook(module, grad_input, grad_output)`` when the
  gradient has flowed through the module to its inputs; returning a tuple replaces grad_input.

A module is many ops, so no one graph node holds "its" gradients. As PyTorch does, each call is
bracketed by two identity nodes: one over the tensor arguments, whose backward receives
dL/d(inputs), and one over the tensor outputs, whose backward receives dL/d(outputs). Backward
reaches the output node first (the pre-hooks run there), then the input node (the hooks run
there, with the grad_output kept from the output node). When no input needs a gradient there is
no input node: the hooks run at the output node with grad_input all None.

grad_input is aligned with the positional arguments and grad_output with the outputs (a single
tensor output is a 1-tuple); an entry that is not a tensor, or that no gradient reached, is None.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from .global_module_hooks import GLOBAL_BACKWARD_HOOKS, GLOBAL_BACKWARD_PRE_HOOKS, backward_hooks_of


class _HookNode(Function):
    """Identity on ``tensors``; its backward hands their gradients to the bracket."""

    @staticmethod
    def forward(ctx: Any, bracket: _Bracket, at_output: bool, *tensors: Tensor) -> Any:
        ctx.bracket, ctx.at_output = bracket, at_output
        out = tuple(t.view_as(t) for t in tensors)
        # an argument that needs no gradient gets none through the module (its grad_input entry
        # is zeros, as PyTorch's); a gradient that never reached an output stays None there
        ctx.mark_non_differentiable(*(o for o, t in zip(out, tensors) if not t.requires_grad))
        ctx.set_materialize_grads(not at_output)
        return out

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        bracket = ctx.bracket
        grads = bracket.outputs_reached(grads) if ctx.at_output else bracket.inputs_reached(grads)
        return (None, None, *grads)


def _check_length(new: Any, old: tuple, what: str) -> tuple:
    new = tuple(new)
    if len(new) != len(old):
        raise RuntimeError(
            f"Backward {what} returned an invalid number of grad_"
            f"{'output' if 'pre' in what else 'input'}, got {len(new)}, but expected {len(old)}"
        )
    return new


class _Bracket:
    """One call of a module with backward hooks: its two nodes and what passes between them."""

    def __init__(self, module: Any, n_inputs: int) -> None:
        self.module = module
        # the global hooks (register_module_full_backward_*hook) first, as PyTorch's
        self.pre_hooks, self.hooks = backward_hooks_of(module)
        self.n_inputs = n_inputs
        self.input_index: list | None = None  # positions of the tensor arguments (None: no node)
        self.output_index: list = []
        self.n_outputs = 0
        self.grad_output: tuple | None = None

    # ---------------------------------------------------------------- forward
    def wrap_inputs(self, args: tuple) -> tuple:
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not is_grad_enabled() or not any(args[i].requires_grad for i in index):
            return args
        self.input_index = index
        wrapped = _HookNode.apply(self, False, *(args[i] for i in index))
        out = list(args)
        for i, t in zip(index, wrapped):
            out[i] = t
        return tuple(out)

    def wrap_outputs(self, output: Any) -> Any:
        if not isinstance(output, (Tensor, tuple)):  # (a dict's tensors get no output node)
            warnings.warn(
                "For backward hooks to be called, module output should be a Tensor or a tuple "
                f"of Tensors but received {type(output)}",
                stacklevel=3,
            )
        single = not isinstance(output, tuple)
        items = (output,) if single else output
        self.output_index = [i for i, o in enumerate(items) if isinstance(o, Tensor)]
        self.n_outputs = len(items)
        if not is_grad_enabled() or not any(items[i].requires_grad for i in self.output_index):
            return output
        wrapped = _HookNode.apply(self, True, *(items[i] for i in self.output_index))
        out = list(items)
        for i, t in zip(self.output_index, wrapped):
            out[i] = t
        return out[0] if single else tuple(out)

    # ---------------------------------------------------------------- backward
    @staticmethod
    def _aligned(index: list, grads: tuple, n: int) -> tuple:
        full: list = [None] * n
        for i, g in zip(index, grads):
            full[i] = g
        return tuple(full)

    def outputs_reached(self, grads: tuple) -> tuple:
        grad_output = self._aligned(self.output_index, grads, self.n_outputs)
        for hook in self.pre_hooks:
            new = hook(self.module, grad_output)
            if new is not None:
                grad_output = _check_length(new, grad_output, "pre hook")
        self.grad_output = grad_output
        if self.input_index is None:  # no input needs a gradient: no input node will run
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to "
                "module outputs since no inputs require gradients. See "
                "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
                stacklevel=2,
            )
            none = (None,) * self.n_inputs
            for hook in self.hooks:
                new = hook(self.module, none, grad_output)
                if new is not None and any(g is not None for g in new):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
        return tuple(grad_output[i] for i in self.output_index)

    def inputs_reached(self, grads: tuple) -> tuple:
        if self.grad_output is None:
            # No output node ran: the output was not a Tensor or a tuple (a list, a dict: its
            # tensors got no output node), so there is no grad_output to show. As PyTorch, the
            # hooks are then not called, and the gradients pass through unchanged.
            return grads
        grad_input = self._aligned(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            new = hook(self.module, grad_input, self.grad_output)
            if new is not None:
                grad_input = _check_length(new, grad_input, "hook")
        self.grad_output = None
        return tuple(grad_input[i] for i in self.input_index)


def bracket_for(module: Any, args: tuple) -> _Bracket | None:
    """A bracket for this call if the module (or every module) has backward hooks (else None)."""
    d = module.__dict__
    if (
        d.get("_backward_hooks")
        or d.get("_backward_pre_hooks")
        or GLOBAL_BACKWARD_HOOKS
        or GLOBAL_BACKWARD_PRE_HOOKS
    ):
        return _Bracket(module, len(args))
    return None
