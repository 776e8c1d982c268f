"""NAdam: Adam with Nesterov momentum (Dozat, "Incorporating Nesterov Momentum into Adam")."""

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


class NAdam(Optimizer):
    r"""NAdam as PyTorch computes it. At step ``t`` (1, 2, ...), for ``p`` with gradient ``g``:

    .. code-block:: text

        g <- -g                                          (maximize=True)
        p <- p * (1 - lr * weight_decay)                 (decoupled_weight_decay=True)
        g <- g + weight_decay * p                        (weight_decay != 0, otherwise)
        mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))     (the momentum schedule)
        P_t = mu_1 * mu_2 * ... * mu_t                   (mu_product)
        m <- m + (1 - beta1) * (g - m)
        v <- beta2 * v + (1 - beta2) * g * g
        denom = sqrt(v / (1 - beta2^t)) + eps
        p <- p - lr * (1 - mu_t) / (1 - P_t) * g / denom
               - lr * mu_{t+1} / (1 - P_t * mu_{t+1}) * m / denom

    The second line is the Nesterov look-ahead: the momentum term uses next step's ``mu``. As in
    PyTorch, ``mu_product`` is kept in float32 whatever the parameter's dtype (there it is a
    float32 scalar tensor), so the product is rounded to float32 at every step. State per
    parameter: ``step``, ``mu_product`` (a 0-d float32 tensor), ``exp_avg``, ``exp_avg_sq``.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        defaults = _check_options(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay
        )
        defaults.update(
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {
            "step": _scalar_state(),
            "mu_product": _scalar_state(1.0),
            "exp_avg": _zeros_like_param(p),
            "exp_avg_sq": _zeros_like_param(p),
        }

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One NAdam step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        step = _count_step(state)
        lr, (beta1, beta2), momentum_decay = group["lr"], group["betas"], group["momentum_decay"]
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        bias_correction2 = 1 - beta2**step
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        mu_product = state["mu_product"]._data
        # the product is kept, and rounded, in its tensor's dtype (float32 unless the default dtype
        # is float64 or a loaded state_dict cast it to the parameter's dtype), as PyTorch keeps it
        mu_product *= mu_product.dtype.type(mu)
        mu_product = float(mu_product)
        mu_product_next = mu_product * mu_next
        grad_coef = -lr * (1.0 - mu) / (1.0 - mu_product)
        avg_coef = (-lr * mu_next) / (1.0 - mu_product_next)
        fused, coefs = kernels.optim.nadam, (bias_correction2, grad_coef, avg_coef)  # one launch
        if type(param) is not ndarray and fused(param, grad, exp_avg, exp_avg_sq, group, *coefs):
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
        denom = xp.sqrt(exp_avg_sq / bias_correction2)
        denom += group["eps"]
        param += grad_coef * g / denom
        param += avg_coef * exp_avg / denom
