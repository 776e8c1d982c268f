"""PyTorch's ``torch.nn.modules.instancenorm``: the same classes as ``mg.nn``'s own files."""

from ..instancenorm import (
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _InstanceNorm,
)  # noqa: F401
from ..lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d  # noqa: F401

__all__ = [
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "_InstanceNorm", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]  # fmt: skip
