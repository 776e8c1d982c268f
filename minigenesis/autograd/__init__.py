"""Automatic differentiation: the graph (Function), the backward pass, the grad-mode switches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
from .gradcheck import GradcheckError, gradcheck
from .variable import Variable


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (not accumulated in .grad).

    ``create_graph=True`` records the backward pass itself, so the result can be differentiated
    again (second derivatives, gradient penalties).
    """
    outputs = list(outputs) if isinstance(outputs, Sequence) else [outputs]
    inputs = list(inputs) if isinstance(inputs, Sequence) else [inputs]
    if grad_outputs is not None and not isinstance(grad_outputs, Sequence):
        grad_outputs = [grad_outputs]
    grads = seed_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    return run_backward(outputs, grads, retain_graph, create_graph, inputs, allow_unused)


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
