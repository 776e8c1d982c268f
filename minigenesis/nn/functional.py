"""The functional forms of the layers and losses: ``import minigenesis.nn.functional as F``.

Every ``F.*`` function is defined here, and only here. A function checks its arguments, names what
is wrong when they do not fit, and calls the differentiable ops of ``ops/`` (an op class holds one
forward and its backward); the layers of ``nn/`` hold parameters and options and call these
functions. The sections follow the course: linear maps and activations, dropout, normalisation,
embeddings, losses, convolution and pooling, attention.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import autocast_policy
from .. import dtypes as _dt
from .._tensor import Tensor
from ..autocast_policy import FLOAT32, LOWER, autocast_function
from ..backend import get_array_module
from ..conversions import as_array
from ..functions import where
from ..ops import activation as A
from ..ops.anchor import anchor
from ..ops.attention import SDPA, attention
from ..ops.conv import CONV_ORDER, Col2Im, Im2Col, conv_padding, pair
from ..ops.conv_shifted import shifted_conv2d
from ..ops.dropout import Dropout
from ..ops.embedding import EmbeddingLookup
from ..ops.indexing import check_index_dtype, check_index_range
from ..ops.interpolate import UPSAMPLE_OPS, Resample
from ..ops.linear import Linear, autocast_linear
from ..ops.loss import BinaryCrossEntropy, CrossEntropyIndices, LogSigmoid, PickClass
from ..ops.normalization import Normalize, normalize_stats
from ..ops.pad import Pad, gather_index
from ..ops.pooling import KeepInput, MaxPool, pool_geometry2d, pool_windows
from ..ops.same_dtype import check_same_dtype
from ..random import _draw as draw_samples
from ..random import bernoulli_mask
from ..size import norm_dim
from ._reduction import reduction_mode
from ._utils import padding_index, shape_tuple, single


# ----------------------------------------------------------------------------------------------
# Linear maps
# ----------------------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x W^T + b for x of shape (..., in_features), W (out_features, in_features)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"linear: input must be a Tensor, got {type(input).__name__}")
    if weight.ndim != 2:
        raise ValueError(f"linear: weight must be 2-D (out, in), got shape {tuple(weight.shape)}")
    if input.ndim == 0:
        raise ValueError("linear: input must have at least 1 dim")
    # One dtype for input, weight and bias (after autocast's casts), as PyTorch: a float64
    # batch into a float32 layer is an error, not a float64 layer. Integers of one dtype compute
    # in that dtype, as in PyTorch (no gradient); bool does not.
    dt = weight._data.dtype  # (the arrays' dtypes: compared as they are, no lookup)
    if input._data.dtype != dt or (bias is not None and bias._data.dtype != dt):
        check_same_dtype("linear", LOWER, input=input, weight=weight, bias=bias)
    if dt.kind == "b":
        raise TypeError("linear: bool tensors are not supported (as in PyTorch)")
    if bias is not None and bias.shape != (weight.shape[0],):
        raise ValueError(
            f"linear: bias has shape {tuple(bias.shape)}, expected ({weight.shape[0]},)"
        )
    if weight.is_floating_point() and autocast_policy.lowers(Linear, input):
        # Autocast casts all three operands to its low dtype itself, before any promotion (as
        # PyTorch's dispatcher does). Promoting a bfloat16 input to the float32 weight's dtype
        # first would cast it twice and keep a second copy of it for backward.
        return autocast_linear(input, weight, bias)
    return Linear.apply(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y_o = sum_ij x1_i A_oij x2_j + b_o for x1 (*, in1), x2 (*, in2), A (out, in1, in2).
    Computed as one matmul, (x1 A) reshaped to (*, out, in2), times x2, summed over in2."""
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear: weight must be 3-d (out, in1, in2), got {weight.ndim}-d")
    out_f, in1, in2 = weight.shape
    if input1.shape[-1:] != (in1,) or input2.shape[-1:] != (in2,):
        raise RuntimeError(
            f"bilinear: input1 (*, {in1}) and input2 (*, {in2}) must match the weight "
            f"{tuple(weight.shape)}, got {tuple(input1.shape)} and {tuple(input2.shape)}"
        )
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            f"bilinear: input1 and input2 must have the same batch dims, got "
            f"{tuple(input1.shape)} and {tuple(input2.shape)}"
        )
    check_same_dtype("bilinear", LOWER, input1=input1, input2=input2, weight=weight, bias=bias)
    lead = tuple(input1.shape[:-1])
    # (B, in1) @ (in1, out * in2): row b holds sum_i x1_i A_oij for every (o, j)
    u = input1.reshape((-1, in1)) @ weight.permute((1, 0, 2)).reshape((in1, out_f * in2))
    y = (u.reshape((-1, out_f, in2)) * input2.reshape((-1, 1, in2))).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape((*lead, out_f))


