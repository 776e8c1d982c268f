"""InstanceNorm1d/2d/3d: each sample's channel normalised over its own spatial dims
(``F.instance_norm``), as style transfer and image-to-image models use it.

As in PyTorch the defaults differ from BatchNorm's: no affine map (``affine=False``) and no running
averages (``track_running_stats=False``), so training and evaluation compute the same thing. With
``track_running_stats=True`` the averages are kept in training and used in eval mode.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._tensor import Tensor
from . import functional as F
from .normalization import _NormBase


class _InstanceNorm(_NormBase):
    """Shared by InstanceNorm1d/2d/3d: ``_NormBase`` with PyTorch's instance-norm defaults (no
    affine map, no running averages). ``_unbatched_ndim``: the ndim of an input without its
    batch dim."""

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
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

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
