"""Adam and AdamW: adaptive moment estimation, with L2 (Adam) or decoupled (AdamW) weight decay.

The two differ only in where weight decay enters, so they share one update function:

- Adam adds ``weight_decay * p`` to the gradient, so the decay is rescaled by the adaptive
  denominator like any other gradient component (L2 regularisation);
- AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization") shrinks the weights
  directly, ``p <- p * (1 - lr * weight_decay)``, before the Adam step.
"""

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
    _maximum_lines,
    _moment_lines,
    _moment_scalars,
    _scalar_state,
    _zeros_like_param,
    lerp_,
)


class Adam(Optimizer):
    r"""Adam as PyTorch computes it. At step ``t`` (1, 2, ...), for parameter ``p``, gradient ``g``:

    .. code-block:: text

        p <- p * (1 - lr * weight_decay)                 (AdamW / decoupled_weight_decay=True)
        g <- g + weight_decay * p                        (Adam, weight_decay != 0)
        m <- m + (1 - beta1) * (g - m)                   (= beta1 * m + (1 - beta1) * g)
        v <- beta2 * v + (1 - beta2) * g * g
        v_max <- max(v_max, v)                           (amsgrad; then v_max replaces v below)
        step_size = lr / (1 - beta1^t)
        denom = sqrt(v) / sqrt(1 - beta2^t) + eps        (eps added AFTER the bias correction)
        p <- p - step_size * m / denom

    The bias corrections are computed in Python floats and folded in exactly in that order, as
    PyTorch does (so the numbers match it, not the paper's algebraically equal rearrangement).
    State per parameter: ``step`` (int), ``exp_avg``, ``exp_avg_sq`` and ``max_exp_avg_sq``
    (amsgrad), each in the parameter's dtype and on its device.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        defaults = _check_options(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        defaults.update(
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adam update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            amsgrad = group["amsgrad"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:  # lazy: buffers appear on the first step with a gradient
                    state["step"] = _scalar_state()
                    state["exp_avg"] = _zeros_like_param(p)
                    state["exp_avg_sq"] = _zeros_like_param(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros_like_param(p)
                step = _count_step(state)
                max_sq = state.get("max_exp_avg_sq") if amsgrad else None
                adam_update(
                    p._data,
                    p.grad._data,
                    state["exp_avg"]._data,
                    state["exp_avg_sq"]._data,
                    None if max_sq is None else max_sq._data,
                    step=step,
                    lr=group["lr"],
                    beta1=beta1,
                    beta2=beta2,
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    maximize=group["maximize"],
                    decoupled_weight_decay=group["decoupled_weight_decay"],
                )
                p._bump_version()
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2): ``p <- p * (1 - lr * weight_decay)`` before
    the Adam step, instead of adding ``weight_decay * p`` to the gradient. See ``Adam``."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            maximize=maximize,
            foreach=foreach,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:  # AdamW is AdamW whatever the loaded groups say
            group["decoupled_weight_decay"] = True


def adam_update(
    param: Array,
    grad: Array,
    exp_avg: Array,
    exp_avg_sq: Array,
    max_exp_avg_sq: Array | None,
    *,
    step: int,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
    decoupled_weight_decay: bool,
) -> None:
    """Apply one Adam/AdamW step (``step`` counts from 1) to the arrays, in place."""
    xp = get_array_module(param)
    step_size = lr / (1 - beta1**step)  # the bias corrections, in Python floats
    bias_correction2_sqrt = (1 - beta2**step) ** 0.5
    if kernel_fits(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq):
        amsgrad = max_exp_avg_sq is not None
        kernel = _adam_kernel(weight_decay != 0, maximize, decoupled_weight_decay, beta1, amsgrad)
        wd = _decay_scalar(weight_decay, decoupled_weight_decay, lr)
        buffers = (exp_avg, exp_avg_sq, max_exp_avg_sq) if amsgrad else (exp_avg, exp_avg_sq)
        moments = _moment_scalars(beta1, beta2)
        kernel(grad, wd, *moments, -step_size, bias_correction2_sqrt, eps, param, *buffers)
        return
    g = _decayed_grad(param, grad, weight_decay, maximize, decoupled_weight_decay, lr)
    # one scratch array serves every temporary below (big tensors: allocation is not free)
    scratch = lerp_(exp_avg, g, 1 - beta1)
    exp_avg_sq *= beta2
    xp.multiply(g, 1 - beta2, out=scratch)
    scratch *= g
    exp_avg_sq += scratch

    if max_exp_avg_sq is not None:
        xp.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
        denom = xp.sqrt(max_exp_avg_sq)
    else:
        denom = xp.sqrt(exp_avg_sq)
    denom /= bias_correction2_sqrt
    denom += eps
    xp.multiply(exp_avg, -step_size, out=scratch)  # (-step_size * m) / denom, PyTorch's order
    scratch /= denom
    param += scratch


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel (see optimizer.py): 1 launch per parameter instead of 13-17
# ----------------------------------------------------------------------------------------------
@functools.cache
def _adam_kernel(
    weight_decay: bool, maximize: bool, decoupled: bool, beta1: float, amsgrad: bool
) -> ElementwiseKernel:
    """adam_update's arithmetic for one element, in the same order (so the same roundings): the
    lines present depend on the options, as the branches above do. (_moment_lines writes
    ``(w2 * d) * d`` for the scratch's ``(g * w2) * g``: a product rounds alike in either order.)"""
    lines = _grad_lines(maximize, weight_decay, decoupled) + _moment_lines(beta1)
    if amsgrad:
        lines += _maximum_lines("v_max", "v_max", "v")
        lines.append("p = p + (m * neg_step) / (sqrt(v_max) / bc2_sqrt + eps);")
    else:
        lines.append("p = p + (m * neg_step) / (sqrt(v) / bc2_sqrt + eps);")
    name = _kernel_name("adam", maximize, weight_decay, decoupled)
    return ElementwiseKernel(
        name + ("_amsgrad" if amsgrad else ""),
        "T g, T wd, T w1, T beta2, T w2, T neg_step, T bc2_sqrt, T eps",
        "T p, T m, T v, T v_max" if amsgrad else "T p, T m, T v",
        "\n".join(lines),
    )
