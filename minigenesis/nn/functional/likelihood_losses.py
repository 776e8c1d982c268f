"""Negative log-likelihood losses of two common noise models:

    poisson_nll_loss    counts k ~ Poisson(rate):   rate - k log(rate)
                        (log_input: the input is log(rate), so exp(x) - k x; ``full`` adds
                        Stirling's log k! ~ k log k - k + log(2 pi k) / 2 where k > 1)
    gaussian_nll_loss   y ~ N(mean, var):   (log var + (mean - y)^2 / var) / 2
                        (``full`` adds log(2 pi) / 2; var is clamped to >= eps for stability,
                        with the gradient flowing as if it were not, as in PyTorch)

Both composed of Tensor ops, so their gradients follow.
"""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...autocast_policy import FLOAT32, autocast_function
from .losses import reduction_mode


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


@autocast_function(FLOAT32)
def poisson_nll_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: Any = None,
    eps: float = 1e-8,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """exp(x) - k x (``log_input``) or x - k log(x + eps), plus Stirling's term with ``full``."""
    reduction = reduction_mode(size_average, reduce, reduction, "poisson_nll_loss")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        k = target.clamp(min=1)  # (the term is 0 where k <= 1: no log 0 computed there)
        stirling = k * k.log() - k + 0.5 * (2 * math.pi * k).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(  # on neither of PyTorch's autocast lists: its ops' rules apply
    input: Tensor,  # noqa: A002
    target: Tensor,
    var: Any,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """(log var + (x - y)^2 / var) / 2 per element. ``var`` has the input's shape, or one dim
    fewer (one variance per sample), or a size-1 dim where the input has another size (shared),
    or is a float."""
    if isinstance(input, Tensor) and input._data.dtype.kind not in "fcV":
        # PyTorch computes the loss into an output of the input's dtype: integers are refused
        raise RuntimeError(
            f"gaussian_nll_loss: result type Float can't be cast to the desired output type "
            f"{input.dtype}"
        )
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.new_ones(tuple(input.shape)) * var
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (
            input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var + (var.clamp(min=eps) - var).detach()  # clamped values, identity gradient
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
