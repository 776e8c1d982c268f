"""Chapter 6 exercises: optimizers by hand.

Each optimizer takes a list of parameters (Tensors with ``.grad``) and updates them in place
under ``mg.no_grad()`` with Tensor in-place ops (``p.sub_(...)``, ``p.mul_(...)``). The checks
run your optimizer and ``mg.optim``'s side by side on the same model and compare every
parameter after every step, in float64. ``mg.optim`` is the checks' oracle, not part of an
answer: they fail a ``step()`` in which code of ``mg.optim`` runs.

    python -m pytest lessons/06_optimizers_by_hand
"""

from __future__ import annotations

from collections.abc import Iterable

import minigenesis as mg
from minigenesis import nn


class SGDMomentum:
    """Exercise 6.1: SGD with momentum, Nesterov momentum and L2 weight decay (PyTorch's SGD).

    For each parameter p with gradient g (skip parameters whose .grad is None):

        g <- g + weight_decay * p
        b <- g                              on the first step (b is a per-parameter buffer)
        b <- momentum * b + g               on later steps
        g <- g + momentum * b   if nesterov   else   b
        p <- p - lr * g

    With momentum == 0 there is no buffer: p <- p - lr * g. Keep buffers in a dict keyed by the
    parameter's position in ``self.params``.
    """

    def __init__(
        self,
        params: Iterable[mg.Tensor],
        lr: float,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        self.params = list(params)
        self.lr, self.momentum = lr, momentum
        self.weight_decay, self.nesterov = weight_decay, nesterov
        self.buffers: dict[int, mg.Tensor] = {}

    def zero_grad(self) -> None:
        """Set every parameter's .grad to None (PyTorch's default, set_to_none=True). (Given.)"""
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        """Exercise 6.1 (step)."""
        raise NotImplementedError("Exercise 6.1: weight decay, momentum buffer, nesterov, update")


class Adam:
    """Exercise 6.2: Adam with bias correction and L2 weight decay (PyTorch's Adam).

    Per parameter keep the step count t and two buffers m, v (zeros at first). At each step:

        t <- t + 1
        g <- g + weight_decay * p
        m <- beta1 * m + (1 - beta1) * g
        v <- beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1^t),   v_hat = v / (1 - beta2^t)
        p <- p - lr * m_hat / (sqrt(v_hat) + eps)

    (PyTorch folds the corrections in a different but algebraically equal order; float64 makes
    the difference invisible.)
    """

    def __init__(
        self,
        params: Iterable[mg.Tensor],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        self.params = list(params)
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.state: dict[int, dict] = {}

    def zero_grad(self) -> None:
        """Set every parameter's .grad to None. (Given.)"""
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        """Exercise 6.2 (step)."""
        raise NotImplementedError("Exercise 6.2: update m and v, correct the bias, take the step")


class AdamW(Adam):
    """Exercise 6.3: AdamW: Adam with DECOUPLED weight decay (default 1e-2).

    Before the Adam update (which here sees the raw gradient, no weight_decay * p added), shrink
    the parameter directly:  p <- p * (1 - lr * weight_decay).
    """

    def __init__(
        self,
        params: Iterable[mg.Tensor],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay)

    def step(self) -> None:
        """Exercise 6.3 (step)."""
        raise NotImplementedError("Exercise 6.3: p *= 1 - lr*wd, then Adam's step without L2")


def param_groups_for_weight_decay(model: nn.Module, weight_decay: float) -> list[dict]:
    """Exercise 6.4: split a model's parameters into two optimizer param groups.

    Return ``[{"params": [...], "weight_decay": weight_decay},
    {"params": [...], "weight_decay": 0.0}]``: matrices and kernels (``p.ndim >= 2``) are decayed;
    biases and normalisation weights (``p.ndim < 2``) are not. Keep ``model.parameters()`` order
    inside each group and skip parameters with ``requires_grad=False``.
    """
    raise NotImplementedError("Exercise 6.4: ndim >= 2 -> decayed group, the rest -> no decay")
