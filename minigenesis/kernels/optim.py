"""The optimizers' updates as one GPU kernel each (``optim/``: read the array code there first).

On a GPU each array operation of an update is one kernel launch (about 10 us of host work), so
an update written with array operations costs 4-15 launches per parameter and step. Each
optimizer's update is therefore also written here as ONE elementwise kernel, line by line after
its array code, so that every rounding happens in the same order and the GPU gives the CPU's
numbers. The helpers below write the lines several kernels share (the gradient with weight
decay, lerp_, NumPy's maximum); the scalars are Python floats computed as the array code does: a
Python float passed for a kernel's ``T`` is rounded to ``T``, as NumPy rounds a Python float that
meets a ``T`` array. Whether the arrays go to the kernel at all is ``kernel_fits`` (GPU arrays of
one dtype, float32 or float64; None for absent buffers).
"""

from __future__ import annotations

import functools

from ..backend import get_array_module
from .cuda import ElementwiseKernel, kernel_fits


def _grad_lines(maximize: bool, weight_decay: bool, decoupled: bool = False) -> list[str]:
    """``_decayed_grad`` as kernel lines: ``T d``, the gradient the update uses, from the
    gradient ``g`` and the parameter ``p``. With weight decay the kernel takes a scalar ``wd``
    (``_decay_scalar``): ``d = d + wd * p`` (L2), or ``p = p * wd`` (decoupled)."""
    lines = ["T d = -g;" if maximize else "T d = g;"]
    if weight_decay:
        lines.append("p = p * wd;" if decoupled else "d = d + wd * p;")
    return lines


def _kernel_name(
    optimizer: str, maximize: bool, weight_decay: bool, decoupled: bool = False
) -> str:
    """A kernel's name from the options of ``_grad_lines``: ``adam_max_w1``, ``sgd_l20``, ..."""
    return (
        f"{optimizer}_{'max_' if maximize else ''}{'w' if decoupled else 'l2'}{int(weight_decay)}"
    )


def _decay_scalar(weight_decay: float, decoupled: bool = False, lr: float = 0.0) -> float:
    """The ``wd`` of ``_grad_lines``: ``weight_decay`` (L2), or ``1 - lr * weight_decay``."""
    return 1 - lr * weight_decay if decoupled else weight_decay


def _lerp_line(start: str, end: str, weight: float, scalar: str) -> str:
    """``lerp_(start, end, weight)`` as a kernel line, with lerp_'s choice of formula; the
    kernel's scalar ``scalar`` is ``_lerp_scalar(weight)``."""
    if abs(weight) < 0.5:
        return f"{start} = {start} + ({end} - {start}) * {scalar};"
    return f"{start} = {end} - ({end} - {start}) * {scalar};"


def _lerp_scalar(weight: float) -> float:
    """The multiplier of ``_lerp_line``'s formula: ``weight``, or ``1.0 - weight`` above 0.5."""
    return weight if abs(weight) < 0.5 else 1.0 - weight


def _moment_lines(beta1: float) -> list[str]:
    """The Adam family's moment updates (Adam, NAdam, RAdam) as kernel lines: ``m`` lerped to ``d``
    by 1 - beta1 (lerp_), then ``v = v * beta2 + (w2 * d) * d`` with ``w2`` = 1 - beta2, as
    ``exp_avg_sq *= beta2; exp_avg_sq += (1 - beta2) * g * g``. Its scalars: _moment_scalars."""
    return [_lerp_line("m", "d", 1 - beta1, "w1"), "v = v * beta2 + (w2 * d) * d;"]


def _moment_scalars(beta1: float, beta2: float) -> tuple[float, float, float]:
    """``w1, beta2, w2``: the kernel scalars of ``_moment_lines``."""
    return (_lerp_scalar(1 - beta1), beta2, 1 - beta2)


def _maximum_lines(target: str, a: str, b: str) -> list[str]:
    """``target = maximum(a, b)`` as NumPy computes it: NaN when either is NaN. (CUDA's ``max``
    and ``fmax`` return the other operand when one is NaN, as NumPy's ``fmax`` does.)"""
    if target == b:
        raise ValueError("_maximum_lines reads b after writing target: they must differ")
    return [f"{target} = ({b} > {a}) ? {b} : {a};", f"{target} = isnan({b}) ? {b} : {target};"]


# ----------------------------------------------------------------------------------------------
# The fused updates: each returns False where the kernel does not apply (then the optimizer's
# array code runs), else launches it and returns True. The scalars are the ones the optimizer's
# update computed, passed in, so both paths compute them once, alike.
# ----------------------------------------------------------------------------------------------
def sgd(param, grad, buf, group: dict):
    """SGD's update in one launch; returns the momentum buffer (a new one on the first momentum
    step, None without momentum), or False where the kernel does not apply."""
    if not kernel_fits(param, grad, buf):
        return False
    momentum, dampening, weight_decay = group["momentum"], group["dampening"], group["weight_decay"]
    first = momentum != 0 and buf is None
    if first:
        buf = get_array_module(param).empty_like(param)  # the kernel writes it
    kernel = _sgd_kernel(
        weight_decay != 0,
        group["maximize"],
        momentum != 0,
        first,
        dampening != 0,
        group["nesterov"],
    )
    scalars = (weight_decay, momentum, 1 - dampening, -group["lr"])
    kernel(grad, *scalars, param, *(() if buf is None else (buf,)))
    return buf


