"""PyTorch's ``torch.nn.modules.module``: the same classes as ``mg.nn``'s own files."""

from ..module import (
    Module,
)  # noqa: F401

__all__ = ["Module"]
