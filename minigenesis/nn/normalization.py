"""Normalisation layers: LayerNorm, RMSNorm, BatchNorm1d and BatchNorm2d.

All of them rescale activations to zero mean / unit variance (RMSNorm: unit root-mean-square)
before a learned affine map w * xhat + b. They differ in *which* elements share statistics:

- LayerNorm / RMSNorm: each sample's last ``len(normalized_shape)`` dims (independent of the batch,
  so training and evaluation compute the same thing);
- BatchNorm: each channel over the batch (and spatial) dims. In training it normalises with the
  batch's statistics and keeps running averages of them; in eval mode it uses those averages, so a
  prediction does not depend on what else is in the batch.

The functional forms (``F.layer_norm`` ...) are in ``nn/functional/normalization.py``; the fused
forward/backward is ``ops/normalization.py``.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._checks import check_int, check_real
from .._tensor import Tensor
from ..creation import ones, tensor, zeros
from . import functional as F
from . import init
from ._utils import shape_tuple
from .module import Module
from .parameter import Parameter


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
        self.normalized_shape = shape_tuple(normalized_shape)
        check_real(eps, "eps", ge=0)
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
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
            f", bias={self.bias is not None}"
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
        self.normalized_shape = shape_tuple(normalized_shape)
        if eps is not None:  # None: the dtype's machine epsilon
            check_real(eps, "eps", ge=0)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(self.normalized_shape, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)

    def forward(self, x: Tensor) -> Tensor:  # (PyTorch's name for RMSNorm's input: x)
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class _NormBase(Module):
    """Shared by BatchNorm and InstanceNorm (as in PyTorch): the arguments, parameters weight (1s)
    and bias (0s) when ``affine`` (no bias when ``bias=False``), buffers running_mean (0s),
    running_var (1s) and num_batches_tracked (the count of training batches seen) when
    ``track_running_stats``, and the repr. The subclasses set the defaults and the forward."""

    # State PyTorch added in its version 2 of these layers: a checkpoint without it that says no
    # version (one saved before, or a state_dict rebuilt as a plain dict) still loads, and the
    # counter keeps its value (Module.load_state_dict)
    _state_added_in_version_2 = ("num_batches_tracked",)
    _version = 2  # (the version a state_dict hook's local_metadata gives, as PyTorch's)

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        check_real(eps, "eps", ge=0)
        if momentum is not None:  # None: a cumulative average over all batches
            check_real(momentum, "momentum", ge=0, le=1)
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = {"dtype": dtype, "device": device}
        if affine:
            self.weight = Parameter(ones(num_features, **kw))
            if bias:
                self.bias = Parameter(zeros(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **kw))
            self.register_buffer("running_var", ones(num_features, **kw))
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

    def reset_parameters(self) -> None:
        """Running statistics to (0, 1, 0), weight to 1 and bias to 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    """Shared by BatchNorm1d/2d/3d: statistics per channel (dim 1) over every other dim."""

    _expected_dims: tuple = ()

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._expected_dims:
            dims = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(
                f"{type(self).__name__}: expected {dims} input, got shape {tuple(input.shape)}"
            )
        # PyTorch's RuntimeError comes from its per-channel buffers and weights: a layer with
        # neither (affine=False, track_running_stats=False) normalises any number of channels
        running_mean = self.running_mean  # (each read of a buffer is a Module.__getattr__)
        per_channel = self.affine or running_mean is not None
        if per_channel and input.shape[1] != self.num_features:
            raise RuntimeError(
                f"{type(self).__name__}({self.num_features}): running_mean should contain "
                f"{input.shape[1]} elements not {self.num_features}: input has {input.shape[1]} "
                f"channels in dim 1 (shape {tuple(input.shape)})"
            )
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            counter = self.num_batches_tracked  # += 1 in place, as F.batch_norm's buffers
            counter._data += 1
            counter._bump_version()
            if self.momentum is None:  # a cumulative moving average: the plain mean of batches
                momentum = 1.0 / float(self.num_batches_tracked.item())
        # Batch statistics in training, or always when there are no running averages to use.
        use_batch = self.training or running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            use_batch,
            momentum,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """BatchNorm over (N, C) or (N, C, L) input: statistics per channel C."""

    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """BatchNorm over (N, C, H, W) input: statistics per channel C over N, H and W."""

    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """BatchNorm over (N, C, D, H, W) input: statistics per channel C over N, D, H and W."""

    _expected_dims = (5,)


class GroupNorm(Module):
    """Normalise each sample's channels in ``num_groups`` groups (statistics over the group's
    channels and all spatial positions), then a per-channel affine map; see ``F.group_norm``.
    Independent of the batch, like LayerNorm (GroupNorm(1, C) normalises each whole sample,
    GroupNorm(C, C) each channel: InstanceNorm with an affine map)."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        check_real(eps, "eps", ge=0)
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        if affine:
            self.weight = Parameter(ones(num_channels, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(zeros(num_channels, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class LocalResponseNorm(Module):
    """Divides each channel by (k + alpha/size * the sum of squares over ``size`` neighbouring
    channels) ** beta (AlexNet's normalisation); see ``F.local_response_norm``."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        check_int(size, "size", ge=1)
        for name, value in (("alpha", alpha), ("beta", beta), ("k", k)):
            check_real(value, name)
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
