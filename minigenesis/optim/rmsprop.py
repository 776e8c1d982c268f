"""RMSprop: divide the gradient by a running root-mean-square of recent gradients (Hinton)."""

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
    _scalar_state,
    _zeros_like_param,
    lerp_,
)


class RMSprop(Optimizer):
    r"""RMSprop as PyTorch computes it. For parameter ``p`` with gradient ``g``:

    .. code-block:: text

        g <- g + weight_decay * p                        (if weight_decay != 0)
        s <- alpha * s + (1 - alpha) * g * g             (square_avg)
        a <- a + (1 - alpha) * (g - a)                   (grad_avg, centered only)
        r = sqrt(s - a * a) + eps   if centered   else   sqrt(s) + eps
        b <- momentum * b + g / r;  p <- p - lr * b     (momentum > 0)
        p <- p - lr * g / r                              (otherwise)

    ``centered`` normalises by an estimate of the gradient's variance instead of its raw second
    moment. There is no bias correction (unlike Adam). State per parameter: ``step``,
    ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg`` (centered).
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
    ) -> None:
        _check_options(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            maximize=maximize,
            foreach=foreach,
        )
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RMSprop update of every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            momentum, centered = group["momentum"], group["centered"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state()
                    state["square_avg"] = _zeros_like_param(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _zeros_like_param(p)
                    if centered:
                        state["grad_avg"] = _zeros_like_param(p)
                _count_step(state)
                buf = state.get("momentum_buffer") if momentum > 0 else None
                grad_avg = state.get("grad_avg") if centered else None
                rmsprop_update(
                    p._data,
                    p.grad._data,
                    state["square_avg"]._data,
                    None if grad_avg is None else grad_avg._data,
                    None if buf is None else buf._data,
                    lr=group["lr"],
                    alpha=group["alpha"],
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    momentum=momentum,
                    maximize=group["maximize"],
                )
                p._bump_version()
        return loss


def rmsprop_update(
    param: Array,
    grad: Array,
    square_avg: Array,
    grad_avg: Array | None,
    momentum_buffer: Array | None,
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float,
    momentum: float,
    maximize: bool,
) -> None:
    """Apply one RMSprop step to the arrays, in place (``grad_avg`` given means centered)."""
    xp = get_array_module(param)
    if kernel_fits(param, grad, square_avg, grad_avg, momentum_buffer):
        centered, with_momentum = grad_avg is not None, momentum_buffer is not None
        kernel = _rmsprop_kernel(weight_decay != 0, maximize, alpha, centered, with_momentum)
        scalars = (weight_decay, alpha, 1 - alpha, _lerp_scalar(1 - alpha), eps, momentum, -lr)
        buffers = [b for b in (grad_avg, momentum_buffer) if b is not None]
        kernel(grad, *scalars, param, square_avg, *buffers)
        return
    g = _decayed_grad(param, grad, weight_decay, maximize)
    square_avg *= alpha
    scratch = xp.multiply(g, 1 - alpha, out=xp.empty_like(square_avg))  # an array even when 0-d
    scratch *= g
    square_avg += scratch
    if grad_avg is not None:
        lerp_(grad_avg, g, 1 - alpha, out=scratch)
        avg = xp.multiply(grad_avg, -1.0, out=scratch)  # s - a * a, reusing the scratch
        avg *= grad_avg
        avg += square_avg
        xp.sqrt(avg, out=avg)
    else:
        avg = xp.sqrt(square_avg, out=scratch)
    avg += eps
    if momentum_buffer is not None:
        momentum_buffer *= momentum
        momentum_buffer += xp.divide(g, avg, out=avg)
        param += xp.multiply(momentum_buffer, -lr, out=avg)
    else:
        update = g * (-lr)
        update /= avg
        param += update


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel (see optimizer.py): 1 launch per parameter instead of 9-20
# ----------------------------------------------------------------------------------------------
@functools.cache
def _rmsprop_kernel(
    weight_decay: bool, maximize: bool, alpha: float, centered: bool, momentum: bool
) -> ElementwiseKernel:
    """rmsprop_update's arithmetic for one element, in the same order: ``s`` square_avg, ``a``
    grad_avg (centered), ``b`` momentum_buffer."""
    lines = _grad_lines(maximize, weight_decay)
    lines.append("s = s * alpha + (d * w) * d;")
    if centered:
        lines.append(_lerp_line("a", "d", 1 - alpha, "w_lerp"))
        lines.append("T avg = sqrt(-a * a + s) + eps;")  # NumPy: (a * -1) * a + s
    else:
        lines.append("T avg = sqrt(s) + eps;")
    if momentum:
        lines += ["b = b * momentum + d / avg;", "p = p + b * neg_lr;"]
    else:
        lines.append("p = p + (d * neg_lr) / avg;")
    outs = "T p, T s" + (", T a" if centered else "") + (", T b" if momentum else "")
    name = _kernel_name("rmsprop", maximize, weight_decay)
    return ElementwiseKernel(
        name + ("_centered" if centered else "") + ("_momentum" if momentum else ""),
        "T g, T wd, T alpha, T w, T w_lerp, T eps, T momentum, T neg_lr",
        outs,
        "\n".join(lines),
    )
