"""InstanceNorm1d/2d/3d: each sample's channel normalised over its own spatial dims
(``F.instance_norm``), as style transfer and image-to-image models use it.

As in PyTorch the defaults differ from BatchNorm's: no affine map (``affine=False``) and no running
averages (``track_running_stats=False``), so training and evaluation compute the same thing. With
``track_running_stats=True`` the averages are kept in training and used in eval mode.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..creation import ones, tensor, zeros
from . import functional as F
from .module import Module
from .parameter import Parameter


class _InstanceNorm(Module):
    """Shared by InstanceNorm1d/2d/3d: parameters weight (1s) and bias (0s) when ``affine`` (no
    bias when ``bias=False``); buffers running_mean (0s), running_var (1s) and
    num_batches_tracked when ``track_running_stats``. ``_unbatched_ndim``: the ndim of an input
    without its batch dim."""

    _unbatched_ndim: int = 2

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
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

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        d = self._unbatched_ndim
        if input.ndim not in (d, d + 1):
            raise ValueError(f"expected {d}D or {d + 1}D input (got {input.ndim}D input)")
        feature_dim = input.ndim - d
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence "
                f"this warning by not passing in num_features, which is not used because "
                f"affine=False",
                stacklevel=2,
            )
        unbatched = input.ndim == d
        x = input.unsqueeze(0) if unbatched else input
        y = F.instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )
        return y.squeeze(0) if unbatched else y

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or unbatched (C, L) input: statistics per (n, c)."""

    _unbatched_ndim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or unbatched (C, H, W) input: statistics per
    (n, c) over H and W."""

    _unbatched_ndim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or unbatched (C, D, H, W) input."""

    _unbatched_ndim = 4
