"""``nn.CosineSimilarity`` and ``nn.PairwiseDistance``: the options of ``F.cosine_similarity`` and
``F.pairwise_distance`` (the math is in their docstrings, in ``nn/functional/distance.py``)."""

from __future__ import annotations

from .._tensor import Tensor
from . import functional as F
from .module import Module


class CosineSimilarity(Module):
    """cos(x1, x2) = x1.x2 / (max(||x1||, eps) max(||x2||, eps)) along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """||x1 - x2 + eps||_p along the last dim."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
