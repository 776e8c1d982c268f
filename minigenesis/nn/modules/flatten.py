"""PyTorch's ``torch.nn.modules.flatten``: the same classes as ``mg.nn``'s own files."""

from ..flatten import (
    Flatten,
    Unflatten,
)  # noqa: F401

__all__ = ["Flatten", "Unflatten"]