# ----------------------------------------------------------------------------------------------
# Activations (the math and derivatives: ops/activation.py)
# ----------------------------------------------------------------------------------------------
def _inplace(x: Tensor, fn) -> Tensor:
    """Write fn(x) into x (``inplace=True``): saves memory, but x's old values are gone."""
    return x._inplace(fn)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0)"""
    return _inplace(input, lambda t: t.relu()) if inplace else input.relu()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else negative_slope * x"""

    def fn(t: Tensor) -> Tensor:
        return A.LeakyReLU.apply(t, negative_slope)

    return _inplace(input, fn) if inplace else fn(input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x Phi(x) (Phi the standard normal CDF); ``approximate="tanh"`` for the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return input.gelu(approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x sigmoid(x) (also called swish)"""
    return _inplace(input, lambda t: t.silu()) if inplace else input.silu()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(beta x)) / beta, and x itself where beta x > threshold (as PyTorch)."""
    return A.Softplus.apply(input, float(beta), float(threshold))


def _implicit_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        f"dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """e^x_i / sum_j e^x_j along ``dim`` (computed in ``dtype`` if given)."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim)
    x = input if dtype is None else input.to(_dt.to_dtype(dtype))
    return x.softmax(norm_dim(dim, x.ndim)[0])


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:
    """x_i - logsumexp(x) along ``dim`` (stable: never forms e^x for large x)."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim)
    x = input if dtype is None else input.to(_dt.to_dtype(dtype))
    return x.log_softmax(norm_dim(dim, x.ndim)[0])


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else alpha (e^x - 1);   dy/dx = 1 where x > 0, else alpha e^x
    (see ops.activation.ELU: -0 and NaN kept, as in PyTorch)."""

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

    def fn(t: Tensor) -> Tensor:
        # written as "at or beyond a bound" so that NaN is not: it passes, gradient too (PyTorch)
        outside = (t <= min_val) | (t >= max_val)
        return anchor(where(outside, t.detach().clamp(min_val, max_val), t), t)

    return input._inplace(fn) if inplace else fn(input)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x if x > 0 else a x, with one learned slope a per channel (dim 1), or one shared slope;
    dy/dx = 1 or a,   dy/da = x where x <= 0."""
    check_same_dtype("prelu", LOWER, input=input, weight=weight)
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
    return where(input > 0, input, a * input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x tanh(softplus(x))."""

    def fn(t: Tensor) -> Tensor:
        return t * softplus(t).tanh()

    return input._inplace(fn) if inplace else fn(input)


# The activations below are compositions of differentiable ops. Where an activation has a kink,
# the branch each boundary point takes is chosen so the gradient there is PyTorch's subgradient.
def logsigmoid(input: Tensor) -> Tensor:
    """log sigmoid(x) = min(x, 0) - log(1 + e^-|x|);   dy/dx = sigmoid(-x)."""
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

    def fn(t: Tensor) -> Tensor:
        return A.Hardswish.apply(t)

    return _inplace(input, fn) if inplace else fn(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6 = clamp(x/6 + 1/2, 0, 1);   dy/dx = 1/6 strictly inside (-3, 3), else 0."""

    def fn(t: Tensor) -> Tensor:
        inside = (t > -3.0) & (t < 3.0)
        return where(inside, t / 6.0 + 0.5, (t.detach() / 6.0 + 0.5).clamp(0.0, 1.0))

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

    def fn(t: Tensor) -> Tensor:
        return A.ELU.apply(t, SELU_ALPHA, SELU_SCALE, 1.0)

    return _inplace(input, fn) if inplace else fn(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha (e^(x/alpha) - 1)): an ELU whose slope at 0 is 1 for every alpha
    (continuously differentiable);   dy/dx = 1 for x > 0, e^(x/alpha) for x <= 0."""
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0 (the negative branch divides x by alpha)")

    def fn(t: Tensor) -> Tensor:
        return A.ELU.apply(t, float(alpha), 1.0, 1.0 / alpha)

    return _inplace(input, fn) if inplace else fn(input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: split x in halves a, b along ``dim``; y = a * sigmoid(b)."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = norm_dim(dim, input.ndim)[0]
    if input.shape[d] % 2:
        raise RuntimeError(
            f"glu: Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value if x <= threshold else x;   dy/dx = 0 where x <= threshold, else 1.
    (Written as PyTorch's kernel: NaN is not <= threshold, so it passes through, gradient too.)"""

    def fn(t: Tensor) -> Tensor:
        return anchor(where(t <= threshold, value, t), t)

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
        raise ValueError(f"rrelu: lower ({lower}) must not be greater than upper ({upper})")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)

    def fn(t: Tensor) -> Tensor:
        xp = get_array_module(t._data)
        slopes = draw_samples("uniform", tuple(t.shape), t.dtype, xp, None, lower, upper)
        return where(t > 0, t, t * type(t)._make(slopes, False))

    return _inplace(input, fn) if inplace else fn(input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 for -lambd <= x <= lambd, else x - lambd for x > lambd, x + lambd for x < -lambd;
    dy/dx = 0 where -lambd <= x <= lambd, else 1. NaN falls outside the dead zone, so it
    propagates, its gradient too, as in PyTorch."""
    if lambd < 0:
        raise ValueError(f"softshrink: lambda must be greater or equal to 0, but found {lambd}")
    dead = (input >= -lambd) & (input <= lambd)
    live = where(input > lambd, input - lambd, input + lambd)
    return anchor(where(dead, 0.0, live), input)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """0 where -lambd <= x <= lambd, else x;   dy/dx = 0 in that dead zone, else 1.
    (NaN is not in the dead zone: it propagates, its gradient too, as in PyTorch.)"""
    return anchor(where((input >= -lambd) & (input <= lambd), 0.0, input), input)


# ----------------------------------------------------------------------------------------------
# Dropout
# ----------------------------------------------------------------------------------------------
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """y = x * m / (1 - p) with m ~ Bernoulli(1 - p) when ``training``, else y = x."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if inplace:
        return input._inplace(lambda t: Dropout.apply(t, float(p)))
    return Dropout.apply(input, float(p))


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels: y[n, c] = x[n, c] m[n, c] / (1 - p), m ~ Bernoulli(1 - p), for input
    (N, C, H, W); a 3-d input is read as (N, C, L), as PyTorch does (with its warning)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim < 2:
        raise ValueError(
            f"dropout2d: expected a 4-d input (N, C, H, W), got shape {tuple(input.shape)}"
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim.",
            stacklevel=2,
        )
    if not training or p == 0.0:
        return input

    def fn(t: Tensor) -> Tensor:
        shape = tuple(t.shape[:2]) + (1,) * (t.ndim - 2)
        if p >= 1.0:
            return t * 0.0
        mask = bernoulli_mask(shape, 1.0 - p, t._data)
        mask *= mask.dtype.type(1.0 / (1.0 - p))
        return t * type(t)._make(mask, False)

    return input._inplace(fn) if inplace else fn(input)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, name: str, dims: int):
    """Zero whole channels of an input (N, C, *spatial) or (C, *spatial) with ``dims`` spatial
    dims: y[n, c] = x[n, c] m[n, c] / (1 - p), m ~ Bernoulli(1 - p) (one draw per channel)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"{name}: Expected {dims + 1}D or {dims + 2}D input, but received a {input.ndim}D "
            f"input of shape {tuple(input.shape)} (channel dim, {dims} spatial dim(s), and an "
            f"optional batch dim)"
        )
    if not training or p == 0.0:
        return input
    batched = input.ndim == dims + 2

    def fn(t: Tensor) -> Tensor:
        if p >= 1.0:
            return t * 0.0
        # one mask entry per (sample, channel), broadcast over the spatial dims
        lead = tuple(t.shape[:2]) if batched else tuple(t.shape[:1])
        mask = bernoulli_mask(lead + (1,) * dims, 1.0 - p, t._data)
        mask *= mask.dtype.type(1.0 / (1.0 - p))
        return t * type(t)._make(mask, False)

    return input._inplace(fn) if inplace else fn(input)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) (see ``dropout2d``)."""
    return _feature_dropout(input, p, training, inplace, "dropout1d", 1)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) (see ``dropout2d``)."""
    return _feature_dropout(input, p, training, inplace, "dropout3d", 3)


# The value SELU saturates to for very negative inputs is -SELU_SCALE * SELU_ALPHA; alpha dropout
# sets dropped units to it (not to 0), then maps y -> a y + b so that inputs of mean 0 and
# variance 1 keep mean 0 and variance 1: a = 1 / sqrt((alpha'^2 p + 1)(1 - p)), alpha' = 1.7581.
_ALPHA_PRIME = 1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError(
            f"feature_alpha_dropout: expected an input (N, C, *) of at least 2 dims, got shape "
            f"{tuple(input.shape)}"
        )

    def fn(t: Tensor) -> Tensor:
        if p >= 1.0:
            return t * 0.0
        shape = (tuple(t.shape[:2]) + (1,) * (t.ndim - 2)) if feature else tuple(t.shape)
        keep = bernoulli_mask(shape, 1.0 - p, t._data)  # 1 = kept, 0 = dropped
        a = 1.0 / math.sqrt((_ALPHA_PRIME**2 * p + 1) * (1 - p))
        # kept: a x + a alpha' p;  dropped: -a alpha' + a alpha' p (the affine map of -alpha')
        shift = (keep - 1) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
        scale = keep * keep.dtype.type(a)
        make = type(t)._make
        return t * make(scale, False) + make(shift.astype(keep.dtype, copy=False), False)

    return input._inplace(fn) if inplace else fn(input)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's negative saturation value and the
    result is rescaled and shifted so that mean 0 and variance 1 are kept (see _ALPHA_PRIME)."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """``alpha_dropout`` with one draw per channel (N, C, *) instead of per element."""
    return _alpha_dropout(input, p, training, inplace, feature=True)


# ----------------------------------------------------------------------------------------------
# Normalisation (one fused op: ops/normalization.py)
# ----------------------------------------------------------------------------------------------
def _last_axes(x: Tensor, normalized_shape: tuple, name: str) -> tuple:
    k = len(normalized_shape)
    if k == 0 or x.ndim < k or tuple(x.shape[x.ndim - k :]) != normalized_shape:
        raise ValueError(
            f"{name}: input of shape {tuple(x.shape)} does not end with normalized_shape "
            f"{normalized_shape}"
        )
    return tuple(range(x.ndim - k, x.ndim))


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """y = (x - mean) / sqrt(var + eps) * weight + bias over the last dims (biased variance)."""
    shape = shape_tuple(normalized_shape)
    axes = _last_axes(input, shape, "layer_norm")
    return Normalize.apply(input, weight, bias, axes, float(eps), True, None)


def rms_norm(
    input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """y = x / sqrt(mean(x^2) + eps) * weight over the last dims; eps defaults to the dtype's
    machine epsilon (PyTorch's choice)."""
    shape = shape_tuple(normalized_shape)
    axes = _last_axes(input, shape, "rms_norm")
    if eps is None:
        eps = float(np.finfo(np.float32 if input.dtype.itemsize == 2 else input._data.dtype).eps)
    return Normalize.apply(input, weight, None, axes, float(eps), False, None)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Per-channel normalisation of (N, C, *) input.

    training: statistics of this batch (biased variance for the output), and the running averages
    are updated in place: running = (1 - momentum) running + momentum * batch statistic, with the
    *unbiased* variance. eval: y = (x - running_mean) / sqrt(running_var + eps) * weight + bias.
    """
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected input (N, C, ...), got {tuple(input.shape)}")
    c = input.shape[1]
    bshape = (1, c) + (1,) * (input.ndim - 2)  # a per-channel vector, broadcast over N and space
    w = None if weight is None else weight.reshape(bshape)
    b = None if bias is None else bias.reshape(bshape)
    axes = (0,) + tuple(range(2, input.ndim))
    if not training:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: eval mode needs running_mean and running_var")
        # An affine map of x: y = x * scale + shift (plain Tensor ops are exact and cheap here).
        scale = (running_var.reshape(bshape) + eps).rsqrt()
        if w is not None:
            scale = scale * w
        shift = -running_mean.reshape(bshape) * scale
        if b is not None:
            shift = shift + b
        return (input * scale + shift).to(input.dtype)
    count = input.numel() // c
    if count <= 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{tuple(input.shape)}"
        )
    mu, var = normalize_stats(input._data, axes, True)
    if running_mean is not None and running_var is not None:
        unbiased = var.reshape(c) * (count / (count - 1))
        for buf, stat in ((running_mean, mu.reshape(c)), (running_var, unbiased)):
            buf._data *= 1 - momentum
            buf._data += (momentum * stat).astype(buf._data.dtype, copy=False)
            buf._bump_version()
    return Normalize.apply(input, w, b, axes, float(eps), True, (mu, var))


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each of ``num_groups`` groups of channels of every sample (N, C, *) to zero
    mean and unit variance (biased), then y = xhat * weight[c] + bias[c]."""
    if input.ndim < 2:
        raise ValueError(f"group_norm: expected an input (N, C, *), got shape {tuple(input.shape)}")
    n, c = input.shape[:2]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            f"group_norm: expected number of channels in input to be divisible by num_groups, "
            f"but got input of shape {tuple(input.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise RuntimeError(
                f"group_norm: {name} must have shape ({c},) for an input of shape "
                f"{tuple(input.shape)}, got {tuple(t.shape)}"
            )
    grouped = input.reshape(n, num_groups, -1)
    y = Normalize.apply(grouped, None, None, (2,), float(eps), True, None).reshape(input.shape)
    per_channel = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(per_channel)
    if bias is not None:
        y = y + bias.reshape(per_channel)
    return y


def instance_norm(
    input: Tensor,  # noqa: A002
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Each (sample, channel) plane of (N, C, *) input normalised by its own statistics:
    y[n, c] = (x[n, c] - mean_nc) / sqrt(var_nc + eps) * weight[c] + bias[c], the variance biased.
    This is batch_norm on the input seen as one sample of N*C channels; the running averages (if
    given) move towards the batch mean of the per-instance statistics (unbiased variances), as in
    PyTorch. ``use_input_stats=False`` normalises with the running averages instead."""
    if input.ndim < 3:
        raise ValueError(
            f"instance_norm: expected input (N, C, *) with at least one spatial dim, got shape "
            f"{tuple(input.shape)}"
        )
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    n, c = input.shape[:2]
    if math.prod(input.shape[2:]) <= 1:
        raise ValueError(
            f"instance_norm: expected more than 1 spatial element when training, got input "
            f"size {tuple(input.shape)}"
        )
    tracked = running_mean is not None and running_var is not None
    # (each instance's running statistics start from the shared ones, move by batch_norm's rule,
    # and are averaged back over the batch)
    rm = running_mean.detach().repeat(n) if tracked else None
    rv = running_var.detach().repeat(n) if tracked else None
    w = None if weight is None else weight.repeat(n)
    b = None if bias is None else bias.repeat(n)
    y = batch_norm(input.reshape(1, n * c, *input.shape[2:]), rm, rv, w, b, True, momentum, eps)
    if tracked:
        for buf, moved in ((running_mean, rm), (running_var, rv)):
            buf._data[...] = moved._data.reshape(n, c).mean(axis=0).astype(buf._data.dtype)
            buf._bump_version()
    return y.reshape(input.shape)


def local_response_norm(
    input: Tensor,  # noqa: A002
    size: int,
    alpha: float = 1e-4,
    beta: float = 0.75,
    k: float = 1.0,
) -> Tensor:
    """y[n, c] = x[n, c] / (k + alpha / size * sum of x[n, c']^2 over the channels c' from
    c - size // 2 to c + (size - 1) // 2 (zeros beyond the ends)) ** beta: an average pooling of
    x^2 across channels (input (N, C, *), at least 3-d)."""
    if input.ndim < 3:
        raise ValueError(
            f"local_response_norm: expected 3D or higher dimensionality input (got {input.ndim} "
            f"dimensions)"
        )
    n, c = input.shape[:2]
    sq = (input * input).reshape(n, 1, c, -1)  # channels as the height of a one-channel image
    sq = pad(sq, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(sq, (size, 1), stride=1).reshape(input.shape)
    return input / (div * alpha + k) ** beta


# ----------------------------------------------------------------------------------------------
# Embeddings
# ----------------------------------------------------------------------------------------------
def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` picked by the integer tensor ``input``: shape input.shape + (dim,).
    Every index must lie in [0, num_embeddings): unlike ``x[i]``, a negative index is an error."""
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding: input must be a Tensor of indices, got {type(input).__name__}")
    check_index_dtype(input, ("int64", "int32"), "embedding")
    if weight.ndim != 2:
        raise ValueError(f"embedding: weight must be 2-D (num, dim), got {tuple(weight.shape)}")
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported")
    n = weight.shape[0]
    idx = input._data
    check_index_range(idx, n, "embedding", hint=f" (the weight has {n} rows)")
    padding_idx = padding_index(padding_idx, n)
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    out = EmbeddingLookup.apply(weight, idx, padding_idx)
    if scale_grad_by_freq and out.requires_grad:
        # each looked-up row's gradient divided by how often its index occurs in this input
        xp = get_array_module(idx)
        _, inverse, counts = xp.unique(idx.reshape(-1), return_inverse=True, return_counts=True)
        per_position = (1.0 / counts[inverse]).reshape(idx.shape + (1,))
        scale = Tensor._make(per_position.astype(weight._data.dtype), False)
        out.register_hook(lambda g: g * scale)
    return out


def _renorm_rows(weight: Tensor, idx: Any, max_norm: float, norm_type: float) -> None:
    """In place, outside the graph: rows looked up whose norm exceeds max_norm are scaled down."""
    xp = get_array_module(weight._data)
    rows = xp.unique(idx.reshape(-1))
    w = weight._data[rows]
    norms = (xp.abs(w.astype(xp.float32)) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    weight._data[rows] = (w * scale[:, None]).astype(weight._data.dtype)
    weight._bump_version()


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """(..., ) int64 classes -> (..., num_classes) int64 with a 1 at each class;
    ``num_classes=-1`` means max(tensor) + 1."""
    check_index_dtype(tensor, ("int64",), "one_hot", "class values")
    if not isinstance(num_classes, int) or isinstance(num_classes, bool):
        raise TypeError(f"one_hot: num_classes must be an int, got {type(num_classes).__name__}")
    data = tensor._data
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError(
                "one_hot: cannot infer the number of classes from an empty tensor: pass num_classes"
            )
        num_classes = int(data.max()) + 1
    check_index_range(data, num_classes, "one_hot", "class value", error=RuntimeError)
    xp = get_array_module(data)
    out = (data[..., None] == xp.arange(num_classes)).astype(xp.int64)
    return Tensor._make(out, False)


# ----------------------------------------------------------------------------------------------
# Losses (their own ops: ops/loss.py)
# ----------------------------------------------------------------------------------------------
# Cross entropy, NLL, MSE, L1, binary cross entropy (on probabilities and on logits). Each loss is
# a short composition of ops whose forward is numerically stable:
#
# - cross_entropy = nll_loss(log_softmax(x)): log_softmax subtracts the row max before exp, so a
#   logit of 1000 gives a finite loss where softmax-then-log would give inf;
# - binary_cross_entropy_with_logits uses log sigmoid(x) = min(x, 0) - log(1 + e^-|x|), never
#   exp of a large positive number;
# - binary_cross_entropy clamps its logs at -100 (PyTorch's rule): x = 0 or 1 gives a finite loss.
#
# Composing from ops means every loss has second derivatives for free. Weights and masks are
# constants (no gradient flows to ``weight``, as in PyTorch). Under autocast each loss is one
# FLOAT32 policy unit (``autocast_function``): float16/bfloat16 inputs are promoted to float32
# first, since a loss sums many terms, which 2-byte floats would round badly.
#
# Reductions follow PyTorch exactly, including the weighted mean of nll_loss/cross_entropy:
# ``sum_i w[t_i] l_i / sum_i w[t_i]`` over the samples whose target is not ``ignore_index``.
def _reduce(loss, reduction: str):
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _tensor(x, like, name: str):
    """Targets given as arrays or lists become tensors on ``like``'s device."""
    Tensor = type(like)
    if x is None or isinstance(x, Tensor):
        return x
    try:
        return Tensor._make(as_array(x, None, like.device), False)
    except Exception as err:
        raise TypeError(f"{name}: expected a Tensor, got {type(x).__name__}") from err


def _same_shape(input, target, name: str, strict: bool) -> None:
    if tuple(input.shape) == tuple(target.shape):
        return
    msg = (
        f"{name}: target shape {tuple(target.shape)} differs from input shape {tuple(input.shape)}"
    )
    if strict:
        raise ValueError(msg + ": they must be the same")
    try:
        np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    except ValueError:
        raise ValueError(msg + " and they cannot be broadcast together") from None
    warnings.warn(msg + "; they are broadcast, which is likely not what you want", stacklevel=3)


def _class_weight(weight, c: int, like, name: str):
    """A loss's per-class ``weight`` (not None) as a tensor of shape (C,)."""
    weight = _tensor(weight, like, name)
    if tuple(weight.shape) != (c,):
        raise ValueError(
            f"{name}: weight must have shape ({c},), one entry per class, got {tuple(weight.shape)}"
        )
    return weight


def _check_class_target(input, target, name: str) -> None:
    """Class-index targets: integer dtype and shape (N, d1, ...) for an (N, C, d1, ...) input."""
    check_index_dtype(target, ("int64", "uint8"), name, "class-index targets")
    shape = tuple(input.shape)
    expected = shape[:1] + shape[2:]
    if tuple(target.shape) != expected:
        raise ValueError(
            f"{name}: for an input of shape {tuple(input.shape)} (N, C, d1, ...) the target must "
            f"have shape {expected} (N, d1, ...), got {tuple(target.shape)}"
        )


def _weighted_mean(total, w_t):
    """total / sum_i w[t_i]. When every target is ignored that is 0/0: the value is NaN (as in
    PyTorch) but the gradient is 0, so the division uses 1 and a constant NaN is added instead."""
    xp = get_array_module(w_t._data)
    w_sum = w_t._data.sum()
    divisor = xp.where(w_sum > 0, w_sum, xp.ones((), dtype=w_sum.dtype))
    offset = xp.where(w_sum > 0, xp.zeros((), w_sum.dtype), xp.full((), xp.nan, w_sum.dtype))
    Tensor = type(total)
    return total / Tensor._make(divisor, False) + Tensor._make(offset, False)


def _nll(logp, target, weight, ignore_index: int, reduction: str, name: str):
    """nll_loss on a batched (N, C, d...) input: the shared core of nll_loss and cross_entropy.
    Returns (loss, per-sample weights w[t_i] (0 where ignored), valid mask)."""
    xp = get_array_module(logp._data)
    c = logp.shape[1]
    t = target._data
    valid = t != ignore_index
    safe = xp.where(valid, t, 0)
    check_index_range(safe, c, name, "target", f" or ignore_index={ignore_index}")
    dtype = logp._data.dtype
    if weight is None:
        w_t = valid.astype(dtype)
    else:
        w_t = weight._data.astype(dtype)[safe] * valid
    w_t = type(logp)._make(w_t, False)
    loss = -PickClass.apply(logp, safe, valid)
    if weight is not None:
        loss = loss * w_t
    if reduction == "none":
        return loss, w_t, valid
    total = loss.sum()
    return (_weighted_mean(total, w_t) if reduction == "mean" else total), w_t, valid


def _batched(input, target, name: str):
    """An unbatched (C,) input with a 0-d target is treated as a batch of one."""
    if input.ndim == 0:
        raise ValueError(f"{name}: input must have a class dim, got a 0-d tensor")
    if not input.is_floating_point():
        raise TypeError(f"{name}: input must be floating point (logits), got {input.dtype.name}")
    if target.device != input.device:
        raise ValueError(
            f"{name}: input is on {input.device} but target is on {target.device}: move one "
            f"of them (target.to(input.device))"
        )
    if input.ndim == 1:
        if target.ndim != 0 and target._data.dtype.kind in "iu":
            raise ValueError(
                f"{name}: for an unbatched input of shape {tuple(input.shape)} the class-index "
                f"target must be 0-d, got shape {tuple(target.shape)}"
            )
        return input.unsqueeze(0), target.unsqueeze(0), True
    return input, target, False


@autocast_function(FLOAT32)
def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
):
    """l_i = -w[t_i] input[i, t_i] (input holds log-probabilities); 0 where t_i == ignore_index.
    mean = sum_i l_i / sum_i w[t_i] over the non-ignored samples."""
    reduction = reduction_mode(size_average, reduce, reduction, "nll_loss")
    target = _tensor(target, input, "nll_loss")
    x, t, unbatched = _batched(input, target, "nll_loss")
    _check_class_target(x, t, "nll_loss")
    if weight is not None:
        weight = _class_weight(weight, x.shape[1], x, "nll_loss")
    loss, _, _ = _nll(x, t, weight, ignore_index, reduction, "nll_loss")
    return anchor(loss.squeeze(0) if unbatched and reduction == "none" else loss, input)


@autocast_function(FLOAT32)
def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
):
    """Cross entropy of logits ``input`` (N, C, d...) against class indices (N, d...) or class
    probabilities (N, C, d...).

    Indices:  l_i = (1 - eps) nll_i + eps/C * s_i,  nll_i = -w[t_i] log p[i, t_i],
              s_i = -sum_c w[c] log p[i, c]  (0 where ignored);  mean divides both sums by
              sum_i w[t_i] (by the count of non-ignored samples when there is no weight).
    Probabilities:  q = (1 - eps) target + eps/C,  l_i = -sum_c w[c] q[i, c] log p[i, c];
              mean divides by the number of samples N*d1*... (not by the weights).
    log p = log_softmax(input, dim=1), computed stably."""
    name = "cross_entropy"
    reduction = reduction_mode(size_average, reduce, reduction, name)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{name}: label_smoothing must be in [0, 1], got {label_smoothing}")
    target = _tensor(target, input, name)
    x, t, unbatched = _batched(input, target, name)
    c = x.shape[1]
    if weight is not None:
        weight = _class_weight(weight, c, x, name)
    shape = tuple(x.shape)
    index_shape = shape[:1] + shape[2:]  # (N, d1, ...)
    probabilities = t.is_floating_point() and tuple(t.shape) != index_shape
    if not probabilities and weight is None and label_smoothing == 0:  # the common case
        _check_class_target(x, t, name)
        valid = t._data != ignore_index
        safe = get_array_module(valid).where(valid, t._data, 0)
        check_index_range(safe, c, name, "target", f" or ignore_index={ignore_index}")
        loss = CrossEntropyIndices.apply(x, safe, valid, reduction)
        return loss.squeeze(0) if unbatched and reduction == "none" else loss
    logp = x.log_softmax(dim=1)
    w_b = None if weight is None else weight.reshape((1, c) + (1,) * (x.ndim - 2))
    if w_b is not None and w_b._data.dtype != logp._data.dtype:
        w_b = w_b._cast(logp._data.dtype)

    if probabilities:
        if tuple(t.shape) != tuple(x.shape):
            raise ValueError(
                f"{name}: class-probability targets must have the input's shape "
                f"{tuple(input.shape)}, got {tuple(target.shape)}"
            )
        q = t if t._data.dtype == logp._data.dtype else t._cast(logp._data.dtype)
        if label_smoothing > 0:
            q = q * (1 - label_smoothing) + label_smoothing / c
        terms = logp * q if w_b is None else logp * q * w_b
        loss = -terms.sum(dim=1)
        loss = _reduce(loss, reduction)
        return loss.squeeze(0) if unbatched and reduction == "none" else loss

    _check_class_target(x, t, name)
    nll, w_t, valid = _nll(logp, t, weight, ignore_index, reduction, name)
    if label_smoothing > 0:
        smooth = -(logp if w_b is None else logp * w_b).sum(dim=1)
        smooth = smooth.masked_fill(~valid, 0.0)
        if reduction != "none":
            smooth = smooth.sum()
        if reduction == "mean":  # w_t is the valid mask when there is no weight
            smooth = _weighted_mean(smooth, w_t)
        nll = (1 - label_smoothing) * nll + (label_smoothing / c) * smooth
    return nll.squeeze(0) if unbatched and reduction == "none" else nll


@autocast_function(FLOAT32)
def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """l_i = (x_i - y_i)^2;   dl/dx = 2 (x - y)."""
    reduction = reduction_mode(size_average, reduce, reduction, "mse_loss")
    target = _tensor(target, input, "mse_loss")
    _same_shape(input, target, "mse_loss", strict=False)
    diff = input - target
    return _reduce(diff * diff, reduction)


@autocast_function(FLOAT32)
def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """l_i = |x_i - y_i|;   dl/dx = sign(x - y) (0 at x == y, as PyTorch)."""
    reduction = reduction_mode(size_average, reduce, reduction, "l1_loss")
    target = _tensor(target, input, "l1_loss")
    _same_shape(input, target, "l1_loss", strict=False)
    return _reduce((input - target).abs(), reduction)


def _all_in_unit_interval(a) -> bool:
    """Every entry in [0, 1] (False for NaN): PyTorch's check of probabilities."""
    return not a.size or bool(((a >= 0) & (a <= 1)).all())


@autocast_function(FLOAT32)
def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"
):
    """l_i = -w_i (y_i log x_i + (1 - y_i) log(1 - x_i)), x a probability in [0, 1]; each log
    is clamped at -100 so x = 0 or 1 stays finite (PyTorch's rule)."""
    name = "binary_cross_entropy"
    reduction = reduction_mode(size_average, reduce, reduction, name)
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=True)
    x = input._data
    if not _all_in_unit_interval(x):
        raise RuntimeError(
            f"{name}: all elements of input should be between 0 and 1 (probabilities; for "
            f"logits use binary_cross_entropy_with_logits)"
        )
    if not _all_in_unit_interval(target._data):
        raise RuntimeError(f"{name}: all elements of target should be between 0 and 1")
    if target._data.dtype != x.dtype:
        target = target._cast(x.dtype)
    loss = BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        loss = loss * _tensor(weight, input, name)
    return _reduce(loss, reduction)


@autocast_function(FLOAT32)
def binary_cross_entropy_with_logits(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight=None,
):
    """l_i = -w_i (p y_i log sigmoid(x_i) + (1 - y_i) log(1 - sigmoid(x_i))), p = pos_weight
        = w_i ((1 - y_i) x_i - (1 + (p - 1) y_i) log sigmoid(x_i))
    (using log(1 - sigmoid(x)) = log sigmoid(x) - x), with the stable log sigmoid."""
    name = "binary_cross_entropy_with_logits"
    reduction = reduction_mode(size_average, reduce, reduction, name)
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=True)
    # PyTorch builds the loss in a buffer of the target's dtype ((1 - target).mul_(input)...): a
    # floating target decides the result's dtype (float16 logits, float32 target: float32)
    out_dtype = input._data.dtype
    if target._data.dtype != input._data.dtype:
        if target._data.dtype.kind in "fV":
            out_dtype = target._data.dtype
            both = _dt.promote_types(input.dtype, target.dtype).numpy_dtype
            input, target = input._cast(both), target._cast(both)
        else:
            target = target._cast(input._data.dtype)
    log_sig = LogSigmoid.apply(input)
    if pos_weight is None:
        loss = (1 - target) * input - log_sig
    else:
        pos_weight = _tensor(pos_weight, input, name)
        loss = (1 - target) * input - ((pos_weight - 1) * target + 1) * log_sig
    if weight is not None:
        loss = loss * _tensor(weight, input, name)
    return _reduce(loss._cast(out_dtype), reduction)


@autocast_function(FLOAT32)
def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """l_i = 0.5 d_i^2 / beta where |d_i| < beta, else |d_i| - 0.5 beta  (d = x - y; beta = 0
    is the L1 loss)."""
    name = "smooth_l1_loss"
    reduction = reduction_mode(size_average, reduce, reduction, name)
    if beta < 0:
        raise RuntimeError(f"{name} does not support negative values for beta, got {beta}")
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=False)
    d = input - target
    a = d.abs()
    if beta == 0.0:
        return _reduce(a, reduction)
    return _reduce(where(a < beta, d * d * (0.5 / beta), a - 0.5 * beta), reduction)


@autocast_function(FLOAT32)
def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """l_i = w_i (0.5 d_i^2 where |d_i| <= delta, else delta (|d_i| - 0.5 delta)) (d = x - y):
    smooth_l1_loss scaled by delta (beta = delta); mean = sum(l) / numel."""
    name = "huber_loss"
    reduction = reduction_mode(None, None, reduction, name)
    if delta <= 0:
        raise RuntimeError(f"{name} does not support non-positive values for delta, got {delta}")
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=False)
    d = input - target
    a = d.abs()
    loss = where(a <= delta, d * d * 0.5, (a - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@autocast_function(FLOAT32)
def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """KL(target || model) with ``input`` = log q:  l_i = p_i (log p_i - log q_i), 0 where
    p_i = 0 (``log_target=True``: target holds log p). 'batchmean' divides the sum by the batch
    size (dim 0): the true KL divergence per sample; 'mean' divides by every element."""
    name = "kl_div"
    if size_average is not None or reduce is not None:
        reduction = reduction_mode(size_average, reduce, reduction, name)
    elif reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(
            f"{name}: {reduction} is not a valid value for reduction (use 'none', 'mean', 'sum' "
            f"or 'batchmean')"
        )
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size. 'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.",
            stacklevel=2,
        )
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=False)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy(p, p) - p log q, as PyTorch: 0 where p = 0, NaN where p < 0 (no log of it)
        loss = target.xlogy(target) - target * input
    if reduction == "batchmean":
        batch = input.shape[0] if input.ndim else 1
        return loss.sum() / batch
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------------------------
# Convolution and pooling (im2col and col2im: ops/conv.py; ops/pooling.py)
# ----------------------------------------------------------------------------------------------
@autocast_function(LOWER)
def conv2d(
    input: Tensor,  # noqa: A002  (PyTorch's name)
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """y[n, o, oh, ow] = b[o] + sum_{c, i, j} w[o, c, i, j] x[n, c0(o) + c, oh s + i d, ow s + j d]
    (x zero-padded; c0(o) = the first input channel of o's group). input (N, C_in, H, W) or
    unbatched (C_in, H, W); weight (C_out, C_in/groups, kh, kw); bias (C_out,). ``padding``
    may also be 'valid' or 'same'.

    Computed as ``w (groups, C_out/g, C_in/g*kh*kw) @ im2col(x) (groups, C_in/g*kh*kw,
    N*H_out*W_out)``: one matmul (batched over groups only). The output is a (N, C_out, H_out,
    W_out) view of the matmul's (C_out, N, H_out, W_out) result: no copy is spent to reorder it."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("conv2d: input and weight must be Tensors")
    if weight.ndim != 4:
        raise ValueError(
            f"conv2d: weight must be 4-d (C_out, C_in/groups, kh, kw), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.ndim not in (3, 4):
        raise ValueError(
            f"conv2d: expected a 4-d input (N, C, H, W) or a 3-d unbatched one (C, H, W), got "
            f"shape {tuple(input.shape)}"
        )
    if not isinstance(groups, int) or groups < 1:
        raise ValueError(f"conv2d: groups must be a positive int, got {groups!r}")
    c_out, c_in_g, kh, kw = weight.shape
    if c_out % groups:
        raise ValueError(
            f"conv2d: weight of shape {tuple(weight.shape)} has {c_out} output channels, not "
            f"divisible by groups={groups}"
        )
    c_in = input.shape[-3]
    if c_in != c_in_g * groups:
        raise ValueError(
            f"conv2d: input of shape {tuple(input.shape)} has {c_in} channels, but weight of "
            f"shape {tuple(weight.shape)} with groups={groups} expects {c_in_g * groups}"
        )
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise ValueError(f"conv2d: bias must have shape ({c_out},), got {tuple(bias.shape)}")
    check_same_dtype("conv2d", LOWER, input=input, weight=weight, bias=bias)
    stride, dilation = pair(stride, "stride"), pair(dilation, "dilation")
    if 0 in stride or 0 in dilation or 0 in (kh, kw):  # RuntimeError, as PyTorch
        raise RuntimeError(
            f"conv2d: kernel size, stride and dilation must be positive, got kernel "
            f"{(kh, kw)}, stride {stride} and dilation {dilation}"
        )
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n = x.shape[0]
    pad4 = conv_padding(padding, (kh, kw), dilation, stride)
    if (out := shifted_conv2d(x, weight, bias, stride, dilation, groups, pad4)) is not None:
        return out.squeeze(0) if unbatched else out  # stride 1 on the CPU: ops/conv_shifted.py
    cols = Im2Col.apply(x, (kh, kw), stride, dilation, pad4, CONV_ORDER, 0.0)
    ho, wo = cols.shape[4:]
    k = c_in_g * kh * kw
    if groups == 1:
        out = weight.reshape(c_out, k) @ cols.reshape(k, n * ho * wo)
    else:
        w = weight.reshape(groups, c_out // groups, k)
        out = w @ cols.reshape(groups, k, n * ho * wo)
    out = out.reshape(c_out, n, ho, wo).permute(1, 0, 2, 3)
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1, 1)
    return out.squeeze(0) if unbatched else out


@autocast_function(LOWER)
def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """y[n, o, l] = b[o] + sum_{c, k} w[o, c, k] x[n, c0(o) + c, l s + k d] (x zero-padded):
    input (N, C_in, L) or (C_in, L), weight (C_out, C_in/groups, k). Computed as conv2d over
    a height of 1."""
    if weight.ndim != 3:
        raise ValueError(
            f"conv1d: weight must be 3-d (C_out, C_in/groups, k), got shape {tuple(weight.shape)}"
        )
    if input.ndim not in (2, 3):
        raise ValueError(
            f"conv1d: expected a 3-d input (N, C, L) or a 2-d unbatched one (C, L), got shape "
            f"{tuple(input.shape)}"
        )
    pad2 = padding if isinstance(padding, str) else (0, single(padding, "padding"))
    out = conv2d(
        input.unsqueeze(-2),
        weight.unsqueeze(-2),
        bias,
        (1, single(stride, "stride")),
        pad2,
        (1, single(dilation, "dilation")),
        groups,
    )
    return out.squeeze(-2)


@autocast_function(LOWER)
def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The adjoint of conv2d (its gradient with respect to the input): every input pixel
    scatters its value times the kernel into the output,

        y[n, o, h s - p + i d, w s - p + j d] += x[n, c, h, w] W[c, o', i, j]

    input (N, C_in, H, W) or (C_in, H, W), weight (C_in, C_out/groups, kh, kw). Output size
    (H - 1) s - 2 p + d (k - 1) + output_padding + 1. Computed as col2im(W^T x), so its gradient
    is im2col + matmul: conv2d's forward."""
    if weight.ndim != 4:
        raise ValueError(
            f"conv_transpose2d: weight must be 4-d (C_in, C_out/groups, kh, kw), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.ndim not in (3, 4):
        raise ValueError(
            f"conv_transpose2d: expected a 4-d input (N, C, H, W) or a 3-d unbatched one, got "
            f"shape {tuple(input.shape)}"
        )
    if not isinstance(groups, int) or groups < 1:
        raise ValueError(f"conv_transpose2d: groups must be a positive int, got {groups!r}")
    c_in, c_out_g, kh, kw = weight.shape
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    if c != c_in or c_in % groups:
        raise ValueError(
            f"conv_transpose2d: input of shape {tuple(input.shape)} has {c} channels, but weight "
            f"of shape {tuple(weight.shape)} expects {c_in} (divisible by groups={groups})"
        )
    c_out = c_out_g * groups
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise ValueError(
            f"conv_transpose2d: bias must have shape ({c_out},), got {tuple(bias.shape)}"
        )
    check_same_dtype("conv_transpose2d", LOWER, input=input, weight=weight, bias=bias)
    s, p = pair(stride, "stride"), pair(padding, "padding")
    d, op = pair(dilation, "dilation"), pair(output_padding, "output_padding")
    if 0 in s or 0 in d or 0 in (kh, kw):
        raise RuntimeError(
            f"conv_transpose2d: kernel size, stride and dilation must be positive, got kernel "
            f"{(kh, kw)}, stride {s} and dilation {d}"
        )
    if any(op[i] >= max(s[i], d[i]) for i in range(2)):
        raise RuntimeError(
            f"conv_transpose2d: output padding must be smaller than either stride or dilation, "
            f"but got output_padding {op}, stride {s} and dilation {d}"
        )
    ho = (h - 1) * s[0] - 2 * p[0] + d[0] * (kh - 1) + op[0] + 1
    wo = (w - 1) * s[1] - 2 * p[1] + d[1] * (kw - 1) + op[1] + 1
    if ho <= 0 or wo <= 0:
        raise RuntimeError(
            f"conv_transpose2d: the output of input {tuple(input.shape)} would be empty "
            f"({ho}x{wo}) with kernel {(kh, kw)}, stride {s}, padding {p} and dilation {d}"
        )
    # columns (groups, C_out/g * kh * kw, N*H*W) = W_g^T @ x_g, then scattered into the image
    k = c_out_g * kh * kw
    x_g = x.permute(1, 0, 2, 3).reshape(groups, c_in // groups, n * h * w)
    w_g = weight.reshape(groups, c_in // groups, k).transpose(1, 2)
    cols = (w_g @ x_g).reshape(c_out, kh, kw, n, h, w)
    # Scatter into the whole uncropped image ((H - 1) s + d (k - 1) + 1 rows: exactly the image
    # whose im2col gives these H x W windows back, so col2im and its gradient agree), then crop
    # the padding p off each side and add output_padding rows/columns at the bottom/right.
    full_hw = ((h - 1) * s[0] + d[0] * (kh - 1) + 1, (w - 1) * s[1] + d[1] * (kw - 1) + 1)
    full_img = Col2Im.apply(cols, (n, c_out) + full_hw, (kh, kw), s, d, (0, 0, 0, 0), CONV_ORDER)
    out = pad(full_img, (-p[1], op[1] - p[1], -p[0], op[0] - p[0]))
    if bias is not None:
        out = out + bias.reshape(1, c_out, 1, 1)
    return out.squeeze(0) if unbatched else out


@autocast_function(LOWER)
def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """y[n, o, l s - p + k d] += x[n, c, l] W[c, o', k] (the adjoint of conv1d): input (N, C_in,
    L) or (C_in, L), weight (C_in, C_out/groups, k); output length (L - 1) s - 2 p + d (k - 1) +
    output_padding + 1. Computed as conv_transpose2d over a height of 1."""
    if weight.ndim != 3:
        raise ValueError(
            f"conv_transpose1d: weight must be 3-d (C_in, C_out/groups, k), got shape "
            f"{tuple(weight.shape)}"
        )
    if input.ndim not in (2, 3):
        raise ValueError(
            f"conv_transpose1d: expected a 3-d input (N, C, L) or a 2-d unbatched one (C, L), "
            f"got shape {tuple(input.shape)}"
        )
    out = conv_transpose2d(
        input.unsqueeze(-2),
        weight.unsqueeze(-2),
        bias,
        (1, single(stride, "stride")),
        (0, single(padding, "padding")),
        (0, single(output_padding, "output_padding")),
        groups,
        (1, single(dilation, "dilation")),
    )
    return out.squeeze(-2)


def _pool_input(input: Any, name: str, kinds: str = "fV") -> tuple[Tensor, bool]:
    """A (N, C, H, W) tensor of a dtype kind in ``kinds``, or an unbatched (C, H, W) one made a
    batch of one."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (3, 4):
        raise ValueError(
            f"{name}: expected a 4-d input (N, C, H, W) or a 3-d unbatched one (C, H, W), got "
            f"shape {tuple(input.shape)}"
        )
    if 0 in input.shape[-3:]:
        raise ValueError(
            f"{name}: only the batch dim may be empty, got shape {tuple(input.shape)} (as PyTorch)"
        )
    if input._data.dtype.kind not in kinds:
        wanted = "a floating-point" if kinds == "fV" else "a floating-point or integer"
        raise TypeError(f"{name}: expected {wanted} input, got {input.dtype.name}")
    return (input.unsqueeze(0), True) if input.ndim == 3 else (input, False)


def max_pool2d(
    input: Tensor,  # noqa: A002  (PyTorch's name)
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """y[n, c, oh, ow] = max of the (dilated) window at (oh s - p, ow s - p); padding is -inf.
    dL/dx goes to the window's (first) maximum. With ``return_indices`` also returns each
    maximum's flat position h * W + w in its input plane (as PyTorch returns it)."""
    x, unbatched = _pool_input(input, "max_pool2d", kinds="fViu")  # integers too, as PyTorch
    # the padding must never win (nor tie): -inf for floats; integers are pooled as int64 with
    # its smallest value as padding, below every value of the narrower integer types
    dt = x._data.dtype
    lowest = -math.inf
    if dt.kind in "iu":
        lowest = int(get_array_module(x._data).iinfo("int64").min)
        x = x._cast(get_array_module(x._data).int64)
    g = pool_geometry2d(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    values, arg = MaxPool.apply(x, g, lowest)
    values = values._cast(dt)
    if not return_indices:
        return values.squeeze(0) if unbatched else values
    kh, kw, sh, sw, dh, dw, ho, wo, (top, _, left, _) = g
    xp = get_array_module(arg._data)
    a = arg._data.astype(xp.int64)
    rows = xp.arange(ho).reshape(ho, 1) * sh - top + (a // kw) * dh
    cols_ = xp.arange(wo) * sw - left + (a % kw) * dw
    indices = type(arg)._make((rows * x.shape[3] + cols_).astype(xp.int64), False)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def avg_pool2d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """y[n, c, oh, ow] = (sum of the window at (oh s - p, ow s - p)) / divisor;   dL/dx = dL/dy /
    divisor, spread over the window. The divisor is ``divisor_override``, else the window size
    counting the zero padding (``count_include_pad=True``) or only the real pixels; with
    ceil_mode, a window that overhangs the padded input counts only its part inside it (PyTorch's
    rule)."""
    x, unbatched = _pool_input(input, "avg_pool2d")
    cols, g = pool_windows(x, kernel_size, stride, padding, 1, ceil_mode, 0.0, "avg_pool2d")
    total = cols.sum(dim=-1)
    kh, kw, sh, sw, _, _, ho, wo, (ph, _, pw, _) = g
    h, w = x.shape[2:]
    # Every window counts kh*kw pixels unless padding is excluded or a ceil_mode window overhangs
    overhang = (ho - 1) * sh - ph + kh > h + ph or (wo - 1) * sw - pw + kw > w + pw
    if divisor_override is not None:
        if divisor_override == 0:
            raise ValueError("avg_pool2d: divisor_override must be non-zero")
        out = KeepInput.apply(total / divisor_override, x)
    elif count_include_pad and not overhang:
        out = KeepInput.apply(total / (kh * kw), x)  # the common case: one scalar
    else:
        xp = get_array_module(x._data)

        def counts(out, k, s, p, size):  # per output position: how many pixels the divisor counts
            start = xp.arange(out) * s - p
            end = xp.minimum(start + k, size + p)
            if not count_include_pad:
                start, end = xp.maximum(start, 0), xp.minimum(end, size)
            return end - start

        divisor = counts(ho, kh, sh, ph, h).reshape(ho, 1) * counts(wo, kw, sw, pw, w)
        out = KeepInput.apply(total / Tensor._make(divisor.astype(x._data.dtype), False), x)
    return out.squeeze(0) if unbatched else out


def _averaging_matrix(size: int, out: int, like: Tensor) -> Tensor:
    """A (out, size) matrix whose row i averages x[start_i:end_i], PyTorch's adaptive windows
    start_i = floor(i size / out), end_i = ceil((i + 1) size / out)."""
    xp = get_array_module(like._data)
    i = xp.arange(out)[:, None]
    start, end = (i * size) // out, -(-((i + 1) * size) // out)
    j = xp.arange(size)[None, :]
    a = ((j >= start) & (j < end)) / (end - start)  # float64 weights 1 / window size
    return type(like)._make(a.astype(like._data.dtype), False)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed (oh, ow): output (i, j) averages the input window of rows
    [floor(i H / oh), ceil((i + 1) H / oh)) and the same for columns; computed as
    A_h x A_w^T with two averaging matrices (a None size keeps that input size)."""
    if input.ndim not in (3, 4):
        raise ValueError(
            f"adaptive_avg_pool2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got "
            f"shape {tuple(input.shape)}"
        )
    sizes = (
        (output_size, output_size) if not isinstance(output_size, (tuple, list)) else output_size
    )
    if len(sizes) != 2:
        raise ValueError(f"adaptive_avg_pool2d: output_size must be 1 or 2 ints, got {output_size}")
    h, w = input.shape[-2:]
    oh, ow = (h if sizes[0] is None else sizes[0]), (w if sizes[1] is None else sizes[1])
    for s in (oh, ow):
        if not isinstance(s, int) or s <= 0:
            raise ValueError(
                f"adaptive_avg_pool2d: output_size must hold positive ints (or None), got "
                f"{output_size!r}"
            )
    if h == 0 or w == 0:
        raise ValueError(f"adaptive_avg_pool2d: empty spatial dims in input {tuple(input.shape)}")
    a_h = _averaging_matrix(h, oh, input)
    a_w = _averaging_matrix(w, ow, input)
    return anchor(a_h @ input @ a_w.transpose(0, 1), input)


# 1-d pooling: the 2-d ops on a (N, C, 1, L) view, with a 1 x k window (exact: the unit height
# adds no element to any window, and a max's flat index h * L + w is w)
def _pool1d_input(input: Any, name: str) -> tuple[Tensor, bool]:
    """A (N, C, L) tensor as (N, C, 1, L), or an unbatched (C, L) one as (1, C, 1, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (2, 3):
        raise ValueError(
            f"{name}: expected a 3-d input (N, C, L) or a 2-d unbatched one (C, L), got shape "
            f"{tuple(input.shape)}"
        )
    x = input.unsqueeze(-2)
    return (x.unsqueeze(0), True) if input.ndim == 2 else (x, False)


def _pool1d_output(y: Any, unbatched: bool) -> Any:
    """Undo _pool1d_input on an output (or on each of (values, indices))."""
    if isinstance(y, tuple):
        return tuple(_pool1d_output(t, unbatched) for t in y)
    y = y.squeeze(-2)
    return y.squeeze(0) if unbatched else y


def max_pool1d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """y[n, c, o] = max of x[n, c, o s - p + j d] over j < kernel_size (padding is -inf); the
    gradient goes to the (first) maximum. ``return_indices``: each maximum's position in L."""
    x, unbatched = _pool1d_input(input, "max_pool1d")
    k = single(kernel_size, "kernel_size")
    s = k if stride is None or stride == [] else single(stride, "stride")
    p, d = single(padding, "padding"), single(dilation, "dilation")
    y = max_pool2d(x, (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices)
    return _pool1d_output(y, unbatched)


def avg_pool1d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """y[n, c, o] = (sum of x[n, c, o s - p + j], j < kernel_size) / divisor (see avg_pool2d)."""
    x, unbatched = _pool1d_input(input, "avg_pool1d")
    k = single(kernel_size, "kernel_size")
    s = k if stride is None or stride == [] else single(stride, "stride")
    y = avg_pool2d(x, (1, k), (1, s), (0, single(padding, "padding")), ceil_mode, count_include_pad)
    return _pool1d_output(y, unbatched)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """Average pooling to a fixed length o: output i averages x[floor(i L / o) : ceil((i+1) L / o)]
    (adaptive_avg_pool2d with a unit height)."""
    x, unbatched = _pool1d_input(input, "adaptive_avg_pool1d")
    o = single(output_size, "output_size")
    return _pool1d_output(adaptive_avg_pool2d(x, (1, o)), unbatched)


def _adaptive_windows(size: int, out: int, xp) -> Any:
    """(out, k) indices of PyTorch's adaptive windows [floor(i size / out), ceil((i+1) size / out)),
    k the longest window; shorter windows repeat their last index (a repeat changes no max)."""
    i = xp.arange(out)[:, None]
    start, end = (i * size) // out, -(-((i + 1) * size) // out)
    k = int((end - start).max())
    return xp.minimum(start + xp.arange(k)[None, :], end - 1)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    """Max pooling to a fixed (oh, ow): output (i, j) is the max over rows
    [floor(i H / oh), ceil((i + 1) H / oh)) and the same for columns (a None size keeps the
    input's). The first maximum in row-major order wins; its flat index h * W + w picks the value
    by a gather, so dL/dx is dL/dy scatter-added to the maxima."""
    x, unbatched = _pool_input(input, "adaptive_max_pool2d")
    h, w = x.shape[2:]
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    if len(sizes) != 2:
        raise ValueError(f"adaptive_max_pool2d: output_size must be 1 or 2 ints, got {output_size}")
    oh, ow = (h if sizes[0] is None else sizes[0]), (w if sizes[1] is None else sizes[1])
    for size in (oh, ow):
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise ValueError(
                f"adaptive_max_pool2d: output_size must hold positive ints (or None), got "
                f"{output_size!r}"
            )
    xp = get_array_module(x._data)
    rows, cols = _adaptive_windows(h, oh, xp), _adaptive_windows(w, ow, xp)
    flat = rows[:, None, :, None] * w + cols[None, :, None, :]  # (oh, ow, kh, kw) in H*W
    flat = flat.reshape(oh, ow, -1)
    windows = x._data.reshape(*x.shape[:2], h * w)[:, :, flat]  # (N, C, oh, ow, kh*kw)
    best = xp.argmax(windows, axis=-1)[..., None]
    index = xp.take_along_axis(xp.broadcast_to(flat, windows.shape), best, axis=-1)[..., 0]
    indices = Tensor._make(xp.ascontiguousarray(index, dtype=xp.int64), False)
    values = anchor(x.flatten(-2).gather(-1, indices.flatten(-2)).reshape(indices.shape), x)
    out = (values, indices) if return_indices else values
    if not unbatched:
        return out
    return tuple(t.squeeze(0) for t in out) if return_indices else out.squeeze(0)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    """Max pooling to a fixed length o over PyTorch's adaptive windows (adaptive_max_pool2d with a
    unit height); ``return_indices``: each maximum's position in L."""
    x, unbatched = _pool1d_input(input, "adaptive_max_pool1d")
    o = single(output_size, "output_size")
    return _pool1d_output(adaptive_max_pool2d(x, (1, o), return_indices), unbatched)


# ----------------------------------------------------------------------------------------------
# Interpolation (separable resampling along each spatial dim: ops/interpolate.py)
# ----------------------------------------------------------------------------------------------
_LINEAR_MODES = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _source_plan(n: int, m: int, scale: float | None, mode: str, align_corners: bool, dtype, xp):
    """(i0, i1, lam) of resizing one dim from n to m (see ops/interpolate.py), with PyTorch's
    source coordinate of output o, in float32 (float64 for float64 linear inputs) as its kernels:

      nearest:         src = floor(o * r)            r = 1 / scale_factor if given, else n / m
      nearest-exact:   src = floor((o + 0.5) * r)    (both clamped to n - 1)
      linear, align_corners=True:   src = o * (n - 1) / (m - 1)   (the corners map to corners)
      linear, align_corners=False:  src = max((o + 0.5) * r - 0.5, 0)   (pixel centres map)
      then i0 = min(floor(src), n - 1), i1 = min(i0 + 1, n - 1), lam = clamp(src - i0, 0, 1).

    'nearest' keeps PyTorch's two shortcuts m == n (identity) and m == 2n (o // 2); linear keeps
    the identity when m == n. (``xp``: the input's array module.)"""
    o = xp.arange(m)
    if mode in ("nearest", "nearest-exact"):
        r = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(n) / m
        if mode == "nearest" and m == n:
            i0 = o
        elif mode == "nearest" and m == 2 * n:
            i0 = o // 2
        elif mode == "nearest":
            i0 = xp.floor(o.astype(np.float32) * r).astype(np.int64)
        else:
            i0 = xp.floor(((o + 0.5) * np.float64(r)).astype(np.float32)).astype(np.int64)
        return xp.minimum(i0, n - 1), None, None
    t = np.float64 if dtype == np.float64 else np.float32
    if m == n:
        return o, o, xp.zeros(m, dtype=t)
    if align_corners:
        r = t(n - 1) / t(m - 1) if m > 1 else t(0)
        src = r * o.astype(t)
    else:
        r = t(1.0 / scale) if scale is not None and scale > 0 else t(n) / t(m)
        src = xp.maximum(r * (o.astype(t) + t(0.5)) - t(0.5), t(0))
    i0 = xp.minimum(xp.floor(src).astype(np.int64), n - 1)
    lam = xp.clip(src - i0.astype(t), t(0), t(1))
    return i0, xp.minimum(i0 + 1, n - 1), lam


def _per_dim(value: Any, k: int, name: str) -> list:
    """``value`` (a number, or a sequence of k numbers) as a list of k."""
    if isinstance(value, (tuple, list)):
        if len(value) != k:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got "
                f"input with {k} spatial dimensions and {name} {tuple(value)}"
            )
        return list(value)
    return [value] * k


def interpolate(
    input: Tensor,  # noqa: A002
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dims of a (N, C, L), (N, C, H, W) or (N, C, D, H, W) input to ``size``,
    or to floor(in * scale_factor). Modes: 'nearest', 'nearest-exact' and 'linear' / 'bilinear' /
    'trilinear' (3-d / 4-d / 5-d input). Each dim is resampled on its own (last dim first, as
    PyTorch's kernel weights them), y = M x with a sparse matrix M whose source coordinates are
    given in ``_source_plan``; dL/dx = M^T dL/dy. ``scale_factor`` also sets the source
    coordinate's ratio (1 / scale_factor) unless ``recompute_scale_factor`` is True, which uses
    in / out from the computed size, as PyTorch does."""
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate: input must be a Tensor, got {type(input).__name__}")
    k = input.ndim - 2
    if mode == "area":  # each output cell the mean of its input window, as PyTorch does it
        return _interpolate_area(input, size, scale_factor, recompute_scale_factor, k)
    if input._data.dtype == np.uint8 and mode in ("nearest", "nearest-exact", "bilinear"):
        # PyTorch resamples images of bytes: computed in float32, rounded back to bytes
        out = interpolate(input.float(), size, scale_factor, mode, align_corners,
                          recompute_scale_factor, antialias)  # fmt: skip
        if mode != "bilinear":
            return out.to(input.dtype)  # nearest copies values: exact
        return _bilinear_bytes(input, tuple(out.shape[2:]), scale_factor, align_corners)
    if mode not in ("nearest", "nearest-exact", *_LINEAR_MODES) or k not in (1, 2, 3):
        raise NotImplementedError(
            f"interpolate: only 3-d, 4-d and 5-d inputs are supported, for the modes nearest | "
            f"nearest-exact | linear | bilinear | trilinear (got {input.ndim}-d input, "
            f"mode {mode!r})"
        )
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    if mode in _LINEAR_MODES:
        if _LINEAR_MODES[mode] != input.ndim:
            raise NotImplementedError(
                f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR_MODES[mode]}D input"
            )
        align_corners = bool(align_corners)
    elif align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    if (size is None) == (scale_factor is None):
        raise ValueError(
            "only one of size or scale_factor should be defined"
            if size is not None
            else "either size or scale_factor should be defined"
        )
    in_sizes = list(input.shape[2:])
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        out_sizes, scales = _per_dim(size, k, "output size"), [None] * k
    else:
        scales = [float(s) for s in _per_dim(scale_factor, k, "scale_factor")]
        out_sizes = [math.floor(n * s) for n, s in zip(in_sizes, scales)]
        if recompute_scale_factor:
            scales = [None] * k  # the kernel then uses in / out
    for m in out_sizes:
        if not isinstance(m, (int, np.integer)) or m <= 0:
            raise ValueError(
                f"interpolate: the output size must be positive ints, got {tuple(out_sizes)} "
                f"(input spatial size {tuple(in_sizes)})"
            )
    if input._data.dtype.kind not in "fV":
        raise TypeError(f"interpolate: expected a floating-point input, got {input.dtype.name}")
    xp = get_array_module(input._data)
    # last dim first. Nearest to the same size is a copy: skipped, unless every dim is one (then
    # one copy is made, so the output is still a new tensor with PyTorch's node)
    axes = [
        a
        for a in range(input.ndim - 1, 1, -1)
        if mode in _LINEAR_MODES or out_sizes[a - 2] != in_sizes[a - 2]
    ]
    axes = axes or [2]
    y = input
    for axis in axes:
        d = axis - 2
        i0, i1, lam = _source_plan(
            in_sizes[d], int(out_sizes[d]), scales[d], mode, align_corners, input._data.dtype, xp
        )
        # the last resampling is recorded as PyTorch's node for the call (UpsampleNearest2D ...)
        op = UPSAMPLE_OPS[mode, k] if axis == axes[-1] else Resample
        y = op.apply(y, axis, i0, i1, lam)
    return y


def _bilinear_bytes(x: Tensor, out_sizes: tuple, scale_factor: Any, align_corners) -> Tensor:
    """Bilinear resizing of uint8 images as PyTorch's byte kernel computes it: the width first,
    then the height, each pass with its two weights in fixed point (w * 2^p rounded to ints, p as
    large as int16 allows) and its result rounded back to bytes."""
    xp = get_array_module(x._data)
    scales = (
        [None] * 2
        if scale_factor is None
        else [float(f) for f in _per_dim(scale_factor, 2, "scale_factor")]
    )
    a = x._data.astype(np.int64)
    for axis in (3, 2):
        n, m = a.shape[axis], int(out_sizes[axis - 2])
        if n == m:
            continue
        i0, i1, lam = _source_plan(n, m, scales[axis - 2], "bilinear", bool(align_corners),
                                   np.float64, xp)  # fmt: skip
        w = xp.stack([1 - lam, lam]).astype(np.float64)
        p = 0  # PyTorch's precision: the most bits before the largest weight leaves int16
        while p < 22 and int(0.5 + float(w.max()) * (1 << (p + 1))) < (1 << 15):
            p += 1
        wi = xp.floor(w * (1 << p) + 0.5).astype(np.int64)
        shape = [1] * a.ndim
        shape[axis] = m
        mixed = xp.take(a, i0, axis) * wi[0].reshape(shape) + xp.take(a, i1, axis) * wi[1].reshape(
            shape
        )
        a = xp.clip((mixed + (1 << (p - 1))) >> p, 0, 255)
    return Tensor._make(a.astype(np.uint8), False)


def _interpolate_area(input, size, scale_factor, recompute_scale_factor, k: int) -> Tensor:  # noqa: A002
    """mode='area': adaptive average pooling to the output size (PyTorch's definition)."""
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined (not both)")
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f"interpolate(mode='area') is not implemented for {input.dtype}")
    if size is None:
        scales = [float(f) for f in _per_dim(scale_factor, k, "scale_factor")]
        size = [math.floor(n * f) for n, f in zip(input.shape[2:], scales)]
    size = _per_dim(size, k, "output size")
    if k == 1:
        return adaptive_avg_pool1d(input, size[0])
    if k == 2:
        return adaptive_avg_pool2d(input, tuple(size))
    raise NotImplementedError("interpolate(mode='area') supports 3-d and 4-d inputs")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """The old name of ``interpolate`` (PyTorch warns that it is deprecated)."""
    warnings.warn(
        "nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    """``interpolate(..., mode='nearest')`` (deprecated in PyTorch)."""
    warnings.warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    """``interpolate(..., mode='bilinear', align_corners=True)`` (deprecated in PyTorch)."""
    warnings.warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ----------------------------------------------------------------------------------------------
# Padding
# ----------------------------------------------------------------------------------------------
def pad(x, pad: tuple | list, mode: str = "constant", value: float | None = None):
    """Pad ``x`` by ``pad`` = (last_lo, last_hi, second_last_lo, second_last_hi, ...)."""
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in pad):
        raise TypeError(f"pad: amounts must be ints, got {tuple(pad)}")
    pad = tuple(pad)
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(
            f"pad: expected an even number of amounts for at most {x.ndim} dims "
            f"(a tensor of shape {tuple(x.shape)}), got {pad}"
        )
    k = len(pad) // 2
    # one (lo, hi) per padded dim, in dim order
    pairs = [(pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k)]
    dims = list(range(x.ndim - k, x.ndim))
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(
            f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}"
        )
    # Negative amounts crop. Constant and circular padding crop first and pad what is left;
    # reflect and replicate index the uncropped input (PyTorch's results in both cases).
    for (lo, hi), d in zip(pairs, dims):
        if lo + x.shape[d] + hi < 0:
            raise ValueError(
                f"pad: amounts {pad} leave {lo + x.shape[d] + hi} elements of dim {d} "
                f"(size {x.shape[d]}) in mode {mode!r}"
            )
    if mode in ("constant", "circular") and any(lo < 0 or hi < 0 for lo, hi in pairs):
        crop = tuple(slice(-lo if lo < 0 else None, hi if hi < 0 else None) for lo, hi in pairs)
        x = x[(Ellipsis, *crop)]
        pairs = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if mode == "constant":
        widths = ((0, 0),) * (x.ndim - k) + tuple(pairs)
        return Pad.apply(x, widths, 0.0 if value is None else value)
    if value not in (None, 0, 0.0):
        raise ValueError(f"pad: value= is only used by mode='constant', not {mode!r}")
    xp = get_array_module(x._data)
    index: list = [slice(None)] * (x.ndim - k)
    for j, ((lo, hi), d) in enumerate(zip(pairs, dims)):
        n = x.shape[d]
        if mode == "reflect" and max(lo, hi) >= n:
            raise ValueError(
                f"pad: reflect padding ({lo}, {hi}) must be less than the size {n} of dim {d}"
            )
        if mode == "circular" and max(lo, hi) > n:
            raise ValueError(
                f"pad: circular padding ({lo}, {hi}) can wrap at most once around dim {d} "
                f"of size {n}"
            )
        idx = gather_index(xp, n, lo, hi, mode)
        # orthogonal (np.ix_-style) indexing: the j-th index varies along its own axis
        index.append(idx.reshape((-1,) + (1,) * (k - 1 - j)))
    return x[tuple(index)]


# ----------------------------------------------------------------------------------------------
# Similarity and distance (mg.cdist: functions.py over ops/distance.py)
# ----------------------------------------------------------------------------------------------
def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """x / max(||x||_p, eps) along ``dim``: unit vectors (eps keeps a zero vector finite)."""
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported; assign the result instead")
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps)


def _clamped_norm(x: Tensor, dim: int, eps: float) -> Tensor:
    """||x||_2 along ``dim`` (kept), its VALUE raised to at least eps; the gradient flows as if
    unclamped. PyTorch 2.x clamps the norm in place under no_grad, so this is its gradient too."""
    n = x.norm(2, dim, keepdim=True)
    return n + (n.detach().clamp_min(eps) - n.detach())


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1/max(||x1||, eps) * x2/max(||x2||, eps)) along ``dim``, x1 and x2 broadcast.
    Each vector is divided by its own norm first (as PyTorch 2.x): the result stays in [-1, 1]."""
    shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    x1, x2 = x1.expand(shape), x2.expand(shape)
    d = norm_dim(dim, len(shape))[0]
    return ((x1 / _clamped_norm(x1, d, eps)) * (x2 / _clamped_norm(x2, d, eps))).sum(d)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """||x1 - x2 + eps||_p along the last dim (eps keeps the gradient of a zero distance finite)."""
    last = max(x1.ndim, x2.ndim) - 1
    diff = x1 - x2 + eps
    if last < 0:  # two 0-d inputs: the distance of one number
        return diff.abs()
    return diff.norm(p, last, keepdim)


# ----------------------------------------------------------------------------------------------
# Rearranging pixels and channels
# ----------------------------------------------------------------------------------------------
def _check_int_factor(value: Any, name: str, arg: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name}: {arg} must be a positive int, got {value!r}")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r): y[c, h r + i, w r + j] = x[c r^2 + i r + j, h, w]
    (sub-pixel convolution: channels become a finer grid)."""
    r = upscale_factor
    _check_int_factor(r, "pixel_shuffle", "upscale_factor")
    if input.ndim < 3 or input.shape[-3] % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            f"of upscale_factor ({r * r}), and at least 3 dims (*, C, H, W); got shape "
            f"{tuple(input.shape)}"
        )
    *lead, c, h, w = input.shape
    n = len(lead)
    x = input.reshape((*lead, c // (r * r), r, r, h, w))
    # (*, C, i, j, H, W) -> (*, C, H, i, W, j): the offsets (i, j) go inside each pixel
    x = x.permute((*range(n), n, n + 3, n + 1, n + 4, n + 2))
    return x.reshape((*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W): the inverse of ``pixel_shuffle``."""
    r = downscale_factor
    _check_int_factor(r, "pixel_unshuffle", "downscale_factor")
    if input.ndim < 3 or input.shape[-2] % r or input.shape[-1] % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height and width to be divisible by downscale_factor "
            f"({r}), and at least 3 dims (*, C, H, W); got shape {tuple(input.shape)}"
        )
    *lead, c, h, w = input.shape
    n = len(lead)
    x = input.reshape((*lead, c, h // r, r, w // r, r))
    # (*, C, H, i, W, j) -> (*, C, i, j, H, W)
    x = x.permute((*range(n), n, n + 2, n + 4, n + 1, n + 3))
    return x.reshape((*lead, c * r * r, h // r, w // r))


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with C = g k: view the channels as a (g, k) grid and transpose it to (k, g), so
    that grouped convolutions after it see channels from every group (ShuffleNet)."""
    _check_int_factor(groups, "channel_shuffle", "groups")
    if input.ndim < 3 or input.shape[1] % groups:
        raise RuntimeError(
            f"channel_shuffle: expected an input (N, C, *) of at least 3 dims with C divisible "
            f"by groups ({groups}), got shape {tuple(input.shape)}"
        )
    n, c, *rest = input.shape
    x = input.reshape((n, groups, c // groups, *rest)).transpose(1, 2)
    return x.reshape((n, c, *rest))


# ----------------------------------------------------------------------------------------------
# Attention (the composition: ops/attention.py)
# ----------------------------------------------------------------------------------------------
@autocast_function(LOWER)
def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
):
    """softmax(Q K^T * scale + mask) V for query (..., L, E), key (..., S, E), value (..., S, Ev).

    ``attn_mask``: boolean (True = take part) or float (added), broadcastable to (..., L, S).
    ``is_causal``: query i attends to keys j <= i; cannot be combined with ``attn_mask``.
    ``dropout_p``: dropout on the attention weights (applied whenever it is > 0, as PyTorch's
    functional form does: pass 0.0 in eval mode). ``enable_gqa``: key/value may have fewer heads
    (dim -3) than the query; each is shared by a group of query heads."""
    name = "scaled_dot_product_attention"
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise ValueError(f"{name}: query, key and value need at least 2 dims (..., seq, embed)")
    if key.shape[-1] != query.shape[-1]:
        raise ValueError(
            f"{name}: query {tuple(query.shape)} and key {tuple(key.shape)} must have the same "
            f"embedding size (last dim)"
        )
    if value.shape[-2] != key.shape[-2]:
        raise ValueError(
            f"{name}: key {tuple(key.shape)} and value {tuple(value.shape)} must have the same "
            f"sequence length (dim -2)"
        )
    check_same_dtype(name, LOWER, query=query, key=key, value=value)
    if not 0.0 <= dropout_p < 1.0:
        raise ValueError(f"{name}: dropout_p must be in [0, 1), got {dropout_p}")
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = _repeat_heads(key, query.shape[-3]), _repeat_heads(value, query.shape[-3])
    mask = None
    if attn_mask is not None:
        L, S = query.shape[-2], key.shape[-2]
        if tuple(attn_mask.shape[-2:]) not in ((L, S), (1, S), (L, 1), (1, 1)):
            raise ValueError(
                f"{name}: attn_mask of shape {tuple(attn_mask.shape)} does not broadcast to the "
                f"scores (..., {L}, {S}) of query {tuple(query.shape)} and key {tuple(key.shape)}"
            )
        if is_causal:  # both, as PyTorch: the causal mask applies on top of attn_mask
            allowed = Tensor._make(get_array_module(attn_mask._data).tri(L, S, dtype=bool), False)
            if attn_mask._data.dtype == bool:
                attn_mask = attn_mask & allowed
            else:
                attn_mask = attn_mask.masked_fill(~allowed, -math.inf)
            is_causal = False
        if attn_mask._data.dtype == bool:
            mask = attn_mask._data
        elif attn_mask.dtype not in (_dt.float32, query.dtype):  # PyTorch's rule for the mask
            raise RuntimeError(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {attn_mask.dtype.name} and query.dtype: {query.dtype.name}"
            )
        else:
            mask = attn_mask if attn_mask.dtype == query.dtype else attn_mask.to(query.dtype)
            if mask.requires_grad:  # a learned additive mask: the composed ops differentiate it
                return attention(query, key, value, mask, dropout_p, is_causal, scale)[0]
            mask = mask._data
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    return SDPA.apply(query, key, value, mask, dropout_p, is_causal, scale)


def _repeat_heads(t, heads: int):
    """(..., Hk, S, E) -> (..., heads, S, E): each of the Hk heads repeated heads/Hk times."""
    hk = t.shape[-3]
    if heads % hk:
        raise ValueError(
            f"scaled_dot_product_attention: {heads} query heads cannot be grouped over {hk} "
            f"key/value heads"
        )
    lead = tuple(t.shape[:-3])
    expanded = t.unsqueeze(-3).expand(lead + (hk, heads // hk) + tuple(t.shape[-2:]))
    return expanded.reshape(lead + (heads,) + tuple(t.shape[-2:]))
