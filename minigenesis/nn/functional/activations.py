"""The activations (F.relu, F.gelu, F.softmax, F.selu, F.glu, F.rrelu ...): the ones with an op of
their own hand over to ops/activation.py; the rest are short compositions of ops whose kinks take
PyTorch's subgradient.
"""

from __future__ import annotations

import warnings
from typing import Any

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autocast_policy import LOWER, autocast_function
from ...backend import get_array_module
from ...functions import where
from ...ops import activation as A
from ...ops.anchor import anchor
from ...ops.loss import LogSigmoid
from ...ops.round_once import in_float32
from ...ops.same_dtype import check_same_dtype
from ...random import _draw as draw_samples
from ...size import norm_dim
from .prelu_ops import PReLU


# ----------------------------------------------------------------------------------------------
# Activations (the math and derivatives: ops/activation.py)
# ----------------------------------------------------------------------------------------------
def _inplace(x: Tensor, fn) -> Tensor:
    """Write fn(x) into x (``inplace=True``): saves memory, but x's old values are gone."""
    return x._inplace(fn)


def _floating(input: Any, kernel: str) -> None:  # noqa: A002
    """PyTorch's kernels of the smooth and sloped activations take floating inputs only: an
    integer or bool input is its NotImplementedError (the result would be truncated to ints)."""
    dtype = getattr(input, "dtype", None)
    if dtype is not None and not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for {dtype.name} input')


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0)"""
    return _inplace(input, A.ReLU.apply) if inplace else A.ReLU.apply(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else negative_slope * x"""
    _floating(input, "leaky_relu_cpu")

    def fn(t: Tensor) -> Tensor:
        return A.LeakyReLU.apply(t, negative_slope)

    return _inplace(input, fn) if inplace else fn(input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x Phi(x) (Phi the standard normal CDF); ``approximate="tanh"`` for the tanh formula."""
    _floating(input, "GeluKernelImpl")
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return input.gelu(approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x sigmoid(x) (also called swish)"""
    _floating(input, "silu_cpu")
    return _inplace(input, lambda t: t.silu()) if inplace else input.silu()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(beta x)) / beta, and x itself where beta x > threshold (as PyTorch)."""
    _floating(input, "softplus_cpu")
    return A.Softplus.apply(input, float(beta), float(threshold))


def _implicit_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        f"dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """e^x_i / sum_j e^x_j along ``dim`` (computed in ``dtype`` if given). ``_stacklevel``:
    PyTorch's place for a warning's stack level, kept so positional calls line up."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim)
    x = input if dtype is None else input.to(_dt.to_dtype(dtype))
    return x.softmax(norm_dim(dim, x.ndim)[0])


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """x_i - logsumexp(x) along ``dim`` (stable: never forms e^x for large x). ``_stacklevel``:
    PyTorch's place for a warning's stack level, kept so positional calls line up."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim)
    x = input if dtype is None else input.to(_dt.to_dtype(dtype))
    return x.log_softmax(norm_dim(dim, x.ndim)[0])


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else alpha (e^x - 1);   dy/dx = 1 where x > 0, else alpha e^x
    (see ops.activation.ELU: -0 and NaN kept, as in PyTorch)."""
    _floating(input, "elu_cpu")

    def fn(t: Tensor) -> Tensor:
        return A.ELU.apply(t, float(alpha), 1.0, 1.0)

    return input._inplace(fn) if inplace else fn(input)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """clamp(x, min_val, max_val);   dy/dx = 1 strictly inside (min_val, max_val), else 0
    (PyTorch's hardtanh_backward: 0 at the bounds themselves, unlike clamp)."""
    if min_val > max_val:
        raise ValueError(
            f"hardtanh: min_val ({min_val}) cannot be greater than max_val ({max_val})"
        )
    kind = input._data.dtype.kind if isinstance(input, Tensor) else "f"
    if kind == "b":  # PyTorch's clamp kernel has no bool case
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if kind == "u" and min_val < 0:  # a negative bound cannot be written in an unsigned dtype
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    if kind in "iu":  # PyTorch converts the bounds to the input's integer type (truncating)
        min_val, max_val = int(min_val), int(max_val)

    def fn(t: Tensor) -> Tensor:
        # written as "at or beyond a bound" so that NaN is not: it passes, gradient too (PyTorch)
        outside = (t <= min_val) | (t >= max_val)
        return anchor(where(outside, t.detach().clamp(min_val, max_val), t), t, node="Hardtanh")

    return input._inplace(fn) if inplace else fn(input)


