"""Automatic differentiation: the graph (Function), the backward pass, the grad-mode switches."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from ..backend import get_array_module
from . import graph, profiler, profiler_util
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import backward_into, run_backward, seed_grads
from .function import Function
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .tensor_base import TensorBase
from .variable import Variable


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> Any:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (not accumulated in .grad).

    ``create_graph=True`` records the backward pass itself, so the result can be differentiated
    again (second derivatives, gradient penalties). An input the outputs do not depend on is an
    error, or gives None with ``allow_unused=True``, or zeros with ``materialize_grads=True``.
    ``inputs`` may be a dict of tensors: the gradients come back under the same keys.
    ``only_inputs`` is deprecated in PyTorch and ignored (a FutureWarning when False).
    """
    options = (only_inputs, allow_unused, is_grads_batched, materialize_grads)
    allow_unused = _check_grad_options(*options)
    keys = list(inputs) if type(inputs) is dict else None
    if keys is not None:
        inputs = list(inputs.values())
    outputs = list(outputs) if isinstance(outputs, Sequence) else [outputs]
    inputs = list(inputs) if isinstance(inputs, Sequence) else [inputs]
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if grad_outputs is not None and not isinstance(grad_outputs, Sequence):
        grad_outputs = [grad_outputs]
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        result = _batched_grad(
            outputs,
            inputs,
            grad_outputs,
            retain_graph,
            create_graph,
            allow_unused,
            materialize_grads,
        )
        return dict(zip(keys, result)) if keys is not None else result
    grads = seed_grads(outputs, grad_outputs)
    result = run_backward(outputs, grads, retain_graph, create_graph, inputs, allow_unused)
    if materialize_grads:  # zeros where an input got no gradient
        result = tuple(g if g is not None else _zeros_like(x) for g, x in zip(result, inputs))
    return dict(zip(keys, result)) if keys is not None else result


def _check_grad_options(
    only_inputs: bool, allow_unused: bool | None, is_grads_batched: bool, materialize_grads: bool
) -> bool:
    """grad's checks of its options, as PyTorch's; returns allow_unused with its default."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=3,
        )
    return materialize_grads if allow_unused is None else allow_unused


def _batched_grad(
    outputs: list,
    inputs: list,
    grad_outputs: Any,
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
    materialize_grads: bool,
) -> tuple:
    """grad with ``is_grads_batched=True``: the first dim of every grad_output indexes a batch of
    vector-Jacobian products (PyTorch runs them under vmap); here one backward per batch entry,
    each input's gradients written into one block of shape (batch, *input.shape)."""
    if grad_outputs is None or any(g is None for g in grad_outputs):
        raise RuntimeError("is_grads_batched=True needs a batched tensor for every grad_output")
    sizes = {g.shape[0] if g.ndim else None for g in grad_outputs}
    if len(sizes) != 1 or None in sizes:
        raise RuntimeError(
            "is_grads_batched=True: every grad_output must have the same size in its first "
            f"(batch) dim, got shapes {[tuple(g.shape) for g in grad_outputs]}"
        )
    n = sizes.pop()
    blocks: list = [None] * len(inputs)
    for b in range(n):
        rows = grad(
            outputs,
            inputs,
            [g[b] for g in grad_outputs],
            retain_graph=retain_graph if b == n - 1 else True,
            create_graph=create_graph,
            allow_unused=allow_unused,
            materialize_grads=materialize_grads,
        )
        for j, row in enumerate(rows):
            if row is not None:
                if blocks[j] is None:
                    blocks[j] = inputs[j].new_zeros((n, *inputs[j].shape))
                blocks[j][b] = row
    return tuple(blocks)


def _zeros_like(x: Any) -> Any:
    return TensorBase._make(get_array_module(x._data).zeros_like(x._data))


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into the leaves' ``.grad`` (only into the
    ``.grad`` of ``inputs``, leaves or not, when given)."""
    tensors = list(tensors) if isinstance(tensors, Sequence) else [tensors]
    if grad_variables is not None:  # the deprecated name of grad_tensors
        grad_tensors = grad_variables
    if grad_tensors is not None and not isinstance(grad_tensors, Sequence):
        grad_tensors = [grad_tensors]
    grads = seed_grads(tensors, grad_tensors)
    retain_graph = create_graph if retain_graph is None else retain_graph
    if inputs is not None:
        backward_into(tensors, grads, retain_graph, create_graph, inputs)
    else:
        run_backward(tensors, grads, retain_graph, create_graph)


# after grad: functional.py is built on it (torch.autograd.functional)
from . import forward_ad, functional  # noqa: E402

__all__ = [
    "Function",
    "functional",
    "graph",
    "grad",
    "backward",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "detect_anomaly",
    "set_detect_anomaly",
    "Variable",
    "is_anomaly_enabled",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
]
