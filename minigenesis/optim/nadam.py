"""NAdam: Adam with Nesterov momentum (Dozat, "Incorporating Nesterov Momentum into Adam")."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..backend import Array, get_array_module
from ..gpu_kernels import ElementwiseKernel, kernel_fits
from .optimizer import (
    Optimizer,
    _check_options,
    _count_step,
    _decay_scalar,
    _decayed_grad,
    _grad_lines,
    _kernel_name,
    _moment_lines,
    _moment_scalars,
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
        weight_decay: float = 0.0,
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

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One NAdam update of every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state()
                    state["mu_product"] = _scalar_state(1.0)
                    state["exp_avg"] = _zeros_like_param(p)
                    state["exp_avg_sq"] = _zeros_like_param(p)
                step = _count_step(state)
                state["mu_product"]._data[...] = nadam_update(
                    p._data,
                    p.grad._data,
                    state["exp_avg"]._data,
                    state["exp_avg_sq"]._data,
                    step=step,
                    mu_product=float(state["mu_product"]._data),
                    lr=group["lr"],
                    beta1=beta1,
                    beta2=beta2,
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    momentum_decay=group["momentum_decay"],
                    decoupled_weight_decay=group["decoupled_weight_decay"],
                    maximize=group["maximize"],
                )
                p._bump_version()
        return loss


def nadam_update(
    param: Array,
    grad: Array,
    exp_avg: Array,
    exp_avg_sq: Array,
    *,
    step: int,
    mu_product: float,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    momentum_decay: float,
    decoupled_weight_decay: bool,
    maximize: bool,
) -> float:
    """Apply one NAdam step (``step`` counts from 1) to the arrays, in place; returns the new
    ``mu_product``."""
    xp = get_array_module(param)
    bias_correction2 = 1 - beta2**step
    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    mu_product = float(np.float32(mu_product) * np.float32(mu))  # float32, as PyTorch keeps it
    mu_product_next = mu_product * mu_next
    grad_coef = -lr * (1.0 - mu) / (1.0 - mu_product)
    avg_coef = (-lr * mu_next) / (1.0 - mu_product_next)
    if kernel_fits(param, grad, exp_avg, exp_avg_sq):
        kernel = _nadam_kernel(weight_decay != 0, maximize, decoupled_weight_decay, beta1)
        wd = _decay_scalar(weight_decay, decoupled_weight_decay, lr)
        scalars = (wd, *_moment_scalars(beta1, beta2), bias_correction2, eps)
        kernel(grad, *scalars, grad_coef, avg_coef, param, exp_avg, exp_avg_sq)
        return mu_product

    g = _decayed_grad(param, grad, weight_decay, maximize, decoupled_weight_decay, lr)
    lerp_(exp_avg, g, 1 - beta1)
    exp_avg_sq *= beta2
    exp_avg_sq += (1 - beta2) * g * g
    denom = xp.sqrt(exp_avg_sq / bias_correction2)
    denom += eps
    param += grad_coef * g / denom
    param += avg_coef * exp_avg / denom
    return mu_product


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel (see optimizer.py): 1 launch per parameter instead of 16-19
# ----------------------------------------------------------------------------------------------
@functools.cache
def _nadam_kernel(
    weight_decay: bool, maximize: bool, decoupled: bool, beta1: float
) -> ElementwiseKernel:
    """nadam_update's arithmetic for one element, in the same order."""
    lines = _grad_lines(maximize, weight_decay, decoupled) + _moment_lines(beta1)
    lines += [
        "T denom = sqrt(v / bc2) + eps;",
        "p = p + (grad_coef * d) / denom;",
        "p = p + (avg_coef * m) / denom;",
    ]
    name = _kernel_name("nadam", maximize, weight_decay, decoupled)
    return ElementwiseKernel(
        name,
        "T g, T wd, T w1, T beta2, T w2, T bc2, T eps, T grad_coef, T avg_coef",
        "T p, T m, T v",
        "\n".join(lines),
    )
