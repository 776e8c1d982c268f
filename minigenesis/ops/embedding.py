"""Embedding lookup: y = W[idx], whose gradient adds rows back into a table of zeros.

Row i of the weight is the learned vector of token i. The gradient scatters dL/dy back into the
rows that were looked up, *adding* when the same index appears twice (``EmbeddingGrad``).
``padding_idx`` names a row that is never updated (its gradient is zero), as PyTorch does for
padding tokens. Indices are checked to lie in [0, num) before they get here (F.embedding).
"""

from __future__ import annotations

import math

from ..autograd.function import Op
from ..backend import get_array_module
from .indexing import add_rows_at


class EmbeddingLookup(Op):
    """y = W[idx];   dL/dW = zeros with dL/dy rows added at idx (row padding_idx kept at 0)."""

    @staticmethod
    def forward(ctx, weight, idx, padding_idx):
        ctx.idx, ctx.num, ctx.padding_idx = idx, weight.shape[0], padding_idx
        return weight[idx]

    @staticmethod
    def backward(ctx, gy):
        return EmbeddingGrad.apply(gy, ctx.idx, ctx.num, ctx.padding_idx), None, None


class EmbeddingGrad(Op):
    """g_W = zeros(num, D) with row i = the sum of the rows of g_y looked up at index i (row
    padding_idx left at 0);   its own gradient: d g_W / d g_y picks rows back, g'[idx] (with
    the padding row zeroed), a lookup again, so second derivatives work.

    The sum is indexing's ``add_rows_at``: on all but small batches a sort, the M looked-up rows
    gathered in index order and each run of equal indices summed by one ``add.reduceat``."""

    @staticmethod
    def forward(ctx, gy, idx, num, padding_idx):
        ctx.idx, ctx.padding_idx = idx, padding_idx
        xp = get_array_module(gy)
        flat = idx.reshape(-1)
        rows = gy.reshape(flat.size, math.prod(gy.shape[idx.ndim :]))  # (-1 fails on no rows)
        out = xp.zeros((num, rows.shape[1]), dtype=gy.dtype)
        add_rows_at(out, flat, rows)
        if padding_idx is not None:
            out[padding_idx] = 0
        return out.reshape((num,) + gy.shape[idx.ndim :])

    @staticmethod
    def backward(ctx, ggw):
        if ctx.padding_idx is not None:  # the padding rows of g_y never reached g_W
            keep = get_array_module(ggw._data).ones((ggw.shape[0],) + (1,) * (ggw.ndim - 1))
            keep[ctx.padding_idx] = 0
            ggw = ggw * type(ggw)._make(keep.astype(ggw._data.dtype), False)
        return EmbeddingLookup.apply(ggw, ctx.idx, None), None, None, None
