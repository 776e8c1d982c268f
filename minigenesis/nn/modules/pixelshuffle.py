"""PyTorch's ``torch.nn.modules.pixelshuffle``: the same classes as ``mg.nn``'s own files."""

from ..pixelshuffle import (
    PixelShuffle,
    PixelUnshuffle,
)  # noqa: F401

__all__ = ["PixelShuffle", "PixelUnshuffle"]