def adam(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, group: dict, step_size, bc2_sqrt):
    """Adam's update in one launch, or False where the kernel does not apply."""
    if not kernel_fits(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq):
        return False
    (beta1, beta2), weight_decay = group["betas"], group["weight_decay"]
    decoupled, amsgrad = group["decoupled_weight_decay"], max_exp_avg_sq is not None
    kernel = _adam_kernel(weight_decay != 0, group["maximize"], decoupled, beta1, amsgrad)
    wd = _decay_scalar(weight_decay, decoupled, group["lr"])
    buffers = (exp_avg, exp_avg_sq, max_exp_avg_sq) if amsgrad else (exp_avg, exp_avg_sq)
    moments = _moment_scalars(beta1, beta2)
    kernel(grad, wd, *moments, -step_size, bc2_sqrt, group["eps"], param, *buffers)
    return True


def adamax(param, grad, exp_avg, exp_inf, group: dict, clr):
    """Adamax's update in one launch, or False where the kernel does not apply."""
    if not kernel_fits(param, grad, exp_avg, exp_inf):
        return False
    (beta1, beta2), weight_decay = group["betas"], group["weight_decay"]
    kernel = _adamax_kernel(weight_decay != 0, group["maximize"], beta1)
    w1 = _lerp_scalar(1 - beta1)
    kernel(grad, weight_decay, w1, beta2, group["eps"], -clr, param, exp_avg, exp_inf)
    return True


def adagrad(param, grad, state_sum, group: dict, clr):
    """Adagrad's update in one launch, or False where the kernel does not apply."""
    if not kernel_fits(param, grad, state_sum):
        return False
    weight_decay = group["weight_decay"]
    kernel = _adagrad_kernel(weight_decay != 0, group["maximize"])
    kernel(grad, weight_decay, -clr, group["eps"], param, state_sum)
    return True


def adadelta(param, grad, square_avg, acc_delta, group: dict):
    """Adadelta's update in one launch, or False where the kernel does not apply."""
    if not kernel_fits(param, grad, square_avg, acc_delta):
        return False
    rho, weight_decay = group["rho"], group["weight_decay"]
    kernel = _adadelta_kernel(weight_decay != 0, group["maximize"])
    scalars = (weight_decay, rho, 1 - rho, group["eps"], -group["lr"])
    kernel(grad, *scalars, param, square_avg, acc_delta)
    return True


def nadam(param, grad, exp_avg, exp_avg_sq, group: dict, bias_correction2, grad_coef, avg_coef):
    """NAdam's update in one launch, or False where the kernel does not apply."""
    if not kernel_fits(param, grad, exp_avg, exp_avg_sq):
        return False
    (beta1, beta2), weight_decay = group["betas"], group["weight_decay"]
    decoupled = group["decoupled_weight_decay"]
    kernel = _nadam_kernel(weight_decay != 0, group["maximize"], decoupled, beta1)
    wd = _decay_scalar(weight_decay, decoupled, group["lr"])
    scalars = (wd, *_moment_scalars(beta1, beta2), bias_correction2, group["eps"])
    kernel(grad, *scalars, grad_coef, avg_coef, param, exp_avg, exp_avg_sq)
    return True


def radam(param, grad, exp_avg, exp_avg_sq, group: dict, bc1, bc2, rectified: bool, rect):
    """RAdam's update in one launch, or False where the kernel does not apply."""
    if not kernel_fits(param, grad, exp_avg, exp_avg_sq):
        return False
    (beta1, beta2), weight_decay, lr = group["betas"], group["weight_decay"], group["lr"]
    decoupled = group["decoupled_weight_decay"]
    kernel = _radam_kernel(weight_decay != 0, group["maximize"], decoupled, beta1, rectified)
    wd = _decay_scalar(weight_decay, decoupled, lr)
    scalars = (wd, *_moment_scalars(beta1, beta2), bc1, lr, bc2**0.5, group["eps"], rect)
    kernel(grad, *scalars, param, exp_avg, exp_avg_sq)
    return True


