"""F.normalize, F.cosine_similarity and F.pairwise_distance: compositions of ops (mg.cdist is in
functions/matrices.py over ops/distance.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autocast_policy import CUDA_FLOAT32, autocast_function
from ...size import norm_dim


# ----------------------------------------------------------------------------------------------
# Similarity and distance (mg.cdist: functions/matrices.py over ops/distance.py)
# ----------------------------------------------------------------------------------------------
def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """x / max(||x||_p, eps) along ``dim``: unit vectors (eps keeps a zero vector finite)."""
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported; assign the result instead")
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps)


def _clamped_norm(x: Tensor, dim: int, eps: float) -> Tensor:
    """||x||_2 along ``dim`` (kept), its VALUE raised to at least eps; the gradient flows as if
    unclamped. PyTorch 2.x clamps the norm in place under no_grad, so this is its gradient too."""
    n = x.norm(2, dim, keepdim=True)
    return n + (n.detach().clamp_min(eps) - n.detach())


@autocast_function(CUDA_FLOAT32)  # on PyTorch's CUDA float32 list, not the CPU's
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1/max(||x1||, eps) * x2/max(||x2||, eps)) along ``dim``, x1 and x2 broadcast.
    Each vector is divided by its own norm first (as PyTorch 2.x): the result stays in [-1, 1]."""
    shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    x1, x2 = x1.expand(shape), x2.expand(shape)
    d = norm_dim(dim, len(shape))[0]
    return ((x1 / _clamped_norm(x1, d, eps)) * (x2 / _clamped_norm(x2, d, eps))).sum(d)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """||x1 - x2 + eps||_p along the last dim (eps keeps the gradient of a zero distance finite)."""
    last = max(x1.ndim, x2.ndim) - 1
    diff = x1 - x2 + eps
    if last < 0:  # two 0-d inputs: the distance of one number
        return diff.abs()
    return diff.norm(p, last, keepdim)
