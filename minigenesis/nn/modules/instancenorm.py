"""PyTorch's ``torch.nn.modules.instancenorm``: the same classes as ``mg.nn``'s own files."""

from ..instancenorm import (
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _InstanceNorm,
)  # noqa: F401

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "_InstanceNorm"]
