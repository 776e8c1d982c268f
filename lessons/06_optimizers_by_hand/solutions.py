"""Chapter 6 solutions: optimizers by hand."""

from __future__ import annotations

from collections.abc import Iterable

import minigenesis as mg
from minigenesis import nn


class HandOptimizer:
    """Ready-made (not an exercise): what every optimizer of this chapter shares, with
    ``mg.optim.Optimizer``'s interface, so the learning-rate schedulers, GradScaler and the
    capstone's training step can drive your optimizers as they drive minigenesis's.

    - ``params``: an iterable of tensors, or of dicts (param groups: ``{"params": [...], "lr":
      ...}``), as ``mg.optim`` takes them. Each group gets the constructor's settings
      (``defaults``) for the keys it does not set itself.
    - ``self.param_groups``: the list of groups, each a dict with ``"params"`` (a list) and every
      setting. ``step`` must read the settings from its group at every call: a scheduler
      changes ``group["lr"]`` between steps.
    - ``self.state``: per-parameter memory (momentum buffers, Adam's m and v), a dict keyed by
      ``id(p)``, empty until the first step.
    """

    def __init__(self, params: Iterable[mg.Tensor] | Iterable[dict], defaults: dict) -> None:
        if isinstance(params, mg.Tensor):
            raise TypeError("params must be an iterable of tensors or of dicts, got a Tensor")
        items = list(params)
        if not items:
            raise ValueError("optimizer got an empty parameter list")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        self.defaults = dict(defaults)
        self.param_groups: list[dict] = []
        for group in groups:
            params_of_group = group["params"]
            if isinstance(params_of_group, mg.Tensor):
                params_of_group = [params_of_group]
            self.param_groups.append({**defaults, **group, "params": list(params_of_group)})
        self.state: dict[int, dict] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's gradient: ``p.grad = None`` (PyTorch's default)."""
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad.zero_()


class SGDMomentum(HandOptimizer):
    """Exercise 6.1: SGD with momentum, Nesterov momentum and L2 weight decay (PyTorch's SGD)."""

    def __init__(
        self,
        params: Iterable[mg.Tensor] | Iterable[dict],
        lr: float,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=nesterov)
        super().__init__(params, defaults)

    def step(self) -> None:
        """Exercise 6.1 (step)."""
        with mg.no_grad():
            for group in self.param_groups:
                lr, momentum, wd = group["lr"], group["momentum"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad
                    if wd != 0:
                        g = g + wd * p
                    if momentum != 0:
                        state = self.state.setdefault(id(p), {})
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = state["momentum_buffer"] = g.clone()
                        else:
                            buf.mul_(momentum).add_(g)
                        g = g + momentum * buf if group["nesterov"] else buf
                    p.sub_(lr * g)


class Adam(HandOptimizer):
    """Exercise 6.2: Adam with bias correction and L2 weight decay (PyTorch's Adam)."""

    def __init__(
        self,
        params: Iterable[mg.Tensor] | Iterable[dict],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    def step(self) -> None:
        """Exercise 6.2 (step)."""
        with mg.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad
                    if group["weight_decay"] != 0:
                        g = g + group["weight_decay"] * p
                    st = self.state.setdefault(
                        id(p), {"t": 0, "m": mg.zeros_like(p), "v": mg.zeros_like(p)}
                    )
                    st["t"] += 1
                    t, m, v = st["t"], st["m"], st["v"]
                    m.mul_(beta1).add_((1 - beta1) * g)
                    v.mul_(beta2).add_((1 - beta2) * g * g)
                    m_hat = m / (1 - beta1**t)
                    v_hat = v / (1 - beta2**t)
                    p.sub_(group["lr"] * m_hat / (v_hat.sqrt() + group["eps"]))


class AdamW(Adam):
    """Exercise 6.3: AdamW: Adam with DECOUPLED weight decay (default 1e-2)."""

    def __init__(
        self,
        params: Iterable[mg.Tensor] | Iterable[dict],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay)

    def step(self) -> None:
        """Exercise 6.3 (step)."""
        # The whole update is written here (not a call into Adam.step) so that this answer works
        # beside any Adam: the checks run it with yours.
        with mg.no_grad():
            for group in self.param_groups:
                lr, (beta1, beta2) = group["lr"], group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.mul_(1 - lr * group["weight_decay"])  # decoupled: not through m and v
                    g = p.grad
                    st = self.state.setdefault(
                        id(p), {"t": 0, "m": mg.zeros_like(p), "v": mg.zeros_like(p)}
                    )
                    st["t"] += 1
                    t, m, v = st["t"], st["m"], st["v"]
                    m.mul_(beta1).add_((1 - beta1) * g)
                    v.mul_(beta2).add_((1 - beta2) * g * g)
                    m_hat = m / (1 - beta1**t)
                    v_hat = v / (1 - beta2**t)
                    p.sub_(lr * m_hat / (v_hat.sqrt() + group["eps"]))


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


def quiz() -> dict[str, str]:
    """Exercise 6.5: the answers to the self-check questions, each with the reason."""
    return {
        # At the fixed point buf = 0.9 buf + 1, so buf = 10 and the step is lr * 10 = 1.0: momentum
        # multiplies a steady gradient by 1 / (1 - momentum).
        "q1": "d",
        # Step 1: m_hat = g and v_hat = g^2 (bias-corrected), so the update is lr * g / (|g| + eps)
        # ~ lr * sign(g) = 0.01, the same for g = 1e-3 or 1e3.
        "q2": "a",
        # Without correction m_1 / sqrt(v_1) = 0.1 g / sqrt(0.001 g^2) = 3.16 sign(g): too large by
        # 1/sqrt(1 - 0.999) over 1/(1 - 0.9), until the moments warm up.
        "q3": "a",
        # In Adam, lambda*w goes through m / sqrt(v): a weight with a big gradient history has a big
        # sqrt(v), which shrinks its decay. AdamW's decay skips the division: the same for all.
        "q4": "c",
        # Decay is a prior that fights overfitting in the many weights of matrices; a bias or a
        # LayerNorm gain has no such role, and decaying the gain towards 0 only rescales the layer.
        "q5": "a",
    }
