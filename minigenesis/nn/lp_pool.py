"""``nn.LPPool1d/2d/3d``: power-average pooling, each window's p-norm (nn/functional/lp_pool.py)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import functional as F
from .module import Module


class _LPPoolNd(Module):
    _function: Any = None

    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        fn = type(self)._function
        return fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """(N, C, L) -> the p-norm of each window."""

    _function = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """(N, C, H, W) -> the p-norm of each window."""

    _function = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """(N, C, D, H, W) -> the p-norm of each window."""

    _function = staticmethod(F.lp_pool3d)
