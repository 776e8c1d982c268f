"""PyTorch's ``torch.nn.modules.upsampling``: the same classes as ``mg.nn``'s own files."""

from ..upsampling import (
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)  # noqa: F401

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
