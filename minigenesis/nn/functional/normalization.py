"""The normalisations: layer_norm, rms_norm, batch_norm, group_norm, instance_norm (one fused op:
ops/normalization.py) and local_response_norm (a composition).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autocast_policy import CUDA_FLOAT32, autocast_function
from ...ops.batch_norm_rows import BatchNormRows
from ...ops.layout import like_input_format
from ...ops.normalization import Normalize, normalize_stats
from ...ops.round_once import in_float32, is_two_byte_float
from ...ops.same_dtype import check_floating, check_param_dtypes
from .._utils import shape_tuple
from .padding import pad
from .pooling import avg_pool2d


# ----------------------------------------------------------------------------------------------
# Normalisation (one fused op: ops/normalization.py)
# ----------------------------------------------------------------------------------------------
def _last_axes(x: Tensor, normalized_shape: tuple, name: str) -> tuple:
    k = len(normalized_shape)
    if name == "rms_norm" and x.ndim < k:  # PyTorch's rms_norm checks the rank first
        raise ValueError(
            f"rms_norm: Input tensor must have at least {k} dimensions (normalized_shape "
            f"{list(normalized_shape)}), but got {x.ndim} (shape {tuple(x.shape)})"
        )
    if k == 0 or x.ndim < k or tuple(x.shape[x.ndim - k :]) != normalized_shape:
        # PyTorch's RuntimeError and wording ("Given normalized_shape=[3], expected input ...")
        raise RuntimeError(
            f"{name}: Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size "
            f"{list(x.shape)}"
        )
    return tuple(range(x.ndim - k, x.ndim))


@autocast_function(CUDA_FLOAT32)  # on PyTorch's CUDA float32 list; the CPU's lists no norm
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
    check_param_dtypes("layer_norm", input, weight=weight, bias=bias)
    return Normalize.apply(input, weight, bias, axes, float(eps), True, None)


@autocast_function(CUDA_FLOAT32)
def rms_norm(
    input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """y = x / sqrt(mean(x^2) + eps) * weight over the last dims; eps defaults to the dtype's
    machine epsilon (PyTorch's choice)."""
    shape = shape_tuple(normalized_shape)
    axes = _last_axes(input, shape, "rms_norm")
    check_floating("rms_norm", input)
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
    check_param_dtypes("batch_norm", input, weight=weight, bias=bias, running_mean=running_mean,
                       running_var=running_var)  # fmt: skip
    if (running_mean is None) != (running_var is None):  # PyTorch's checks, its types
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    n, c = input._data.shape[:2]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):  # fmt: skip
        if t is not None and t._data.size != c:  # (NumPy would broadcast a 1-element one)
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
    if training and input._data.ndim == 2 and n > 1 and c:  # (N, C): one op of its own
        return _batch_norm_rows(input, running_mean, running_var, weight, bias, momentum, eps)
    bshape = (1, c) + (1,) * (input.ndim - 2)  # a per-channel vector, broadcast over N and space
    axes = (0,) + tuple(range(2, input.ndim))
    if not training:
        args = (input, running_mean, running_var, weight, bias, bshape, eps)
        if is_two_byte_float(input):  # as PyTorch's kernel: the map in float32, rounded once
            return like_input_format(in_float32(_batch_norm_eval, *args), input)
        return like_input_format(_batch_norm_eval(*args), input)
    count = input.numel() // c if c else 0
    if count == 0:  # an empty batch: an empty output, running statistics untouched (PyTorch's)
        y = input if weight is None else input * weight.reshape(bshape)
        return y if bias is None else y + bias.reshape(bshape)
    if count == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{tuple(input.shape)}"
        )
    tracked = running_mean is not None and running_var is not None
    mu, var = normalize_stats(input._data, axes, True)
    if tracked:
        unbiased = var.reshape(c) * (count / (count - 1))
        for buf, stat in ((running_mean, mu.reshape(c)), (running_var, unbiased)):
            buf._data *= 1 - momentum
            buf._data += (momentum * stat).astype(buf._data.dtype, copy=False)
            buf._bump_version()
    w = None if weight is None else weight.reshape(bshape)
    b = None if bias is None else bias.reshape(bshape)
    out = Normalize.apply(input, w, b, axes, float(eps), True, (mu, var))
    return like_input_format(out, input)  # in the layout of its input, as PyTorch's


def _batch_norm_eval(input, running_mean, running_var, weight, bias, bshape, eps) -> Tensor:
    """batch_norm in eval mode, an affine map of x: y = x * scale + shift, scale = weight /
    sqrt(running_var + eps), shift = bias - running_mean * scale (plain Tensor ops)."""
    scale = (running_var.reshape(bshape) + eps).rsqrt()
    if weight is not None:
        scale = scale * weight.reshape(bshape)
    shift = -running_mean.reshape(bshape) * scale
    if bias is not None:
        shift = shift + bias.reshape(bshape)
    return (input * scale + shift).to(input.dtype)


def _batch_norm_rows(input, running_mean, running_var, weight, bias, momentum, eps) -> Tensor:
    """batch_norm's training step on (N, C) input, N > 1: one op, which moves the running
    averages too (ops/batch_norm_rows.py)."""
    if running_mean is None or running_var is None:
        return BatchNormRows.apply(input, weight, bias, None, float(eps))
    running = (running_mean._data, running_var._data, momentum)
    y = BatchNormRows.apply(input, weight, bias, running, float(eps))
    running_mean._bump_version()
    running_var._bump_version()
    return y


@autocast_function(CUDA_FLOAT32)
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
        raise RuntimeError(
            f"group_norm: Expected at least 2 dimensions for input tensor (N, C, *), but got "
            f"shape {tuple(input.shape)}"
        )
    n, c = input.shape[:2]
    if num_groups > 0 and (n * c // num_groups) * math.prod(input.shape[2:]) == 1:
        # PyTorch's check (its message too), made before the divisibility one: N * C / G
        # (floored) * spatial values, counted over the batch
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{tuple(input.shape)}"
        )
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            f"group_norm: expected number of channels in input to be divisible by num_groups, "
            f"but got input of shape {tuple(input.shape)} and num_groups={num_groups}"
        )
    check_param_dtypes("group_norm", input, weight=weight, bias=bias)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise RuntimeError(
                f"group_norm: {name} must have shape ({c},) for an input of shape "
                f"{tuple(input.shape)}, got {tuple(t.shape)}"
            )
    # a half input is normalised and scaled in float32 and rounded once at the end, as PyTorch's
    # kernel does (rounding xhat first cost dL/dweight and dL/dx ~0.2% in bfloat16)
    x = input.float() if input.dtype.itemsize == 2 and input.is_floating_point() else input
    grouped = x.reshape(n, num_groups, (c // num_groups) * math.prod(input.shape[2:]))
    y = Normalize.apply(grouped, None, None, (2,), float(eps), True, None).reshape(input.shape)
    per_channel = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(per_channel)
    if bias is not None:
        y = y + bias.reshape(per_channel)
    return y if y.dtype == input.dtype else y.to(input.dtype)  # float32 parameters, half input


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
    check_param_dtypes("instance_norm", input, weight=weight, bias=bias,
                       running_mean=running_mean, running_var=running_var)  # fmt: skip
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
    if input.numel() == 0:  # nothing to sum over (no channels, or an empty dim): empty, as given
        return input / k**beta
    n, c = input.shape[:2]
    # channels as the height of a one-channel image
    sq = (input * input).reshape(n, 1, c, math.prod(input.shape[2:]))
    sq = pad(sq, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(sq, (size, 1), stride=1).reshape(input.shape)
    return input / (div * alpha + k) ** beta
