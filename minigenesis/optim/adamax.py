"""Adamax: Adam with the infinity norm in place of the root mean square (Kingma & Ba, sec. 7)."""

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
        weight_decay: float = 0,
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

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {
            "step": _scalar_state(),
            "exp_avg": _zeros_like_param(p),
            "exp_inf": _zeros_like_param(p),
        }

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One Adamax step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        step = _count_step(state)
        (beta1, beta2), eps = group["betas"], group["eps"]
        exp_avg, exp_inf = state["exp_avg"]._data, state["exp_inf"]._data
        clr = group["lr"] / (1 - beta1**step)
        fused = kernels.optim.adamax  # one GPU launch (kernels/optim.py)
        if type(param) is not ndarray and fused(param, grad, exp_avg, exp_inf, group, clr):
            return
        g = _decayed_grad(param, grad, group["weight_decay"], group["maximize"])
        scratch = lerp_(exp_avg, g, 1 - beta1)
        exp_inf *= beta2
        xp.abs(g, out=scratch)
        scratch += eps
        xp.maximum(exp_inf, scratch, out=exp_inf)  # NaN if either is NaN
        xp.multiply(exp_avg, -clr, out=scratch)  # (-clr * m) / u, PyTorch's order
        scratch /= exp_inf
        param += scratch
