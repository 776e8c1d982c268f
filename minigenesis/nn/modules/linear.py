"""PyTorch's ``torch.nn.modules.linear``: the same classes as ``mg.nn``'s own files."""

from ..lazy import LazyLinear  # noqa: F401
from ..linear import (  # noqa: F401
    Bilinear,
    Identity,
    Linear,
    NonDynamicallyQuantizableLinear,
)

# NonDynamicallyQuantizableLinear (MultiheadAttention's out_proj) is importable by this path,
# as in PyTorch, without being in __all__ (PyTorch leaves it out too)
__all__ = ["Linear", "Identity", "Bilinear", "LazyLinear"]
