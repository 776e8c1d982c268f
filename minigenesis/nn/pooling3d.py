"""MaxPool3d, AvgPool3d, AdaptiveAvgPool3d and AdaptiveMaxPool3d (over ``F.max_pool3d``,
``F.avg_pool3d``, ``F.adaptive_*_pool3d``: ``functional/pool3d.py``, ``adaptive_pool3d.py``) and
the unpooling layers MaxUnpool1d/2d/3d (over ``F.max_unpool*``, ``functional/unpool.py``), which
put the maxima a max pooling found back at their positions, zeros elsewhere.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..ops.windows_nd import ntuple
from . import functional as F
from .module import Module
from .pooling import _AdaptiveAvgPoolNd, _AdaptiveMaxPoolNd, _AvgPoolDivisorNd, _MaxPoolNd


class MaxPool3d(_MaxPoolNd):
    """Max over each kernel_size window of a (N, C, D, H, W) input; see ``F.max_pool3d``."""

    _pool = staticmethod(F.max_pool3d)


class AvgPool3d(_AvgPoolDivisorNd):
    """Mean over each kernel_size window of a (N, C, D, H, W) input, divided by
    ``divisor_override`` when given (otherwise by the window's size); see ``F.avg_pool3d``."""

    _pool = staticmethod(F.avg_pool3d)


class _MaxUnpoolNd(Module):
    """The partial inverse of a max pooling: ``forward(input, indices, output_size=None)`` puts
    each value at its index (what the pooling returned with ``return_indices=True``). The sizes
    are kept as n-tuples, as PyTorch keeps them; ``_dims`` is n and ``_unpool`` the F function."""

    _dims: int
    _unpool: Any

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        n = self._dims
        self.kernel_size = ntuple(kernel_size, n, "kernel_size")
        self.stride = ntuple(stride if stride is not None else kernel_size, n, "stride")
        self.padding = ntuple(padding, n, "padding")

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        return self._unpool(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Undo ``MaxPool1d(return_indices=True)`` on a (N, C, L) input: see ``F.max_unpool1d``."""

    _dims, _unpool = 1, staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Undo ``MaxPool2d(return_indices=True)`` on a (N, C, H, W) input: see ``F.max_unpool2d``."""

    _dims, _unpool = 2, staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Undo ``MaxPool3d(return_indices=True)`` on a (N, C, D, H, W) input: see
    ``F.max_unpool3d``."""

    _dims, _unpool = 3, staticmethod(F.max_unpool3d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of a (N, C, D, H, W) input to a fixed (d, h, w) (None keeps that input
    size); see ``F.adaptive_avg_pool3d``."""

    _pool = staticmethod(F.adaptive_avg_pool3d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of a (N, C, D, H, W) input to a fixed (d, h, w), with the maxima's flat
    positions when ``return_indices``; see ``F.adaptive_max_pool3d``."""

    _pool = staticmethod(F.adaptive_max_pool3d)
