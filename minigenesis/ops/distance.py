"""Euclidean distances between two sets of points through one matrix product (``mg.cdist``).

For rows a of x1 and b of x2, ||a - b||^2 = ||a||^2 - 2 a.b + ||b||^2: the P x R middle terms are
one matmul instead of a P x R x M difference tensor. It is faster for many points but loses
precision when the distance is small next to the norms (cancellation), which is why PyTorch (and
``mg.cdist``) use it only for more than 25 points unless asked (``compute_mode=``).
"""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module
from .matmul import matmul_arrays


class EuclideanDistMM(Op):
    """d_pr = sqrt(max(||x1_p||^2 - 2 x1_p.x2_r + ||x2_r||^2, 0)) for x1 (B, P, M), x2 (B, R, M);
    dd_pr/dx1_p = (x1_p - x2_r) / d_pr, and 0 where d_pr = 0 (PyTorch's subgradient)."""

    @staticmethod
    def forward(ctx, x1, x2):
        xp = get_array_module(x1)
        sq1 = (x1 * x1).sum(-1)[..., :, None]
        sq2 = (x2 * x2).sum(-1)[..., None, :]
        d2 = sq1 + sq2 - 2 * matmul_arrays(x1, xp.swapaxes(x2, -1, -2))
        d = xp.sqrt(xp.maximum(d2, 0))  # rounding can make a zero distance slightly negative
        ctx.save_for_backward(x1, x2, d)
        return d

    @staticmethod
    def backward(ctx, gy):
        x1, x2, d = ctx.saved_tensors
        zero = d == 0
        ratio = (gy / d.masked_fill(zero, 1.0)).masked_fill(zero, 0.0)  # g/d; 0 where d = 0
        g1 = x1 * ratio.sum(-1, keepdim=True) - ratio @ x2
        g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.transpose(-1, -2) @ x1
        return g1, g2
