"""Adam and AdamW: adaptive moment estimation, with L2 (Adam) or decoupled (AdamW) weight decay.

The two differ only in where weight decay enters, so they share one update function:

- Adam adds ``weight_decay * p`` to the gradient, so the decay is rescaled by the adaptive
  denominator like any other gradient component (L2 regularisation);
- AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization") shrinks the weights
  directly, ``p <- p * (1 - lr * weight_decay)``, before the Adam step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from numpy import ndarray

from .. import kernels
from .._tensor import Tensor
from ..backend import Array, get_array_module
from .implementation_flags import check_fused_flags
from .optimizer import (
    Optimizer,
    _check_options,
    _count_step,
    _decayed_grad,
    _scalar_state,
    _zeros_like_param,
    lerp_,
)


def _check_tensor_hyperparameters(lr: Any, betas: Any, foreach: Any, capturable: bool) -> None:
    """PyTorch's Adam/AdamW refusals (ValueError, its words): a tensor lr or beta with
    foreach=True and capturable=False (its multi-tensor step reads them as numbers), and betas
    that are not both floats or both tensors (so an int beta such as 0 is refused too)."""
    if isinstance(lr, Tensor) and foreach and not capturable:
        raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        return  # _check_betas names that
    if not (all(isinstance(b, float) for b in betas) or all(isinstance(b, Tensor) for b in betas)):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, b in enumerate(betas):
        if isinstance(b, Tensor) and foreach and not capturable:
            raise ValueError(
                f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True"
            )
        if isinstance(b, Tensor) and b.numel() != 1:
            raise ValueError(f"Tensor betas[{i}] must be 1-element")


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
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_tensor_hyperparameters(lr, betas, foreach, capturable)
        defaults = _check_options(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        check_fused_flags(foreach, fused, differentiable)  # (they change no number here)
        defaults.update(
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        state = {
            "step": _scalar_state(),
            "exp_avg": _zeros_like_param(p),
            "exp_avg_sq": _zeros_like_param(p),
        }
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _zeros_like_param(p)
        return state

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One Adam/AdamW step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        step = _count_step(state)
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        (beta1, beta2), decoupled = group["betas"], group["decoupled_weight_decay"]
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        max_sq = state["max_exp_avg_sq"]._data if group["amsgrad"] else None
        step_size = lr / (1 - beta1**step)  # the bias corrections, in Python floats
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        if type(param) is not ndarray and kernels.optim.adam(  # one GPU launch (kernels/optim.py)
            param, grad, exp_avg, exp_avg_sq, max_sq, group, step_size, bias_correction2_sqrt
        ):
            return
        g = grad  # (plus weight decay, minus when maximizing: _decayed_grad)
        if weight_decay or group["maximize"]:
            g = _decayed_grad(param, grad, weight_decay, group["maximize"], decoupled, lr)
        # one scratch array serves every temporary below (big tensors: allocation is not free)
        scratch = lerp_(exp_avg, g, 1 - beta1)
        exp_avg_sq *= beta2
        xp.multiply(g, 1 - beta2, out=scratch)
        scratch *= g
        exp_avg_sq += scratch
        if max_sq is not None:  # amsgrad: the largest second moment so far
            xp.maximum(max_sq, exp_avg_sq, out=max_sq)
        denom = xp.sqrt(exp_avg_sq if max_sq is None else max_sq)
        denom /= bias_correction2_sqrt
        denom += eps
        xp.multiply(exp_avg, -step_size, out=scratch)  # (-step_size * m) / denom, PyTorch's order
        scratch /= denom
        param += scratch


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
        capturable: bool = False,
        differentiable: bool = False,
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
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:  # AdamW is AdamW whatever the loaded groups say
            group["decoupled_weight_decay"] = True
