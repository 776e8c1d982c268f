"""PyTorch's ``torch.nn.modules.distance``: the same classes as ``mg.nn``'s own files."""

from ..distance import (
    CosineSimilarity,
    PairwiseDistance,
)  # noqa: F401

__all__ = ["PairwiseDistance", "CosineSimilarity"]
