"""Scaled dot-product attention, composed from differentiable ops.

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

from ..autocast_policy import LOWER, autocast_function
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


@autocast_function(LOWER)
def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
):
    """softmax(Q K^T * scale + mask) V for query (..., L, E), key (..., S, E), value (..., S, Ev).

    ``attn_mask``: boolean (True = take part) or float (added), broadcastable to (..., L, S).
    ``is_causal``: query i attends to keys j <= i; cannot be combined with ``attn_mask``.
    ``dropout_p``: dropout on the attention weights (applied whenever it is > 0, as PyTorch's
    functional form does: pass 0.0 in eval mode). ``enable_gqa``: key/value may have fewer heads
    (dim -3) than the query; each is shared by a group of query heads."""
    name = "scaled_dot_product_attention"
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise ValueError(f"{name}: query, key and value need at least 2 dims (..., seq, embed)")
    if key.shape[-1] != query.shape[-1]:
        raise ValueError(
            f"{name}: query {tuple(query.shape)} and key {tuple(key.shape)} must have the same "
            f"embedding size (last dim)"
        )
    if value.shape[-2] != key.shape[-2]:
        raise ValueError(
            f"{name}: key {tuple(key.shape)} and value {tuple(value.shape)} must have the same "
            f"sequence length (dim -2)"
        )
    if not 0.0 <= dropout_p < 1.0:
        raise ValueError(f"{name}: dropout_p must be in [0, 1), got {dropout_p}")
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = _repeat_heads(key, query.shape[-3]), _repeat_heads(value, query.shape[-3])
    mask = None
    if attn_mask is not None:
        if is_causal:
            raise ValueError(f"{name}: pass either attn_mask or is_causal=True, not both")
        L, S = query.shape[-2], key.shape[-2]
        if tuple(attn_mask.shape[-2:]) not in ((L, S), (1, S), (L, 1), (1, 1)):
            raise ValueError(
                f"{name}: attn_mask of shape {tuple(attn_mask.shape)} does not broadcast to the "
                f"scores (..., {L}, {S}) of query {tuple(query.shape)} and key {tuple(key.shape)}"
            )
        if attn_mask._data.dtype == bool:
            mask = attn_mask._data
        else:
            mask = attn_mask if attn_mask.dtype == query.dtype else attn_mask.to(query.dtype)
    return attention(query, key, value, mask, dropout_p, is_causal, scale)[0]


def _repeat_heads(t, heads: int):
    """(..., Hk, S, E) -> (..., heads, S, E): each of the Hk heads repeated heads/Hk times."""
    hk = t.shape[-3]
    if heads % hk:
        raise ValueError(
            f"scaled_dot_product_attention: {heads} query heads cannot be grouped over {hk} "
            f"key/value heads"
        )
    lead = tuple(t.shape[:-3])
    expanded = t.unsqueeze(-3).expand(lead + (hk, heads // hk) + tuple(t.shape[-2:]))
    return expanded.reshape(lead + (heads,) + tuple(t.shape[-2:]))