def rmsprop(param, grad, square_avg, grad_avg, momentum_buffer, group: dict):
    """RMSprop's update in one launch (``grad_avg`` given means centered), or False where the
    kernel does not apply."""
    if not kernel_fits(param, grad, square_avg, grad_avg, momentum_buffer):
        return False
    alpha, weight_decay = group["alpha"], group["weight_decay"]
    centered, with_momentum = grad_avg is not None, momentum_buffer is not None
    kernel = _rmsprop_kernel(weight_decay != 0, group["maximize"], alpha, centered, with_momentum)
    scalars = (weight_decay, alpha, 1 - alpha, _lerp_scalar(1 - alpha), group["eps"])
    buffers = [b for b in (grad_avg, momentum_buffer) if b is not None]
    kernel(grad, *scalars, group["momentum"], -group["lr"], param, square_avg, *buffers)
    return True


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel : 1 launch per parameter instead of 2-9
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
    """SGD.update's arithmetic for one element, in the same order; ``first``: the momentum
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


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel : 1 launch per parameter instead of 13-17
# ----------------------------------------------------------------------------------------------
@functools.cache
def _adam_kernel(
    weight_decay: bool, maximize: bool, decoupled: bool, beta1: float, amsgrad: bool
) -> ElementwiseKernel:
    """Adam.update's arithmetic for one element, in the same order (so the same roundings): the
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


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel : 1 launch per parameter instead of 10-13
# ----------------------------------------------------------------------------------------------
@functools.cache
def _adamax_kernel(weight_decay: bool, maximize: bool, beta1: float) -> ElementwiseKernel:
    """Adamax.update's arithmetic for one element, in the same order (``u``: exp_inf)."""
    lines = _grad_lines(maximize, weight_decay)
    lines.append(_lerp_line("m", "d", 1 - beta1, "w1"))
    lines += ["u = u * beta2;", "T e = fabs(d) + eps;"]
    lines += _maximum_lines("u", "u", "e")
    lines.append("p = p + (m * neg_clr) / u;")
    return ElementwiseKernel(
        _kernel_name("adamax", maximize, weight_decay),
        "T g, T wd, T w1, T beta2, T eps, T neg_clr",
        "T p, T m, T u",
        "\n".join(lines),
    )


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel : 1 launch per parameter instead of 7-10
# ----------------------------------------------------------------------------------------------
@functools.cache
def _adagrad_kernel(weight_decay: bool, maximize: bool) -> ElementwiseKernel:
    """Adagrad.update's arithmetic for one element, in the same order (``s``: the sum)."""
    lines = _grad_lines(maximize, weight_decay)
    lines += ["s = s + d * d;", "p = p + (d * neg_clr) / (sqrt(s) + eps);"]
    return ElementwiseKernel(
        _kernel_name("adagrad", maximize, weight_decay),
        "T g, T wd, T neg_clr, T eps",
        "T p, T s",
        "\n".join(lines),
    )


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel : 1 launch per parameter instead of 16-19
# ----------------------------------------------------------------------------------------------
@functools.cache
def _adadelta_kernel(weight_decay: bool, maximize: bool) -> ElementwiseKernel:
    """Adadelta.update's arithmetic for one element, in the same order (``v``: square_avg,
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


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel : 1 launch per parameter instead of 16-19
# ----------------------------------------------------------------------------------------------
@functools.cache
def _nadam_kernel(
    weight_decay: bool, maximize: bool, decoupled: bool, beta1: float
) -> ElementwiseKernel:
    """NAdam.update's arithmetic for one element, in the same order."""
    lines = _grad_lines(maximize, weight_decay, decoupled) + _moment_lines(beta1)
    lines += [
        "T denom = sqrt(v / bc2) + eps;",
        "p = p + (grad_coef * d) / denom;",
        "p = p + (avg_coef * m) / denom;",
    ]
    name = _kernel_name("nadam", maximize, weight_decay, decoupled)
    return ElementwiseKernel(
        name,
        "T g, T wd, T w1, T beta2, T w2, T bc2, T eps, T grad_coef, T avg_coef",
        "T p, T m, T v",
        "\n".join(lines),
    )


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel : 1 launch per parameter instead of 10-18
# ----------------------------------------------------------------------------------------------
@functools.cache
def _radam_kernel(
    weight_decay: bool, maximize: bool, decoupled: bool, beta1: float, rectified: bool
) -> ElementwiseKernel:
    """RAdam.update's arithmetic for one element, in the same order; ``rectified``: the branch
    rho_t > 5 (a kernel for each branch, as the branch is taken in Python)."""
    lines = _grad_lines(maximize, weight_decay, decoupled) + _moment_lines(beta1)
    if rectified:
        lines.append("p = p - (m / bc1) * lr * (bc2_sqrt / (sqrt(v) + eps)) * rect;")
    else:
        lines.append("p = p - (m / bc1) * lr;")
    name = _kernel_name("radam", maximize, weight_decay, decoupled)
    return ElementwiseKernel(
        name + ("_rectified" if rectified else ""),
        "T g, T wd, T w1, T beta2, T w2, T bc1, T lr, T bc2_sqrt, T eps, T rect",
        "T p, T m, T v",
        "\n".join(lines),
    )


# ----------------------------------------------------------------------------------------------
# The same update as one GPU kernel : 1 launch per parameter instead of 9-20
# ----------------------------------------------------------------------------------------------
@functools.cache
def _rmsprop_kernel(
    weight_decay: bool, maximize: bool, alpha: float, centered: bool, momentum: bool
) -> ElementwiseKernel:
    """RMSprop.update's arithmetic for one element, in the same order: ``s`` square_avg, ``a``
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
