"""PyTorch's ``torch.nn.modules.sparse``: the same classes as ``mg.nn``'s own files."""

from ..embedding import (
    Embedding,
)  # noqa: F401

__all__ = ["Embedding"]
