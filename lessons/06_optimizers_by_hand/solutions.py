"""Chapter 6 solutions: optimizers by hand."""

from __future__ import annotations

from collections.abc import Iterable

import minigenesis as mg
from minigenesis import nn


class SGDMomentum:
    """Exercise 6.1: SGD with momentum, Nesterov momentum and L2 weight decay (PyTorch's SGD)."""

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
        with mg.no_grad():
            for i, p in enumerate(self.params):
                if p.grad is None:
                    continue
                g = p.grad
                if self.weight_decay != 0:
                    g = g + self.weight_decay * p
                if self.momentum != 0:
                    buf = self.buffers.get(i)
                    if buf is None:
                        buf = self.buffers[i] = g.clone()
                    else:
                        buf.mul_(self.momentum).add_(g)
                    g = g + self.momentum * buf if self.nesterov else buf
                p.sub_(self.lr * g)


class Adam:
    """Exercise 6.2: Adam with bias correction and L2 weight decay (PyTorch's Adam)."""

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

    def _adam_update(self, i: int, p: mg.Tensor, g: mg.Tensor) -> None:
        beta1, beta2 = self.betas
        st = self.state.setdefault(i, {"t": 0, "m": mg.zeros_like(p), "v": mg.zeros_like(p)})
        st["t"] += 1
        t, m, v = st["t"], st["m"], st["v"]
        m.mul_(beta1).add_((1 - beta1) * g)
        v.mul_(beta2).add_((1 - beta2) * g * g)
        m_hat = m / (1 - beta1**t)
        v_hat = v / (1 - beta2**t)
        p.sub_(self.lr * m_hat / (v_hat.sqrt() + self.eps))

    def step(self) -> None:
        """Exercise 6.2 (step)."""
        with mg.no_grad():
            for i, p in enumerate(self.params):
                if p.grad is None:
                    continue
                g = p.grad
                if self.weight_decay != 0:
                    g = g + self.weight_decay * p
                self._adam_update(i, p, g)


class AdamW(Adam):
    """Exercise 6.3: AdamW: Adam with DECOUPLED weight decay (default 1e-2)."""

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
        with mg.no_grad():
            for i, p in enumerate(self.params):
                if p.grad is None:
                    continue
                p.mul_(1 - self.lr * self.weight_decay)
                self._adam_update(i, p, p.grad)


def param_groups_for_weight_decay(model: nn.Module, weight_decay: float) -> list[dict]:
    """Exercise 6.4: split a model's parameters into two optimizer param groups."""
    decay, no_decay = [], []
    for p in model.parameters():
        if not p.requires_grad:
            continue
        (decay if p.ndim >= 2 else no_decay).append(p)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
