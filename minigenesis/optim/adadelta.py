"""Adadelta: an adaptive step whose units match the parameter's (Zeiler, 2012)."""

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
)


class Adadelta(Optimizer):
    r"""Adadelta as PyTorch computes it. For parameter ``p`` with gradient ``g``:

    .. code-block:: text

        g <- -g                                          (maximize=True)
        g <- g + weight_decay * p                        (weight_decay != 0)
        v <- rho * v + (1 - rho) * g * g                 (square_avg)
        delta = sqrt(u + eps) / sqrt(v + eps) * g        (u: acc_delta, the RMS of past updates)
        u <- rho * u + (1 - rho) * delta * delta
        p <- p - lr * delta

    The ratio ``sqrt(u + eps) / sqrt(v + eps)`` has the units of ``p / g``, so ``delta`` has the
    units of ``p`` and the default ``lr=1.0`` is a sensible scale. State per parameter: ``step``,
    ``square_avg``, ``acc_delta``.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_options(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        # foreach/capturable/differentiable are accepted so PyTorch code runs unchanged; there is
        # one code path here.
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        zeros = _zeros_like_param
        return {"step": _scalar_state(), "square_avg": zeros(p), "acc_delta": zeros(p)}

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One Adadelta step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        _count_step(state)
        rho, eps = group["rho"], group["eps"]
        square_avg, acc_delta = state["square_avg"]._data, state["acc_delta"]._data
        fused = kernels.optim.adadelta  # one GPU launch (kernels/optim.py)
        if type(param) is not ndarray and fused(param, grad, square_avg, acc_delta, group):
            return
        g = _decayed_grad(param, grad, group["weight_decay"], group["maximize"])
        square_avg *= rho
        square_avg += (1 - rho) * g * g
        std = xp.sqrt(square_avg + eps)
        delta = xp.sqrt(acc_delta + eps)
        delta /= std
        delta *= g
        acc_delta *= rho
        acc_delta += (1 - rho) * delta * delta
        delta *= -group["lr"]
        param += delta
