"""Chapter 6 exercises: optimizers by hand.

Each optimizer takes parameters (or param groups, as ``mg.optim`` does) and updates them in
place under ``mg.no_grad()`` with Tensor in-place ops (``p.sub_(...)``, ``p.mul_(...)``). They
share the ready-made ``HandOptimizer`` (``param_groups``, ``state``, ``zero_grad``): the same
interface as ``mg.optim``'s optimizers, so a scheduler or a GradScaler can drive yours, and
``python -m minigenesis lessons capstone --mine`` trains the capstone with your AdamW. The checks
run your optimizer and ``mg.optim``'s side by side on the same model and compare every
parameter after every step, in float64. ``mg.optim`` is the checks' oracle, not part of an
answer: they fail a ``step()`` in which code of ``mg.optim`` runs.

    python -m pytest lessons/06_optimizers_by_hand
"""

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
    """Exercise 6.1: SGD with momentum, Nesterov momentum and L2 weight decay (PyTorch's SGD).

    For each group, with its settings ``lr``, ``momentum``, ``weight_decay``, ``nesterov``, and
    each parameter p of the group with gradient g (skip parameters whose .grad is None):

        g <- g + weight_decay * p
        b <- g                              on the first step (b is a per-parameter buffer)
        b <- momentum * b + g               on later steps
        g <- g + momentum * b   if nesterov   else   b
        p <- p - lr * g

    With momentum == 0 there is no buffer: p <- p - lr * g. Keep the buffer in
    ``self.state[id(p)]`` (a dict per parameter, e.g. ``{"momentum_buffer": b}``).
    """

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
        raise NotImplementedError("Exercise 6.1: weight decay, momentum buffer, nesterov, update")


class Adam(HandOptimizer):
    """Exercise 6.2: Adam with bias correction and L2 weight decay (PyTorch's Adam).

    For each group (settings ``lr``, ``betas`` = (beta1, beta2), ``eps``, ``weight_decay``) and
    each parameter p with a gradient g, keep in ``self.state[id(p)]`` the step count t and two
    buffers m, v (zeros at first). At each step:

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
        params: Iterable[mg.Tensor] | Iterable[dict],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    def step(self) -> None:
        """Exercise 6.2 (step)."""
        raise NotImplementedError("Exercise 6.2: update m and v, correct the bias, take the step")


class AdamW(Adam):
    """Exercise 6.3: AdamW: Adam with DECOUPLED weight decay (default 1e-2).

    Before the Adam update (which here sees the raw gradient, no weight_decay * p added), shrink
    the parameter directly:  p <- p * (1 - lr * weight_decay), with the lr and weight_decay of
    the parameter's group. (The capstone trains with this optimizer.)
    """

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
        raise NotImplementedError("Exercise 6.3: p *= 1 - lr*wd, then Adam's step without L2")


def param_groups_for_weight_decay(model: nn.Module, weight_decay: float) -> list[dict]:
    """Exercise 6.4: split a model's parameters into two optimizer param groups.

    Return ``[{"params": [...], "weight_decay": weight_decay},
    {"params": [...], "weight_decay": 0.0}]``: matrices and kernels (``p.ndim >= 2``) are decayed;
    biases and normalisation weights (``p.ndim < 2``) are not. Keep ``model.parameters()`` order
    inside each group and skip parameters with ``requires_grad=False``. (Your optimizers take
    these groups as ``mg.optim``'s do.)
    """
    raise NotImplementedError("Exercise 6.4: ndim >= 2 -> decayed group, the rest -> no decay")


def quiz() -> dict[str, str]:
    """Exercise 6.5: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 5 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 6.5: return {'q1': letter, ...}, your answers to the self-check questions"
    )
