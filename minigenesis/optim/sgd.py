"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from .._tensor import Tensor
from ..backend import Array, get_array_module
from ..gpu_kernels import ElementwiseKernel, kernel_fits
from .optimizer import Optimizer, _check_options, _decayed_grad, _grad_lines, _kernel_name


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

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        fused: bool | None = None,
    ) -> None:
        _check_options(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        # foreach/fused are accepted so PyTorch code runs unchanged; there is one code path here.
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            fused=fused,
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One SGD update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                buf = state.get("momentum_buffer") if momentum != 0 else None
                new_buf = sgd_update(
                    p._data,
                    p.grad._data,
                    None if buf is None else buf._data,
                    lr=group["lr"],
                    momentum=momentum,
                    dampening=group["dampening"],
                    weight_decay=group["weight_decay"],
                    nesterov=group["nesterov"],
                    maximize=group["maximize"],
                )
                if momentum != 0 and buf is None:
                    state["momentum_buffer"] = Tensor._make(new_buf, False)
                p._bump_version()
        return loss


def sgd_update(
    param: Array,
    grad: Array,
    buf: Array | None,
    *,
    lr: float,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
    maximize: bool,
) -> Array | None:
    """Apply one SGD step to the arrays ``param`` (and ``buf``) in place.

    Returns the momentum buffer: ``buf`` itself, or a new one on the first momentum step (None
    without momentum). ``grad`` is never written: it is the caller's ``p.grad``.
    """
    if kernel_fits(param, grad, buf):
        first = momentum != 0 and buf is None
        if first:
            buf = get_array_module(param).empty_like(param)  # the kernel writes it
        kernel = _sgd_kernel(
            weight_decay != 0, maximize, momentum != 0, first, dampening != 0, nesterov
        )
        scalars = (weight_decay, momentum, 1 - dampening, -lr)
        kernel(grad, *scalars, param, *(() if buf is None else (buf,)))
        return buf
    d_p = _decayed_grad(param, grad, weight_decay, maximize)  # p.grad stays untouched
    if momentum != 0:
        if buf is None:
            buf = d_p.astype(param.dtype)  # a copy, in the parameter's dtype
        else:
            buf *= momentum
            buf += d_p if dampening == 0 else (1 - dampening) * d_p
        d_p = d_p + momentum * buf if nesterov else buf
    param += (-lr) * d_p
    return buf


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel (see optimizer.py): 1 launch per parameter instead of 2-9
# ----------------------------------------------------------------------------------------------
@functools.cache
def _sgd_kernel(
    weight_decay: bool,
    maximize: bool,
    momentum: bool,
    first: bool,
    dampened: bool,
    nesterov: bool,
) -> ElementwiseKernel:
    """sgd_update's arithmetic for one element, in the same order; ``first``: the momentum
    buffer ``b`` is new (it starts as the gradient)."""
    lines = _grad_lines(maximize, weight_decay)
    if momentum:
        if first:
            lines.append("b = d;")
        else:
            lines.append("b = b * momentum + damp * d;" if dampened else "b = b * momentum + d;")
        lines.append("d = d + momentum * b;" if nesterov else "d = b;")
    lines.append("p = p + neg_lr * d;")
    name = _kernel_name("sgd", maximize, weight_decay)
    if momentum:
        name += f"_{'nesterov' if nesterov else 'momentum'}{'_first' if first else ''}"
    return ElementwiseKernel(
        name,
        "T g, T wd, T momentum, T damp, T neg_lr",
        "T p, T b" if momentum else "T p",
        "\n".join(lines),
    )
