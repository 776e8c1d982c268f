"""RAdam: Adam whose adaptive step is switched on gradually, as its variance estimate firms up
(Liu et al., "On the Variance of the Adaptive Learning Rate and Beyond")."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

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
        weight_decay: float = 0.0,
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

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RAdam update of every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state()
                    state["exp_avg"] = _zeros_like_param(p)
                    state["exp_avg_sq"] = _zeros_like_param(p)
                step = _count_step(state)
                radam_update(
                    p._data,
                    p.grad._data,
                    state["exp_avg"]._data,
                    state["exp_avg_sq"]._data,
                    step=step,
                    lr=group["lr"],
                    beta1=beta1,
                    beta2=beta2,
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    decoupled_weight_decay=group["decoupled_weight_decay"],
                    maximize=group["maximize"],
                )
                p._bump_version()
        return loss


def radam_update(
    param: Array,
    grad: Array,
    exp_avg: Array,
    exp_avg_sq: Array,
    *,
    step: int,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    decoupled_weight_decay: bool,
    maximize: bool,
) -> None:
    """Apply one RAdam step (``step`` counts from 1) to the arrays, in place."""
    xp = get_array_module(param)
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
    if kernel_fits(param, grad, exp_avg, exp_avg_sq):
        kernel = _radam_kernel(
            weight_decay != 0, maximize, decoupled_weight_decay, beta1, rectified
        )
        wd = _decay_scalar(weight_decay, decoupled_weight_decay, lr)
        scalars = (wd, *_moment_scalars(beta1, beta2), bias_correction1, lr)
        kernel(grad, *scalars, bias_correction2**0.5, eps, rect, param, exp_avg, exp_avg_sq)
        return

    g = _decayed_grad(param, grad, weight_decay, maximize, decoupled_weight_decay, lr)
    lerp_(exp_avg, g, 1 - beta1)
    exp_avg_sq *= beta2
    exp_avg_sq += (1 - beta2) * g * g
    update = exp_avg / bias_correction1
    update *= lr
    if rectified:
        adaptive = xp.sqrt(exp_avg_sq)
        adaptive += eps
        update *= bias_correction2**0.5 / adaptive
        update *= rect
    param -= update


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel (see optimizer.py): 1 launch per parameter instead of 10-18
# ----------------------------------------------------------------------------------------------
@functools.cache
def _radam_kernel(
    weight_decay: bool, maximize: bool, decoupled: bool, beta1: float, rectified: bool
) -> ElementwiseKernel:
    """radam_update's arithmetic for one element, in the same order; ``rectified``: the branch
    rho_t > 5 (a kernel for each branch, as the branch is taken in Python)."""
    lines = _grad_lines(maximize, weight_decay, decoupled) + _moment_lines(beta1)
    if rectified:
        lines.append("p = p - (m / bc1) * lr * (bc2_sqrt / (sqrt(v) + eps)) * rect;")
    else:
        lines.append("p = p - (m / bc1) * lr;")
    name = _kernel_name("radam", maximize, weight_decay, decoupled)
    return ElementwiseKernel(
        name + ("_rectified" if rectified else ""),
        "T g, T wd, T w1, T beta2, T w2, T bc1, T lr, T bc2_sqrt, T eps, T rect",
        "T p, T m, T v",
        "\n".join(lines),
    )
