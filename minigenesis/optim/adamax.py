"""Adamax: Adam with the infinity norm in place of the root mean square (Kingma & Ba, sec. 7)."""

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
    _decayed_grad,
    _grad_lines,
    _kernel_name,
    _lerp_line,
    _lerp_scalar,
    _maximum_lines,
    _scalar_state,
    _zeros_like_param,
    lerp_,
)


class Adamax(Optimizer):
    r"""Adamax as PyTorch computes it. At step ``t`` (1, 2, ...), for ``p`` with gradient ``g``:

    .. code-block:: text

        g <- -g                                          (maximize=True)
        g <- g + weight_decay * p                        (weight_decay != 0)
        m <- m + (1 - beta1) * (g - m)                   (exp_avg)
        u <- max(beta2 * u, |g| + eps)                   (exp_inf: a decaying max of |g|)
        p <- p - lr / (1 - beta1^t) * m / u

    ``u`` needs no bias correction: a max does not start biased towards zero the way an average
    does. Note ``eps`` sits inside the max, not in the denominator. State per parameter: ``step``,
    ``exp_avg``, ``exp_inf``.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        defaults = _check_options(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        defaults.update(
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adamax update of every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state()
                    state["exp_avg"] = _zeros_like_param(p)
                    state["exp_inf"] = _zeros_like_param(p)
                step = _count_step(state)
                adamax_update(
                    p._data,
                    p.grad._data,
                    state["exp_avg"]._data,
                    state["exp_inf"]._data,
                    step=step,
                    lr=group["lr"],
                    beta1=beta1,
                    beta2=beta2,
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    maximize=group["maximize"],
                )
                p._bump_version()
        return loss


def adamax_update(
    param: Array,
    grad: Array,
    exp_avg: Array,
    exp_inf: Array,
    *,
    step: int,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """Apply one Adamax step (``step`` counts from 1) to the arrays, in place."""
    xp = get_array_module(param)
    clr = lr / (1 - beta1**step)
    if kernel_fits(param, grad, exp_avg, exp_inf):
        kernel = _adamax_kernel(weight_decay != 0, maximize, beta1)
        kernel(
            grad, weight_decay, _lerp_scalar(1 - beta1), beta2, eps, -clr, param, exp_avg, exp_inf
        )
        return
    g = _decayed_grad(param, grad, weight_decay, maximize)
    scratch = lerp_(exp_avg, g, 1 - beta1)
    exp_inf *= beta2
    xp.abs(g, out=scratch)
    scratch += eps
    xp.maximum(exp_inf, scratch, out=exp_inf)  # NaN if either is NaN
    xp.multiply(exp_avg, -clr, out=scratch)  # (-clr * m) / u, PyTorch's order
    scratch /= exp_inf
    param += scratch


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel (see optimizer.py): 1 launch per parameter instead of 10-13
# ----------------------------------------------------------------------------------------------
@functools.cache
def _adamax_kernel(weight_decay: bool, maximize: bool, beta1: float) -> ElementwiseKernel:
    """adamax_update's arithmetic for one element, in the same order (``u``: exp_inf)."""
    lines = _grad_lines(maximize, weight_decay)
    lines.append(_lerp_line("m", "d", 1 - beta1, "w1"))
    lines += ["u = u * beta2;", "T e = fabs(d) + eps;"]
    lines += _maximum_lines("u", "u", "e")
    lines.append("p = p + (m * neg_clr) / u;")
    return ElementwiseKernel(
        _kernel_name("adamax", maximize, weight_decay),
        "T g, T wd, T w1, T beta2, T eps, T neg_clr",
        "T p, T m, T u",
        "\n".join(lines),
    )
