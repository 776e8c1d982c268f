"""RMSprop: divide the gradient by a running root-mean-square of recent gradients (Hinton)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from numpy import ndarray

from .. import kernels
from .._tensor import Tensor
from ..backend import Array, get_array_module
from .optimizer import (
    Optimizer,
    _check_options,
    _count_step,
    _decayed_grad,
    _scalar_state,
    _zeros_like_param,
    lerp_,
)


class RMSprop(Optimizer):
    r"""RMSprop as PyTorch computes it. For parameter ``p`` with gradient ``g``:

    .. code-block:: text

        g <- g + weight_decay * p                        (if weight_decay != 0)
        s <- alpha * s + (1 - alpha) * g * g             (square_avg)
        a <- a + (1 - alpha) * (g - a)                   (grad_avg, centered only)
        r = sqrt(s - a * a) + eps   if centered   else   sqrt(s) + eps
        b <- momentum * b + g / r;  p <- p - lr * b     (momentum > 0)
        p <- p - lr * g / r                              (otherwise)

    ``centered`` normalises by an estimate of the gradient's variance instead of its raw second
    moment. There is no bias correction (unlike Adam). State per parameter: ``step``,
    ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg`` (centered).
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_options(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        state = {"step": _scalar_state(), "square_avg": _zeros_like_param(p)}
        if group["momentum"] > 0:
            state["momentum_buffer"] = _zeros_like_param(p)
        if group["centered"]:
            state["grad_avg"] = _zeros_like_param(p)
        return state

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One RMSprop step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        _count_step(state)
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        square_avg = state["square_avg"]._data
        grad_avg = state["grad_avg"]._data if group["centered"] else None
        momentum_buffer = state["momentum_buffer"]._data if momentum > 0 else None
        fused, buffers = kernels.optim.rmsprop, (square_avg, grad_avg, momentum_buffer)
        if type(param) is not ndarray and fused(param, grad, *buffers, group):  # one GPU launch
            return
        g = _decayed_grad(param, grad, group["weight_decay"], group["maximize"])
        square_avg *= alpha
        scratch = xp.multiply(g, 1 - alpha, out=xp.empty_like(square_avg))  # an array when 0-d
        scratch *= g
        square_avg += scratch
        if grad_avg is not None:
            lerp_(grad_avg, g, 1 - alpha, out=scratch)
            avg = xp.multiply(grad_avg, -1.0, out=scratch)  # s - a * a, reusing the scratch
            avg *= grad_avg
            avg += square_avg
            xp.sqrt(avg, out=avg)
        else:
            avg = xp.sqrt(square_avg, out=scratch)
        avg += eps
        if momentum_buffer is not None:
            momentum_buffer *= momentum
            momentum_buffer += xp.divide(g, avg, out=avg)
            param += xp.multiply(momentum_buffer, -lr, out=avg)
        else:
            update = g * (-lr)
            update /= avg
            param += update
