"""PyTorch's ``torch.nn.modules.conv``: the same classes as ``mg.nn``'s own files."""

from ..conv import (
    Conv1d,
    Conv2d,
    _ConvNd,
)  # noqa: F401
from ..conv3d import Conv3d, ConvTranspose3d  # noqa: F401
from ..conv_variants import (
    ConvTranspose1d,
    ConvTranspose2d,
    _ConvTransposeNd,
)  # noqa: F401

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "_ConvNd",
    "_ConvTransposeNd",
]
