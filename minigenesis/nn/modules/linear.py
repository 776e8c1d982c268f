"""PyTorch's ``torch.nn.modules.linear``: the same classes as ``mg.nn``'s own files."""

from ..linear import (
    Bilinear,
    Identity,
    Linear,
)  # noqa: F401

__all__ = ["Linear", "Identity", "Bilinear"]
