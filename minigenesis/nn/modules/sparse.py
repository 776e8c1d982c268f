"""PyTorch's ``torch.nn.modules.sparse``: the same classes as ``mg.nn``'s own files."""

from ..embedding import (  # noqa: F401
    Embedding,
    EmbeddingBag,
)

__all__ = ["Embedding", "EmbeddingBag"]
