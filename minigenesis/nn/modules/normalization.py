"""PyTorch's ``torch.nn.modules.normalization``: the same classes as ``mg.nn``'s own files."""

from ..normalization import (
    GroupNorm,
    LayerNorm,
    LocalResponseNorm,
    RMSNorm,
)  # noqa: F401

__all__ = ["LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm"]
