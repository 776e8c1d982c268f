"""Adagrad: per-coordinate steps that shrink with the sum of past squared gradients (Duchi et
al., 2011)."""

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

    accepts_sparse_grads = True  # (made dense: the same update, see Optimizer)

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
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
        check_fused_flags(foreach, fused, differentiable)  # (they change no number here)
        defaults.update(
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(self.init_state(p, group))

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        """As in PyTorch, made for every parameter on construction (a group added later gets
        its state on its first step)."""
        init = self.defaults["initial_accumulator_value"]
        total = get_array_module(p._data).full_like(p._data, init)
        return {"step": _scalar_state(), "sum": Tensor._make(total, False)}

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One Adagrad step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        step = _count_step(state)
        state_sum = state["sum"]._data
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        fused = kernels.optim.adagrad  # one GPU launch (kernels/optim.py)
        if type(param) is not ndarray and fused(param, grad, state_sum, group, clr):
            return
        g = _decayed_grad(param, grad, group["weight_decay"], group["maximize"])
        state_sum += g * g
        std = xp.sqrt(state_sum)
        std += group["eps"]
        update = g * (-clr)  # (-clr * g) / std, PyTorch's order
        update /= std
        param += update
