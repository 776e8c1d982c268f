"""Embedding lookup: y = W[idx], whose gradient adds rows back into a table of zeros.

Row i of the weight is the learned vector of token i. The gradient scatters dL/dy back into the
rows that were looked up, *adding* when the same index appears twice (``IndexAddGrad`` in
``indexing.py``). ``padding_idx`` names a row that is never updated (its gradient is zero), as
PyTorch does for padding tokens.
"""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import get_array_module
from .indexing import IndexAddGrad


class EmbeddingLookup(Op):
    """y = W[idx];   dL/dW = zeros with dL/dy rows added at idx (row padding_idx kept at 0)."""

    @staticmethod
    def forward(ctx, weight, idx, padding_idx):
        ctx.idx, ctx.num, ctx.padding_idx = idx, weight.shape[0], padding_idx
        return weight[idx]

    @staticmethod
    def backward(ctx, gy):
        idx = ctx.idx
        if ctx.padding_idx is not None:
            # Send the padding rows' gradient to nowhere: route them to an extra scratch row.
            xp = get_array_module(idx)
            idx = xp.where(idx == ctx.padding_idx, ctx.num, idx)
            g = IndexAddGrad.apply(gy, idx, (ctx.num + 1,) + tuple(gy.shape[idx.ndim :]))
            return g[: ctx.num], None, None
        return IndexAddGrad.apply(gy, idx, (ctx.num,) + tuple(gy.shape[idx.ndim :])), None, None