# The in-place functional forms: F.relu_(x) is F.relu(x, inplace=True) (x's old values gone)
def relu_(input: Tensor) -> Tensor:
    """x = max(x, 0), in place."""
    return relu(input, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """x = x if x > 0 else alpha (e^x - 1), in place."""
    return elu(input, alpha, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """x = clamp(x, min_val, max_val), in place."""
    return hardtanh(input, min_val, max_val, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x = x if x > 0 else negative_slope * x, in place."""
    return leaky_relu(input, negative_slope, inplace=True)


@autocast_function(LOWER)  # on both of PyTorch's lower-precision lists
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x if x > 0 else a x, with one learned slope a per channel (dim 1), or one shared slope;
    dy/dx = 1 or a,   dy/da = x where x <= 0."""
    _floating(input, "prelu_cpu")
    check_same_dtype("prelu", LOWER, input=input, weight=weight)
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    channels = input.shape[1] if input.ndim >= 2 else 1
    n = weight.numel()
    if n != 1 and n != channels:
        raise RuntimeError(
            f"prelu: mismatch of parameter numbers and input channel size. Found parameter "
            f"numbers = {n} and channel size = {channels} (input of shape {tuple(input.shape)})"
        )
    if n == 1:
        a = weight.reshape(())
    else:
        a = weight.reshape((1, channels) + (1,) * (input.ndim - 2))
    return PReLU.apply(input, a)  # (its derivatives to every order as PyTorch's: prelu_ops.py)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x tanh(softplus(x))."""
    _floating(input, "mish_cpu")

    def fn(t: Tensor) -> Tensor:  # (2-byte floats in float32, rounded once, as PyTorch)
        return in_float32(lambda x: x * softplus(x).tanh(), t)

    return input._inplace(fn) if inplace else fn(input)


def _hardsigmoid(t: Tensor) -> Tensor:
    inside = (t > -3.0) & (t < 3.0)
    return where(inside, t / 6.0 + 0.5, (t.detach() / 6.0 + 0.5).clamp(0.0, 1.0))


# The activations below are compositions of differentiable ops. Where an activation has a kink,
# the branch each boundary point takes is chosen so the gradient there is PyTorch's subgradient.
def logsigmoid(input: Tensor) -> Tensor:
    """log sigmoid(x) = min(x, 0) - log(1 + e^-|x|);   dy/dx = sigmoid(-x)."""
    _floating(input, "log_sigmoid_cpu")
    return LogSigmoid.apply(input)


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    """softmax(-x) along ``dim``: e^-x_i / sum_j e^-x_j (the smallest input gets the most)."""
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim)
    x = input if dtype is None else input.to(_dt.to_dtype(dtype))
    return (-x).softmax(norm_dim(dim, x.ndim)[0])


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|);   dy/dx = 1 / (1 + |x|)^2."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x);   dy/dx = tanh(x)^2."""
    return input - input.tanh()


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x relu6(x + 3) / 6: 0 for x <= -3, x (x + 3) / 6 between, x for x >= 3;
    dy/dx = 0 for x <= -3, x/3 + 1/2 for -3 < x < 3, 1 for x >= 3 (PyTorch's choice at +-3).
    Computed by the formula, not by branches (see ops.activation.Hardswish)."""
    _floating(input, "hardswish_cpu")

    def fn(t: Tensor) -> Tensor:
        return A.Hardswish.apply(t)

    return _inplace(input, fn) if inplace else fn(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6 = clamp(x/6 + 1/2, 0, 1);   dy/dx = 1/6 strictly inside (-3, 3), else 0."""
    _floating(input, "hardsigmoid_cpu")

    def fn(t: Tensor) -> Tensor:  # (2-byte floats in float32, rounded once, as PyTorch)
        return in_float32(_hardsigmoid, t)

    return _inplace(input, fn) if inplace else fn(input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6) = hardtanh(x, 0, 6): gradient 1 strictly inside (0, 6), 0 at 0 and 6."""
    return hardtanh(input, 0.0, 6.0, inplace)


# SELU's constants (Klambauer et al., 2017) are the fixed point of its self-normalising map: with
# weights of variance 1/fan_in, activations of mean 0 and variance 1 keep mean 0 and variance 1
# from layer to layer. They solve two equations (mean and variance of selu(z), z ~ N(0, 1)).
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha), alpha ~ 1.6733, scale ~ 1.0507 (see SELU_ALPHA, SELU_SCALE);
    dy/dx = scale for x > 0, scale alpha e^x for x <= 0."""
    _floating(input, "elu_cpu")

    def fn(t: Tensor) -> Tensor:
        return A.ELU.apply(t, SELU_ALPHA, SELU_SCALE, 1.0)

    return _inplace(input, fn) if inplace else fn(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha (e^(x/alpha) - 1)): an ELU whose slope at 0 is 1 for every alpha
    (continuously differentiable);   dy/dx = 1 for x > 0, e^(x/alpha) for x <= 0."""
    _floating(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError(  # (PyTorch's RuntimeError, "ZeroDivisionError: alpha cannot be 0")
            "celu: alpha must not be 0 (the negative branch divides x by alpha)"
        )

    def fn(t: Tensor) -> Tensor:
        return A.ELU.apply(t, float(alpha), 1.0, 1.0 / alpha)

    return _inplace(input, fn) if inplace else fn(input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: split x in halves a, b along ``dim``; y = a * sigmoid(b)."""
    _floating(input, "glu_cpu")
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = norm_dim(dim, input.ndim)[0]
    if input.shape[d] % 2:
        raise RuntimeError(
            f"glu: Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    half = input.shape[d] // 2
    a, b = input.narrow(d, 0, half), input.narrow(d, half, half)  # (chunk gives 1 piece of 0)
    return a * b.sigmoid()


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value if x <= threshold else x;   dy/dx = 0 where x <= threshold, else 1.
    (Written as PyTorch's kernel: NaN is not <= threshold, so it passes through, gradient too.)"""
    if isinstance(input, Tensor) and input._data.dtype.kind == "b":
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    if isinstance(input, Tensor) and input._data.dtype.kind in "iu":
        # PyTorch converts both scalars to the input's integer type (truncating toward zero)
        threshold, value = int(threshold), int(value)

    def fn(t: Tensor) -> Tensor:
        return anchor(where(t <= threshold, value, t), t, node="Threshold")

    return _inplace(input, fn) if inplace else fn(input)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomized leaky ReLU: x if x > 0 else a x. Training: a ~ U(lower, upper) drawn anew for
    each element (from the minigenesis generator); eval: the mean slope (lower + upper) / 2.
    dy/dx = 1 for x > 0, a for x <= 0 (the drawn a)."""
    if not lower <= upper:
        raise RuntimeError(  # (PyTorch's type)
            f"rrelu: lower ({lower}) must not be greater than upper ({upper})"
        )
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)

    def fn(t: Tensor) -> Tensor:
        xp = get_array_module(t._data)
        slopes = draw_samples("uniform", tuple(t.shape), t.dtype, xp, None, lower, upper)
        return where(t > 0, t, t * type(t)._make(slopes, False))

    return _inplace(input, fn) if inplace else fn(input)


def _scalar(value: Any) -> Any:
    """A 0-d tensor given for a number argument (PyTorch's Scalar) as the number it holds:
    kept a tensor, a uint8 7 would make -lambd 249, not -7."""
    return value.item() if isinstance(value, Tensor) else value


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 for -lambd <= x <= lambd, else x - lambd for x > lambd, x + lambd for x < -lambd;
    dy/dx = 0 where -lambd <= x <= lambd, else 1. NaN falls outside the dead zone, so it
    propagates, its gradient too, as in PyTorch."""
    _floating(input, "softshrink_check")
    lambd = _scalar(lambd)
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be greater or equal to 0, but found {lambd}")
    dead = (input >= -lambd) & (input <= lambd)
    live = where(input > lambd, input - lambd, input + lambd)
    return anchor(where(dead, 0.0, live), input, node="Softshrink")


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 where -lambd <= x <= lambd, else x;   dy/dx = 0 in that dead zone, else 1.
    (NaN is not in the dead zone: it propagates, its gradient too, as in PyTorch.)"""
    _floating(input, "hardshrink_cpu")
    lambd = _scalar(lambd)
    return anchor(where((input >= -lambd) & (input <= lambd), 0.0, input), input, node="Hardshrink")


_threshold = threshold  # threshold_'s own argument is named threshold, as in PyTorch


# The remaining in-place functional forms PyTorch names (each is its layer's inplace=True)
def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """F.celu(x, alpha, inplace=True)."""
    return celu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    """F.selu(x, inplace=True)."""
    return selu(input, inplace=True)


def rrelu_(
    input: Tensor,  # noqa: A002
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
) -> Tensor:
    """F.rrelu(x, lower, upper, training, inplace=True)."""
    return rrelu(input, lower, upper, training, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    """F.threshold(x, threshold, value, inplace=True)."""
    return _threshold(input, threshold, value, inplace=True)


def gumbel_softmax(
    logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A differentiable sample of a categorical distribution (Jang et al., 2017):
    y = softmax((logits + g) / tau) along ``dim``, g = -log(E) with E ~ Exp(1) (Gumbel noise,
    drawn from the minigenesis generator). ``hard``: the one-hot vector of y's largest entry in
    the forward pass, y's gradient in the backward pass (straight-through: one_hot - y.detach()
    + y). ``eps`` is deprecated and unused (a warning, as PyTorch)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = logits.detach().new_empty(tuple(logits.shape)).exponential_().log().neg()
    y_soft = ((logits + noise) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.detach().argmax(dim, keepdim=True)
    y_hard = y_soft.detach().new_zeros(tuple(logits.shape)).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
