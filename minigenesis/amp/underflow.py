"""Why float16 training needs loss scaling, in one function (used by the mixed-precision lesson).

float16's smallest positive value is 2^-24 (about 6e-8). A gradient below half of that rounds to
zero as soon as backward casts it to float16, and everything downstream of it becomes zero too.
Scaling the loss by S multiplies every gradient by S on the way back, lifting it into range;
dividing the float32 gradient by S afterwards gives back its true value.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from ..creation import tensor
from .autocast_mode import autocast
from .grad_scaler import GradScaler


class UnderflowDemo(NamedTuple):
    expected: np.ndarray  # dL/dw computed in float32 throughout
    without_scaling: np.ndarray  # dL/dw with a float16 forward/backward: all zeros
    with_scaling: np.ndarray  # the same, with the loss scaled by GradScaler then unscaled
    scale: float


def underflow_demo(gradient: float = 1e-8, scale: float = 2.0**16) -> UnderflowDemo:
    """Train-step gradients of ``loss = gradient * sum(x @ w)``, so dL/dw = gradient * x^T.

    ``x @ w`` runs in float16 under ``autocast(dtype=float16)``; the loss in float32. The gradient
    reaching the float16 matmul output is ``gradient`` (1e-8 by default, below float16's range):
    without scaling it flushes to zero, with scaling it survives.
    """
    x_values = [[1.0, 2.0, 3.0, 4.0]]

    def grad_of_w(scaler: GradScaler | None, low_precision: bool) -> np.ndarray:
        x = tensor(x_values)
        w = tensor([[0.5], [0.25], [0.125], [1.0]], requires_grad=True)  # float32 master weight
        with autocast(dtype="float16", enabled=low_precision):
            y = x @ w  # float16 under autocast
            loss = (y.float() * gradient).sum()
        if scaler is None:
            loss.backward()
        else:
            scaler.scale(loss).backward()
            scaler.unscale_(SimpleNamespace(param_groups=[{"params": [w]}]))
        return w.grad.numpy().copy()

    return UnderflowDemo(
        expected=grad_of_w(None, low_precision=False),
        without_scaling=grad_of_w(None, low_precision=True),
        with_scaling=grad_of_w(GradScaler(init_scale=scale), low_precision=True),
        scale=scale,
    )
