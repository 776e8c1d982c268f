"""FractionalMaxPool2d/3d: max pooling to any output size with pseudo-random window starts
(``F.fractional_max_pool2d/3d``)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..size import plain_int
from . import functional as F
from .module import Module


def _ntuple(value: Any, nd: int) -> tuple | None:
    if value is None:
        return None
    value = plain_int(value)  # (a NumPy integer counts as an int)
    return (value,) * nd if isinstance(value, (int, float)) else tuple(value)


class _FractionalMaxPoolNd(Module):
    """The options FractionalMaxPool2d/3d share: kernel_size, output_size or output_ratio
    (each in (0, 1)), return_indices, and fixed ``_random_samples`` (a buffer; None: drawn
    anew at each call)."""

    _pool: Any
    _nd: int

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        nd, name = self._nd, type(self).__name__
        self.kernel_size = _ntuple(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, nd)
        self.output_ratio = _ntuple(output_ratio, nd)
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return self._pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of (N, C, H, W) or (C, H, W) inputs; see F.fractional_max_pool2d."""

    _pool = staticmethod(F.fractional_max_pool2d)
    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of (N, C, D, H, W) inputs; see F.fractional_max_pool3d."""

    _pool = staticmethod(F.fractional_max_pool3d)
    _nd = 3
