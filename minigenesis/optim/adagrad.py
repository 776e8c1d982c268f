"""Adagrad: per-coordinate steps that shrink with the sum of past squared gradients (Duchi et
al., 2011)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from .._tensor import Tensor
from ..backend import Array, get_array_module
from ..gpu_kernels import ElementwiseKernel, kernel_fits
from .optimizer import (
    Optimizer,
    _check_options,
    _count_step,
    _decayed_grad,
    _grad_lines,
    _kernel_name,
    _scalar_state,
)


class Adagrad(Optimizer):
    r"""Adagrad as PyTorch computes it. At step ``t`` (1, 2, ...), for ``p`` with gradient ``g``:

    .. code-block:: text

        g <- -g                                          (maximize=True)
        g <- g + weight_decay * p                        (weight_decay != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s <- s + g * g                                   (sum, starts at initial_accumulator_value)
        p <- p - clr * g / (sqrt(s) + eps)

    A coordinate that has seen large gradients takes small steps, one that has seen few takes
    large ones; the steps only ever shrink, which suits sparse features and convex problems. As in
    PyTorch, the state (``step`` 0 and ``sum``) is created for every parameter on construction.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        defaults = _check_options(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
        )
        defaults.update(
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: Tensor) -> dict[str, Any]:
        state = self.state[p]
        if len(state) == 0:
            xp = get_array_module(p._data)
            init = self.defaults["initial_accumulator_value"]
            state["step"] = _scalar_state()
            state["sum"] = Tensor._make(xp.full_like(p._data, init), False)
        return state

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adagrad update of every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            for p in self._params_with_grad(group):
                state = self._init_state(p)  # a group added later gets its state here
                step = _count_step(state)
                adagrad_update(
                    p._data,
                    p.grad._data,
                    state["sum"]._data,
                    step=step,
                    lr=group["lr"],
                    lr_decay=group["lr_decay"],
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    maximize=group["maximize"],
                )
                p._bump_version()
        return loss


def adagrad_update(
    param: Array,
    grad: Array,
    state_sum: Array,
    *,
    step: int,
    lr: float,
    lr_decay: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """Apply one Adagrad step (``step`` counts from 1) to the arrays, in place."""
    xp = get_array_module(param)
    clr = lr / (1 + (step - 1) * lr_decay)
    if kernel_fits(param, grad, state_sum):
        _adagrad_kernel(weight_decay != 0, maximize)(
            grad, weight_decay, -clr, eps, param, state_sum
        )
        return
    g = _decayed_grad(param, grad, weight_decay, maximize)
    state_sum += g * g
    std = xp.sqrt(state_sum)
    std += eps
    update = g * (-clr)  # (-clr * g) / std, PyTorch's order
    update /= std
    param += update


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel (see optimizer.py): 1 launch per parameter instead of 7-10
# ----------------------------------------------------------------------------------------------
@functools.cache
def _adagrad_kernel(weight_decay: bool, maximize: bool) -> ElementwiseKernel:
    """adagrad_update's arithmetic for one element, in the same order (``s``: the sum)."""
    lines = _grad_lines(maximize, weight_decay)
    lines += ["s = s + d * d;", "p = p + (d * neg_clr) / (sqrt(s) + eps);"]
    return ElementwiseKernel(
        _kernel_name("adagrad", maximize, weight_decay),
        "T g, T wd, T neg_clr, T eps",
        "T p, T s",
        "\n".join(lines),
    )
