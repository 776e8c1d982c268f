"""PyTorch's ``torch.nn.modules.container``: the same classes as ``mg.nn``'s own files."""

from ..containers import (
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)  # noqa: F401
from ..deprecated_layers import Container  # noqa: F401

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
