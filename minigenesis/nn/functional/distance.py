"""F.normalize, F.cosine_similarity and F.pairwise_distance: compositions of ops (mg.cdist is in
functions/matrices.py over ops/distance.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autocast_policy import CUDA_FLOAT32, autocast_function
from ...backend import get_array_module
from ...ops.round_once import in_float32, is_two_byte_float, same_two_byte_float
from ...size import broadcast_error, norm_dim


# ----------------------------------------------------------------------------------------------
# Similarity and distance (mg.cdist: functions/matrices.py over ops/distance.py)
# ----------------------------------------------------------------------------------------------
def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """x / max(||x||_p, eps) along ``dim``: unit vectors (eps keeps a zero vector finite)."""
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported; assign the result instead")
    if is_two_byte_float(input):  # norm, clamp and quotient in float32, rounded once
        return in_float32(normalize, input, p, dim, eps)
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps)


def _clamped_norm(x: Tensor, dim: int, eps: float) -> Tensor:
    """||x||_2 along ``dim`` (kept), its VALUE raised to at least eps; the gradient flows as if
    unclamped. PyTorch 2.x clamps the norm in place under no_grad, so this is its gradient too."""
    n = x.norm(2, dim, keepdim=True)
    return n + (n.detach().clamp_min(eps) - n.detach())


@autocast_function(CUDA_FLOAT32)  # on PyTorch's CUDA float32 list, not the CPU's
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1/max(||x1||, eps) * x2/max(||x2||, eps)) along ``dim``, x1 and x2 broadcast.
    Each vector is divided by its own norm first (as PyTorch 2.x): the result stays in [-1, 1].
    float16/bfloat16 compute in float32 and round once."""
    if same_two_byte_float(x1, x2):
        return in_float32(cosine_similarity, x1, x2, dim, eps)
    try:
        shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    except ValueError:  # (NumPy's ValueError; PyTorch's is a RuntimeError naming the dim)
        raise broadcast_error(x1.shape, x2.shape) from None
    x1, x2 = x1.expand(shape), x2.expand(shape)
    d = norm_dim(dim, len(shape))[0]
    return ((x1 / _clamped_norm(x1, d, eps)) * (x2 / _clamped_norm(x2, d, eps))).sum(d)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """||x1 - x2 + eps||_p along the last dim (eps keeps the gradient of a zero distance finite)."""
    last = max(x1.ndim, x2.ndim) - 1
    diff = x1 - x2 + eps
    if last < 0:  # two 0-d inputs: the p-norm of one number (|d|; for p = 0 its count, 0 or 1)
        return diff.norm(p)
    return diff.norm(p, last, keepdim)


@autocast_function(CUDA_FLOAT32)  # on PyTorch's CUDA float32 list, as cosine_similarity
def pdist(input: Tensor, p: float = 2.0) -> Tensor:  # noqa: A002
    """The p-norm distances between the rows of an (N, M) input, every pair i < j once, in row
    order: ||x_0 - x_1||, ||x_0 - x_2||, ..., ||x_{N-2} - x_{N-1}|| (N (N - 1) / 2 values).
    The gradient of a zero distance is 0 (PyTorch's)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    xp = get_array_module(input._data)
    rows, cols = xp.triu_indices(n, 1)
    diff = input[rows] - input[cols]
    return _norm_rows(diff, float(p))


def _norm_rows(diff: Tensor, p: float) -> Tensor:
    """||row||_p of each row, with a zero gradient at a zero row (where the p-norm's slope
    divides 0 by 0)."""
    if diff.shape[1] == 0 or diff.shape[0] == 0:  # no pairs, or rows of no columns
        return diff.abs().sum(1)
    zero = (diff == 0).all(1, keepdim=True)
    safe = diff.where(~zero, 1.0)  # a zero row's gradient flows through a row of ones, then 0
    if p == 0:  # the count of nonzero entries: a step function, gradient 0 (kept in the graph)
        return (diff != 0).sum(1).to(diff.dtype) + diff.sum(1) * 0.0
    return safe.norm(p, 1).where(~zero.squeeze(1), 0.0)
