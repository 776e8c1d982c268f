"""ASGD: averaged stochastic gradient descent (Polyak & Juditsky, 1992), SGD with a decaying
step and, from step ``t0`` on, a running average of the iterates kept beside the parameters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._checks import check_real
from .._tensor import Tensor
from ..backend import CPU, Array, to_device
from .optimizer import (
    Optimizer,
    _check_options,
    _count_step,
    _decayed_grad,
    _scalar_state,
    _zeros_like_param,
)


class ASGD(Optimizer):
    r"""ASGD as PyTorch computes it. At step ``t`` (1, 2, ...), for ``p`` with gradient ``g``:

    .. code-block:: text

        g <- -g                                     (maximize=True)
        g <- g + weight_decay * p                   (weight_decay != 0)
        p <- p * (1 - lambd * eta)                  (a decay towards 0)
        p <- p - eta * g
        ax <- ax + (p - ax) * mu                    (mu = 1 while t <= t0: ax is p itself)
        eta <- lr / (1 + lambd * lr * t) ** alpha
        mu <- 1 / max(1, t - t0)

    The averaged parameters are ``state["ax"]``. ``eta`` and ``mu`` are 0-d scalar tensors
    like ``step``, their values rounded to float32 (the default dtype) as PyTorch rounds them.
    State per parameter: ``step``, ``eta``, ``mu``, ``ax``.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_options(lr=lr, weight_decay=weight_decay)
        for value, name in ((lambd, "lambd"), (alpha, "alpha"), (t0, "t0")):
            check_real(value, name)
        defaults = dict(  # the values as given (an int t0 stays an int, as in PyTorch's groups)
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {
            "step": _scalar_state(),
            "eta": _scalar_state(float(group["lr"])),
            "mu": _scalar_state(1.0),
            "ax": _zeros_like_param(p),
        }

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One ASGD step of the arrays, in place (see the class docstring)."""
        step = _count_step(state)
        lr, lambd = group["lr"], group["lambd"]
        eta_t, mu_t, ax = state["eta"]._data, state["mu"]._data, state["ax"]._data
        eta, mu = float(eta_t), float(mu_t)
        g = _decayed_grad(param, grad, group["weight_decay"], group["maximize"])
        param *= 1 - lambd * eta
        param += (-eta) * g
        if mu != 1:
            ax += (param - ax) * mu
        else:
            ax[...] = param
        # PyTorch makes each new value a default-dtype scalar tensor (torch.as_tensor of a float)
        # before copying it in: rounded to float32 even where a load made eta float64. A tensor
        # lr instead makes it a tensor of lr's dtype, computed and copied in at that precision.
        if "lr_tensor" in group:
            lr_a = to_device(group["lr_tensor"]._data, CPU).reshape(())
            eta_t[...] = lr_a / ((1 + lambd * lr_a * step) ** group["alpha"])
        else:
            eta_t[...] = _scalar_state(lr / ((1 + lambd * lr * step) ** group["alpha"]))._data
        mu_t[...] = _scalar_state(1 / max(1, step - group["t0"]))._data
