"""Adadelta: an adaptive step whose units match the parameter's (Zeiler, 2012)."""

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
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_options(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho} (need 0 <= rho <= 1)")
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

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adadelta update of every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state()
                    state["square_avg"] = _zeros_like_param(p)
                    state["acc_delta"] = _zeros_like_param(p)
                _count_step(state)
                adadelta_update(
                    p._data,
                    p.grad._data,
                    state["square_avg"]._data,
                    state["acc_delta"]._data,
                    lr=group["lr"],
                    rho=group["rho"],
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    maximize=group["maximize"],
                )
                p._bump_version()
        return loss


def adadelta_update(
    param: Array,
    grad: Array,
    square_avg: Array,
    acc_delta: Array,
    *,
    lr: float,
    rho: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """Apply one Adadelta step to the arrays, in place."""
    xp = get_array_module(param)
    if kernel_fits(param, grad, square_avg, acc_delta):
        kernel = _adadelta_kernel(weight_decay != 0, maximize)
        kernel(grad, weight_decay, rho, 1 - rho, eps, -lr, param, square_avg, acc_delta)
        return
    g = _decayed_grad(param, grad, weight_decay, maximize)
    square_avg *= rho
    square_avg += (1 - rho) * g * g
    std = xp.sqrt(square_avg + eps)
    delta = xp.sqrt(acc_delta + eps)
    delta /= std
    delta *= g
    acc_delta *= rho
    acc_delta += (1 - rho) * delta * delta
    delta *= -lr
    param += delta


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel (see optimizer.py): 1 launch per parameter instead of 16-19
# ----------------------------------------------------------------------------------------------
@functools.cache
def _adadelta_kernel(weight_decay: bool, maximize: bool) -> ElementwiseKernel:
    """adadelta_update's arithmetic for one element, in the same order (``v``: square_avg,
    ``u``: acc_delta)."""
    lines = _grad_lines(maximize, weight_decay)
    lines += [
        "v = v * rho + (w * d) * d;",
        "T delta = sqrt(u + eps) / sqrt(v + eps) * d;",
        "u = u * rho + (w * delta) * delta;",
        "p = p + delta * neg_lr;",
    ]
    return ElementwiseKernel(
        _kernel_name("adadelta", maximize, weight_decay),
        "T g, T wd, T rho, T w, T eps, T neg_lr",
        "T p, T v, T u",
        "\n".join(lines),
    )
