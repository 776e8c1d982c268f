"""Automatic differentiation: the graph (Function), the backward pass, the grad-mode switches."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from ..backend import get_array_module
from . import graph
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import run_backward, seed_grads
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
    grads = seed_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
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
    if is_grads_batched:
        raise NotImplementedError("autograd.grad: is_grads_batched (vmap over grad_outputs)")
    return materialize_grads if allow_unused is None else allow_unused


def _zeros_like(x: Any) -> Any:
    return TensorBase._make(get_array_module(x._data).zeros_like(x._data))


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
) -> None:
    """Accumulate the gradients of ``tensors`` into the leaves' ``.grad``."""
    tensors = list(tensors) if isinstance(tensors, Sequence) else [tensors]
    if grad_tensors is not None and not isinstance(grad_tensors, Sequence):
        grad_tensors = [grad_tensors]
    grads = seed_grads(tensors, grad_tensors)
    run_backward(
        tensors, grads, create_graph if retain_graph is None else retain_graph, create_graph
    )


# after grad: functional.py is built on it (torch.autograd.functional)
from . import functional  # noqa: E402

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
