"""PyTorch's ``torch.nn.modules.linear``: the same classes as ``mg.nn``'s own files."""

from ..linear import (
    Bilinear,
    Identity,
    Linear,
    NonDynamicallyQuantizableLinear,
)  # noqa: F401

# NonDynamicallyQuantizableLinear (MultiheadAttention's out_proj) is importable by this path,
# as in PyTorch, without being in __all__ (PyTorch leaves it out too)
__all__ = ["Linear", "Identity", "Bilinear"]
