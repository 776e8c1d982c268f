"""PyTorch's ``torch.nn.modules.padding``: the same classes as ``mg.nn``'s own files."""

from ..padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)  # noqa: F401

__all__ = [
    "ZeroPad2d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ReflectionPad2d",
    "ReplicationPad2d",
    "ZeroPad1d",
    "ZeroPad3d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
]
