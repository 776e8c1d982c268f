"""RAdam: Adam whose adaptive step is switched on gradually, as its variance estimate firms up
(Liu et al., "On the Variance of the Adaptive Learning Rate and Beyond")."""

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


class RAdam(Optimizer):
    r"""RAdam as PyTorch computes it. At step ``t`` (1, 2, ...), for ``p`` with gradient ``g``:

    .. code-block:: text

        g <- -g                                          (maximize=True)
        p <- p * (1 - lr * weight_decay)                 (decoupled_weight_decay=True)
        g <- g + weight_decay * p                        (weight_decay != 0, otherwise)
        m <- m + (1 - beta1) * (g - m);   v <- beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1^t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)    (length of the approximated moving average)
        if rho_t > 5:
            r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
            p <- p - lr * m_hat * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t
        else:
            p <- p - lr * m_hat                          (plain momentum SGD: v is too young)

    With the default ``beta2=0.999`` the first 5 steps are momentum SGD; ``r_t`` then rises
    towards 1. State per parameter: ``step``, ``exp_avg``, ``exp_avg_sq``.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        defaults = _check_options(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        defaults.update(
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        zeros = _zeros_like_param
        return {"step": _scalar_state(), "exp_avg": zeros(p), "exp_avg_sq": zeros(p)}

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One RAdam step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        step = _count_step(state)
        lr, (beta1, beta2) = group["lr"], group["betas"]
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        rectified = rho_t > 5.0
        rect = 0.0  # the rectification r_t, defined where rho_t > 5
        if rectified:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
        fused = kernels.optim.radam  # one GPU launch (kernels/optim.py)
        scalars = (bias_correction1, bias_correction2, rectified, rect)
        if type(param) is not ndarray and fused(param, grad, exp_avg, exp_avg_sq, group, *scalars):
            return
        g = _decayed_grad(
            param,
            grad,
            group["weight_decay"],
            group["maximize"],
            group["decoupled_weight_decay"],
            lr,
        )
        lerp_(exp_avg, g, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * g * g
        update = exp_avg / bias_correction1
        update *= lr
        if rectified:
            adaptive = xp.sqrt(exp_avg_sq)
            adaptive += group["eps"]
            update *= bias_correction2**0.5 / adaptive
            update *= rect
        param -= update
