"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from numpy import ndarray

from .. import kernels
from .._tensor import Tensor
from ..backend import Array
from .implementation_flags import check_fused_flags
from .optimizer import Optimizer, _check_options, _decayed_grad


class SGD(Optimizer):
    r"""SGD as PyTorch computes it. For each parameter ``p`` with gradient ``g``:

    .. code-block:: text

        g <- g + weight_decay * p                       (if weight_decay != 0; L2 in the gradient)
        b <- g                                          (first step with momentum)
        b <- momentum * b + (1 - dampening) * g         (later steps)
        g <- g + momentum * b   if nesterov   else   b
        p <- p - lr * g

    With ``maximize=True`` the gradient's sign is flipped first (gradient ascent). State per
    parameter: ``momentum_buffer`` (only when momentum != 0).
    """

    accepts_sparse_grads = True  # (made dense: the same update, see Optimizer)

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_options(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_fused_flags(foreach, fused, differentiable)  # (they change no number here)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One SGD step of the arrays, in place (see the class docstring). ``grad`` is never
        written: it is the caller's ``p.grad``."""
        momentum, dampening = group["momentum"], group["dampening"]
        buf = state.get("momentum_buffer") if momentum != 0 else None
        buf = None if buf is None else buf._data
        new_buf = False  # the momentum buffer after the step (False: not computed yet)
        if type(param) is not ndarray:  # one GPU launch (kernels/optim.py)
            new_buf = kernels.optim.sgd(param, grad, buf, group)
        if new_buf is False:
            d_p = _decayed_grad(param, grad, group["weight_decay"], group["maximize"])
            new_buf = None
            if momentum != 0:
                if buf is None:
                    new_buf = d_p.astype(param.dtype)  # a copy, in the parameter's dtype
                else:
                    new_buf = buf
                    buf *= momentum
                    buf += d_p if dampening == 0 else (1 - dampening) * d_p
                d_p = d_p + momentum * new_buf if group["nesterov"] else new_buf
            param += (-group["lr"]) * d_p
        if momentum != 0 and buf is None:  # the first momentum step made the buffer
            state["momentum_buffer"] = Tensor._make(new_buf, False)
