"""Normalisation layers: LayerNorm, RMSNorm, BatchNorm1d and BatchNorm2d.

All of them rescale activations to zero mean / unit variance (RMSNorm: unit root-mean-square)
before a learned affine map w * xhat + b. They differ in *which* elements share statistics:

- LayerNorm / RMSNorm: each sample's last ``len(normalized_shape)`` dims (independent of the batch,
  so training and evaluation compute the same thing);
- BatchNorm: each channel over the batch (and spatial) dims. In training it normalises with the
  batch's statistics and keeps running averages of them; in eval mode it uses those averages, so a
  prediction does not depend on what else is in the batch.

The fused forward/backward is ``ops/normalization.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..creation import ones, tensor, zeros
from ..ops import normalization as N
from ..tensor import Tensor
from .module import Module
from .parameter import Parameter


def _shape_tuple(shape: Any) -> tuple:
    return (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)


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
    shape = _shape_tuple(normalized_shape)
    axes = _last_axes(input, shape, "layer_norm")
    return N.Normalize.apply(input, weight, bias, axes, float(eps), True, None)


def rms_norm(
    input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """y = x / sqrt(mean(x^2) + eps) * weight over the last dims; eps defaults to the dtype's
    machine epsilon (PyTorch's choice)."""
    shape = _shape_tuple(normalized_shape)
    axes = _last_axes(input, shape, "rms_norm")
    if eps is None:
        eps = float(np.finfo(np.float32 if input.dtype.itemsize == 2 else input._data.dtype).eps)
    return N.Normalize.apply(input, weight, None, axes, float(eps), False, None)


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
    mu, var = N.normalize_stats(input._data, axes, True)
    if running_mean is not None and running_var is not None:
        unbiased = var.reshape(c) * (count / (count - 1))
        for buf, stat in ((running_mean, mu.reshape(c)), (running_var, unbiased)):
            buf._data *= 1 - momentum
            buf._data += (momentum * stat).astype(buf._data.dtype, copy=False)
            buf._bump_version()
    return N.Normalize.apply(input, w, b, axes, float(eps), True, (mu, var))


# ---------------------------------------------------------------------------- modules
class LayerNorm(Module):
    """Normalise over the last dims ``normalized_shape``; weight starts at 1, bias at 0."""

    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(self.normalized_shape, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(zeros(self.normalized_shape, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class RMSNorm(Module):
    """Scale by the root-mean-square over the last dims (no centering, no bias); weight at 1."""

    def __init__(
        self,
        normalized_shape: Any,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(self.normalized_shape, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)

    def forward(self, input: Tensor) -> Tensor:
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class _BatchNorm(Module):
    """Shared by BatchNorm1d/2d: parameters weight (1s) and bias (0s), buffers running_mean (0s),
    running_var (1s) and num_batches_tracked (the count of training batches seen)."""

    _expected_dims: tuple = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(ones(num_features, dtype=dtype, device=device))
            self.bias = Parameter(zeros(num_features, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=_dt.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._expected_dims:
            dims = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(
                f"{type(self).__name__}: expected {dims} input, got shape {tuple(input.shape)}"
            )
        if input.shape[1] != self.num_features:
            raise ValueError(
                f"{type(self).__name__}({self.num_features}): input has {input.shape[1]} "
                f"channels in dim 1 (shape {tuple(input.shape)})"
            )
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average: the plain mean of batches
                momentum = 1.0 / float(self.num_batches_tracked.item())
        # Batch statistics in training, or always when there are no running averages to use.
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            use_batch,
            momentum,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """BatchNorm over (N, C) or (N, C, L) input: statistics per channel C."""

    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """BatchNorm over (N, C, H, W) input: statistics per channel C over N, H and W."""

    _expected_dims = (4,)
