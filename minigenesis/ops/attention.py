"""Scaled dot-product attention, composed from differentiable ops (``attention`` below: the one
computation behind ``F.scaled_dot_product_attention`` and ``nn.MultiheadAttention``).

    scores  = (Q scale) K^T + mask          (B..., L, S);  scale = 1/sqrt(E) by default
    weights = softmax(scores, dim=-1)       each query's distribution over the S keys
    out     = dropout(weights) V            (B..., L, E_v)

Masks say which keys a query may look at. A boolean ``attn_mask`` is True where attention is
ALLOWED (``scaled_dot_product_attention``'s convention; MultiheadAttention's masks are the
opposite, and the module converts them); a float mask is added to the scores (-inf forbids).
``is_causal`` lets query i see keys 0..i only (top-left aligned when L != S, as PyTorch).

A query whose keys are all forbidden would get softmax(-inf, ..., -inf) = 0/0 = NaN. As in PyTorch's
SDPA, its weights are 0 instead (so its output is 0), and no NaN reaches the gradients either: its
scores are replaced by zeros before the softmax and its weights zeroed after it.

The backward pass needs no code here: matmul, softmax, masked_fill and the dropout product each
know theirs, and so does every second derivative.
"""

from __future__ import annotations

import math

import numpy as np

from ..backend import get_array_module
from ..random import bernoulli_mask


def attention(
    query,
    key,
    value,
    mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
):
    """(output, weights) of scaled dot-product attention; ``mask`` is None, a boolean ARRAY
    (True = allowed) or a float Tensor added to the scores. Shapes are checked by the caller."""
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    scores = (query * scale) @ key.transpose(-2, -1)
    xp = get_array_module(scores._data)
    if is_causal:
        scores = scores.masked_fill(~xp.tril(xp.ones((L, S), dtype=bool)), -math.inf)
    if mask is not None:
        if isinstance(mask, type(scores)):  # float mask: added
            scores = scores + mask
        else:  # boolean mask: -inf where not allowed
            scores = scores.masked_fill(~mask, -math.inf)
    if mask is not None or is_causal:
        # rows with no allowed key: softmax on zeros (finite gradients), then zero weights
        dead = (scores._data == -math.inf).all(axis=-1, keepdims=True)
        if xp is not np or dead.any():  # on a GPU, masking always beats a host sync
            scores = scores.masked_fill(dead, 0.0)
            weights = scores.softmax(dim=-1).masked_fill(dead, 0.0)
        else:
            weights = scores.softmax(dim=-1)
    else:
        weights = scores.softmax(dim=-1)
    if dropout_p > 0.0:
        keep = 1.0 - dropout_p
        drop = bernoulli_mask(weights.shape, keep, weights._data)
        weights = weights * type(weights)._make(drop, False) * (1.0 / keep)
    return weights @ value, weights
