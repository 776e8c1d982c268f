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
from ..lazy import (  # noqa: F401
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
)

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "_ConvNd",
    "_ConvTransposeNd",
]
